"""`glassformer sample RUN`: streamed text, seeds, several samples, stop strings."""

from __future__ import annotations

import argparse
import re

import pytest
from helpers import ROOT, said, train_argv

from glassformer.cli import main
from glassformer.cli.options import count, finite, positive, probability
from glassformer.logits_processors import Knobs
from glassformer.messages import t
from glassformer.sample import sample as lib_sample
from glassformer.train.run import load_model


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sample_cli")
    code = main(train_argv(tmp, "run", "--max_steps=30", "--eval_interval=30", "--eval_iters=2"))
    assert code == 0
    return tmp / "run"


def sample(run_dir, capsys, *extra):
    code = main(["sample", str(run_dir), "--threads", "1", *extra])
    return code, capsys.readouterr().out


def sample_said(argv, capsys):
    """main(argv): the exit code, stdout, stderr and what was said, as (English, fields) pairs."""
    with said() as heard:
        code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err, heard


def test_prompt_then_continuation_same_seed_same_text(run_dir, capsys):
    code, a = sample(run_dir, capsys, "--prompt", "the ", "--seed", "1", "--max-new-tokens", "40")
    _, b = sample(run_dir, capsys, "--prompt", "the ", "--seed", "1", "--max_new_tokens", "40")
    _, c = sample(run_dir, capsys, "--prompt", "the ", "--seed", "2", "--max-new-tokens", "40")
    assert code == 0 and a == b and a != c
    assert a.startswith("the ") and len(a) == len("the ") + 40 + 1  # + the final newline


def test_several_samples_and_greedy(run_dir, capsys):
    """The CLI writes exactly what the library's sample() writes with the same settings: a CLI that
    dropped --top-k, --top-p, --seed or --temperature on the way would print other text."""
    model, tok, _ = load_model(run_dir)
    code, out, _, heard = sample_said(
        [
            "sample",
            str(run_dir),
            "--threads",
            "1",
            "--prompt",
            "a",
            "--num-samples",
            "3",
            "--seed",
            "0",
            "--max-new-tokens",
            "10",
            "--top-k",
            "5",
            "--top-p",
            "0.9",
            "--temperature",
            "1.5",
        ],
        capsys,
    )
    assert code == 0
    headers = [(key, fields) for key, fields in heard if set(fields) == {"i", "n"}]  # each sample's header line
    assert [fields for _, fields in headers] == [{"i": i, "n": 3} for i in (1, 2, 3)]
    parts = re.split("|".join(re.escape(t(key, **fields) + "\n") for key, fields in headers), out)
    assert parts[0] == "" and len(parts) == 4  # ["", text, text, text]: a header before each
    texts = [t.removesuffix("\n") for t in parts[1:]]
    assert texts == [
        "a" + t for t in lib_sample(model, tok, "a", 10, temperature=1.5, top_k=5, top_p=0.9, num_samples=3, seed=0)
    ]
    assert len(set(texts)) > 1 and all(len(t) == 11 for t in texts)
    _, g1 = sample(run_dir, capsys, "--prompt", "a", "--temperature", "0", "--seed", "1", "--max-new-tokens", "20")
    _, g2 = sample(run_dir, capsys, "--prompt", "a", "--temperature", "0", "--seed", "2", "--max-new-tokens", "20")
    assert g1 == g2 == "a" + lib_sample(model, tok, "a", 20, temperature=0)[0] + "\n"  # greedy ignores the seed


def test_stop_string_and_best_weights(run_dir, capsys):
    _, full = sample(run_dir, capsys, "--prompt", "a", "--seed", "3", "--max-new-tokens", "200", "--best")
    stop = full[1:][full[1:].index(" ", 3) :][:2]  # a two-character string that does occur
    _, cut = sample(
        run_dir, capsys, "--prompt", "a", "--seed", "3", "--max-new-tokens", "200", "--best", "--stop", stop
    )
    assert cut == full[: 1 + full[1:].index(stop)] + "\n"


def test_missing_run_and_unknown_characters_are_clean_errors(tmp_path, run_dir, capsys):
    code, _, err, heard = sample_said(["sample", str(tmp_path / "nope")], capsys)
    [missing] = heard.of("run.missing")
    assert code == 2 and missing["dir"] == tmp_path / "nope" and str(tmp_path / "nope") in err
    code, _, err, heard = sample_said(["sample", str(run_dir), "--prompt", "Ω"], capsys)
    [(key, unseen)] = [(key, fields) for key, fields in heard if fields.get("shown") == "'Ω'"]  # the character named
    assert code == 2 and unseen["n"] == 1 and t(key, **unseen) in err and len(err.splitlines()) == 1


def test_attention_path_and_cache_switches_never_change_the_text(run_dir, capsys):
    """Both attention paths, with and without the KV cache, write the same seeded text; the
    prompt runs past max_len (128) so the cache must rebuild its full window too."""
    prompt = "the tiny model " * 10  # 150 characters > max_len
    outs = {
        (att, cache): sample(
            run_dir,
            capsys,
            "--prompt",
            prompt,
            "--seed",
            "3",
            "--max-new-tokens",
            "30",
            "--attention",
            att,
            *([] if cache else ["--no-cache"]),
        )[1]
        for att in ("glass", "fused")
        for cache in (True, False)
    }
    assert len(set(outs.values())) == 1 and len(next(iter(outs.values()))) == len(prompt) + 31


