"""Checkpoints: the files that let a run continue exactly where it stopped, written so a crash never
costs the last good one.

A checkpoint is two files in the run directory:

    model.safetensors   the weights (safetensors: plain tensors, no pickle; readable by other tools)
    train_state.pt      optimizer moments, step, best val loss and every RNG state, saved with
                        torch.save and read with torch.load(weights_only=True): only tensors and
                        plain Python types, never arbitrary pickled objects

Both carry the step; loading refuses a pair whose steps disagree (that can only happen if the
process died in the microseconds between the two renames at the end of save_checkpoint).

Atomic writes (glassformer/files.py): each file is first written in full to a temp file in the
same directory, then os.replace()d onto its name, so a reader sees the old file or the new one,
never a half-written one. Both temp files of a checkpoint are complete before either is renamed.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import torch
from safetensors import safe_open
from safetensors.torch import load_file, save_file
from torch import nn

from glassformer.files import atomic_write, write_temp

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
    for name, t in model.state_dict().items():
        key = (t.untyped_storage().data_ptr(), t.storage_offset(), tuple(t.shape))
        if key not in seen:
            seen.add(key)
            out[name] = t.detach().cpu().contiguous()
    return out


def _write_weights(tmp: str, model: nn.Module, step: int) -> None:
    save_file(weights_dict(model), tmp, metadata={"step": str(step)})


def save_weights(path: str | os.PathLike, model: nn.Module, step: int) -> None:
    atomic_write(path, lambda tmp: _write_weights(tmp, model, step))


def load_weights(path: str | os.PathLike, model: nn.Module) -> int:
    """Load weights into `model` (on its device); return the step they were saved at."""
    tensors = load_file(str(path), device=str(next(model.parameters()).device))
    missing, unexpected = model.load_state_dict(tensors, strict=False)
    tied = {n for n in missing if _is_tied(model, n)}
    if set(missing) - tied or unexpected:
        raise ValueError(f"{path} does not fit this model: missing {sorted(set(missing) - tied)}, "
                         f"unexpected {sorted(unexpected)}")
    with safe_open(str(path), framework="pt") as f:
        return int((f.metadata() or {}).get("step", -1))


def _is_tied(model: nn.Module, name: str) -> bool:
    """Is parameter `name` the same tensor as another, differently named one (a tied weight)?"""
    params = dict(model.named_parameters(remove_duplicate=False))
    p = params.get(name)
    return p is not None and any(q is p for n, q in params.items() if n != name)


def global_rng_state() -> dict[str, Any]:
    """The global streams (dropout draws from them), as tensors so weights_only loading accepts them."""
    state = {"torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_global_rng_state(state: dict[str, Any]) -> None:
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def save_checkpoint(run_dir: str | os.PathLike, model: nn.Module, optimizer: torch.optim.Optimizer,
                    step: int, batch_generator: torch.Generator, extra: dict[str, Any]) -> None:
    """Write model.safetensors and train_state.pt for `step`. `extra`: plain values (best_val ...)."""
    run_dir = Path(run_dir)
    state = {"format": STATE_FORMAT, "step": step, "optimizer": optimizer.state_dict(),
             "rng": {**global_rng_state(), "batches": batch_generator.get_state()}, **extra}
    # Both temp files are complete before either rename: a failure while writing changes nothing.
    model_tmp = write_temp(run_dir / MODEL_FILE, lambda tmp: _write_weights(tmp, model, step))
    try:
        state_tmp = write_temp(run_dir / STATE_FILE, lambda tmp: torch.save(state, tmp))
    except BaseException:
        Path(model_tmp).unlink(missing_ok=True)
        raise
    os.replace(model_tmp, run_dir / MODEL_FILE)
    os.replace(state_tmp, run_dir / STATE_FILE)


def load_checkpoint(run_dir: str | os.PathLike, model: nn.Module,
                    optimizer: torch.optim.Optimizer | None = None,
                    batch_generator: torch.Generator | None = None) -> dict[str, Any]:
    """Restore weights (and, if given, optimizer and RNG streams); return train_state as a dict."""
    run_dir = Path(run_dir)
    for name in (MODEL_FILE, STATE_FILE):
        if not (run_dir / name).exists():
            raise FileNotFoundError(f"{run_dir} has no {name}: it holds no checkpoint to resume from")
    state = torch.load(run_dir / STATE_FILE, map_location="cpu", weights_only=True)
    if state.get("format") != STATE_FORMAT:
        raise ValueError(f"{run_dir / STATE_FILE} has format {state.get('format')}, expected {STATE_FORMAT}")
    weights_step = load_weights(run_dir / MODEL_FILE, model)
    if weights_step != state["step"]:
        raise ValueError(f"{run_dir}: {MODEL_FILE} is from step {weights_step} but {STATE_FILE} from "
                         f"step {state['step']}: the process died between writing the two. The weights "
                         f"alone still sample; to train on, start a new run.")
    if optimizer is not None:
        optimizer.load_state_dict(state["optimizer"])
    if batch_generator is not None:
        set_global_rng_state(state["rng"])
        batch_generator.set_state(state["rng"]["batches"])
    return state
