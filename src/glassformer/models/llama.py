"""Llama, Qwen3, Mistral, Mixtral and Qwen3-MoE import and export: the only file where their Hugging Face names
(embed_tokens, q_proj, input_layernorm, rope_parameters ...) appear.

The three are one GPT with the modern decoder's choices (docs/modern.md): RMSNorm, a SwiGLU FFN,
grouped-query attention, half-split RoPE with a base (position "rope") and no biases; Qwen3 adds
QK-norm, Mistral a sliding window. So a family is a configuration and a weight map, no forward of its
own. transformers' Linear layers store weights as nn.Linear does (out, in): nothing is transposed,
but q_proj, k_proj and v_proj are stacked into our one packed projection (`attn.qkv`, rows q | k | v,
the layout MultiHeadAttention.forward cuts (nn/attention.py)), and cut apart again on the way out.

Mixtral and Qwen3-MoE are the same GPT with ffn="moe" (nn/moe.py: softmax routing, SwiGLU experts):
Mixtral's blocks are Mistral's, Qwen3-MoE's Qwen3's; the weight map adds each block's router and, one
tensor per expert and matrix, its experts, under the names of the files on the Hub (`EXPERTS`).
DeepSeek-V3's first `first_k_dense_replace` layers (Qwen3-MoE's `mlp_only_layers` when they are the
first k) keep one dense SwiGLU intermediate_size wide (our moe_first_dense), named as a Llama layer's;
DeepSeek-V3's multi-token prediction layers (past num_hidden_layers) are skipped on reading.

A setting we would compute differently (biases, another activation, per-layer attention types, a
RoPE parameter our config cannot hold) is refused with the field named, never approximated.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import cast

import torch
from safetensors.torch import save_file

from glassformer.config import ModelConfig, Preset, TrainConfig, apply_overrides
from glassformer.errors import DamagedFile, NotFound, UsageError
from glassformer.files import atomic_write, json_text, write_text_atomic
from glassformer.models.gpt import GPT
from glassformer.models.gpt2 import folder_fix, read_hf_config, read_weights, write_generation
from glassformer.models.kinds import check_fits
from glassformer.text.hf_tokenizer import HFJsonTokenizer

FAMILIES = ("llama", "qwen3", "mistral", "mixtral", "qwen3_moe", "deepseek_v3")  # config.json's model_type
ARCHITECTURES = {
    "llama": "LlamaForCausalLM",
    "qwen3": "Qwen3ForCausalLM",
    "mistral": "MistralForCausalLM",
    "mixtral": "MixtralForCausalLM",
    "qwen3_moe": "Qwen3MoeForCausalLM",
    "deepseek_v3": "DeepseekV3ForCausalLM",
}
QK_NORM = ("qwen3", "qwen3_moe")  # the families with QK-norm
# The mixture-of-experts families (ffn="moe"): where their experts sit in the files on the Hub, one
# tensor per expert and matrix: (the layer's module, gate, up, down). transformers 5 fuses them in
# memory (experts.gate_up_proj (E, 2F, C) = [gate ; up] per expert, experts.down_proj (E, C, F), the
# module renamed "mlp"); `hub_names` splits a fused state into these names, so one map reads both.
EXPERTS = {
    "mixtral": ("block_sparse_moe", "w1", "w3", "w2"),
    "qwen3_moe": ("mlp", "gate_proj", "up_proj", "down_proj"),
    "deepseek_v3": ("mlp", "gate_proj", "up_proj", "down_proj"),
}
# DeepSeek-V3's multi-head latent attention (nn/mla.py's LatentAttention): ours -> transformers' names
LATENT_QUERY = {"q_down": "q_a_proj", "q_norm": "q_a_layernorm", "q_up": "q_b_proj"}  # with a query latent
LATENT_KV = {"kv_down": "kv_a_proj_with_mqa", "kv_norm": "kv_a_layernorm", "kv_up": "kv_b_proj", "proj": "o_proj"}
GATES = {"silu": "swiglu", "gelu": "geglu"}  # hidden_act -> our gated FFN (the exact GELU only)
ROPE_TYPES = {"default": "none", "linear": "linear", "dynamic": "dynamic", "yarn": "yarn", "llama3": "llama3"}
# RoPE parameters our config does not hold, at the value we compute with (nn/rope_scaling.py's RopeScaling)
ROPE_FIXED = {
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "beta_fast": 32.0,
    "beta_slow": 1.0,
    "attention_factor": None,
    "truncate": True,
    "mscale": None,
    "mscale_all_dim": None,
}
REQUIRED = (
    "vocab_size",
    "hidden_size",
    "intermediate_size",
    "num_hidden_layers",
    "num_attention_heads",
    "max_position_embeddings",
)


def _rope(get, source: str) -> dict:
    """The config's RoPE as our rope_* fields: transformers 5's `rope_parameters`, or the older
    `rope_theta` + `rope_scaling` pair."""
    rope = get("rope_parameters") or {**(get("rope_scaling") or {}), "rope_theta": get("rope_theta", 10000.0)}
    kind = rope.get("rope_type", rope.get("type", "default"))
    if kind not in ROPE_TYPES:
        raise UsageError(
            "hf.rope_type",
            "{source}: RoPE type {found!r} is not one of {known}.",
            source=source,
            found=kind,
            known=sorted(ROPE_TYPES),
        )
    for name, value in ROPE_FIXED.items():
        if name in rope and rope[name] is not None and rope[name] != value and kind != "default":
            raise UsageError(
                "hf.unsupported",
                "{source}: {field}={value!r} makes a model glassformer would "
                "compute differently; it is refused rather than approximated.",
                source=source,
                field=f"rope_parameters.{name}",
                value=rope[name],
            )
    scaling = ROPE_TYPES[kind]
    original = rope.get("original_max_position_embeddings") or (
        get("max_position_embeddings") if kind == "dynamic" else 0
    )
    return {
        "rope_base": float(rope.get("rope_theta", 10000.0)),
        "rope_scaling": scaling,
        "rope_factor": float(rope.get("factor", 1.0)) if scaling != "none" else 1.0,
        "rope_original_max_len": int(original or 0) if scaling != "none" else 0,
    }


def _experts(get, family: str, source: str) -> dict:
    """A mixture-of-experts family's experts as our ffn="moe" fields (no jitter; every layer sparse, or
    the first k dense: DeepSeek-V3's first_k_dense_replace, Qwen3-MoE's mlp_only_layers [0 .. k-1])."""
    only = get("mlp_only_layers") or []  # Qwen3-MoE's dense layers: the first k only, as moe_first_dense
    first = family == "qwen3_moe" and isinstance(only, list) and only == list(range(len(only)))
    fixed: dict[str, object] = {"router_jitter_noise": 0.0, "decoder_sparse_step": 1, "rope_interleave": True}
    fixed |= {"mlp_only_layers": only if first else []}
    if family != "deepseek_v3":  # DeepSeek's dense first layers: moe_first_dense below
        fixed["first_k_dense_replace"] = 0
    for field, value in fixed.items():
        if get(field, value) not in (value, None):
            raise UsageError(
                "hf.unsupported",
                "{source}: {field}={value!r} makes a model glassformer would "
                "compute differently; it is refused rather than approximated.",
                source=source,
                field=field,
                value=get(field),
            )
    mixtral, deepseek = family == "mixtral", family == "deepseek_v3"
    experts = get("num_local_experts") or get("num_experts") or get("n_routed_experts")  # the families' names
    values = {
        "ffn": "moe",
        "n_experts": experts,
        "moe_top_k": get("num_experts_per_tok"),
        "moe_d_ff": 0 if mixtral else get("moe_intermediate_size"),  # Mixtral's experts are intermediate_size wide
        "moe_normalize": True if mixtral else bool(get("norm_topk_prob", False)),
        "moe_aux_loss": float(get("router_aux_loss_coef", 0.0)),
    }
    if deepseek:  # sigmoid scores, groups, ρ, shared experts; the latent attention's sizes
        values |= {"moe_rule": "sigmoid", "moe_shared": get("n_shared_experts") or 0}
        values |= {"moe_groups": get("n_group") or 1, "moe_topk_groups": get("topk_group") or 1}
        values |= {"moe_scale": float(get("routed_scaling_factor", 1.0)), "n_kv_heads": 0, "head_dim": 0}
        values |= {"mla_kv_rank": get("kv_lora_rank"), "mla_q_rank": get("q_lora_rank") or 0}
        values |= {"mla_d_nope": get("qk_nope_head_dim"), "mla_d_rope": get("qk_rope_head_dim")}
        values |= {"mla_d_v": get("v_head_dim")}
    layers = cast(int, get("num_hidden_layers"))
    if first:
        values["moe_first_dense"] = min(len(only), layers)
    if deepseek:  # the first k layers' FFN is one SwiGLU intermediate_size wide (3 when unset, as transformers
        dense = get("first_k_dense_replace", 3)  # reads it; k past the last layer: every layer dense, as there)
        values["moe_first_dense"] = min(dense, layers) if type(dense) is int else dense or 0
    return values


def config_from_hf(hf_config, source: str = "config.json") -> ModelConfig:
    """A ModelConfig equal to a LlamaConfig, Qwen3Config or MistralConfig (or its config.json dict)."""
    get = hf_config.get if isinstance(hf_config, Mapping) else lambda k, d=None: getattr(hf_config, k, d)
    family = get("model_type")
    if family not in FAMILIES:
        raise UsageError(
            "hf.model_type",
            "{source}: model_type {found!r} is not one of {known}; "
            "glassformer reads these families of transformers' decoders "
            "(GPT-2 has its own import).",
            source=source,
            found=family,
            known=list(FAMILIES),
        )
    missing = [k for k in REQUIRED if type(get(k)) is not int]
    if missing:
        raise DamagedFile(
            "hf.lacks_numbers",
            "{source} lacks whole numbers for {missing}: not a config.json of a decoder.",
            source=source,
            missing=", ".join(missing),
        )
    act = get("hidden_act", "silu")
    if act not in GATES:
        raise UsageError(
            "hf.unsupported",
            "{source}: {field}={value!r} makes a model glassformer would "
            "compute differently; it is refused rather than approximated.",
            source=source,
            field="hidden_act",
            value=act,
        )
    for flag in ("attention_bias", "mlp_bias"):
        if get(flag, False):
            raise UsageError(
                "hf.unsupported",
                "{source}: {field}={value!r} makes a model glassformer would "
                "compute differently; it is refused rather than approximated.",
                source=source,
                field=flag,
                value=get(flag),
            )
    window = get("sliding_window") if family in ("mistral", "mixtral") else None
    if family in QK_NORM and (
        get("use_sliding_window") or any(t != "full_attention" for t in get("layer_types") or [])
    ):
        raise UsageError(
            "hf.unsupported",
            "{source}: {field}={value!r} makes a model glassformer would "
            "compute differently; it is refused rather than approximated.",
            source=source,
            field="use_sliding_window",
            value=True,
        )
    heads = cast(int, get("num_attention_heads"))  # a whole number: checked just above
    values = {
        "kind": "gpt",
        "vocab_size": get("vocab_size"),
        "d_model": get("hidden_size"),
        "n_heads": heads,
        "n_kv_heads": get("num_key_value_heads") or heads,
        "head_dim": get("head_dim") or 0,  # 0: hidden_size // heads, checked by ModelConfig
        "d_ff": get("intermediate_size"),
        "n_layers": get("num_hidden_layers"),
        "max_len": get("max_position_embeddings"),
        "dropout": 0.0,  # transformers drops attention weights only (attention_dropout); we would drop more
        "bias": False,
        "norm": "pre",
        "norm_type": "rms",
        "ffn": GATES[act],
        "qk_norm": family in QK_NORM,
        "final_norm": True,
        "position": "rope",
        **_rope(get, source),
        "sliding_window": window or 0,
        "causal": True,
        "tie_weights": bool(get("tie_word_embeddings", False)),
        "ln_eps": float(get("rms_norm_eps", 1e-6)),
        **(_experts(get, family, source) if family in EXPERTS else {}),
    }
    try:  # the types and ranges a run's config.json is held to
        return apply_overrides(Preset(ModelConfig(), TrainConfig()), values, typed=True).model
    except (TypeError, ValueError) as e:
        raise DamagedFile(
            "hf.cannot_build", "{source} describes no model glassformer can build: {problem}", source=source, problem=e
        ) from None


def family_of(cfg: ModelConfig) -> str:
    """The family a glassformer config exports as: Qwen3 for QK-norm, Mistral for a window, else Llama;
    with experts (ffn="moe"), Qwen3-MoE for QK-norm, else Mixtral."""
    if cfg.mla_kv_rank:
        return "deepseek_v3"
    if cfg.ffn == "moe":
        return "qwen3_moe" if cfg.qk_norm else "mixtral"
    return "qwen3" if cfg.qk_norm else "mistral" if cfg.sliding_window else "llama"


def hf_config(cfg: ModelConfig, special_ids: Mapping[str, int] | None = None) -> dict:
    """config.json for the family of `cfg` (family_of); UsageError naming the first field it lacks."""
    needs = {"kind": "gpt", "norm": "pre", "norm_type": "rms", "final_norm": True, "position": "rope", "bias": False}
    for field, value in needs.items():
        if getattr(cfg, field) != value:
            raise UsageError(
                "hf.field_out",
                "this model's {field} is {found!r}; Llama, Qwen3 and Mistral "
                "need {want!r}, so transformers could not compute it.",
                field=field,
                found=getattr(cfg, field),
                want=value,
            )
    if cfg.ffn not in (*GATES.values(), "moe"):
        raise UsageError(
            "hf.field_out",
            "this model's {field} is {found!r}; Llama, Qwen3 and Mistral "
            "need {want!r}, so transformers could not compute it.",
            field="ffn",
            found=cfg.ffn,
            want="swiglu",
        )
    family = family_of(cfg)
    moe: dict = {"moe_rule": "softmax", "moe_shared": 0, "moe_z_loss": 0.0}  # what Mixtral and Qwen3-MoE compute
    moe |= {"moe_groups": 1, "moe_topk_groups": 1, "moe_scale": 1.0}
    if family == "mixtral":
        moe["moe_normalize"] = True  # Mixtral always normalises the K weights
        moe["moe_first_dense"] = 0  # every layer sparse
    if family == "deepseek_v3":  # DeepSeek-V3: its sigmoid rule, experts after moe_first_dense dense layers
        moe = {"ffn": "moe", "moe_rule": "sigmoid", "moe_z_loss": 0.0}
    for field, value in moe.items() if cfg.ffn == "moe" or family == "deepseek_v3" else ():
        if getattr(cfg, field) != value:
            raise UsageError(
                "hf.field_out",
                "this model's {field} is {found!r}; Llama, Qwen3 and Mistral "
                "need {want!r}, so transformers could not compute it.",
                field=field,
                found=getattr(cfg, field),
                want=value,
            )
    if cfg.qk_norm and cfg.sliding_window:
        raise UsageError(
            "hf.field_out",
            "this model's {field} is {found!r}; Llama, Qwen3 and Mistral "
            "need {want!r}, so transformers could not compute it.",
            field="sliding_window",
            found=cfg.sliding_window,
            want=0,
        )
    rope = {"rope_theta": cfg.rope_base, "rope_type": {v: k for k, v in ROPE_TYPES.items()}[cfg.rope_scaling]}
    if cfg.rope_scaling != "none":
        rope["factor"] = cfg.rope_factor
    if cfg.rope_scaling in ("yarn", "llama3"):
        rope["original_max_position_embeddings"] = cfg.rope_original_max_len
    if cfg.rope_scaling == "llama3":  # transformers requires them; ours are Meta's values (ROPE_FIXED)
        rope.update(low_freq_factor=ROPE_FIXED["low_freq_factor"], high_freq_factor=ROPE_FIXED["high_freq_factor"])
    out = {
        "model_type": family,
        "architectures": [ARCHITECTURES[family]],
        "vocab_size": cfg.vocab_size,
        "hidden_size": cfg.d_model,
        "intermediate_size": cfg.d_ff,
        "num_hidden_layers": cfg.n_layers,
        "num_attention_heads": cfg.n_heads,
        "num_key_value_heads": cfg.kv_heads,
        "head_dim": cfg.d_head,
        "hidden_act": {v: k for k, v in GATES.items()}.get(cfg.ffn, "silu"),  # experts: SwiGLU
        "max_position_embeddings": cfg.max_len,
        "rms_norm_eps": cfg.ln_eps,
        "rope_parameters": rope,
        "tie_word_embeddings": cfg.tie_weights,
        "attention_bias": False,
        "attention_dropout": 0.0,
        "use_cache": True,
        **(special_ids or {}),
    }
    if family == "llama":
        out["mlp_bias"] = False
    if family in ("mistral", "mixtral"):
        out["sliding_window"] = cfg.sliding_window or None
    if family in QK_NORM:
        out["use_sliding_window"] = False
    if family == "mixtral":
        out.update(num_local_experts=cfg.n_experts, router_jitter_noise=0.0, intermediate_size=cfg.expert_d_ff)
    if family == "qwen3_moe":
        out.update(num_experts=cfg.n_experts, moe_intermediate_size=cfg.expert_d_ff, norm_topk_prob=cfg.moe_normalize)
        out.update(decoder_sparse_step=1, mlp_only_layers=list(range(cfg.moe_first_dense)))
    if family == "deepseek_v3":
        out.update(
            n_routed_experts=cfg.n_experts, n_shared_experts=cfg.moe_shared, moe_intermediate_size=cfg.expert_d_ff
        )
        out.update(n_group=cfg.moe_groups, topk_group=cfg.moe_topk_groups, routed_scaling_factor=cfg.moe_scale)
        out.update(norm_topk_prob=cfg.moe_normalize, first_k_dense_replace=cfg.moe_first_dense, rope_interleave=True)
        out.update(kv_lora_rank=cfg.mla_kv_rank, q_lora_rank=cfg.mla_q_rank or None, qk_nope_head_dim=cfg.mla_d_nope)
        out.update(qk_rope_head_dim=cfg.mla_d_rope, v_head_dim=cfg.mla_d_v, head_dim=cfg.mla_d_rope)
        out.update(num_key_value_heads=cfg.n_heads)
    if cfg.ffn == "moe":
        out.update(num_experts_per_tok=cfg.moe_top_k, router_aux_loss_coef=cfg.moe_aux_loss)
    return out


def weight_map(cfg: ModelConfig) -> dict[str, tuple[str, ...]]:
    """Our parameter name -> the transformers names whose rows it stacks (one for a plain rename;
    q_proj, k_proj, v_proj for the packed projection). The one weight map of the three families."""
    names: dict[str, tuple[str, ...]] = {"tok_embed.table.weight": ("model.embed_tokens.weight",)}
    for i in range(cfg.n_layers):
        b, h = f"blocks.{i}.", f"model.layers.{i}."
        names[b + "ln1.weight"] = (h + "input_layernorm.weight",)
        if cfg.mla_kv_rank:  # the latent attention's matrices and norms, renamed
            parts = {**(LATENT_QUERY if cfg.mla_q_rank else {"q_proj": "q_proj"}), **LATENT_KV}
            names.update(
                {f"{b}attn.{ours}.weight": (f"{h}self_attn.{theirs}.weight",) for ours, theirs in parts.items()}
            )
        else:
            names[b + "attn.qkv.weight"] = tuple(f"{h}self_attn.{p}_proj.weight" for p in "qkv")
        if cfg.qk_norm:
            names[b + "attn.qk_norm.q_norm.weight"] = (h + "self_attn.q_norm.weight",)
            names[b + "attn.qk_norm.k_norm.weight"] = (h + "self_attn.k_norm.weight",)
        if not cfg.mla_kv_rank:
            names[b + "attn.proj.weight"] = (h + "self_attn.o_proj.weight",)
        names[b + "ln2.weight"] = (h + "post_attention_layernorm.weight",)
        if cfg.ffn == "moe" and i >= cfg.moe_first_dense:  # the router, then each expert's three matrices
            module, *matrices = EXPERTS[family_of(cfg)]
            names[b + "ffn.router.weight"] = (f"{h}{module}.gate.weight",)
            if cfg.moe_rule == "sigmoid":  # DeepSeek-V3's selection bias b, a buffer
                names[b + "ffn.router.selection_bias"] = (f"{h}{module}.gate.e_score_correction_bias",)
            for ours, theirs in (
                (("gate", "gate_proj"), ("up", "up_proj"), ("down", "down_proj")) if cfg.moe_shared else ()
            ):
                names[f"{b}ffn.shared.{ours}.weight"] = (f"{h}{module}.shared_experts.{theirs}.weight",)
            for e in range(cfg.n_experts):
                for ours, theirs in zip(("gate", "up", "down"), matrices, strict=True):
                    names[f"{b}ffn.experts.{e}.{ours}.weight"] = (f"{h}{module}.experts.{e}.{theirs}.weight",)
            continue
        for ours, theirs in (("gate", "gate_proj"), ("up", "up_proj"), ("down", "down_proj")):
            names[f"{b}ffn.{ours}.weight"] = (f"{h}mlp.{theirs}.weight",)
    names["ln_final.weight"] = ("model.norm.weight",)
    if not cfg.tie_weights:
        names["head.weight"] = ("lm_head.weight",)
    return names


def hub_names(hf_state: Mapping[str, torch.Tensor], cfg: ModelConfig) -> Mapping[str, torch.Tensor]:
    """A mixture-of-experts state as the Hub's files name it: transformers 5's fused experts
    (mlp.experts.gate_up_proj (E, 2F, C), mlp.experts.down_proj (E, C, F)) split into one tensor per
    expert and matrix, Mixtral's "mlp" named "block_sparse_moe" again. Any other state: unchanged."""
    if cfg.ffn != "moe" or not any(name.endswith("experts.down_proj") for name in hf_state):
        return hf_state
    module, gate, up, down = EXPERTS[family_of(cfg)]
    out = {}
    for name, tensor in hf_state.items():
        name = name.replace(".mlp.", f".{module}.")
        head, _, last = name.rpartition("experts.")
        if last == "gate_up_proj":
            for e, fused in enumerate(tensor):  # (2F, C) expert e's [gate ; up]
                g, u = fused.chunk(2, dim=0)  # 2 × (F, C)
                out[f"{head}experts.{e}.{gate}.weight"], out[f"{head}experts.{e}.{up}.weight"] = g, u
        elif last == "down_proj":
            out.update({f"{head}experts.{e}.{down}.weight": t for e, t in enumerate(tensor)})  # E × (C, F)
        else:
            out[name] = tensor
    return out


