"""The package's import graph: no cycles, and every import points down the layer map of
docs/architecture.md. Function-level imports count too (a lazy import is still a dependency)."""

from __future__ import annotations

import ast
from pathlib import Path

import glassformer

PACKAGE = Path(glassformer.__file__).parent

# lower number = lower layer; a module may import its own layer or any lower one
LAYERS = {
    "glassformer": 0,
    "glassformer.config": 0,
    "glassformer.files": 0,
    "glassformer.threads": 0,
    "glassformer.errors": 0,
    "glassformer.devices": 0,
    "glassformer.messages": 0,
    "glassformer.text": 1,
    "glassformer.nn": 1,
    "glassformer.numpy_ref": 1,
    "glassformer.models": 2,
    "glassformer.train": 3,
    "glassformer.inspect": 3,
    "glassformer.sample": 3,
    "glassformer.translate": 3,
    "glassformer.lessons": 4,
    "glassformer.lab": 4,
    "glassformer.exercises": 4,
    "glassformer.explore": 4,
    "glassformer.cli": 5,
    "glassformer.__main__": 5,
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> int:
    while module not in LAYERS:
        assert "." in module, f"{module} is in no layer of the map: add it to LAYERS and docs/architecture.md"
        module = module.rsplit(".", 1)[0]
    return LAYERS[module]


def imports(path: Path, module: str) -> set[str]:
    """Every glassformer module `path` imports, as written (absolute, relative resolved)."""
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("glassformer")}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else [])
                )
            if base.startswith("glassformer"):
                # `from glassformer.nn import attention` imports the submodule if there is one
                for a in node.names:
                    sub = f"{base}.{a.name}"
                    found.add(
                        sub
                        if (PACKAGE.parent / (sub.replace(".", "/") + ".py")).exists()
                        or (PACKAGE.parent / sub.replace(".", "/")).is_dir()
                        else base
                    )
    return found


def graph() -> dict[str, set[str]]:
    return {module_name(p): imports(p, module_name(p)) for p in PACKAGE.rglob("*.py")}


def upward_imports(g: dict[str, set[str]]) -> list[str]:
    return [
        f"{m} (layer {layer(m)}) imports {d} (layer {layer(d)})"
        for m, deps in g.items()
        for d in deps
        if layer(d) > layer(m)
    ]


def find_cycles(g: dict[str, set[str]]) -> list[str]:
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    cycles = []

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for d in sorted(g.get(m, ())):
            if state.get(d) == 1:
                cycles.append(" -> ".join(path[path.index(d) :] + [d]))
            elif d not in state:
                visit(d, path + [d])
        state[m] = 2

    for m in sorted(g):
        if m not in state:
            visit(m, [m])
    return cycles


def test_every_import_points_down_the_layer_map():
    upward = upward_imports(graph())
    assert not upward, "imports that point up the layer map:\n" + "\n".join(upward)


def test_the_import_graph_has_no_cycles():
    cycles = find_cycles(graph())
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_the_checks_can_fail():
    """A planted upward import and a planted cycle are both reported."""
    assert upward_imports({"glassformer.nn.attention": {"glassformer.train.loop"}}) == [
        "glassformer.nn.attention (layer 1) imports glassformer.train.loop (layer 3)"
    ]
    cycle = {"glassformer.nn.a": {"glassformer.nn.b"}, "glassformer.nn.b": {"glassformer.nn.a"}}
    assert find_cycles(cycle) == ["glassformer.nn.a -> glassformer.nn.b -> glassformer.nn.a"]
    assert find_cycles({"glassformer.nn.a": {"glassformer.nn.b"}, "glassformer.nn.b": set()}) == []
