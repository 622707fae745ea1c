"""The evaluation card's measures (evaluation.py), each checked by hand on a model whose logits we
set: bits per byte over the same bytes for every tokenizer, the loss at each position, the expected
calibration error, lm-eval's multiple choice, and where two runs' logs part."""

from __future__ import annotations

import json
import math
from types import SimpleNamespace

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from glassformer.errors import DamagedFile, UsageError
from glassformer.evaluation import (
    RTOL,
    Question,
    calibration,
    choice_ids,
    context_chars,
    first_divergence,
    loglikelihood,
    read_questions,
    relative_difference,
    score_choices,
    score_text,
    summed_nll,
    utf8_bytes,
    window_stats,
)
from glassformer.text.bpe import BPETokenizer
from glassformer.text.tokenizers import CharTokenizer, WordTokenizer


class Bigram(nn.Module):
    """A model whose logits we set: the logits after token i are table[i], whatever came before.
    It also counts the windows it read (calls, (B, T) each)."""

    def __init__(self, table: torch.Tensor, max_len: int = 8) -> None:
        super().__init__()
        self.table = nn.Parameter(table.double())  # (V, V)
        self.cfg = SimpleNamespace(max_len=max_len, position="learned")
        self.reads: list[tuple[int, int]] = []

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        assert ids.size(1) <= self.cfg.max_len  # never more than the model's context
        self.reads.append(tuple(ids.shape))
        return self.table[ids]  # (B, T, V)


def bigram_nll(table: torch.Tensor, ids: list[int], first: int) -> float:
    logp = F.log_softmax(table.double(), dim=-1)  # (V, V)
    return -sum(logp[ids[j - 1], ids[j]].item() for j in range(max(first, 1), len(ids)))


# ---- bits per byte -------------------------------------------------------------------------------------
@pytest.mark.parametrize("stride", [1, 3, 8, None])
def test_every_target_is_scored_once_with_the_token_before_it(stride):
    torch.manual_seed(0)
    table = torch.randn(5, 5)
    ids = [0, 3, 1, 4, 4, 2, 0, 1, 3, 3, 2, 4, 0, 0, 1, 2, 3, 4, 1, 0, 2]  # longer than max_len = 8
    model = Bigram(table)
    assert summed_nll(model, ids, first=2, stride=stride) == pytest.approx(bigram_nll(table, ids, 2), rel=1e-12)
    assert summed_nll(model, ids, first=0, stride=stride) == pytest.approx(bigram_nll(table, ids, 1), rel=1e-12)


def test_windows_move_by_the_stride_and_give_each_target_max_len_minus_stride_context():
    model = Bigram(torch.zeros(3, 3), max_len=8)
    ids = [0, 1, 2] * 10  # 30 tokens
    total = summed_nll(model, ids, first=1, stride=4)
    assert total == pytest.approx(29 * math.log(3))  # uniform: ln 3 per target, 29 targets
    assert all(T <= 8 for _, T in model.reads) and sum(B for B, _ in model.reads) == math.ceil(29 / 4)
    with pytest.raises(UsageError) as e:
        summed_nll(model, ids, first=1, stride=9)
    assert e.value.code == "eval.stride" and e.value.fields == {"stride": 9, "max_len": 8}


def test_the_first_word_is_context():
    line, poem = "First Citizen: speak", "床前明月光"  # a corpus's first line (test input, not our words)
    assert context_chars(line) == line.index(" ") + 1  # the first word and the space after it
    assert context_chars("  lead\n\nnext") == len("  lead\n\n")
    assert context_chars(poem) == 1  # no whitespace: the first character
    assert context_chars("word") == 1


TEXT = "the cat sat on the mat.\nthe dog sat on the log.\n你好 世界\n"


def tokenizers():
    return {
        "char": CharTokenizer.from_text(TEXT),
        "word": WordTokenizer.from_text(TEXT),
        "bpe": BPETokenizer.from_text(TEXT, vocab_size=270),
    }


