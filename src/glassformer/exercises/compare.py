"""Comparing the learner's values with the references and with the known-wrong variants.

Two finite values agree entry by entry when  |yours - reference| <= atol · (1 + |reference|)
(absolute near zero, relative for large entries such as a loss on large logits); an infinity
agrees only with the same infinity, and so do two NaNs when two outputs are compared with each other (never with
a reference: the references are NaN-free, and a test checks it). Booleans and integers must be
equal. `first_problem` says what is wrong with one value, in the order a learner should fix it:
its type, its shape, its dtype, and only then its numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch


@dataclass
class Problem:
    """What is wrong with one returned value. `what` is a text key suffix:
    type | shape | dtype | value | nan | grad_missing."""

    what: str
    index: tuple[int, ...] | None = None  # the first entry (row-major) that disagrees
    yours: object = None
    ref: object = None
    max_err: float | None = None


def unpack(exported: dict) -> list:
    """The worker's export of a return value -> a flat list of tensors / other descriptions."""
    if exported["kind"] == "seq":
        return [_leaf(e) for e in exported["items"]]
    return [_leaf(exported)]


def _leaf(e: dict):
    if e["kind"] == "tensor":
        return e["value"]
    if e["kind"] == "scalar":
        return e["value"]
    if e["kind"] == "seq":
        return ("list", len(e["items"]))
    return (e["type"], e["repr"])


def max_error(yours: torch.Tensor, ref: torch.Tensor) -> float:
    """Largest |yours - ref| (0 where both are the same infinity, inf where only one is NaN/inf)."""
    if yours.shape != ref.shape or yours.numel() == 0:
        return 0.0 if yours.shape == ref.shape else float("inf")
    if ref.dtype == torch.bool or not ref.is_floating_point():
        return float((yours != ref).sum() > 0)
    y, r = yours.detach().to(torch.float64), ref.detach().to(torch.float64)
    same = (y == r) | (torch.isnan(y) & torch.isnan(r))
    diff = torch.where(same, torch.zeros_like(y), (y - r).abs())
    diff = torch.nan_to_num(diff, nan=float("inf"), posinf=float("inf"))  # inf stays inf, not 1.8e308
    return float(diff.max())


def _bad(yours: torch.Tensor, ref: torch.Tensor, atol: float, nan_equal: bool) -> torch.Tensor:
    """Bool mask of the entries that disagree."""
    if ref.dtype == torch.bool or not ref.is_floating_point():
        return yours != ref
    y, r = yours.detach().to(torch.float64), ref.detach().to(torch.float64)
    same = y == r  # also equal infinities
    if nan_equal:
        same = same | (torch.isnan(y) & torch.isnan(r))
    close = torch.isfinite(y) & torch.isfinite(r) & ((y - r).abs() <= atol * (1.0 + r.abs()))
    return ~(same | close)


def first_problem(yours, ref: torch.Tensor, atol: float) -> Problem | None:
    """None when `yours` agrees with the reference tensor `ref`; else the first thing to fix."""
    if not isinstance(yours, torch.Tensor):
        return Problem("type", yours=_describe(yours))
    if tuple(yours.shape) != tuple(ref.shape):
        return Problem("shape", yours=tuple(yours.shape), ref=tuple(ref.shape))
    if _kind(yours.dtype) != _kind(ref.dtype) or (ref.is_floating_point() and yours.dtype != ref.dtype):
        return Problem("dtype", yours=str(yours.dtype).replace("torch.", ""), ref=str(ref.dtype).replace("torch.", ""))
    bad = _bad(yours, ref, atol, nan_equal=False)
    if not bool(bad.any()):
        return None
    index = tuple(int(i) for i in np.argwhere(bad.numpy())[0])
    what = "nan" if bool(torch.isnan(yours.detach()).any()) else "value"
    return Problem(what, index, _item(yours, index), _item(ref, index), max_error(yours, ref))


def same_values(a, b: torch.Tensor, atol: float) -> bool:
    """Does the learner's value `a` equal a variant's value `b` (NaN = NaN, dtype kind counts)?"""
    if not isinstance(a, torch.Tensor) or not isinstance(b, torch.Tensor):
        return False
    if tuple(a.shape) != tuple(b.shape) or _kind(a.dtype) != _kind(b.dtype):
        return False
    return not bool(_bad(a, b, atol, nan_equal=True).any())


def _kind(dtype: torch.dtype) -> str:
    if dtype == torch.bool:
        return "bool"
    return "float" if dtype.is_floating_point else ("complex" if dtype.is_complex else "int")


def _item(t: torch.Tensor, index: tuple[int, ...]):
    v = t.detach()[index] if index else t.detach()
    return v.item()


def _describe(value) -> str:
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "list":
        return f"a list of {value[1]} values"
    if isinstance(value, tuple) and len(value) == 2:
        return value[0]
    return type(value).__name__ if value is not None else "None"


def describe_value(value) -> str:
    """A learner's value for a message: `tensor (2, 3) float64`, `numpy.ndarray`, `None`."""
    if isinstance(value, torch.Tensor):
        return f"tensor {tuple(value.shape)} {str(value.dtype).replace('torch.', '')}"
    return _describe(value)


def describe_arg(name: str, value) -> str:
    """An input for a message: `x (2, 5) float64`, `x (2, 5) float64 non-contiguous`, `n_heads = 2`."""
    if isinstance(value, torch.Tensor):
        layout = "" if value.is_contiguous() else " non-contiguous"
        return f"{name} {tuple(value.shape)} {str(value.dtype).replace('torch.', '')}{layout}"
    if isinstance(value, dict):
        return f"{name} {{{len(value)} tensors}}"
    return f"{name} = {value!r}"


def fmt_number(v) -> str:
    if isinstance(v, bool) or v is None:
        return str(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return f"{v:.10g}" if np.isfinite(v) else str(v)
    return str(v)
