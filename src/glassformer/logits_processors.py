"""The knobs against repetition: functions that reshape one step's logits before a token is drawn.

Each takes the next-token logits (B, V) — and, for the penalties, the ids written so far (B, T) —
and returns new logits (B, V); a token a filter removes gets -inf, so softmax gives it exactly 0.
Each is equal, logit for logit, to transformers' processor of the same name where it has one
(tests/reference/test_logits_processors_vs_hf.py); docs/repetition.md gives the definitions.

    repetition_penalty   z_i / θ if z_i > 0, z_i · θ if z_i < 0, for every token i already in ids
                         (Keskar et al. 2019, CTRL; the sign rule is transformers')
    frequency_presence   z_i − α_f · c_i − α_p · [c_i > 0], c_i = count of i in ids  (OpenAI's API)
    no_repeat_ngram      -inf for every token that would complete an n-gram ids already hold
                         (Paulus et al. 2018, trigram blocking)
    min_p_filter         -inf where p_i < min_p · max_j p_j                  (Nguyen et al. 2024)
    typical_filter       keep the tokens whose surprise −log p_i is closest to the entropy H,
                         until their mass reaches τ                         (Meister et al. 2023)

`Knobs` holds one setting of all of them. Like transformers' `generate`, the penalties act on the
raw logits (before temperature, and in greedy decoding too: `Knobs.penalize`), the filters after
temperature, top-k and top-p (`Knobs.cut`): min-p and typical depend on the temperature.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import torch

from glassformer.errors import UsageError

NEG_INF = float("-inf")


# ---- the checks (one per knob; the functions and Knobs share them) ---------------------------------
def check_repetition_penalty(penalty: float) -> None:
    if not (isinstance(penalty, numbers.Real) and 0 < penalty < math.inf):
        raise UsageError(
            "sample.repetition_penalty",
            "repetition_penalty must be a finite number > 0 (1 = off; "
            "above 1 makes a token already written less likely), got "
            "{value}",
            value=penalty,
        )


def check_additive_penalty(name: str, value: float) -> None:
    if not (isinstance(value, numbers.Real) and math.isfinite(value)):
        raise UsageError(
            "sample.additive_penalty",
            "{name} must be a finite number (0 = off; above 0 makes a token already written less likely), got {value}",
            name=name,
            value=value,
        )


def check_ngram(n: int) -> None:
    if not (isinstance(n, numbers.Integral) and not isinstance(n, bool) and n >= 1):
        raise UsageError(
            "sample.no_repeat_ngram",
            "no_repeat_ngram must be a whole number >= 1, the length of "
            "the n-grams that may not appear twice (1 forbids writing "
            "any token twice), got {value!r}",
            value=n,
        )


def check_min_p(min_p: float) -> None:
    if not (isinstance(min_p, numbers.Real) and 0 <= min_p <= 1):
        raise UsageError(
            "sample.min_p",
            "min_p must be in [0, 1]: a token is kept if its probability "
            "is at least min_p times the most likely token's (0 = off), "
            "got {value}",
            value=min_p,
        )


def check_typical_p(mass: float) -> None:
    if not (isinstance(mass, numbers.Real) and 0 < mass <= 1):
        raise UsageError(
            "sample.typical_p",
            "typical_p must be in (0, 1]: the probability mass the most typical tokens keep (1 = off), got {value}",
            value=mass,
        )


# ---- penalties: they read the text so far ----------------------------------------------------------
def repetition_penalty(logits: torch.Tensor, ids: torch.Tensor, penalty: float) -> torch.Tensor:
    """(B, V) logits, (B, T) ids -> (B, V): every token already in its row's ids made less likely.

    CTRL divides the logit of a seen token by θ; divided, a negative logit would grow, and the
    token would become *more* likely, so (as transformers does) a negative logit is multiplied by
    θ instead. θ = 1 changes nothing; θ < 1 rewards repeats. -inf stays -inf.
    """
    check_repetition_penalty(penalty)
    seen = torch.zeros_like(logits, dtype=torch.bool).scatter_(1, ids, True)  # (B, V) token i is in ids
    lowered = torch.where(logits < 0, logits * penalty, logits / penalty)  # (B, V) every logit, penalised
    return torch.where(seen, lowered, logits)  # (B, V)


def token_counts(logits: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
    """(B, V) logits, (B, T) ids -> (B, V): how many times each token occurs in its row's ids."""
    ones = torch.ones_like(ids, dtype=logits.dtype)  # (B, T)
    return torch.zeros_like(logits).scatter_add_(1, ids, ones)  # (B, V)


def frequency_presence(logits: torch.Tensor, ids: torch.Tensor, frequency: float, presence: float) -> torch.Tensor:
    """(B, V) logits, (B, T) ids -> (B, V): z_i − frequency · c_i − presence · [c_i > 0].

    OpenAI's two penalties, subtracted from the logits: the frequency penalty grows with every
    repeat of a token, the presence penalty is paid once by any token that has appeared. 0 is off;
    negative values reward repeats. transformers has no processor for them.
    """
    check_additive_penalty("frequency_penalty", frequency)
    check_additive_penalty("presence_penalty", presence)
    counts = token_counts(logits, ids)  # (B, V)
    return logits - frequency * counts - presence * (counts > 0).to(logits.dtype)  # (B, V)


