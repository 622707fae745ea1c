"""The NumPy twin's first part, apart so that every twin (forward.py's models and the pieces beside
it: glu.py, attention_variants.py, moe.py, mla.py) reads weights the one way without a cycle of imports.
It never imports torch.
"""

from __future__ import annotations

import numpy as np

# ---- 1. linear: weights in, and the affine map ---------------------------------------------------
#
# The one operation nearly every weight takes part in:
#
#     y = x Wᵀ + b        W has PyTorch's (out, in) layout, so x (..., in) -> y (..., out)
#
# A glassformer state_dict is flat: "blocks.0.attn.qkv.weight", "blocks.0.attn.qkv.bias", ...
# `scope(params, "blocks.0.attn.")` returns that module's own weights with the prefix removed, so
# each function below only ever sees names like "qkv.weight".


def state_to_numpy(state_dict) -> dict[str, np.ndarray]:
    """A model's state_dict as float64 NumPy arrays (the only place a tensor is touched).

    Works on anything with `.detach().cpu().numpy()` (a torch tensor) or anything np.asarray
    accepts, so this package never has to import torch.
    """
    params = {}
    for name, value in state_dict.items():
        if hasattr(value, "detach"):
            value = value.detach().cpu().numpy()
        params[name] = np.asarray(value, dtype=np.float64)
    return params


def scope(params: dict[str, np.ndarray], prefix: str) -> dict[str, np.ndarray]:
    """The entries of `params` under `prefix`, with the prefix stripped."""
    return {name[len(prefix) :]: w for name, w in params.items() if name.startswith(prefix)}


def linear(x: np.ndarray, params: dict[str, np.ndarray]) -> np.ndarray:
    """x (..., in) -> (..., out) with params["weight"] (out, in) and optional params["bias"] (out,)."""
    y = x @ params["weight"].T  # (..., out)
    if "bias" in params:
        y = y + params["bias"]  # (..., out)
    return y
