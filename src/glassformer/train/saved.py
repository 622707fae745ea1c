"""A saved run read back: its config.json, the model and training configs in it, and its trained
model — each checked, so a damaged or edited file is an error that names it (docs/reliability.md)
instead of a parser's message or, worse, a model that silently differs from the one trained.

    read_config(run_dir)            config.json as a dict, checked to hold model and train configs
    model_config / train_config     the dataclasses, every field type- and range-checked
    load_model(run_dir, best, device)   the trained model, its tokenizer and config (sample, inspect)
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import torch

from glassformer.config import ModelConfig, Preset, TrainConfig, apply_overrides
from glassformer.devices import check_device
from glassformer.errors import DamagedFile, NotFound
from glassformer.files import read_json
from glassformer.messages import t
from glassformer.models import build_model, model_class
from glassformer.text.tokenizers import load_tokenizer
from glassformer.train.checkpoint import BEST_FILE, MODEL_FILE, load_weights

CONFIG_FIX = "fix.config"  # the catalogue's sentence: where config.json comes from, what to do
RUN_EXAMPLE = "runs/baby-20250101-120000"  # what a run directory's name looks like


def read_config(run_dir) -> dict:
    """A run directory's config.json, checked to be one: a JSON object with model and train configs."""
    run_dir = Path(run_dir)
    if run_dir.exists() and not run_dir.is_dir():
        raise NotFound("error.run.is_file", dir=run_dir, example=RUN_EXAMPLE)
    if not run_dir.exists():
        raise NotFound("error.run.missing", dir=run_dir, example=RUN_EXAMPLE)
    path = run_dir / "config.json"
    if not path.exists():
        raise NotFound("error.run.no_config", dir=run_dir, example=RUN_EXAMPLE)
    config = read_json(path, t(CONFIG_FIX))
    if not (
        isinstance(config, dict)
        and isinstance(config.get("model"), dict)
        and isinstance(config.get("train"), dict)
        and isinstance(config.get("source", ""), str)
    ):
        raise DamagedFile("error.run.config_shape", path=path, fix=t(CONFIG_FIX))
    return config


def model_config(config: dict, run_dir=None) -> ModelConfig:
    """The ModelConfig a run's config.json holds, type-checked. Runs saved before a field existed get
    its default (runs before `kind` were all GPTs); old spellings are translated."""
    fields_now = {f.name for f in fields(ModelConfig)}
    saved = {k: v for k, v in config["model"].items() if k in fields_now}
    if saved.get("mha_style") == "fused":  # renamed: the packed Q/K/V projection
        saved["mha_style"] = "packed"
    cfg = _checked(saved, run_dir).model
    try:
        model_class(cfg.kind)
    except ValueError as e:
        raise DamagedFile(
            "error.run.invalid_config", path=Path(run_dir or ".") / "config.json", problem=e, fix=t(CONFIG_FIX)
        ) from None
    return cfg


def train_config(config: dict, run_dir=None) -> TrainConfig:
    """The TrainConfig a run's config.json holds, type-checked (a field added later keeps its default)."""
    known = {f.name for f in fields(TrainConfig)}
    return _checked({k: v for k, v in config["train"].items() if k in known}, run_dir).train


def _checked(values: dict, run_dir) -> Preset:
    """Saved values on top of the defaults, with the types and ranges an override must have."""
    try:
        return apply_overrides(Preset(ModelConfig(), TrainConfig()), values)
    except ValueError as e:
        where = Path(run_dir) / "config.json" if run_dir is not None else "config.json"
        raise DamagedFile("error.run.invalid_config", path=where, problem=e, fix=t(CONFIG_FIX)) from None


def build_saved(cfg: ModelConfig, run_dir) -> torch.nn.Module:
    """build_model for a saved config: a kind or position scheme that no longer exists names the file."""
    try:
        return build_model(cfg)
    except ValueError as e:
        raise DamagedFile(
            "error.run.invalid_config", path=Path(run_dir) / "config.json", problem=e, fix=t(CONFIG_FIX)
        ) from None


def check_vocab(run_dir, tokenizer, cfg: ModelConfig) -> None:
    if tokenizer.vocab_size != cfg.vocab_size:
        raise DamagedFile(
            "error.run.vocab",
            path=Path(run_dir) / "tokenizer.json",
            tokens=tokenizer.vocab_size,
            vocab_size=cfg.vocab_size,
        )


def load_model(run_dir, best: bool = False, device: str = "cpu"):
    """The trained model of a run (latest weights, or best.safetensors), its tokenizer (None for a
    model that reads numbers) and config."""
    run_dir = Path(run_dir)
    config = read_config(run_dir)
    cfg = model_config(config, run_dir)
    weights = run_dir / (BEST_FILE if best else MODEL_FILE)
    if not weights.exists() and best:
        raise NotFound("error.run.no_best", path=weights)
    if not weights.exists():
        raise NotFound("error.run.no_weights", path=weights)
    model = build_saved(cfg, run_dir).to(check_device(device))
    load_weights(weights, model)
    model.eval()
    tokenizer = None
    if model.inputs in ("tokens", "token pairs"):
        tokenizer = load_tokenizer(run_dir / "tokenizer.json")
        check_vocab(run_dir, tokenizer, cfg)
    return model, tokenizer, config
