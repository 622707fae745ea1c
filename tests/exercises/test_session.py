"""The learner's verbs through the CLI: list, start (never overwrites), check, hint, solution."""

from __future__ import annotations

import ast
import json
import re

import pytest
from helpers import en, said, strict_json, zh

from glassformer.cli import main
from glassformer.exercises import catalog, session
from glassformer.exercises.grading.report import STATUS
from glassformer.exercises.plug import REQUIRED
from glassformer.messages import speaking, t


def words(lang: str, key: str, **fields) -> str:
    """The catalogue's sentence `key` with `fields` in `lang`: what the verbs must print."""
    with speaking(lang):
        return t(key, **fields)


def run(capsys, *argv) -> tuple[int, str]:
    code = main(["exercise", *argv])
    return code, capsys.readouterr().out


def heard_run(capsys, *argv):
    """run(), and what it said: (sentence, fields) pairs, so a test pins the figures and names printed."""
    with said() as heard:
        code, out = run(capsys, *argv)
    return code, out, heard


def function_def(source: str, name: str) -> ast.FunctionDef:
    return next(f for f in ast.parse(source).body if isinstance(f, ast.FunctionDef) and f.name == name)


def test_start_writes_a_skeleton_and_never_overwrites(tmp_path, capsys):
    folder = tmp_path / "ex"
    code, out, heard = heard_run(capsys, "start", "layer_norm", "--dir", str(folder))
    path = folder / "layer_norm.py"
    assert code == 0 and heard.carrying(path=path, name="layer_norm") and str(path) in out
    source = path.read_text()
    ex = catalog.get("layer_norm")
    fn = function_def(source, "layer_norm")
    assert [a.arg for a in fn.args.args] == ["x", "weight", "bias", "eps"] and fn.args.defaults[0].value == 1e-5
    # snapshot: the formula the learner writes, as the skeleton shows it (math, in no language)
    assert "γ · (x - mean) / √(var + ε) + β" in source
    assert all(line.strip() in ast.get_docstring(fn) for line in en(ex.function("layer_norm").doc).splitlines())
    refused = [n for rule in ex.forbidden for n in rule.names[:4]]
    assert "layer_norm" in refused and all(n in ast.get_docstring(fn) for n in refused)  # named as not allowed
    last = fn.body[-1]  # the TODO: raise NotImplementedError(...)
    assert isinstance(last, ast.Raise) and last.exc.func.id == "NotImplementedError"
    assert heard.carrying(target=ex.plugs_into, required=", ".join(REQUIRED))  # what --use-mine swaps in
    path.write_text(source + "\n# my work\n")
    code, out, heard = heard_run(capsys, "start", "layer_norm", "--dir", str(folder))
    backup = folder / "layer_norm.old.py"
    assert code == 1 and heard.carrying(path=path, backup=backup) and str(backup) in out
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
    code, out, heard = heard_run(capsys, "list", "--dir", str(folder))
    not_started, title = re.escape(zh(STATUS["not_started"])), re.escape(zh(catalog.get("softmax").title))
    assert code == 0 and re.search(rf"^1 +softmax +{not_started} +{title}$", out, re.M)
    total = len(catalog.ORDER)
    command = "glassformer exercise start softmax"
    assert heard.carrying(passed=0, total=total, command=command) and command in out
    monkeypatch.delenv("GLASSFORMER_LANG")

    # the solution is refused before a passing check
    code, out, heard = heard_run(capsys, "solution", "causal_mask", "--dir", str(folder))
    solution = catalog.get("causal_mask").solution
    assert code == 1 and heard.carrying(name="causal_mask") and solution.strip() not in out

    # hints: one more per call, then none; --all shows all three
    hints = [heard_run(capsys, "hint", "causal_mask", "--dir", str(folder)) for _ in range(4)]
    for k in (1, 2, 3):
        _, out, heard = hints[k - 1]
        hint = catalog.get("causal_mask").hints[k - 1]
        assert heard.carrying(k=k, n=3, name="causal_mask") and out.splitlines()[1] == "  " + en(hint)
    _, out, heard = hints[3]
    assert not heard.carrying(k=4) and not any(en(h) in out for h in catalog.get("causal_mask").hints)
    assert heard.carrying(name="causal_mask")  # no more hints: a sentence naming the exercise
    _, out, heard = heard_run(capsys, "hint", "causal_mask", "--all", "--dir", str(folder))
    assert [f["k"] for f in heard.carrying(n=3, name="causal_mask")] == [1, 2, 3]
    assert all("  " + en(h) in out.splitlines() for h in catalog.get("causal_mask").hints)

    # a wrong file fails (exit code 1), the right one passes and unlocks the solution
    run(capsys, "start", "causal_mask", "--dir", str(folder))
    path = folder / "causal_mask.py"
    path.write_text("import torch\n\ndef causal_mask(T):\n    return torch.triu(torch.ones(T, T, dtype=torch.bool))\n")
    code, out = run(capsys, "check", "causal_mask", "--dir", str(folder))
    upper = next(v.note for v in catalog.get("causal_mask").variants if v.id == "upper")  # triu keeps the future
    assert code == 1 and "  → " + en(upper) in out.splitlines()
    row = next(line for line in run(capsys, "list", "--dir", str(folder))[1].splitlines() if "causal_mask" in line)
    assert en(STATUS["failed"]) in row
    path.write_text(catalog.get("causal_mask").solution)
    code, out, heard = heard_run(capsys, "check", "causal_mask", "--dir", str(folder))
    assert code == 0 and {"n": 6} in heard.carrying(n=6)  # all 6 cases pass
    assert heard.carrying(command="glassformer exercise start padding_mask")  # and the next exercise's command
    code, out = run(capsys, "solution", "causal_mask", "--dir", str(folder))
    assert code == 0 and solution in out

    state = json.loads((folder / session.FILE).read_text())["exercises"]["causal_mask"]
    assert state["status"] == "passed" and state["ever_passed"] and state["hints"] == 3
    _, listing, before = heard_run(capsys, "list", "--dir", str(folder))
    row = next(line for line in listing.splitlines() if "causal_mask" in line)
    assert en(STATUS["passed"]) in row
    path.write_text(path.read_text() + "\n# changed\n")
    _, listing, after = heard_run(capsys, "list", "--dir", str(folder))
    (edited,) = set(after.keys()) - set(before.keys())  # one more word: the file changed since its check
    assert (edited, {}) in after
    row = next(line for line in listing.splitlines() if "causal_mask" in line)
    assert en(STATUS["passed"]) + " · " + en(edited) in row


