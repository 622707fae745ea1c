"""Checksums that make a damaged checkpoint an error instead of silently different numbers.

A flipped byte in a weight, or in an optimizer moment, still loads: safetensors and torch.save check
their headers, not their data. So each checkpoint records sha256s when it is written and loading
recomputes them (checkpoint.py):

    weights_sha256   over every tensor's name, dtype, shape and bytes, in name order, and the step
    state_sha256     over the bytes of train_state.pt, stored in the weights' metadata: it also ties
                     the pair together (the weights name the exact state written with them)

Cost: one pass over the bytes, about 1 GB/s; the `baby` model's 3 MB take a few milliseconds.
"""

from __future__ import annotations

import hashlib
import os

import torch


def weights_sha256(tensors: dict[str, torch.Tensor], step: int) -> str:
    """sha256 of a weights dict (CPU tensors) and the step they were saved at."""
    h = hashlib.sha256(f"step={step}\n".encode())
    for name in sorted(tensors):
        t = tensors[name].detach().cpu().contiguous()
        h.update(f"{name}|{t.dtype}|{tuple(t.shape)}\n".encode())
        h.update(t.reshape(-1).view(torch.uint8).numpy())  # the raw bytes, whatever the dtype
    return h.hexdigest()


def sha256_file(path: str | os.PathLike, block: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(block):
            h.update(chunk)
    return h.hexdigest()
