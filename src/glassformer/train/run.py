"""A run: preset + overrides + data source ─► runs/<name>/ with a model, a trainer and its files.

    runs/<name>/config.json        resolved model + train config (the model's kind included),
                                   data source and the sha256 of its data
                tokenizer.json     the tokenizer the ids were made with (token models)
                model.safetensors  latest weights   ┐ the checkpoint, written at every evaluation
                train_state.pt     optimizer, RNG   ┘ (and on Ctrl-C)
                best.safetensors   weights at the lowest val loss
                metrics.jsonl · loss.png · samples.txt

Every model kind trains here: the preset's `kind` picks the model (models.build_model), the kind
says what it reads (tokens from a text corpus, numbers from a generated source such as `sine`, or
token pairs from a generated task such as `numbers:zh2num`) and which loss it is trained with.
`new_run` refuses a directory that already holds a checkpoint; `resume_run` continues one, and
refuses overrides that would change the model (its fields fix the meaning of every weight) or the
data.

Only one process trains into a run directory at a time (the lock, at the end of this file): new_run
and resume_run take the directory's lock and a second process is refused. Under torchrun
(distributed.py) that process is rank 0: it sets the directory up, then announces it, and the other
ranks read it (`_follow`) and train beside it, writing nothing. Everything read back — config.json,
tokenizer.json, the checkpoint — is validated, and a damaged file is an error naming it
(docs/reliability.md).

A run can also come from elsewhere: `import_checkpoint` makes one from a Hugging Face GPT-2, Llama,
Qwen3 or Mistral directory, and `export_checkpoint` writes one back (the section below).
"""

from __future__ import annotations

import json
import os
import socket
import time
import weakref
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Callable, Collection, cast

import torch

from glassformer.config import (  # noqa: I001
    EVAL_SAMPLE_CHARS,
    RUNS_DIR,
    ModelConfig,
    Preset,
    TrainConfig,
    apply_overrides,
    eval_interval_for,
    get_preset,
    parse_overrides,
    to_dict,
)
from glassformer.devices import check_device, resolve_dtype, using_threads
from glassformer.errors import DamagedFile, GlassformerError, RunLocked, UsageError
from glassformer.files import json_text, write_json_atomic
from glassformer.messages import N_, note, t
from glassformer.models import build_model, model_class
from glassformer.models.gpt2 import generation_of, read_generation, read_gpt2_dir, write_gpt2_dir
from glassformer.models.kinds import check_fits
from glassformer.models.llama import read_hf_dir, write_hf_dir
from glassformer.sample import sample
from glassformer.text.corpora import PreparedData, prepare
from glassformer.text.tokenizers import load_tokenizer
from glassformer.train import distributed
from glassformer.train.checkpoint import (
    MODEL_FILE,
    build_saved,
    check_vocab,
    has_checkpoint,
    load_model,  # (callers import it from here too)
    model_config,
    read_config,
    save_weights,
    train_config,
)
from glassformer.train.data import (
    FRAMINGS,
    PairBatches,
    PairData,
    TensorBatches,
    TextWindows,
    WaveData,
    pair_source,
    wave_source,
)
from glassformer.train.data import SOURCES as PAIR_SOURCES
from glassformer.train.loop import Trainer, TrainResult, horizon, schedule_lr
from glassformer.translate import translate

# RUNS_DIR and EVAL_SAMPLE_CHARS (default length of the sample printed at each evaluation, 0: none) are
# defined in config.py, where `--help` reads them without torch
EVAL_SAMPLE_TEMPERATURE = 0.8  # a little sharper than the model's own distribution: readable early on
DEFAULT_SOURCE = {"tokens": "shakespeare", "numbers": "sine", "token pairs": "numbers:zh2num"}  # by what it reads


@dataclass
class Run:
    dir: Path
    config: dict  # what config.json holds
    data: PreparedData | WaveData | PairData
    model: torch.nn.Module
    trainer: Trainer
    lock: Path | None = None  # the directory's lock file while this Run holds it (acquire)

    @property
    def loss_plot(self) -> Path:
        return self.dir / "loss.png"

    @property
    def tokenizer(self):
        return self.data.tokenizer


# generated sources, by the inputs they make: what they make and the preset to use (catalogue keys, said
# in the user's language), their names, what makes them
GENERATED: dict[str, tuple[str, Collection[str], Callable[[str], WaveData | PairData], str]] = {
    "numbers": (N_("numbers"), FRAMINGS, wave_source, N_("--preset sine (a regressor)")),
    "token pairs": (
        N_("(source, target) pairs"),
        PAIR_SOURCES,
        pair_source,
        N_("--preset seq2seq (or --kind=seq2seq)"),
    ),
}


