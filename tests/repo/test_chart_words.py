"""No chart types its words in code: every title, axis label, legend entry, tick label and annotation of
the lab's, the lessons' and the inspect views' figures comes from the catalogue (t(...), nar.text(...)),
so a chart reads in the user's language. A literal may still hold a name or a formula ("mask={mask}",
"x"): what it may not hold is a word (two letters or more) outside a {field} and a `name=`."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import glassformer

PACKAGE = Path(glassformer.__file__).parent
# charts whose words move to the catalogue in their own change (issue 27 item 8, other hands)
PENDING: set[str] = set()
FILES = sorted(
    p
    for p in [*(PACKAGE / "lab").glob("*.py"), *(PACKAGE / "lessons").glob("*.py"), *(PACKAGE / "inspect").glob("*.py")]
    if str(p.relative_to(PACKAGE)) not in PENDING
) + [PACKAGE / "train" / "record.py"]
DRAWS = {"set_title", "set_xlabel", "set_ylabel", "suptitle", "set_label", "text", "annotate", "set_text"}
TICKS = {"set_xticks", "set_yticks", "set_xticklabels", "set_yticklabels"}  # their labels: the 2nd argument
WORD = re.compile(r"[A-Za-z]{2,}")


def literals(node: ast.AST):
    """The string constants of an expression, not entering calls (what a call returns is the call's)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node
    elif isinstance(node, ast.JoinedStr):
        yield from (v for v in node.values if isinstance(v, ast.Constant))
    elif isinstance(node, (ast.BinOp, ast.IfExp, ast.BoolOp, ast.Tuple, ast.List, ast.ListComp, ast.DictComp)):
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, ast.comprehension):
                yield from literals(child)


def drawn(node: ast.Call) -> list[ast.AST]:
    """The arguments of a matplotlib call that end up as words on the picture."""
    name = getattr(node.func, "attr", "")
    out = [k.value for k in node.keywords if k.arg == "label"]
    if name in DRAWS:
        out += node.args[2:3] if name == "text" else node.args[:1]  # ax.text(x, y, s)
    if name in TICKS:
        out += node.args[1:2] if name.endswith("ticks") else node.args[:1]
    return out


def typed_words(path: Path, root: Path = PACKAGE) -> list[str]:
    """`file:line: 'literal'` for every literal word a chart call in `path` draws."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            for arg in drawn(node):
                for lit in literals(arg):
                    if WORD.search(re.sub(r"\w+=", "", lit.value)):
                        found.append(f"{path.relative_to(root)}:{lit.lineno}: {lit.value!r}")
    return found


def test_no_chart_types_its_words():
    assert len(FILES) > 30
    assert [w for path in FILES for w in typed_words(path)] == []


def test_the_rule_can_fail(tmp_path):
    planted = tmp_path / "chart.py"
    planted.write_text(
        'ax.set_title(f"step {s}")\nax.plot(x, label="train" if a else t("k"))\nax.text(0, 1, "note")\n'
        'ax.set_xticks(r, [f"mask={m}" for m in ms])\nax.set_ylabel(t("k"))\nax.plot(y, label=f"mask={m}")\n'
        'ax.set_xticks(r, [f"layer {n}" for n in ns])\n'
    )
    found = [w.split(": ", 1)[1] for w in typed_words(planted, tmp_path)]
    assert found == ["'step '", "'train'", "'note'", "'layer '"]


def test_a_causal_view_s_png_draws_its_chinese_words_with_every_glyph(tmp_path, monkeypatch):
    """The causal views' grids carry words the catalogue made (title, row and column names): their PNG
    draws them as given, in Chinese too, with no glyph missing."""
    import warnings

    import torch
    from matplotlib.figure import Figure

    from glassformer.config import ModelConfig
    from glassformer.inspect.causal_views import attribution_view, grid_png
    from glassformer.messages import speaking
    from glassformer.models import build_model
    from glassformer.text import CharTokenizer

    tok = CharTokenizer.from_text("the cat sat")
    cfg = ModelConfig(kind="gpt", vocab_size=tok.vocab_size, d_model=16, n_heads=2, d_ff=32, n_layers=1, max_len=16)
    model = build_model(cfg).eval()
    ids = torch.tensor([tok.encode("the cat")])  # (1, T)
    figs = []
    real = Figure.savefig
    monkeypatch.setattr(Figure, "savefig", lambda fig, *a, **k: (figs.append(fig), real(fig, *a, **k))[1])
    grids = {}
    for lang in ("en", "zh"):  # the library's own grid, its words made in each language
        with speaking(lang):
            grids[lang] = attribution_view(model, tok, ids, tok.encode("s")[0], None)
    grid = grids["zh"]
    with speaking("zh"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            grid_png(grid, tmp_path / "g.png")
    assert not [w for w in caught if "Glyph" in str(w.message)]  # matplotlib's "Glyph N missing from font(s)"
    ax = figs[0].axes[0]
    chinese = re.compile("[\u4e00-\u9fff]")
    assert ax.get_title() == grid.title != grids["en"].title and chinese.search(grid.title)
    assert chinese.search(grid.rows[-1]) and chinese.search(grid.columns[0])  # the bias row, the column: words
    assert [s.get_text() for s in ax.get_yticklabels()] == grid.rows
    assert [s.get_text() for s in ax.get_xticklabels()] == grid.columns
