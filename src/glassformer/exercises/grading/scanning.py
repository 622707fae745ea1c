"""Scanning a learner's file for forbidden shortcuts, by walking its syntax tree (never by running it).

    scan(path, rules)   -> [Offence]   in the file and in the learner's own files it imports

A rule names functions the exercise is about (softmax in the softmax exercise, PyTorch's fused
attention in the attention ones, ...). The learner's code may not reach such a name as an
attribute (torch.softmax(x), F.softmax(x), x.softmax(-1)), imported from a library (from
torch.nn.functional import softmax), or looked up by its name (getattr(torch, "softmax"),
vars(F)["softmax"]). Defining a function of that name is fine (the learner writes `def softmax`),
and so is calling the learner's OWN files: `from attention import scaled_dot_product_attention`
reads the file attention.py beside theirs, which is scanned with the same rules. Comments and
docstrings are never refused. Three checks hold in every exercise: no glassformer (it is what the
answer is graded against), no dynamic code, no star imports; and nothing reaches the grader's
guard (INTERNALS), which the sandbox also refuses at run time (sandbox.Guard).
"""

from __future__ import annotations

import ast
from pathlib import Path

from glassformer.exercises.catalog import Rule
from glassformer.exercises.grading.reading import read_source
from glassformer.exercises.grading.report import Offence
from glassformer.messages import N_

# in every exercise: no glassformer import, no dynamic code, no star import from a library
DYNAMIC = ("exec", "eval", "compile", "__import__")


# ... and nothing that reaches the grader's guard (sandbox.Guard): torch's C internals, where the
# torch-function mode is disabled or popped, and a function's insides, where its rules are kept
INTERNALS = Rule(
    (
        "_C",
        "overrides",
        "_python_dispatch",
        "DisableTorchFunction",
        "DisableTorchFunctionSubclass",
        "_DisableTorchDispatch",
        "_pop_mode",
        "_push_mode",
        "_pop_mode_temporarily",
        "_get_current_function_mode_stack",
        "_get_current_dispatch_mode_stack",
        "__closure__",
        "cell_contents",
        "__code__",
        "__globals__",
        "__defaults__",
        "__kwdefaults__",
        "__torch_function__",
        "__torch_dispatch__",
        "__builtins__",
        "__subclasses__",
    ),
    N_(
        "torch's internals (torch._C, torch.overrides) or a "
        "function's insides (__closure__, __code__): they reach the "
        "grader's own checks, which your code may not switch off."
    ),
)


class _Scanner(ast.NodeVisitor):
    def __init__(self, file: str, rules: tuple[Rule, ...], siblings: set[str]) -> None:
        self.file, self.siblings = file, siblings
        self.why = {name: rule.why for rule in (INTERNALS, *rules) for name in rule.names}
        self.sibling_aliases: set[str] = set()  # names bound to the learner's own modules
        self.offences: list[Offence] = []
        self.imported_siblings: list[str] = []

    def add(self, node: ast.AST, name: str, why: str) -> None:
        offence = Offence(self.file, getattr(node, "lineno", 0), name, why)
        if any((o.line, o.why) == (offence.line, why) and o.name.startswith(name + ".") for o in self.offences):
            return  # torch._C within torch._C.DisableTorchFunction: the same reach, said once
        self.offences.append(offence)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            root = alias.name.split(".")[0]
            inner = [part for part in alias.name.split(".") if part in INTERNALS.names]
            if inner:  # import torch._C as C
                self.add(node, f"import {alias.name}", INTERNALS.why)
            elif root == "glassformer":
                self.add(
                    node,
                    f"import {alias.name}",
                    N_("glassformer itself: it is what your code is graded against; write your own."),
                )
            elif root == "importlib":
                self.add(
                    node,
                    f"import {alias.name}",
                    N_(
                        "dynamic code (exec, eval, __import__, importlib) hides what "
                        "your code calls: write plain calls."
                    ),
                )
            elif root in self.siblings:
                self.sibling_aliases.add(alias.asname or root)
                self.imported_siblings.append(root)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        root = module.split(".")[0]
        if node.level > 0:
            return  # a relative import: the learner's folder is no package, so Python refuses it
        if root in self.siblings:  # the learner's own file: allowed, and scanned in turn
            self.imported_siblings.append(root)
            return
        if root == "glassformer":
            self.add(
                node,
                f"from {module} import ...",
                N_("glassformer itself: it is what your code is graded against; write your own."),
            )
            return
        if root == "importlib":
            self.add(
                node,
                f"from {module} import ...",
                N_("dynamic code (exec, eval, __import__, importlib) hides what your code calls: write plain calls."),
            )
        if any(part in INTERNALS.names for part in module.split(".")):  # from torch._C import ...
            self.add(node, f"from {module} import ...", INTERNALS.why)
            return
        for alias in node.names:
            if alias.name == "*":
                self.add(
                    node,
                    f"from {module} import *",
                    N_(
                        "a star import from a library hides which functions you "
                        "call: import the module (import torch.nn.functional as F)."
                    ),
                )
            elif alias.name in self.why:
                self.add(node, f"from {module} import {alias.name}", self.why[alias.name])

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in self.why and not (isinstance(node.value, ast.Name) and node.value.id in self.sibling_aliases):
            self.add(node, _dotted(node), self.why[node.attr])
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in DYNAMIC:
            self.add(
                node,
                node.id,
                N_("dynamic code (exec, eval, __import__, importlib) hides what your code calls: write plain calls."),
            )

    def visit_Call(self, node: ast.Call) -> None:  # getattr(F, "softmax")
        if (
            isinstance(node.func, ast.Name)
            and node.func.id == "getattr"
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value in self.why
        ):
            self.add(node, f"getattr(…, {node.args[1].value!r})", self.why[node.args[1].value])
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:  # vars(F)["softmax"]
        if isinstance(node.slice, ast.Constant) and node.slice.value in self.why:
            self.add(node, f"…[{node.slice.value!r}]", self.why[node.slice.value])
        self.generic_visit(node)


def _dotted(node: ast.AST) -> str:
    """torch.nn.functional.softmax as written, or '….softmax' when the left side is an expression."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    parts.append(node.id if isinstance(node, ast.Name) else "…")
    return ".".join(reversed(parts))


def scan(path: Path, rules: tuple[Rule, ...], source: str | None = None) -> list[Offence]:
    """Offences in the learner's file and in the learner's own files it imports (transitively).

    The file must parse (the grader reports syntax errors before calling this); a sibling that
    does not parse is skipped here and fails when it is imported.
    """
    path = Path(path)
    siblings = {p.stem for p in path.parent.glob("*.py")} - {path.stem}
    offences, seen, todo = [], set(), [(path, source)]
    while todo:
        file, text = todo.pop()
        if file in seen:
            continue
        seen.add(file)
        try:
            tree = ast.parse(text if text is not None else read_source(file))  # DamagedFile: not UTF-8
        except (SyntaxError, OSError):
            continue
        scanner = _Scanner(file.name, rules, siblings | {path.stem})
        scanner.visit(tree)
        offences += scanner.offences
        todo += [(path.parent / f"{name}.py", None) for name in scanner.imported_siblings]
    return offences