def test_bits_per_byte_is_over_the_same_bytes_for_every_tokenizer():
    """A uniform model over V tokens pays ln V per token: bits per byte = tokens · ln V / (ln 2 · bytes),
    and the bytes are those of the text after its first word, for a char, a word and a BPE tokenizer."""
    k = context_chars(TEXT)
    scored_bytes = utf8_bytes(TEXT[k:])
    seen = {}
    for name, tok in tokenizers().items():
        V = tok.vocab_size
        score = score_text(Bigram(torch.zeros(V, V), max_len=16), tok, TEXT)
        n = len(tok.encode(TEXT[k:]))
        assert (score.bytes, score.context, score.tokens) == (scored_bytes, k, n), name
        assert score.nll == pytest.approx(n * math.log(V), rel=1e-12)
        assert score.bits_per_byte == pytest.approx(n * math.log(V) / (math.log(2) * scored_bytes), rel=1e-12)
        seen[name] = score
    assert seen["char"].tokens == len(TEXT) - k and seen["bpe"].tokens < seen["char"].tokens
    assert seen["char"].exact and seen["bpe"].exact and not seen["word"].exact  # words lose the newlines
    assert seen["word"].unknown == 0 and seen["char"].unknown == 0
    word = tokenizers()["word"]
    unseen = "the zebra sat"  # one word TEXT never had
    assert score_text(Bigram(torch.zeros(word.vocab_size, word.vocab_size)), word, unseen).unknown == 1


def test_a_text_with_nothing_after_its_context_is_refused():
    tok = tokenizers()["char"]
    with pytest.raises(UsageError) as e:
        score_text(Bigram(torch.zeros(tok.vocab_size, tok.vocab_size)), tok, "t")
    assert e.value.code == "eval.text_short" and e.value.fields == {"chars": 1, "context": "t"}


# ---- loss by position, calibration ---------------------------------------------------------------------------
def test_loss_by_position_is_the_mean_over_windows_at_each_position():
    torch.manual_seed(1)
    table = torch.randn(4, 4)
    model = Bigram(table)
    x = torch.tensor([[0, 1, 2], [3, 3, 0]])  # (2, 3)
    y = torch.tensor([[1, 2, 3], [3, 0, 1]])  # (2, 3)
    logp = F.log_softmax(table, dim=-1)
    stats = window_stats(model, [(x[:1], y[:1]), (x[1:], y[1:])])
    want = [-(logp[x[0, p], y[0, p]] + logp[x[1, p], y[1, p]]).item() / 2 for p in range(3)]
    assert stats.position_nll == pytest.approx(want, rel=1e-6) and stats.windows == 2
    top = logp.argmax(-1)
    assert stats.correct.tolist() == (top[x] == y).flatten().tolist()
    assert stats.confidence.tolist() == pytest.approx(logp.max(-1).values.exp()[x].flatten().tolist(), rel=1e-6)


def test_the_expected_calibration_error_of_a_hand_example():
    """Four tokens at 0.85 of which 3 are right, two at 0.25 of which 1 is: with 10 bins,
    ECE = 4/6 · |0.75 − 0.85| + 2/6 · |0.5 − 0.25| = 0.0667 + 0.0833 = 0.15."""
    conf = torch.tensor([0.85, 0.85, 0.85, 0.85, 0.25, 0.25], dtype=torch.float64)
    hit = torch.tensor([1, 1, 1, 0, 0, 1], dtype=torch.bool)
    c = calibration(conf, hit, bins=10)
    assert c.ece == pytest.approx(4 / 6 * 0.10 + 2 / 6 * 0.25, abs=1e-9)
    assert (c.tokens, c.accuracy) == (6, pytest.approx(4 / 6))
    filled = [(b.low, b.high, b.count) for b in c.bins if b.count]
    assert filled == [(pytest.approx(0.2), pytest.approx(0.3), 2), (pytest.approx(0.8), pytest.approx(0.9), 4)]
    assert c.bins[8].accuracy == pytest.approx(0.75) and c.bins[8].confidence == pytest.approx(0.85)
    assert len(c.bins) == 10 and c.bins[0].confidence is None
    # one bin: ECE = |accuracy − mean confidence| over everything
    assert calibration(conf, hit, bins=1).ece == pytest.approx(abs(4 / 6 - (4 * 0.85 + 0.5) / 6))
    # calibrated: right exactly as often as it says
    assert calibration(torch.tensor([0.75] * 4), torch.tensor([1, 1, 1, 0]).bool()).ece == pytest.approx(0, abs=1e-12)
    # the edges: 1.0 is in the last bin, a tiny probability in the first
    edges = calibration(torch.tensor([1.0, 1e-9]), torch.tensor([True, False]), bins=4)
    assert [b.count for b in edges.bins] == [1, 0, 0, 1] and edges.ece == pytest.approx(0, abs=1e-8)


