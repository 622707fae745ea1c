"""`glassformer data prepare`: the CLI prints what the library did, and reports errors as exit codes."""

import argparse

import pytest

from glassformer.cli import data as data_cli
from glassformer.cli import main


def run(argv, capsys):
    """Through the top-level CLI, which turns a failure into a message and an exit code."""
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_prepare_file(tmp_path, capsys):
    text = "to be or not to be, 生存还是毁灭\n" * 10
    path = tmp_path / "t.txt"
    path.write_text(text, encoding="utf-8")
    cache = tmp_path / "cache"
    code, out, _ = run(["data", "prepare", f"file:{path}", "--cache-dir", str(cache)], capsys)
    assert code == 0
    n = len(text)
    assert f"source      file:{path}" in out
    assert f"{n:,} chars" in out
    assert f"vocab_size {len(set(text))}" in out
    assert f"train       {n * 9 // 10:,} tokens (90.0%)" in out
    assert f"val         {n - n * 9 // 10:,} tokens (10.0%)" in out
    assert "dtype       uint16" in out
    assert str(cache / "prepared") in out
    assert "cached      no" in out

    code, out, _ = run(["data", "prepare", f"file:{path}", "--cache-dir", str(cache)], capsys)
    assert code == 0 and "cached      yes" in out


def test_through_the_dispatcher(tmp_path, capsys):
    from glassformer.cli import main

    code = main(["data", "prepare", "builtin:seed", "--cache-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0 and "source      builtin:seed" in out and str(tmp_path / "prepared") in out


def test_prepare_builtin_with_env_cache(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("GLASSFORMER_CACHE", str(tmp_path))
    code, out, _ = run(["data", "prepare", "builtin:seed"], capsys)
    assert code == 0 and str(tmp_path) in out


def test_bad_source_is_an_error_code(capsys):
    code, out, err = run(["data", "prepare", "shakespear"], capsys)
    assert code == 2 and out == ""
    assert "unknown corpus source 'shakespear'" in err and "file:PATH" in err


def test_default_source_is_shakespeare():
    parser = argparse.ArgumentParser()
    data_cli.register(parser.add_subparsers(dest="command"))
    assert parser.parse_args(["data", "prepare"]).source == "shakespeare"
    with pytest.raises(SystemExit):
        parser.parse_args(["data"])  # a verb is required


def test_prepare_with_each_tokenizer(tmp_path, capsys):
    text = "the cat sat on the mat. 我爱你。你好吗？\n" * 20
    path = tmp_path / "t.txt"
    path.write_text(text, encoding="utf-8")
    base = ["data", "prepare", f"file:{path}", "--cache-dir", str(tmp_path / "cache")]

    code, out, _ = run(base + ["--tokenizer", "word", "--segment", "jieba"], capsys)
    assert (
        code == 0 and "tokenizer   word, vocab_size 15, segment jieba" in out
    )  # 4 specials + 11 words and "word-jieba-" in out

    code, out, _ = run(base + ["--tokenizer", "bpe", "--vocab-size", "270"], capsys)
    assert code == 0 and "tokenizer   bpe, vocab_size 270\n" in out and "/prepared/bpe-270-" in out

    code, out, _ = run(base + ["--tokenizer", "bpe", "--vocab-size", "270", "--backend", "hf"], capsys)
    assert code == 0 and "tokenizer   bpe-hf, vocab_size 270\n" in out and "/prepared/bpe-hf-270-" in out

    code, out, _ = run(base + ["--tokenizer", "bpe", "--vocab-size", "5000"], capsys)
    assert code == 0 and "(asked for 5000: no pair was left that occurs twice)" in out


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--tokenizer", "bpe", "--vocab-size", "255"], "--vocab-size) is too small for byte-level BPE"),
        (["--segment", "jieba"], "Use --tokenizer word --segment jieba"),
        (["--tokenizer", "char", "--vocab-size", "512"], "applies only to tokenizer='bpe' (--tokenizer bpe)"),
        (["--tokenizer", "word", "--backend", "hf"], "backend (--backend) applies only"),
    ],
)
def test_bad_flag_combinations_are_error_codes(flags, message, tmp_path, capsys):
    code, out, err = run(["data", "prepare", "builtin:seed", "--cache-dir", str(tmp_path)] + flags, capsys)
    assert code == 2 and out == "" and message in err


def test_unknown_choices_are_refused_by_the_parser(capsys):
    parser = argparse.ArgumentParser()
    data_cli.register(parser.add_subparsers(dest="command"))
    for flags in (["--tokenizer", "bytes"], ["--segment", "spaces"], ["--backend", "rust"]):
        with pytest.raises(SystemExit):
            parser.parse_args(["data", "prepare", *flags])
    assert "invalid choice" in capsys.readouterr().err
