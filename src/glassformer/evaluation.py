"""Evaluation beyond the loss: figures that compare models across tokenizers.

    bits per byte = (Σ_t −ln p(x_t | x_<t)) / (ln 2 · bytes of the text in UTF-8)

A loss in nats per token depends on what a token is: a character model and a BPE model of the same
text cannot be compared by it. The total negative log-likelihood of the whole text can, and dividing
it by the text's size in UTF-8 bytes (not tokens) and by ln 2 (nats to bits) gives a figure every
tokenizer shares: a model that knows nothing, uniform over the 256 byte values, scores 8 bits per
byte. The Pile's paper (Gao et al. 2020) reports language models this way; nanochat does too.
"""

from __future__ import annotations

import json
import math
import numbers
import re
from dataclasses import dataclass
from typing import Iterable, Sequence

import torch
import torch.nn.functional as F

from glassformer.config import EvalConfig
from glassformer.errors import UsageError
from glassformer.files import read_text
from glassformer.messages import t


def utf8_bytes(text: str) -> int:
    """The size of the text in UTF-8 bytes (an ASCII character is 1, a Chinese character 3)."""
    return len(text.encode("utf-8"))


def bits_per_byte(nll_nats: float, n_bytes: int) -> float:
    """The summed negative log-likelihood of a text (nats, over every token of it) -> bits per byte.
    n_bytes: the text's UTF-8 byte count (`utf8_bytes`)."""
    if not (isinstance(nll_nats, numbers.Real) and 0 <= nll_nats < math.inf):
        raise UsageError(
            "eval.nll",
            "bits per byte reads the text's summed negative "
            "log-likelihood, which must be a finite number of nats >= 0, "
            "got {value}",
            value=nll_nats,
        )
    if not (isinstance(n_bytes, numbers.Integral) and not isinstance(n_bytes, bool) and n_bytes >= 1):
        raise UsageError(
            "eval.bytes",
            "bits per byte divides by the text's UTF-8 byte count, which must be a whole number >= 1, got {value!r}",
            value=n_bytes,
        )
    return nll_nats / (math.log(2) * n_bytes)


# ────────────────────────────────────────────────────────────────────────────────────────────────
# The measures of the evaluation card (`glassformer eval`, eval_card.py assembles them). Each reads a
# model through its public call, model(ids (B, T)) -> logits (B, T, V), and nothing else.
#
#     score_text        bits per byte of a text, every byte after its first word scored
#     window_stats      the loss at each position of the context, the top-1 probability and hit
#     calibration       expected calibration error over equal-width bins of the top-1 probability
#     score_choices     logit-scored multiple choice, lm-eval's way (acc, acc_norm)
#     first_divergence  where two runs' metrics.jsonl part
# ────────────────────────────────────────────────────────────────────────────────────────────────

WINDOW_BATCH = 16  # windows per forward call while a text is scored: small enough for a CPU's cache


def context_chars(text: str) -> int:
    """How many leading characters of `text` are context, never scored: its first word and the
    whitespace after it (a text without whitespace: its first character).

    Why: the first token has nothing before it to be predicted from, and a character model's first
    token is one character while a BPE model's is a piece and a word model's a word; the bytes scored
    would differ by tokenizer. Encoding the context and the rest apart, every tokenizer scores exactly
    the bytes of text[k:], so bits per byte of two runs are over the same bytes."""
    m = re.match(r"\s*\S+\s+(?=\S)", text)
    return m.end() if m else 1


@dataclass(frozen=True)
class TextScore:
    """A text's summed negative log-likelihood under a model, and the bytes it is over."""

    nll: float  # nats, summed over the scored tokens
    tokens: int  # tokens scored (those of the text after its context)
    bytes: int  # UTF-8 bytes of the scored text, text[context:]
    context: int  # characters of the text given as context (context_chars)
    exact: bool  # the tokenizer writes the scored text back exactly: False = a lossy tokenizer
    unknown: int  # scored tokens that are the tokenizer's unknown id

    @property
    def bits_per_byte(self) -> float:
        return bits_per_byte(self.nll, self.bytes)


def unknown_id(tokenizer) -> int | None:
    return getattr(tokenizer, "unk_id", None)