def open_data(source: str, inputs: str, cache_dir=None, text: dict | None = None) -> PreparedData | WaveData | PairData:
    """The data a model kind reads: a prepared text corpus (tokens), generated numbers, or
    generated (source, target) pairs. `text`: how to tokenize a text corpus, as `prepare` takes it
    ({"tokenizer": "bpe", "vocab_size": 512, ...}; empty: characters)."""
    if text and inputs != "tokens":
        raise UsageError(
            "run.tokenizer_options",
            "--tokenizer and its options choose how a text corpus is cut "
            "into tokens; this model reads {inputs}, from a generated "
            "source. Drop them.",
            inputs=inputs,
        )
    for reads, (what, names, make, use) in GENERATED.items():
        if inputs == reads:
            if source not in names:
                raise UsageError(
                    "run.wrong_source",
                    "this model reads {what}: --data must be one of {names}, not {source!r}.",
                    what=t(what),
                    names=sorted(names),
                    source=source,
                )
            return make(source)
        if source in names:
            raise UsageError(
                "run.source_for_other",
                "--data {source} makes {what}, but this model reads {inputs}; use {use}.",
                source=source,
                what=t(what),
                inputs=inputs,
                use=t(use),
            )
    return prepare(source, cache_dir, **(text or {}))


def _reads(kind: str) -> str:
    """What a model kind reads: "tokens", "numbers" or "token pairs" (its class says)."""
    return cast(Any, model_class(kind)).inputs


EXAMPLE_TOKENS = 48  # how much of its own training text a run keeps as the explorer's first input


def example_text(data) -> dict[str, str]:
    """{"example": the first line of the training text (at most EXAMPLE_TOKENS tokens)} for a text
    corpus, so the explorer opens a run on its own kind of text (a Chinese run on Chinese)."""
    if not isinstance(data, PreparedData) or len(data.train) == 0:
        return {}
    text = data.tokenizer.decode([int(i) for i in data.train[:EXAMPLE_TOKENS]])
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return {"example": max(lines, key=len)} if lines else {}


def identity(data) -> dict[str, str]:
    return data.identity if isinstance(data, (WaveData, PairData)) else {"text_sha256": data.meta["text_sha256"]}


def batches_for(data, cfg: TrainConfig):
    if isinstance(data, PairData):
        tok = data.tokenizer
        return PairBatches(
            data.encoded("train"),
            data.encoded("val"),
            cfg.batch_size,
            tok.bos_id,
            tok.eos_id,
            tok.pad_id,
            eval_rows=cfg.eval_iters * cfg.batch_size,
            device=cfg.device,
        )
    if isinstance(data, WaveData):
        return TensorBatches(
            data.x_train,
            data.y_train,
            cfg.batch_size,
            shuffle=True,
            val=(data.x_val, data.y_val),
            device=cfg.device,
            eval_iters=cfg.eval_iters,
        )
    return TextWindows.from_config(data.train, data.val, cfg)


def resolve(preset: Preset, overrides, data) -> Preset:
    """Apply overrides, take vocab_size from the tokenizer, check the data fits the model, and turn
    dtype auto into the dtype it picks here (devices.auto_dtype): config.json records what ran, and a
    resumed run keeps it."""
    p = _fitted(preset, overrides, data)
    if p.train.dtype == "auto":
        p.train.dtype = resolve_dtype("auto", p.train.device, p.model, p.train)
    return p


def _fitted(preset: Preset, overrides, data) -> Preset:
    overrides = overrides if isinstance(overrides, dict) else parse_overrides(overrides)
    p = apply_overrides(preset, overrides)
    if data.tokenizer is not None:
        if "vocab_size" in overrides:
            raise UsageError(
                "run.vocab_size_set",
                "vocab_size comes from the tokenizer ({vocab_size} here); do not set it.",
                vocab_size=data.tokenizer.vocab_size,
            )
        p = apply_overrides(p, {"vocab_size": data.tokenizer.vocab_size})
    if isinstance(data, PairData):
        p = _fit_pairs(p, data)
        check_fits(p.model, p.train)
        return p
    T = p.train.seq_len if data.tokenizer is not None else data.x_train.size(1)
    if T > p.model.max_len:
        raise (
            UsageError(
                "run.seq_len_too_long",
                "seq_len={T} is longer than max_len={max_len}: the model has "
                "positions for only {max_len} tokens. Pass --max_len={T} or "
                "--seq_len={max_len}.",
                T=T,
                max_len=p.model.max_len,
                source=getattr(data, "source", ""),
            )
            if data.tokenizer is not None
            else UsageError(
                "run.sequences_too_long",
                "the {source} sequences' length={T} is longer than "
                "max_len={max_len}: the model has positions for only "
                "{max_len} tokens. Pass --max_len={T}.",
                T=T,
                max_len=p.model.max_len,
                source=getattr(data, "source", ""),
            )
        )
    check_device(p.train.device)
    check_fits(p.model, p.train)  # before a byte is allocated (models/kinds.py)
    return p


