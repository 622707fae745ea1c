"""The runner: verdict levels, what run_experiment writes, and the index (Markdown + offline HTML)."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess

import pytest
import torch

from glassformer.lab import get_experiment
from glassformer.lab.report import write_index
from glassformer.lab.runner import Claim, Experiment, Verdict, git_commit, jsonable, level, run_experiment


def test_level_combines_parts():
    assert level([True, True]) == "holds"
    assert level([True, False]) == "half-true"
    assert level([False, False]) == "fails"
    assert level([False]) == "fails"
    with pytest.raises(ValueError, match="not one of"):
        Verdict("maybe")


def test_jsonable_keeps_numbers_and_names_non_finite_ones():
    out = jsonable({"a": torch.tensor([1.0, math.inf]), "b": (math.nan, 2), 3: -math.inf})
    assert out == {"a": [1.0, "inf"], "b": ["nan", 2], "3": "-inf"}
    json.dumps(out, allow_nan=False)  # strict JSON


def toy_experiment(levels: dict[str, str]) -> Experiment:
    claims = (Claim("mask-fill.1e9", "004", "§3.3"), Claim("mask-fill.inf", "000", "§3.3"))
    real = get_experiment("mask-fill")

    def verdicts(results):
        base = real.verdicts(results)
        return {k: Verdict(levels[k], base[k].figures) for k in levels}

    return Experiment("mask-fill", claims, real.run, verdicts, real.tables)


def test_run_writes_results_report_and_the_verdicts_the_rule_returns(tmp_path):
    exp = toy_experiment({"mask-fill.1e9": "fails", "mask-fill.inf": "holds"})
    record = run_experiment(exp, out=tmp_path, echo=lambda s: None)
    folder = tmp_path / "mask-fill"
    saved = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    assert saved == json.loads(json.dumps(record))
    assert [c["level"] for c in saved["claims"]] == ["fails", "holds"]  # what the rule said, nothing else
    assert saved["command"].startswith("glassformer lab run mask-fill") and saved["seconds"] >= 0
    assert {"cpu", "cores", "threads", "torch"} <= set(saved["machine"])
    report = (folder / "report.md").read_text(encoding="utf-8")
    assert "**fails / 不成立**" in report and "**holds / 成立**" in report
    for name in saved["figures"]:
        assert f"![{name}]({name})" in report and (folder / name).stat().st_size < 200_000


def test_a_missing_verdict_is_an_error(tmp_path):
    real = get_experiment("mask-fill")
    broken = Experiment("mask-fill", real.claims, real.run, lambda r: {}, real.tables)
    with pytest.raises(RuntimeError, match="no verdict"):
        run_experiment(broken, out=tmp_path, echo=lambda s: None)


def test_the_runner_s_refusals_speak_the_process_s_language(tmp_path):
    from glassformer import messages
    from glassformer.lab.texts import text

    mask_fill = get_experiment("mask-fill")
    with messages.speaking("zh"):
        with pytest.raises(ValueError, match="^结论等级 'maybe' 不在"):
            Verdict("maybe")
        with pytest.raises(ValueError, match="^--seeds 至少为 1，收到的是 0。$"):
            run_experiment(mask_fill, seeds=0, out=tmp_path, echo=lambda s: None)
        with pytest.raises(ValueError, match="^--lang 'fr' 不在"):
            text("fr", "level.holds")
    with pytest.raises(ValueError, match="^--seeds must be at least 1, got 0.$"):
        run_experiment(mask_fill, seeds=0, out=tmp_path, echo=lambda s: None)
    assert not any(tmp_path.iterdir())  # refused before anything was written


def test_index_lists_every_claim_offline(tmp_path):
    run_experiment(get_experiment("mask-fill"), out=tmp_path, echo=lambda s: None)
    md, page = write_index(tmp_path)
    text, html = md.read_text(encoding="utf-8"), page.read_text(encoding="utf-8")
    assert "mask-fill/report.md" in text and "mask-fill/mask_fill.png" in text
    assert text.count("| [mask-fill](mask-fill/report.md) |") == 2  # one row per claim
    assert "glassformer lab run mask-fill" in text and "glassformer lab run mask-fill" in html
    for needle in ("http", "//cdn", "<link", "@import", "url("):
        assert needle not in html.lower(), needle
    assert 'src="mask-fill/mask_fill.png"' in html and "成立" in html and "half-true" in html


def test_index_of_an_empty_folder_says_what_to_run(tmp_path):
    with pytest.raises(FileNotFoundError, match="glassformer lab run NAME"):
        write_index(tmp_path)


def test_unknown_experiment_names_the_nearest(tmp_path):
    with pytest.raises(ValueError, match="Did you mean 'heads'"):
        get_experiment("heeds")


def _git(folder, *args):
    subprocess.run(
        ["git", "-c", "commit.gpgsign=false", "-C", str(folder), *args],
        check=True,
        capture_output=True,
        env={
            **os.environ,
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@t",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@t",
        },
    )
    return subprocess.run(
        ["git", "-C", str(folder), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs the git program")
def test_git_commit_names_the_checkout_that_holds_the_code_and_whether_it_was_changed(tmp_path):
    repo = tmp_path / "repo"
    package = repo / "src" / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("x = 1\n")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    head = _git(repo, "commit", "-qm", "one")
    assert len(head) == 40 and git_commit(package) == {"commit": head, "dirty": False}
    (package / "results.json").write_text("{}")  # an untracked file is not a change to the code
    assert git_commit(package) == {"commit": head, "dirty": False}
    (package / "__init__.py").write_text("x = 2\n")
    assert git_commit(package) == {"commit": head, "dirty": True}


def test_git_commit_is_none_outside_a_checkout_and_without_git(tmp_path, monkeypatch):
    plain = tmp_path / "site-packages" / "pkg"
    plain.mkdir(parents=True)
    (plain / "__init__.py").write_text("")
    assert git_commit(plain) is None  # an installed copy: no checkout
    if shutil.which("git"):
        _git(tmp_path, "init", "-q")  # now inside a repository, but not one of its tracked files (a venv)
        assert git_commit(plain) is None
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))  # no git program at all
    assert git_commit(plain) is None and git_commit() is None


@pytest.mark.parametrize("code", [None, {"commit": "a" * 40, "dirty": True}])
def test_results_and_report_record_the_commit_or_null(tmp_path, monkeypatch, code):
    import glassformer.lab.runner as runner

    monkeypatch.setattr(runner, "git_commit", lambda: code)
    run_experiment(get_experiment("mask-fill"), out=tmp_path, echo=lambda s: None)
    saved = json.loads((tmp_path / "mask-fill" / "results.json").read_text(encoding="utf-8"))
    assert "git" in saved and saved["git"] == code  # null, not absent, when there is no commit
    report = (tmp_path / "mask-fill" / "report.md").read_text(encoding="utf-8")
    if code is None:
        assert "no commit was recorded" in report and "没有记录提交" in report
    else:
        assert f"git commit {'a' * 40}, with uncommitted changes" in report and "未提交的改动" in report