def state_dict_from_hf(
    hf_state: Mapping[str, torch.Tensor], cfg: ModelConfig, source: str
) -> Mapping[str, torch.Tensor]:
    """A Llama / Qwen3 / Mistral / Mixtral / Qwen3-MoE causal LM's state_dict under our names. Every
    tensor is used or refused by name: a missing one, or one we have no place for."""
    hf_state = hub_names(hf_state, cfg)
    names = weight_map(cfg)
    wanted = [theirs for group in names.values() for theirs in group]
    missing = [name for name in wanted if name not in hf_state]
    if missing:
        more = " ..." if len(missing) > 4 else ""
        raise DamagedFile(
            "hf.tensors_missing",
            "{source} lack {names}{more}: not the whole model config.json describes.",
            source=source,
            names=", ".join(missing[:4]),
            more=more,
        )
    tied = {"lm_head.weight"} if cfg.tie_weights else set()  # a tied head may be saved; it is the table
    unused = [name for name in hf_state if name not in set(wanted) | tied and not name.endswith("rotary_emb.inv_freq")]
    if unused:
        more = " ..." if len(unused) > 4 else ""
        raise UsageError(
            "hf.tensors_unused",
            "{source} hold tensors glassformer's model has no place for: "
            "{names}{more} (more layers than num_hidden_layers, or "
            "biases the config does not announce).",
            source=source,
            names=", ".join(unused[:4]),
            more=more,
        )
    if cfg.tie_weights:
        names["head.weight"] = names["tok_embed.table.weight"]  # (V, C): one matrix, two uses
    return Stacked(names, hf_state)


