"""train/saved.py whole: every refusal of a run directory read back, word for word, and what each
reader keeps, drops or translates. The run directories are written by hand (a tiny regressor's
config.json and weights), so no training is needed."""

from __future__ import annotations

import json

import pytest
import torch

from glassformer.config import ModelConfig, TrainConfig, to_dict
from glassformer.errors import DamagedFile, NotFound
from glassformer.messages import speaking
from glassformer.models import build_model
from glassformer.text.tokenizers import CharTokenizer
from glassformer.train.checkpoint import (
    build_saved,
    check_vocab,
    load_model,
    model_config,
    read_config,
    save_weights,
    train_config,
)

FIX = "glassformer train writes it when a run starts; restore it from a copy, or start a new run."
TINY = ModelConfig(kind="regressor", vocab_size=1, d_model=8, n_heads=2, d_ff=16, n_layers=1, max_len=8, causal=False)


def refusal(kind, call, *args, **kw) -> str:
    with pytest.raises(kind) as e:
        call(*args, **kw)
    return str(e.value)


def write_run(run_dir, model_cfg=TINY, weights=True, **extra):
    run_dir.mkdir(parents=True, exist_ok=True)
    config = {"source": "sine", "model": to_dict(model_cfg), "train": to_dict(TrainConfig(max_steps=3)), **extra}
    (run_dir / "config.json").write_text(json.dumps(config))
    torch.manual_seed(0)
    model = build_model(model_cfg)
    if weights:
        save_weights(run_dir / "model.safetensors", model, 2)
    return model


def test_a_path_that_is_not_a_run_directory_is_named_with_an_example(tmp_path):
    ex = "runs/baby-20250101-120000"
    (tmp_path / "f").write_text("x")
    assert refusal(NotFound, read_config, tmp_path / "f") == (
        f"{tmp_path / 'f'} is a file, not a run directory. Give the directory glassformer train wrote, e.g. {ex}."
    )
    assert refusal(NotFound, read_config, str(tmp_path / "none")) == (
        f"{tmp_path / 'none'} is not a run directory: it does not exist. Give the directory glassformer train wrote, "
        f"e.g. {ex}."
    )
    assert refusal(NotFound, read_config, tmp_path) == (
        f"{tmp_path} is not a run directory: it has no config.json. Give the directory glassformer train wrote, "
        f"e.g. {ex}."
    )
    with speaking("zh"):
        assert refusal(NotFound, read_config, tmp_path / "none") == (
            f"{tmp_path / 'none'} 不是运行目录：它不存在。请给出 glassformer train 写出的目录，例如 {ex}。"
        )


@pytest.mark.parametrize(
    "config",
    [
        [1],
        {"model": {}},
        {"train": {}},
        {"model": [], "train": {}},
        {"model": {}, "train": 3},
        {"model": {}, "train": {}, "source": 5},
    ],
)
def test_a_config_of_the_wrong_shape_is_damaged(tmp_path, config):
    (tmp_path / "config.json").write_text(json.dumps(config))
    assert refusal(DamagedFile, read_config, tmp_path) == (
        f'{tmp_path / "config.json"} is damaged: it must be a JSON object with "model" and "train" objects (and a '
        f'"source" string). {FIX}'
    )


def test_a_config_that_is_not_json_names_the_file_and_the_fix(tmp_path):
    (tmp_path / "config.json").write_text("{not json")
    msg = refusal(DamagedFile, read_config, tmp_path)
    assert "config.json" in msg and msg.endswith(FIX)


def test_a_minimal_config_reads_back_as_written(tmp_path):
    (tmp_path / "config.json").write_text('{"model": {}, "train": {}}')
    assert read_config(tmp_path) == {"model": {}, "train": {}}


def test_model_config_keeps_its_fields_drops_others_and_translates_old_spellings():
    saved = {**to_dict(TINY), "mha_style": "fused", "retired_field": 1, "lr": "not a model field"}
    cfg = model_config({"model": saved})
    assert cfg == ModelConfig(**{**to_dict(TINY), "mha_style": "packed"})
    assert model_config({"model": {}}).kind == "gpt"  # runs saved before `kind` were all GPTs


