"""Configs as dataclasses, validated at construction, plus the named presets.

One `ModelConfig` describes every model glassformer builds; its `kind` names the assembly
(gpt, encoder, regressor, ...) and `glassformer.models.build_model` turns it into a model. One
`TrainConfig` describes a training run. A preset is a named pair of them. Tests, lessons, the CLI
and the benchmarks all start from the same presets. Overrides from a command line are parsed in
one place, `parse_overrides` (`--key value`, `--key=value`, `-` or `_` in the key), and applied by
`apply_overrides`, which type-checks each value and rejects unknown keys.

Names of pluggable parts (`kind`, `position`) are checked by their registries when the model is
built (models/kinds.py, nn/position.py), so adding one never means editing this file.
Every message here is a key of the catalogue (glassformer/messages), said in the user's language.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import typing
from dataclasses import dataclass, field, fields, replace

from glassformer.errors import UsageError
from glassformer.messages import has, t


def _choice(name: str, value: str, valid: tuple[str, ...]) -> None:
    """Raise a ValueError naming the bad value and the nearest valid choice."""
    if value not in valid:
        near = difflib.get_close_matches(str(value), valid, n=1)
        hint = t("error.config.did_you_mean", near=near[0]) if near else ""
        raise UsageError("error.config.choice", name=name, value=value, valid=list(valid), hint=hint)


def _positive(**values: float) -> None:
    for name, value in values.items():
        if value <= 0:
            raise UsageError("error.config.positive", name=name, value=value)


ACTIVATIONS = ("relu", "gelu", "gelu_tanh")
NORMS = ("pre", "post", "none")
INITS = ("torch", "xavier", "gpt2")
ATTENTIONS = ("glass", "fused")  # the attention computation: written out, or PyTorch's fused kernel
MHA_STYLES = ("packed", "heads")  # how Q, K, V are projected: one packed Linear, or one module a head
MAX_THREADS = 256  # more than any machine this runs on has cores; torch crashes on absurd counts


@dataclass
class ModelConfig:
    """Every size and switch of a model. Field names follow docs/architecture.md's vocabulary."""

    kind: str = "gpt"  # which assembly build_model makes: gpt | encoder | regressor | seq2seq (models/kinds.py)
    vocab_size: int = 65  # tokens; the tokenizer decides the real value
    d_model: int = 64  # width of the residual stream (C)
    n_heads: int = 4  # H; d_head = d_model // n_heads
    d_ff: int = 128  # FFN hidden width; 4·d_model is the GPT habit, the tutorials use 2·
    n_layers: int = 2  # number of blocks
    max_len: int = 128  # positions the model can address
    dropout: float = 0.0  # one rate for embeddings, attention weights and residual branches
    bias: bool = True  # biases in Linear and LayerNorm (nanoGPT's CPU recipe turns them off)
    activation: str = "relu"  # FFN nonlinearity: relu | gelu | gelu_tanh (GPT-2)
    norm: str = "pre"  # pre: x + f(LN(x)); post: LN(x + f(x)); none: x + f(x)
    final_norm: bool = True  # LayerNorm before the head (GPT-2 has one; post-LN stacks usually not)
    position: str = "learned"  # a registered scheme: learned | sinusoidal | rotary | alibi | none (nn/position.py)
    causal: bool = True  # decoder (True) or bidirectional encoder (False); seq2seq: its decoder's mask
    tie_weights: bool = False  # share token embedding and output head (GPT-2 does; seq2seq: the target's)
    share_embeddings: bool = False  # seq2seq: one (V, C) table for source and target tokens (one vocabulary)
    init: str = "torch"  # torch defaults | xavier (2nd tutorial) | gpt2 (normal 0.02, scaled residuals)
    attention: str = "glass"  # glass: hand-written, weights visible | fused: F.scaled_dot_product_attention
    mha_style: str = "packed"  # packed: one Linear makes Q, K, V | heads: a ModuleList of single heads
    ln_eps: float = 1e-5  # LayerNorm epsilon (PyTorch and GPT-2 both use 1e-5)
    pad_id: int | None = None  # when set, keys equal to pad_id are masked out (Encoder; seq2seq needs it)
    d_in: int = 1  # SequenceRegressor: numbers per input step
    d_out: int = 1  # SequenceRegressor: numbers per output step

    def __post_init__(self) -> None:
        _positive(
            vocab_size=self.vocab_size,
            d_model=self.d_model,
            n_heads=self.n_heads,
            d_ff=self.d_ff,
            n_layers=self.n_layers,
            max_len=self.max_len,
            ln_eps=self.ln_eps,
            d_in=self.d_in,
            d_out=self.d_out,
        )
        if self.d_model % self.n_heads != 0:
            divisors = [h for h in range(1, self.d_model + 1) if self.d_model % h == 0]
            nearest = min(divisors, key=lambda h: abs(h - self.n_heads))
            raise UsageError("error.config.heads", d_model=self.d_model, n_heads=self.n_heads, nearest=nearest)
        if not 0.0 <= self.dropout < 1.0:
            raise UsageError("error.config.dropout", value=self.dropout)
        _choice("activation", self.activation, ACTIVATIONS)
        _choice("norm", self.norm, NORMS)
        _choice("init", self.init, INITS)
        _choice("attention", self.attention, ATTENTIONS)
        if self.mha_style == "fused":
            raise UsageError("error.config.mha_fused")
        _choice("mha_style", self.mha_style, MHA_STYLES)
        if self.pad_id is not None and not 0 <= self.pad_id < self.vocab_size:
            raise UsageError("error.config.pad_id", pad_id=self.pad_id, vocab_size=self.vocab_size)

    @property
    def d_head(self) -> int:
        return self.d_model // self.n_heads


