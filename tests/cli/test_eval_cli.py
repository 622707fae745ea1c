"""`glassformer eval RUN [--against RUN2]` on tiny real runs: the card's figures are the ones training
and sampling define (the loss by position averages to the run's own last validation loss; the samples
are `sample`'s), a char run and a BPE run are scored over the same bytes, two seeds part where their
logs say, and bad input is one line naming the fix, in English and Chinese."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from helpers import said

from glassformer.cli import main
from glassformer.config import EvalConfig
from glassformer.errors import UsageError
from glassformer.eval_card import card_table, check_out, draw_samples, evaluate, load_run
from glassformer.evaluation import context_chars, utf8_bytes
from glassformer.messages import speaking, t
from glassformer.sample import sample
from glassformer.train.record import MetricsLog

WORDS = "the a cat dog sat ran on under mat log sun moon and then it was red blue".split()


def corpus() -> str:
    rng = random.Random(0)
    lines = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 9))) + "." for _ in range(100)]
    return "\n".join(lines) + "\n"


def train(tmp, name, *extra) -> str:
    argv = ["train", "--preset", "seed000", "--data", f"file:{tmp / 'corpus.txt'}", "--out", str(tmp / name)]
    argv += ["--cache-dir", str(tmp / "cache"), "--no-progress", "--sample-chars", "0", "--threads=1"]
    argv += ["--max_steps=12", "--eval_interval=6", "--eval_iters=2", "--log_interval=3", "--d_model=32", "--d_ff=64"]
    assert main([*argv, *extra]) == 0
    return str(tmp / name)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("eval_cli")
    (tmp / "corpus.txt").write_text(corpus(), encoding="utf-8")
    return {
        "tmp": tmp,
        "char": train(tmp, "char"),
        "seed7": train(tmp, "seed7", "--seed=7"),
        "bpe": train(tmp, "bpe", "--tokenizer", "bpe", "--vocab-size", "300"),
        "word": train(tmp, "word", "--tokenizer", "word"),
    }


SMALL = ["--samples", "2", "--max-new-tokens", "24", "--max-chars", "400", "--threads", "1"]


def eval_cli(runs, capsys, *argv):
    code = main(["eval", *argv, "--cache-dir", str(runs["tmp"] / "cache"), *SMALL])
    out = capsys.readouterr()
    return code, out.out, out.err


def eval_said(runs, capsys, *argv):
    """eval_cli, and what it said as (English, fields) pairs."""
    with said() as heard:
        code, out, err = eval_cli(runs, capsys, *argv)
    return code, out, err, heard


CHINESE = re.compile("[\u4e00-\u9fff]")


def strict_json(path):
    def refuse(name):
        raise AssertionError(f"{name} in {path}")

    return json.loads(path.read_text(encoding="utf-8"), parse_constant=refuse)


def test_the_card_of_a_run_reads_training_s_own_windows(runs, capsys, tmp_path):
    code, out, _ = eval_cli(runs, capsys, runs["char"], "--out", str(tmp_path / "card"))
    assert code == 0
    card = strict_json(tmp_path / "card" / "card.json")
    run = card["runs"][0]
    # the loss by position averages to the validation loss training recorded for these weights: the
    # same windows (TextWindows with the run's seq_len, batch_size, eval_iters and seed), the same ids
    last_eval = [r for r in MetricsLog(f"{runs['char']}/metrics.jsonl").read() if r["kind"] == "eval"][-1]
    assert run["loss_by_position"]["mean"] == pytest.approx(last_eval["val_loss"], rel=1e-5)
    assert run["loss_by_position"]["seq_len"] == 16 and run["loss_by_position"]["windows"] == 2 * 16
    assert card["text"]["origin"].startswith("val:file:") and run["bits_per_byte"]["exact"]
    calib = run["calibration"]
    assert calib["tokens"] == 2 * 16 * 16 and sum(b["count"] for b in calib["table"]) == calib["tokens"]
    assert 0 <= calib["ece"] <= 1 and card["against"] is None
    assert (tmp_path / "card" / "card.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"{run['bits_per_byte']['value']:.4f}" in out and f"{calib['ece']:.4f}" in out


def test_the_samples_are_those_sample_draws_with_the_same_seed(runs):
    run = load_run(runs["char"])
    cfg = EvalConfig(samples=3, max_new_tokens=20, temperature=0.8, seed=5)
    rows = draw_samples(run, "the ", cfg)
    want = sample(run.model, run.tokenizer, "the ", 20, temperature=0.8, num_samples=3, seed=5)
    assert [run.tokenizer.decode(r) for r in rows] == want and all(len(r) == 20 for r in rows)


def test_a_char_run_and_a_bpe_run_are_scored_over_the_same_bytes(runs, capsys, tmp_path):
    text = tmp_path / "held.txt"
    text.write_text("the cat sat on the mat.\nthen the dog ran under the sun.\n", encoding="utf-8")
    code, _, _ = eval_cli(
        runs, capsys, runs["char"], "--against", runs["bpe"], "--text", str(text), "--out", str(tmp_path)
    )
    assert code == 0
    card = strict_json(tmp_path / "card.json")
    char, bpe = (r["bits_per_byte"] for r in card["runs"])
    held = text.read_text(encoding="utf-8")
    want = utf8_bytes(held[context_chars(held) :])
    assert char["bytes"] == bpe["bytes"] == want and char["tokens"] == want  # one character, one byte here
    assert bpe["tokens"] < char["tokens"] and char["exact"] and bpe["exact"]
    assert [r["tokenizer"] for r in card["runs"]] == ["char", "bpe"]
    assert {"key": "text.tokenizer", "a": None, "b": "bpe"} in card["against"]["settings"]


def test_a_word_run_beside_a_char_run_shares_the_prompt_and_the_bytes_and_is_marked_lossy(runs, capsys, tmp_path):
    code, out, _, heard = eval_said(runs, capsys, runs["char"], "--against", runs["word"], "--out", str(tmp_path))
    assert code == 0  # the default prompt is one both write: not a newline, which a word tokenizer drops
    card = strict_json(tmp_path / "card.json")
    char, word = card["runs"]
    assert char["samples"]["prompt"] == word["samples"]["prompt"] != "\n"
    assert (
        char["bits_per_byte"]["bytes"] == word["bits_per_byte"]["bytes"]
        and word["bits_per_byte"]["tokens"] < (char["bits_per_byte"]["tokens"])
    )
    assert char["bits_per_byte"]["exact"] and not word["bits_per_byte"]["exact"]
    lossy = [(key, fields) for key, fields in heard if set(fields) == {"run"}]  # its bits per byte: not comparable
    assert [fields for _, fields in lossy] == [{"run": Path(word["run"]).name}]  # said of the word run only
    assert t(lossy[0][0], **lossy[0][1]) in out


def test_two_seeds_part_where_their_logs_say(runs, capsys, tmp_path):
    code, out, _ = eval_cli(runs, capsys, runs["char"], "--against", runs["seed7"], "--out", str(tmp_path))
    assert code == 0
    against = strict_json(tmp_path / "card.json")["against"]
    assert {"key": "train.seed", "a": 1337, "b": 7} in against["settings"]
    logs = [MetricsLog(f"{runs[n]}/metrics.jsonl").read() for n in ("char", "seed7")]
    evals = [{r["step"]: r["val_loss"] for r in log if r["kind"] == "eval"} for log in logs]
    val = next(d for d in against["divergence"] if d["quantity"] == "val_loss")
    # step 0 is the initial weights, drawn from different seeds: their losses already differ by > 1%
    first = next(s for s in sorted(evals[0]) if abs(evals[0][s] - evals[1][s]) > 0.01 * max(evals[0][s], evals[1][s]))
    assert val["step"] == first and val["a"] == evals[0][first] and val["b"] == evals[1][first]
    lr = next(d for d in against["divergence"] if d["quantity"] == "lr")
    assert lr["step"] is None and lr["common"] == 4  # the same schedule: never apart
    assert against["first"]["step"] == min(d["step"] for d in against["divergence"] if d["step"] is not None)
    # both runs read the first run's evaluation windows: the first's mean is its own validation loss,
    # the second's is not its own (its seed draws other windows), but the loss of those same windows
    card = strict_json(tmp_path / "card.json")
    means = [r["loss_by_position"]["mean"] for r in card["runs"]]
    last = [[r for r in log if r["kind"] == "eval"][-1]["val_loss"] for log in logs]
    assert means[0] == pytest.approx(last[0], rel=1e-5) and means[1] != pytest.approx(last[1], rel=1e-3)
    # a run against itself never parts
    code, out, _ = eval_cli(runs, capsys, runs["char"], "--against", runs["char"], "--out", str(tmp_path / "same"))
    card = strict_json(tmp_path / "same" / "card.json")
    assert code == 0 and card["against"]["first"] is None and card["against"]["settings"] == []
    assert card["runs"][0]["bits_per_byte"] == card["runs"][1]["bits_per_byte"]


def test_the_table_speaks_chinese_with_the_same_numbers(runs, capsys, tmp_path):
    outs = {}
    for lang in ("en", "zh"):
        code, outs[lang], _ = eval_cli(runs, capsys, "--lang", lang, runs["char"], "--out", str(tmp_path / lang))
        assert code == 0
    assert strict_json(tmp_path / "en" / "card.json")["runs"] == strict_json(tmp_path / "zh" / "card.json")["runs"]
    card = strict_json(tmp_path / "en" / "card.json")
    tables = {}
    for lang in ("en", "zh"):  # what was printed is the card's table in that language
        with speaking(lang):
            tables[lang] = card_table(card)
        assert outs[lang].startswith(tables[lang] + "\n")
    assert CHINESE.search(tables["zh"]) and tables["zh"] != tables["en"]
    assert len(tables["zh"].splitlines()) == len(tables["en"].splitlines())  # row for row
    bpb = format(card["runs"][0]["bits_per_byte"]["value"], ".4f")
    assert bpb in tables["en"] and bpb in tables["zh"]  # the same numbers


def test_an_earlier_card_is_replaced_with_a_word_and_a_user_s_file_never(runs, capsys, tmp_path):
    code, out, _, heard = eval_said(runs, capsys, runs["char"], "--out", str(tmp_path))
    written = [(key, fields["files"].name) for key, fields in heard if set(fields) == {"files"}]
    assert code == 0
    code, out, _, heard = eval_said(runs, capsys, runs["char"], "--out", str(tmp_path))
    replaced = [(key, fields["files"].name) for key, fields in heard if set(fields) == {"files"}]
    assert code == 0 and [name for _, name in written] == [name for _, name in replaced] == ["card.json", "card.png"]
    assert len({key for key, _ in written}) == len({key for key, _ in replaced}) == 1  # one sentence for each case
    assert written[0][0] != replaced[0][0]  # the second time, each file is said to be replaced, not written
    assert all(t(key, files=tmp_path / name) in out for key, name in replaced)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "card.json").write_text('{"notes":"mine"}')
    code, _, err = eval_cli(runs, capsys, runs["char"], "--out", str(mine))
    assert code == 2 and (mine / "card.json").read_text() == '{"notes":"mine"}' and not (mine / "card.png").exists()
    assert err.count("\n") == 1 and "card.json" in err
    with pytest.raises(UsageError) as e:
        check_out(mine)
    assert e.value.code == "eval.not_a_card" and e.value.fields == {"path": mine / "card.json", "out": mine}


def test_multiple_choice_on_a_real_run_is_the_library_s_score(runs, capsys, tmp_path):
    from glassformer.evaluation import read_questions, score_choices

    questions = tmp_path / "q.jsonl"
    lines = [
        {"context": "the cat sat on the", "choices": [" mat.", " moon"], "answer": 0},
        {"context": "the dog ran", "choices": [" under", " mat mat mat mat"], "answer": 1},
    ]
    questions.write_text("".join(json.dumps(q) + "\n" for q in lines), encoding="utf-8")
    code, out, _ = eval_cli(runs, capsys, runs["char"], "--questions", str(questions), "--out", str(tmp_path))
    assert code == 0
    choices = strict_json(tmp_path / "card.json")["runs"][0]["choices"]
    run = load_run(runs["char"])
    want = score_choices(run.model, run.tokenizer, read_questions(questions))
    assert (choices["questions"], choices["acc"], choices["acc_norm"]) == (2, want.acc, want.acc_norm)
    assert [i["loglikelihoods"] for i in choices["items"]] == [pytest.approx(i.loglikelihoods) for i in want.items]
    assert "acc_norm" in out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_bad_input_is_one_line_naming_the_fix(runs, capsys, tmp_path, lang):
    (tmp_path / "empty.jsonl").write_text("")
    (tmp_path / "range.jsonl").write_text('{"context": "the", "choices": [" cat", " dog"], "answer": 2}\n')
    cases = [
        (["--questions", str(tmp_path / "empty.jsonl")], 1),
        (["--questions", str(tmp_path / "range.jsonl")], 2),
        (["--prompt", "the " * 40], 2),  # 160 characters, max_len 128
    ]
    for extra, exit_code in cases:
        code, _, err = eval_cli(runs, capsys, "--lang", lang, runs["char"], "--out", str(tmp_path / "o"), *extra)
        assert code == exit_code and err.count("\n") == 1, (extra, err)
        assert bool(CHINESE.search(err)) == (lang == "zh")  # said in the language asked for
    assert not (tmp_path / "o" / "card.json").exists()


def test_the_library_refusals_carry_their_fields(runs, tmp_path):
    (tmp_path / "range.jsonl").write_text('{"context": "the", "choices": [" cat", " dog"], "answer": 2}\n')
    with pytest.raises(UsageError) as e:
        evaluate(runs["char"], EvalConfig(questions=str(tmp_path / "range.jsonl")))
    assert e.value.code == "eval.answer_range" and (e.value.fields["answer"], e.value.fields["n"]) == (2, 2)
    with pytest.raises(UsageError) as e:
        draw_samples(load_run(runs["char"]), "the " * 40, EvalConfig())
    assert e.value.code == "eval.prompt_too_long" and e.value.fields == {"n": 160, "max_len": 128, "most": 127}


def test_a_run_that_cannot_sample_is_refused(tmp_path, capsys):
    argv = ["train", "--preset", "sine", "--out", str(tmp_path / "sine"), "--no-progress", "--threads=1"]
    assert main([*argv, "--max_steps=1", "--eval_iters=1", "--d_model=8", "--d_ff=16", "--n_layers=1"]) == 0
    capsys.readouterr()
    with pytest.raises(UsageError) as e:
        load_run(tmp_path / "sine")
    assert e.value.code == "eval.cannot_sample" and e.value.fields["kind"] == "regressor"
    assert main(["eval", str(tmp_path / "sine"), "--threads", "1"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
