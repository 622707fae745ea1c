"""`glassformer repeats`: the loop greedy decoding falls into, the heads that copy it, the logit
lens there, the heads ablated (explore/repeats.py).

The planted model (causal/ground_truth.py) has a known circuit: head 0.1 writes the previous token,
head 1.2 is the induction head and the only one that writes the output; every other head writes
where nobody reads. So at its loop the view must name 1.2, zeroing 1.2 or 0.1 must take the loop's
probability from near 1 to uniform (1/16: the output is then all zeros), and zeroing any other head
must change nothing.
"""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import pytest
import torch
from helpers import keyed, said, train_argv

from glassformer.causal.ground_truth import planted_induction_model
from glassformer.cli import main
from glassformer.config import ModelConfig
from glassformer.errors import UsageError
from glassformer.explore.repeats import MIN_CONTRAST, NEAR_TIE, loop_probability, repeats_view, write_greedily
from glassformer.inspect.repetition import MIN_SPAN, find_loop
from glassformer.models import GPT
from glassformer.sample import sample
from glassformer.text.tokenizers import CharTokenizer

pytestmark = pytest.mark.usefixtures("one_thread")

LETTERS = "abcdefghijklmnop"  # the planted model's 16 tokens


@pytest.fixture(scope="module")
def planted():
    return planted_induction_model(), CharTokenizer(LETTERS)


@pytest.fixture(scope="module")
def view(planted):
    return repeats_view(*planted, "abcab", control="hkdmp")


def test_the_loop_is_the_one_greedy_decoding_writes(planted, view):
    model, tok = planted
    heads, _ = view
    written = sample(model, tok, "abcab", 16 - 5, temperature=0)[0]  # the rest of the 16-token context
    assert written == "cabcabcabca"
    loop = heads.extra["loop"]
    assert (loop["start"], loop["period"], loop["text"], loop["span"]) == (0, 3, "cab", [2, 0, 1])
    assert heads.extra["loop_start"] == 5  # after the 5 prompt tokens


def test_the_induction_head_is_named_and_zeroing_it_breaks_the_loop(planted, view):
    model, tok = planted
    heads, _ = view
    assert heads.extra["named"] == [[1, 2]]
    x = torch.tensor([tok.encode("abcab" + "cabcabcabca")])  # (1, 16)
    by_hand = model(x)[0, 7:-1].softmax(-1).gather(-1, x[0, 8:, None]).mean()  # the 2nd and later copies
    assert heads.extra["loop_p"] == pytest.approx(float(by_hand), abs=1e-12) and heads.extra["loop_p"] > 0.99
    assert float(loop_probability(5, 3, x)(model(x))) == pytest.approx(heads.extra["loop_p"], abs=1e-12)
    assert heads.extra["loop_p_ablated"] == pytest.approx(1 / 16, abs=1e-12)  # no output left: uniform
    delta = dict(zip(heads.rows, [row[3] for row in heads.values], strict=True))
    assert delta["L1H2"] < -0.9 and delta["L0H1"] < -0.8  # the circuit: induction and its previous-token head
    assert all(abs(v) < 1e-6 for k, v in delta.items() if k not in ("L1H2", "L0H1"))  # heads nobody reads
    induction = dict(zip(heads.rows, [row[2] for row in heads.values], strict=True))
    assert induction["L1H2"] > 0.8 > heads.extra["bar"] > max(v for k, v in induction.items() if k != "L1H2")
    # without its induction head the planted model writes zeros: another loop, period 1, token "a"
    assert heads.extra["loop_ablated"]["period"] == 1 and heads.extra["loop_ablated"]["text"] == "a"
    assert heads.extra["seq_rep"] == pytest.approx(5 / 8) and heads.extra["seq_rep_ablated"] == pytest.approx(7 / 8)


def test_the_logit_lens_shows_where_the_loop_is_decided(planted, view):
    model, tok = planted
    _, lens = view
    assert lens.extra["position"] == 7 and lens.extra["token"] == 2  # predicting "c", the 2nd copy's first
    assert lens.extra["top"][1][0] == 2 and lens.extra["gap"][1] > 7  # after block 1: "c", clearly
    assert lens.extra["gap"][0] == pytest.approx(0.0, abs=1e-12)  # after block 0 nothing is written: a tie
    assert lens.extra["near_ties"] == ["L0"] and NEAR_TIE > 0
    assert lens.values[1][0] == pytest.approx(lens.extra["loop_token_p"][1], abs=1e-6)
    x = torch.tensor([tok.encode("abcab" + "cabcabcabca")])  # (1, 16)
    output = model(x)[0, 7].softmax(-1)[2]  # the last block read through the head IS the model's output
    assert lens.extra["loop_token_p"][1] == pytest.approx(float(output), abs=1e-12) and float(output) > 0.99


