"""Activation, attribution and path patching (glassformer/causal/patching.py): the peer-free checks."""

import pytest
import torch

from glassformer.causal import activation_patching, agreement, attribution_patching, logit_diff, patching, token_prob
from glassformer.causal.patching import cells_of, patch_rows, path_patching, point_axes
from glassformer.config import ModelConfig
from glassformer.errors import UsageError
from glassformer.models.gpt import GPT
from glassformer.models.kinds import build_model


def model_of(**kw):
    torch.manual_seed(0)
    cfg = dict(vocab_size=11, d_model=16, n_heads=4, d_ff=32, n_layers=2, max_len=16)
    return build_model(ModelConfig(**{**cfg, **kw})).double().eval()


CLEAN = torch.tensor([[1, 2, 3, 4, 5, 6]])  # (1, T)
CORRUPT = torch.tensor([[1, 7, 3, 4, 8, 6]])  # (1, T)
METRIC = logit_diff(2, 9)


def slow_grid(model, point, by, clean=CLEAN, corrupt=CORRUPT):
    """One forward per cell: the reference the batched grid must equal (the metric averaged over the
    prompt rows of that one forward)."""
    names = [n for n in model.hook_names() if n.endswith("." + point) and n.startswith("blocks.")] or [point]
    _, cache = model.run_with_cache(clean)
    rows = []
    for n in names:
        axes = point_axes(model, n, by)
        for c in cells_of(tuple(cache[n].shape), axes, by):
            hook = {n: lambda t, _n, n=n, axes=axes, c=c: patch_rows(t, cache[n], axes, by, [0], [c])}
            rows.append(METRIC(model.run_with_hooks(corrupt, hooks=hook)).mean().item())
    return torch.tensor(rows, dtype=torch.float64)  # (L·cells,)


# the modern decoder: a final RMSNorm, 4 query heads over 2 key-value heads, QK-norm, RoPE, SwiGLU
MODERN = {"norm_type": "rms", "ffn": "swiglu", "n_kv_heads": 2, "qk_norm": True, "position": "rope", "bias": False}


@pytest.mark.parametrize("kw", [{}, MODERN])
@pytest.mark.parametrize(
    "point,by", [("resid_pre", ("T",)), ("resid_post", ("T",)), ("attn.z", ("H", "T")), ("attn.z", ("H",))]
)
def test_batched_grid_equals_one_cell_at_a_time(point, by, kw):
    model = model_of(**kw)
    grid = activation_patching(model, CLEAN, CORRUPT, METRIC, point, by, max_bytes=3 * 40_000)
    assert grid.axes == ("layer", *by)
    torch.testing.assert_close(grid.values.flatten(), slow_grid(model, point, by), rtol=0, atol=1e-12)


@pytest.mark.parametrize("point,by", [("resid_post", ("T",)), ("attn.z", ("H",)), ("resid_pre", ("T",))])
def test_a_batch_of_prompts_equals_one_cell_at_a_time_averaged_over_the_prompts(point, by):
    """B > 1 (issue 43): three prompt rows, several cells per forward; each cell's value is the
    metric of its own B rows averaged, never mixed with another cell's rows."""
    model = model_of()
    clean = torch.cat([CLEAN, CLEAN.flip(1), CLEAN.roll(2, 1)])  # (3, T)
    corrupt = torch.cat([CORRUPT, CORRUPT.flip(1), CORRUPT.roll(3, 1)])  # (3, T)
    grid = activation_patching(model, clean, corrupt, METRIC, point, by, max_bytes=4 * 3 * 40_000)
    torch.testing.assert_close(grid.values.flatten(), slow_grid(model, point, by, clean, corrupt), rtol=0, atol=1e-12)
    assert grid.clean == pytest.approx(METRIC(model(clean)).mean().item(), abs=1e-12)
    assert grid.corrupt == pytest.approx(METRIC(model(corrupt)).mean().item(), abs=1e-12)


