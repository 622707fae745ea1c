"""Sampling: the filters, greedy = argmax, seeds, stop strings, streaming, batches."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch
from helpers import keyed, said
from torch import nn

import glassformer.sample as sample_mod
from glassformer.config import ModelConfig, get_preset
from glassformer.errors import UsageError
from glassformer.logits_processors import Knobs
from glassformer.messages import t as words
from glassformer.models import GPT
from glassformer.sample import TINY_TEMPERATURE, generate_ids, next_probs, sample, top_k_filter, top_p_filter
from glassformer.text.tokenizers import CharTokenizer

NEG = float("-inf")


pytestmark = pytest.mark.usefixtures("one_thread")  # fixture in tests/conftest.py


class FixedLogits(nn.Module):
    """Every position predicts the same logits; checks the context never exceeds max_len."""

    def __init__(self, logits, max_len=8):
        super().__init__()
        self.cfg = SimpleNamespace(max_len=max_len)
        self.logits = torch.as_tensor(logits, dtype=torch.float32)
        self.w = nn.Parameter(torch.zeros(()))

    def forward(self, ids):
        assert ids.size(1) <= self.cfg.max_len
        return self.logits.expand(ids.size(0), ids.size(1), -1)  # (B, T, V)


class Counter(nn.Module):
    """Predicts (last id + 1) mod V with certainty: greedy text is a, b, c, d, a, ..."""

    def __init__(self, vocab_size=4, max_len=3):
        super().__init__()
        self.cfg = SimpleNamespace(max_len=max_len)
        self.V = vocab_size
        self.w = nn.Parameter(torch.zeros(()))

    def forward(self, ids):
        assert ids.size(1) <= self.cfg.max_len
        return 10.0 * nn.functional.one_hot((ids + 1) % self.V, self.V).float()  # (B, T, V)


def test_top_k_keeps_exactly_the_k_largest():
    logits = torch.tensor([[1.0, 5.0, 3.0, -2.0, 4.0]])
    out = top_k_filter(logits, 2)
    assert out.tolist() == [[NEG, 5.0, NEG, NEG, 4.0]]
    assert torch.equal(top_k_filter(logits, 99), logits)


def test_top_p_keeps_the_smallest_set_reaching_p():
    probs = torch.tensor([[0.1, 0.5, 0.05, 0.35]])
    logits = probs.log()

    def kept(p):
        return torch.isfinite(top_p_filter(logits, p))[0].nonzero().flatten().tolist()

    assert kept(0.4) == [1]  # 0.5 alone reaches 0.4
    assert kept(0.6) == [1, 3]  # 0.5 + 0.35
    assert kept(0.9) == [0, 1, 3]  # + 0.1 = 0.95
    assert kept(1.0) == [0, 1, 2, 3]
    assert kept(1e-6) == [1]  # the most likely token always survives


@pytest.mark.parametrize(
    "top_k,top_p,allowed",
    [
        (2, None, {1, 3}),
        (None, 0.75, {1, 3, 4}),  # 0.4 + 0.3 = 0.7 < 0.75, so 0.15 is needed too
        (3, 0.5, {1, 3}),  # top-3 renormalised: 0.47, 0.35, 0.18; 0.47 < 0.5 needs the second
        (None, None, {0, 1, 2, 3, 4}),
    ],
)
def test_only_allowed_ids_are_ever_sampled(top_k, top_p, allowed):
    model = FixedLogits(torch.tensor([0.1, 0.4, 0.05, 0.3, 0.15]).log())
    gen = torch.Generator().manual_seed(0)
    ids = torch.zeros(4000, 1, dtype=torch.long)  # 4000 rows = 4000 draws in one batch
    drawn = next(generate_ids(model, ids, 1, temperature=1.0, top_k=top_k, top_p=top_p, generator=gen))
    assert set(drawn.tolist()) == allowed  # never outside, and every allowed id does occur


def test_sampled_frequencies_follow_the_renormalised_distribution():
    probs = torch.tensor([0.1, 0.5, 0.05, 0.35])
    model = FixedLogits(probs.log())
    gen = torch.Generator().manual_seed(1)
    drawn = next(generate_ids(model, torch.zeros(20000, 1, dtype=torch.long), 1, top_k=2, generator=gen))
    share_of_1 = (drawn == 1).float().mean().item()
    assert share_of_1 == pytest.approx(0.5 / 0.85, abs=0.015)  # 4 sigma ≈ 0.014


def test_next_probs_at_temperature_zero_is_one_hot_on_each_rows_argmax():
    """(B, V) logits, B > 1: every row gets its own one-hot (mutation sample J, seed 10: an argmax
    over the flattened batch put one 1 in row 0 only, and no caller with B = 1 could tell)."""
    logits = torch.tensor([[0.1, 2.0, -1.0, 0.5], [3.0, 0.0, 1.0, 2.9], [0.0, 0.0, 0.2, 5.0]])  # (3, 4)
    expected = torch.tensor([[0.0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1]])  # (3, 4)
    assert torch.equal(sample_mod.next_probs(logits, 0, None, None), expected)


def test_greedy_is_argmax_of_the_model():
    torch.manual_seed(0)
    model = GPT(get_preset("seed000").model)
    ids = torch.tensor([[1, 2, 3]])
    out = torch.stack(list(generate_ids(model, ids, 5, temperature=0)), dim=1)  # (1, 5)
    seq = ids
    for t in range(5):
        with torch.no_grad():
            expected = model.eval()(seq)[:, -1].argmax(-1)  # (1,)
        assert out[0, t] == expected[0]
        seq = torch.cat([seq, expected[:, None]], dim=1)


def test_context_is_cropped_to_max_len_and_mode_restored():
    model = Counter(max_len=3).train()
    tok = CharTokenizer(list("abcd"))
    text = sample(model, tok, "abcdabcd", 6, temperature=0)[0]  # prompt longer than max_len
    assert text == "abcdab"
    assert model.training


def test_same_seed_same_text_batches_differ():
    torch.manual_seed(0)
    model = GPT(get_preset("seed000").model)
    tok = CharTokenizer.from_text("".join(chr(c) for c in range(32, 32 + model.cfg.vocab_size)))
    a = sample(model, tok, "HELLO", 30, seed=3, num_samples=3)
    b = sample(model, tok, "HELLO", 30, seed=3, num_samples=3)
    c = sample(model, tok, "HELLO", 30, seed=4, num_samples=3)
    assert a == b and a != c
    assert len(set(a)) == 3 and all(len(t) == 30 for t in a)
    state = torch.get_rng_state()
    sample(model, tok, "HI", 5, seed=None)
    assert torch.equal(torch.get_rng_state(), state)  # sampling never moves the global RNG


def test_stop_string_cuts_and_streaming_never_shows_it():
    model = Counter()
    tok = CharTokenizer(list("abcd"))
    pieces = []
    text = sample(model, tok, "a", 50, temperature=0, stop="da", on_text=lambda i, piece: pieces.append(piece))[0]
    assert text == "bc"  # generated "bcdab...", cut before the first "da"
    assert "".join(pieces) == "bc" and pieces == ["b", "c"]  # the "d" was held back, then dropped


def test_streaming_without_stop_emits_every_token_and_flushes_held_text():
    model = Counter()
    tok = CharTokenizer(list("abcd"))
    pieces = []
    text = sample(model, tok, "a", 6, temperature=0, stop="dd", on_text=lambda i, piece: pieces.append(piece))[0]
    assert text == "bcdabc"
    assert "".join(pieces) == text  # "d" held back while it might start "dd", released after


def test_text_held_back_when_the_budget_ends_is_flushed_to_its_own_sample():
    """The budget ends on a "d" that might have started the stop string "dd": it was held back, and
    is certain now, so each sample gets its last piece (bug guarded: the flush calling on_text
    without the piece, or never)."""
    model, tok = Counter(), CharTokenizer(list("abcd"))
    pieces = []
    texts = sample(
        model, tok, "a", 3, temperature=0, stop="dd", num_samples=2, on_text=lambda i, piece: pieces.append((i, piece))
    )
    assert texts == ["bcd", "bcd"]
    assert pieces == [(0, "b"), (1, "b"), (0, "c"), (1, "c"), (0, "d"), (1, "d")]  # "d" only at the end


@pytest.mark.parametrize(
    "text, stop, held",
    [
        ("xab", "abcd", 2),
        ("xabc", "abcd", 3),
        ("xa", "abcd", 1),
        ("abcd", "abcd", 0),
        ("xyz", "abcd", 0),
        ("ab", "abcd", 2),
        ("a\ufffd", "abcd", 2),
        ("x\ufffd\ufffd", None, 2),
        ("xab", "", 0),
    ],
)
def test_held_back_is_the_longest_tail_that_could_start_the_stop_string(text, stop, held):
    """Every tail length is tried, longest first, up to len(stop) - 1 (the whole stop string is cut,
    not held); an unfinished character ("\ufffd", a byte of a split character) is held too."""
    assert sample_mod._held_back(text, stop) == held


def test_use_cache_is_passed_through_to_the_loop():
    """use_cache=True on a model without a KV cache is refused (the loop is told, not left to guess)."""
    assert keyed(UsageError, sample, Counter(), CharTokenizer(list("abcd")), "a", 2, use_cache=True) == (
        "sample.no_cache",
        {"model": "Counter"},
    )


def test_generation_stops_once_every_sample_has_met_the_stop_string():
    """The budget is 50 tokens, but "da" appears after 4: the model is not run again after that."""
    model, calls = Counter(), []
    model.register_forward_hook(lambda *args: calls.append(1))
    assert sample(model, CharTokenizer(list("abcd")), "a", 50, temperature=0, stop="da", num_samples=2) == ["bc", "bc"]
    assert len(calls) == 4  # b, c, d, a: the step that completed "da" is the last


def test_sample_hands_its_top_k_and_top_p_to_the_sampler():
    """Logits 3, 2, 1, 0: p = 0.64, 0.24, 0.09, 0.03. top_p=0.5 keeps "a" alone and top_k=2 keeps "a" and
    "b", so 4 × 30 seeded draws show only those; without them the other two letters turn up too."""
    model, tok = FixedLogits([3.0, 2.0, 1.0, 0.0]), CharTokenizer(list("abcd"))
    assert sample(model, tok, "a", 30, top_p=0.5, num_samples=4, seed=0) == ["a" * 30] * 4
    assert set("".join(sample(model, tok, "a", 30, top_k=2, num_samples=4, seed=0))) == {"a", "b"}
    assert set("".join(sample(model, tok, "a", 30, num_samples=4, seed=0))) == set("abcd")


def test_sample_makes_the_prompts_ids_on_the_models_device(monkeypatch):
    """On a GPU, ids left on the CPU meet the model's weights on another device (tests/gpu samples
    there). One CPU shows no second device, so this reads the device `sample` asks for: the model's."""
    made = []

    class Torch:  # sample.py's `torch`, recording the device of every tensor it makes from a list
        def __getattr__(self, name):
            return getattr(torch, name)

        def tensor(self, data, **kw):
            made.append(kw.get("device"))
            return torch.tensor(data, **kw)

    monkeypatch.setattr(sample_mod, "torch", Torch())
    model, tok = Counter(), CharTokenizer(list("abcd"))
    assert sample(model, tok, "ab", 3, temperature=0, num_samples=2) == ["cda", "cda"]
    assert made and made == [next(model.parameters()).device] * len(made)


