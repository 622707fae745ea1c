"""torch.compile computes what the eager model computes.

Compiling takes other branches than eager code (`torch.compiler.is_compiling()`): the glass path
always takes its dead-row branch and the fused path passes the causal mask as a mask instead of
`is_causal=True`, so that reading a tensor's value never splits the graph. Both must give the
same numbers. The fast tests use the "aot_eager" backend: Dynamo traces the model exactly as for
the real compiler (those branches included) and AOT autograd builds the backward, but the graph
runs as plain PyTorch, so nothing waits for a C compiler. The slow test compiles with the default
backend (inductor, which writes and builds C++ for the CPU) once, on a GPT.
"""

from __future__ import annotations

import shutil

import pytest
import torch

from glassformer.config import ModelConfig
from glassformer.models import GPT, Encoder
from glassformer.nn.loss import next_token_loss

B, T, V = 3, 8, 17


def pair(model_cls, n_layers=2, **kwargs):
    """The same weights twice: one model to run eagerly, one to compile."""
    torch.manual_seed(0)
    cfg = ModelConfig(vocab_size=V, d_model=16, n_heads=4, d_ff=32, n_layers=n_layers, max_len=T, dropout=0.0, **kwargs)
    eager = model_cls(cfg).eval()
    other = model_cls(cfg).eval()
    other.load_state_dict(eager.state_dict())
    return eager, other


def logits_and_grads(fn, model, ids):
    model.zero_grad(set_to_none=True)
    out = fn(ids)  # (B, T, V) or the kind's outputs
    out.float().square().mean().backward()
    return out.detach(), {n: p.grad for n, p in model.named_parameters() if p.grad is not None}


def assert_same(eager, compiled_model, compiled_fn, ids, atol):
    out_e, grads_e = logits_and_grads(eager, eager, ids)
    out_c, grads_c = logits_and_grads(compiled_fn, compiled_model, ids)
    assert (out_c - out_e).abs().max() <= atol
    assert grads_e.keys() == grads_c.keys()
    for name in grads_e:
        assert (grads_c[name] - grads_e[name]).abs().max() <= atol, name


@pytest.fixture(autouse=True)
def fresh_dynamo():
    import torch._dynamo

    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


@pytest.mark.parametrize("attention", ["glass", "fused"])
@pytest.mark.parametrize("position", ["learned", "rotary", "alibi"])
def test_compiled_gpt_equals_eager(attention, position):
    eager, other = pair(GPT, attention=attention, position=position)
    ids = torch.randint(0, V, (B, T))
    assert_same(eager, other, torch.compile(other, backend="aot_eager", fullgraph=True), ids, 1e-5)


@pytest.mark.parametrize("attention", ["glass", "fused"])
def test_compiled_encoder_with_padding_and_a_dead_row_equals_eager(attention):
    """A row of nothing but padding: every query in it sees no key (the dead-row branch)."""
    eager, other = pair(Encoder, kind="encoder", attention=attention, causal=False, pad_id=0)
    ids = torch.randint(1, V, (B, T))
    ids[0, -3:] = 0  # padding at the end of row 0
    ids[1, :] = 0  # row 1 is all padding
    out = eager(ids)
    assert torch.isfinite(out).all()
    assert_same(eager, other, torch.compile(other, backend="aot_eager", fullgraph=True), ids, 1e-5)


@pytest.mark.slow
@pytest.mark.skipif(
    shutil.which("cc") is None and shutil.which("gcc") is None,
    reason="inductor builds C++ for the CPU: no C compiler on this machine",
)
def test_inductor_compiled_training_step_equals_eager():
    """The real compiler, as `--compile=true` uses it: loss and gradients of a training step."""
    eager, other = pair(GPT, n_layers=1, attention="fused", bias=False)  # one layer: less to build
    compiled = torch.compile(other)
    ids = torch.randint(0, V, (B, T))
    losses = []
    for fn, model in ((eager, eager), (compiled, other)):
        model.train()
        model.zero_grad(set_to_none=True)
        loss = next_token_loss(fn(ids), ids)
        loss.backward()
        losses.append(loss.detach())
    assert (losses[0] - losses[1]).abs() <= 1e-5
    for (name, p), q in zip(eager.named_parameters(), other.parameters(), strict=False):
        assert (p.grad - q.grad).abs().max() <= 1e-4, name