def test_debug_shapes_prints_the_trace_once_and_leaves_the_text_alone(run_dir, capsys):
    _, plain = sample(run_dir, capsys, "--prompt", "the ", "--seed", "4", "--max-new-tokens", "12")
    _, debug = sample(run_dir, capsys, "--prompt", "the ", "--seed", "4", "--max-new-tokens", "12", "--debug-shapes")
    assert "blocks.0.attn.weights" in debug and "(B=1, H=4, T_q=4, T_k=4)" in debug
    assert debug.endswith(plain)  # same seeded text after the table


def test_stderr_says_what_happens_past_max_len(run_dir, capsys):
    """Only when the text will outgrow max_len (128 here): 1 + 130 tokens does, 1 + 3 does not."""
    argv = ["sample", str(run_dir), "--threads", "1", "--prompt", "a", "--max-new-tokens"]
    code, _, err, heard = sample_said([*argv, "130"], capsys)
    [(key, fields)] = [(key, fields) for key, fields in heard if fields == {"name": "learned", "max_len": 128}]
    assert code == 0 and err == t(key, **fields) + "\n"  # the position kind, its table's length: a note, alone
    code, _, err, heard = sample_said([*argv, "3"], capsys)
    assert code == 0 and err == "" and {"name": "learned", "max_len": 128} not in [f for _, f in heard]


def test_a_note_on_stderr_comes_after_what_stdout_already_held_when_both_go_to_one_pipe():
    """Issue 27, item 9: stdout is block-buffered in a pipe, stderr is not, so with `2>&1` a note
    (the one about positions, a download, an error) could land before or inside text printed
    earlier. messages.note writes stdout out first."""
    import os
    import subprocess
    import sys

    src = str(ROOT / "src")
    code = "import sys; from glassformer.messages import note; sys.stdout.write('text\\nfor'); note('N'); print('more')"
    done = subprocess.run(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**{k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}, "PYTHONPATH": src},
        text=True,
        timeout=120,
    )
    assert done.stdout == "text\nforN\nmore\n"  # in the order written (old: "N\ntext\nformore")


def test_the_sample_verbs_position_note_is_a_note_and_the_sample_starts_on_a_line_of_its_own(
    run_dir, capsys, monkeypatch
):
    import glassformer.cli.sample as sample_cli
    from glassformer.sample import past_max_len

    noted = []
    monkeypatch.setattr(sample_cli, "note", lambda text: noted.append(text))
    code, out = sample(run_dir, capsys, "--prompt", "the ", "--seed", "4", "--max-new-tokens", "300")
    model, _, _ = load_model(run_dir)
    assert code == 0 and noted == [past_max_len(model)] and out.startswith("the ") and out.endswith("\n")


def test_the_repetition_knobs_reach_the_library_and_none_given_is_the_text_of_before(run_dir, capsys):
    """Each flag: the CLI prints what the library writes with that Knobs; a CLI that dropped or
    swapped one would print other text (each changes the greedy text of this run, checked)."""
    model, tok, _ = load_model(run_dir)
    plain = lib_sample(model, tok, "a", 60, temperature=0)[0]
    for flags, knobs in [
        (["--repetition-penalty", "1.8"], Knobs(repetition_penalty=1.8)),
        (["--frequency-penalty", "0.7"], Knobs(frequency_penalty=0.7)),
        (["--presence-penalty", "1.5"], Knobs(presence_penalty=1.5)),
        (["--no-repeat-ngram", "2"], Knobs(no_repeat_ngram=2)),
    ]:
        _, out = sample(run_dir, capsys, "--prompt", "a", "--temperature", "0", "--max-new-tokens", "60", *flags)
        text = lib_sample(model, tok, "a", 60, temperature=0, knobs=knobs)[0]
        assert out == "a" + text + "\n" and text != plain, flags
    for flags, knobs in [(["--min-p", "0.3"], Knobs(min_p=0.3)), (["--typical-p", "0.5"], Knobs(typical_p=0.5))]:
        _, out = sample(run_dir, capsys, "--prompt", "a", "--seed", "5", "--max-new-tokens", "60", *flags)
        text = lib_sample(model, tok, "a", 60, temperature=0.8, seed=5, knobs=knobs)[0]
        assert out == "a" + text + "\n" and text != lib_sample(model, tok, "a", 60, temperature=0.8, seed=5)[0], flags


@pytest.mark.parametrize(
    "flag, value, check",
    [  # the knob, a value it refuses, and the check (cli/options) whose refusal the user must read
        ("--repetition-penalty", "0", positive),
        ("--repetition-penalty", "-1.2", positive),
        ("--frequency-penalty", "inf", finite),
        ("--presence-penalty", "nan", finite),
        ("--no-repeat-ngram", "0", count),
        ("--min-p", "1.5", probability),
        ("--min-p", "0", probability),
        ("--typical-p", "0", probability),
        ("--typical-p", "x", probability),
    ],
)
def test_a_bad_knob_is_one_line_naming_the_flag(run_dir, capsys, flag, value, check):
    with pytest.raises(SystemExit) as e:
        main(["sample", str(run_dir), flag, value])
    err = capsys.readouterr().err
    with pytest.raises(argparse.ArgumentTypeError) as refusal:
        check(value)
    assert e.value.code == 2 and flag in err and str(refusal.value) in err and value in str(refusal.value)
    assert len(err.strip().splitlines()) <= 2  # the problem, then where to read more (cli/options.Parser)
