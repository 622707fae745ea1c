"""The runner: verdict levels, what run_experiment writes, and the index (Markdown + offline HTML)."""

from __future__ import annotations

import base64
import io
import json
import math
import os
import re
import shutil
import string
import subprocess
from dataclasses import replace

import pytest
import torch
from helpers import ROOT, said

from glassformer import messages
from glassformer.errors import NotFound, Unsupported, UsageError
from glassformer.lab import get_experiment
from glassformer.lab.report import LANGS, LEVEL_WORDS, _code, text, write_index
from glassformer.lab.runner import Verdict, git_commit, jsonable, level, run_experiment


def test_level_combines_parts():
    assert level([True, True]) == "holds"
    assert level([True, False]) == "half-true"
    assert level([False, False]) == "fails"
    assert level([False]) == "fails"
    with pytest.raises(UsageError) as e:
        Verdict("maybe")
    assert e.value.code == "lab.level" and e.value.fields["level"] == "maybe"


def test_jsonable_keeps_numbers_and_names_non_finite_ones():
    out = jsonable({"a": torch.tensor([1.0, math.inf]), "b": (math.nan, 2), 3: -math.inf})
    assert out == {"a": [1.0, "inf"], "b": ["nan", 2], "3": "-inf"}
    json.dumps(out, allow_nan=False)  # strict JSON


def toy_experiment(levels: dict[str, str]):
    """mask-fill, its rule's levels replaced by `levels` (claim key -> level)."""
    real = get_experiment("mask-fill")

    def verdicts(results):
        base = real.verdicts(results)
        return {k: Verdict(levels[k], base[k].figures) for k in levels}

    return replace(real, verdicts=verdicts)


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
    for verdict in ("fails", "holds"):
        assert "**" + " / ".join(text(lang, LEVEL_WORDS[verdict]) for lang in LANGS) + "**" in report
    for name in saved["figures"]:
        assert f"![{name}]({name})" in report and (folder / name).stat().st_size < 200_000


def test_a_missing_verdict_is_an_error(tmp_path):
    real = get_experiment("mask-fill")
    broken = replace(real, verdicts=lambda r: {})
    real_keys = [c.key for c in real.claims]
    with pytest.raises(Unsupported) as e:
        run_experiment(broken, out=tmp_path, echo=lambda s: None)
    assert e.value.code == "lab.no_verdict" and e.value.fields == {"name": "mask-fill", "keys": sorted(real_keys)}


def test_the_runner_s_refusals_are_typed_and_speak_the_process_s_language(tmp_path):
    mask_fill = get_experiment("mask-fill")
    with messages.speaking("zh"):
        with pytest.raises(UsageError) as e:
            run_experiment(mask_fill, seeds=0, out=tmp_path, echo=lambda s: None)
        assert (e.value.code, e.value.fields) == ("lab.seeds", {"seeds": 0})
        assert str(e.value) == e.value.words("zh") and re.search(CJK, str(e.value))  # worded in Chinese, as raised
        with pytest.raises(UsageError) as e:
            text("fr", "holds")
        assert (e.value.code, e.value.fields) == ("lab.lang", {"lang": "fr", "langs": sorted(LANGS)})
    with messages.speaking("en"):
        assert e.value.words() != str(e.value)  # the same error, worded at the boundary in English
    assert not any(tmp_path.iterdir())  # refused before anything was written


def test_index_lists_every_claim_offline(tmp_path):
    run_experiment(get_experiment("mask-fill"), out=tmp_path, echo=lambda s: None)
    md, page = write_index(tmp_path)
    index, html = md.read_text(encoding="utf-8"), page.read_text(encoding="utf-8")
    assert "mask-fill/report.md" in index and "mask-fill/mask_fill.png" in index
    rows = [line for line in index.splitlines() if "[mask-fill](mask-fill/report.md)" in line]
    assert len(rows) == 2 and all(row.startswith("|") for row in rows)  # one row per claim
    command = json.loads((tmp_path / "mask-fill" / "results.json").read_text(encoding="utf-8"))["command"]
    assert command in index and html.count(command) >= 1  # how to make it again
    html, fonts = re.subn(FONT_INSIDE, "FONT", html)  # the one url(): the shipped font inside the page
    assert fonts == 1
    for needle in ("http", "//cdn", "<link", "@import", "url("):
        assert needle not in html.lower(), needle
    assert 'src="mask-fill/mask_fill.png"' in html
    assert text("zh", "holds") in html and text("en", "half-true") in html


FONT_INSIDE = r"url\(data:font/otf;base64,[A-Za-z0-9+/=]+\)"
CJK = r"[\u4e00-\u9fff]"
CHINESE = r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]"  # hanzi and full-width marks


