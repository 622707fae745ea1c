"""A run: preset + overrides + data source ─► runs/<name>/ with a model, a trainer and its files.

    runs/<name>/config.json        resolved model + train config, data source and its sha256
                tokenizer.json     the tokenizer the ids were made with
                model.safetensors  latest weights   ┐ the checkpoint, written at every evaluation
                train_state.pt     optimizer, RNG   ┘ (and on Ctrl-C)
                best.safetensors   weights at the lowest val loss
                metrics.jsonl · loss.png · samples.txt

`new_run` refuses a directory that already holds a checkpoint; `resume_run` continues one, and
refuses overrides that would change the model (its fields fix the meaning of every weight) or the data.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, fields
from pathlib import Path

import torch

from glassformer.config import ModelConfig, Preset, TrainConfig, apply_overrides, get_preset, to_dict
from glassformer.models import GPT
from glassformer.sample import sample
from glassformer.text.corpora import PreparedData, prepare
from glassformer.text.tokenizers import load_tokenizer
from glassformer.train.checkpoint import BEST_FILE, MODEL_FILE, atomic_write, has_checkpoint, load_weights
from glassformer.train.loop import Trainer, TrainResult

RUNS_DIR = Path("runs")
EVAL_SAMPLE_CHARS = 200  # default length of the sample printed at each evaluation (0: none)
EVAL_SAMPLE_TEMPERATURE = 0.8  # a little sharper than the model's own distribution: readable early on


@dataclass
class Run:
    dir: Path
    config: dict  # what config.json holds
    data: PreparedData
    model: GPT
    trainer: Trainer

    @property
    def loss_plot(self) -> Path:
        return self.dir / "loss.png"


def _override_keys(overrides) -> set[str]:
    if isinstance(overrides, dict):
        return set(overrides)
    return {o.lstrip("-").split("=", 1)[0] for o in overrides}


def resolve(preset: Preset, overrides, vocab_size: int) -> Preset:
    """Apply overrides, take vocab_size from the tokenizer, check block_size fits max_len."""
    overrides = overrides if isinstance(overrides, dict) else list(overrides)
    if "vocab_size" in _override_keys(overrides):
        raise ValueError(f"vocab_size comes from the tokenizer ({vocab_size} here); do not set it.")
    p = apply_overrides(preset, overrides)
    p = apply_overrides(p, {"vocab_size": vocab_size})
    if p.train.block_size > p.model.max_len:
        raise ValueError(
            f"block_size={p.train.block_size} is longer than max_len={p.model.max_len}: the model has "
            f"positions for only {p.model.max_len} tokens. Pass --max_len={p.train.block_size} "
            f"or --block_size={p.model.max_len}.")
    return p


def new_run(preset: str = "baby", overrides=(), source: str = "shakespeare", out=None,
            cache_dir=None, progress: bool = True, prompt: str | None = None,
            sample_chars: int | None = None) -> Run:
    """Prepare the data, write config.json and tokenizer.json, build a freshly seeded model."""
    data = prepare(source, cache_dir)
    p = resolve(get_preset(preset), overrides, data.tokenizer.vocab_size)
    run_dir = Path(out) if out else RUNS_DIR / f"{preset}-{time.strftime('%Y%m%d-%H%M%S')}"
    if has_checkpoint(run_dir):
        raise ValueError(f"{run_dir} already holds a checkpoint. Continue it with --resume {run_dir}, "
                         f"or choose another directory with --out DIR.")
    run_dir.mkdir(parents=True, exist_ok=True)
    for leftover in ("metrics.jsonl", "samples.txt", "loss.png"):  # from a start that never saved
        (run_dir / leftover).unlink(missing_ok=True)
    config = {"preset": preset, "about": p.about, "source": source,
              "text_sha256": data.meta["text_sha256"], "model": to_dict(p.model), "train": to_dict(p.train)}
    text = json.dumps(config, indent=2) + "\n"
    atomic_write(run_dir / "config.json", lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    data.tokenizer.save(run_dir / "tokenizer.json")
    torch.manual_seed(p.train.seed)  # fixes the initial weights and, later, dropout
    model = GPT(p.model)
    return _assemble(run_dir, config, data, model, p.train, progress, prompt, sample_chars)


def resume_run(run_dir, overrides=(), preset: str | None = None, source: str | None = None,
               cache_dir=None, progress: bool = True, prompt: str | None = None,
               sample_chars: int | None = None) -> Run:
    """Reload a run's checkpoint. Overrides apply on top of its saved config (e.g. --max_steps=4000);
    with `preset`, on top of that preset instead. Model fields and the data source must not change."""
    run_dir = Path(run_dir)
    config = read_config(run_dir)
    saved = Preset(_model_cfg(config), _train_cfg(config), config.get("about", ""))
    if source is not None and source != config["source"]:
        raise ValueError(f"cannot resume {run_dir}: it was trained on source {config['source']!r}, "
                         f"not {source!r}. Start a new run with --out to use other data.")
    data = prepare(config["source"], cache_dir)
    if data.meta["text_sha256"] != config["text_sha256"]:
        raise ValueError(f"cannot resume {run_dir}: the text of {config['source']!r} changed since "
                         f"the run started (sha256 differs).")
    tokenizer = load_tokenizer(run_dir / "tokenizer.json")
    base = get_preset(preset) if preset else saved
    p = resolve(base, overrides, tokenizer.vocab_size)
    differ = [f.name for f in fields(ModelConfig) if getattr(p.model, f.name) != getattr(saved.model, f.name)]
    if differ:
        detail = ", ".join(f"{k}: saved {getattr(saved.model, k)!r}, asked {getattr(p.model, k)!r}"
                           for k in differ)
        raise ValueError(f"cannot resume {run_dir}: the model config differs in {', '.join(differ)} "
                         f"({detail}). These fields fix the shape and meaning of the saved weights; "
                         f"start a new run with --out to change them.")
    changed = {f.name: (getattr(saved.train, f.name), getattr(p.train, f.name)) for f in fields(TrainConfig)
               if getattr(saved.train, f.name) != getattr(p.train, f.name)}
    if changed:
        print("resuming with changed training settings: "
              + ", ".join(f"{k} {a!r} -> {b!r}" for k, (a, b) in changed.items()))
        config = {**config, "train": to_dict(p.train)}
        text = json.dumps(config, indent=2) + "\n"
        atomic_write(run_dir / "config.json", lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    data.tokenizer = tokenizer
    torch.manual_seed(p.train.seed)  # init is overwritten by the checkpoint; RNG states come from it
    run = _assemble(run_dir, config, data, GPT(p.model), p.train, progress, prompt, sample_chars)
    run.trainer.resume()
    return run


def _assemble(run_dir, config, data, model, train_cfg, progress, prompt, sample_chars) -> Run:
    n = EVAL_SAMPLE_CHARS if sample_chars is None else sample_chars
    callbacks = [_eval_sampler(data.tokenizer, prompt, n, run_dir / "samples.txt")] if n else []
    trainer = Trainer(model, train_cfg, data.train, data.val, run_dir, callbacks, progress)
    return Run(run_dir, config, data, model, trainer)


def _eval_sampler(tokenizer, prompt: str | None, n_chars: int, path: Path):
    """A callback that writes a short sample at each evaluation, so the user watches the model learn.
    It uses its own generator with a fixed seed: the same draws every time, and training untouched."""
    if prompt is None:
        prompt = "\n" if _encodable(tokenizer, "\n") else tokenizer.decode([0])

    def on_event(event: str, trainer: Trainer) -> None:
        if event != "eval":
            return
        text = sample(trainer.model, tokenizer, prompt, n_chars,
                      temperature=EVAL_SAMPLE_TEMPERATURE, seed=trainer.cfg.seed)[0]
        trainer.progress.write(f"--- sample at step {trainer.step} ---\n{prompt}{text}\n---")
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"=== step {trainer.step} ===\n{prompt}{text}\n\n")
    return on_event


def _encodable(tokenizer, text: str) -> bool:
    try:
        return bool(tokenizer.encode(text))
    except ValueError:
        return False


def train(run: Run) -> TrainResult:
    """Train a run to its max_steps, with the run's thread count (restored afterwards)."""
    threads, before = run.trainer.cfg.threads, torch.get_num_threads()
    if threads:
        torch.set_num_threads(threads)
    try:
        return run.trainer.fit()
    finally:
        torch.set_num_threads(before)


def read_config(run_dir) -> dict:
    path = Path(run_dir) / "config.json"
    if not path.exists():
        raise FileNotFoundError(f"{run_dir} is not a run directory (it has no config.json)")
    return json.loads(path.read_text(encoding="utf-8"))


def _model_cfg(config: dict) -> ModelConfig:
    return ModelConfig(**config["model"])


def _train_cfg(config: dict) -> TrainConfig:
    known = {f.name for f in fields(TrainConfig)}  # a field added later keeps its default
    return TrainConfig(**{k: v for k, v in config["train"].items() if k in known})


def load_model(run_dir, best: bool = False, device: str = "cpu"):
    """The trained model of a run (latest weights, or best.safetensors), its tokenizer and config."""
    run_dir = Path(run_dir)
    config = read_config(run_dir)
    model = GPT(_model_cfg(config)).to(device)
    weights = run_dir / (BEST_FILE if best else MODEL_FILE)
    if not weights.exists():
        raise FileNotFoundError(f"{weights} does not exist: the run has not saved a checkpoint yet")
    load_weights(weights, model)
    model.eval()
    return model, load_tokenizer(run_dir / "tokenizer.json"), config