def test_a_tiny_temperature_is_each_rows_own_softmax_in_a_batch():
    """Below TINY_TEMPERATURE each row is shifted by its own maximum before dividing: rows with
    different maxima (and more tokens than rows) get exactly the softmax of logits / τ."""
    logits = torch.tensor([[0.0, 1e-3, -1e-3, 0.5e-3], [10.0, 10.0005, 9.999, 2.0], [-4.0, -4.001, -3.9995, -5.0]])
    tau = TINY_TEMPERATURE / 2
    want = torch.softmax(logits.double() / tau, dim=-1).float()  # (3, 4): float64 keeps these finite
    assert torch.allclose(next_probs(logits, tau, None, None), want, atol=1e-6)
    assert next_probs(logits, 1e-300, None, None).argmax(-1).tolist() == [1, 1, 2]  # the limit: the argmax


def test_bad_arguments_are_explained():
    model, tok = Counter(), CharTokenizer(list("abcd"))
    assert keyed(ValueError, sample, model, tok, "a", 3, temperature=-1) == ("sample.temperature", {"value": -1})
    assert keyed(ValueError, sample, model, tok, "a", 3, top_p=1.5) == ("sample.top_p", {"value": 1.5})
    with pytest.raises(ValueError) as caught:
        sample(model, tok, "", 3)
    assert (caught.value.code, caught.value.fields) == ("sample.empty_prompt", {})  # a key the catalogue has
    key, fields = keyed(UsageError, sample, model, tok, "z", 3)
    assert (key, fields["shown"]) == ("tokenizer.unseen", "'z'")  # the prompt's unknown character named


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_new_tokens": -1},
        {"max_new_tokens": 2.0},
        {"num_samples": 0},
        {"num_samples": 1.0},
        {"temperature": -0.5},
        {"temperature": float("nan")},
        {"temperature": float("inf")},
        {"top_k": 0},
        {"top_k": 2.0},
        {"top_p": 0},
        {"top_p": 1.5},
    ],
)
def test_each_bad_argument_gets_its_own_whole_message(kwargs):
    """Every argument check of `sample` says which argument, what it must be and what it got (the
    bugs: a message key dropped or swapped, so the error names nothing or the wrong argument; a
    check that lets a float count or a NaN temperature through)."""
    args = {"max_new_tokens": 3, **kwargs}
    [(name, value)] = kwargs.items()
    with pytest.raises(ValueError) as caught:
        sample(Counter(), CharTokenizer(list("abcd")), "a", **args)
    assert caught.value.code == f"sample.{name}" and caught.value.fields.keys() == {"value"}
    assert repr(caught.value.fields["value"]) == repr(value)  # what it got, as given (2.0 is not 2)
    assert name in str(caught.value) and str(caught.value).endswith(str(value))  # named, and what it got


