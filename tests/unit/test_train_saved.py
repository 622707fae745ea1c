"""What a finished run gives back (train/saved.py, train/run.py): the weights asked for (latest or
best), and a config.json that holds something other than a trainable run refused with a message
that names the file, the problem and the way out."""

from __future__ import annotations

import json
import shutil

import pytest
import torch
from safetensors.torch import load_file, save_file

from glassformer.errors import DamagedFile, NotFound, UsageError
from glassformer.train.checkpoint import model_config
from glassformer.train.run import load_model, new_run, resume_run, train

pytestmark = pytest.mark.usefixtures("one_thread")  # fixture in tests/conftest.py


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A run of 2 steps of a one-layer model (about 2 s), copied by each test that changes it."""
    tmp = tmp_path_factory.mktemp("saved")
    run = new_run(
        "seed000",
        ["--max_steps=2", "--eval_interval=2", "--eval_iters=1", "--d_model=16", "--n_layers=1"],
        source="builtin:seed",
        out=tmp / "run",
        cache_dir=tmp / "cache",
        progress=False,
        sample_chars=0,
    )
    train(run)
    assert not (run.dir / "samples.txt").exists()  # sample_chars=0: no text sampled at evaluations
    return run.dir


def copy_of(run_dir, tmp_path):
    return shutil.copytree(run_dir, tmp_path / "run")


def test_best_loads_best_safetensors_and_the_default_loads_the_latest(finished, tmp_path):
    """Bug guarded: `best=True` ignored, so --best silently samples the latest weights."""
    run = copy_of(finished, tmp_path)
    latest = load_file(run / "model.safetensors")
    best = {name: tensor + 1.0 for name, tensor in latest.items()}  # unmistakably other weights
    save_file(best, run / "best.safetensors")
    for wanted, flag in ((best, True), (latest, False)):
        model, tokenizer, _ = load_model(run, best=flag)
        state = model.state_dict()
        assert all(torch.equal(state[name], wanted[name]) for name in wanted)
        assert tokenizer is not None and tokenizer.vocab_size == model.cfg.vocab_size


def test_missing_weights_name_the_file_and_what_to_do(finished, tmp_path):
    run = copy_of(finished, tmp_path)
    (run / "best.safetensors").unlink()
    with pytest.raises(NotFound) as caught:
        load_model(run, best=True)
    assert str(caught.value) == (
        f"{run / 'best.safetensors'} does not exist: it is written at the first "
        "evaluation that lowers the validation loss. Drop --best to use the latest weights."
    )
    load_model(run)  # the latest weights are still there
    (run / "model.safetensors").unlink()
    with pytest.raises(NotFound, match=r"model\.safetensors does not exist: the run has not saved a checkpoint"):
        load_model(run)


def test_an_unknown_model_kind_names_the_config_file(finished):
    """Bug guarded: the error path built wrongly (a TypeError instead of the message). Without a run
    directory the file is named as it would be read: config.json in the current folder."""
    config = json.loads((finished / "config.json").read_text(encoding="utf-8"))
    config["model"]["kind"] = "nope"
    for run_dir, shown in ((finished, finished / "config.json"), (None, "config.json")):
        with pytest.raises(DamagedFile) as caught:
            model_config(config, run_dir)
        assert str(caught.value).startswith(
            f"{shown} holds an invalid config: kind='nope' is not a model kind; "
            "choose one of ['encoder', 'gpt', 'regressor', 'seq2seq']."
        )


@pytest.mark.parametrize(
    "imported, origin", [({"from": "gpt2 (Hugging Face)"}, "gpt2 (Hugging Face)"), ({}, "elsewhere")]
)
def test_resuming_an_imported_model_says_where_it_came_from(finished, tmp_path, imported, origin):
    """An imported model (a config with `imported` and no `source`) has no optimizer state to resume;
    the refusal names where it came from, or "elsewhere" when the config does not say."""
    run = copy_of(finished, tmp_path)
    config = json.loads((run / "config.json").read_text(encoding="utf-8"))
    del config["source"]
    config["imported"] = imported
    (run / "config.json").write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(UsageError) as caught:
        resume_run(run, [], cache_dir=tmp_path / "cache", progress=False)
    assert str(caught.value).startswith(
        f"{run} holds a model imported from {origin}, not a glassformer "
        "training run: it has no optimizer state and no training data"
    )
    assert f"glassformer export gpt2 {run} --out DIR" in str(caught.value)  # the way to train it further


def test_a_tokenizer_of_another_size_is_refused_naming_both(finished):
    """tokenizer.json and config.json from different runs: the ids would index the wrong rows."""
    from dataclasses import replace

    from glassformer.text.tokenizers import load_tokenizer
    from glassformer.train.checkpoint import check_vocab

    config = json.loads((finished / "config.json").read_text(encoding="utf-8"))
    cfg, tokenizer = model_config(config, finished), load_tokenizer(finished / "tokenizer.json")
    check_vocab(finished, tokenizer, cfg)  # the run's own pair agrees
    with pytest.raises(DamagedFile) as caught:
        check_vocab(finished, tokenizer, replace(cfg, vocab_size=cfg.vocab_size + 3))
    assert str(caught.value).startswith(
        f"{finished / 'tokenizer.json'} has {cfg.vocab_size} tokens but the model "
        f"in config.json has vocab_size={cfg.vocab_size + 3}: they are not from "
        "the same run."
    )