def test_grid_shape_and_axes_named_from_the_declaration():
    grid = activation_patching(model_of(), CLEAN, CORRUPT, METRIC, "attn.z", ("T", "H"))
    assert grid.axes == ("layer", "T", "H") and grid.values.shape == (2, 6, 4)
    assert grid.names == ["blocks.0.attn.z", "blocks.1.attn.z"]


def test_patching_a_whole_layer_output_reproduces_the_clean_run():
    model = model_of()
    clean_logits, cache = model.run_with_cache(CLEAN)
    for n in ["resid_pre", "blocks.0.resid_post", "blocks.1.resid_post"]:
        logits = model.run_with_hooks(
            CORRUPT, hooks={n: lambda t, _n, n=n: patch_rows(t, cache[n], ["B"], (), [0], [()])}
        )
        assert torch.equal(logits, clean_logits)
    grid = activation_patching(model, CLEAN, CORRUPT, METRIC, "resid_post", ())
    torch.testing.assert_close(grid.normalised(), torch.ones(2, dtype=torch.float64), rtol=0, atol=1e-12)


def test_patching_nothing_gives_the_corrupted_run():
    model = model_of()
    _, cache = model.run_with_cache(CLEAN)
    n = "blocks.0.resid_post"
    logits = model.run_with_hooks(
        CORRUPT, hooks={n: lambda t, _n: patch_rows(t, cache[n], ["B", "T", "C"], ("T",), [], [])}
    )
    assert torch.equal(logits, model(CORRUPT))
    grid = activation_patching(model, CLEAN, CORRUPT, METRIC, "resid_post", ("T",))
    unchanged = [0]  # position 0 is the same token in both prompts: patching it changes nothing
    assert grid.normalised()[0, unchanged].abs().max() < 1e-12


def test_clean_is_one_and_corrupt_zero_and_prob_metric():
    model = model_of()
    grid = activation_patching(model, CLEAN, CORRUPT, token_prob(2), "resid_post", ("T",))
    assert 0 < grid.clean < 1 and 0 < grid.corrupt < 1
    assert abs(grid.normalised()[-1, -1].item() - 1) < 1e-12  # the last position of the last layer is everything


def test_bad_input_is_refused_with_keys():
    model = model_of()
    with pytest.raises(UsageError) as e:
        activation_patching(model, CLEAN, CORRUPT[:, :5], METRIC)
    assert e.value.code == "causal.lengths"
    assert e.value.fields == {"clean": (1, 6), "corrupt": (1, 5)}
    with pytest.raises(UsageError) as e:
        activation_patching(model, CLEAN, CORRUPT, METRIC, "attn.nothing")
    assert e.value.code == "causal.no_point"
    with pytest.raises(UsageError) as e:
        activation_patching(model, CLEAN, CORRUPT, METRIC, "resid_post", ("H",))
    assert e.value.code == "causal.bad_axis" and e.value.fields["choices"] == ["T", "C"]
    with pytest.raises(UsageError) as e:
        activation_patching(model, CLEAN, CORRUPT, METRIC, "pos_embed", ())
    assert e.value.code == "causal.no_batch_axis"
    with pytest.raises(UsageError) as e:
        activation_patching(model, CLEAN, CORRUPT, METRIC, max_bytes=10)
    assert e.value.code == "causal.budget" and e.value.fields["max_bytes"] == 10 and e.value.fields["row"] > 10
    assert str(e.value.fields["row"]) in e.value.words("en")  # the row's bytes, as the refusal says


def made_linear():
    """Norm-free, queries and keys zero (attention weights constant) and every ReLU input positive
    (ReLU the identity there): the logit difference is affine in every activation."""
    model = model_of(norm="none")
    with torch.no_grad():
        for block in model.blocks:
            block.attn.qkv.weight[:32] = 0
            block.attn.qkv.bias[:32] = 0
            block.ffn.fc1.bias.fill_(1e3)
    return model