@pytest.mark.parametrize("bins", [0, -1, 1.5, True])
def test_bad_bins_are_refused(bins):
    with pytest.raises(UsageError) as e:
        calibration(torch.tensor([0.5]), torch.tensor([True]), bins=bins)
    assert e.value.code == "eval.bins"


def test_calibration_needs_one_hit_per_probability():
    with pytest.raises(UsageError) as e:
        calibration(torch.tensor([0.5, 0.4]), torch.tensor([True]))
    assert e.value.fields == {"confidence": 2, "correct": 1}


# ---- multiple choice ---------------------------------------------------------------------------------------
def test_choice_ids_move_the_context_s_trailing_space_to_the_continuation():
    tok = CharTokenizer.from_text("ab c")
    ctx, cont = choice_ids(tok, "ab ", "c")
    assert ctx == tok.encode("ab") and cont == tok.encode(" c")
    text = "the cat sat"  # test input: a context of two words, then the continuation
    words, context = WordTokenizer.from_text(text), text.removesuffix(" sat")
    assert choice_ids(words, context, " sat") == (words.encode(context), words.encode("sat"))


def hand_model():
    """Characters a, b, c, d. After a: b is likely (ln p = ln .6); after b: c (.5), after c: d; ..."""
    tok = CharTokenizer.from_text("abcd")
    probs = torch.tensor(
        [
            [0.1, 0.6, 0.2, 0.1],  # after a
            [0.2, 0.1, 0.5, 0.2],  # after b
            [0.25, 0.25, 0.1, 0.4],  # after c
            [0.7, 0.1, 0.1, 0.1],  # after d
        ]
    )
    return Bigram(probs.log(), max_len=8), tok, probs


def test_a_choice_is_scored_by_the_sum_of_its_log_probabilities_given_the_context():
    model, tok, p = hand_model()
    ll, cut = loglikelihood(model, tok.encode("a"), tok.encode("bc"))
    assert ll == pytest.approx(math.log(0.6 * 0.5)) and not cut
    # acc and acc_norm disagree: "d" (ln .1 = −2.30, 1 byte) beats "bcd" in total (ln .6·.5·.4 = −2.12 is
    # higher, so acc picks "bcd") but per byte "bcd" is −0.71 and "d" −2.30: acc_norm picks "bcd" too;
    # "c" (ln .2 = −1.61) against "bca" (ln .6·.5·.25 = −2.59, −0.86 per byte): acc picks "c", acc_norm "bca"
    questions = [
        Question("a", ("d", "bcd"), answer=1, line=1),
        Question("a", ("c", "bca"), answer=1, line=2),
        Question("b", ("a", "c"), answer=0, line=3),  # c is likelier: both measures miss
    ]
    result = score_choices(model, tok, questions)
    first, second, third = result.items
    assert first.loglikelihoods == pytest.approx([math.log(0.1), math.log(0.6 * 0.5 * 0.4)])
    assert (first.pick, first.pick_norm) == (1, 1)
    assert second.loglikelihoods == pytest.approx([math.log(0.2), math.log(0.6 * 0.5 * 0.25)])
    assert (second.pick, second.pick_norm) == (0, 1) and second.bytes == [1, 3]
    assert (third.pick, third.pick_norm) == (1, 1)
    assert (result.acc, result.acc_norm, result.cut) == (pytest.approx(1 / 3), pytest.approx(2 / 3), 0)