class Stacked(Mapping[str, torch.Tensor]):
    """Our parameter name -> its tensor, made when asked for by stacking the rows of the transformers
    tensors it comes from (weight_map): read from a lazy checkpoint, one parameter is in memory at a
    time."""

    def __init__(self, names: Mapping[str, tuple[str, ...]], hf_state: Mapping[str, torch.Tensor]) -> None:
        self.names, self.hf_state = names, hf_state

    def __getitem__(self, ours: str) -> torch.Tensor:
        parts = [self.hf_state[theirs] for theirs in self.names[ours]]
        return parts[0] if len(parts) == 1 else torch.cat(parts)  # rows stacked: (H·D + 2·H_kv·D, C) for q, k, v

    def __iter__(self):
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


def state_dict_to_hf(state: Mapping[str, torch.Tensor], cfg: ModelConfig) -> dict[str, torch.Tensor]:
    """Our weights under transformers' names: the packed projection cut into q_proj, k_proj, v_proj
    (H·D, H_kv·D, H_kv·D rows); the tied head written once, as the embedding table."""
    widths = (cfg.n_heads * cfg.d_head, cfg.kv_heads * cfg.d_head, cfg.kv_heads * cfg.d_head)  # q, k, v rows
    out = {}
    for ours, theirs in weight_map(cfg).items():
        parts = state[ours].split(widths) if len(theirs) == 3 else (state[ours],)  # (H·D, C), 2 × (H_kv·D, C); or one
        out.update({name: part.contiguous() for name, part in zip(theirs, parts, strict=True)})
    return out


