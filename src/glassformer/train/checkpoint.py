"""Checkpoints: the files that let a run continue exactly where it stopped, written so that a crash
never costs the last good one and read so that a damaged byte is never silently trained on.

A checkpoint is two files in the run directory:

    model.safetensors   the weights (safetensors: plain tensors, no pickle; readable by other tools);
                        its metadata holds the step, the sha256 of the weights and the sha256 of the
                        train_state.pt written with them
    train_state.pt      optimizer moments, step, best val loss and every RNG state, saved with
                        torch.save and read with torch.load(weights_only=True): only tensors and
                        plain Python types, never arbitrary pickled objects

Reading checks both sha256s (weights_sha256, sha256_file: below), so any changed byte in either
file is an error that names the file — and a train_state.pt that is not the one the weights name
is refused before torch.load opens it.

Writing a pair (save_checkpoint) leaves a loadable checkpoint at every instant:

    1. the training state goes to a temp file beside train_state.pt, fsynced;
    2. the weights go to a temp file, their metadata naming that state's sha256; fsynced;
    3. the weights are renamed onto model.safetensors;
    4. the state is renamed onto train_state.pt.

A crash in 1-2, or a write that fails (a full disk), leaves the previous pair untouched (and at most
a stray ".*.tmp" file, which nothing loads by name and the next resume deletes). A crash between 3
and 4 leaves the new weights beside the old state, while the new state sits complete in its temp
file: the weights name it by sha256, so load_checkpoint finds it and finishes step 4 (roll forward).
Checkpoints written before the sha256s existed load as before, checked by their steps only.

Below the checkpoint, a saved run read back (`read_config`, `model_config`, `train_config`,
`load_model`): config.json, the configs in it and the trained model, each checked.
"""

from __future__ import annotations

import contextlib
import difflib
import errno
import hashlib
import os
import re
import shutil
import warnings
from pathlib import Path
from typing import Any, cast

import torch
from safetensors import SafetensorError, safe_open
from safetensors.torch import load_file, save_file
from torch import nn

from glassformer.config import (  # noqa: F401
    ModelConfig,
    Preset,
    TrainConfig,
    apply_overrides,
    saved_fields,
)
from glassformer.devices import check_device
from glassformer.errors import DamagedFile, NotFound
from glassformer.files import atomic_write, fsync_path, read_json, write_temp
from glassformer.messages import N_, t
from glassformer.models import build_model, model_class
from glassformer.models.kinds import check_fits, meta_model
from glassformer.text.tokenizers import load_tokenizer

# ---- the checkpoint pair -------------------------------------------------------------------------
MODEL_FILE = "model.safetensors"
STATE_FILE = "train_state.pt"
BEST_FILE = "best.safetensors"  # weights only, at the lowest val loss seen
STATE_FORMAT = 1  # bump when train_state.pt's layout changes


def has_checkpoint(run_dir: str | os.PathLike) -> bool:
    run_dir = Path(run_dir)
    return (run_dir / MODEL_FILE).exists() or (run_dir / STATE_FILE).exists()


def weights_dict(model: nn.Module) -> dict[str, torch.Tensor]:
    """state_dict as safetensors wants it: contiguous CPU tensors, each storage once.

    A tied head shares the embedding's storage; safetensors refuses shared tensors, so the second
    name is dropped here and restored by load_state_dict(strict=False) + the tie itself.
    """
    out, seen = {}, set()
    for name, tensor in model.state_dict().items():
        key = (tensor.untyped_storage().data_ptr(), tensor.storage_offset(), tuple(tensor.shape))
        if key not in seen:
            seen.add(key)
            out[name] = tensor.detach().cpu().contiguous()
    return out


def _write_weights(tmp: str, model: nn.Module, step: int, **metadata: str) -> None:
    tensors = weights_dict(model)
    with _os_errors(tmp):
        save_file(
            tensors, tmp, metadata={"step": str(step), "weights_sha256": weights_sha256(tensors, step), **metadata}
        )