def test_acc_norm_divides_by_bytes_not_characters():
    """ "你" is 3 bytes: a one-character choice of ln p = −3 scores −1 per byte, beating "ab" at −2 per byte
    (−4 over 2 bytes), though per character it would lose (−3 against −2 per character)."""
    tok = CharTokenizer.from_text("ab你x")
    V = tok.vocab_size
    x, a, b, ni = (tok.encode(c)[0] for c in "xab你")
    probs = torch.zeros(V, V, dtype=torch.float64)
    probs[:, x] = 1.0  # every row's spare mass goes to x
    probs[x, ni], probs[x, a], probs[a, b] = math.exp(-3), math.exp(-2), math.exp(-2)
    probs[x, x] = 1 - math.exp(-3) - math.exp(-2)
    probs[a, x] = 1 - math.exp(-2)
    model = Bigram(probs.log(), max_len=8)  # ln p(你 | x) = −3, ln p(ab | x) = −2 − 2 = −4
    scored = score_choices(model, tok, [Question("x", ("ab", "你"), answer=1, line=1)]).items[0]
    assert scored.bytes == [2, 3] and (scored.pick, scored.pick_norm) == (1, 1)
    ll = scored.loglikelihoods
    assert ll == pytest.approx([-4.0, -3.0])
    assert ll[1] / 3 > ll[0] / 2 and ll[1] / 1 < ll[0] / 2  # by bytes "你" wins; by characters it would lose


def test_a_long_context_is_cut_on_the_left_as_lm_eval_does():
    model, tok, p = hand_model()
    ll, cut = loglikelihood(model, tok.encode("abcdabcdab"), tok.encode("cd"))  # 12 tokens > max_len + 1
    assert cut and model.reads[-1] == (1, 8) and ll == pytest.approx(math.log(0.5 * 0.4))
    with pytest.raises(UsageError) as e:
        score_choices(model, tok, [Question("a", ("bcdabcdab", "b"), answer=0, line=4)], "q.jsonl")
    assert e.value.code == "eval.choice_too_long" and e.value.fields == {
        "path": "q.jsonl",
        "line": 4,
        "n": 9,
        "max_len": 8,
    }


def write(tmp_path, lines) -> str:
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def test_questions_are_read_from_jsonl(tmp_path):
    path = write(
        tmp_path,
        [
            json.dumps({"context": "a", "choices": ["b", "c"], "answer": 1}),
            "",
            json.dumps({"context": "你", "choices": ["好", "坏", "的"], "answer": 0}, ensure_ascii=False),
        ],
    )
    assert read_questions(path) == [Question("a", ("b", "c"), 1, 1), Question("你", ("好", "坏", "的"), 0, 3)]


@pytest.mark.parametrize(
    "line, key, fields",
    [
        ('{"context": "a", "choices": ["b", "c"], "answer": 2}', "eval.answer_range", {"answer": 2, "n": 2}),
        ('{"context": "a", "choices": ["b", "c"], "answer": -1}', "eval.answer_range", {"answer": -1, "n": 2}),
        ('{"context": "a", "choices": ["b"], "answer": 0}', "eval.question_shape", {}),
        ('{"context": "a", "choices": ["b", ""], "answer": 0}', "eval.question_shape", {}),
        ('{"context": "a", "choices": ["b", "c"], "answer": "0"}', "eval.question_shape", {}),
        ('{"context": "a", "choices": ["b", "c"], "answer": true}', "eval.question_shape", {}),
        ('["a", ["b", "c"], 0]', "eval.question_shape", {}),
        ('{"context": "a", "choices": ["b", "c"], "answer": 0', "eval.question_json", {}),
    ],
)
def test_a_bad_question_is_refused_with_its_line(tmp_path, line, key, fields):
    good = json.dumps({"context": "a", "choices": ["b", "c"], "answer": 0})
    path = write(tmp_path, [good, line])
    with pytest.raises(UsageError) as e:
        read_questions(path)
    assert e.value.key == key and e.value.fields == {"path": path, "line": 2, **fields}