def test_the_edges_of_each_argument_are_accepted():
    """The smallest valid value of each argument works (an off-by-one check would refuse it)."""
    model, tok = Counter(), CharTokenizer(list("abcd"))
    assert sample(model, tok, "a", 0) == [""]
    assert sample(model, tok, "a", 2, num_samples=1, temperature=0) == ["bc"]
    assert sample(model, tok, "a", 2, top_k=1, top_p=1) == ["bc"]  # top_k=1 draws the argmax
    assert sample(model, tok, "a", 2, top_p=1e-9) == ["bc"]  # the most likely token is always kept


def test_top_p_of_one_keeps_every_token_even_when_the_cumsum_rounds_to_one_early():
    """One logit so large that float32 rounds its probability to exactly 1: a filter that ran the
    cumulative sum at p = 1 would find the mass "reached" and drop every other token."""
    logits = torch.tensor([[30.0, 0.0, -1.0, 0.0]])
    assert float(logits.softmax(-1)[0, 0]) == 1.0  # the premise: the rounding really happens
    assert torch.equal(top_p_filter(logits, 1.0), logits)
    assert torch.isfinite(top_p_filter(logits, 0.999)).sum() == 1  # below 1 the filter does cut


def test_past_max_len_names_the_scheme_or_says_it_does_not_know():
    gpt = GPT(ModelConfig(vocab_size=5, d_model=8, n_heads=2, d_ff=8, max_len=8))
    with said() as heard:
        sample_mod.past_max_len(gpt)
        line = sample_mod.past_max_len(FixedLogits(torch.zeros(3)))  # a model whose cfg names no scheme
    (table, learned), (unknown, fields) = heard
    assert (learned, fields) == ({"name": "learned", "max_len": 8}, {"name": "?", "max_len": 8})
    assert unknown == table and line == words(unknown, **fields)  # unknown: assumed a table, the safe side
    with said() as heard:
        sample_mod.past_max_len(
            GPT(ModelConfig(vocab_size=5, d_model=8, n_heads=2, d_ff=8, max_len=8, position="alibi"))
        )
    [(no_table, fields)] = heard
    assert no_table != table and fields == {"name": "alibi", "max_len": 8}  # no table: the other sentence


