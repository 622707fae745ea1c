"""The sample a run writes at each evaluation (run._eval_sampler): on "eval" events only, drawn with the
run's seed at temperature 0.8 from the prompt (a newline, or the first token for a vocabulary without
one), shown on the progress line and appended to samples.txt, in English and Chinese."""

from __future__ import annotations

from types import SimpleNamespace

import torch

from glassformer.config import get_preset
from glassformer.messages import speaking
from glassformer.models import build_model
from glassformer.sample import sample
from glassformer.text.tokenizers import CharTokenizer
from glassformer.train.run import EVAL_SAMPLE_CHARS, EVAL_SAMPLE_TEMPERATURE, _eval_sampler


def model_for(tok):
    torch.manual_seed(0)
    cfg = get_preset("seed000").model
    cfg.vocab_size = tok.vocab_size
    model = build_model(cfg).eval()
    with torch.no_grad():
        for p in model.parameters():
            p.mul_(4)  # logits far from uniform: another temperature draws other text
    return model


def trainer(model, step, seed=11):
    shown = []
    return SimpleNamespace(
        model=model, step=step, cfg=SimpleNamespace(seed=seed), progress=SimpleNamespace(write=shown.append)
    ), shown


def test_each_evaluation_shows_and_keeps_a_seeded_sample(tmp_path):
    assert (EVAL_SAMPLE_CHARS, EVAL_SAMPLE_TEMPERATURE) == (200, 0.8)
    tok = CharTokenizer.from_text("ab c\nde")
    model, path = model_for(tok), tmp_path / "samples.txt"
    on_event = _eval_sampler(tok, None, 30, path)
    t3, shown = trainer(model, 3)
    on_event("step", t3)
    assert shown == [] and not path.exists()  # only evaluations sample
    expected = sample(model, tok, "\n", 30, temperature=0.8, seed=11)[0]
    assert expected != sample(model, tok, "\n", 30, temperature=0.1, seed=11)[0]  # the temperature tells
    on_event("eval", t3)
    t5, shown5 = trainer(model, 5)
    with speaking("zh"):
        on_event("eval", t5)
    assert shown == [f"--- sample at step 3 ---\n\n{expected}\n---"]
    assert shown5 == [f"--- 第 5 步的样本 ---\n\n{expected}\n---"]
    assert path.read_text(encoding="utf-8") == f"=== step 3 ===\n\n{expected}\n\n=== step 5 ===\n\n{expected}\n\n"
    other, shown_other = trainer(model, 3, seed=12)
    on_event("eval", other)
    assert shown_other[0] != shown[0]  # the run's seed, not a fixed one


def test_a_vocabulary_without_a_newline_starts_from_its_first_token_or_the_given_prompt(tmp_path):
    tok = CharTokenizer.from_text("xyz")
    model = model_for(tok)
    t0, shown = trainer(model, 0)
    _eval_sampler(tok, None, 5, tmp_path / "a.txt")("eval", t0)
    assert shown[0].startswith("--- sample at step 0 ---\nx") and (tmp_path / "a.txt").read_text().startswith(
        "=== step 0 ===\nx"
    )
    t0, shown = trainer(model, 0)
    _eval_sampler(tok, "zy", 5, tmp_path / "b.txt")("eval", t0)
    text = sample(model, tok, "zy", 5, temperature=0.8, seed=11)[0]
    assert shown == [f"--- sample at step 0 ---\nzy{text}\n---"]


def test_each_evaluation_of_a_seq2seq_run_translates_the_first_four_val_sources(tmp_path, monkeypatch):
    from glassformer.train import run as run_module
    from glassformer.train.run import _eval_translator

    data = SimpleNamespace(val=[("一", "1"), ("二", "2"), ("三", "3"), ("四", "4"), ("五", "5")])
    asked = []
    monkeypatch.setattr(
        run_module, "translate", lambda model, d, sources: asked.append((model, d, sources)) or ["1", "", "33", "4"]
    )
    path = tmp_path / "samples.txt"
    on_event = _eval_translator(data, path)
    t3, shown = trainer("the model", 3)
    on_event("step", t3)
    assert asked == [] and shown == [] and not path.exists()
    on_event("eval", t3)
    assert asked == [("the model", data, ["一", "二", "三", "四"])]
    lines = "一 → 1\n二 → ∅   (expected 2)\n三 → 33   (expected 3)\n四 → 4"
    assert shown == [f"--- translations at step 3 ---\n{lines}\n---"]
    t4, shown4 = trainer("the model", 4)
    with speaking("zh"):
        on_event("eval", t4)
    lines_zh = "一 → 1\n二 → ∅   （应为 2）\n三 → 33   （应为 3）\n四 → 4"
    assert shown4 == [f"--- 第 4 步的翻译 ---\n{lines_zh}\n---"]
    assert path.read_text(encoding="utf-8") == f"=== step 3 ===\n{lines}\n\n=== step 4 ===\n{lines_zh}\n\n"