def _fit_pairs(p: Preset, data: PairData) -> Preset:
    """An encoder-decoder's pad_id is the tokenizer's; its longest source and target must fit."""
    if p.model.pad_id not in (None, data.tokenizer.pad_id):
        raise UsageError(
            "run.pad_id_set",
            "pad_id comes from the tokenizer ({pad_id} here); do not set it.",
            pad_id=data.tokenizer.pad_id,
        )
    p = apply_overrides(p, cast(dict, {"pad_id": data.tokenizer.pad_id}))  # a value, as well as the command line's text
    S, T = data.longest()
    if max(S, T + 1) > p.model.max_len:  # the decoder reads <BOS> + target, and writes target + <EOS>
        raise UsageError(
            "run.pairs_too_long",
            "{source} has sources of {S} and targets of {T} tokens (+1 "
            "for <BOS>/<EOS>), longer than max_len={max_len}. Pass "
            "--max_len={need}.",
            source=data.source,
            S=S,
            T=T,
            max_len=p.model.max_len,
            need=max(S, T + 1),
        )
    return p


def new_run(
    preset: str = "baby",
    overrides=(),
    source: str | None = None,
    out=None,
    cache_dir=None,
    progress: bool = True,
    prompt: str | None = None,
    sample_chars: int | None = None,
    text: dict | None = None,
    check_model: Callable[[ModelConfig], None] | None = None,
) -> Run:
    """Prepare the data, write config.json (and tokenizer.json), build a freshly seeded model.
    `text`: the tokenizer and its options for a text corpus (see `open_data`); recorded in config.json.
    `check_model`: called with the resolved model config before the run directory is made (it may refuse)."""
    if not distributed.current().is_main:
        return _follow(cache_dir)
    overrides = overrides if isinstance(overrides, dict) else parse_overrides(overrides)
    base = get_preset(preset)
    check_device(apply_overrides(base, overrides).train.device)  # a bad setting fails before any data work
    kind = overrides.get("kind", base.model.kind)
    inputs = _reads(kind)
    source = source or DEFAULT_SOURCE[inputs]
    text = {k: v for k, v in (text or {}).items() if v is not None}
    data = open_data(source, inputs, cache_dir, text)
    p = resolve(base, overrides, data)
    if "eval_interval" not in overrides:  # the preset's, shortened for a short run (config.eval_interval_for)
        p.train.eval_interval = eval_interval_for(p.train.max_steps, p.train.eval_interval)
    if check_model is not None:
        check_model(p.model)
    run_dir = Path(out) if out else RUNS_DIR / f"{preset}-{time.strftime('%Y%m%d-%H%M%S')}"
    if run_dir.exists() and not run_dir.is_dir():
        raise UsageError(
            "run.out_is_file", "--out {dir} is a file; a run needs a directory. Choose another --out DIR.", dir=run_dir
        )
    run_dir.mkdir(parents=True, exist_ok=True)
    held = acquire(run_dir)  # refuses if another process trains here
    try:
        if has_checkpoint(run_dir):
            _refuse_imported(run_dir, _config_if_readable(run_dir))  # its own advice: --resume cannot help
            raise UsageError(
                "run.has_checkpoint",
                "{dir} already holds a checkpoint. Continue it with --resume "
                "{dir}, or choose another directory with --out DIR.",
                dir=run_dir,
            )
        return _start(run_dir, preset, p, source, text, data, progress, prompt, sample_chars, held)
    except BaseException:
        release(held)
        raise


