"""Evaluation beyond the loss: figures that compare models across tokenizers.

    bits per byte = (Σ_t −ln p(x_t | x_<t)) / (ln 2 · bytes of the text in UTF-8)

A loss in nats per token depends on what a token is: a character model and a BPE model of the same
text cannot be compared by it. The total negative log-likelihood of the whole text can, and dividing
it by the text's size in UTF-8 bytes (not tokens) and by ln 2 (nats to bits) gives a figure every
tokenizer shares: a model that knows nothing, uniform over the 256 byte values, scores 8 bits per
byte. The Pile's paper (Gao et al. 2020) reports language models this way; nanochat does too.
"""

from __future__ import annotations

import math
import numbers

from glassformer.errors import UsageError


def utf8_bytes(text: str) -> int:
    """The size of the text in UTF-8 bytes (an ASCII character is 1, a Chinese character 3)."""
    return len(text.encode("utf-8"))


def bits_per_byte(nll_nats: float, n_bytes: int) -> float:
    """The summed negative log-likelihood of a text (nats, over every token of it) -> bits per byte.
    n_bytes: the text's UTF-8 byte count (`utf8_bytes`)."""
    if not (isinstance(nll_nats, numbers.Real) and 0 <= nll_nats < math.inf):
        raise UsageError("error.eval.nll", value=nll_nats)
    if not (isinstance(n_bytes, numbers.Integral) and not isinstance(n_bytes, bool) and n_bytes >= 1):
        raise UsageError("error.eval.bytes", value=n_bytes)
    return nll_nats / (math.log(2) * n_bytes)
