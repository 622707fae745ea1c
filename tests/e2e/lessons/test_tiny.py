"""Lesson 0 (`glassformer lesson tiny`): the first tutorial's model, recomputed, linked to the lab."""

from __future__ import annotations

import pytest
from lesson_checks import assert_valid_png

from glassformer.cli import main
from glassformer.lab import experiments
from glassformer.lab.runner import run_experiment
from glassformer.lessons import tiny
from glassformer.lessons.tiny import PUBLISHED_000_PARAMS, TUTORIAL_000_TEXT
from glassformer.messages import speaking, t


@pytest.fixture(scope="module")
def lab_dir(tmp_path_factory):
    """A lab folder holding one real (fast) result, as `glassformer lab run mask-fill` writes it."""
    folder = tmp_path_factory.mktemp("lab")
    run_experiment(experiments()["mask-fill"], fast=True, out=folder, echo=lambda s: None)
    return folder


@pytest.fixture(scope="module")
def lesson(tmp_path_factory, lab_dir):
    lines = []
    result = tiny.run(out=tmp_path_factory.mktemp("tiny"), fast=True, echo=lines.append, lab=lab_dir)
    return result, "\n".join(lines)


def hand_count(V=16, C=64, H=4, F=128, L=128, layers=2):
    """The TinyTransformer counted by hand: embeddings, per block two LayerNorms, H heads of q/k/v
    (C -> C/H, with biases), the output projection, the FFN; final LayerNorm and head."""
    D = C // H
    block = 2 * 2 * C + H * 3 * (C * D + D) + (C * C + C) + (C * F + F) + (F * C + C)
    return V * C + L * C + layers * block + 2 * C + (C * V + V)


def test_tokenizer_matches_the_tutorials_recipe(lesson):
    r, text = lesson
    chars = sorted(set(TUTORIAL_000_TEXT))  # the tutorial's stoi, rebuilt independently
    assert r["vocab_size"] == len(chars) == 16
    assert r["ids"][:20] == [chars.index(c) for c in TUTORIAL_000_TEXT[:20]]
    assert f"ids[:20] = {r['ids'][:20]}" in text and "vocab_size: 16" in text


def test_parameter_count_is_counted_not_copied(lesson):
    p = lesson[0]["params"]
    assert p["ours"] == hand_count() == 77_328
    assert p["formulas_match"] and p["ours"] != PUBLISHED_000_PARAMS
    assert f"{p['ours']:,}" in lesson[1] and f"{PUBLISHED_000_PARAMS:,}" in lesson[1]


def test_the_tutorials_sampler_never_predicts_the_last_character(lesson):
    b = lesson[0]["batches"]
    n = len(TUTORIAL_000_TEXT)
    assert (b["starts_tutorial"], b["last_target_tutorial"]) == (n - 17, n - 2)
    assert (b["starts_ours"], b["last_target_ours"]) == (n - 16, n - 1)


def test_training_learns_and_sampling_writes(lesson):
    t = lesson[0]["training"]
    assert len(t["losses"]) == tiny.FAST_STEPS and list(t["printed"]) == [0]
    assert t["last_mean"] < t["losses"][0] - 1.0  # the loss falls clearly, as the tutorial expects
    s = lesson[0]["sample"]
    assert len(s["text"]) == tiny.MAX_NEW and s["steps_with_cropped_context"] == 5 + 50 - 32


def test_every_claim_links_to_a_lab_experiment_and_shows_a_verdict_at_hand(lesson):
    known = experiments()
    for _where, _phrase, name, claim in tiny.LAB_LINKS:
        assert name in known, name
        assert claim is None or claim in {c.key for c in known[name].claims}, claim
    rows = {r["experiment"]: r for r in lesson[0]["claims"]}
    assert rows["mask-fill"]["level"] == "holds"  # read from the lab folder's results.json
    assert rows["order"]["level"] is None  # not run there: no verdict invented
    assert "glassformer lab run order" in lesson[1]


def test_files_are_valid_pngs(lesson):
    assert [f.name for f in lesson[0]["files"]] == ["loss.png", "attention.png"]
    for f in lesson[0]["files"]:
        assert_valid_png(f)


def test_cli_in_chinese_without_lab_results(tmp_path, capsys):
    assert (
        main(
            [
                "lesson",
                "tiny",
                "--fast",
                "--lang",
                "zh",
                "--out",
                str(tmp_path),
                "--lab",
                str(tmp_path / "none"),
                "--threads",
                "1",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    with speaking("zh"):
        assert (
            t("3. Parameters, counted from the model (formula beside each part)") in out
            and t(
                "No lab results found in {lab}: run `glassformer lab run "
                "NAME --out {lab}` (or pass --lab DIR) to see the verdicts "
                "here.",
                lab="docs/lab",
            )
            in out
        )
    assert "glassformer lab run scaling" in out
    assert "合计" in out and "每个词元一个 C 维向量" in out  # the parameter table in Chinese too
