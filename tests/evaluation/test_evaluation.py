"""Bits per byte (evaluation.py) checked by hand: a model that knows nothing scores 8 bits per byte
whatever its tokens are; a character model pays for a Chinese character's 3 bytes at once."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from glassformer.errors import UsageError
from glassformer.evaluation import bits_per_byte, utf8_bytes


def test_utf8_bytes():
    assert (utf8_bytes(""), utf8_bytes("a"), utf8_bytes("你"), utf8_bytes("a你")) == (0, 1, 3, 4)


def test_a_uniform_model_over_the_256_bytes_scores_8_bits_per_byte():
    text = "hello, world"
    targets = torch.tensor(list(text.encode("utf-8")))  # (T,) one token per byte
    logits = torch.zeros(len(targets), 256, dtype=torch.float64)  # (T, 256) uniform
    nll = F.cross_entropy(logits, targets, reduction="sum").item()  # T · ln 256
    assert bits_per_byte(nll, utf8_bytes(text)) == pytest.approx(8.0, abs=1e-12)


def test_a_character_model_on_chinese_pays_for_three_bytes_per_character():
    text = "你好世界"  # 4 characters, 12 bytes
    nll = 4 * math.log(8)  # uniform over 8 characters: 3 bits per character
    assert bits_per_byte(nll, utf8_bytes(text)) == pytest.approx(1.0, abs=1e-12)  # 3 bits / 3 bytes
    # the same per-character loss on ASCII text costs three times as much per byte
    assert bits_per_byte(nll, utf8_bytes("abcd")) == pytest.approx(3.0, abs=1e-12)
    # mixed: "a你", p = 1/2 for each character: 2 bits over 4 bytes
    assert bits_per_byte(2 * math.log(2), utf8_bytes("a你")) == pytest.approx(0.5, abs=1e-12)
    assert bits_per_byte(0.0, 5) == 0.0  # a model sure of every token


@pytest.mark.parametrize(
    "nll, n_bytes, key, value",
    [
        (1.0, 0, "eval.bytes", 0),
        (1.0, -3, "eval.bytes", -3),
        (1.0, 2.5, "eval.bytes", 2.5),
        (-0.5, 4, "eval.nll", -0.5),
        (math.inf, 4, "eval.nll", math.inf),
    ],
)
def test_bad_input_is_refused_with_a_key_and_fields(nll, n_bytes, key, value):
    with pytest.raises(UsageError) as caught:
        bits_per_byte(nll, n_bytes)
    assert (caught.value.key, caught.value.fields) == (key, {"value": value})
