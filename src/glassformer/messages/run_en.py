"""The words of a run, from its config to its speed: the presets' one-line descriptions (their numbers
read from the preset itself, so this is the only place a description is written) and the refusals of a
config or an override (config.py); the trainer's typed errors of the batch sources, the generated data
and the torchrun world, and two notes of the loop (train/); writing with a model (sample.py's typed
errors and its notes on what the model reads past max_len, translate.py's of greedy and beam search);
`glassformer bench` and the speed line of `train`'s summary. The command line's help and printed
lines are in en.py."""

TEXT = {
    # ==== config ====================================================================================
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
    # ==== train =====================================================================================
    # ---- the loop (train/loop.py) -----------------------------------------------------------------
    "train.compile_failed": "torch.compile does not work here ({error}: {first}); continuing without it "
    "(drop --compile=true to skip this message).",
    "train.early_stop": "no better {key} for {patience} evaluations",
    "train.sigterm": "SIGTERM: stopping after this step and saving a checkpoint (send it again to stop at once) ...",
    # ---- batch sources and generated data (train/data.py) ---------------------------------------------
    "error.batch.short": "data has {n} tokens but a window needs seq_len + 1 = {need}; use a longer corpus or a "
    "smaller seq_len.",
    "error.data.rows": "inputs ({inputs} rows) and targets ({targets} rows) must be non-empty and the same length.",
    "error.data.no_pairs": "PairBatches needs training and validation pairs; one of them is empty.",
    "error.data.blank_pair": "every pair needs a non-empty source and target (the decoder adds <BOS>/<EOS>).",
    "error.data.wave_source": "unknown numeric source {source!r}; choose one of {choices}.",
    "error.data.digit_capacity": "only {capacity:,} digit strings have at most {max_digits} digits; ask for fewer "
    "than {n:,} pairs or allow longer strings.",
    "error.data.pair_source": "unknown pair source {source!r}; choose one of {choices}.",
    # ---- the progress display (train/record.py) -------------------------------------------------------
    "error.write.disk_full": "the disk holding {dir} is full: {free:.1f} MB free, a checkpoint needs about "
    "{need:.1f} MB. The last good checkpoint, step {step}, is kept; free some space, then continue with: "
    "glassformer train --resume {dir}",
    "error.write.disk_full_first": "the disk holding {dir} is full: {free:.1f} MB free, a checkpoint needs about "
    "{need:.1f} MB; no checkpoint had been saved yet. Free some space, then start the run again.",
    "error.progress.mode": "progress={mode!r} is not one of {modes}.",
    # ---- several processes under torchrun (train/distributed.py) --------------------------------------
    "error.world.source": "multi-process training splits windows of a text corpus (token models); {source} "
    "(generated numbers or pairs) is small: train it in one process, without torchrun.",
    "error.world.gpus": "--device=cuda: this machine has {gpus} GPU(s), but torchrun started a process with "
    "LOCAL_RANK {local_rank}. Pass --nproc_per_node at most the number of GPUs.",
    "error.world.device": "--device={device} under torchrun: each process takes the GPU of its LOCAL_RANK by "
    "itself. Pass --device=cuda (or --device=cpu).",
    "error.world.peer_stopped": "another process of this torchrun job stopped (its own message says why); rank "
    "{rank} stops too.",
    "error.world.env": "WORLD_SIZE={size} but {missing} not set: start several processes with torchrun "
    "(docs/scale.md), or unset WORLD_SIZE.",
    # ---- an imported GPT-2 run (train/run.py: config.json's "about") -------------------------
    "train.gpt2.about": "GPT-2 imported from {source}",
    # ==== sampling ==================================================================================
    # ---- sampling (sample.py) ---------------------------------------------------------------------------
    "error.sample.no_cache": "{model} has no KV cache; sample with use_cache=False.",
    "error.sample.max_new_tokens": "max_new_tokens must be a whole number >= 0, got {value!r}",
    "error.sample.num_samples": "num_samples must be a whole number >= 1, got {value!r}",
    "error.sample.temperature": "temperature must be a finite number >= 0 (0 = greedy), got {value}",
    "error.sample.top_k": "top_k must be a whole number >= 1, got {value!r}",
    "error.sample.top_p": "top_p must be in (0, 1], got {value}",
    "error.sample.empty_prompt": "the prompt is empty: give the model at least one token to continue",
    "error.sample.stop_unseen": "the stop string {stop!r} can never appear in this model's text: {chars} cannot "
    "be written with its vocabulary, so sampling would never stop there. Use a stop string made of what the model "
    "writes.",
    "sample.window_slides": "position={name}: a table of max_len={max_len} positions; past it the model sees only the "
    "last {max_len} tokens (the window slides).",
    "sample.cache_grows": "position={name}: no position table; past max_len={max_len} the model keeps reading every "
    "token, at distances it never trained on (the KV cache grows).",
    # ---- greedy and beam search (translate.py) ------------------------------------------------------
    "error.translate.max_new_tokens": "max_new_tokens must be in {low} … {high} (the model's max_len), got {value}.",
    "error.translate.beam_width": "beam_width must be in {low} … {high} (the vocabulary minus <PAD> and <BOS>), "
    "got {value}.",
    "error.translate.length_penalty": "the length penalty α must be >= {low}, got {value}.",
    # ==== bench =====================================================================================
    "help.bench": "measure this machine: its own peak speed",
    "help.bench.about": "Measure this machine's speed of light. `glassformer bench machine` times a float32 "
    "and a bfloat16 matrix product and a large memory copy, so a run can say what fraction of the machine "
    "it uses.",
    "help.bench.machine": "float32 and bfloat16 matrix-product rates and memory bandwidth, measured now",
    "help.bench.device": "the device to measure: cpu, cuda, cuda:N, mps (default: cpu)",
    "help.bench.budget": "seconds spent on each measurement (default: {default}); the fastest call counts",
    "help.bench.no_save": "do not keep the figures for later `train` summaries",
    "bench.budget": "--budget {value}: give a number of seconds above 0 and at most {most}.",
    "bench.machine.title": "this machine, {device}, {threads} thread(s):",
    "bench.machine.float32": "  float32 matrix product   {gflops:9.1f} GFLOP/s",
    "bench.machine.bfloat16": "  bfloat16 matrix product  {gflops:9.1f} GFLOP/s  ({ratio:.1f}× float32)",
    "bench.machine.bandwidth": "  memory bandwidth         {gbs:9.1f} GB/s (a large copy: read + write)",
    "bench.machine.bf16_pays": "bfloat16 products are {ratio:.1f}× faster here: --dtype=auto trains in bfloat16 "
    "on this machine.",
    "bench.machine.bf16_slow": "bfloat16 products are only {ratio:.1f}× float32 here: --dtype=auto stays in "
    "float32 on this machine.",
    "bench.machine.saved": "kept in {path} (train's summary divides by these figures)",
    "bench.train_speed": "speed: {tokens_per_s:,.0f} tokens/s, {gflops:.1f} GFLOP/s of model arithmetic = "
    "{mfu:.0%} of this machine's {dtype} matrix-product peak ({peak:.1f} GFLOP/s, {how})",
    "bench.bf16_hint": "this machine's bfloat16 products are {ratio:.1f}× faster: --dtype=auto (or "
    "--dtype=bfloat16) trains with them (docs/performance.md: the losses stay within 0.1%)",
    "bench.peak_saved": "measured by `glassformer bench machine`",
    "bench.peak_quick": "a quick probe; `glassformer bench machine` measures it carefully",
}
