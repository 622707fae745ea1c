"""The learner's verbs through the CLI: list, start (never overwrites), check, hint, solution."""

from __future__ import annotations

import ast
import json
import re

import pytest
from helpers import strict_json

from glassformer.cli import main
from glassformer.exercises import catalog, session
from glassformer.exercises.plug import REQUIRED
from glassformer.messages import speaking, t


def words(lang: str, key: str, **fields) -> str:
    """The catalogue's sentence `key` with `fields` in `lang`: what the verbs must print."""
    with speaking(lang):
        return t(key, **fields)


def run(capsys, *argv) -> tuple[int, str]:
    code = main(["exercise", *argv])
    return code, capsys.readouterr().out


def test_start_writes_a_skeleton_and_never_overwrites(tmp_path, capsys):
    folder = tmp_path / "ex"
    code, out = run(capsys, "start", "layer_norm", "--dir", str(folder))
    path = folder / "layer_norm.py"
    assert code == 0 and out.strip() == words(
        "en",
        "Wrote {path}. Fill in the TODO, then run:  glassformer exercise check {name}",
        path=path,
        name="layer_norm",
    )
    source = path.read_text()
    assert "def layer_norm(x, weight, bias, eps=1e-5):" in source
    assert "γ · (x - mean) / √(var + ε) + β" in source and "Shapes: x (..., C)" in source  # the skeleton snapshot
    assert "Not allowed here: layer_norm, LayerNorm" in source and "raise NotImplementedError" in source
    assert words(
        "en",
        "Once it passes (with {required}), `glassformer train "
        "--use-mine DIR` trains a model with your code in place of "
        "{target} (docs/exercises.md).",
        target=catalog.get("layer_norm").plugs_into,
        required=", ".join(REQUIRED),
    ) in " ".join(line.strip() for line in source.splitlines())
    path.write_text(source + "\n# my work\n")
    code, out = run(capsys, "start", "layer_norm", "--dir", str(folder))
    backup = folder / "layer_norm.old.py"
    assert code == 1 and out.strip() == words(
        "en",
        "{path} already exists: nothing was written (your work is "
        "never overwritten). To start over, move it away first, "
        "e.g.  mv {path} {backup}  and run start again.",
        path=path,
        backup=backup,
    )
    assert path.read_text().endswith("# my work\n")


def test_every_skeleton_parses_with_the_graded_signature_in_both_languages():
    for lang in ("en", "zh"):
        for name in catalog.ORDER:
            ex = catalog.get(name)
            tree = ast.parse(session.skeleton_text(ex, lang))
            defs = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
            assert list(defs) == [f.name for f in ex.functions], name
            for f in ex.functions:
                params = [a.arg for a in defs[f.name].args.args]
                assert params == list(f.args), (name, params)
                assert ast.get_docstring(defs[f.name]).startswith(words(lang, f.doc).split("\n")[0])