def test_debug_shapes_table_shows_the_prompt_text_once_per_model(capsys):
    from glassformer.inspect.trace import print_shapes_once

    torch.manual_seed(0)
    tok = CharTokenizer(list("abcd"))
    model = GPT(ModelConfig(vocab_size=4, d_model=8, n_heads=2, d_ff=8, n_layers=3, max_len=8))
    ids = torch.tensor([tok.encode("abca"), tok.encode("dddd")])  # (2, 4): only the first row is shown
    assert print_shapes_once(model, ids, tok) is True
    out = capsys.readouterr().out
    assert "'abca'" in out and "a b c a" in out  # the text and its tokens: the tokenizer was used
    assert "(B=1, T=4)" in out  # one row
    assert "blocks.1.*" in out and "blocks.2.*" in out and "blocks.1.attn.q" not in out  # collapsed
    assert print_shapes_once(model, ids, tok) is False and capsys.readouterr().out == ""


def test_zero_new_tokens_give_empty_continuations():
    model, tok = Counter(), CharTokenizer(list("abcd"))
    pieces = []
    assert sample(model, tok, "ab", 0, num_samples=2, on_text=lambda i, p: pieces.append(p)) == ["", ""]
    assert pieces == []


def test_streaming_several_samples_tells_each_piece_whose_it_is():
    model, tok = Counter(), CharTokenizer(list("abcd"))
    pieces = []
    texts = sample(model, tok, "a", 3, temperature=0, num_samples=2, on_text=lambda i, p: pieces.append((i, p)))
    assert texts == ["bcd", "bcd"]
    assert pieces == [(0, "b"), (1, "b"), (0, "c"), (1, "c"), (0, "d"), (1, "d")]


