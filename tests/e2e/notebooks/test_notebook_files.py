"""The notebooks as files: committed clean (no outputs, no execution counts), one `parameters`
cell first, an English and a Chinese file for each with the same code, nothing fetched from a URL,
and every one described in notebooks/README.md. No kernel is started here."""

import ast
import io
import re
import tokenize

import nbformat
import pytest

from notebook_runner import NOTEBOOKS, parameters_cell

PATHS = sorted(NOTEBOOKS.glob("*.ipynb"))
ENGLISH = [p for p in PATHS if not p.name.endswith(".zh.ipynb")]
CJK = re.compile(r"[\u4e00-\u9fff]")


def chinese_twin(path):
    return path.with_name(path.name.replace(".ipynb", ".zh.ipynb"))


def read(path):
    return nbformat.read(path, as_version=4)


def assigned(source: str) -> list[str]:
    """The names a cell assigns at its top level, in order."""
    return [
        t.id
        for node in ast.parse(source).body
        if isinstance(node, ast.Assign)
        for t in node.targets
        if isinstance(t, ast.Name)
    ]


def test_every_notebook_comes_in_two_languages():
    assert [p.name for p in ENGLISH] == [
        "01_attention_by_hand.ipynb",
        "02_char_gpt.ipynb",
        "03_inside_the_model.ipynb",
        "04_sine_transformer.ipynb",
        "05_lab.ipynb",
        "06_exercises.ipynb",
        "07_causal.ipynb",
        "08_ladder.ipynb",
        "09_post_training.ipynb",
        "10_experts_and_latents.ipynb",
    ]
    assert sorted(PATHS) == sorted(ENGLISH + [chinese_twin(p) for p in ENGLISH])


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.name)
def test_committed_without_outputs(path):
    nb = read(path)
    nbformat.validate(nb)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            assert cell.outputs == [], f"{path.name} cell {i} has outputs: clear them before committing"
            assert cell.execution_count is None, f"{path.name} cell {i} has an execution count"


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.name)
def test_settings_come_first_in_one_parameters_cell(path):
    nb = read(path)
    at = parameters_cell(nb)
    assert at == min(i for i, c in enumerate(nb.cells) if c.cell_type == "code"), (
        "parameters must be the first code cell"
    )
    names = assigned(nb.cells[at].source)
    assert names[0] == "FAST" and "OUT_DIR" in names and "THREADS" in names
    for cell in nb.cells:
        assert not re.search(r"https?://", cell.source), f"{path.name} names a URL: notebooks load nothing"


def code_shape(source: str) -> list[tuple[int, str]]:
    """The code's tokens without comments, and with every string literal reduced to a placeholder:
    what the Chinese and English notebooks must share (their comments and messages are translated)."""
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
            continue
        out.append((tok.type, "STR" if tok.type == tokenize.STRING else tok.string))
    return out


@pytest.mark.parametrize("path", ENGLISH, ids=lambda p: p.name)
def test_the_chinese_notebook_runs_the_same_code(path):
    en, zh = read(path), read(chinese_twin(path))
    assert [c.cell_type for c in en.cells] == [c.cell_type for c in zh.cells]
    at = parameters_cell(en)
    for i, (a, b) in enumerate(zip(en.cells, zh.cells)):
        if a.cell_type != "code":
            assert CJK.search(b.source), f"{chinese_twin(path).name} cell {i} is not translated"
            continue
        if i == at:  # the same settings, in the same order; a default may differ (the corpus, the prompt)
            assert assigned(a.source) == assigned(b.source)
        else:
            assert code_shape(a.source) == code_shape(b.source), f"cell {i} of the two {path.stem} notebooks differs"


def test_the_readme_describes_every_notebook():
    readme = (NOTEBOOKS / "README.md").read_text(encoding="utf-8")
    for path in PATHS:
        assert path.name in readme, f"notebooks/README.md does not mention {path.name}"