@pytest.mark.parametrize(
    "point,by",
    [
        ("resid_pre", ("T",)),
        ("resid_mid", ("T",)),
        ("attn.z", ("H", "T")),
        ("attn.result", ("H", "T")),
        ("ffn.hidden", ("T",)),
        ("ffn.out", ("T",)),
    ],
)
def test_attribution_equals_exact_patching_on_a_linear_model(point, by):
    model = made_linear()
    exact = activation_patching(model, CLEAN, CORRUPT, METRIC, point, by)
    approx = attribution_patching(model, CLEAN, CORRUPT, METRIC, point, by)
    assert approx.axes == exact.axes and approx.clean == exact.clean
    torch.testing.assert_close(approx.values, exact.values, rtol=0, atol=1e-8)
    report = agreement(exact, approx, top_k=3)
    assert report.overlap == 3 and report.missed == [] and report.spearman > 0.999
    assert report.cells == exact.values.numel() and str(report.overlap) in report.words()


def test_attribution_on_a_nonlinear_model_is_an_estimate_and_reported():
    model = model_of()
    exact = activation_patching(model, CLEAN, CORRUPT, METRIC, "attn.z", ("H", "T"))
    approx = attribution_patching(model, CLEAN, CORRUPT, METRIC, "attn.z", ("H", "T"))
    report = agreement(exact, approx, top_k=5)
    assert -1 <= report.spearman <= 1 and report.overlap + len(report.missed) == 5
    with pytest.raises(UsageError) as e:
        agreement(exact, approx, top_k=0)
    assert e.value.code == "causal.top_k"


INSIDE = ["ln1", "attn.q", "attn.k", "attn.v", "attn.scores", "attn.weights", "attn.z", "attn.merged"]
INSIDE += ["attn.result", "attn.out", "resid_mid", "ln2", "ffn.hidden", "ffn.out", "resid_post"]


def full_route(monkeypatch, model, point, by):
    """The grid with every cell run through the whole forward (start_layers says None for all)."""
    with monkeypatch.context() as m:
        m.setattr(patching, "start_layers", lambda model, names: {n: None for n in names})
        return activation_patching(model, CLEAN, CORRUPT, METRIC, point, by, max_bytes=3 * 40_000)


@pytest.mark.parametrize("norm", ["pre", "post"])
@pytest.mark.parametrize("point", INSIDE + ["resid_pre", "ln_final"])
def test_starting_at_the_patched_block_equals_the_full_forward(monkeypatch, norm, point):
    model = model_of(norm=norm)
    names = patching.grid_points(model, point)
    inside = point in INSIDE
    assert patching.start_layers(model, names) == {n: (i if inside else None) for i, n in enumerate(names)}
    by = ("T",) if "T" in model.hook_points()[names[0]].axes.split() else ()
    fast = activation_patching(model, CLEAN, CORRUPT, METRIC, point, by, max_bytes=3 * 40_000)
    full = full_route(monkeypatch, model, point, by)
    # not bit for bit: a batch of R rows rounds differently from one row (~1e-14), in either route
    torch.testing.assert_close(fast.values, full.values, rtol=0, atol=1e-12)
    torch.testing.assert_close(fast.values.flatten(), slow_grid(model, point, by), rtol=0, atol=1e-12)
    assert (fast.clean, fast.corrupt) == (full.clean, full.corrupt)


def test_a_model_that_overrides_forward_runs_in_full():
    """Its forward may do anything before block i (here: no causal mask), so no cell starts there."""

    class Unmasked(GPT):
        def forward(self, inputs, cache=None):
            x = self.hook_embed(self.tok_embed(inputs)) + self.hook_pos_embed(
                self.pos_embed(inputs.size(1))
            )  # (B, T, C)
            x = self.hook_resid_pre(self.drop(x))  # (B, T, C)
            return self.run_from(0, x, None)  # (B, T, V)

    model = model_of()
    model.__class__ = Unmasked
    names = patching.grid_points(model, "attn.z")
    assert patching.start_layers(model, names) == {n: None for n in names}
    grid = activation_patching(model, CLEAN, CORRUPT, METRIC, "attn.z", ("H", "T"))
    torch.testing.assert_close(grid.values.flatten(), slow_grid(model, "attn.z", ("H", "T")), rtol=0, atol=1e-12)
    # dropout would draw anew: a training model runs in full too
    assert patching.start_layers(model_of().train(), names) == {n: None for n in names}