@contextlib.contextmanager
def _os_errors(path: str):
    """A failed write as the OSError it is: safetensors and torch.save report a full disk as their own
    error types ("I/O error: No space left on device (os error 28)", "file write failed", "[enforce
    fail at inline_container.cc] unexpected pos 4544 vs 4441": a short write), which would otherwise
    read as a bug in glassformer instead of a disk to free. A short write with under 1 MiB left is a
    full disk; with more left, an I/O error (the caller names the file either way)."""
    try:
        yield
    except (SafetensorError, RuntimeError) as e:
        code = re.search(r"os error (\d+)", str(e))
        if code:
            raise OSError(int(code[1]), os.strerror(int(code[1])), path) from e
        if re.search(r"write failed|failed writing|unexpected pos", str(e)):
            short = errno.ENOSPC if shutil.disk_usage(Path(path).parent).free < 1 << 20 else errno.EIO
            raise OSError(short, os.strerror(short), path) from e
        raise


def save_weights(path: str | os.PathLike, model: nn.Module, step: int) -> None:
    atomic_write(path, lambda tmp: _write_weights(tmp, model, step))


def read_weights(path: str | os.PathLike) -> tuple[dict[str, torch.Tensor], dict[str, str], int]:
    """(tensors on the CPU, metadata, step) of a weights file, each byte checked against its sha256."""
    path = Path(path)
    if not path.is_file():
        raise (
            NotFound(
                "checkpoint.weights_dir",
                "{path} does not exist (it is a directory): there are no weights to load there.",
                path=path,
            )
            if path.is_dir()
            else NotFound(
                "checkpoint.no_weights", "{path} does not exist: there are no weights to load there.", path=path
            )
        )
    try:
        tensors = load_file(str(path))
        with safe_open(str(path), framework="pt") as f:
            metadata = f.metadata() or {}
        step = int(metadata.get("step", -1))
    except (SafetensorError, OSError, ValueError, RuntimeError) as e:
        raise _unreadable_weights(path, e) from None
    if "weights_sha256" in metadata and weights_sha256(tensors, step) != metadata["weights_sha256"]:
        raise DamagedFile(
            "checkpoint.weights_sha",
            "{path} is damaged: its weights differ from the sha256 "
            "recorded when it was written, so some bytes changed on "
            "disk. Restore it from a copy or train again.",
            path=path,
        )
    for name, tensor in tensors.items():  # a model's weights are finite floats; anything else is no checkpoint
        if not tensor.is_floating_point():
            raise DamagedFile(
                "checkpoint.weights_dtype",
                "{path} is not a model's weights: {name} holds {dtype} "
                "numbers, and every weight is a floating-point number. Use "
                "the weights training wrote (or a backup of them).",
                path=path,
                name=name,
                dtype=str(tensor.dtype),
            )
        bad = int((~torch.isfinite(tensor)).sum())
        if bad:
            raise DamagedFile(
                "checkpoint.weights_nonfinite",
                "{path} holds weights that are not finite numbers: {bad:,} "
                "of the {n:,} values of {name} are NaN or infinite, so every "
                "output would be NaN. Use an earlier checkpoint "
                "(best.safetensors, or a backup) or train again.",
                path=path,
                name=name,
                bad=bad,
                n=tensor.numel(),
            )
    return tensors, metadata, step


def load_weights(path: str | os.PathLike, model: nn.Module) -> int:
    """Load verified weights into `model` (on its device); return the step they were saved at."""
    tensors, _, step = read_weights(path)
    _apply_weights(model, tensors, path)
    return step


def _apply_weights(model: nn.Module, tensors: dict[str, torch.Tensor], path) -> None:
    try:
        missing, unexpected = model.load_state_dict(tensors, strict=False)
    except RuntimeError as e:  # a shape that differs from the model's
        raise DamagedFile(
            "checkpoint.shape",
            "{path} does not fit this model ({detail}). The weights were "
            "saved for another configuration: was config.json edited, or "
            "the file copied from another run?",
            path=path,
            detail=_first_line(e),
        ) from None
    loaded = set(tensors)  # a tied name counts as restored only if its twin was in the file
    tied = {n for n in missing if _is_tied(model, n, among=loaded)}
    if set(missing) - tied or unexpected:
        raise DamagedFile(
            "checkpoint.names",
            "{path} does not fit this model: missing {missing}, "
            "unexpected {unexpected}. Was config.json edited, or the "
            "file copied from another run?",
            path=path,
            missing=sorted(set(missing) - tied),
            unexpected=sorted(unexpected),
        )