def elements(page: str) -> list[tuple[str, dict]]:
    """Each start tag of an HTML page: its name and its attributes (a bare one, like selected, maps to None)."""
    from html.parser import HTMLParser

    found: list = []

    class Tags(HTMLParser):
        def handle_starttag(self, tag, attrs):
            found.append((tag, dict(attrs)))

    Tags().feed(page)
    return found


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_index_opens_in_lang_and_carries_the_shipped_font_for_its_chinese(tmp_path, lang):
    """`lab report --lang zh` writes a page that opens in Chinese (<html lang>, the switch's choice);
    either way its Chinese draws with the shipped font, cut to the page's characters and inside it
    (tests/e2e/browser/test_page_fonts_browser.py draws it in Chromium)."""
    from fontTools.ttLib import TTFont

    from glassformer.fonts import FAMILY, SANS

    (tmp_path / "mask-fill").mkdir()
    committed = ROOT / "docs" / "lab" / "mask-fill" / "results.json"
    shutil.copy(committed, tmp_path / "mask-fill" / "results.json")
    record = json.loads(committed.read_text(encoding="utf-8"))
    with messages.speaking(lang):
        _, page = write_index(tmp_path)
    html = page.read_text(encoding="utf-8")
    tag = "zh-CN" if lang == "zh" else "en"
    tags = elements(html)
    assert [a["lang"] for name, a in tags if name == "html"] == [tag]
    assert [(a["value"], a["data-lang"], "selected" in a) for name, a in tags if name == "option"] == [
        ("en", "en", lang == "en"),
        ("zh", "zh-CN", lang == "zh"),
    ]
    body = re.search(r"body \{([^}]*)\}", html).group(1)
    assert SANS in body and SANS.endswith(f'"{FAMILY}", sans-serif')
    font = re.search(r"url\(data:font/otf;base64,([A-Za-z0-9+/=]+)\)", html).group(1)
    have = {chr(c) for c in TTFont(io.BytesIO(base64.b64decode(font))).getBestCmap()}
    zh = "".join(re.findall(CHINESE, re.sub(FONT_INSIDE, "", html)))  # every Chinese character the page shows
    assert len(set(zh)) > 20 and set(record["claims"][0]["claim_zh"]) - set(string.printable) <= set(zh)
    assert set(zh) <= have  # each drawn by the font inside the page


def test_index_of_an_empty_folder_says_what_to_run(tmp_path):
    with pytest.raises(NotFound) as e:
        write_index(tmp_path)
    assert e.value.code == "lab.no_results" and e.value.fields == {"root": tmp_path}


def test_unknown_experiment_names_the_nearest(tmp_path):
    with said() as heard, pytest.raises(UsageError) as e:
        get_experiment("heeds")
    ((hint, fields),) = [(m, f) for m, f in heard if f == {"name": "heads"}]  # did you mean heads?
    assert e.value.code == "lab.unknown" and e.value.fields["hint"] == messages.t(hint, **fields)


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
    with said() as heard:
        run_experiment(get_experiment("mask-fill"), out=tmp_path, echo=lambda s: None)
    saved = json.loads((tmp_path / "mask-fill" / "results.json").read_text(encoding="utf-8"))
    assert "git" in saved and saved["git"] == code  # null, not absent, when there is no commit
    report = (tmp_path / "mask-fill" / "report.md").read_text(encoding="utf-8")
    committed = [(m, f) for m, f in heard if "commit" in f]
    if code is None:  # a line saying so, and no commit in it
        assert not committed and "a" * 40 not in report
    else:  # the commit, and that the code which ran had changes, in every language
        assert committed and all(f == {"commit": "a" * 40} for _, f in committed)
    for lang in LANGS:
        assert _code(saved, lang) in report
        if code is not None:  # the changes are said: the line is not a clean commit's
            assert _code(saved, lang) != _code({"git": {**code, "dirty": False}}, lang)


def test_a_figure_too_big_at_the_usual_resolution_is_drawn_coarser_and_one_too_big_keeps_the_old_file(
    tmp_path, monkeypatch
):
    """A two-panel figure once came out 201,827 bytes at the end of a 20-minute run: the run was lost
    and the committed figure overwritten. Now it is drawn at the next resolution down; only a figure
    too big at every one is refused, and then the file already there is kept."""
    import numpy as np

    from glassformer.lab import runner
    from glassformer.lab.runner import Context, new_figure

    def noisy():
        fig, axes = new_figure(6, 4)
        axes[0, 0].imshow(np.random.default_rng(0).random((300, 300)))  # noise: PNG cannot compress it
        return fig

    ctx = Context(tmp_path, fast=True, seeds=1)
    sizes = {}
    for dpi in runner.DPIS:
        data = io.BytesIO()
        noisy().savefig(data, dpi=dpi, format="png")
        sizes[dpi] = data.tell()
    assert sizes[90] > sizes[75] > sizes[60]
    monkeypatch.setattr(runner, "MAX_PNG_BYTES", (sizes[90] + sizes[75]) // 2)  # too big at 90 only
    assert ctx.figure(noisy(), "noise") == "noise.png"
    png = (tmp_path / "noise.png").read_bytes()
    assert int.from_bytes(png[16:20], "big") == 6 * 75  # IHDR's width in pixels: drawn at 75 dpi
    kept = (tmp_path / "noise.png").read_bytes()
    monkeypatch.setattr(runner, "MAX_PNG_BYTES", sizes[60] - 1)  # too big at every resolution
    with pytest.raises(Unsupported) as refused:
        ctx.figure(noisy(), "noise")
    assert refused.value.code == "lab.figure_size" and refused.value.fields["size"] > runner.MAX_PNG_BYTES
    assert (tmp_path / "noise.png").read_bytes() == kept and ctx.figures == ["noise.png"]
