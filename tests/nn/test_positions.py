"""The position-scheme extension point: the registry, NoPE, what happens past max_len, and that
the views (parameter table, trace) show every scheme with no edit to glassformer.inspect."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from helpers import keyed, randomize_, said

from glassformer.config import ModelConfig
from glassformer.errors import UsageError
from glassformer.inspect import activation_memory, param_table
from glassformer.inspect.trace import trace
from glassformer.messages import t
from glassformer.models import GPT, Encoder
from glassformer.nn.hooks import LETTERS
from glassformer.nn.position import POSITION_SCHEMES, ALiBi, RotaryPositions, position_scheme
from glassformer.sample import context_window, past_max_len

KNOWN = [
    "learned",
    "sinusoidal",
    "none",
    "rotary",
    "alibi",
    "rope",
]  # deliberately by hand: the registry must hold these
SCHEMES = sorted(POSITION_SCHEMES)  # every registered scheme, a later one included
CFG = ModelConfig(vocab_size=13, d_model=16, n_heads=4, d_ff=24, n_layers=2, max_len=8)


def gpt(position: str) -> GPT:
    return randomize_(GPT(dataclasses.replace(CFG, position=position)).double()).eval()


# ---- the registry ----------------------------------------------------------------------------------


def test_every_scheme_is_registered_with_one_line_in_both_languages():
    assert set(KNOWN) <= set(POSITION_SCHEMES)
    from glassformer.inspect.words import scheme_about

    for name in SCHEMES:
        about, zh = scheme_about(name, "en"), scheme_about(name, "zh")
        assert position_scheme(name).name == name and about and zh and "\n" not in about + zh
    assert "NoPE" in scheme_about("none") and "RoPE" in scheme_about("rotary")


def test_a_scheme_declared_without_words_takes_the_glossarys_line_and_one_given_keeps_its_own():
    from glassformer.inspect.words import POSITION_WORDS, scheme_about
    from glassformer.messages import translated
    from glassformer.nn.position import PositionScheme

    # a built-in scheme declares no words: the view finds its line, position.<name>, in the glossary
    assert (PositionScheme("rotary").about, PositionScheme("rotary").zh) == ("", "")
    glossary = tuple(translated(POSITION_WORDS["rotary"], lang) for lang in ("en", "zh"))
    assert (scheme_about("rotary"), scheme_about("rotary", "zh")) == glossary and glossary[0] != glossary[1]
    assert (scheme_about("toy_unknown"), scheme_about("toy_unknown", "zh")) == ("", "")
    given = PositionScheme("toy_given", about="mine", zh="我的")  # one registered from outside keeps its own
    POSITION_SCHEMES["toy_given"] = given
    try:
        assert (scheme_about("toy_given"), scheme_about("toy_given", "zh")) == ("mine", "我的")
    finally:
        del POSITION_SCHEMES["toy_given"]


def test_which_schemes_are_limited_by_a_table():
    assert {n for n in KNOWN if position_scheme(n).table} == {"learned", "sinusoidal"}
    touch = {n: (position_scheme(n).stream is not None, position_scheme(n).attention is not None) for n in KNOWN}
    assert touch == {
        "learned": (True, False),
        "sinusoidal": (True, False),
        "none": (False, False),
        "rotary": (False, True),
        "alibi": (False, True),
        "rope": (False, True),
    }


def test_a_misspelled_scheme_names_the_nearest():
    key, fields = keyed(UsageError, GPT, dataclasses.replace(CFG, position="rotery"))
    assert (key, fields["name"], fields["names"]) == ("position.unknown", "rotery", sorted(POSITION_SCHEMES))
    assert fields["hint"].fields == {"near": "rotary"} and "'rotary'" in str(fields["hint"])  # the nearest name


def test_each_model_gets_the_parts_its_scheme_names():
    for name, stream, attn in [("none", None, type(None)), ("rotary", None, RotaryPositions), ("alibi", None, ALiBi)]:
        m = gpt(name)
        assert m.pos_embed is stream and all(isinstance(b.attn.positions, attn) for b in m.blocks)
    assert gpt("learned").pos_embed is not None


# ---- NoPE ------------------------------------------------------------------------------------------


def test_nope_encoder_cannot_tell_order_permuting_the_input_permutes_the_output():
    enc = randomize_(Encoder(dataclasses.replace(CFG, causal=False, position="none")).double()).eval()
    ids, perm = torch.randint(0, 13, (2, 7)), torch.randperm(7)
    assert torch.allclose(enc(ids[:, perm]), enc(ids)[:, perm], atol=1e-12)
    for position in ("learned", "rotary", "alibi"):  # every other scheme does tell order
        other = randomize_(Encoder(dataclasses.replace(CFG, causal=False, position=position)).double()).eval()
        assert not torch.allclose(other(ids[:, perm]), other(ids)[:, perm], atol=1e-6), position


def test_nope_gpt_still_tells_order_through_the_causal_mask():
    m = gpt("none")
    ids = torch.tensor([[1, 2, 3, 4, 5]])
    swapped = torch.tensor([[2, 1, 3, 4, 5]])  # same tokens, first two swapped
    assert (m(ids)[0, -1] - m(swapped)[0, -1]).abs().max() > 1e-6


# ---- past max_len ----------------------------------------------------------------------------------


@pytest.mark.parametrize("position", SCHEMES)
def test_only_table_schemes_refuse_sequences_longer_than_max_len(position):
    m, ids = gpt(position), torch.randint(0, 13, (1, 3 * CFG.max_len))
    if position_scheme(position).table:
        assert keyed(UsageError, m, ids) == ("position.too_long", {"T": 24, "max_len": 8})
    else:
        assert torch.isfinite(m(ids)).all()


@pytest.mark.parametrize("position", SCHEMES)
def test_the_sampler_says_what_happens_past_max_len(position):
    m = gpt(position)
    with said() as heard:
        line = past_max_len(m)
    assert "\n" not in line
    [(key, fields)] = heard
    assert fields == {"name": position, "max_len": 8} and line == t(key, **fields)
    # a table of max_len places: the window slides over the last ones; else every token stays, the cache grows
    assert context_window(m, 100) == (8 if position_scheme(position).table else 100)
    other = next(s for s in SCHEMES if position_scheme(s).table != position_scheme(position).table)
    with said() as heard:
        past_max_len(gpt(other))
    assert heard[0][0] != key  # the other kind of scheme has its own sentence


# ---- the views, with no edit to inspect/ ------------------------------------------------------------


@pytest.mark.parametrize("position", SCHEMES)
def test_parameter_table_counts_every_scheme_in_data_flow_order(position):
    m = gpt(position)
    table = param_table(m)
    assert table.matches and table.total == sum(p.numel() for p in m.parameters()), table.to_text()
    rows = [r.module for r in table.rows]
    if position_scheme(position).attention:  # a 0-parameter row, between the projections it sits between
        row = next(r for r in table.rows if r.module == "blocks.0.attn.positions")
        assert row.count == row.expected == 0 and row.formula == "0" and row.note
        assert (
            rows.index("blocks.0.attn.qkv") < rows.index("blocks.0.attn.positions") < rows.index("blocks.0.attn.proj")
        )


@pytest.mark.parametrize("position", SCHEMES)
def test_trace_shows_each_scheme_with_declared_axes(position):
    m = gpt(position)
    rows = {r.name: r for r in trace(m, torch.arange(5)).rows}
    mine = {name: r for name, r in rows.items() if ".attn.positions." in name}
    rotated = {"q": (1, 4, 5, 4), "k": (1, 4, 5, 4)}
    expected = {"rotary": rotated, "rope": rotated, "alibi": {"bias": (4, 5, 5)}}.get(position, {})
    assert {n.rsplit(".", 1)[1]: r.shape for n, r in mine.items() if n.startswith("blocks.0.")} == expected
    points = m.hook_points()
    for name, r in mine.items():
        assert all(a in LETTERS for a in points[name].axes.split()) and "=" in r.dims  # axes matched the shape
    with torch.no_grad():  # what a real batch of 2 holds, hook by hook (a table like ALiBi's has no B)
        _, held = m.eval().run_with_cache(torch.zeros(2, 5, dtype=torch.long))
    memory = activation_memory(m, B=2, T=5)
    assert {n: memory[n] for n in held} == {n: t.numel() for n, t in held.items()}
    assert memory["total_values"] == sum(t.numel() for t in held.values())


def test_alibi_makes_its_bias_on_the_device_of_its_slopes():
    """Both position ranges on the slopes' device (on a GPU a CPU arange would cost a copy per layer,
    or fail): checked on the meta device, which refuses to mix with a CPU tensor (sample O's survivor)."""
    alibi = ALiBi(4).to("meta")
    bias = alibi(3, 5, 2)  # (H, T_q, T_k)
    assert bias.device.type == "meta" and bias.shape == (4, 3, 5)


def test_every_registered_scheme_has_its_one_line_in_both_languages():
    """A scheme added to the registry (rope came with the modern decoder) must have the glossary's
    words: the params view, trace and help show scheme_about, and an empty line is a silent gap."""
    import glassformer.nn.rope_scaling  # noqa: F401  registers "rope"
    from glassformer.inspect.words import scheme_about
    from glassformer.nn.position import POSITION_SCHEMES

    for name in POSITION_SCHEMES:
        assert scheme_about(name, "en") and scheme_about(name, "zh"), name