def _is_tied(model: nn.Module, name: str, among: set[str] | None = None) -> bool:
    """Is parameter `name` the same tensor as another, differently named one (a tied weight)?
    among: only twins with these names count (the names a weights file holds)."""
    params = dict(model.named_parameters(remove_duplicate=False))
    p = params.get(name)
    return p is not None and any(q is p for n, q in params.items() if n != name and (among is None or n in among))


def read_state(path: str | os.PathLike) -> dict[str, Any]:
    """train_state.pt as a dict, loaded with weights_only=True: a file holding anything but tensors
    and plain values (a planted pickle that would run code) is refused, never executed."""
    try:
        with warnings.catch_warnings():  # torch warns about the pickle protocol of a refused file
            warnings.simplefilter("ignore")
            state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises many types for bad bytes (zip, pickle, EOF): all mean damaged
        if "Weights only load failed" in str(e):
            raise DamagedFile(
                "checkpoint.pickle",
                "{path} was refused: it holds objects other than tensors and "
                "plain values, which glassformer never unpickles (they could "
                "run code). glassformer did not write it; delete it, and "
                "start a new run to train further.",
                path=path,
            ) from None
        raise DamagedFile(
            "checkpoint.state_damaged",
            "{path} is damaged ({detail}). The weights still sample; to train further, start a new run.",
            path=path,
            detail=_first_line(e),
        ) from None
    if not isinstance(state, dict) or state.get("format") != STATE_FORMAT or "step" not in state:
        found = state.get("format") if isinstance(state, dict) else type(state).__name__
        raise DamagedFile(
            "checkpoint.state_format",
            "{path} is not a glassformer training state of format "
            "{format} (found {found!r}). The weights still sample; to "
            "train further, start a new run.",
            path=path,
            format=STATE_FORMAT,
            found=found,
        )
    return state


