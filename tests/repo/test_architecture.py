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
    "glassformer.errors": 0,
    "glassformer.devices": 0,
    "glassformer.messages": 0,
    "glassformer.text": 1,
    "glassformer.fonts": 1,
    "glassformer.nn": 1,
    "glassformer.numpy_ref": 1,
    "glassformer.models": 2,
    "glassformer.train": 3,
    "glassformer.causal": 3,
    "glassformer.inspect": 3,
    "glassformer.sample": 3,
    "glassformer.logits_processors": 3,
    "glassformer.evaluation": 3,
    "glassformer.eval_card": 3,
    "glassformer.translate": 3,
    "glassformer.post": 3,
    "glassformer.lessons": 4,
    "glassformer.lab": 4,
    "glassformer.exercises": 4,
    "glassformer.explore": 4,
    "glassformer.cli": 5,
    "glassformer.__main__": 5,
}


def module_name(path: Path, root: Path = PACKAGE) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> int:
    while module not in LAYERS:
        assert "." in module, f"{module} is in no layer of the map: add it to LAYERS and docs/architecture.md"
        module = module.rsplit(".", 1)[0]
    return LAYERS[module]


def _ancestors(name: str) -> set[str]:
    parts = name.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def imports(path: Path, module: str, root: Path = PACKAGE) -> set[str]:
    """Every module of the package that importing `path` runs, as Python runs it (relative imports
    resolved). Three kinds of edge:

    - the module named: `import a.b`, `from a.b import x`, `from . import x`;
    - a package named in `from P import x` is an edge to P's __init__ even when x is a submodule
      (`from . import stream` inside P reads P's namespace while P's __init__ may still be running);
    - the packages above a named module, whose __init__ files run first (`from a.b.c import x` runs
      a/b/__init__.py), except the packages that hold `path` itself: those are already running.
    """
    top = root.name
    own = _ancestors(module) | ({module} if path.name == "__init__.py" else set())
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]

    def is_module(name: str) -> bool:
        file = root.parent / name.replace(".", "/")
        return file.with_suffix(".py").exists() or (file / "__init__.py").exists()

    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        named = []
        if isinstance(node, ast.Import):
            named = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            named = [base, *(f"{base}.{a.name}" for a in node.names if is_module(f"{base}.{a.name}"))]
        for name in named:
            if name == top or name.startswith(top + "."):
                found |= {name, *(a for a in _ancestors(name) if a not in own)}
    found.discard(module)
    return found


def graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    return {module_name(p, root): imports(p, module_name(p, root), root) for p in root.rglob("*.py")}


def upward_imports(g: dict[str, set[str]]) -> list[tuple[str, int, str, int]]:
    """Each import of a higher layer: (module, its layer, what it imports, that layer)."""
    return [(m, layer(m), d, layer(d)) for m, deps in g.items() for d in deps if layer(d) > layer(m)]


def find_cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Each cycle as the modules along it, the first repeated at the end."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    cycles = []

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for d in sorted(g.get(m, ())):
            if state.get(d) == 1:
                cycles.append(path[path.index(d) :] + [d])
            elif d not in state:
                visit(d, path + [d])
        state[m] = 2

    for m in sorted(g):
        if m not in state:
            visit(m, [m])
    return cycles


def test_every_import_points_down_the_layer_map():
    upward = upward_imports(graph())
    assert not upward, "imports that point up the layer map:\n" + "\n".join(
        f"{m} (layer {lm}) imports {d} (layer {ld})" for m, lm, d, ld in upward
    )


def test_the_import_graph_has_no_cycles():
    cycles = find_cycles(graph())
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_the_checks_can_fail():
    """A planted upward import and a planted cycle are both reported."""
    assert upward_imports({"glassformer.nn.attention": {"glassformer.train.loop"}}) == [
        ("glassformer.nn.attention", 1, "glassformer.train.loop", 3)
    ]
    cycle = {"glassformer.nn.a": {"glassformer.nn.b"}, "glassformer.nn.b": {"glassformer.nn.a"}}
    assert find_cycles(cycle) == [["glassformer.nn.a", "glassformer.nn.b", "glassformer.nn.a"]]
    assert find_cycles({"glassformer.nn.a": {"glassformer.nn.b"}, "glassformer.nn.b": set()}) == []


def test_a_cycle_through_a_package_init_is_seen(tmp_path):
    """The cycle of issue 29: a module reads its own package (`from . import x`, `from pkg import y`)
    while that package's __init__ imports the module. Every edge of it runs through __init__.py."""
    pkg = tmp_path / "demo"
    (pkg / "text").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "text" / "__init__.py").write_text("from .corpora import load\n")
    (pkg / "text" / "stream.py").write_text("X = 1\n")
    (pkg / "text" / "corpora.py").write_text("from . import stream\n\ndef load():\n    return stream.X\n")
    assert find_cycles(graph(pkg)) == [["demo.text", "demo.text.corpora", "demo.text"]]
    # the same module importing the submodule by its own name reads no package namespace: no cycle
    (pkg / "text" / "corpora.py").write_text("from .stream import X\n\ndef load():\n    return X\n")
    assert find_cycles(graph(pkg)) == []
    # a module outside the package runs the package's __init__ first: an edge to demo.text
    (pkg / "cli.py").write_text("from demo.text.stream import X\n")
    assert graph(pkg)["demo.cli"] == {"demo.text", "demo.text.stream"}


