"""Path patching (glassformer/causal/path_patching.py): the peer-free checks."""

import pytest
import torch

from glassformer.causal import logit_diff
from glassformer.causal.path_patching import path_patching
from glassformer.config import ModelConfig
from glassformer.errors import UsageError
from glassformer.models.kinds import build_model

CLEAN = torch.tensor([[1, 2, 3, 4, 5, 6]])  # (1, T)
CORRUPT = torch.tensor([[1, 7, 3, 4, 8, 6]])  # (1, T)
METRIC = logit_diff(2, 9)


def model_of(**kw):
    torch.manual_seed(0)
    cfg = dict(vocab_size=11, d_model=16, n_heads=4, d_ff=32, n_layers=3, max_len=16)
    return build_model(ModelConfig(**{**cfg, **kw})).double().eval()


@pytest.mark.parametrize("freeze_ffn", [False, True])
def test_batched_over_senders_equals_one_sender_per_forward(freeze_ffn):
    model = model_of()
    receivers = [(2, 1), (1, 3)]
    whole = path_patching(model, CLEAN, CORRUPT, METRIC, receivers, ("q", "v"), freeze_ffn)
    one = path_patching(model, CLEAN, CORRUPT, METRIC, receivers, ("q", "v"), freeze_ffn, max_bytes=60_000)
    assert whole.values.shape == (2, 4) and whole.axes == ("layer", "H")
    assert whole.names == ["blocks.0.attn.result", "blocks.1.attn.result"]
    torch.testing.assert_close(one.values, whole.values, rtol=0, atol=1e-12)


def by_hand(model, sender, receiver, via):
    """Direct path only (FFNs frozen): the receiver's input computed from the weights, with the
    corrupted stream below it changed by exactly the sender's clean − corrupted result."""
    (ls, hs), (lr, hr) = sender, receiver
    _, cc = model.run_with_cache(CLEAN)
    _, cx = model.run_with_cache(CORRUPT)
    delta = cc[f"blocks.{ls}.attn.result"][:, :, hs] - cx[f"blocks.{ls}.attn.result"][:, :, hs]  # (B, T, C)
    block = model.blocks[lr]
    x = block.ln1(cx[f"blocks.{lr - 1}.resid_post"] + delta)  # (B, T, C)
    C, D = 16, 4
    i = "qkv".index(via)
    W, b = block.attn.qkv.weight[i * C : (i + 1) * C], block.attn.qkv.bias[i * C : (i + 1) * C]  # (C, C), (C,)
    own = x @ W[hr * D : (hr + 1) * D].T + b[hr * D : (hr + 1) * D]  # (B, T, D)

    def put(t, _n):
        t = t.clone()
        t[:, hr] = own
        return t

    return METRIC(model.run_with_hooks(CORRUPT, hooks={f"blocks.{lr}.attn.{via}": put})).item()


@pytest.mark.parametrize("via", ["q", "k", "v"])
def test_the_direct_path_equals_the_receiver_input_recomputed_by_hand(via):
    model = model_of()
    grid = path_patching(model, CLEAN, CORRUPT, METRIC, [(2, 1)], via, freeze_ffn=True)
    for sender in [(0, 2), (1, 0)]:
        assert abs(grid.values[sender].item() - by_hand(model, sender, (2, 1), via)) < 1e-10


def test_a_sender_that_does_not_change_does_nothing():
    model = model_of()
    grid = path_patching(model, CLEAN, CLEAN, METRIC, [(1, 0)], "v")  # clean = corrupt: no path carries anything
    assert (grid.values - grid.corrupt).abs().max() < 1e-12


def test_every_input_of_a_layer_is_its_normed_stream_changed_by_the_sender():
    """Into every head of layer 2 through q, k and v, FFNs frozen: the same as replacing that
    layer's ln1 output by LN1(corrupted stream + the sender's clean − corrupted result)."""
    model = model_of()
    grid = path_patching(model, CLEAN, CORRUPT, METRIC, [(2, h) for h in range(4)], ("q", "k", "v"), freeze_ffn=True)
    _, cc = model.run_with_cache(CLEAN)
    _, cx = model.run_with_cache(CORRUPT)
    for ls, hs in [(0, 1), (1, 3)]:
        delta = cc[f"blocks.{ls}.attn.result"][:, :, hs] - cx[f"blocks.{ls}.attn.result"][:, :, hs]  # (B, T, C)
        normed = model.blocks[2].ln1(cx["blocks.1.resid_post"] + delta)  # (B, T, C)
        want = METRIC(model.run_with_hooks(CORRUPT, hooks={"blocks.2.ln1": lambda t, _n, x=normed: x})).item()
        assert abs(grid.values[ls, hs].item() - want) < 1e-10
    assert grid.normalised().abs().max() > 1e-3  # some path matters, so the check can fail


def test_bad_receivers_and_inputs_are_refused():
    model = model_of()
    for receivers, via, key in [
        ([(0, 1)], "q", "error.causal.bad_receiver"),
        ([(3, 1)], "q", "error.causal.bad_receiver"),
        ([(1, 4)], "q", "error.causal.bad_receiver"),
        ([], "q", "error.causal.bad_receiver"),
        ([(1, 1)], "z", "error.causal.bad_via"),
        ([(1, 1)], (), "error.causal.bad_via"),
    ]:
        with pytest.raises(UsageError) as e:
            path_patching(model, CLEAN, CORRUPT, METRIC, receivers, via)
        assert e.value.key == key