def test_streaming_waits_for_a_character_split_across_tokens():
    """Byte-level BPE can put the bytes of one character in two tokens: the stream must not show the
    "\ufffd" of the first half, then the character; it shows the character once, whole."""
    from glassformer.sample import _held_back

    assert _held_back("ab\ufffd", None) == 1 and _held_back("ab", None) == 0
    assert _held_back("ab\ufffd\ufffd", "bx") == 2 + 1  # the replacement chars, then "b" may start "bx"


def test_the_default_temperature_is_one_the_models_own_distribution():
    """Bug guarded: a default temperature other than 1 (sampling, by default, from a sharper or
    flatter distribution than the model's). Same seed: the default draws what temperature=1 draws,
    and 40 draws at temperature 2 come out different."""
    model, tok = FixedLogits(torch.tensor([0.1, 0.5, 0.05, 0.35]).log(), max_len=64), CharTokenizer(list("abcd"))
    default = sample(model, tok, "a", 40, seed=3)
    assert default == sample(model, tok, "a", 40, temperature=1.0, seed=3)
    assert default != sample(model, tok, "a", 40, temperature=2.0, seed=3)


def test_sample_takes_a_valid_top_k_and_passes_it_to_the_draw():
    """top_k=1 keeps only the most likely token: the text is the greedy one at any temperature
    (bugs guarded: a valid top_k refused, or top_k dropped on the way to generate_ids)."""
    model, tok = FixedLogits(torch.tensor([0.1, 0.5, 0.05, 0.35]).log(), max_len=64), CharTokenizer(list("abcd"))
    assert sample(model, tok, "a", 20, top_k=1, temperature=2.0, seed=0) == ["b" * 20]
    assert sample(model, tok, "a", 20, top_k=4, seed=0) == sample(model, tok, "a", 20, seed=0)


