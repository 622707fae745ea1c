"""README.zh.md: the same two commands up front, the glossary's key terms, and every file, link,
command and notebook it names exists (a renamed file or verb fails here, not in a reader's hands)."""

import argparse
import re

from helpers import ROOT

from glassformer.cli import build_parser

TEXT = (ROOT / "README.zh.md").read_text(encoding="utf-8")


def commands(text: str) -> list[list[str]]:
    """Each command the text shows, as its argv (a comment left out): every line of its code blocks,
    in order, then every `inline code`."""
    blocks = [line for block in re.findall(r"```\w*\n(.*?)```", text, re.S) for line in block.splitlines()]
    inline = re.findall(r"(?<!`)`([^`\n]+)`(?!`)", text)
    return [line.split("#")[0].split() for line in blocks + inline]


def test_the_quickstart_commands_come_first_and_readme_links_here():
    head = "\n".join(TEXT.splitlines()[:12])
    assert commands(head)[:2] == [["make", "demo"], ["make", "test"]]
    assert "README.zh.md" in "\n".join((ROOT / "README.md").read_text(encoding="utf-8").splitlines()[:5])


def test_the_glossary_has_the_key_terms():
    rows = [line for line in TEXT.splitlines() if line.startswith("| ")]
    for zh, en in [
        ("注意力", "attention"),
        ("残差", "residual"),
        ("层归一化", "LayerNorm"),
        ("位置编码", "positional encoding"),
        ("多头", "multi-head"),
        ("掩码", "mask"),
        ("前馈网络", "feed-forward"),
        ("词元", "token"),
        ("logits", "logits"),
        ("温度", "temperature"),
    ]:
        assert any(zh in row and en in row for row in rows), f"no glossary row pairs {zh} with {en}"


def test_every_file_link_and_notebook_named_exists():
    links = re.findall(r"\]\(([^)#]+)\)", TEXT)
    paths = re.findall(
        r"`((?:src/glassformer|docs|notebooks)/[^`\s]+|(?:nn|text|train|models|lessons|inspect|"
        r"numpy_ref)/[\w./]+\.py)`",
        TEXT,
    )
    assert links and paths
    for name in links:
        assert (ROOT / name).exists(), f"README.zh.md links {name}, which does not exist"
    for name in paths:
        full = ROOT / name if name.startswith(("src/", "docs/", "notebooks/")) else ROOT / "src/glassformer" / name
        assert full.exists(), f"README.zh.md names {name}, which does not exist"
    for number in re.findall(r"笔记本 (0\d)", TEXT):
        assert list((ROOT / "notebooks").glob(f"{number}_*.zh.ipynb")), f"no notebook {number}"


def test_every_command_named_is_a_verb():
    verbs = {
        verb
        for action in build_parser()._actions
        if isinstance(action, argparse._SubParsersAction)
        for verb in action.choices
    }
    for verb in re.findall(r"`glassformer ([a-z-]+)", TEXT):
        assert verb in verbs or verb.replace("-", "_") in verbs, f"README.zh.md names `glassformer {verb}`"


def test_both_readmes_say_how_to_run_what_make_installed_and_show_the_causal_verbs():
    """Issue 44, items 1 and 9: `glassformer` alone is "command not found" in a new shell after
    `make demo`; the causal verbs were in neither README."""
    causal = {"patch", "heads", "attribute"}
    assert causal <= {
        v for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction) for v in a.choices
    }
    for name in ("README.md", "README.zh.md"):
        text = (ROOT / name).read_text(encoding="utf-8")
        assert [".", ".venv/bin/activate"] in commands(text) and ".venv/bin/glassformer" in text, name
        for verb in causal:
            assert re.search(rf"glassformer {verb} RUN\b", text), (name, verb)


def test_the_startup_benchmark_the_readme_names_exists():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    named = re.findall(r"python (bench/\w+\.py)", text)
    assert "bench/cli_startup.py" in named and all((ROOT / n).exists() for n in named)
