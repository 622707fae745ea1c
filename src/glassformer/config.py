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

A few fields belong to some kinds only (KIND_FIELDS: a vocabulary for the token kinds, numbers per
step for the regressor, ...). A kind that does not read such a field holds its "none" value there
(0 for a size, False for a switch, None for pad_id: `vocab_size=0` is "not a token model"), and a
value set for it is refused, naming the kinds that read it. Two lengths, two names: `max_len` is the
model's (positions it can address), `seq_len` the run's (tokens in one training sequence, T).
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import typing
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from glassformer.errors import UsageError
from glassformer.messages import N_, in_language, t


def _choice(name: str, value: str, valid: tuple[str, ...]) -> None:
    """Refuse a value that is not a valid choice, naming the nearest one."""
    if value not in valid:
        near = difflib.get_close_matches(str(value), valid, n=1)
        hint = t(" Did you mean {near!r}?", near=near[0]) if near else ""
        raise UsageError(
            "config.choice",
            "{name}={value!r} is not one of {valid}.{hint}",
            name=name,
            value=value,
            valid=list(valid),
            hint=hint,
        )


def check_moe(n_experts: int, rule: str, top_k: int, n_group: int = 1, topk_group: int = 1) -> None:
    """Every impossible routing refused with the numbers and the fix (nn/moe.py's Router, ModelConfig)."""
    if rule not in MOE_RULES:
        raise UsageError(
            "moe.rule",
            "routing rule {rule!r} is not one of {names}: softmax (Mixtral, Qwen3-MoE) or sigmoid (DeepSeek-V3).",
            rule=rule,
            names=list(MOE_RULES),
        )
    if n_experts < 1:
        raise UsageError(
            "moe.experts",
            "a mixture of experts needs at least one routed expert; got n_experts={n_experts}.",
            n_experts=n_experts,
        )
    if not 1 <= top_k <= n_experts:
        raise UsageError(
            "moe.top_k",
            "top_k={top_k} experts per token, but there are {n_experts} experts: choose top_k from 1 to {n_experts}.",
            top_k=top_k,
            n_experts=n_experts,
        )
    if n_group < 1 or n_experts % n_group:
        divisors = [d for d in range(1, n_experts + 1) if n_experts % d == 0]
        raise UsageError(
            "moe.groups",
            "n_experts={n_experts} does not split into n_group={n_group} "
            "equal groups: choose n_group among {divisors}.",
            n_experts=n_experts,
            n_group=n_group,
            divisors=divisors,
        )
    if not 1 <= topk_group <= n_group:
        raise UsageError(
            "moe.topk_group",
            "topk_group={topk_group} groups kept, but there are "
            "{n_group} groups: choose topk_group from 1 to {n_group}.",
            topk_group=topk_group,
            n_group=n_group,
        )
    reachable = topk_group * (n_experts // n_group)
    if top_k > reachable:
        raise UsageError(
            "moe.too_few_in_groups",
            "top_k={top_k} experts per token, but the {topk_group} kept "
            "groups hold only {reachable} experts: raise topk_group or "
            "lower top_k.",
            top_k=top_k,
            topk_group=topk_group,
            reachable=reachable,
        )


def check_mla_sizes(
    d_model: int, n_heads: int, kv_rank: int, d_nope: int, d_rope: int, d_v: int, q_rank: int | None = None
) -> None:
    """Sizes that are not positive whole numbers, latents wider than the model, an odd rotary width:
    refused (nn/mla.py's LatentAttention, ModelConfig)."""
    sizes = {"d_model": d_model, "n_heads": n_heads, "kv_rank": kv_rank, "d_nope": d_nope}
    sizes |= {"d_rope": d_rope, "d_v": d_v} | ({"q_rank": q_rank} if q_rank is not None else {})
    for name, value in sizes.items():
        if not isinstance(value, int) or value < 1:
            raise UsageError("mla.size", "{name}={value} must be a positive whole number.", name=name, value=value)
    for name, rank in (("kv_rank", kv_rank), ("q_rank", q_rank)):
        if rank is not None and rank > d_model:
            raise UsageError(
                "mla.rank",
                "{name}={rank} is wider than the model (d_model={d_model}): "
                "a latent compresses, so its rank must be from 1 to "
                "{d_model}.",
                name=name,
                rank=rank,
                d_model=d_model,
            )
    if d_rope % 2:
        raise UsageError(
            "rotary.odd_head",
            "position='rotary' turns pairs of features, so d_head must "
            "be even; got d_head={d_head}. Choose d_model and n_heads so "
            "that d_model // n_heads is even.",
            d_head=d_rope,
        )


def _nearest_divisor(n: int, h: int, reach: int = 4096) -> int:
    """The divisor of n nearest to h (the smaller on a tie), looked for within `reach` of h, so a
    d_model of 10**20 is answered at once; 1 divides everything."""
    if h >= n:
        return n
    for k in range(min(h, reach)):
        for c in (h - k, h + k):
            if c >= 1 and n % c == 0:
                return c
    return 1


def _positive(**values: float) -> None:
    for name, value in values.items():
        if value <= 0:
            raise UsageError("config.positive", "{name} must be positive, got {name}={value}.", name=name, value=value)


ACTIVATIONS = ("relu", "gelu", "gelu_tanh")
NORMS = ("pre", "post", "none")
INITS = ("torch", "xavier", "gpt2")
ATTENTIONS = ("glass", "fused")  # the attention computation: written out, or PyTorch's fused kernel
MHA_STYLES = ("packed", "heads")  # how Q, K, V are projected: one packed Linear, or one module a head
NORM_TYPES = ("layer", "rms")  # LayerNorm (GPT-2) | RMSNorm (Llama, Qwen3, Mistral): nn/rmsnorm.py
# W₂·act(W₁x) (GPT-2) | the gated FFNs of nn/glu.py | experts (nn/moe.py) | none: attention only (d_ff unread)
FFNS = ("mlp", "swiglu", "geglu", "moe", "none")
FFN_NONE_KINDS = ("gpt", "encoder", "regressor")  # the kinds whose Block (models/gpt.py) can leave its FFN out
MOE_RULES = ("softmax", "sigmoid")  # nn/moe.py's routing rules: Mixtral, Qwen3-MoE | DeepSeek-V3
# the fields only ffn="moe" reads, with their "not set" values
MOE_FIELDS = {
    "n_experts": 0,
    "moe_top_k": 0,
    "moe_shared": 0,
    "moe_d_ff": 0,
    "moe_rule": "softmax",
    "moe_normalize": True,
    "moe_aux_loss": 0.0,
    "moe_z_loss": 0.0,
    "moe_groups": 1,
    "moe_topk_groups": 1,
    "moe_scale": 1.0,
    "moe_bias_rate": 0.001,
    "moe_first_dense": 0,
}
# the fields only multi-head latent attention reads (mla_kv_rank > 0), with their "not set" values
MLA_FIELDS = {"mla_kv_rank": 0, "mla_q_rank": 0, "mla_d_nope": 0, "mla_d_rope": 0, "mla_d_v": 0}
# what MLA computes its own way: these fields at these values (its keys come from the latent, its RoPE its own)
MLA_EXCLUDES = {"n_kv_heads": 0, "head_dim": 0, "qk_norm": False, "sliding_window": 0, "rope_scaling": "none"}
# RoPE's scalings (nn/rope_scaling.py's SCALINGS, named here so that this module needs no torch;
# tests/config/test_modern_config.py keeps the two equal)
ROPE_SCALINGS = ("none", "linear", "dynamic", "yarn", "llama3")
ROPE_LONG = ("dynamic", "yarn", "llama3")  # the scalings that read rope_original_max_len
# the fields only position="rope" reads, with their "not set" values
ROPE_FIELDS = {"rope_base": 10000.0, "rope_scaling": "none", "rope_factor": 1.0, "rope_original_max_len": 0}
MAX_SEED = 2**63 - 1  # the largest seed every torch generator takes (as --seed's range: cli/options.py)
MAX_THREADS = 256  # more than any machine this runs on has cores; torch crashes on absurd counts

# Numbers and names that `--help` states but whose home module imports torch: they are kept here,
# in a module without torch, so that `glassformer --help` and `glassformer VERB --help` never load it
# (cli/__init__.py; bench/cli_startup.py measures it). Their home modules import them from here.
DEFAULT_THREADS = 1  # devices.py: one thread per verb unless --threads says otherwise (why: devices.py)
BF16_MIN_WORK = 2**23  # devices.py: B·T·C², the least work per step at which bf16 autocast pays on a CPU
RUNS_DIR = Path("runs")  # train/run.py: where a new run's folder goes
EVAL_SAMPLE_CHARS = 200  # train/run.py: default length of the sample printed at each evaluation (0: none)
RUN_EXAMPLE = "runs/baby-20250101-120000"  # `sample --help`: what a run directory's name looks like
TINY_PRESET, TINY_FAST_STEPS = "seed000", 100  # lessons/tiny.py: the first tutorial's model and loop; --fast steps
HELLO_EPOCHS, HELLO_FAST_EPOCHS = 200, 40  # lessons/hello_world.py: the tutorial's 200 epochs; --fast: at most 40
SINE_EPOCHS = {"forecast": 30, "tutorial": 10}  # lessons/sine.py: task -> default epochs
SINE_FAST = {"n_train": 1000, "n_val": 200, "forecast": 6, "tutorial": 3}  # lessons/sine.py: --fast sizes (the tests)
SINE_N_TRAIN, SINE_N_VAL = 5000, 1000  # train/data.py: the sine tutorial's data sizes
SEQ2SEQ_FAST_STEPS = 300  # lessons/seq2seq.py: --fast steps (a smaller model, trained less)
# lessons/ladder.py: steps per rung (8 rungs of baby's size: minutes on a 2-core CPU), and --fast's run
LADDER_STEPS = 500
LADDER_FAST = {"steps": 20, "batch_size": 4, "seq_len": 32}
# lessons/post_training.py: each stage's steps, the pretraining text's sums, the held-out questions, the batch
POST_LESSON = {
    "pretrain": 1200,
    "sums": 4000,
    "sft": 150,
    "lora": 300,
    "dpo": 100,
    "grpo": 100,
    "held_out": 200,
    "batch": 32,
}
POST_LESSON_FAST = {"pretrain": 60, "sums": 400, "sft": 10, "lora": 10, "dpo": 5, "grpo": 3, "held_out": 16, "batch": 8}

# The fields only some kinds read, by kind; every other ModelConfig field is every kind's. A kind
# registered elsewhere adds its own entry (KIND_FIELDS["mine"] = ("vocab_size",)); a kind without one
# is taken to read them all, and its class checks them.
KIND_FIELDS: dict[str, tuple[str, ...]] = {
    "gpt": ("vocab_size", "tie_weights"),
    "encoder": ("vocab_size", "tie_weights", "pad_id"),
    "seq2seq": ("vocab_size", "tie_weights", "pad_id", "share_embeddings"),
    "regressor": ("d_in", "d_out"),
}
UNREAD = {"vocab_size": 0, "d_in": 0, "d_out": 0, "tie_weights": False, "share_embeddings": False, "pad_id": None}
# Old spellings: refused in what a user types, translated when a run saved with them is read back.
RENAMED = {"block_size": "seq_len"}  # TrainConfig: the tokens of one training sequence (T)


@dataclass
class ModelConfig:
    """Every size and switch of a model. Field names follow docs/architecture.md's vocabulary."""

    kind: str = "gpt"  # which assembly build_model makes: gpt | encoder | regressor | seq2seq (models/kinds.py)
    vocab_size: int = 65  # token kinds: tokens (the tokenizer decides); 0 for a kind without a vocabulary
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
    tie_weights: bool = False  # token kinds: share token embedding and output head (GPT-2 does; seq2seq: the target's)
    share_embeddings: bool = False  # seq2seq only: one (V, C) table for source and target tokens (one vocabulary)
    init: str = "torch"  # torch defaults | xavier (2nd tutorial) | gpt2 (normal 0.02, scaled residuals)
    attention: str = "glass"  # glass: hand-written, weights visible | fused: F.scaled_dot_product_attention
    mha_style: str = "packed"  # packed: one Linear makes Q, K, V | heads: a ModuleList of single heads
    ln_eps: float = 1e-5  # LayerNorm epsilon (PyTorch and GPT-2 both use 1e-5)
    pad_id: int | None = None  # encoder, seq2seq: keys equal to pad_id are masked out (seq2seq needs it)
    d_in: int = 1  # regressor only: numbers per input step; 0 for the other kinds
    d_out: int = 1  # regressor only: numbers per output step; 0 for the other kinds
    # ---- the modern decoder's choices (Llama, Qwen3, Mistral: docs/modern.md); each default is GPT-2's
    norm_type: str = "layer"  # layer: LayerNorm (GPT-2) | rms: RMSNorm, no mean, no shift (Llama); eps: ln_eps
    ffn: str = "mlp"  # mlp: W₂·act(W₁x) | swiglu | geglu: W_down·(act(W_gate x) ⊙ W_up x), act SiLU | GELU
    # | none: no FFN, no second norm: each block is x + attn(LN(x)), an attention-only model (Elhage et al. 2021)
    head_dim: int = 0  # D; 0: d_model // n_heads. Qwen3 sets it apart (H·D need not be C: 16 heads of 128 at C=1024)
    n_kv_heads: int = 0  # H_kv key-value heads (GQA; 1: MQA) shared by H / H_kv query heads; 0: n_heads (MHA)
    qk_norm: bool = False  # RMSNorm over each head's q and k before RoPE (Qwen3)
    rope_base: float = 10000.0  # position="rope": θ_i = base^(-2i/D); Llama 3: 500000, Qwen3: 1000000
    rope_scaling: str = "none"  # position="rope": none | linear | dynamic | yarn | llama3 (nn/rope_scaling.py)
    rope_factor: float = 1.0  # position="rope": s, the context to reach in multiples of the original one
    rope_original_max_len: int = 0  # position="rope": L the model was trained on (dynamic, yarn, llama3)
    sliding_window: int = 0  # W: a query sees itself and W - 1 keys before it (Mistral); 0: every earlier key
    # ---- the mixture of experts (ffn="moe", nn/moe.py: Mixtral, Qwen3-MoE); each default is "not set"
    n_experts: int = 0  # E routed experts, each a SwiGLU FFN
    moe_top_k: int = 0  # K experts per token, 1..E
    moe_shared: int = 0  # shared experts every token goes through (DeepSeek), one SwiGLU n·F wide; 0: none
    moe_d_ff: int = 0  # F of one expert; 0: d_ff
    moe_rule: str = "softmax"  # softmax (Mixtral, Qwen3-MoE) | sigmoid (DeepSeek-V3): nn/moe.py's Routing.rule
    moe_normalize: bool = True  # the K weights divided by their sum (Mixtral always; Qwen3-MoE's norm_topk_prob)
    moe_aux_loss: float = 0.0  # α: α·L_aux, the load-balancing loss, added to the training loss (Mixtral: 0.02)
    moe_z_loss: float = 0.0  # β: β·L_z, the router z-loss, added to the training loss (ST-MoE: 0.001)
    moe_groups: int = 1  # groups of experts for the group-limited choice (DeepSeek-V3's n_group); 1: off
    moe_topk_groups: int = 1  # groups kept per token (topk_group)
    moe_scale: float = 1.0  # ρ: the routed weights × ρ (routed_scaling_factor)
    # γ: after each optimizer step the trainer moves a sigmoid-rule router's selection bias by ±γ towards
    # the mean load (nn/moe.py's balance_step; DeepSeek-V3 §4.2 uses 0.001); 0: the bias stays; softmax: no bias
    moe_bias_rate: float = 0.001
    # the first k blocks keep a dense SwiGLU FFN d_ff wide, the rest the experts (DeepSeek's first_k_dense_replace)
    moe_first_dense: int = 0
    # ---- multi-head latent attention (nn/mla.py: DeepSeek-V2/V3); mla_kv_rank 0: the plain attention
    mla_kv_rank: int = 0  # R_kv: the latent the cache keeps of keys and values; > 0 chooses MLA
    mla_q_rank: int = 0  # R_q: the query latent; 0: queries straight from x
    mla_d_nope: int = 0  # D_n: query/key features per head without position
    mla_d_rope: int = 0  # D_r: rotary features per head, the key's shared by all heads
    mla_d_v: int = 0  # D_v: value features per head

    def __post_init__(self) -> None:
        own = _own_fields(self)
        _positive(
            **{name: getattr(self, name) for name in ("vocab_size", "d_in", "d_out") if name in own},
            d_model=self.d_model,
            n_heads=self.n_heads,
            d_ff=self.d_ff,
            n_layers=self.n_layers,
            max_len=self.max_len,
            ln_eps=self.ln_eps,
        )
        for name in ("head_dim", "n_kv_heads", "sliding_window", "rope_original_max_len"):
            if getattr(self, name) < 0:
                raise UsageError(
                    "config.non_negative",
                    "{name} must be >= 0, got {name}={value}.",
                    name=name,
                    value=getattr(self, name),
                )
        if self.head_dim == 0 and self.d_model % self.n_heads != 0:
            nearest = _nearest_divisor(self.d_model, self.n_heads)
            raise UsageError(
                "config.heads",
                "d_model={d_model} is not divisible by n_heads={n_heads}: "
                "each head gets d_model // n_heads features. Use "
                "n_heads={nearest} (nearest divisor) or change d_model to a "
                "multiple of {n_heads}.",
                d_model=self.d_model,
                n_heads=self.n_heads,
                nearest=nearest,
            )
        if not 0.0 <= self.dropout < 1.0:
            raise UsageError("config.dropout", "dropout must be in [0, 1), got dropout={value}.", value=self.dropout)
        _choice("activation", self.activation, ACTIVATIONS)
        _choice("norm", self.norm, NORMS)
        _choice("init", self.init, INITS)
        _choice("attention", self.attention, ATTENTIONS)
        if self.mha_style == "fused":
            raise UsageError(
                "config.mha_fused",
                "mha_style='fused' was renamed: use mha_style='packed' (one "
                "Linear makes Q, K and V for every head). 'fused' now only "
                "names PyTorch's attention kernel (attention='fused').",
            )
        _choice("mha_style", self.mha_style, MHA_STYLES)
        _choice("norm_type", self.norm_type, NORM_TYPES)
        _choice("ffn", self.ffn, FFNS)
        if self.ffn == "none" and self.kind not in FFN_NONE_KINDS:
            raise UsageError(
                "config.ffn_none_kind",
                "ffn='none' (attention only) is built by the {kinds} kinds; kind {kind!r} keeps its feed-forward "
                "network: choose ffn 'mlp', 'swiglu' or 'geglu'.",
                kinds=list(FFN_NONE_KINDS),
                kind=self.kind,
            )
        self._check_modern()
        self._check_moe()
        self._check_mla()
        if self.pad_id is not None and "vocab_size" in own and not 0 <= self.pad_id < self.vocab_size:
            raise UsageError(
                "config.pad_id",
                "pad_id={pad_id} is outside the vocabulary [0, {vocab_size}).",
                pad_id=self.pad_id,
                vocab_size=self.vocab_size,
            )

    def _check_modern(self) -> None:
        """The modern decoder's fields: head counts that divide, a RoPE scaling that can be computed,
        fields set only where something reads them."""
        if self.n_kv_heads and self.n_heads % self.n_kv_heads:
            divisors = [d for d in range(1, self.n_heads + 1) if self.n_heads % d == 0]
            raise UsageError(
                "gqa.heads",
                "n_heads={n_heads} is not a multiple of "
                "n_kv_heads={n_kv_heads}: every key-value head serves the "
                "same number of query heads. Choose n_kv_heads among "
                "{divisors}.",
                n_heads=self.n_heads,
                n_kv_heads=self.n_kv_heads,
                divisors=divisors,
            )
        if self.mha_style == "heads" and (self.kv_heads != self.n_heads or self.n_heads * self.d_head != self.d_model):
            raise UsageError(
                "config.heads_style",
                "mha_style='heads' builds one q, k, v module of width "
                "d_model // n_heads per head; it has no shared key-value "
                "heads (n_kv_heads={n_kv_heads}) and no head width of its "
                "own (d_head={d_head}). Use mha_style='packed'.",
                n_kv_heads=self.kv_heads,
                d_head=self.d_head,
            )
        if self.sliding_window and not self.causal:
            raise UsageError(
                "config.window_causal",
                "sliding_window={sliding_window} limits how far back a query "
                "looks, which only a causal model has: set causal=True or "
                "sliding_window=0.",
                sliding_window=self.sliding_window,
            )
        if self.position != "rope":
            for name, unset in ROPE_FIELDS.items():
                if getattr(self, name) != unset:
                    raise UsageError(
                        "config.rope_only",
                        "{field}={value!r} is read by position='rope' only, and this "
                        "model's position is {position!r}: set position='rope' or "
                        "leave {field} out.",
                        field=name,
                        value=getattr(self, name),
                        position=self.position,
                    )
            return
        _positive(rope_base=self.rope_base)
        _choice("rope_scaling", self.rope_scaling, ROPE_SCALINGS)
        if self.rope_scaling != "none" and self.rope_factor < 1:
            raise UsageError(
                "rope.factor",
                "RoPE scaling {kind!r} needs factor >= 1 (how many times the original context to reach); got {factor}.",
                kind=self.rope_scaling,
                factor=self.rope_factor,
            )
        if self.rope_scaling in ROPE_LONG and self.rope_original_max_len <= 0:
            raise UsageError(
                "rope.original_len",
                "RoPE scaling {kind!r} needs original_max_len, the context "
                "length the model was trained on, as a positive whole "
                "number; got {got}.",
                kind=self.rope_scaling,
                got=self.rope_original_max_len,
            )

    def _check_moe(self) -> None:
        """The experts' fields: set only with ffn="moe", and then a routing that can be computed."""
        if self.ffn != "moe":
            for name, unset in MOE_FIELDS.items():
                if getattr(self, name) != unset:
                    raise UsageError(
                        "config.moe_only",
                        "{field}={value!r} is read by ffn='moe' only, and this "
                        "model's ffn is {ffn!r}: set ffn='moe' or leave {field} out.",
                        field=name,
                        value=getattr(self, name),
                        ffn=self.ffn,
                    )
            return
        for name in ("moe_shared", "moe_d_ff", "moe_aux_loss", "moe_z_loss", "moe_bias_rate"):
            if not getattr(self, name) >= 0:  # (a NaN is refused too)
                raise UsageError(
                    "config.non_negative",
                    "{name} must be >= 0, got {name}={value}.",
                    name=name,
                    value=getattr(self, name),
                )
        _positive(moe_scale=self.moe_scale)
        if not 0 <= self.moe_first_dense <= self.n_layers:
            raise UsageError(
                "config.moe_first_dense",
                "moe_first_dense={k} dense blocks, but the model has {n_layers} blocks: choose 0 to {n_layers}.",
                k=self.moe_first_dense,
                n_layers=self.n_layers,
            )
        check_moe(self.n_experts, self.moe_rule, self.moe_top_k, self.moe_groups, self.moe_topk_groups)

    def _check_mla(self) -> None:
        """The latent attention's fields: set only with mla_kv_rank > 0, and then sizes that fit."""
        if not self.mla_kv_rank:
            for name, unset in MLA_FIELDS.items():
                if getattr(self, name) != unset:
                    raise UsageError(
                        "config.mla_only",
                        "{field}={value!r} is read by multi-head latent attention "
                        "only, which mla_kv_rank > 0 chooses: set mla_kv_rank or "
                        "leave {field} out.",
                        field=name,
                        value=getattr(self, name),
                    )
            return
        if self.position != "rope":
            raise UsageError(
                "config.mla_rope",
                "multi-head latent attention rotates its own rotary part "
                "(RoPE), so it needs position='rope'; this model's position "
                "is {position!r}.",
                position=self.position,
            )
        for name, value in MLA_EXCLUDES.items():
            if getattr(self, name) != value:
                raise UsageError(
                    "config.mla_excludes",
                    "multi-head latent attention makes its keys from the latent "
                    "and has no {field}: set {field}={want!r} (it is {value!r}), "
                    "or mla_kv_rank=0.",
                    field=name,
                    value=getattr(self, name),
                    want=value,
                )
        check_mla_sizes(
            self.d_model,
            self.n_heads,
            self.mla_kv_rank,
            self.mla_d_nope,
            self.mla_d_rope,
            self.mla_d_v,
            self.mla_q_rank or None,
        )

    @property
    def expert_d_ff(self) -> int:
        """F of one routed expert: moe_d_ff when set, else d_ff."""
        return self.moe_d_ff or self.d_ff

    @property
    def d_head(self) -> int:
        """D, the width of one head: head_dim when set, else d_model // n_heads."""
        return self.head_dim or self.d_model // self.n_heads

    @property
    def kv_heads(self) -> int:
        """H_kv, the key-value heads: n_kv_heads when set, else n_heads (multi-head attention)."""
        return self.n_kv_heads or self.n_heads


DEFAULTS = {f.name: f.default for f in fields(ModelConfig) if f.name in UNREAD}


def reads(kind: str) -> tuple[str, ...]:
    """The kind-specific fields (UNREAD's) that `kind` reads: its KIND_FIELDS entry, or all of them."""
    return KIND_FIELDS.get(kind, tuple(UNREAD))


def _own_fields(cfg: ModelConfig) -> tuple[str, ...]:
    """Set every kind-specific field that cfg's kind does not read to its "none" value, refusing one
    set to anything else (left at its default it is no choice of the user's); return those it reads.
    A kind without a KIND_FIELDS entry is left to its class: nothing is changed, nothing checked."""
    if cfg.kind not in KIND_FIELDS:
        return ()
    own = reads(cfg.kind)
    for name, none in UNREAD.items():
        value = getattr(cfg, name)
        if name in own:
            continue
        if value not in (none, DEFAULTS[name]):
            users = [kind for kind, names in KIND_FIELDS.items() if name in names]
            raise UsageError(
                "config.not_read",
                "{field}={value!r} means nothing to a {kind} model: only "
                "{kinds} read {field}. Leave it out for kind={kind!r}.",
                field=name,
                value=value,
                kind=cfg.kind,
                kinds=users,
            )
        setattr(cfg, name, none)
    return own


def with_kind(cfg: ModelConfig, kind: str, **changes) -> ModelConfig:
    """cfg as a model of another kind (and `changes`): a field only the old kind read is dropped, one
    only the new kind reads starts at its default. A field named in `changes` is the caller's choice."""
    now, then = reads(kind), reads(cfg.kind)
    for name in UNREAD:
        if name not in changes and (name in now) != (name in then):
            changes[name] = DEFAULTS[name] if name in now else UNREAD[name]
    return replace(cfg, kind=kind, **changes)


def saved_fields(section: str, values: dict) -> dict:
    """A `model` or `train` section of a run's config.json as this version spells it: a field added
    later is left out (it keeps its default), a renamed field takes its new name, a field its kind
    never read is dropped (earlier versions kept every field; the sine preset saved vocab_size=1)."""
    config = ModelConfig if section == "model" else TrainConfig
    known = {f.name for f in fields(config)}
    values = {RENAMED.get(k, k): v for k, v in values.items() if RENAMED.get(k, k) in known}
    if section == "model":
        kind = values.get("kind", "gpt")  # runs saved before `kind` were all GPTs
        if isinstance(kind, str):  # (a kind that is no name is refused by the check that follows)
            values = {k: v for k, v in values.items() if k not in UNREAD or k in reads(kind)}
        if values.get("mha_style") == "fused":  # renamed: the packed Q/K/V projection
            values["mha_style"] = "packed"
    return values


@dataclass
class TrainConfig:
    """Everything about a training run that is not the model."""

    batch_size: int = 16  # sequences per step (B)
    seq_len: int = 16  # tokens per training sequence (T); must be <= the model's max_len
    max_steps: int = 500  # optimizer steps
    lr: float = 1e-3  # peak learning rate
    min_lr: float = 1e-4  # floor of the cosine decay
    lr_schedule: str = "constant"  # constant | cosine (linear warmup, cosine decay to min_lr)
    warmup_steps: int = 0  # linear warmup from 0 to lr
    decay_steps: int = 0  # cosine: the step its decay ends at, then min_lr (0: max_steps; a resume keeps it)
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
    dtype: str = "float32"  # float32 | bfloat16 (autocast) | auto (a new CLI run's default): devices.auto_dtype
    log_interval: int = 10  # steps between progress/metrics updates: the loop's only host syncs
    threads: int = 1  # CPU threads for the run; 0 = torch's choice (every core). See devices.py

    def __post_init__(self) -> None:
        _positive(
            batch_size=self.batch_size,
            seq_len=self.seq_len,
            max_steps=self.max_steps,
            lr=self.lr,
            grad_accum=self.grad_accum,
            eval_interval=self.eval_interval,
            eval_iters=self.eval_iters,
            log_interval=self.log_interval,
        )
        if not 0 <= self.threads <= MAX_THREADS:
            raise UsageError(
                "config.threads",
                "threads must be from 0 (torch's choice) to {most}, got threads={value}.",
                most=MAX_THREADS,
                value=self.threads,
            )
        _choice("lr_schedule", self.lr_schedule, ("constant", "cosine"))
        _choice("dtype", self.dtype, ("float32", "bfloat16", "auto"))
        for name in ("warmup_steps", "decay_steps", "grad_clip", "min_lr", "weight_decay"):
            if getattr(self, name) < 0:
                raise UsageError(
                    "config.non_negative",
                    "{name} must be >= 0, got {name}={value}.",
                    name=name,
                    value=getattr(self, name),
                )
        if self.lr_schedule == "cosine" and self.min_lr > self.lr:  # it would climb from lr up to min_lr
            raise UsageError(
                "config.min_lr",
                "min_lr={min_lr} is above lr={lr}: the schedule decays from "
                "lr down to min_lr. Use a min_lr of at most {lr}.",
                min_lr=self.min_lr,
                lr=self.lr,
            )
        for name in ("beta1", "beta2"):  # AdamW divides by 1 - beta**step: beta = 1 divides by zero
            if not 0 <= getattr(self, name) < 1:
                raise UsageError(
                    "config.beta",
                    "{name} must be in [0, 1), got {name}={value} (AdamW's "
                    "moments average over about 1/(1 - {name}) steps; 0.9 and "
                    "0.999 are the usual values).",
                    name=name,
                    value=getattr(self, name),
                )
        if not 0 <= self.seed <= MAX_SEED:
            raise UsageError(
                "config.seed",
                "seed must be a whole number from 0 to {most}, got seed={value}.",
                value=self.seed,
                most=MAX_SEED,
            )


MIN_EVALS = 8  # a run evaluates at least this often (besides step 0) unless --eval_interval is given


def eval_interval_for(max_steps: int, interval: int) -> int:
    """A preset's eval_interval, shortened for a short run so its loss curve has at least MIN_EVALS
    points: min(interval, max_steps // MIN_EVALS), at least 1. (baby's 2000 steps keep 250; a
    300-step run evaluates every 37 steps instead of once at the end.) An eval_interval the user gives
    is used as it is."""
    return max(1, min(interval, max_steps // MIN_EVALS))


@dataclass
class Preset:
    """A named starting point: a model and the run that trains it. `about` is its one line in English
    (config.json records it): for a preset of PRESETS, its PRESET_WORDS sentence, with its numbers."""

    model: ModelConfig
    train: TrainConfig = field(default_factory=TrainConfig)
    about: str = ""


@dataclass
class EvalConfig:
    """What an evaluation card (`glassformer eval`, eval_card.py) measures with. Here, not in
    eval_card.py, so `glassformer eval --help` states the defaults without importing torch."""

    samples: int = 8  # texts drawn: enough for distinct-n over several, few enough for seconds on a CPU
    max_new_tokens: int = 200  # per text: room for a loop (MIN_REPEATS copies of a line or two)
    temperature: float = 1.0  # the model's own distribution (the CLI uses `glassformer sample`'s default)
    top_k: int | None = None  # None: off, as in `glassformer sample`
    top_p: float | None = None
    seed: int = 0  # the samples' torch.Generator seed: the same card every time
    prompt: str | None = None  # None: a newline if the tokenizer writes one, else the run's first word
    max_chars: int = 20_000  # held-out characters scored for bits per byte: seconds for `baby` on a CPU
    # Guo et al. 2017 measure the expected calibration error with 15 equal-width bins: enough to see a
    # curve, few enough that a bin of a small evaluation still holds many tokens.
    bins: int = 15
    rtol: float | None = None  # one relative tolerance for every quantity; None: evaluation.RTOL's own
    best: bool = False  # best.safetensors instead of the latest weights
    cache_dir: str | None = None  # where prepared corpora live (train's --cache-dir); None: the default
    text: str | None = None  # a held-out text file instead of the run's validation split
    questions: str | None = None  # a JSONL file of multiple-choice questions


def to_dict(cfg) -> dict:
    """A JSON-ready dict of a config (or preset)."""
    return dataclasses.asdict(cfg)


# nanoGPT's shakespeare_char CPU run: baby's, and the modern presets' made the same size to compare with it
TRAIN_BABY = TrainConfig(
    batch_size=12,
    seq_len=64,
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
)

# baby's model (nanoGPT's shakespeare_char: no biases, GELU, GPT-2 init, the head tied to the embedding)
BABY = ModelConfig(
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
)
# baby's size, the Llama 3 way (baby-llama's model; baby-qwen3 changes a few of its fields)
BABY_LLAMA = ModelConfig(
    d_model=128,
    n_heads=4,
    n_kv_heads=2,
    d_ff=352,
    n_layers=4,
    max_len=64,
    dropout=0.0,
    bias=False,
    norm_type="rms",
    ffn="swiglu",
    position="rope",
    rope_base=500000.0,
    init="gpt2",
)


def matched_expert_width(d_ff: int, n_experts: int, top_k: int) -> int:
    """F_e of a SwiGLU expert such that a token's active parameters in a mixture of n_experts (E), top_k
    (K) routed, equal a dense SwiGLU FFN's of width d_ff (F): the K experts it passes through and the
    router it always reads, K·3·C·F_e + E·C, against 3·C·F; C cancels, F_e = (3F - E) / 3K, rounded.
    The rounding leaves at most K·3·C / 2 parameters a layer apart (nn/moe.py's active_parameters)."""
    return round((3 * d_ff - n_experts) / (3 * top_k))


# baby-moe's experts: 8 SwiGLU experts, 2 per token (Mixtral's routing), each as narrow as keeps a
# token's active parameters at baby-llama's
MOE_EXPERTS, MOE_TOP_K = 8, 2
BABY_MOE = replace(
    BABY_LLAMA,
    ffn="moe",
    n_experts=MOE_EXPERTS,
    moe_top_k=MOE_TOP_K,
    d_ff=matched_expert_width(BABY_LLAMA.d_ff, MOE_EXPERTS, MOE_TOP_K),
    moe_aux_loss=0.01,  # α: the weight commonly given to Switch Transformer's balance loss
    moe_z_loss=0.001,  # β: ST-MoE's (Zoph et al. 2022)
)
# baby-llama with DeepSeek-V2-Lite's attention: no query latent, a key-value latent of R_kv = 32 and a
# rotary key of 16 shared by the heads (48 numbers a token and layer in the cache, against GQA's 2·2·32);
# the FFN narrowed from 352 to 336, so the whole model has baby-llama's parameters to within half a
# unit of d_ff in every layer (tests/config/test_moe_mla_presets.py)
BABY_MLA = replace(
    BABY_LLAMA,
    n_kv_heads=0,
    d_ff=336,
    mla_kv_rank=32,
    mla_d_nope=32,
    mla_d_rope=16,
    mla_d_v=32,
)

PRESETS: dict[str, Preset] = {
    # The first tutorial's own TinyTransformer and loop (char-level, pre-LN, learned positions).
    "seed000": Preset(
        ModelConfig(d_model=64, n_heads=4, d_ff=128, n_layers=2, max_len=128, dropout=0.1),
        TrainConfig(batch_size=16, seq_len=16, max_steps=500, lr=1e-3, eval_interval=100),
    ),
    # nanoGPT's shakespeare_char CPU recipe (nanoGPT ties the head to the token embedding).
    "baby": Preset(BABY, TRAIN_BABY),
    # baby's size and run, the Llama 3 way: RMSNorm, SwiGLU (d_ff ≈ ⅔ of baby's 4C, so the three FFN
    # matrices hold about baby's two), RoPE with θ = 500000, 4 query heads sharing 2 key-value heads,
    # no biases, an untied head.
    "baby-llama": Preset(BABY_LLAMA, TRAIN_BABY),
    # baby's size and run, the Qwen3 way: the Llama choices plus QK-norm, θ = 1000000, heads wider than
    # C / H (H·D = 2C, as Qwen3-0.6B's 16 heads of 128 at C = 1024) and a tied head.
    "baby-qwen3": Preset(
        replace(BABY_LLAMA, head_dim=64, qk_norm=True, rope_base=1000000.0, tie_weights=True),
        TRAIN_BABY,
    ),
    # baby-llama with a mixture of experts instead of its FFN, at its active parameters per token
    "baby-moe": Preset(BABY_MOE, TRAIN_BABY),
    # baby-llama with multi-head latent attention (DeepSeek-V2) instead of grouped-query attention
    "baby-mla": Preset(BABY_MLA, TRAIN_BABY),
    # nanoGPT's shakespeare_char GPU recipe.
    "small": Preset(
        replace(BABY, d_model=384, n_heads=6, d_ff=1536, n_layers=6, max_len=256, dropout=0.2),
        replace(TRAIN_BABY, batch_size=64, seq_len=256, max_steps=5000, eval_iters=200),  # baby's run, larger
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
        TrainConfig(batch_size=16, seq_len=4, max_steps=1400, lr=1e-3, weight_decay=0.0),
    ),
    # The third tutorial's sine regressor: post-LN encoder, GELU, sinusoidal positions.
    "sine": Preset(
        ModelConfig(
            kind="regressor",
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
        TrainConfig(batch_size=32, seq_len=50, max_steps=1000, lr=1e-3, grad_clip=1.0),
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
            seq_len=16,
            max_steps=1500,
            lr=1e-3,
            min_lr=1e-4,
            lr_schedule="cosine",
            warmup_steps=100,
            weight_decay=0.0,
            eval_interval=250,
            eval_iters=8,
        ),
    ),
}


# each preset's one line, its {numbers} read from the preset
PRESET_WORDS = {
    "seed000": N_("first tutorial: {n_layers} layers, {n_heads} heads, d_model {d_model}, d_ff {d_ff}"),
    "baby": N_("nanoGPT's CPU recipe: {n_layers} layers, {n_heads} heads, d_model {d_model}, seq_len {seq_len}"),
    "baby-llama": N_(
        "baby the Llama 3 way: {n_layers} layers, RMSNorm, SwiGLU, "
        "RoPE θ={rope_base:.0f}, {n_heads} query heads sharing "
        "{n_kv_heads} key-value heads, d_model {d_model}, seq_len "
        "{seq_len}"
    ),
    "baby-qwen3": N_(
        "baby the Qwen3 way: {n_layers} layers, RMSNorm, SwiGLU, "
        "RoPE θ={rope_base:.0f}, QK-norm, {n_heads} query heads of "
        "{head_dim} sharing {n_kv_heads} key-value heads, d_model "
        "{d_model}, seq_len {seq_len}"
    ),
    "baby-moe": N_(
        "baby-llama with experts: {n_experts} SwiGLU experts of width "
        "{d_ff}, {moe_top_k} per token, as many active parameters per "
        "token as baby-llama; {n_layers} layers, d_model {d_model}, "
        "seq_len {seq_len}"
    ),
    "baby-mla": N_(
        "baby-llama with latent attention (DeepSeek-V2): keys and values "
        "from a latent of {mla_kv_rank} and a shared rotary key of "
        "{mla_d_rope}; {n_layers} layers, {n_heads} heads, d_model "
        "{d_model}, d_ff {d_ff}, seq_len {seq_len}"
    ),
    "small": N_("nanoGPT's GPU recipe: {n_layers} layers, {n_heads} heads, d_model {d_model}, seq_len {seq_len}"),
    "seed002": N_("second tutorial: {n_layers} layer, {n_heads} heads, d_model {d_model}, d_ff {d_ff}, no LayerNorm"),
    "sine": N_("third tutorial: {n_layers} post-LN layers, {n_heads} heads, d_model {d_model}, GELU, sinusoidal PE"),
    "seq2seq": N_(
        "the 2017 encoder-decoder, small: {n_layers}+{n_layers} post-LN layers, d_model {d_model}, one shared embedding"
    ),
}


def preset_about(name: str, lang: str | None = None) -> str:
    """A preset's one-line description in `lang` (default: the user's language), its numbers read
    from the preset; a preset registered elsewhere, with no words in PRESET_WORDS, has its own `about`."""
    p = PRESETS[name]
    if name not in PRESET_WORDS:
        return p.about
    with in_language(lang):
        return t(PRESET_WORDS[name], **to_dict(p.model), **to_dict(p.train))


for _name in PRESETS:  # the words live in the catalogue only; config.json's English line is made from them
    PRESETS[_name].about = preset_about(_name, "en")


def get_preset(name: str) -> Preset:
    """A fresh copy of a named preset (callers may change it freely)."""
    if name not in PRESETS:
        near = difflib.get_close_matches(name, PRESETS, n=1)
        hint = t(" Did you mean {near!r}?", near=near[0]) if near else ""
        raise UsageError(
            "config.preset",
            "unknown preset {name!r}; choose one of {names}.{hint}",
            name=name,
            names=sorted(PRESETS),
            hint=hint,
        )
    p = PRESETS[name]
    return Preset(replace(p.model), replace(p.train), p.about)


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
        raise UsageError(
            "config.type",
            "--{key}={value!r}: expected a value of type {type}.",
            key=key,
            value=text,
            type=kind.__name__,
        ) from None
    return _finite(value, key)


def _finite(value: float, key: str) -> float:
    """nan and inf parse as floats but are no setting (lr=nan would train nothing, silently)."""
    try:
        value = float(value)
    except OverflowError:  # an int too large for a float
        value = math.inf
    if not math.isfinite(value):
        raise UsageError("config.finite", "--{key}={value!r}: expected a finite number.", key=key, value=value)
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
        raise UsageError(
            "config.type",
            "--{key}={value!r}: expected a value of type {type}.",
            key=key,
            value=value,
            type=kind.__name__,
        )
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
            raise UsageError(
                "config.override_form", "override {item!r} must look like --key=value or --key value.", item=item
            )
        body = item[2:]
        if "=" in body:
            key, text = body.split("=", 1)
        elif i + 1 < len(items) and not items[i + 1].startswith("--"):
            key, text = body, items[i + 1]
            i += 1
        else:
            raise UsageError(
                "config.override_value",
                "override {item!r} must look like --key=value or --key "
                "value; it has no value (write --{key}=VALUE or --{key} "
                "VALUE).",
                item=item,
                key=body,
            )
        pairs[key.replace("-", "_")] = text
        i += 1
    return pairs


def apply_overrides(
    preset: Preset, overrides: dict[str, str] | list[str] | tuple[str, ...], typed: bool = False
) -> Preset:
    """Apply overrides (a command-line list for `parse_overrides`, or a {key: value} dict) to a
    preset's model and train configs.

    Each key must name a field of ModelConfig or TrainConfig (an old spelling is refused, naming the
    new); text values are parsed to the field's type, other values must already have it; the configs
    are re-validated. A new `kind` drops the fields only the old kind read (see `with_kind`).
    typed: every value must already have its field's type, text included (a saved config.json,
    where "16" for d_model is a damaged file, not a command line's text).
    """
    if not isinstance(overrides, dict):
        overrides = parse_overrides(overrides)
    hints = {**typing.get_type_hints(ModelConfig), **typing.get_type_hints(TrainConfig)}
    model_keys = {f.name for f in fields(ModelConfig)}
    train_keys = {f.name for f in fields(TrainConfig)}
    model_changes, train_changes = {}, {}
    for key, text in overrides.items():
        key = key.replace("-", "_")
        if key in RENAMED:
            raise UsageError(
                "config.renamed",
                "--{key} is now called --{new}: write --{new}={value}.",
                key=key,
                new=RENAMED[key],
                value=text,
            )
        if key not in hints:
            near = difflib.get_close_matches(key, list(hints), n=1)
            hint = t(" Did you mean --{near}?", near=near[0]) if near else ""
            raise UsageError("config.unknown_key", "unknown config key --{key}.{hint}", key=key, hint=hint)
        parse = isinstance(text, str) and not typed
        value = _parse(text, hints[key], key) if parse else _check_type(text, hints[key], key)
        (model_changes if key in model_keys else train_changes)[key] = value
    assert not (model_keys & train_keys), "ModelConfig and TrainConfig must not share field names"
    model = with_kind(preset.model, model_changes.pop("kind", preset.model.kind), **model_changes)
    return Preset(model, replace(preset.train, **train_changes), preset.about)
