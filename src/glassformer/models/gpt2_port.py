"""GPT-2 interop: the only file where GPT-2's names (wte, c_attn, n_embd ...) appear.

GPT-2 is a GPT with GELU-tanh, pre-LN, learned positions, biases and a tied head. Its linear
layers are `Conv1D` modules that store weights as (in, out), the transpose of nn.Linear's
(out, in), so every matrix is transposed on the way in.
"""

from __future__ import annotations

import torch

from glassformer.config import ModelConfig


def config_from_gpt2(hf_config) -> ModelConfig:
    """A ModelConfig equal to a transformers.GPT2Config (dropout taken from resid_pdrop)."""
    changes_the_function = {  # GPT2Config flags whose non-default values glassformer cannot compute
        "scale_attn_weights": False, "scale_attn_by_inverse_layer_idx": True,
        "reorder_and_upcast_attn": True, "add_cross_attention": True,
    }
    for flag, bad in changes_the_function.items():
        if getattr(hf_config, flag, not bad) == bad:
            raise ValueError(f"GPT2Config has {flag}={bad}, which changes the attention "
                             "glassformer computes; port only standard GPT-2 configs.")
    act = {"gelu_new": "gelu_tanh", "gelu_pytorch_tanh": "gelu_tanh", "gelu": "gelu", "relu": "relu"}
    if hf_config.activation_function not in act:
        raise ValueError(f"GPT-2 activation {hf_config.activation_function!r} has no glassformer "
                         f"equivalent; supported: {sorted(act)}.")
    return ModelConfig(
        vocab_size=hf_config.vocab_size, d_model=hf_config.n_embd, n_heads=hf_config.n_head,
        d_ff=hf_config.n_inner or 4 * hf_config.n_embd, n_layers=hf_config.n_layer,
        max_len=hf_config.n_positions, dropout=hf_config.resid_pdrop, bias=True,
        activation=act[hf_config.activation_function], norm="pre", final_norm=True,
        position="learned", causal=True, tie_weights=True, init="gpt2",
        ln_eps=hf_config.layer_norm_epsilon,
    )


def state_dict_from_gpt2(hf_state: dict[str, torch.Tensor], n_layers: int) -> dict[str, torch.Tensor]:
    """Map a GPT2LMHeadModel (or GPT2Model) state_dict onto glassformer GPT parameter names."""
    src = {k.removeprefix("transformer."): v for k, v in hf_state.items()}
    out = {
        "tok_embed.table.weight": src["wte.weight"],  # (V, C)
        "pos_embed.table.weight": src["wpe.weight"],  # (max_len, C)
        "ln_final.weight": src["ln_f.weight"],
        "ln_final.bias": src["ln_f.bias"],
    }
    for i in range(n_layers):
        h, b = f"h.{i}.", f"blocks.{i}."
        pairs = {  # ours: (theirs, transpose?)
            "ln1.weight": ("ln_1.weight", False), "ln1.bias": ("ln_1.bias", False),
            "attn.qkv.weight": ("attn.c_attn.weight", True), "attn.qkv.bias": ("attn.c_attn.bias", False),
            "attn.proj.weight": ("attn.c_proj.weight", True), "attn.proj.bias": ("attn.c_proj.bias", False),
            "ln2.weight": ("ln_2.weight", False), "ln2.bias": ("ln_2.bias", False),
            "ffn.fc1.weight": ("mlp.c_fc.weight", True), "ffn.fc1.bias": ("mlp.c_fc.bias", False),
            "ffn.fc2.weight": ("mlp.c_proj.weight", True), "ffn.fc2.bias": ("mlp.c_proj.bias", False),
        }
        for ours, (theirs, transpose) in pairs.items():
            w = src[h + theirs]
            out[b + ours] = w.t().contiguous() if transpose else w
    out["head.weight"] = out["tok_embed.table.weight"]  # tied
    return out


def gpt_from_gpt2(hf_model):
    """Build a glassformer GPT with a transformers GPT2LMHeadModel's config and weights."""
    from glassformer.models.gpt import GPT

    cfg = config_from_gpt2(hf_model.config)
    model = GPT(cfg).to(next(hf_model.parameters()).dtype)
    model.load_state_dict(state_dict_from_gpt2(hf_model.state_dict(), cfg.n_layers))
    return model