def _start(run_dir, preset, p, source, text, data, progress, prompt, sample_chars, held) -> Run:
    """new_run's writes, under the directory's lock."""
    for leftover in ("metrics.jsonl", "samples.txt", "loss.png"):  # from a start that never saved
        (run_dir / leftover).unlink(missing_ok=True)
    config = {
        "preset": preset,
        "about": p.about,
        "source": source,
        **({"text": text} if text else {}),
        **identity(data),
        **example_text(data),
        "model": to_dict(p.model),
        "train": to_dict(p.train),
    }
    write_json_atomic(run_dir / "config.json", config, indent=2)
    if data.tokenizer is not None:
        data.tokenizer.save(run_dir / "tokenizer.json")
    torch.manual_seed(p.train.seed)  # fixes the initial weights and, later, dropout
    model = build_model(p.model)
    distributed.current().announce(run_dir, resumed=False)
    return _assemble(run_dir, config, data, model, p.train, progress, prompt, sample_chars, held)


def resume_run(
    run_dir,
    overrides=(),
    preset: str | None = None,
    source: str | None = None,
    cache_dir=None,
    progress: bool = True,
    prompt: str | None = None,
    sample_chars: int | None = None,
    stretch: bool = False,
    check_model: Callable[[ModelConfig], None] | None = None,
) -> Run:
    """Reload a run's checkpoint. Overrides apply on top of its saved config (e.g. --max_steps=4000);
    with `preset`, on top of that preset instead. Model fields and the data source must not change.
    A cosine schedule keeps its horizon unless `stretch` (keep_horizon); when a training setting
    changes, the learning rate of the last step and of the next one is printed. `check_model`: called
    with the run's model config before anything in the run is written (it may refuse)."""
    if not distributed.current().is_main:
        return _follow(cache_dir)
    run_dir = Path(run_dir)
    config = read_config(run_dir)
    held = acquire(run_dir)  # refuses if another process trains here
    try:
        return _resume(
            run_dir,
            config,
            overrides,
            preset,
            source,
            cache_dir,
            progress,
            prompt,
            sample_chars,
            held,
            stretch,
            check_model,
        )
    except BaseException:
        release(held)
        raise


def _config_if_readable(run_dir: Path) -> dict | None:
    """config.json when it is a well-formed run config, else None (the caller has a message of its own)."""
    try:
        return read_config(run_dir)
    except (GlassformerError, OSError):
        return None


def _refuse_imported(run_dir: Path, config: dict | None) -> None:
    """A model imported from elsewhere has no optimizer state and no data: say how to train it further."""
    if config is not None and "source" not in config and isinstance(config.get("imported"), dict):
        raise UsageError(
            "run.imported",
            "{dir} holds a model imported from {origin}, not a "
            "glassformer training run: it has no optimizer state and no "
            "training data, so --resume cannot continue it (it samples "
            "and opens in every view; glassformer does not fine-tune an "
            "imported model yet). To train it further, export it "
            "(glassformer export {format} {dir} --out DIR), fine-tune "
            "DIR with transformers, and import the result (glassformer "
            "import {format} DIR --out NEW_RUN).",
            dir=run_dir,
            format=config["imported"].get("format") or "gpt2",
            origin=config["imported"].get("from") or t("elsewhere"),
        )