def gpt_from_hf(hf_model) -> GPT:
    """A glassformer GPT with a transformers Llama/Qwen3/Mistral causal LM's config and weights."""
    cfg = config_from_hf(hf_model.config, source=type(hf_model).__name__)
    model = GPT(cfg).to(next(hf_model.parameters()).dtype)
    model.load_state_dict(state_dict_from_hf(hf_model.state_dict(), cfg, source=type(hf_model).__name__))
    return model.eval()


# ---- the files: a Hugging Face Llama / Qwen3 / Mistral directory ----------------------------------------
#
#     config.json                                   the family's config            ┐ config_from_hf and the
#     model.safetensors (or model.safetensors.index.json + shards)                  ┘ weight map, checked
#     tokenizer.json                                the tokenizers library's file  text/hf_tokenizer.py
#
# The weights are read by GPT-2's reader (models/gpt2.py: the index's shard names are checked to stay
# inside the directory; pytorch_model.bin with weights_only). Everything is checked before a model of
# the config's size is built; nothing is written while reading.


def read_hf_dir(path, family: str | None = None) -> tuple[GPT, HFJsonTokenizer, str, int]:
    """(glassformer GPT in eval mode, its tokenizer, the weights file's name, the tensors of multi-token
    prediction layers left out: `prediction_layers`) of a Llama, Qwen3, Mistral, Mixtral, Qwen3-MoE or
    DeepSeek-V3 directory; `family`: the model_type the caller expects (None: any of FAMILIES)."""
    path, config = read_hf_config(path)
    fix = folder_fix()
    found = config.get("model_type")
    if family is not None and found != family and found in (*FAMILIES, "gpt2"):
        raise UsageError(
            "hf.format_differs",
            "{path} holds a {found} model, not a {wanted} one: use `glassformer import {found}`.",
            path=path,
            found=found,
            wanted=family,
        )
    cfg = config_from_hf(config, source=str(path / "config.json"))
    check_fits(cfg)  # the float32 model must fit in this machine's memory: refused with the numbers, before reading
    weights_file, tensors = read_weights(path)
    source = str(weights_file)
    gone = prediction_layers(tensors, config, cfg)  # DeepSeek-V3's multi-token prediction: read by no forward
    tensors = Without(tensors, gone) if gone else tensors
    bad = next((n for n, w in tensors.items() if not w.is_floating_point() or not bool(torch.isfinite(w).all())), None)
    if bad is not None:  # (a generator: each tensor read is let go before the next)
        raise DamagedFile(
            "hf.weight",
            "{source}: {name} is not a finite floating-point tensor ({dtype}); {fix}",
            source=source,
            name=bad,
            dtype=str(tensors[bad].dtype),
            fix=fix,
        )
    state = state_dict_from_hf(tensors, cfg, source=source)
    if not (path / "tokenizer.json").is_file():
        raise NotFound("hf.no_tokenizer", "{path} has no tokenizer.json; {fix}", path=path, fix=fix)
    tokenizer = HFJsonTokenizer((path / "tokenizer.json").read_text(encoding="utf-8"), cfg.vocab_size)
    if tokenizer.tokens > cfg.vocab_size:  # Qwen's tables have spare rows; fewer rows than tokens is damage
        raise UsageError(
            "hf.vocab_differs",
            "{path}: vocab_size={vocab_size}, but the tokenizer has {tokens} tokens, more than the model has rows for.",
            path=path / "config.json",
            vocab_size=cfg.vocab_size,
            tokens=tokenizer.tokens,
        )
    expected = {name: tuple(t.shape) for name, t in meta_shapes(cfg).items()}
    wrong = [(n, tuple(t.shape), expected[n]) for n, t in state.items() if tuple(t.shape) != expected.get(n)]
    if wrong:  # checked before a model of the config's size is allocated
        name, shape, want = wrong[0]
        raise DamagedFile(
            "hf.weights_fit",
            "{path} does not fit {config}: {detail}. {fix}",
            path=weights_file,
            config=path / "config.json",
            detail=f"{name} {list(shape)} != {list(want)}",
            fix=fix,
        )
    model = GPT(cfg)
    own = model.state_dict()
    assert own.keys() == state.keys(), own.keys() ^ state.keys()  # the weight map names every parameter
    with torch.no_grad():
        for name in own:  # one checkpoint tensor in memory at a time, beside the float32 model
            own[name].copy_(state[name])
    return model.eval(), tokenizer, weights_file.name, len(gone)


