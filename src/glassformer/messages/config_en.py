"""The words of config.py: the presets' one-line descriptions (their numbers read from the preset
itself, so this is the only place a description is written) and the refusals of a config or an
override."""

TEXT = {
    # ---- presets (config.py; their numbers are read from the preset itself) -----------------------------
    "preset.seed000": "first tutorial: {n_layers} layers, {n_heads} heads, d_model {d_model}, d_ff {d_ff}",
    "preset.baby": "nanoGPT's CPU recipe: {n_layers} layers, {n_heads} heads, d_model {d_model}, seq_len {seq_len}",
    "preset.small": "nanoGPT's GPU recipe: {n_layers} layers, {n_heads} heads, d_model {d_model}, seq_len {seq_len}",
    "preset.seed002": "second tutorial: {n_layers} layer, {n_heads} heads, d_model {d_model}, d_ff {d_ff}, no "
    "LayerNorm",
    "preset.sine": "third tutorial: {n_layers} post-LN layers, {n_heads} heads, d_model {d_model}, GELU, sinusoidal PE",
    "preset.seq2seq": "the 2017 encoder-decoder, small: {n_layers}+{n_layers} post-LN layers, d_model {d_model}, one "
    "shared embedding",
    # ---- configs and overrides (config.py) ------------------------------------------------------------
    "error.config.did_you_mean": " Did you mean {near!r}?",
    "error.config.did_you_mean_flag": " Did you mean --{near}?",
    "error.config.choice": "{name}={value!r} is not one of {valid}.{hint}",
    "error.config.positive": "{name} must be positive, got {name}={value}.",
    "error.config.heads": "d_model={d_model} is not divisible by n_heads={n_heads}: each head gets d_model // "
    "n_heads features. Use n_heads={nearest} (nearest divisor) or change d_model to a "
    "multiple of {n_heads}.",
    "error.config.dropout": "dropout must be in [0, 1), got dropout={value}.",
    "error.config.mha_fused": "mha_style='fused' was renamed: use mha_style='packed' (one Linear makes Q, K and V "
    "for every head). 'fused' now only names PyTorch's attention kernel "
    "(attention='fused').",
    "error.config.pad_id": "pad_id={pad_id} is outside the vocabulary [0, {vocab_size}).",
    "error.config.threads": "threads must be from 0 (torch's choice) to {most}, got threads={value}.",
    "error.config.non_negative": "{name} must be >= 0, got {name}={value}.",
    "error.config.min_lr": "min_lr={min_lr} is above lr={lr}: the schedule decays from lr down to min_lr. Use a min_lr "
    "of at most {lr}.",
    "error.config.beta": "{name} must be in [0, 1), got {name}={value} (AdamW's moments average over about "
    "1/(1 - {name}) steps; 0.9 and 0.999 are the usual values).",
    "error.config.seed": "seed must be a whole number from 0 to {most}, got seed={value}.",
    "error.config.preset": "unknown preset {name!r}; choose one of {names}.{hint}",
    "error.config.type": "--{key}={value!r}: expected a value of type {type}.",
    "error.config.finite": "--{key}={value!r}: expected a finite number.",
    "error.config.override_form": "override {item!r} must look like --key=value or --key value.",
    "error.config.override_value": "override {item!r} must look like --key=value or --key value; it has no value "
    "(write --{key}=VALUE or --{key} VALUE).",
    "error.config.unknown_key": "unknown config key --{key}.{hint}",
    "error.config.not_read": "{field}={value!r} means nothing to a {kind} model: only {kinds} read {field}. Leave "
    "it out for kind={kind!r}.",
    "error.config.renamed": "--{key} is now called --{new}: write --{new}={value}.",
}