def no_repeat_ngram(logits: torch.Tensor, ids: torch.Tensor, n: int) -> torch.Tensor:
    """(B, V) logits, (B, T) ids -> (B, V): -inf for every token that would make an n-gram the row
    already holds appear a second time.

    The last n − 1 ids are the start of the n-gram the next token completes; wherever those same
    n − 1 ids occurred earlier, the token that followed them there is banned. n = 1 bans every
    token already written.
    """
    check_ngram(n)
    B, T = ids.shape
    if T < n:
        return logits  # no n-gram is complete yet: nothing can repeat one
    grams = ids.unfold(1, n, 1)  # (B, T-n+1, n) every n-gram of each row
    start = ids[:, T - n + 1 :]  # (B, n-1) what the next token would complete
    same_start = (grams[:, :, : n - 1] == start[:, None, :]).all(dim=-1)  # (B, T-n+1)
    rows, where = same_start.nonzero(as_tuple=True)  # (M,), (M,) every earlier n-gram with that start
    banned = torch.zeros_like(logits, dtype=torch.bool)  # (B, V)
    banned[rows, grams[rows, where, n - 1]] = True  # (B, V) its last token may not follow again
    return logits.masked_fill(banned, NEG_INF)  # (B, V)


# ---- filters: they read only the distribution -----------------------------------------------------
def min_p_filter(logits: torch.Tensor, min_p: float) -> torch.Tensor:
    """(B, V) -> (B, V): -inf for every token less likely than min_p times the most likely one.

    The cut follows the model's confidence: a peaked distribution keeps few tokens, a flat one
    many. min_p = 0 keeps all; min_p = 1 keeps only the most likely token (and its ties).
    """
    check_min_p(min_p)
    probs = logits.softmax(dim=-1)  # (B, V)
    floor = min_p * probs.max(dim=-1, keepdim=True).values  # (B, 1)
    return logits.masked_fill(probs < floor, NEG_INF)  # (B, V)


def typical_filter(logits: torch.Tensor, mass: float) -> torch.Tensor:
    """(B, V) -> (B, V): locally typical sampling's filtering step.

    Rank the tokens by |−log p_i − H|, how far each one's surprise is from the expected surprise
    (the entropy H), and keep the smallest such set whose probability reaches `mass` (tokens tied
    with the last one kept are kept too). The most likely token may be dropped: it can be too
    unsurprising. mass = 1 keeps all.
    """
    check_typical_p(mass)
    if mass >= 1:
        return logits  # all the mass: everything is kept (and a rounded cumsum cannot drop the tail)
    logp = logits.log_softmax(dim=-1)  # (B, V)
    probs = logp.exp()  # (B, V)
    entropy = -(probs * logp).nansum(dim=-1, keepdim=True)  # (B, 1); a -inf logit's 0 · -inf is skipped
    distance = (-logp - entropy).abs()  # (B, V) |surprise − expected surprise|
    ranked, order = distance.sort(dim=-1)  # (B, V), (B, V) most typical first
    reached = probs.gather(-1, order).cumsum(dim=-1)  # (B, V) mass of the first i+1 ranked tokens
    n_keep = (reached < mass).sum(dim=-1, keepdim=True) + 1  # (B, 1) the first index where mass is reached, + 1
    last = ranked.gather(-1, n_keep.clamp(max=logits.size(-1)) - 1)  # (B, 1) distance of the last kept
    return logits.masked_fill(distance > last, NEG_INF)  # (B, V)


# ---- one setting of every knob ---------------------------------------------------------------------
@dataclass(frozen=True)
class Knobs:
    """One setting of the repetition knobs. Every default is the value at which its knob does nothing,
    so `Knobs()` leaves the logits as they are."""

    repetition_penalty: float = 1.0  # θ = 1: x / 1 = x (CTRL suggests about 1.2 to discourage repeats)
    frequency_penalty: float = 0.0  # 0: nothing subtracted
    presence_penalty: float = 0.0  # 0: nothing subtracted
    no_repeat_ngram: int | None = None  # None: no n-gram is banned
    min_p: float = 0.0  # 0: the floor is 0, every token is kept
    typical_p: float = 1.0  # 1: all the mass, every token is kept

    def __post_init__(self) -> None:
        check_repetition_penalty(self.repetition_penalty)
        check_additive_penalty("frequency_penalty", self.frequency_penalty)
        check_additive_penalty("presence_penalty", self.presence_penalty)
        if self.no_repeat_ngram is not None:
            check_ngram(self.no_repeat_ngram)
        check_min_p(self.min_p)
        check_typical_p(self.typical_p)

    def penalize(self, logits: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        """(B, V) raw logits, (B, T) the ids so far -> (B, V): the penalties, in transformers' order
        (repetition penalty, then no-repeat-n-gram; the additive penalties between them, as vLLM does)."""
        if self.repetition_penalty != 1:
            logits = repetition_penalty(logits, ids, self.repetition_penalty)  # (B, V)
        if self.frequency_penalty or self.presence_penalty:
            logits = frequency_presence(logits, ids, self.frequency_penalty, self.presence_penalty)  # (B, V)
        if self.no_repeat_ngram is not None:
            logits = no_repeat_ngram(logits, ids, self.no_repeat_ngram)  # (B, V)
        return logits

    def cut(self, logits: torch.Tensor) -> torch.Tensor:
        """(B, V) logits after temperature, top-k and top-p -> (B, V): min-p, then typical (transformers' order)."""
        if self.min_p > 0:
            logits = min_p_filter(logits, self.min_p)  # (B, V)
        if self.typical_p < 1:
            logits = typical_filter(logits, self.typical_p)  # (B, V)
        return logits