@dataclass
class TrainConfig:
    """Everything about a training run that is not the model."""

    batch_size: int = 16  # sequences per step (B)
    block_size: int = 16  # tokens per training sequence (T); must be <= max_len
    max_steps: int = 500  # optimizer steps
    lr: float = 1e-3  # peak learning rate
    min_lr: float = 1e-4  # floor of the cosine decay
    lr_schedule: str = "constant"  # constant | cosine (linear warmup, cosine decay to min_lr)
    warmup_steps: int = 0  # linear warmup from 0 to lr
    beta1: float = 0.9  # AdamW betas
    beta2: float = 0.999
    weight_decay: float = 0.01  # AdamW decay; never applied to biases, LayerNorm or embeddings
    grad_clip: float = 0.0  # max global grad norm; 0 disables clipping
    grad_accum: int = 1  # micro-batches per optimizer step
    eval_interval: int = 100  # steps between evaluations (and checkpoints, samples)
    eval_iters: int = 20  # batches averaged per evaluation
    seed: int = 1337  # one seed for init, batches and dropout
    device: str = "cpu"  # cpu | cuda | mps
    compile: bool = False  # opt-in torch.compile
    dtype: str = "float32"  # float32 | bfloat16 (autocast, opt-in)
    log_interval: int = 10  # steps between progress/metrics updates: the loop's only host syncs
    threads: int = 1  # CPU threads for the run; 0 = torch's choice (every core). See threads.py

    def __post_init__(self) -> None:
        _positive(
            batch_size=self.batch_size,
            block_size=self.block_size,
            max_steps=self.max_steps,
            lr=self.lr,
            grad_accum=self.grad_accum,
            eval_interval=self.eval_interval,
            eval_iters=self.eval_iters,
            log_interval=self.log_interval,
        )
        if not 0 <= self.threads <= MAX_THREADS:
            raise UsageError("error.config.threads", most=MAX_THREADS, value=self.threads)
        _choice("lr_schedule", self.lr_schedule, ("constant", "cosine"))
        _choice("dtype", self.dtype, ("float32", "bfloat16"))
        if self.warmup_steps < 0 or self.grad_clip < 0 or self.min_lr < 0 or self.weight_decay < 0:
            raise UsageError("error.config.non_negative")


@dataclass
class Preset:
    """A named starting point: a model and the run that trains it."""

    model: ModelConfig
    train: TrainConfig = field(default_factory=TrainConfig)
    about: str = ""