def _resume(
    run_dir, config, overrides, preset, source, cache_dir, progress, prompt, sample_chars, held, stretch, check_model
) -> Run:
    """resume_run's reads and writes, under the directory's lock."""
    saved = Preset(model_config(config, run_dir), train_config(config, run_dir), str(config.get("about", "")))
    _refuse_imported(run_dir, config)
    if isinstance(config.get("post"), dict):  # an SFT, DPO or GRPO run: its own verb resumes it (post/tune.py)
        raise UsageError(
            "run.post_resume",
            "{dir} is a {method} run: resume it with `glassformer {method} --resume {dir}`.",
            dir=run_dir,
            method=str(config["post"].get("method", "sft")),
        )
    if "source" not in config:
        raise DamagedFile(
            "run.no_source",
            "{path} does not say which data the run was trained on (no "
            '"source"), so it cannot be resumed. The weights still '
            "sample; to train further, start a new run.",
            path=run_dir / "config.json",
        )
    if source is not None and source != config["source"]:
        raise UsageError(
            "run.other_source",
            "cannot resume {dir}: it was trained on source {saved!r}, "
            "not {source!r}. Start a new run with --out to use other "
            "data.",
            dir=run_dir,
            saved=config["source"],
            source=source,
        )
    try:
        data = open_data(config["source"], _reads(saved.model.kind), cache_dir, config.get("text"))
    except ValueError as e:  # a source this version cannot read (files that moved raise NotFound)
        raise DamagedFile(
            "run.source_gone",
            "cannot resume {dir}: its config.json names the data source {source!r}, which cannot be opened: {problem}",
            dir=run_dir,
            source=config["source"],
            problem=e,
        ) from None
    overrides = overrides if isinstance(overrides, dict) else parse_overrides(overrides)
    if "device" not in overrides:  # a run saved on a GPU: say where the device came from
        try:
            check_device(saved.train.device)
        except UsageError as e:
            raise UsageError(
                "run.saved_device",
                "{path} says device={device!r}, but {problem} Resume with --device=cpu to continue on the CPU.",
                path=run_dir / "config.json",
                device=saved.train.device,
                problem=e,
            ) from None
    for key, value in identity(data).items():
        if config.get(key) != value:
            raise UsageError(
                "run.data_changed",
                "cannot resume {dir}: the data of {source!r} changed since the run started ({key} differs).",
                dir=run_dir,
                source=config["source"],
                key=key,
            )
    if data.tokenizer is not None:
        data.tokenizer = load_tokenizer(run_dir / "tokenizer.json")
        check_vocab(run_dir, data.tokenizer, saved.model)
    p = resolve(get_preset(preset) if preset else saved, overrides, data)
    differ = [f.name for f in fields(ModelConfig) if getattr(p.model, f.name) != getattr(saved.model, f.name)]
    if differ:
        detail = ", ".join(
            t(
                "{key}: saved {saved!r}, asked {asked!r}",
                key=k,
                saved=getattr(saved.model, k),
                asked=getattr(p.model, k),
            )
            for k in differ
        )
        raise UsageError(
            "run.model_differs",
            "cannot resume {dir}: the model config differs in {keys} "
            "({detail}). These fields fix the shape and meaning of the "
            "saved weights; start a new run with --out to change them.",
            dir=run_dir,
            keys=", ".join(differ),
            detail=detail,
        )
    if check_model is not None:
        check_model(p.model)
    p = Preset(p.model, keep_horizon(saved.train, p.train, overrides, stretch), p.about)
    changed = {
        f.name: (getattr(saved.train, f.name), getattr(p.train, f.name))
        for f in fields(TrainConfig)
        if getattr(saved.train, f.name) != getattr(p.train, f.name)
    }
    if changed:
        print(
            t(
                "resuming with changed training settings: {changes}",
                changes=", ".join(f"{k} {a!r} -> {b!r}" for k, (a, b) in changed.items()),
            )
        )
        config = {**config, "train": to_dict(p.train)}
        write_json_atomic(run_dir / "config.json", config, indent=2)
    torch.manual_seed(p.train.seed)  # init is overwritten by the checkpoint; RNG states come from it
    distributed.current().announce(run_dir, resumed=True)
    run = _assemble(run_dir, config, data, build_saved(p.model, run_dir), p.train, progress, prompt, sample_chars, held)
    run.trainer.resume()
    if changed:
        step = run.trainer.step
        print(
            t(
                "learning rate: {before:.3g} at step {step} (the last before "
                "this resume), {after:.3g} at step {next} (the next){end}",
                before=schedule_lr(max(step - 1, 0), saved.train),
                after=schedule_lr(step, p.train),
                step=step,
                next=step + 1,
                end=t(
                    "; the cosine ends at step {horizon}, then stays at min_lr {min_lr:.3g}",
                    horizon=horizon(p.train),
                    min_lr=p.train.min_lr,
                )
                if p.train.lr_schedule == "cosine"
                else "",
            )
        )
    return run


def keep_horizon(saved: TrainConfig, asked: TrainConfig, overrides: dict, stretch: bool = False) -> TrainConfig:
    """The rule of a resumed cosine schedule: it keeps the horizon the run was started with (a
    larger max_steps trains on at min_lr after it), unless `stretch` (--stretch-schedule) moves the
    horizon to the new max_steps, or decay_steps is given. Raising the horizon mid-run would lift the
    learning rate back up the curve (1e-4 at step 300 back to 2.9e-4 at step 310)."""
    if asked.lr_schedule != "cosine" or "decay_steps" in overrides:
        return asked
    want = asked.max_steps if stretch else horizon(saved)
    if horizon(asked) == want:
        return asked
    return replace(asked, decay_steps=0 if want == asked.max_steps else want)


