"""Lesson 0 (`glassformer lesson tiny`): the first tutorial's model, recomputed, linked to the lab."""

from __future__ import annotations

import dataclasses
import re

import pytest
from helpers import said
from lesson_checks import assert_valid_png

from glassformer.cli import main
from glassformer.lab import experiments
from glassformer.lab.runner import run_experiment
from glassformer.lessons import tiny
from glassformer.lessons.common import Narrator
from glassformer.lessons.tiny import PUBLISHED_000_PARAMS, TUTORIAL_000_TEXT
from glassformer.models import build_model


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
    shown = dict(line.strip().partition(": ")[::2] for line in text.splitlines())  # the tutorial's printout
    assert f"ids[:20] = {r['ids'][:20]}" in text and shown["vocab_size"] == "16"


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
    assert ["glassformer", "lab", "run", "order"] in commands(lesson[1])  # how to get the verdict, and none shown


def test_files_are_valid_pngs(lesson):
    assert [f.name for f in lesson[0]["files"]] == ["loss.png", "attention.png"]
    for f in lesson[0]["files"]:
        assert_valid_png(f)


def test_cli_in_chinese_without_lab_results(tmp_path, capsys):
    with said() as heard:
        code = main(
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
    assert code == 0
    out = capsys.readouterr().out
    titles = [line for line in out.splitlines() if line.startswith("== ") and line.endswith(" ==")]
    assert len(titles) >= 6 and all(re.search("[\u4e00-\u9fff]", title) for title in titles)  # sections in Chinese
    assert heard.carrying(lab="docs/lab")  # no lab results: where they would be, how to make them
    assert ["glassformer", "lab", "run", "scaling"] in commands(out)
    lines = []  # the parameter table in Chinese too, as the lesson counts it
    model = build_model(dataclasses.replace(tiny.PRESET.model, vocab_size=16, mha_style="heads"))
    tiny.count_parameters(Narrator("zh", echo=lines.append), model)
    table = lines[1:-2]  # between the section's title and the two sentences after it
    assert len(table) > 5 and all(line in out for line in table) and re.search("[\u4e00-\u9fff]", "".join(table))


def commands(text: str) -> list[list[str]]:
    """The lines of `text` that are a command (glassformer ...), as its words."""
    return [line.split() for line in text.splitlines() if line.split()[:1] == ["glassformer"]]