PRESETS: dict[str, Preset] = {
    # The first tutorial's own TinyTransformer and loop (char-level, pre-LN, learned positions).
    "seed000": Preset(
        ModelConfig(d_model=64, n_heads=4, d_ff=128, n_layers=2, max_len=128, dropout=0.1),
        TrainConfig(batch_size=16, block_size=16, max_steps=500, lr=1e-3, eval_interval=100),
        about="first tutorial: 2 layers, 4 heads, d_model 64, d_ff 128",
    ),
    # nanoGPT's shakespeare_char CPU recipe (nanoGPT ties the head to the token embedding).
    "baby": Preset(
        ModelConfig(
            d_model=128,
            n_heads=4,
            d_ff=512,
            n_layers=4,
            max_len=64,
            dropout=0.0,
            bias=False,
            activation="gelu",
            init="gpt2",
            tie_weights=True,
        ),
        TrainConfig(
            batch_size=12,
            block_size=64,
            max_steps=2000,
            lr=1e-3,
            min_lr=1e-4,
            lr_schedule="cosine",
            warmup_steps=100,
            beta1=0.9,
            beta2=0.99,
            weight_decay=0.1,
            grad_clip=1.0,
            eval_interval=250,
            eval_iters=20,
        ),
        about="nanoGPT's CPU recipe: 4 layers, 4 heads, d_model 128, block 64",
    ),
    # nanoGPT's shakespeare_char GPU recipe.
    "small": Preset(
        ModelConfig(
            d_model=384,
            n_heads=6,
            d_ff=1536,
            n_layers=6,
            max_len=256,
            dropout=0.2,
            bias=False,
            activation="gelu",
            init="gpt2",
            tie_weights=True,
        ),
        TrainConfig(
            batch_size=64,
            block_size=256,
            max_steps=5000,
            lr=1e-3,
            min_lr=1e-4,
            lr_schedule="cosine",
            warmup_steps=100,
            beta1=0.9,
            beta2=0.99,
            weight_decay=0.1,
            grad_clip=1.0,
            eval_interval=250,
            eval_iters=200,
        ),
        about="nanoGPT's GPU recipe: 6 layers, 6 heads, d_model 384, block 256",
    ),
    # The second tutorial's one-layer word model: no LayerNorm, no dropout, Xavier init, no mask.
    "seed002": Preset(
        ModelConfig(
            kind="encoder",
            vocab_size=20,
            d_model=128,
            n_heads=4,
            d_ff=512,
            n_layers=1,
            max_len=5,
            norm="none",
            final_norm=False,
            causal=False,
            init="xavier",
        ),
        TrainConfig(batch_size=16, block_size=4, max_steps=1400, lr=1e-3, weight_decay=0.0),
        about="second tutorial: 1 layer, 4 heads, d_model 128, d_ff 512, no LayerNorm",
    ),
    # The third tutorial's sine regressor: post-LN encoder, GELU, sinusoidal positions.
    "sine": Preset(
        ModelConfig(
            kind="regressor",
            vocab_size=1,
            d_model=32,
            n_heads=4,
            d_ff=128,
            n_layers=2,
            max_len=64,
            dropout=0.1,
            activation="gelu",
            norm="post",
            final_norm=False,
            position="sinusoidal",
            causal=False,
        ),
        TrainConfig(batch_size=32, block_size=50, max_steps=1000, lr=1e-3, grad_clip=1.0),
        about="third tutorial: 2 post-LN layers, 4 heads, d_model 32, GELU, sinusoidal PE",
    ),
    # The 2017 paper's encoder-decoder, small: post-LN, sinusoidal positions, ReLU, no final norm,
    # one (V, C) matrix for both embeddings and the head; trained with label smoothing (the kind's
    # loss). vocab_size and pad_id are the pair tokenizer's (train/data.py).
    "seq2seq": Preset(
        ModelConfig(
            kind="seq2seq",
            vocab_size=28,
            d_model=64,
            n_heads=4,
            d_ff=128,
            n_layers=2,
            max_len=16,
            dropout=0.1,
            norm="post",
            final_norm=False,
            position="sinusoidal",
            share_embeddings=True,
            tie_weights=True,
            init="xavier",
            pad_id=0,
        ),
        TrainConfig(
            batch_size=64,
            block_size=16,
            max_steps=1500,
            lr=1e-3,
            min_lr=1e-4,
            lr_schedule="cosine",
            warmup_steps=100,
            weight_decay=0.0,
            eval_interval=250,
            eval_iters=8,
        ),
        about="the 2017 encoder-decoder, small: 2+2 post-LN layers, d_model 64, one shared embedding",
    ),
}


def get_preset(name: str) -> Preset:
    """A fresh copy of a named preset (callers may change it freely)."""
    if name not in PRESETS:
        near = difflib.get_close_matches(name, PRESETS, n=1)
        hint = t("error.config.did_you_mean", near=near[0]) if near else ""
        raise UsageError("error.config.preset", name=name, names=sorted(PRESETS), hint=hint)
    p = PRESETS[name]
    return Preset(replace(p.model), replace(p.train), p.about)