class Strides(nn.Module):
    """Row r predicts (last id + strides[r]) mod V with certainty: rows of one prompt write differently."""

    def __init__(self, strides, vocab_size=4, max_len=8):
        super().__init__()
        self.cfg = SimpleNamespace(max_len=max_len)
        self.strides, self.V = torch.tensor(strides)[:, None], vocab_size
        self.w = nn.Parameter(torch.zeros(()))

    def forward(self, ids):
        return 10.0 * nn.functional.one_hot((ids + self.strides) % self.V, self.V).float()  # (B, T, V)


def test_a_sample_that_met_its_stop_string_waits_while_the_others_go_on():
    """Row 0 writes "d" (the stop string) at once; row 1 writes b, c, then d. Row 0's later tokens are
    skipped, and row 1 still gets every one of its own: its text and its pieces are "bc"."""
    tok = CharTokenizer("abcd")
    pieces = []
    texts = sample(
        Strides([3, 1]),
        tok,
        "a",
        max_new_tokens=6,
        temperature=0,
        num_samples=2,
        stop="d",
        on_text=lambda i, piece: pieces.append((i, piece)),
    )
    assert texts == ["", "bc"]
    assert pieces == [(1, "b"), (1, "c")]


def test_by_default_one_sample_of_300_tokens_is_written():
    model, tok = FixedLogits(torch.tensor([0.0, 50.0, 0.0, 0.0]), max_len=8), CharTokenizer(list("abcd"))
    assert sample(model, tok, "a", seed=0) == ["b" * 300]


def test_a_token_that_writes_the_stop_string_twice_ends_the_text_at_the_first():
    """A byte-level BPE token may hold several characters: "ll" written at once with stop "l" ends
    the sample before the first "l", never between the two."""
    from glassformer.text.bpe import BYTE_TO_CHAR
    from glassformer.text.gpt2_bpe import GPT2BPETokenizer

    tok = GPT2BPETokenizer([BYTE_TO_CHAR[b] for b in range(256)] + ["ll"], [("l", "l")])
    logits = torch.zeros(257)
    logits[256] = 50.0  # always "ll"
    model = FixedLogits(logits, max_len=8)
    assert sample(model, tok, "a", 3, temperature=0, stop="l") == [""]
    assert sample(model, tok, "a", 2, temperature=0, stop="al") == ["llll"]  # "al" never written


def test_without_a_position_table_the_window_is_the_whole_text_and_never_empty():
    model = GPT(ModelConfig(vocab_size=5, d_model=8, n_heads=2, d_ff=8, n_layers=1, max_len=4, position="rotary"))
    assert [sample_mod.context_window(model, n) for n in (0, 1, 2, 9)] == [1, 1, 2, 9]
    table = GPT(ModelConfig(vocab_size=5, d_model=8, n_heads=2, d_ff=8, n_layers=1, max_len=4))
    assert [sample_mod.context_window(table, n) for n in (0, 1, 9)] == [4, 4, 4]


@pytest.mark.parametrize("use_cache", [True, False])
@pytest.mark.parametrize("position", ["learned", "rotary"])  # a window that slides; a text read whole
def test_generate_ids_writes_exactly_max_new_tokens(position, use_cache):
    """Issue 29's blind spot on the sampling side: no end token, so the budget alone ends the loop;
    an off-by-one there (or at the window's edge, max_len) shows as a count one short or long."""
    torch.manual_seed(0)
    cfg = ModelConfig(vocab_size=5, d_model=8, n_heads=2, d_ff=8, n_layers=1, max_len=4, position=position)
    model, prompt = GPT(cfg), torch.tensor([[1, 2], [3, 4]])
    for n in (1, 2, 3, 4, 9):  # up to, at and past max_len
        out = list(generate_ids(model, prompt, n, temperature=0, use_cache=use_cache))
        assert len(out) == n and all(t.shape == (2,) for t in out)


