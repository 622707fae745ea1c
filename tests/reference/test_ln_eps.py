"""A LayerNorm eps far from the default (1e-2, not 1e-5) through every path with its own copy of
the computation (issue 29 item 1).

Every other test builds its models with the default eps, 1e-5, which is also GPT-2's: a path that
ignored the model's own eps and used 1e-5 would pass them all. Here each path is checked at
eps = 1e-2 against an independent writing of the same function (the NumPy twin, which reads
cfg.ln_eps) or against the model's own forward, in float64; `test_the_eps_is_far_enough_to_be_seen`
shows that 1e-5 instead of 1e-2 moves the logits by far more than any tolerance used here.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch
from helpers import randomize_

from glassformer import numpy_ref as ref
from glassformer.config import ModelConfig
from glassformer.models import GPT, Encoder, EncoderDecoder

EPS, ATOL = 1e-2, 1e-10
V, L = 19, 10
NORMS = {"pre-norm": {}, "post-norm": {"norm": "post", "final_norm": False}}


def config(**changes) -> ModelConfig:
    base = ModelConfig(vocab_size=V, d_model=12, n_heads=3, d_ff=24, n_layers=2, max_len=L, dropout=0.0, ln_eps=EPS)
    return replace(base, **changes)


def build(cls, **changes):
    torch.manual_seed(0)
    model = cls(config(**changes)).double().eval()
    return randomize_(model, std=0.3)  # gains and shifts too: nothing trivially 1 or 0


def twin_gpt(model: GPT, ids: torch.Tensor, eps: float = EPS) -> torch.Tensor:
    params = ref.state_to_numpy(model.state_dict())
    return torch.from_numpy(np.asarray(ref.gpt_forward(ids.numpy(), params, replace(model.cfg, ln_eps=eps))))


def ids(B: int = 2, T: int = L) -> torch.Tensor:
    return torch.randint(0, V, (B, T), generator=torch.Generator().manual_seed(1))


def test_the_eps_is_far_enough_to_be_seen():
    """The same weights with eps 1e-5 give logits far outside every tolerance below."""
    m = build(GPT)
    with torch.no_grad():
        assert (m(ids()) - twin_gpt(m, ids(), eps=1e-5)).abs().max() > 1e-4
        assert (m(ids()) - twin_gpt(m, ids())).abs().max() <= ATOL


@pytest.mark.parametrize("attention", ["glass", "fused"])
@pytest.mark.parametrize("norm", NORMS)
def test_glass_and_fused_paths_use_the_models_eps(attention, norm):
    m = build(GPT, attention=attention, **NORMS[norm])
    with torch.no_grad():
        assert (m(ids()) - twin_gpt(m, ids())).abs().max() <= ATOL


@pytest.mark.parametrize("norm", NORMS)
def test_cached_decoding_uses_the_models_eps(norm):
    """The sampler's cache-fed forward, under inference mode, reads each LayerNorm's own eps."""
    m = build(GPT, **NORMS[norm])
    x = ids()
    with torch.inference_mode():
        cache = m.new_cache(2)
        pieces = [m(x[:, :3], cache=cache)] + [m(x[:, t : t + 1], cache=cache) for t in range(3, L)]
        assert (torch.cat(pieces, dim=1) - twin_gpt(m, x)).abs().max() <= ATOL


def test_the_compiled_path_uses_the_models_eps():
    """torch.compile traces the model (aot_eager: Dynamo and AOT autograd, no C compiler)."""
    m = build(GPT, attention="fused")
    compiled = torch.compile(m, backend="aot_eager", fullgraph=False)
    with torch.no_grad():
        assert (compiled(ids()) - twin_gpt(m, ids())).abs().max() <= ATOL


def test_the_encoder_uses_the_models_eps():
    m = build(Encoder, causal=False)
    params = ref.state_to_numpy(m.state_dict())
    with torch.no_grad():
        theirs = torch.from_numpy(np.asarray(ref.encoder_forward(ids().numpy(), params, m.cfg)))
        assert (m(ids()) - theirs).abs().max() <= ATOL


@pytest.mark.parametrize("norm", NORMS)
def test_seq2seq_full_and_cached_decoding_use_the_models_eps(norm):
    """The encoder-decoder's forward against the twin, then its incremental decoding (the decoder
    cache of nn/kv_cache.py) against that forward."""
    m = build(EncoderDecoder, kind="seq2seq", pad_id=0, position="sinusoidal", **NORMS[norm])
    src, tgt = ids(2, 7).clamp(min=1), ids(2, L).clamp(min=1)  # no padding: the cache never pads
    params = ref.state_to_numpy(m.state_dict())
    with torch.no_grad():
        full = m(src, tgt)  # (B, T, V)
        theirs = torch.from_numpy(np.asarray(ref.seq2seq_forward(src.numpy(), tgt.numpy(), params, m.cfg)))
        assert (full - theirs).abs().max() <= ATOL
        memory, cache = m.encode(src), m.new_cache(2)
        pieces = [m.decode(tgt[:, :2], memory, src, cache)]
        pieces += [m.decode(tgt[:, t : t + 1], memory, src, cache) for t in range(2, L)]
        assert (torch.cat(pieces, dim=1) - full).abs().max() <= ATOL


def test_gpt2_import_and_export_carry_the_eps():
    """models/gpt2.py maps GPT-2's layer_norm_epsilon both ways."""
    transformers = pytest.importorskip("transformers")
    from glassformer.models.gpt2 import gpt2_config, gpt_from_gpt2

    hf_cfg = transformers.GPT2Config(
        vocab_size=V, n_positions=L, n_embd=12, n_layer=2, n_head=3, layer_norm_epsilon=EPS,
        resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
    )  # fmt: skip
    torch.manual_seed(0)
    hf = randomize_(transformers.GPT2LMHeadModel(hf_cfg).double().eval(), std=0.2)
    ours = gpt_from_gpt2(hf).eval()
    assert ours.cfg.ln_eps == EPS and gpt2_config(ours.cfg)["layer_norm_epsilon"] == EPS
    with torch.no_grad():
        assert (ours(ids()) - hf(ids()).logits).abs().max() <= ATOL
