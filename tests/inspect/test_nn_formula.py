"""Parameter formulas are read as algebra (inspect/formula.py `evaluate`)."""

from __future__ import annotations

import pytest

from glassformer.errors import UsageError
from glassformer.inspect.formula import evaluate


@pytest.mark.parametrize(
    "formula,value",
    [
        ("C·3C + 3C", 4 * 12 + 12),  # 3C means 3·C
        ("H·3(C·D + D)", 2 * 3 * (4 * 2 + 2)),  # 3(…) means 3·(…)
        ("(C + 1)F", 5 * 7),  # (…)F means (…)·F
        ("(C + 1)(F - 1)", 5 * 6),
        ("(C + 1)2", 10),
        ("2d_in + 3d_out", 2 * 5 + 3 * 6),  # lower-case symbols after a number, too
        ("(C + 1)d_out", 5 * 6),
        ("V × C", 9 * 4),
    ],
)
def test_implicit_products_and_symbols(formula, value):
    assert evaluate(formula, {"C": 4, "H": 2, "D": 2, "F": 7, "V": 9, "d_in": 5, "d_out": 6}) == value


def test_what_it_cannot_read_is_named():
    for formula, symbols, code, fields in [
        ("Q + 1", {"C": 1}, "formula.letter", {"formula": "Q + 1", "letter": "Q", "letters": ["C"]}),
        ("C +", {"C": 1}, "formula.syntax", {"formula": "C +"}),  # not algebra
        ("C / 2", {"C": 4}, "formula.operator", {"formula": "C / 2"}),  # only + - · and parentheses
    ]:
        with pytest.raises(ValueError) as e:  # a UsageError: a ValueError to a caller catching that
            evaluate(formula, symbols)
        assert isinstance(e.value, UsageError) and (e.value.code, e.value.fields) == (code, fields)