def score_text(model, tokenizer, text: str, stride: int | None = None) -> TextScore:
    """Bits per byte of `text`: its first word is context (context_chars), the rest is encoded on its
    own and every token of it scored, each with at least max_len − stride tokens before it (windows
    of max_len tokens moving by stride; default max_len // 2)."""
    k = context_chars(text)
    context, rest = tokenizer.encode(text[:k]), tokenizer.encode(text[k:])
    if not context or not rest:
        raise UsageError(
            "eval.text_short",
            "the held-out text ({chars} characters) has nothing to score "
            "after its first word {context!r}, which is context: give a "
            "longer text.",
            chars=len(text),
            context=text[:k],
        )
    nll = summed_nll(model, context + rest, len(context), stride)
    unk = unknown_id(tokenizer)
    return TextScore(
        nll=nll,
        tokens=len(rest),
        bytes=utf8_bytes(text[k:]),
        context=k,
        exact=tokenizer.decode(rest) == text[k:],
        unknown=sum(i == unk for i in rest) if unk is not None else 0,
    )


def log_probs(logits: torch.Tensor) -> torch.Tensor:
    """log-softmax over the vocabulary in at least float32 (a bfloat16 model's logits are widened;
    a float64 one's kept). (..., V) -> (..., V)"""
    return F.log_softmax(logits.to(torch.promote_types(logits.dtype, torch.float32)), dim=-1)  # (..., V)