def test_every_kind_is_one_level_below_the_gpt():
    """Issues 24 and 42: the GPT is the base, GPT -> HookedModel -> nn.Module, and every other kind
    is one level below it, overriding only what differs."""
    from glassformer.models import MODEL_KINDS
    from glassformer.models.gpt import GPT
    from glassformer.nn.hooks import HookedModel

    assert [c for c in GPT.__mro__ if c.__module__.startswith("glassformer")] == [GPT, HookedModel]
    for kind in ("encoder", "regressor", "seq2seq"):
        cls = MODEL_KINDS[kind]
        chain = [c for c in cls.__mro__ if c.__module__.startswith("glassformer")]
        assert chain == [cls, GPT, HookedModel], kind


def test_one_gpt_forward_reads_the_model_file_the_attention_and_the_hook_call():
    """Issue 42: one GPT forward (bench/forward_span.py's count, glass path) runs three files: the
    model (embedding, positions, block, GPT), the attention, and the hook point's call; the model
    file stays one sitting long."""
    import sys
    from dataclasses import replace

    from glassformer.config import get_preset
    from glassformer.models import build_model

    sys.path.insert(0, str(PACKAGE.parents[1] / "bench"))
    try:
        import forward_span
    finally:
        sys.path.pop(0)
    model = build_model(replace(get_preset("baby").model, dropout=0.0)).eval()
    ids = model.example_input(1, 8)
    model(ids)  # first-call work (lazy imports) is not the forward
    seen = forward_span.span(model, (ids,))
    assert {f for f, _ in seen} == {"models/gpt.py", "nn/attention.py", "nn/hooks.py"}
    assert len(seen) <= 13, sorted(fn for _, fn in seen)  # as measured (issue 42 asks for 12)
    assert len((PACKAGE / "models" / "gpt.py").read_text(encoding="utf-8").splitlines()) <= 400


def self_reads_and_writes(cls: type) -> tuple[set[str], set[str]]:
    """The `self.NAME` attributes that the methods written in `cls`'s own body read, and those they
    assign (including `self.a, self.b = ...`)."""
    import inspect
    import textwrap

    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    reads, writes = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            (writes if isinstance(node.ctx, ast.Store) else reads).add(node.attr)
    return reads, writes


def unmade_attributes(cls: type) -> set[str]:
    """What `cls`'s methods read from self that neither its own methods make nor a class of its MRO
    defines: attributes only a subclass can supply, the implicit contract issue 24 names."""
    from torch import nn

    reads, writes = self_reads_and_writes(cls)
    module = set(dir(nn.Module()))  # what torch's Module makes on every instance (training, ...)
    return {name for name in reads - writes - module if not any(name in vars(c) for c in cls.__mro__)}


def model_bases() -> list[type]:
    """Every class of nn/ and models/ that another class of the package subclasses."""
    import importlib
    import inspect

    classes = []
    for path in sorted((PACKAGE / "nn").glob("*.py")) + sorted((PACKAGE / "models").glob("*.py")):
        module = importlib.import_module(module_name(path))
        classes += [c for c in vars(module).values() if inspect.isclass(c) and c.__module__ == module.__name__]
    return [c for c in classes if any(sub.__module__.startswith("glassformer") for sub in c.__subclasses__())]


def test_a_shared_base_reads_only_attributes_it_makes_itself():
    """Issue 24 item 1: no method that only a subclass's attribute makes work. AttentionHeads read
    proj and six hook points that each subclass declared (annotations stood in for them); it now makes
    them in `build_heads`. GPT makes every end and hook point its forward reads."""
    from glassformer.models.gpt import GPT
    from glassformer.nn.attention import AttentionHeads

    bases = model_bases()
    assert {AttentionHeads, GPT} <= set(bases)
    assert {base.__name__: unmade_attributes(base) for base in bases} == {base.__name__: set() for base in bases}


def test_the_attribute_check_sees_an_attribute_only_a_subclass_makes():
    from torch import nn

    class Base(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.made, self.also = 1, 2

        def forward(self, x):
            return self.hook(x) + self.made + self.also + self.training

    assert unmade_attributes(Base) == {"hook"}


def test_the_glass_attention_reads_nothing_back_and_asks_nothing_of_the_compiler():
    """Issue 42 item 6: torch.compile's branches sit on the fused path (nn/fused_attention.py), not in
    the hand-written attention; its dead-row softmax takes the same steps for every mask, so a
    compiled glass model is one graph without asking (tests/reference/test_compiled_path.py)."""
    source = (PACKAGE / "nn" / "attention.py").read_text(encoding="utf-8")
    assert "is_compiling" not in source and ".all()" not in source
