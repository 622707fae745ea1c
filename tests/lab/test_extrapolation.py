"""The length-generalisation ledger entry (lab/extrapolation.py): the copy rows, the accuracy it
counts, its two rules on made-up numbers (every level), and its chart's words (and length's)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers import said
from test_charts import catalogues, keeping

from glassformer.lab import extrapolation, length
from glassformer.lab.common import spread
from glassformer.messages import speaking
from glassformer.nn.position import POSITION_SCHEMES
from glassformer.train.data import IGNORE


def test_a_copy_row_is_bos_symbols_sep_symbols_and_only_the_copy_is_a_target():
    V = 5
    x, y = extrapolation.copy_rows([3, 1], V, 9, torch.Generator().manual_seed(0))
    assert x.shape == y.shape == (2, 9)
    a = x[0, 1:4]
    assert x[0, 0] == V and x[0, 4] == V + 1 and (x[0, 5:7] == a[:2]).all() and (x[0, 7:] == V + 2).all()
    assert (y[0, 4:7] == a).all() and (y[0, :4] == IGNORE).all() and (y[0, 7:] == IGNORE).all()
    assert x[1, 0] == V and x[1, 2] == V + 1 and y[1, 2] == x[1, 1] and (y[1] != IGNORE).sum() == 1
    assert ((a >= 0) & (a < V)).all()


class Oracle(torch.nn.Module):
    """Predicts the targets it was given, wrong on the rows in `wrong` (first copied token)."""

    def __init__(self, y: torch.Tensor, V: int, wrong: tuple[int, ...] = ()) -> None:
        super().__init__()
        self.y, self.V, self.wrong = y, V, wrong

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        target = self.y.clamp(min=0).clone()  # (N, W)
        for i in self.wrong:
            first = int((self.y[i] != IGNORE).nonzero()[0])
            target[i, first] = (target[i, first] + 1) % self.V
        return torch.nn.functional.one_hot(target, self.V + 3).float()  # (N, W, V+3)


def test_copy_accuracy_counts_copied_tokens_and_whole_rows():
    V = 6
    x, y = extrapolation.copy_rows([4, 4], V, 9, torch.Generator().manual_seed(1))
    assert extrapolation.copy_accuracy(Oracle(y, V), x, y) == (1.0, 1.0)
    token, rows = extrapolation.copy_accuracy(Oracle(y, V, wrong=(1,)), x, y)
    assert token == pytest.approx(7 / 8) and rows == 0.5


def made_up(beyond: dict[str, list[float]], alibi_2x=(2.10, 2.12), sin_2x=(3.2, 3.3), alibi_in=(2.1, 2.1)) -> dict:
    def band(v):
        return spread(list(v))

    lm = {
        "T": 64,
        "T_eval": 256,
        "variants": {
            "alibi": {"bands": {"in": band(alibi_in), "2x": band(alibi_2x), "far": band(alibi_2x)}},
            "sinusoidal": {"bands": {"in": band((2.15, 2.16)), "2x": band(sin_2x), "far": band(sin_2x)}},
        },
    }
    schemes = {k: {"beyond": spread(v)} for k, v in beyond.items()}
    return {"lm": lm, "copy": {"L": 8, "schemes": schemes}}


NOPE_FIRST = {"none": [0.9, 0.95], "alibi": [0.5, 0.6], "rotary": [0.2, 0.3], "learned": [0.1, 0.2]}


def test_the_alibi_rule_comes_out_every_way():
    v = extrapolation.verdicts(made_up(NOPE_FIRST))["extrapolation.alibi"]
    assert v.level == "holds" and v.figures["near"] == "2.110" and v.figures["sin_near"] == "3.250"
    assert v.figures["T2"] == 128 and v.figures["seeds"] == 2
    rises = made_up(NOPE_FIRST, alibi_2x=(2.5, 2.6))  # more than TOL above its trained band, still below sinusoidal
    assert extrapolation.verdicts(rises)["extrapolation.alibi"].level == "half-true"
    overlap = made_up(NOPE_FIRST, sin_2x=(2.11, 3.3))  # a sinusoidal seed as low as an ALiBi seed
    assert extrapolation.verdicts(overlap)["extrapolation.alibi"].level == "half-true"
    both = made_up(NOPE_FIRST, alibi_2x=(3.3, 3.4))
    assert extrapolation.verdicts(both)["extrapolation.alibi"].level == "fails"


def test_the_nope_rule_needs_every_seed_above_every_other_schemes_seeds():
    v = extrapolation.verdicts(made_up(NOPE_FIRST))["extrapolation.nope"]
    assert v.level == "holds" and v.figures["place"] == 1 and v.figures["n"] == 4
    ranked = [tuple(place.split()) for place in v.figures["ranking"].split(" > ")]  # scheme and score, best first
    assert ranked == [("none", "0.93"), ("alibi", "0.55"), ("rotary", "0.25"), ("learned", "0.15")]
    second = {**NOPE_FIRST, "alibi": [0.97, 0.99]}
    v = extrapolation.verdicts(made_up(second))["extrapolation.nope"]
    assert (
        v.level == "half-true" and v.figures["place"] == 2 and v.figures["beaten"].split(", ") == ["rotary", "learned"]
    )
    tie = {**NOPE_FIRST, "rotary": [0.85, 0.92]}  # overlapping seeds: not a clear difference
    assert extrapolation.verdicts(made_up(tie))["extrapolation.nope"].level == "half-true"
    last = {"none": [0.1, 0.2], "alibi": [0.5, 0.6], "rotary": [0.3, 0.4]}
    v = extrapolation.verdicts(made_up(last))["extrapolation.nope"]
    assert v.level == "fails" and v.figures["beaten"] == "-"


def chart_results(L: int = 3, T: int = 4) -> dict:
    runs = [{"token": list(np.linspace(1, 0.2, 2 * L)), "exact": [0.0] * (2 * L)}]
    copy = {"L": L, "V": 5, "steps": 7, "lengths": list(range(1, 2 * L + 1))}
    copy["schemes"] = {k: {"runs": runs} for k in POSITION_SCHEMES}
    per = [list(np.linspace(2.0, 2.5, 4 * T))]
    lm = {
        "T": T,
        "T_eval": 4 * T,
        "unigram": 3.0,
        "variants": {k: {"per_position": per} for k in ("alibi", "sinusoidal")},
    }
    return {"copy": copy, "lm": lm}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_extrapolation_chart_words_are_the_catalogues(lang, tmp_path):
    drawn: list = []
    with said() as heard, speaking(lang):
        extrapolation.plot(keeping(drawn)(out=tmp_path, fast=True, seeds=1), chart_results())
    ((fig, name),) = drawn
    left, right = fig.axes
    assert name == "extrapolation"
    copy = catalogues([left.get_xlabel(), left.get_ylabel(), left.get_title()], heard, lang)
    assert copy == [{"L": 3}, {}, {"V": 5, "steps": 7, "seeds": 1}]
    assert [s.get_text() for s in left.get_legend().get_texts()] == list(POSITION_SCHEMES)
    lm = catalogues([right.get_xlabel(), right.get_ylabel(), right.get_title()], heard, lang)
    assert lm == [{"T": 4}, {}, {"T": 4, "T_eval": 16}]
    *variants, unigram = [s.get_text() for s in right.get_legend().get_texts()]
    assert variants == ["alibi", "sinusoidal"] and catalogues([unigram], heard, lang) == [{}]


def test_the_length_chart_keeps_its_english_words_from_the_catalogue(tmp_path):
    drawn: list = []
    per = [[2.0] * 8]
    out = {
        "T": 4,
        "T_eval": 8,
        "unigram": 3.0,
        "variants": {
            "learned": {"per_position": [[2.0] * 4 + [float("nan")] * 4], "reach": 4},
            "none": {"per_position": per, "reach": 8},
        },
    }
    labels = {}
    for lang in ("en", "zh"):
        with said() as heard, speaking(lang):
            length.plot(keeping(drawn)(out=tmp_path, fast=True, seeds=1), out)
        ((fig, _),) = drawn
        drawn.clear()
        (ax,) = fig.axes
        labels[lang] = [ax.get_xlabel(), ax.get_ylabel()]
        assert catalogues(labels[lang], heard, lang) == [{"T": 4}, {}]  # the words the committed PNG was drawn with
        learned, none, unigram = [s.get_text() for s in ax.get_legend().get_texts()]
        assert catalogues([learned, unigram], heard, lang) == [{"label": "learned", "reach": 4}, {}]
        assert none == "none"  # a scheme that reaches every position is named alone
    assert labels["zh"][1] != labels["en"][1]