def _follow(cache_dir) -> Run:
    """Ranks > 0 under torchrun: wait for rank 0 to set the run directory up, then read it as a resume
    does (its config, data, tokenizer; the checkpoint, if rank 0 resumed one) and train beside it."""
    world = cast(distributed.ProcessWorld, distributed.current())  # a rank > 0: started by torchrun
    with world.together():  # rank 0 may stop before it announces (a bad option): then this one stops too
        run_dir, resumed = world.hear()
        config = read_config(run_dir)
        model_cfg, train_cfg = model_config(config, run_dir), train_config(config, run_dir)
        data = open_data(config["source"], _reads(model_cfg.kind), cache_dir, config.get("text"))
        if data.tokenizer is not None:
            data.tokenizer = load_tokenizer(run_dir / "tokenizer.json")
        torch.manual_seed(train_cfg.seed)  # the same initial weights as rank 0 (DDP copies rank 0's anyway)
        run = _assemble(run_dir, config, data, build_saved(model_cfg, run_dir), train_cfg, False, None, 0)
        if resumed:
            run.trainer.resume()
    return run


def _assemble(run_dir, config, data, model, train_cfg, progress, prompt, sample_chars, held=None) -> Run:
    world = distributed.current()
    n = EVAL_SAMPLE_CHARS if sample_chars is None else sample_chars
    callbacks = []
    if n and model.samples and data.tokenizer is not None:
        callbacks.append(_eval_sampler(data.tokenizer, prompt, n, run_dir / "samples.txt"))
    if isinstance(data, PairData):
        callbacks.append(_eval_translator(data, run_dir / "samples.txt"))
    train_cfg = world.for_rank(train_cfg)  # this process's GPU under torchrun
    batches = world.share(batches_for(data, world.whole_batch(train_cfg)))  # its rows of the global batch
    trainer = Trainer(
        model,
        train_cfg,
        batches,
        run_dir,
        callbacks=callbacks if world.is_main else [],
        progress=("bar" if progress else "lines") if world.is_main else "silent",
        world=world,
    )
    run = Run(run_dir, config, data, model, trainer, held)
    if held is not None:
        weakref.finalize(run, release, held)  # a Run that is dropped lets the directory go
    return run


def _eval_sampler(tokenizer, prompt: str | None, n_chars: int, path: Path):
    """A callback that writes a short sample at each evaluation, so the user watches the model learn.
    It uses its own generator with a fixed seed: the same draws every time, and training untouched."""
    if prompt is None:
        prompt = "\n" if _encodable(tokenizer, "\n") else tokenizer.decode([0])

    def on_event(event: str, trainer: Trainer) -> None:
        if event != "eval":
            return
        text = sample(
            trainer.model, tokenizer, prompt, n_chars, temperature=EVAL_SAMPLE_TEMPERATURE, seed=trainer.cfg.seed
        )[0]
        trainer.progress.write(t("--- sample at step {step} ---\n{text}\n---", step=trainer.step, text=prompt + text))
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"=== step {trainer.step} ===\n{prompt}{text}\n\n")

    return on_event


def _eval_translator(data: PairData, path: Path, n: int = 4):
    """A callback that translates the first few validation sources (greedy) at each evaluation."""
    pairs = data.val[:n]

    def on_event(event: str, trainer: Trainer) -> None:
        if event != "eval":
            return
        outputs = translate(trainer.model, data, [s for s, _ in pairs])
        lines = "\n".join(
            f"{s} → {o or '∅'}" + ("" if o == want else t("   (expected {target})", target=want))
            for (s, want), o in zip(pairs, outputs, strict=False)
        )
        trainer.progress.write(t("--- translations at step {step} ---\n{lines}\n---", step=trainer.step, lines=lines))
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"=== step {trainer.step} ===\n{lines}\n\n")

    return on_event


def _encodable(tokenizer, text: str) -> bool:
    try:
        return bool(tokenizer.encode(text))
    except ValueError:
        return False


def train(run: Run) -> TrainResult:
    """Train a run to its max_steps, with the run's thread count (restored afterwards), holding the
    run directory's lock."""
    held = acquire(run.dir) if run.trainer.world.is_main else None  # rank 0 holds it for the job
    try:
        with using_threads(run.trainer.cfg.threads), run.trainer.world.together():
            return run.trainer.fit()
    finally:
        release(held)