def test_give_up_shows_the_solution_and_is_recorded(tmp_path, capsys):
    folder = tmp_path / "ex"
    folder.mkdir()
    code, out = run(capsys, "solution", "fruit", "--give-up", "--dir", str(folder))
    assert code == 0 and catalog.get("fruit").solution in out
    assert session.entry(folder, "fruit") == {"gave_up": True}


def test_an_unknown_exercise_or_language_is_a_clear_error(tmp_path, capsys, monkeypatch):
    with said() as heard:
        assert main(["exercise", "start", "layernorm", "--dir", str(tmp_path)]) == 2
    assert [f["name"] for f in heard.of("exercise.unknown")] == ["layernorm"]
    assert "'layer_norm'" in capsys.readouterr().err  # the name it likely meant
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
    assert usage.value.code == 2 and "extra" in capsys.readouterr().err  # argparse names the word it refused


def test_the_progress_file_is_json_even_with_a_number_that_is_not_finite(tmp_path):
    """progress.json comes from the one JSON writer (files.json_text), atomically: a NaN is null
    (it was a bare NaN, which a teacher's jq or a browser refuses); the rest is kept as given."""
    entry = session.update(tmp_path, "softmax", status="wrong", error=float("nan"), worst=[float("inf"), 0.5])
    assert entry["status"] == "wrong"
    saved = strict_json((tmp_path / session.FILE).read_text(encoding="utf-8"))
    assert saved["exercises"]["softmax"] == {"status": "wrong", "error": None, "worst": [None, 0.5]}
    assert [p.name for p in tmp_path.iterdir()] == [session.FILE]  # no temp file left beside it