# ---- path patching (on models of three layers) ----------------------------------------------------
@pytest.mark.parametrize("freeze_ffn", [False, True])
def test_batched_over_senders_equals_one_sender_per_forward(freeze_ffn):
    model = model_of(n_layers=3)
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
    model = model_of(n_layers=3)
    grid = path_patching(model, CLEAN, CORRUPT, METRIC, [(2, 1)], via, freeze_ffn=True)
    for sender in [(0, 2), (1, 0)]:
        assert abs(grid.values[sender].item() - by_hand(model, sender, (2, 1), via)) < 1e-10


def test_a_sender_that_does_not_change_does_nothing():
    model = model_of(n_layers=3)
    grid = path_patching(model, CLEAN, CLEAN, METRIC, [(1, 0)], "v")  # clean = corrupt: no path carries anything
    assert (grid.values - grid.corrupt).abs().max() < 1e-12


def test_every_input_of_a_layer_is_its_normed_stream_changed_by_the_sender():
    """Into every head of layer 2 through q, k and v, FFNs frozen: the same as replacing that
    layer's ln1 output by LN1(corrupted stream + the sender's clean − corrupted result)."""
    model = model_of(n_layers=3)
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
    model = model_of(n_layers=3)
    for receivers, via, key in [
        ([(0, 1)], "q", "causal.bad_receiver"),
        ([(3, 1)], "q", "causal.bad_receiver"),
        ([(1, 4)], "q", "causal.bad_receiver"),
        ([], "q", "causal.bad_receiver"),
        ([(1, 1)], "z", "causal.bad_via"),
        ([(1, 1)], (), "causal.bad_via"),
    ]:
        with pytest.raises(UsageError) as e:
            path_patching(model, CLEAN, CORRUPT, METRIC, receivers, via)
        assert e.value.key == key


def test_degenerate_inputs_are_refused_never_nan():
    """Issue 43: the same answer and wrong token (a metric that is 0 whatever happens) and a grid
    without a clean − corrupt gap (the same prompts) are refused by key, never normalised into NaN."""
    from glassformer.causal import logit_attribution

    with pytest.raises(UsageError) as e:
        logit_diff(4, 4)
    assert e.value.code == "causal.same_tokens" and e.value.fields == {"token": 4}
    with pytest.raises(UsageError) as e:
        logit_attribution(model_of(), CLEAN, 4, 4)
    assert e.value.code == "causal.same_tokens"
    grid = activation_patching(model_of(), CLEAN, CLEAN, METRIC, "resid_post", ("T",))
    assert grid.gap == 0 and torch.isfinite(grid.values).all()
    with pytest.raises(UsageError) as e:
        grid.normalised()
    assert e.value.code == "causal.no_gap" and e.value.fields == {"clean": grid.clean, "corrupt": grid.corrupt}
    fine = activation_patching(model_of(), CLEAN, CORRUPT, METRIC, "resid_post", ("T",))
    assert fine.gap == fine.clean - fine.corrupt != 0 and torch.isfinite(fine.normalised()).all()


@pytest.mark.parametrize("point,by", [("attn.k", ("H_kv",)), ("attn.v", ("H_kv", "T")), ("attn.q", ("H",))])
def test_a_grouped_query_model_patches_its_key_value_heads_as_one_cell_each(point, by):
    """Under GQA a key-value head is one cell (H_kv of them), read by its g query heads: patched once."""
    model = model_of(**MODERN)
    grid = activation_patching(model, CLEAN, CORRUPT, METRIC, point, by, max_bytes=3 * 40_000)
    assert grid.axes == ("layer", *by) and grid.values.shape[1] == (2 if by[0] == "H_kv" else 4)
    torch.testing.assert_close(grid.values.flatten(), slow_grid(model, point, by), rtol=0, atol=1e-12)