# ────────────────────────────────────────────────────────────────────────────────────────────────
# GPT-2 checkpoints in and out of run directories: `glassformer import gpt2` / `export gpt2`.
#
#     import_gpt2(DIR, RUN)   a Hugging Face GPT-2 directory  ─► a run: config.json (kind "gpt"),
#                             model.safetensors, tokenizer.json (kind "gpt2-bpe") — what `sample`,
#                             `trace`, `attention` and `explore` read (saved.load_model)
#     export_gpt2(RUN, DIR)   a run  ─► config.json, model.safetensors, vocab.json, merges.txt,
#                             tokenizer_config.json: what GPT2LMHeadModel / GPT2Tokenizer.from_pretrained read
#
# `import llama|qwen3|mistral` / `export llama` are the same two functions with another family
# (import_checkpoint, export_checkpoint; models/llama.py reads and writes the directory): the
# tokenizer is the checkpoint's tokenizer.json as it is (kind "hf-json"), and export writes the family
# the run's config is (Qwen3 with QK-norm, Mistral with a window, Llama otherwise).
#
# An imported run has no training data, so its config.json holds no "source": it samples and opens
# in every view, and `train --resume` says it cannot continue it. Its "train" settings are the
# defaults (seq_len cut to the model's positions), there only because every run has them.
# ────────────────────────────────────────────────────────────────────────────────────────────────


def import_gpt2(source, out) -> Path:
    """Read the GPT-2 in directory `source` into a new run directory `out`; return `out`."""
    return import_checkpoint(source, out, "gpt2")


def import_checkpoint(source, out, family: str = "gpt2") -> Path:
    """Read the model of `family` (gpt2, or models/llama.py's llama, qwen3, mistral) in directory
    `source` into a new run directory `out`; return `out`."""
    source, out = Path(source), Path(out)
    if out.exists() and not out.is_dir():
        raise UsageError(
            "run.out_is_file", "--out {dir} is a file; a run needs a directory. Choose another --out DIR.", dir=out
        )
    if out.is_dir() and has_checkpoint(out):
        raise UsageError(
            "gpt2.has_checkpoint",
            "{out} already holds a checkpoint; importing would replace "
            "its weights. Choose another --out DIR, or delete {weights} "
            "first.",
            out=out,
            weights=out / MODEL_FILE,
        )
    # everything is checked before anything is written
    model, tokenizer, weights, skipped = (
        (*read_gpt2_dir(source), 0) if family == "gpt2" else read_hf_dir(source, family)
    )
    generation = read_generation(source, model.cfg.vocab_size)  # the ids that end a sample, as generate reads them
    out.mkdir(parents=True, exist_ok=True)
    held = acquire(out)  # no trainer may write here meanwhile
    try:
        train = replace(TrainConfig(), seq_len=min(TrainConfig().seq_len, model.cfg.max_len))
        about = (
            t("GPT-2 imported from {source}", source=source.resolve())
            if family == "gpt2"
            else t("imported from {source} ({family})", source=source.resolve(), family=family)
        )
        config = {
            "about": about,
            "imported": {"format": family, "from": str(source.resolve()), "weights": weights, "generation": generation},
            "model": to_dict(model.cfg),
            "train": to_dict(train),
        }
        tokenizer.save(out / "tokenizer.json")
        save_weights(out / MODEL_FILE, model, step=0)
        write_json_atomic(out / "config.json", config, indent=2)  # last: the run is whole
    finally:
        release(held)
    if skipped:  # DeepSeek-V3's multi-token prediction layers (models/llama.py's prediction_layers)
        note(
            t(
                "note: {source}: {tensors} tensors of the multi-token prediction layers (model.layers.{first} on) "
                "were skipped: they train the model to predict tokens further ahead, and the model itself reads "
                "none of them.",
                source=source,
                tensors=skipped,
                first=model.cfg.n_layers,
            )
        )
    return out


def export_gpt2(run_dir, out, best: bool = False) -> Path:
    """Write the GPT of run `run_dir` as a Hugging Face GPT-2 directory `out`; return `out`."""
    return export_checkpoint(run_dir, out, best, "gpt2")


def export_checkpoint(run_dir, out, best: bool = False, family: str = "gpt2") -> Path:
    """Write the GPT of run `run_dir` as a Hugging Face directory `out` of `family` (gpt2, or llama
    for the modern decoder, which writes the family its config is: models/llama.py's family_of)."""
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise (
            UsageError(
                "gpt2.export_out_file",
                "--out {out} is a file; export writes a new directory. Choose another --out DIR.",
                out=out,
            )
            if out.is_file()
            else UsageError(
                "gpt2.export_out_full",
                "--out {out} is not empty; export writes a new directory. Choose another --out DIR.",
                out=out,
            )
        )
    model, tokenizer, config = load_model(run_dir, best=best)
    generation = generation_of(config)  # the ids an imported model ends on, written back
    if family == "gpt2":
        write_gpt2_dir(model, tokenizer, out, generation)
    else:
        write_hf_dir(model, tokenizer, out, generation)
    return out