def prediction_layers(tensors: Mapping[str, torch.Tensor], config: Mapping, cfg: ModelConfig) -> set[str]:
    """The names of DeepSeek-V3's multi-token prediction layers' tensors (num_nextn_predict_layers of them,
    saved as model.layers.N on, N = num_hidden_layers): they train the model to predict tokens further
    ahead, and the model itself reads none of them. Layers past those are not theirs (refused as unused)."""
    n = config.get("num_nextn_predict_layers") or 0
    if type(n) is not int or n <= 0:
        return set()
    prefixes = tuple(f"model.layers.{i}." for i in range(cfg.n_layers, cfg.n_layers + n))
    return {name for name in tensors if name.startswith(prefixes)}


class Without(Mapping[str, torch.Tensor]):
    """A checkpoint's tensors less the names in `gone`, each still read only when asked for."""

    def __init__(self, tensors: Mapping[str, torch.Tensor], gone: set[str]) -> None:
        self.tensors, self.gone = tensors, gone

    def __getitem__(self, name: str) -> torch.Tensor:
        if name in self.gone:
            raise KeyError(name)
        return self.tensors[name]

    def __iter__(self):
        return (name for name in self.tensors if name not in self.gone)

    def __len__(self) -> int:
        return len(self.tensors) - len(self.gone)