def test_a_bad_model_or_train_value_names_the_config_file(tmp_path):
    assert refusal(DamagedFile, model_config, {"model": {"d_model": "wide"}}, tmp_path) == (
        f"{tmp_path / 'config.json'} holds an invalid config: --d_model='wide': expected a value of type int. {FIX}"
    )
    assert refusal(DamagedFile, model_config, {"model": {"d_model": "wide"}}) == (
        f"config.json holds an invalid config: --d_model='wide': expected a value of type int. {FIX}"
    )
    assert refusal(DamagedFile, model_config, {"model": {"kind": "nope"}}, tmp_path) == (
        f"{tmp_path / 'config.json'} holds an invalid config: kind='nope' is not a model kind; choose one of "
        f"['encoder', 'gpt', 'regressor', 'seq2seq']. {FIX}"
    )
    assert refusal(DamagedFile, model_config, {"model": {"kind": "nope"}}).startswith("config.json holds an invalid")
    assert refusal(DamagedFile, train_config, {"train": {"lr": "fast"}}, tmp_path) == (
        f"{tmp_path / 'config.json'} holds an invalid config: --lr='fast': expected a value of type float. {FIX}"
    )
    cfg = train_config({"train": {"max_steps": 7, "retired": True, "d_model": "not a train field"}})
    assert cfg == TrainConfig(max_steps=7)


def test_build_saved_names_the_config_of_a_model_that_cannot_be_built(tmp_path, monkeypatch):
    import glassformer.train.checkpoint as saved

    def gone(cfg):
        raise ValueError("position='alibi2' is not a position scheme.")

    monkeypatch.setattr(saved, "build_model", gone)
    assert refusal(DamagedFile, build_saved, TINY, tmp_path) == (
        f"{tmp_path / 'config.json'} holds an invalid config: position='alibi2' is not a position scheme. {FIX}"
    )


def test_check_vocab_names_both_sizes(tmp_path):
    tok = CharTokenizer.from_text("abc")
    check_vocab(tmp_path, tok, ModelConfig(vocab_size=3))
    assert refusal(DamagedFile, check_vocab, str(tmp_path), tok, ModelConfig(vocab_size=4)) == (
        f"{tmp_path / 'tokenizer.json'} has 3 tokens but the model in config.json has vocab_size=4: they are not from "
        "the same run. Restore the run's own tokenizer.json."
    )


def test_load_model_reads_the_latest_or_the_best_weights_in_eval_mode(tmp_path):
    model = write_run(tmp_path / "run")
    loaded, tokenizer, config = load_model(str(tmp_path / "run"))
    assert tokenizer is None and config == json.loads((tmp_path / "run" / "config.json").read_text())
    assert not loaded.training and loaded.cfg == TINY
    assert all(torch.equal(a, b) for a, b in zip(loaded.state_dict().values(), model.state_dict().values(), strict=False))
    assert next(loaded.parameters()).device.type == "cpu"
    best = tmp_path / "run" / "best.safetensors"
    assert refusal(NotFound, load_model, tmp_path / "run", best=True) == (
        f"{best} does not exist: it is written at the first evaluation that lowers the validation loss. Drop --best "
        "to use the latest weights."
    )
    torch.manual_seed(5)
    save_weights(best, build_model(TINY), 1)
    best_model = load_model(tmp_path / "run", best=True)[0]
    assert not torch.equal(next(best_model.parameters()), next(loaded.parameters()))
    write_run(tmp_path / "empty", weights=False)
    assert refusal(NotFound, load_model, tmp_path / "empty") == (
        f"{tmp_path / 'empty' / 'model.safetensors'} does not exist: the run has not saved a checkpoint yet (training "
        "saves one at every evaluation)."
    )
    with pytest.raises(Exception, match="cuda:99"):
        load_model(tmp_path / "run", device="cuda:99")


def test_a_token_models_tokenizer_is_loaded_and_checked(tmp_path):
    tok = CharTokenizer.from_text("abcd")
    cfg = ModelConfig(vocab_size=4, d_model=8, n_heads=2, d_ff=16, n_layers=1, max_len=8)
    write_run(tmp_path / "run", cfg)
    tok.save(tmp_path / "run" / "tokenizer.json")
    assert load_model(tmp_path / "run")[1].vocab_size == 4
    CharTokenizer.from_text("abc").save(tmp_path / "run" / "tokenizer.json")
    assert refusal(DamagedFile, load_model, tmp_path / "run").startswith(
        f"{tmp_path / 'run' / 'tokenizer.json'} has 3 tokens but the model in config.json has vocab_size=4"
    )


def test_a_pair_models_tokenizer_is_loaded_too(tmp_path):
    from glassformer.train.data import pair_tokenizer

    tok = pair_tokenizer()
    cfg = ModelConfig(
        kind="seq2seq",
        vocab_size=tok.vocab_size,
        d_model=8,
        n_heads=2,
        d_ff=16,
        n_layers=1,
        max_len=8,
        norm="post",
        final_norm=False,
        position="sinusoidal",
        pad_id=tok.pad_id,
    )
    write_run(tmp_path / "run", cfg)
    tok.save(tmp_path / "run" / "tokenizer.json")
    assert load_model(tmp_path / "run")[1].vocab_size == tok.vocab_size