# ────────────────────────────────────────────────────────────────────────────────────────────────
# One trainer per run directory: a lock file that a second process respects.
#
# While a process trains into RUN, `RUN/train.lock` holds its pid, host and start time, and the file
# is locked by the operating system (flock on POSIX, msvcrt.locking on Windows). The kernel drops that
# lock when the process ends, however it ends — SIGKILL and power cuts included — so a lock file left
# behind by a dead process is stale by construction: the next trainer takes it over, and the pid in it
# only serves the message a refused process prints. When training ends the file is removed.
#
# Within one process the lock is re-entrant (a notebook may new_run, train and resume_run the same
# directory); it is released when the last holder lets go.
# ────────────────────────────────────────────────────────────────────────────────────────────────

LOCK_FILE = "train.lock"
_held: dict[str, list] = {}  # lock path -> [file descriptor, how many holders in this process]


def acquire(run_dir: str | os.PathLike) -> Path:
    """Lock `run_dir` for this process (or count one more holder); RunLocked if another process has it."""
    path = (Path(run_dir) / LOCK_FILE).resolve()
    if str(path) in _held:
        _held[str(path)][1] += 1
    else:
        _held[str(path)] = [_lock(path), 1]
    return path


def release(path: str | os.PathLike | None) -> None:
    """Let go of one hold; the last one removes the file, then unlocks it. None: nothing was held."""
    entry = _held.get(str(path)) if path is not None else None
    if path is None or entry is None:
        return
    entry[1] -= 1
    if entry[1] == 0:
        del _held[str(path)]
        fd = entry[0]
        if os.name == "posix":  # unlink first: a process that opens the old file meanwhile re-checks
            Path(path).unlink(missing_ok=True)
        if fd is not None:
            os.close(fd)
        Path(path).unlink(missing_ok=True)


def _lock(path: Path) -> int | None:
    """Open, lock and fill in the lock file; retry if another process removed it in between."""
    for _ in range(20):
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            locked = _try_lock(fd)
        except OSError as e:  # a filesystem without locks (some network mounts): go on, unlocked
            os.close(fd)
            note(
                t(
                    "note: cannot lock {path} ({reason}); nothing stops a second "
                    "trainer from writing into this directory at the same time.",
                    path=path,
                    reason=e.strerror,
                )
            )
            return None
        if not locked:
            holder = _holder(path)
            os.close(fd)
            raise RunLocked(
                "lock.held",
                "{dir} is being trained by another process (pid {pid} on "
                "{host}, since {started}); two trainers would overwrite each "
                "other's checkpoints. Wait for it to finish, or stop it "
                "(kill {kill}); if no such process runs, delete {path}.",
                dir=path.parent,
                pid=holder.get("pid", "?"),
                host=holder.get("host", "?"),
                started=holder.get("started", "?"),
                kill=holder.get("pid", "PID"),
                path=path,
            )
        if _still_there(fd, path):
            info = {"pid": os.getpid(), "host": socket.gethostname(), "started": time.strftime("%Y-%m-%d %H:%M:%S")}
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)
            os.write(fd, (json_text(info) + "\n").encode())
            return fd
        os.close(fd)  # the holder removed the file after we opened it: lock the new one
    raise RunLocked(
        "lock.replaced",
        "could not lock {path}: it keeps being replaced. Is another trainer starting and stopping in {dir}?",
        path=path,
        dir=path.parent,
    )


def _try_lock(fd: int) -> bool:
    """Lock without waiting; False if another process holds the lock."""
    if os.name == "posix":
        import fcntl

        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True
    import msvcrt

    try:
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]  # typeshed: Windows only
    except PermissionError:
        return False
    return True


def _still_there(fd: int, path: Path) -> bool:
    """Is the file we locked still the one at `path` (not removed by its previous holder)?"""
    if os.name != "posix":
        return True  # Windows cannot remove a file another process holds open
    try:
        return os.fstat(fd).st_ino == os.stat(path).st_ino
    except FileNotFoundError:
        return False


def _holder(path: Path) -> dict:
    """What the holding process wrote into the lock file (empty if it has not written yet)."""
    try:
        holder = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError, RecursionError):
        return {}
    return holder if isinstance(holder, dict) else {}
