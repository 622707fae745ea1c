"""Beam search: one search for every model that writes left to right.

Greedy decoding picks the single most likely token each time and cannot take back a choice, so a
likely first token may lead to an unlikely whole. Beam search keeps the k best partial texts of each
row and extends all of them; k = 1 is greedy search. What differs between models is only how the
next token's log-probabilities are read, so the search takes a `Stepper`:

    next_log_probs(ids)  (N, t) the k·B texts so far -> (N, V) log P(next token)
    reorder(rows)        row i continues the old row rows[i] (a cache follows its beam)

translate.py's `Writer` is the encoder–decoder's (the source read once, cross-attention cached);
sample.py's `LanguageModelStepper` is a decoder-only model's. Both searches are `search` below.

Log-probabilities only fall as a text grows, so their raw sum prefers short outputs. Candidates are
ranked by a length-normalised score (Wu et al. 2016, "Google's Neural Machine Translation System", §7):

    score(Y) = log P(Y | X) / lp(Y),     lp(Y) = ((5 + |Y|) / 6)^α      |Y| counts <EOS>

α = 0 ranks by log P itself; a larger α forgives length more. A model with no end token (a
character model writes until it is stopped) gives every beam the same length, so lp changes no
ranking there.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Protocol

import torch

from glassformer.errors import UsageError


@dataclass
class Decoded:
    ids: torch.Tensor  # (B, L) tokens written after the start: the output, its <EOS>, then <PAD>
    log_prob: torch.Tensor  # (B,) log P(ids | start), summed over the tokens written
    score: torch.Tensor  # (B,) what the search ranked by: log_prob / lp(length)
    beams: torch.Tensor | None = None  # (B, k, L) beam search: every beam kept at the end
    beam_scores: torch.Tensor | None = None  # (B, k) their scores
    beam_log_probs: torch.Tensor | None = None  # (B, k) their log P


def length_penalty(length: torch.Tensor, alpha: float) -> torch.Tensor:
    """lp = ((5 + |Y|) / 6)^α: 1 for one token, growing with the length when α > 0."""
    return ((5.0 + length) / 6.0) ** alpha


class Stepper(Protocol):
    def next_log_probs(self, ids: torch.Tensor) -> torch.Tensor: ...

    def reorder(self, rows: torch.Tensor) -> None: ...


def check_settings(beam_width: int, writable: int, alpha: float) -> None:
    """Refuse a beam wider than the tokens a beam may write, or a negative length penalty."""
    if not (isinstance(beam_width, numbers.Integral) and not isinstance(beam_width, bool)) or not (
        1 <= beam_width <= writable
    ):
        raise UsageError(
            "beam.width",
            "beam_width must be a whole number in {low} … {high} (the tokens the model may write), got {value}.",
            low=1,
            high=writable,
            value=beam_width,
        )
    if not alpha >= 0:
        raise UsageError(
            "beam.length_penalty", "the length penalty α must be >= {low}, got {value}.", low=0, value=alpha
        )


@torch.no_grad()
def search(
    stepper: Stepper,
    start: torch.Tensor,
    beam_width: int,
    vocab_size: int,
    max_new_tokens: int,
    length_penalty_alpha: float = 0.6,
    eos_id: int | None = None,
    pad_id: int | None = None,
    dtype: torch.dtype = torch.float32,
) -> Decoded:
    """start (B, T0) ids every beam of a row begins with -> for each row, the best of `beam_width`
    hypotheses by log P / lp(length), max_new_tokens tokens at most. The caller has checked the
    settings (`check_settings`). With an eos_id, a finished hypothesis (it wrote <EOS>) keeps its
    place in the beam, extended by pad_id at no cost, and competes with the live ones on its
    normalised score; without one, every beam writes max_new_tokens tokens."""
    V, k = vocab_size, beam_width
    B, T0, dev = start.size(0), start.size(1), start.device
    # 1) the k beams of a row are k rows of the batch (row b·k + j), all the start at first
    ids = start.repeat_interleave(k, 0)  # (B·k, T0)
    log_prob = torch.zeros(B, k, dtype=dtype, device=dev)  # (B, k) log P of each beam so far
    log_prob[:, 1:] = float("-inf")  # all beams start equal: grow only beam 0 at first
    length = torch.zeros(B, k, dtype=dtype, device=dev)  # (B, k) tokens written, <EOS> included
    done = torch.zeros(B, k, dtype=torch.bool, device=dev)  # (B, k)
    pad_only = torch.full((V,), float("-inf"), dtype=dtype, device=dev)  # (V,)
    if pad_id is not None:
        pad_only[pad_id] = 0.0  # a finished beam's one continuation: <PAD>, probability 1
    for step in range(max_new_tokens):
        # 2) every beam's next-token log-probabilities (finished ones: only <PAD>)
        log_p = stepper.next_log_probs(ids).to(dtype).view(B, k, V)  # (B, k, V)
        log_p = torch.where(done[..., None], pad_only, log_p)  # (B, k, V)
        # 3) the log P and the score of each of the k·V extensions
        total = log_prob[..., None] + log_p  # (B, k, V)
        new_length = torch.where(done, length, torch.full_like(length, step + 1))  # (B, k)
        score = total / length_penalty(new_length, length_penalty_alpha)[..., None]  # (B, k, V)
        # 4) keep the k best extensions of each row, whichever beams they grow from
        _, flat = score.view(B, k * V).topk(k, dim=-1)  # (B, k) indices into beam × token
        origin, token = flat // V, flat % V  # (B, k) the beam each comes from, its new token
        rows = (torch.arange(B, device=dev)[:, None] * k + origin).view(-1)  # (B·k,) rows to continue
        log_prob = total.view(B, k * V).gather(1, flat)  # (B, k)
        length = new_length.gather(1, origin)  # (B, k)
        done = done.gather(1, origin)  # (B, k)
        if eos_id is not None:
            done = done | (token == eos_id)  # (B, k)
        # 5) each new beam continues its origin's past: its tokens and its cached keys/values
        ids = torch.cat([ids[rows], token.view(-1, 1)], dim=1)  # (B·k, t+1)
        stepper.reorder(rows)
        if bool(done.all()):
            break
    # 6) each row's answer: its beam with the best length-normalised score
    beam_scores = log_prob / length_penalty(length, length_penalty_alpha)  # (B, k)
    best = beam_scores.argmax(dim=-1)  # (B,)
    beams = ids[:, T0:].reshape(B, k, -1)  # (B, k, L)
    pick = torch.arange(B, device=dev)  # (B,)
    return Decoded(beams[pick, best], log_prob[pick, best], beam_scores[pick, best], beams, beam_scores, log_prob)