def test_an_empty_question_file_is_refused_naming_the_format(tmp_path):
    (tmp_path / "empty.jsonl").write_text("")
    (tmp_path / "blank.jsonl").write_text("\n \n")
    for name, key in (("empty.jsonl", "files.empty"), ("blank.jsonl", "files.blank")):
        with pytest.raises(DamagedFile) as e:
            read_questions(tmp_path / name)
        assert e.value.key == key and '"answer": 0' in e.value.fields["fix"]


def test_an_empty_context_or_choice_is_refused():
    model, tok, _ = hand_model()
    with pytest.raises(UsageError) as e:
        score_choices(model, tok, [Question("", ("a", "b"), 0, 7)], "q.jsonl")
    assert e.value.code == "eval.empty_context" and e.value.fields == {"path": "q.jsonl", "line": 7}
    words = WordTokenizer.from_text("a b")
    with pytest.raises(UsageError) as e:
        score_choices(
            Bigram(torch.zeros(words.vocab_size, words.vocab_size)), words, [Question("a", (" b", "b"), 0, 2)]
        )
    assert e.value.code == "eval.empty_choice" and e.value.fields["choice"] == "b"  # words: " b" reads, "b" joins "a"


# ---- where two logs part ------------------------------------------------------------------------------------
def log(step, loss, lr=1e-3, grad_norm=1.0, tokens_per_s=1000.0):
    return {"kind": "log", "step": step, "loss": loss, "lr": lr, "grad_norm": grad_norm, "tokens_per_s": tokens_per_s}


def evaluation(step, train_loss, val_loss):
    return {"kind": "eval", "step": step, "train_loss": train_loss, "val_loss": val_loss, "lr": 1e-3}


def parted(a, b, rtol=None):
    return {d.quantity: d.step for d in first_divergence(a, b, rtol)}


def test_two_hand_written_logs_part_where_a_quantity_differs_beyond_its_tolerance():
    a = [evaluation(0, 3.0, 3.1), log(10, 2.5), log(20, 2.0), evaluation(20, 2.0, 2.2), log(30, 1.8)]
    assert parted(a, a) == dict.fromkeys(RTOL)  # a run against itself: never
    b = [dict(r) for r in a]
    b[2]["loss"] = 2.0 * 1.02  # 2% at step 20: beyond loss's 1%
    b[4]["loss"] = 1.8 * 1.005  # 0.5% at step 30: within
    b[1]["tokens_per_s"] = 1300.0  # 30% faster: throughput jitters, within its 50%
    b[4]["tokens_per_s"] = 400.0  # 60% slower: beyond
    b[3]["val_loss"] = 2.2 * 1.011
    b[2]["lr"] = 1e-3 * (1 + 1e-9)  # rounding: within
    b[4]["lr"] = 2e-3
    found = parted(a, b)
    assert found == {
        "loss": 20,
        "lr": 30,
        "grad_norm": None,
        "tokens_per_s": 30,
        "train_loss": None,
        "val_loss": 20,
    }
    assert parted(a, b, rtol=0.05)["loss"] is None and parted(a, b, rtol=0.0)["lr"] == 20  # one tolerance for all
    d = next(d for d in first_divergence(a, b) if d.quantity == "loss")
    assert (d.a, d.b, d.common, d.rtol) == (2.0, 2.04, 3, 0.01)


def test_only_steps_both_recorded_are_compared():
    a = [log(10, 2.0), log(20, 1.0)]
    b = [log(20, 1.0), log(30, 9.0)]
    d = next(d for d in first_divergence(a, b) if d.quantity == "loss")
    assert (d.common, d.step) == (1, None)


def test_relative_difference():
    assert relative_difference(0.0, 0.0) == 0 and relative_difference(1.0, 2.0) == 0.5
    assert relative_difference(math.nan, math.nan) == 0 and relative_difference(1.0, math.nan) == math.inf
    assert relative_difference(-1.0, 1.0) == 2.0
    with pytest.raises(UsageError):
        first_divergence([], [], rtol=-0.1)
