"""Parameter counts as formulas, declared by the module that owns the parameters.

A module with parameters says how many it has, in the letters of nn/hooks.py (LETTERS), beside its code:

    def param_formulas(self):
        return [linear_formula("qkv", "C", "3C", self.bias, "qkv", C=self.d_model),
                linear_formula("proj", "C", "C", self.bias, "proj", C=self.d_model)]

The notes, in words, are glossary entries (`formula.qkv` in messages/glossary.py).

The parameter table (inspect/params.py) walks the module tree, evaluates each formula with the
module's own sizes, and checks it against the parameters' real `numel`. The tutorials print wrong
counts; a formula that disagrees with the code is shown, never hidden, so this check is a feature.

A formula is written the way a reader writes algebra: `·` or `*` multiplies, a number before a
letter multiplies it (`3C`), `+`, `-` and parentheses work. Nothing else is evaluated: the text is
parsed into an expression tree and only numbers, letters and those operators are allowed.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from glassformer.errors import UsageError
from glassformer.messages import TABLES


@dataclass(frozen=True)
class ParamFormula:
    """`part`: "" for the declaring module itself, else the path of a child (e.g. "qkv"); every
    parameter under that path is counted against the formula."""

    part: str
    formula: str  # e.g. "C·3C + 3C"
    symbols: dict[str, int] = field(default_factory=dict)  # the values of its letters, e.g. {"C": 64}
    note: str = ""  # what the part is, in a few words (English)
    zh: str = ""  # the note in Chinese (for a note in words; "C -> F" needs none)

    def value(self) -> int:
        return evaluate(self.formula, self.symbols)


def counted(part: str, formula: str, symbols: dict[str, int] | None = None, note: str = "", **fields) -> ParamFormula:
    """A ParamFormula whose note is the glossary's `formula.<note>` (messages/glossary.py), in
    English and Chinese; no note: "". `fields` fill the note's {fields}."""
    en, zh = (TABLES[lang][f"formula.{note}"].format(**fields) if note else "" for lang in ("en", "zh"))
    return ParamFormula(part, formula, symbols or {}, en, zh)


def linear_formula(
    part: str, n_in: str, n_out: str, bias: bool, note: str = "", symbolic: str = "", **symbols: int
) -> ParamFormula:
    """The count of an nn.Linear(n_in, n_out): a weight matrix, plus one bias per output if bias.
    `note`: a glossary key (`formula.<note>`); `symbolic`: a note in letters only ("C -> F"), the
    same in every language."""
    text = f"{n_in}·{n_out}" + (f" + {n_out}" if bias else "")
    if symbolic:
        return ParamFormula(part, text, symbols, symbolic)
    return counted(part, text, symbols, note)


def layer_norm_formula(part: str, bias: bool, C: int, note: str = "") -> ParamFormula:
    """An nn.LayerNorm over C features: a gain per feature, plus a shift per feature if bias."""
    return ParamFormula(part, "2C" if bias else "C", {"C": C}, note)


_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b}


def evaluate(formula: str, symbols: dict[str, int]) -> int:
    """The value of a formula such as "H·3(C·D + D)" for the given letters."""
    text = formula.replace("·", "*").replace("×", "*")
    text = re.sub(r"(\d)\s*(?=[A-Za-z(])", r"\1*", text)  # 3C -> 3*C, 3(…) -> 3*(…)
    text = re.sub(r"\)\s*(?=[A-Za-z0-9(])", ")*", text)  # (…)C -> (…)*C
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError:
        raise UsageError("error.formula.syntax", formula=formula) from None

    def walk(node: ast.AST) -> int:
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in symbols:
                raise UsageError("error.formula.letter", formula=formula, letter=node.id, letters=sorted(symbols))
            return symbols[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](walk(node.left), walk(node.right))
        raise UsageError("error.formula.operator", formula=formula)

    return walk(tree)