def test_the_control_prompt_is_written_and_measured_the_same_way(planted, view):
    model, tok = planted
    heads, _ = view
    control = tok.decode(write_greedily(model, tok.encode("hkdmp"), 11))
    assert heads.extra["control"]["loop"]["text"] == find_loop(tok.encode(control), tok).text
    assert set(heads.extra["control"]) == {"loop", "seq_rep", "loop_ablated", "seq_rep_ablated"}


def test_a_model_without_induction_heads_names_none():
    """One layer: no head can compose with a previous-token head, so none reaches the bar. Without
    positions a random model's greedy text soon loops on its last tokens alone ("efef…")."""
    torch.manual_seed(0)
    model = GPT(ModelConfig(vocab_size=6, max_len=32, d_model=16, n_layers=1, n_heads=2, position="none")).eval()
    heads, lens = repeats_view(model, CharTokenizer("abcdef"), "ab")
    assert (heads.extra["loop"]["period"], heads.extra["loop"]["text"]) == (2, "ef")
    assert heads.extra["named"] == [] and "loop_p_ablated" not in heads.extra
    assert max(row[2] for row in heads.values) < heads.extra["bar"]
    assert len(lens.rows) == 1 and len(set(lens.columns)) == len(lens.columns) == 5  # p(loop), the top 3, the gap
    assert all(row[-1] >= 0 for row in lens.values)  # the gap between the two top logits: never negative


def test_the_attention_only_control_is_read_and_names_none():
    """The done-when's control: one layer, attention only (ffn="none"), no FFN hook points, read by the
    same view; its loop is there, the text can tell heads apart, and no head reaches the bar."""
    torch.manual_seed(0)
    cfg = ModelConfig(vocab_size=6, max_len=32, d_model=16, n_layers=1, n_heads=2, position="none", ffn="none")
    model = GPT(cfg).eval()
    assert not [n for n in model.hook_names() if ".ffn" in n]
    heads, lens = repeats_view(model, CharTokenizer("abcdef"), "ab")
    assert heads.extra["loop"]["period"] == 3 and heads.extra["readable"]
    assert heads.extra["named"] == [] and max(row[2] for row in heads.values) < heads.extra["bar"]
    assert heads.rows == ["L0H0", "L0H1"] and len(lens.rows) == 1


def test_a_loop_of_one_token_names_no_head_the_detectors_cannot_read():
    """On a text of one repeated token an evenly attending head scores nearly what a perfect induction
    head does: the scores say nothing, so no head is named and the note says why."""
    torch.manual_seed(0)
    model = GPT(ModelConfig(vocab_size=6, max_len=32, d_model=16, n_layers=2, n_heads=2, d_ff=16, dropout=0.0))
    with torch.no_grad():
        model.ln_final.weight.zero_()  # the same logits after any text: greedy writes one token forever
    with said() as heard:
        heads, _ = repeats_view(model.eval(), CharTokenizer("abcdef"), "b")
    e = heads.extra
    assert e["loop"]["period"] == 1 and e["perfect"] - e["chance"] < MIN_CONTRAST and e["readable"] is False
    assert e["named"] == [] and "loop_p_ablated" not in e
    (note,) = heard.carrying(contrast=MIN_CONTRAST)
    assert note["gain"] == pytest.approx(e["perfect"] - e["chance"])


@pytest.mark.parametrize(
    "prompt, kwargs, key, fields",
    [
        ("abcdefghij", {}, "repeats.too_long", {"flag": "--prompt", "n": 10, "max_len": 16, "most": 16 - MIN_SPAN}),
        ("ab", {"control": "abcdefghijk"}, "repeats.too_long", {"flag": "--control", "n": 11}),
        ("", {}, "cview.empty", {"flag": "--prompt"}),
        ("abcab", {"max_new_tokens": 4}, "repeats.no_loop", {"n": 4}),  # too short to hold a loop
    ],
)
def test_bad_input_is_one_usage_error(planted, prompt, kwargs, key, fields):
    got, said_ = keyed(UsageError, repeats_view, *planted, prompt, **kwargs)
    assert got == key and {k: said_[k] for k in fields} == fields