def meta_shapes(cfg: ModelConfig) -> dict[str, torch.Tensor]:
    """cfg's parameters on the meta device: their shapes, allocating nothing."""
    with torch.device("meta"):
        return dict(GPT(cfg).state_dict())


def write_hf_dir(model: GPT, tokenizer, path, generation: dict | None = None) -> str:
    """config.json, model.safetensors and tokenizer.json that AutoModelForCausalLM and the tokenizers
    library read back; returns the family written. UsageError naming what the family cannot hold."""
    config = hf_config(model.cfg)  # refuses a model the families cannot compute, before any file is written
    family = config["model_type"]
    tokenizer_json = tokenizer.hf_json()
    if tokenizer_json is None:
        raise UsageError(
            "hf.export_tokenizer",
            "a {family} directory needs a tokenizer.json; this run's tokenizer is {kind!r}, which has "
            "no tokenizer.json form yet (a character tokenizer and one imported from such a directory have).",
            family=family,
            kind=tokenizer.kind,
        )
    tensors = state_dict_to_hf({k: v.detach().cpu() for k, v in model.state_dict().items()}, model.cfg)
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    atomic_write(
        path / "model.safetensors",
        lambda tmp: save_file({k: v.float().contiguous() for k, v in tensors.items()}, tmp, metadata={"format": "pt"}),
    )
    write_text_atomic(path / "tokenizer.json", tokenizer_json)
    write_generation(path, generation)
    write_text_atomic(path / "config.json", json_text(config, indent=2) + "\n")  # last: the directory is whole
    return family