def global_rng_state() -> dict[str, Any]:
    """The global streams (dropout draws from them), as tensors so weights_only loading accepts them."""
    state: dict[str, Any] = {"torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_global_rng_state(state: dict[str, Any]) -> None:
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def save_checkpoint(
    run_dir: str | os.PathLike,
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    step: int,
    batch_generator: torch.Generator,
    extra: dict[str, Any],
) -> None:
    """Write model.safetensors and train_state.pt for `step` (the four steps of the module docstring).
    `extra`: plain values (best_val ...)."""
    run_dir = Path(run_dir)
    state = {
        "format": STATE_FORMAT,
        "step": step,
        "optimizer": optimizer.state_dict(),
        "rng": {**global_rng_state(), "batches": batch_generator.get_state()},
        **extra,
    }
    state_tmp = write_temp(run_dir / STATE_FILE, lambda tmp: _save_state(state, tmp), sync=True)  # 1
    try:
        state_sha = sha256_file(state_tmp)
        model_tmp = write_temp(
            run_dir / MODEL_FILE,
            sync=True,
            write=lambda tmp: _write_weights(  # 2
                tmp, model, step, state_sha256=state_sha
            ),
        )
    except BaseException:
        Path(state_tmp).unlink(missing_ok=True)
        raise
    os.replace(model_tmp, run_dir / MODEL_FILE)  # 3
    os.replace(state_tmp, run_dir / STATE_FILE)  # 4
    fsync_path(run_dir)  # the renames themselves reach the disk


def checkpoint_bytes(model: nn.Module, optimizer: torch.optim.Optimizer) -> int:
    """About how many bytes one checkpoint pair takes: the weights plus every tensor of the optimizer's
    state (AdamW: two moments per parameter), plus a little for headers and plain values. Both files
    of the new pair are written before the old pair is replaced, so this much must be free."""
    weights = sum(t.numel() * t.element_size() for t in weights_dict(model).values())
    moments = sum(
        v.numel() * v.element_size()
        for s in optimizer.state.values()
        for v in s.values()
        if isinstance(v, torch.Tensor)
    )
    if not optimizer.state:  # before the first step: the moments are not there yet, but will be
        moments = 2 * weights
    return weights + moments + (64 << 10)


def _save_state(state: dict[str, Any], tmp: str) -> None:
    with _os_errors(tmp):
        torch.save(state, tmp)


def load_checkpoint(
    run_dir: str | os.PathLike,
    model: nn.Module,
    optimizer: torch.optim.Optimizer | None = None,
    batch_generator: torch.Generator | None = None,
    repair: bool = True,
) -> dict[str, Any]:
    """Restore weights (and, if given, optimizer and RNG streams); return train_state as a dict.
    repair: finish a save that a crash cut between its two renames (else read the temp file as is)."""
    run_dir = Path(run_dir)
    if not (run_dir / MODEL_FILE).exists():
        raise NotFound(
            "checkpoint.none",
            "{dir} has no {weights}: no checkpoint was saved there yet "
            "(training saves one at every evaluation). Start the run "
            "again, without --resume.",
            dir=run_dir,
            weights=MODEL_FILE,
        )
    tensors, metadata, step = read_weights(run_dir / MODEL_FILE)
    state_path = _state_for(run_dir, metadata.get("state_sha256"), step, repair)
    state = read_state(state_path)
    if state["step"] != step:
        raise DamagedFile(
            "checkpoint.mixed",
            "{dir}: {weights} is from step {step} but {state} from step "
            "{other}: they are not one checkpoint. The weights alone "
            "still sample; to train on, start a new run.",
            dir=run_dir,
            weights=MODEL_FILE,
            step=step,
            state=STATE_FILE,
            other=state["step"],
        )
    _apply_weights(model, tensors, run_dir / MODEL_FILE)
    try:
        if optimizer is not None:
            optimizer.load_state_dict(state["optimizer"])
        if batch_generator is not None:
            set_global_rng_state(state["rng"])
            batch_generator.set_state(state["rng"]["batches"])
    except (KeyError, TypeError, ValueError, RuntimeError) as e:
        raise DamagedFile(
            "checkpoint.state_fit",
            "{path} does not fit this model and optimizer ({detail}). "
            "The weights still sample; to train further, start a new run.",
            path=state_path,
            detail=_first_line(e),
        ) from None
    return state


def _state_for(run_dir: Path, sha: str | None, step: int, repair: bool) -> Path:
    """The train_state.pt written with the weights: the one in place, or (after a crash between the
    two renames) the complete temp file the weights name, renamed into place when `repair`."""
    path = run_dir / STATE_FILE
    if path.is_file() and (sha is None or sha256_file(path) == sha):
        return path
    for tmp in sorted(run_dir.glob(f".{STATE_FILE}.*.tmp")) if sha else ():
        if sha256_file(tmp) == sha:
            if not repair:
                return tmp
            os.replace(tmp, path)
            fsync_path(run_dir)
            return path
    if path.is_file():
        try:
            other = read_state(path)["step"]
        except DamagedFile:
            other = None
        if other is not None and other != step:  # a pair mixed from two saves
            raise DamagedFile(
                "checkpoint.mixed",
                "{dir}: {weights} is from step {step} but {state} from step "
                "{other}: they are not one checkpoint. The weights alone "
                "still sample; to train on, start a new run.",
                dir=run_dir,
                weights=MODEL_FILE,
                step=step,
                state=STATE_FILE,
                other=other,
            )
    if path.is_file():
        raise DamagedFile(
            "checkpoint.state_sha",
            "{path} is damaged: its sha256 differs from the one "
            "{weights} (step {step}) recorded for it. The weights still "
            "sample: glassformer sample {dir}. To train further, start a "
            "new run.",
            path=path,
            weights=MODEL_FILE,
            step=step,
            dir=run_dir,
        )
    raise DamagedFile(
        "checkpoint.no_state",
        "{dir} has {weights} but no {state} file (the optimizer and "
        "random streams), so training cannot continue exactly. The "
        "weights still sample: glassformer sample {dir}. To train "
        "further, start a new run.",
        dir=run_dir,
        weights=MODEL_FILE,
        state=STATE_FILE,
    )


def _unreadable_weights(path: Path, e: Exception) -> DamagedFile:
    """A weights file safetensors cannot open (loading it, or reading its shapes before building)."""
    return DamagedFile(
        "checkpoint.weights_damaged",
        "{path} is damaged: it is not a readable safetensors file "
        "({detail}). Its weights are lost; restore the file from a "
        "copy or train again.",
        path=path,
        detail=_first_line(e),
    )


def _first_line(e: BaseException) -> str:
    """The first sentence of a library's message (torch's run to paragraphs)."""
    text = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    return text.split(". ")[0][:200]


# ---- checksums: a damaged checkpoint is an error, not silently different numbers -----------------
# A flipped byte in a weight, or in an optimizer moment, still loads: safetensors and torch.save check
# their headers, not their data. So each checkpoint records sha256s when it is written and loading
# recomputes them (read_weights, load_checkpoint above):
#
#     weights_sha256   over every tensor's name, dtype, shape and bytes, in name order, and the step
#     state_sha256     over the bytes of train_state.pt, stored in the weights' metadata: it also ties
#                      the pair together (the weights name the exact state written with them)
#
# Cost: one pass over the bytes, about 1 GB/s; the `baby` model's 3 MB take a few milliseconds.


def weights_sha256(tensors: dict[str, torch.Tensor], step: int) -> str:
    """sha256 of a weights dict (CPU tensors) and the step they were saved at."""
    h = hashlib.sha256(f"step={step}\n".encode())
    for name in sorted(tensors):
        t = tensors[name].detach().cpu().contiguous()
        h.update(f"{name}|{t.dtype}|{tuple(t.shape)}\n".encode())
        h.update(cast(bytes, t.reshape(-1).view(torch.uint8).numpy()))  # the raw bytes (a buffer), whatever the dtype
    return h.hexdigest()


def sha256_file(path: str | os.PathLike, block: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(block):
            h.update(chunk)
    return h.hexdigest()


# ---- a saved run read back ------------------------------------------------------------------------
# Its config.json, the model and training configs in it, and its trained model — each checked, so a
# damaged or edited file is an error that names it (docs/reliability.md) instead of a parser's
# message or, worse, a model that silently differs from the one trained.
#
#     read_config(run_dir)            config.json as a dict, checked to hold model and train configs
#     model_config / train_config     the dataclasses, every field type- and range-checked
#     load_model(run_dir, best, device)   the trained model, its tokenizer and config (sample, inspect)

TEXT_OPTIONS = {"tokenizer": str, "vocab_size": int, "segment": str, "backend": str}  # config.json's "text"
CONFIG_FIX = N_(
    "glassformer train writes it when a run starts; restore it from a copy, or start a new run."
)  # the catalogue's sentence: where config.json comes from, what to do
CONFIG_MOST = 1 << 20  # bytes: a config.json glassformer writes is about 2 KB; a larger one is not one


RUNS_SHOWN = 5  # runs a "not a run directory" error names, nearest by name first, then the newest


def runs_hint(run_dir: Path) -> str:
    """The sentence that follows "… is not a run directory": the runs that exist beside it (folders of
    its parent holding a config.json), those whose names are nearest first, then the newest, or that
    there is none there and how to make one. Never a made-up name."""
    parent = run_dir.parent
    runs = []
    with contextlib.suppress(OSError):
        runs = [p for p in parent.iterdir() if p != run_dir and (p / "config.json").is_file()]
    if not runs:
        return t(
            "Give a directory glassformer train wrote; {parent} holds "
            "none (glassformer train --out {parent}/NAME makes one).",
            parent=parent,
        )
    near = difflib.get_close_matches(run_dir.name, [p.name for p in runs], n=RUNS_SHOWN, cutoff=0.6)
    newest = sorted(runs, key=lambda p: p.stat().st_mtime, reverse=True)
    shown = list(dict.fromkeys([parent / name for name in near] + newest))[:RUNS_SHOWN]
    return t(
        "Give a directory glassformer train wrote; {parent} holds {n} run(s): {runs}.",
        parent=parent,
        runs=", ".join(str(p) for p in shown),
        n=len(runs),
    )


def read_config(run_dir) -> dict:
    """A run directory's config.json, checked to be one: a JSON object with model and train configs."""
    run_dir = Path(run_dir)
    if run_dir.exists() and not run_dir.is_dir():
        raise NotFound(
            "run.is_file", "{dir} is a file, not a run directory. {hint}", dir=run_dir, hint=runs_hint(run_dir)
        )
    if not run_dir.exists():
        raise NotFound(
            "run.missing",
            "{dir} is not a run directory: it does not exist. {hint}",
            dir=run_dir,
            hint=runs_hint(run_dir),
        )
    path = run_dir / "config.json"
    if not path.exists():
        raise NotFound(
            "run.no_config",
            "{dir} is not a run directory: it has no config.json. {hint}",
            dir=run_dir,
            hint=runs_hint(run_dir),
        )
    config = read_json(path, t(CONFIG_FIX), most=CONFIG_MOST)  # a FIFO or /dev/zero is refused unread
    if not (
        isinstance(config, dict)
        and isinstance(config.get("model"), dict)
        and isinstance(config.get("train"), dict)
        and isinstance(config.get("source", ""), str)
    ):
        raise DamagedFile(
            "run.config_shape",
            '{path} is damaged: it must be a JSON object with "model" '
            'and "train" objects (and a "source" string). {fix}',
            path=path,
            fix=t(CONFIG_FIX),
        )
    text = config.get("text", {})  # how the corpus was cut into tokens: prepare()'s options
    if not (isinstance(text, dict) and all(type(text[k]) is kind for k, kind in TEXT_OPTIONS.items() if k in text)) or (
        set(text) - set(TEXT_OPTIONS)
    ):
        raise DamagedFile(
            "run.config_text",
            '{path} is damaged: its "text" must be an object of the '
            "tokenizer options {options} (text values, vocab_size a "
            "whole number). {fix}",
            path=path,
            options=", ".join(TEXT_OPTIONS),
            fix=t(CONFIG_FIX),
        )
    return config


def model_config(config: dict, run_dir=None) -> ModelConfig:
    """The ModelConfig a run's config.json holds, type-checked. Runs saved before a field existed get
    its default (runs before `kind` were all GPTs); old spellings are translated (config.saved_fields)."""
    cfg = _checked(saved_fields("model", config["model"]), run_dir).model
    try:
        model_class(cfg.kind)
    except ValueError as e:
        raise DamagedFile(
            "run.invalid_config",
            "{path} holds an invalid config: {problem} {fix}",
            path=Path(run_dir or ".") / "config.json",
            problem=e,
            fix=t(CONFIG_FIX),
        ) from None
    return cfg


def train_config(config: dict, run_dir=None) -> TrainConfig:
    """The TrainConfig a run's config.json holds, type-checked (a field added later keeps its default,
    an old spelling is translated: block_size is seq_len)."""
    return _checked(saved_fields("train", config["train"]), run_dir).train


def _checked(values: dict, run_dir) -> Preset:
    """Saved values on top of the defaults, with the types and ranges an override must have."""
    try:
        return apply_overrides(Preset(ModelConfig(), TrainConfig()), values, typed=True)
    except ValueError as e:
        where = Path(run_dir) / "config.json" if run_dir is not None else "config.json"
        raise DamagedFile(
            "run.invalid_config",
            "{path} holds an invalid config: {problem} {fix}",
            path=where,
            problem=e,
            fix=t(CONFIG_FIX),
        ) from None


def build_saved(cfg: ModelConfig, run_dir) -> torch.nn.Module:
    """build_model for a saved config: a kind or position scheme that no longer exists names the file.
    Before anything is allocated the config is checked against the weights beside it (fits_weights)
    and its tables against the machine's memory (models/kinds.py): a config.json edited to
    max_len=10**9 is refused, not allocated."""
    where = Path(run_dir) / "config.json"
    try:
        fits_weights(cfg, run_dir)
        check_fits(cfg)
        return build_model(cfg)
    except ValueError as e:
        if isinstance(e, DamagedFile):
            raise
        raise DamagedFile(
            "run.invalid_config",
            "{path} holds an invalid config: {problem} {fix}",
            path=where,
            problem=e,
            fix=t(CONFIG_FIX),
        ) from None


def fits_weights(cfg: ModelConfig, run_dir) -> None:
    """Refuse a config whose model would not have the shapes of the run's weights file (read from the
    file's header: no tensor is loaded), built on the meta device so nothing is allocated."""
    run_dir = Path(run_dir)
    path = next((run_dir / n for n in (MODEL_FILE, BEST_FILE) if (run_dir / n).is_file()), None)
    if path is None:
        return  # no weights yet: the loader says so
    try:
        with safe_open(str(path), framework="pt") as f:
            held = {name: tuple(f.get_slice(name).get_shape()) for name in f.keys()}
    except (SafetensorError, OSError, ValueError, RuntimeError) as e:
        raise _unreadable_weights(path, e) from None
    if cfg.n_layers > len(held):  # every layer has weights of its own: no need to build this one
        raise DamagedFile(
            "run.config_weights",
            "{path} does not describe the model whose weights are in "
            "{weights} ({detail}): one of them was edited or damaged. "
            "Restore config.json as training wrote it.",
            path=run_dir / "config.json",
            weights=path,
            detail=f"n_layers={cfg.n_layers}",
        )
    try:
        model = meta_model(cfg)
    except (RuntimeError, OverflowError, TypeError, MemoryError) as e:  # a size beyond any tensor's
        raise DamagedFile(
            "run.config_weights",
            "{path} does not describe the model whose weights are in "
            "{weights} ({detail}): one of them was edited or damaged. "
            "Restore config.json as training wrote it.",
            path=run_dir / "config.json",
            weights=path,
            detail=_first_line(e),
        ) from None
    wanted = {name: tuple(p.shape) for name, p in model.state_dict().items()}
    for name, shape in held.items():
        if wanted.get(name) != shape:
            detail = (
                t(
                    "{name}: config.json makes shape {wanted}, the weights hold {held}",
                    name=name,
                    wanted=wanted[name],
                    held=shape,
                )
                if name in wanted
                else t(
                    "{name}: the weights hold {held}, which config.json's model has no place for", name=name, held=shape
                )
            )
            raise DamagedFile(
                "run.config_weights",
                "{path} does not describe the model whose weights are in "
                "{weights} ({detail}): one of them was edited or damaged. "
                "Restore config.json as training wrote it.",
                path=run_dir / "config.json",
                weights=path,
                detail=detail,
            )
    missing = [n for n in wanted if n not in held and not _is_tied(model, n, among=set(held))]
    if missing:
        detail = t(
            "{name}: config.json's model needs shape {wanted}, which the weights lack",
            name=missing[0],
            wanted=wanted[missing[0]],
        )
        raise DamagedFile(
            "run.config_weights",
            "{path} does not describe the model whose weights are in "
            "{weights} ({detail}): one of them was edited or damaged. "
            "Restore config.json as training wrote it.",
            path=run_dir / "config.json",
            weights=path,
            detail=detail,
        )


def check_vocab(run_dir, tokenizer, cfg: ModelConfig) -> None:
    if tokenizer.vocab_size != cfg.vocab_size:
        raise DamagedFile(
            "run.vocab",
            "{path} has {tokens} tokens but the model in config.json has "
            "vocab_size={vocab_size}: they are not from the same run. "
            "Restore the run's own tokenizer.json.",
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
    train_config(config, run_dir)  # not needed to sample, but a damaged field is a damaged file
    weights = run_dir / (BEST_FILE if best else MODEL_FILE)
    if not weights.exists() and best:
        raise NotFound(
            "run.no_best",
            "{path} does not exist: it is written at the first "
            "evaluation that lowers the validation loss. Drop --best to "
            "use the latest weights.",
            path=weights,
        )
    if not weights.exists():
        raise NotFound(
            "run.no_weights",
            "{path} does not exist: the run has not saved a checkpoint yet (training saves one at every evaluation).",
            path=weights,
        )
    model = build_saved(cfg, run_dir).to(check_device(device))
    load_weights(weights, model)
    model.eval()
    tokenizer = None
    if model.inputs in ("tokens", "token pairs"):
        tokenizer = load_tokenizer(run_dir / "tokenizer.json")
        check_vocab(run_dir, tokenizer, cfg)
    return model, tokenizer, config