def preset_about(name: str) -> str:
    """A preset's one-line description in the user's language, its numbers read from the preset
    (the English one is `about`, which config.json keeps; a test checks the two agree)."""
    p = PRESETS[name]
    if not has(f"preset.{name}"):  # a preset registered elsewhere, with its own words
        return p.about
    return t(f"preset.{name}", **to_dict(p.model), **to_dict(p.train))


def _parse(text: str, kind: typing.Any, key: str):
    """Turn an override's text into the field's type, or explain why it cannot be."""
    args = typing.get_args(kind)
    if type(None) in args:  # Optional[int] and friends
        if text.lower() in ("none", "null"):
            return None
        kind = next(a for a in args if a is not type(None))
    try:
        if kind is bool:
            if text.lower() in ("1", "true", "yes", "on"):
                return True
            if text.lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError
        if kind is int:
            return int(text)
        if kind is float:
            value = float(text)
        else:
            return str(text)
    except ValueError:
        raise UsageError("error.config.type", key=key, value=text, type=kind.__name__) from None
    return _finite(value, key)


def _finite(value: float, key: str) -> float:
    """nan and inf parse as floats but are no setting (lr=nan would train nothing, silently)."""
    try:
        value = float(value)
    except OverflowError:  # an int too large for a float
        value = math.inf
    if not math.isfinite(value):
        raise UsageError("error.config.finite", key=key, value=value)
    return value


def _check_type(value, kind: typing.Any, key: str):
    """A non-text override must already have the field's type (bool is not an int here)."""
    args = typing.get_args(kind)
    if type(None) in args:
        if value is None:
            return None
        kind = next(a for a in args if a is not type(None))
    ok = (
        isinstance(value, bool)
        if kind is bool
        else (
            isinstance(value, (int, float)) and not isinstance(value, bool)
            if kind is float
            else isinstance(value, kind) and not isinstance(value, bool)
        )
    )
    if not ok:
        raise UsageError("error.config.type", key=key, value=value, type=kind.__name__)
    return _finite(value, key) if kind is float else value


def parse_overrides(argv: list[str] | tuple[str, ...]) -> dict[str, str]:
    """Command-line overrides -> {key: text}. The one place that reads them.

    Accepts `--key=value` and `--key value`; `-` and `_` in a key are the same (`--max-steps 500`
    is `--max_steps=500`). A key without a value is an error that says how to give one.
    """
    pairs: dict[str, str] = {}
    items = list(argv)
    i = 0
    while i < len(items):
        item = items[i]
        if not item.startswith("--") or len(item) == 2:
            raise UsageError("error.config.override_form", item=item)
        body = item[2:]
        if "=" in body:
            key, text = body.split("=", 1)
        elif i + 1 < len(items) and not items[i + 1].startswith("--"):
            key, text = body, items[i + 1]
            i += 1
        else:
            raise UsageError("error.config.override_value", item=item, key=body)
        pairs[key.replace("-", "_")] = text
        i += 1
    return pairs


def apply_overrides(preset: Preset, overrides: dict[str, str] | list[str] | tuple[str, ...]) -> Preset:
    """Apply overrides (a command-line list for `parse_overrides`, or a {key: value} dict) to a
    preset's model and train configs.

    Each key must name a field of ModelConfig or TrainConfig; text values are parsed to the field's
    type, other values must already have it; the configs are re-validated.
    """
    if not isinstance(overrides, dict):
        overrides = parse_overrides(overrides)
    hints = {**typing.get_type_hints(ModelConfig), **typing.get_type_hints(TrainConfig)}
    model_keys = {f.name for f in fields(ModelConfig)}
    train_keys = {f.name for f in fields(TrainConfig)}
    model_changes, train_changes = {}, {}
    for key, text in overrides.items():
        key = key.replace("-", "_")
        if key not in hints:
            near = difflib.get_close_matches(key, list(hints), n=1)
            hint = t("error.config.did_you_mean_flag", near=near[0]) if near else ""
            raise UsageError("error.config.unknown_key", key=key, hint=hint)
        value = _parse(text, hints[key], key) if isinstance(text, str) else _check_type(text, hints[key], key)
        (model_changes if key in model_keys else train_changes)[key] = value
    assert not (model_keys & train_keys), "ModelConfig and TrainConfig must not share field names"
    return Preset(replace(preset.model, **model_changes), replace(preset.train, **train_changes), preset.about)


def to_dict(cfg) -> dict:
    """A JSON-ready dict of a config (or preset)."""
    return dataclasses.asdict(cfg)