def test_list_check_solution_and_hints_through_the_cli(tmp_path, capsys, monkeypatch):
    folder = tmp_path / "ex"
    monkeypatch.setenv("GLASSFORMER_LANG", "zh")
    code, out = run(capsys, "list", "--dir", str(folder))
    assert code == 0 and re.search(r"^1 +softmax +未开始 +数值稳定的 softmax$", out, re.M)
    total = len(catalog.ORDER)
    command = "glassformer exercise start softmax"
    assert words("zh", "{passed} of {total} passing. Next: {command}", passed=0, total=total, command=command) in out
    monkeypatch.delenv("GLASSFORMER_LANG")

    # the solution is refused before a passing check
    code, out = run(capsys, "solution", "causal_mask", "--dir", str(folder))
    assert code == 1 and out.strip() == words(
        "en",
        "The solution of {name} is shown once your check passes "
        "(glassformer exercise check {name}). To see it now anyway: "
        "glassformer exercise solution {name} --give-up",
        name="causal_mask",
    )

    # hints: one more per call, then none; --all shows all three
    hints = [run(capsys, "hint", "causal_mask", "--dir", str(folder))[1] for _ in range(4)]
    for k in (1, 2, 3):
        head = words("en", "Hint {k} of {n} for {name}:", k=k, n=3, name="causal_mask")
        hint = catalog.get("causal_mask").hints[k - 1]
        assert hints[k - 1].splitlines()[:2] == [head, "  " + words("en", hint)]
    assert hints[3].strip() == words(
        "en",
        "No more hints for {name}: all three are shown (--all "
        "repeats them). The solution comes after a passing check, or "
        "with  glassformer exercise solution {name} --give-up.",
        name="causal_mask",
    )
    assert run(capsys, "hint", "causal_mask", "--all", "--dir", str(folder))[1].count("Hint ") == 3

    # a wrong file fails (exit code 1), the right one passes and unlocks the solution
    run(capsys, "start", "causal_mask", "--dir", str(folder))
    path = folder / "causal_mask.py"
    path.write_text("import torch\n\ndef causal_mask(T):\n    return torch.triu(torch.ones(T, T, dtype=torch.bool))\n")
    code, out = run(capsys, "check", "causal_mask", "--dir", str(folder))
    assert (
        code == 1
        and "  → "
        + words(
            "en",
            "Your mask lets each query see itself and the FUTURE (upper "
            "triangle). It must be the lower triangle: j <= i.",
        )
        in out.splitlines()
    )
    assert "failing" in run(capsys, "list", "--dir", str(folder))[1]
    path.write_text(catalog.get("causal_mask").solution)
    code, out = run(capsys, "check", "causal_mask", "--dir", str(folder))
    assert code == 0 and words("en", "✓ Passed: all {n} cases.", n=6) in out.splitlines()
    assert "  " + words("en", "Next: {command}", command="glassformer exercise start padding_mask") in out.splitlines()
    code, out = run(capsys, "solution", "causal_mask", "--dir", str(folder))
    assert code == 0 and "def causal_mask(T: int) -> torch.Tensor:" in out

    state = json.loads((folder / session.FILE).read_text())["exercises"]["causal_mask"]
    assert state["status"] == "passed" and state["ever_passed"] and state["hints"] == 3
    listing = run(capsys, "list", "--dir", str(folder))[1]
    row = next(line for line in listing.splitlines() if "causal_mask" in line)
    assert "passing" in row and "edited since" not in row
    path.write_text(path.read_text() + "\n# changed\n")
    row = next(line for line in run(capsys, "list", "--dir", str(folder))[1].splitlines() if "causal_mask" in line)
    assert "passing · edited since" in row


def test_give_up_shows_the_solution_and_is_recorded(tmp_path, capsys):
    folder = tmp_path / "ex"
    folder.mkdir()
    code, out = run(capsys, "solution", "fruit", "--give-up", "--dir", str(folder))
    assert code == 0 and "def fruit_attention(E, W_Q, W_K, W_V):" in out
    assert session.entry(folder, "fruit") == {"gave_up": True}


def test_an_unknown_exercise_or_language_is_a_clear_error(tmp_path, capsys, monkeypatch):
    assert main(["exercise", "start", "layernorm", "--dir", str(tmp_path)]) == 2
    assert "Did you mean 'layer_norm'?" in capsys.readouterr().err
    monkeypatch.setenv("GLASSFORMER_LANG", "fr")
    assert main(["exercise", "list", "--dir", str(tmp_path)]) == 2
    assert "GLASSFORMER_LANG" in capsys.readouterr().err


def test_options_may_stand_anywhere_on_the_check_line(tmp_path, capsys, monkeypatch):
    """`check softmax --timeout 5 FILE` (an option between NAME and FILE) reads FILE as the file."""
    seen = []
    monkeypatch.setattr(
        session, "check", lambda name, folder, file, timeout: seen.append((name, file, timeout)) or ("", 0)
    )
    file = tmp_path / "mine.py"
    for argv in (
        ["softmax", "--timeout", "5", str(file)],
        ["--timeout", "5", "softmax", str(file)],
        ["softmax", str(file), "--timeout=5"],
    ):
        assert main(["exercise", "check", *argv]) == 0, argv
    assert seen == [("softmax", file, 5.0)] * 3
    with pytest.raises(SystemExit) as usage:  # a word too many is still refused
        main(["exercise", "check", "softmax", "--timeout", "5", str(file), "extra"])
    assert usage.value.code == 2 and "unrecognized arguments: extra" in capsys.readouterr().err


def test_the_progress_file_is_json_even_with_a_number_that_is_not_finite(tmp_path):
    """progress.json comes from the one JSON writer (files.json_text), atomically: a NaN is null
    (it was a bare NaN, which a teacher's jq or a browser refuses); the rest is kept as given."""
    entry = session.update(tmp_path, "softmax", status="wrong", error=float("nan"), worst=[float("inf"), 0.5])
    assert entry["status"] == "wrong"
    saved = strict_json((tmp_path / session.FILE).read_text(encoding="utf-8"))
    assert saved["exercises"]["softmax"] == {"status": "wrong", "error": None, "worst": [None, 0.5]}
    assert [p.name for p in tmp_path.iterdir()] == [session.FILE]  # no temp file left beside it
