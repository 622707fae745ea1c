"""run_with_hooks / run_with_cache: names, errors, replacement, and hooks never left attached."""

from __future__ import annotations

import re

import pytest
import torch

from glassformer.config import ModelConfig
from glassformer.models import GPT, SequenceRegressor

CFG = ModelConfig(vocab_size=10, d_model=8, n_heads=2, d_ff=16, n_layers=2, max_len=6)
PER_BLOCK = [
    "ln1",
    "attn.q",
    "attn.k",
    "attn.v",
    "attn.scores",
    "attn.weights",
    "attn.z",
    "attn.merged",
    "attn.result",
    "attn.out",
    "resid_mid",
    "ln2",
    "ffn.hidden",
    "ffn.out",
    "resid_post",
]


def ids():
    return torch.randint(0, 10, (2, 5))


def attached(model) -> int:
    return sum(len(model._hooks[n].fns) for n in model.hook_names())


def test_hook_names_are_the_documented_ones():
    expected = {"embed", "pos_embed", "resid_pre", "ln_final", "logits"}
    expected |= {f"blocks.{i}.{n}" for i in range(CFG.n_layers) for n in PER_BLOCK}
    assert set(GPT(CFG).hook_names()) == expected
    regressor_names = set(SequenceRegressor(CFG).hook_names())
    assert regressor_names == expected - {"logits"} | {"pred"}


def test_unknown_hook_name_suggests_the_nearest():
    msg = re.escape("unknown hook point(s) 'blocks.0.atn.q' (did you mean 'blocks.0.attn.q'?)")
    with pytest.raises(ValueError, match=msg):
        GPT(CFG).run_with_hooks(ids(), hooks={"blocks.0.atn.q": lambda t, n: None})


def test_hook_returning_a_wrong_shape_errors_and_is_detached():
    model = GPT(CFG)
    msg = re.escape("hook on 'blocks.1.ffn.hidden' returned shape (2, 5), expected (2, 5, 16)")
    with pytest.raises(ValueError, match=msg):
        model.run_with_hooks(ids(), hooks={"blocks.1.ffn.hidden": lambda t, n: t[..., 0]})
    assert attached(model) == 0


def test_hooks_are_detached_after_an_exception():
    model = GPT(CFG).eval()
    x = ids()
    before = model(x)

    class Boom(RuntimeError):
        """The hook's own failure: the one that must come out, not another."""

    def boom(t, name):
        raise Boom

    with pytest.raises(Boom):
        model.run_with_hooks(x, hooks={"blocks.0.resid_mid": boom, "logits": lambda t, n: t * 0})
    assert attached(model) == 0
    assert torch.equal(model(x), before)


def test_a_hook_can_replace_an_activation():
    model = GPT(CFG).eval()
    out = model.run_with_hooks(ids(), hooks={"logits": lambda t, n: torch.zeros_like(t)})
    assert (out == 0).all()
    # zeroing every head's output of block 0 changes the logits; returning None changes nothing
    x = ids()
    ablated = model.run_with_hooks(x, hooks={"blocks.0.attn.z": lambda t, n: torch.zeros_like(t)})
    untouched = model.run_with_hooks(x, hooks={"blocks.0.attn.z": lambda t, n: None})
    assert not torch.equal(ablated, model(x)) and torch.equal(untouched, model(x))


def test_hook_receives_its_name():
    model = GPT(CFG)
    names = []
    model.run_with_hooks(ids(), hooks={n: lambda t, n: names.append(n) for n in ["embed", "blocks.1.ln2"]})
    assert names == ["embed", "blocks.1.ln2"]  # forward order, each with its own name


def test_run_with_cache_returns_detached_activations_in_forward_order():
    model = GPT(CFG)
    logits, cache = model.run_with_cache(ids())
    assert set(cache) == set(model.hook_names())
    assert list(cache)[:3] == ["embed", "pos_embed", "resid_pre"] and list(cache)[-1] == "logits"
    assert torch.equal(cache["logits"], logits)
    assert not any(t.requires_grad for t in cache.values())
    assert cache.shapes()["blocks.0.attn.weights"] == (2, 2, 5, 5)
    assert attached(model) == 0


def test_run_with_cache_with_a_predicate():
    _, cache = GPT(CFG).run_with_cache(ids(), names=lambda n: n.endswith("weights"))
    assert list(cache) == ["blocks.0.attn.weights", "blocks.1.attn.weights"]


def test_activation_cache_summary_lists_every_tensor_with_its_shape():
    from glassformer.nn.hooks import ActivationCache

    cache = ActivationCache({"embed": torch.zeros(1, 3, 8), "logits": torch.zeros(1, 3, 5)})
    assert cache.shapes() == {"embed": (1, 3, 8), "logits": (1, 3, 5)}
    title, *rows = repr(cache).splitlines()
    assert title.startswith("ActivationCache(") and re.findall(r"\d+", title) == ["2"]  # the class, the count
    assert rows == [f"  {'embed':<28} (1, 3, 8)", f"  {'logits':<28} (1, 3, 5)"]