# ---- the verb, on a run trained on text that invites a loop ------------------------------------
@pytest.fixture(scope="module")
def loopy(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("repeats_cli")
    text = tmp / "loopy.txt"
    text.write_text("the cat sat on the mat. the dog ran to the log. " * 300, encoding="utf-8")
    assert main(train_argv(tmp, "run", "--max_steps=40", "--eval_interval=40", "--eval_iters=2",
                           data=f"file:{text}")) == 0  # fmt: skip
    return tmp / "run"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_verb_prints_both_tables_and_writes_png_html_json(loopy, tmp_path, capsys, lang):
    out = tmp_path / "out"
    argv = ["repeats", str(loopy), "--prompt", "the ", "--control", "dog", "--out", str(out), "--threads", "1"]
    assert main([*argv, "--lang", lang]) == 0
    printed = capsys.readouterr().out
    assert bool(re.search("[\u4e00-\u9fff]", printed)) == (lang == "zh")  # the tables in the language asked for
    for stem in ("repeats", "repeats_lens"):
        assert (out / f"{stem}.png").read_bytes()[:4] == b"\x89PNG"
        html = (out / f"{stem}.html").read_text(encoding="utf-8")
        assert "http://" not in html and "https://" not in html  # offline
    figures = json.loads((out / "repeats.json").read_text(encoding="utf-8"))["extra"]
    from glassformer.train.run import load_model

    model, tok, _ = load_model(loopy)
    written = sample(model, tok, "the ", model.cfg.max_len - 4, temperature=0)[0]
    assert figures["loop"]["period"] == find_loop(tok.encode(written)).period
    assert figures["loop"]["text"] == find_loop(tok.encode(written), tok).text


def test_a_run_that_cannot_write_is_one_clear_line(monkeypatch, capsys):
    import glassformer.train.run as run_module

    monkeypatch.setattr(
        run_module, "load_model", lambda run: (SimpleNamespace(samples=False, kind="regressor"), None, {})
    )
    with said() as heard:
        assert main(["repeats", "runs/numbers", "--prompt", "x"]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert heard.of("sample.no_text") == [{"run": "runs/numbers", "kind": "regressor"}]
    assert "runs/numbers" in line and "regressor" in line


# ---- the sweep: repetition against each knob ---------------------------------------------------
def test_the_sweep_measures_each_knob_on_the_samples_sample_draws():
    from glassformer.explore.repeats import SWEEP, sweep_view
    from glassformer.inspect.repetition import distinct_n, seq_rep_n
    from glassformer.logits_processors import Knobs

    torch.manual_seed(0)
    model = GPT(ModelConfig(vocab_size=6, max_len=32, d_model=16, n_layers=1, n_heads=2)).eval()
    tok = CharTokenizer("abcdef")
    grid = sweep_view(model, tok, "ab", samples=4, max_new_tokens=20, temperature=0.7, seed=3)
    row = dict(zip(grid.rows, grid.values, strict=True))
    assert len(grid.rows) == sum(map(len, SWEEP.values()))
    offs = [row["repetition_penalty=1.0"], row["frequency_penalty=0.0"], row["no_repeat_ngram=off"], row["min_p=0.0"]]
    assert all(v == offs[0] for v in offs)  # every knob's off value is the same text
    assert row["no_repeat_ngram=4"][0] == row["no_repeat_ngram=2"][0] == 0.0  # no 4-gram can repeat
    # one setting by hand: the texts `sample` writes with that knob, the same seed and batch
    texts = sample(model, tok, "ab", 20, temperature=0.7, num_samples=4, seed=3, knobs=Knobs(repetition_penalty=1.5))
    ids = [tok.encode(text) for text in texts]
    mean_rep = sum(seq_rep_n(i, 4) for i in ids) / 4
    assert row["repetition_penalty=1.5"] == [round(mean_rep, 6), round(distinct_n(ids, 2), 6)]
    assert row["repetition_penalty=1.5"] != offs[0]  # the knob changed the text: the check can fail


def test_the_sweep_flag_writes_the_chart(loopy, tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["repeats", str(loopy), "--prompt", "the ", "--sweep", "--samples", "2", "--max-new-tokens", "12"]
    assert main([*argv, "--out", str(out), "--threads", "1"]) == 0
    assert "typical_p=0.2" in capsys.readouterr().out
    assert (out / "repeats_sweep_chart.png").read_bytes()[:4] == b"\x89PNG"
    series = json.loads((out / "repeats_sweep.json").read_text(encoding="utf-8"))["extra"]["series"]
    assert [p[0] for p in series["no_repeat_ngram"]] == ["off", 6, 4, 3, 2]
