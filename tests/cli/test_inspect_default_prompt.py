"""`glassformer trace | attention | grads --run RUN` without --prompt read the run's own text, as the
explorer opens it (issue 44.2): a Chinese run's vocabulary has no 'h', 'e', 'l', 'o' ..., and the
old hidden default "hello world" failed with an error about text the user never typed. Every
vocabulary error of these verbs names --prompt."""

from __future__ import annotations

import json

import pytest
from helpers import said

from glassformer.cli import inspect as inspect_cli
from glassformer.cli import main
from glassformer.config import get_preset, to_dict
from glassformer.explore.panels import readable_text
from glassformer.messages import speaking, t
from glassformer.models import GPT
from glassformer.text import CharTokenizer
from glassformer.text.tokenizers import load_tokenizer
from glassformer.train.checkpoint import MODEL_FILE, save_weights

POEMS = "床前明月光，疑是地上霜。\n举头望明月，低头思故乡。\n"
OWN = "举头望明月，低头思故乡。"  # what training keeps in config.json as the run's example


def chinese_run(folder, example: str | None = OWN, text: str = POEMS):
    tok = CharTokenizer.from_text(text)
    preset = get_preset("seed000")
    preset.model.vocab_size, preset.model.n_layers = tok.vocab_size, 1
    folder.mkdir(parents=True)
    config = {"preset": "seed000", "model": to_dict(preset.model), "train": to_dict(preset.train)}
    if example is not None:
        config["example"] = example
    (folder / "config.json").write_text(json.dumps(config, ensure_ascii=False), encoding="utf-8")
    tok.save(folder / "tokenizer.json")
    save_weights(folder / MODEL_FILE, GPT(preset.model), step=1)
    return folder


@pytest.fixture
def read_texts(monkeypatch):
    """The texts the verbs encode as their prompt."""
    texts, real = [], inspect_cli._encode
    monkeypatch.setattr(
        inspect_cli, "_encode", lambda tok, text, shown=None: texts.append(text) or real(tok, text, shown)
    )
    return texts


@pytest.mark.parametrize("verb", ["trace", "attention", "grads"])
def test_a_chinese_run_is_inspected_on_its_own_text_without_prompt(tmp_path, capsys, read_texts, verb):
    run = chinese_run(tmp_path / "zh")
    assert main([verb, "--run", str(run), "--lang", "zh", "--out", str(tmp_path / "out")]) == 0
    assert read_texts == [OWN]


def test_a_run_without_a_kept_example_reads_a_sentence_its_vocabulary_spells(tmp_path, capsys, read_texts):
    """As the explorer: the same function (explore/panels.py readable_text) chooses."""
    first = POEMS.splitlines()[0]  # a line of the run's training text, which its vocabulary spells
    run = chinese_run(tmp_path / "old", example=None, text=POEMS + first)
    assert main(["trace", "--run", str(run), "--out", str(tmp_path / "out")]) == 0
    assert read_texts == [readable_text(load_tokenizer(run / "tokenizer.json"))] == [first]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_text_the_vocabulary_cannot_read_is_refused_naming_prompt(tmp_path, capsys, lang):
    run = chinese_run(tmp_path / "zh")
    with said() as heard:
        code = main(["trace", "--run", str(run), "--prompt", "hello", "--lang", lang, "--out", str(tmp_path / "o")])
    assert code == 2 and not (tmp_path / "o").exists()
    (fields,) = heard.of("inspect.prompt_unreadable")
    assert fields["prompt"] == "hello" and "tokenizer.unseen" in heard.keys()
    err = capsys.readouterr().err
    [english] = [key for key, said_fields in heard if said_fields == fields and key != "inspect.prompt_unreadable"]
    with speaking(lang):
        refusal = t(english, **fields)
    assert refusal in err and "--prompt" in refusal  # the flag that fixes it, in both languages


def test_a_run_whose_vocabulary_reads_no_example_names_prompt_too(tmp_path, capsys):
    run = chinese_run(tmp_path / "odd", example=None, text="龘靐齉\n")
    with said() as heard:
        assert main(["attention", "--run", str(run), "--out", str(tmp_path / "o")]) == 2
    assert "inspect.prompt_unreadable" in heard.keys()