def test_the_caches_table_sets_names_shapes_and_numbers_in_monospace_and_words_in_the_page_font():
    import glassformer.inspect  # noqa: F401 - the view that draws the cache

    _, cache = GPT(CFG).run_with_cache(ids(), names=lambda n: n == "blocks.0.attn.weights")
    body = cache._repr_html_().split("<tbody>")[1].split("</tbody>")[0]
    # the body is rows of cells and nothing else: one row per cached tensor, six cells each
    assert re.fullmatch(r"(<tr>(<td style=\"[^\"]*\">[^<]*</td>){6}</tr>)+", body)
    rows = re.findall(r"<tr>(.*?)</tr>", body)
    assert len(rows) == len(cache)
    cells = re.findall(r"<td style=\"([^\"]*)\">", rows[0])
    mono = ["monospace" in style for style in cells]
    # name, stage, shape, meaning, first numbers, mean ± std
    assert mono == [True, False, True, False, True, True]


def test_a_cache_row_names_the_axes_it_was_declared_with_and_plain_sizes_for_any_other_layout():
    """A hook may be fed a tensor of another rank than its declaration (a user's own module): the row
    then shows its sizes unnamed, not letters that would be wrong."""
    from glassformer.inspect.display import _cache_row
    from glassformer.nn.hooks import HookPoint

    point = HookPoint("residual", "B T C", "resid_mid")
    assert _cache_row("x", torch.zeros(2, 3, 4), point, "en")[2] == "(B=2, T=3, C=4)"
    assert _cache_row("x", torch.zeros(2, 3), point, "en")[2] == "(2, 3)"
    assert _cache_row("x", torch.zeros(5), None, "en")[2] == "(5)"  # no declaration at all


def test_a_letter_nobody_explained_means_a_question_mark_in_either_language():
    """An axis letter outside LETTERS (a user's own hook declared with "B T X") still shows: "?",
    not an error."""
    from glassformer.inspect.words import meaning
    from glassformer.messages import translated
    from glassformer.nn.hooks import LETTERS

    assert "X" not in LETTERS
    assert (meaning("X"), meaning("X", "zh")) == ("?", "?")
    assert (meaning("C"), meaning("C", "zh")) == (translated("d_model", "en"), translated("d_model", "zh"))


def test_a_cache_row_of_one_finite_number_shows_it_rather_than_a_spread():
    """The spread needs two finite numbers: one (a single value, or one left beside masked -inf
    scores) is shown as itself, never as "x ± nan"."""
    from glassformer.inspect.display import _cache_row

    assert _cache_row("x", torch.tensor([2.5]), None, "en")[5] == "2.5"
    masked = _cache_row("x", torch.tensor([float("-inf"), 0.25]), None, "en")[5]
    assert masked.startswith("-inf, 0.25") and re.findall(r"\d+", masked[len("-inf, 0.25") :]) == ["1"]  # 1 not finite
    assert _cache_row("x", torch.tensor([1.0, 3.0]), None, "en")[5] == "2 ± 1.41"


def test_a_submodule_is_read_from_the_instance_and_a_replaced_one_is_what_runs():
    """HookedModel.read_submodules_directly: `block.attn` and `attn.hook_q` are plain attributes (no
    trip through nn.Module.__getattr__ per read); assigning a new submodule, as LoRA does, drops
    that reference, so the forward runs the new one."""
    torch.manual_seed(0)
    model = GPT(CFG).eval()
    block = model.blocks[0]
    assert vars(block)["attn"] is block._modules["attn"]
    assert vars(block.attn)["hook_q"] is block.attn._modules["hook_q"]
    ids = torch.tensor([[1, 2, 3]])
    before = model(ids)

    class Zero(torch.nn.Module):
        def forward(self, x):
            return torch.zeros_like(x)

    for b in model.blocks:
        b.ffn = Zero()  # nn.Module.__setattr__: registered, and the plain reference goes
    assert all(isinstance(b._modules["ffn"], Zero) and b.ffn is b._modules["ffn"] for b in model.blocks)
    with torch.no_grad():
        x = model.tok_embed(ids) + model.pos_embed(3)  # (1, 3, C)
        for b in model.blocks:
            x = x + b.attn(b.ln1(x), model.attention_mask(ids))  # (1, 3, C): the FFN adds nothing now
        want = model.head(model.ln_final(x))  # (1, 3, V)
    assert torch.equal(model(ids), want) and not torch.equal(before, want)