def test_next_logits_with_a_cache_and_no_run_feeds_the_cache_to_the_model():
    """The default model call: the prefill fills the cache, then one new token reads it (sample O's
    survivor: the cache dropped from that call, so the newest token saw only itself)."""
    from glassformer.sample import next_logits

    torch.manual_seed(0)
    model = GPT(ModelConfig(vocab_size=12, d_model=16, n_heads=2, d_ff=32, n_layers=2, max_len=16)).eval()
    ids = torch.tensor([[3, 1, 4, 1, 5, 9]])  # (1, 6)
    cache = model.new_cache(1)
    with torch.no_grad():
        first = next_logits(model, ids[:, :-1], cache)  # (1, V): the prefill of 5 tokens
        second = next_logits(model, ids, cache)  # (1, V): only the 6th token fed, the cache holds 5
        whole = model(ids)[:, -1, :]  # (1, V)
    assert cache.length == 6
    torch.testing.assert_close(first, model(ids[:, :-1])[:, -1, :].detach(), rtol=0, atol=1e-5)
    torch.testing.assert_close(second, whole, rtol=0, atol=1e-5)


def test_a_stop_string_the_model_cannot_write_is_refused_naming_its_characters_or_itself():
    """The characters no token writes, each once; where every character can be written but the
    whole string cannot (a word tokenizer meets "aa" as one unknown word), the string itself
    (sample P's survivor: repr(None) in that case)."""
    from glassformer.sample import check_stop
    from glassformer.text.tokenizers import WordTokenizer

    assert keyed(UsageError, check_stop, CharTokenizer("abcd"), "axyx") == (
        "sample.stop_unseen",
        {"stop": "axyx", "chars": "'x', 'y'"},
    )
    assert keyed(UsageError, check_stop, WordTokenizer(["a", "b"]), "aa") == (
        "sample.stop_unseen",
        {"stop": "aa", "chars": "'aa'"},
    )
    check_stop(CharTokenizer("abcd"), "da")  # writable: no error


# ---- the repetition knobs, wired in (logits_processors.Knobs) ----------------------------------
KNOB_LOGITS = [2.0, 1.6, 1.1, -1.0]  # every step the same scores: only a knob can change the greedy pick


def greedy_with(knobs, steps, prompt=(3,)):
    """Greedy tokens of FixedLogits(KNOB_LOGITS) after `prompt`, with these knobs."""
    model = FixedLogits(KNOB_LOGITS, max_len=16)
    ids = torch.tensor([list(prompt)])  # (1, T0)
    return [int(t) for t in generate_ids(model, ids, steps, temperature=0, knobs=knobs)]


@pytest.mark.parametrize(
    "knobs, tokens",
    [
        # by hand: z = 2.0, 1.6, 1.1, -1.0 and token 3 is the prompt
        (None, [0, 0, 0, 0, 0]),
        (Knobs(), [0, 0, 0, 0, 0]),  # every default does nothing
        # θ = 2: seen 0 -> 1.0 < 1.6; then 1.0, 0.8, 1.1 -> 2; then 1.0, 0.8, 0.55, -2.0 -> 0, 0
        (Knobs(repetition_penalty=2.0), [0, 1, 2, 0, 0]),
        # α_f = 0.3 per repeat: 2.0; 1.7 > 1.6; 1.4 < 1.6; 1.4 > 1.3; 1.1 < 1.3
        (Knobs(frequency_penalty=0.3), [0, 0, 1, 0, 1]),
        # α_p = 0.45 once: 2.0; 1.55 < 1.6; 1.55 > 1.15 and stays so
        (Knobs(presence_penalty=0.45), [0, 1, 0, 0, 0]),
        # no 2-gram twice: (3,0) (0,0) then (0,0) is banned -> (0,1) (1,0) then (0,0), (0,1) banned -> 2
        (Knobs(no_repeat_ngram=2), [0, 0, 1, 0, 2]),
    ],
)
def test_the_penalties_act_on_greedy_decoding_as_computed_by_hand(knobs, tokens):
    assert greedy_with(knobs, 5) == tokens