@torch.no_grad()
def summed_nll(model, ids: list[int], first: int, stride: int | None = None) -> float:
    """Σ_{j >= first} −ln p(ids[j] | the window before j), in nats. Target j is read from a window
    ids[a:stop − 1] of at most L = max_len tokens; the windows move by `stride` targets, so each
    target is scored once with at least L − stride tokens of context (all of them near the start)."""
    L = model.cfg.max_len
    S = stride or max(L // 2, 1)
    if not 1 <= S <= L:
        raise UsageError(
            "eval.stride", "the scoring stride must be in 1 … max_len={max_len}, got {stride}.", stride=S, max_len=L
        )
    spans = []  # (a, end, stop): input ids[a:stop-1], targets ids[end:stop]
    for end in range(max(first, 1), len(ids), S):
        stop = min(end + S, len(ids))
        spans.append((max(0, stop - 1 - L), end, stop))
    device = next(model.parameters()).device
    total = 0.0
    by_length: dict[int, list] = {}
    for span in spans:
        by_length.setdefault(span[2] - 1 - span[0], []).append(span)
    for group in by_length.values():  # windows of one length share a forward call
        for i in range(0, len(group), WINDOW_BATCH):
            batch = group[i : i + WINDOW_BATCH]
            x = torch.tensor([ids[a : stop - 1] for a, _, stop in batch], device=device)  # (B, length)
            y = torch.tensor([ids[a + 1 : stop] for a, _, stop in batch], device=device)  # (B, length)
            logp = log_probs(model(x))  # (B, length, V)
            nll = -logp.gather(-1, y.unsqueeze(-1)).squeeze(-1)  # (B, length): position p predicts y[p]
            for row, (a, end, stop) in enumerate(batch):
                total += nll[row, end - 1 - a : stop - 1 - a].sum().item()  # the targets end..stop-1
    return total


@dataclass(frozen=True)
class WindowStats:
    """What one pass over held-out windows (B, T) measures."""

    position_nll: list[float]  # mean −ln p of the next token at each position 0..T-1
    windows: int  # windows read
    confidence: torch.Tensor  # (N,) the top-1 probability at every scored position
    correct: torch.Tensor  # (N,) bool: was the top-1 token the next token

    @property
    def mean_nll(self) -> float:
        return sum(self.position_nll) / len(self.position_nll)


@torch.no_grad()
def window_stats(model, batches: Iterable[tuple[torch.Tensor, torch.Tensor]]) -> WindowStats:
    """Loss by position and the top-1 predictions over windows (x, y), y[:, t] the token after x[:, t]
    (train/data.py's windows). Every window has the same length T."""
    sums: torch.Tensor | None = None
    windows = 0
    confidence, correct = [], []
    for x, y in batches:
        logp = log_probs(model(x))  # (B, T, V)
        nll = -logp.gather(-1, y.unsqueeze(-1)).squeeze(-1)  # (B, T)
        sums = nll.sum(0) if sums is None else sums + nll.sum(0)  # (T,)
        windows += x.size(0)
        top_logp, top = logp.max(dim=-1)  # (B, T), (B, T)
        confidence.append(top_logp.exp().flatten())  # (B·T,)
        correct.append((top == y).flatten())  # (B·T,)
    if sums is None:
        raise UsageError("eval.no_windows", "no held-out window to measure: the text gave none.")
    return WindowStats((sums / windows).tolist(), windows, torch.cat(confidence).cpu(), torch.cat(correct).cpu())


BINS = EvalConfig.bins  # 15, Guo et al. 2017's (config.py says why)


@dataclass(frozen=True)
class Bin:
    low: float  # the bin holds top-1 probabilities in (low, high]
    high: float
    count: int
    confidence: float | None  # mean top-1 probability of its tokens (None: empty)
    accuracy: float | None  # the fraction of them whose top-1 token was right


@dataclass(frozen=True)
class Calibration:
    ece: float  # Σ_b (n_b / N) · |accuracy_b − confidence_b|
    accuracy: float  # top-1 accuracy over all N tokens
    confidence: float  # mean top-1 probability over all N
    tokens: int
    bins: list[Bin]


def calibration(confidence: torch.Tensor, correct: torch.Tensor, bins: int = BINS) -> Calibration:
    """Expected calibration error (Naeini et al. 2015; Guo et al. 2017): the top-1 probabilities p
    are put in `bins` equal-width bins B_m = ((m−1)/M, m/M], and
    ECE = Σ_m |B_m| / N · |acc(B_m) − conf(B_m)|. A model whose top-1 token is right 70% of the times
    it says 0.7 has ECE 0. (A probability of exactly 0 cannot be a top-1 of a softmax; it joins B_1.)"""
    if not (isinstance(bins, numbers.Integral) and not isinstance(bins, bool) and bins >= 1):
        raise UsageError("eval.bins", "bins must be a whole number >= 1, got {value!r}.", value=bins)
    p = confidence.double().flatten()  # (N,)
    hit = correct.flatten().double()  # (N,)
    if p.numel() == 0 or p.numel() != hit.numel():
        raise UsageError(
            "eval.calibration_sizes",
            "calibration reads one top-1 probability and one hit per "
            "token: got {confidence} probabilities and {correct} hits "
            "(and needs at least one).",
            confidence=p.numel(),
            correct=hit.numel(),
        )
    index = (torch.ceil(p * bins).long() - 1).clamp(0, bins - 1)  # (N,) the bin of each token
    N = p.numel()
    table, ece = [], 0.0
    for m in range(bins):
        inside = index == m  # (N,) bool
        n = int(inside.sum())
        conf = p[inside].mean().item() if n else None
        acc = hit[inside].mean().item() if n else None
        if n:
            ece += n / N * abs(acc - conf)
        table.append(Bin(m / bins, (m + 1) / bins, n, conf, acc))
    return Calibration(ece, hit.mean().item(), p.mean().item(), N, table)


# ---- multiple choice, scored by the logits --------------------------------------------------------
@dataclass(frozen=True)
class Question:
    context: str
    choices: tuple[str, ...]
    answer: int
    line: int  # the line of the JSONL file it came from


def read_questions(path) -> list[Question]:
    """A JSONL file, one question a line: {"context": str, "choices": [str, ...], "answer": i}. Blank
    lines are skipped; anything else that is not such a question is refused with its line."""
    text = read_text(
        path, t('Write one question a line: {{"context": "...", "choices": ["...", "..."], "answer": 0}}.')
    )  # an empty file is refused here, naming the format
    questions = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except (ValueError, RecursionError):
            raise UsageError(
                "eval.question_json",
                "{path}, line {line}: not JSON. Each line is one question: "
                '{{"context": "...", "choices": ["...", "..."], "answer": 0}}.',
                path=path,
                line=number,
            ) from None
        if not (
            isinstance(item, dict)
            and isinstance(item.get("context"), str)
            and isinstance(item.get("choices"), list)
            and len(item["choices"]) >= 2
            and all(isinstance(c, str) and c for c in item["choices"])
            and type(item.get("answer")) is int
        ):
            raise UsageError(
                "eval.question_shape",
                '{path}, line {line}: a question needs "context" (text), '
                '"choices" (at least two non-empty texts) and "answer" (a '
                "whole number): "
                '{{"context": "...", "choices": ["...", "..."], "answer": 0}}.',
                path=path,
                line=number,
            )
        if not 0 <= item["answer"] < len(item["choices"]):
            raise UsageError(
                "eval.answer_range",
                '{path}, line {line}: "answer" is {answer}, but there are '
                "{n} choices: give the index of the right one, counting from "
                "0.",
                path=path,
                line=number,
                answer=item["answer"],
                n=len(item["choices"]),
            )
        questions.append(Question(item["context"], tuple(item["choices"]), item["answer"], number))
    if not questions:
        raise UsageError(
            "eval.no_questions",
            '{path} holds no question: write one a line, {{"context": "...", "choices": ["...", "..."], "answer": 0}}.',
            path=path,
        )
    return questions


def choice_ids(tokenizer, context: str, choice: str) -> tuple[list[int], list[int]]:
    """(context ids, continuation ids) as lm-eval cuts them: whitespace at the end of the context
    moves to the start of the continuation; the continuation's ids are those of encode(context +
    choice) after encode(context)'s length, so a tokenizer that merges across the seam is read as it
    would read the whole text."""
    moved = len(context) - len(context.rstrip())
    context, choice = context[: len(context) - moved], context[len(context) - moved :] + choice
    whole, ctx = tokenizer.encode(context + choice), tokenizer.encode(context)
    return ctx, whole[len(ctx) :]


@torch.no_grad()
def loglikelihood(model, context: list[int], continuation: list[int]) -> tuple[float, bool]:
    """(Σ ln p(continuation | context), whether the context was cut): the model reads the last
    max_len + 1 tokens of context + continuation but the last, as lm-eval does (its left side is
    cut, never the continuation)."""
    L = model.cfg.max_len
    whole = context + continuation
    window = whole[-(L + 1) :]
    device = next(model.parameters()).device
    x = torch.tensor([window[:-1]], device=device)  # (1, T)
    logp = log_probs(model(x))[0]  # (T, V)
    targets = torch.tensor(window[-len(continuation) :], device=device)  # (n,)
    rows = logp[-len(continuation) :]  # (n, V): the positions that predict the continuation
    return rows.gather(-1, targets.unsqueeze(-1)).sum().item(), len(whole) > L + 1


@dataclass(frozen=True)
class Scored:
    """One question, scored."""

    loglikelihoods: list[float]  # Σ ln p of each choice
    bytes: list[int]  # UTF-8 bytes of each choice
    pick: int  # argmax of the log-likelihoods
    pick_norm: int  # argmax of the log-likelihoods per byte
    answer: int
    cut: bool  # a context cut to fit max_len


@dataclass(frozen=True)
class ChoiceResult:
    acc: float
    acc_norm: float
    cut: int  # questions whose context was cut on the left
    items: list[Scored]


def score_choices(model, tokenizer, questions: Sequence[Question], path="") -> ChoiceResult:
    """lm-eval's multiple choice: a choice's score is Σ ln p(its tokens | context); acc counts the
    questions whose best-scored choice is the answer, acc_norm those whose best score per UTF-8 byte
    of the choice is (lm-eval's acc_norm divides by characters; bytes weigh a Chinese character as
    the byte-level tokenizers do). Ties go to the first choice (numpy's argmax, as lm-eval)."""
    L = model.cfg.max_len
    items = []
    for q in questions:
        lls, cut = [], False
        for choice in q.choices:
            ctx, cont = choice_ids(tokenizer, q.context, choice)
            if not ctx:
                raise UsageError(
                    "eval.empty_context",
                    '{path}, line {line}: "context" gives the model no token to '
                    "start from: write the question's text there.",
                    path=path,
                    line=q.line,
                )
            if not cont:
                raise UsageError(
                    "eval.empty_choice",
                    "{path}, line {line}: the choice {choice!r} adds no token "
                    "after the context: write a choice the tokenizer reads there "
                    "(for a word tokenizer, begin it with a space).",
                    path=path,
                    line=q.line,
                    choice=choice,
                )
            if len(cont) > L:
                raise UsageError(
                    "eval.choice_too_long",
                    "{path}, line {line}: a choice of {n} tokens does not fit "
                    "the model's max_len={max_len}: shorten it.",
                    path=path,
                    line=q.line,
                    n=len(cont),
                    max_len=L,
                )
            ll, was_cut = loglikelihood(model, ctx, cont)
            lls.append(ll)
            cut = cut or was_cut
        sizes = [utf8_bytes(c) for c in q.choices]
        per_byte = [ll / n for ll, n in zip(lls, sizes, strict=True)]
        items.append(Scored(lls, sizes, _argmax(lls), _argmax(per_byte), q.answer, cut))
    n = len(items)
    return ChoiceResult(
        acc=sum(s.pick == s.answer for s in items) / n,
        acc_norm=sum(s.pick_norm == s.answer for s in items) / n,
        cut=sum(s.cut for s in items),
        items=items,
    )


def _argmax(values: list[float]) -> int:
    return max(range(len(values)), key=lambda i: (values[i], -i))  # the first of equal values


# ---- where two runs part ----------------------------------------------------------------------------
# What metrics.jsonl records (train/record.py): "log" lines (loss, lr, grad_norm, tokens_per_s) and
# "eval" lines (train_loss, val_loss). Two runs are compared at the steps both logged.
# Relative tolerance, |a − b| / max(|a|, |b|), per quantity, and why:
RTOL = {
    # The same config and seed on one machine gives the same numbers exactly; on another machine or
    # library, float32 rounding (~1e-7) grows step by step. 1% is far above rounding and the first
    # place a learner would see the curves apart on a plot.
    "loss": 0.01,
    "train_loss": 0.01,
    "val_loss": 0.01,
    # A gradient norm of one batch is noisier than an averaged loss, but equal runs still give equal
    # norms: the same 1%.
    "grad_norm": 0.01,
    # The learning rate is a function of the step and the config only: any difference beyond rounding
    # of its printing is a different schedule.
    "lr": 1e-6,
    # Throughput depends on the machine and what else runs on it: the same run twice on one shared
    # machine differs by tens of percent. Only a factor (50%) says something changed.
    "tokens_per_s": 0.5,
}
QUANTITIES = {
    "loss": "log",
    "lr": "log",
    "grad_norm": "log",
    "tokens_per_s": "log",
    "train_loss": "eval",
    "val_loss": "eval",
}


@dataclass(frozen=True)
class Divergence:
    quantity: str
    rtol: float
    common: int  # steps both runs recorded this quantity at
    step: int | None  # the first of them where the two differ by more than rtol (None: never)
    a: float | None  # the two values there
    b: float | None


def relative_difference(a: float, b: float) -> float:
    """|a − b| / max(|a|, |b|): 0 for equal values (two zeros, two NaNs, two equal infinities), inf
    when only one is NaN or infinite."""
    if a == b or (math.isnan(a) and math.isnan(b)):
        return 0.0
    if not (math.isfinite(a) and math.isfinite(b)):
        return math.inf
    return abs(a - b) / max(abs(a), abs(b))


def first_divergence(a: list[dict], b: list[dict], rtol: dict[str, float] | float | None = None) -> list[Divergence]:
    """For each quantity of QUANTITIES, the first step both runs recorded where they differ by more
    than its relative tolerance (RTOL; a number gives every quantity that one)."""
    found = []
    for quantity, kind in QUANTITIES.items():
        tol = RTOL[quantity] if rtol is None else rtol if isinstance(rtol, (int, float)) else rtol[quantity]
        if not (isinstance(tol, numbers.Real) and 0 <= tol < math.inf):
            raise UsageError(
                "eval.rtol", "a relative tolerance must be a finite number >= 0, got {value!r}.", value=tol
            )
        mine, theirs = (_series(r, kind, quantity) for r in (a, b))
        common = sorted(set(mine) & set(theirs))
        first = next((s for s in common if relative_difference(mine[s], theirs[s]) > tol), None)
        found.append(
            Divergence(
                quantity,
                float(tol),
                len(common),
                first,
                mine[first] if first is not None else None,
                theirs[first] if first is not None else None,
            )
        )
    return found


def _series(records: list[dict], kind: str, quantity: str) -> dict[int, float]:
    """step -> value of one quantity (the last record of a step wins: a resumed run rewrote it)."""
    return {
        r["step"]: float(r[quantity])
        for r in records
        if r.get("kind") == kind and isinstance(r.get(quantity), (int, float)) and not isinstance(r[quantity], bool)
    }
