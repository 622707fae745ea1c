"""Parameter counts as formulas, derived by the parameter table (inspect/params.py) from a model's
leaves (Linear, Embedding, LayerNorm) and its config's letters (nn/hooks.py: LETTERS): e.g. the
packed Q/K/V projection, an nn.Linear(C, 3C), is `C·3C + 3C`.

The table evaluates each formula with the config's sizes and checks it against the parameters'
real `numel`. The tutorials print wrong counts; a formula that disagrees with the code is shown,
never hidden, so this check is a feature.

A formula is written the way a reader writes algebra: `·` or `*` multiplies, a number before a
letter multiplies it (`3C`), `+`, `-` and parentheses work. Nothing else is evaluated: the text is
parsed into an expression tree and only numbers, letters and those operators are allowed.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from glassformer.errors import UsageError


@dataclass(frozen=True)
class ParamFormula:
    """`part`: "" for the declaring module itself, else the path of a child (e.g. "qkv"); every
    parameter under that path is counted against the formula."""

    part: str
    formula: str  # e.g. "C·3C + 3C"
    symbols: dict[str, int] = field(default_factory=dict)  # the values of its letters, e.g. {"C": 64}
    note: str = ""  # a glossary key (`formula.<id>`, messages/glossary.py), or letters ("C -> F")
    fields: dict = field(default_factory=dict)  # what the note's words need ({"table": "tok_embed"})

    def value(self) -> int:
        return evaluate(self.formula, self.symbols)


_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b}


def evaluate(formula: str, symbols: dict[str, int]) -> int:
    """The value of a formula such as "H·3(C·D + D)" for the given letters."""
    text = formula.replace("·", "*").replace("×", "*")
    text = re.sub(r"(\d)\s*(?=[A-Za-z(])", r"\1*", text)  # 3C -> 3*C, 3(…) -> 3*(…)
    text = re.sub(r"\)\s*(?=[A-Za-z0-9(])", ")*", text)  # (…)C -> (…)*C
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError:
        raise UsageError(
            "formula.syntax", "parameter formula {formula!r} is not algebra glassformer can read.", formula=formula
        ) from None

    def walk(node: ast.AST) -> int:
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in symbols:
                raise UsageError(
                    "formula.letter",
                    "parameter formula {formula!r} uses {letter!r}, but its module gives only {letters}.",
                    formula=formula,
                    letter=node.id,
                    letters=sorted(symbols),
                )
            return symbols[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](walk(node.left), walk(node.right))
        raise UsageError(
            "formula.operator",
            "parameter formula {formula!r} may only use whole numbers, letters, +, -, · and parentheses.",
            formula=formula,
        )

    return walk(tree)