def test_greedy_ignores_the_filters_as_transformers_greedy_ignores_its_warpers():
    """typical_p drops the most likely token when it is too unsurprising; greedy still takes it."""
    logits = torch.tensor([KNOB_LOGITS])  # (1, V)
    assert Knobs(typical_p=0.3).cut(logits)[0, 0].isinf()  # the filter alone drops token 0
    assert greedy_with(Knobs(typical_p=0.3), 3) == [0, 0, 0]


def test_min_p_and_typical_cut_what_a_sample_can_draw():
    """p ∝ exp(2.0, 1.6, 1.1, -1.0) = 1, 0.67, 0.41, 0.05 of the top: min_p 0.5 keeps tokens 0 and 1."""
    model = FixedLogits(KNOB_LOGITS, max_len=16)
    ids = torch.zeros(64, 1, dtype=torch.long)  # (64, 1) many rows, one draw each step

    def drawn(knobs):
        g = torch.Generator().manual_seed(0)
        return {int(t) for step in generate_ids(model, ids, 8, temperature=1.0, generator=g, knobs=knobs) for t in step}

    assert drawn(None) == {0, 1, 2, 3}
    assert drawn(Knobs(min_p=0.5)) == {0, 1}
    assert drawn(Knobs(min_p=0.3)) == {0, 1, 2}
    # typical: H = 1.09 nats; surprises 0.76, 1.16, 1.66, 3.76: token 1 is the most typical, then 0
    assert drawn(Knobs(typical_p=0.3)) == {1}
    assert drawn(Knobs(typical_p=0.6)) == {0, 1}


def test_sample_passes_the_knobs_on_and_no_knobs_is_the_text_of_before():
    torch.manual_seed(0)
    model = GPT(ModelConfig(vocab_size=6, max_len=16, d_model=16, n_layers=1, n_heads=2))
    tok = CharTokenizer("abcdef")
    plain = sample(model, tok, "ab", 30, temperature=0)[0]
    assert sample(model, tok, "ab", 30, temperature=0, knobs=Knobs())[0] == plain
    banned = sample(model, tok, "ab", 30, temperature=0, knobs=Knobs(no_repeat_ngram=3))[0]

    def trigrams(text):
        return [text[i : i + 3] for i in range(len(text) - 2)]

    assert len(set(trigrams("ab" + plain))) < 30 == len(set(trigrams("ab" + banned)))  # the prompt counts too
    seeded = [sample(model, tok, "ab", 30, seed=4, knobs=k)[0] for k in (None, Knobs(), Knobs(repetition_penalty=3.0))]
    assert seeded[0] == seeded[1] != seeded[2]


def test_a_step_of_writing_runs_with_onednn_off_and_puts_the_switch_back_as_found():
    """next_logits switches oneDNN off around the model call (its GELU's fixed cost dwarfs one row,
    sample.onednn_off) and restores the switch as it was, also when the model raises."""
    torch.manual_seed(0)
    model = GPT(get_preset("baby").model).eval()
    seen = []
    ids = torch.tensor([[1, 2, 3]])
    for start in (True, False):
        torch.backends.mkldnn.enabled = start
        try:
            with model.hooks_attached({"embed": lambda x, name: seen.append(torch.backends.mkldnn.enabled)}):
                logits = sample_mod.next_logits(model, ids)
            assert torch.backends.mkldnn.enabled is start
        finally:
            torch.backends.mkldnn.enabled = True
        with torch.no_grad():
            assert torch.allclose(logits, model(ids)[:, -1], atol=1e-5, rtol=0)  # GELU's kernel: a rounding apart
    assert seen == [False, False]

    def fails(context, cache):
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        sample_mod.next_logits(model, ids, None, fails)
    assert torch.backends.mkldnn.enabled is True
