"""Opt-in torch.compile that never costs a user their run.

`torch.compile` is lazy: it compiles at the first call, and that is where a missing C compiler,
an unsupported platform or a backend bug shows up. `compile_or_eager` makes that first call the
test: if the compiled model fails and the plain model succeeds on the same input, the failure was
the compiler's, so training says so once and goes on eagerly. Any later error is the model's and
propagates as usual.
"""

from __future__ import annotations

import sys
from typing import Callable

import torch
from torch import nn


def compile_or_eager(model: nn.Module) -> Callable[[torch.Tensor], torch.Tensor]:
    compiled = torch.compile(model)
    state = {"fn": compiled, "tested": False}

    def forward(x: torch.Tensor) -> torch.Tensor:
        if state["tested"]:
            return state["fn"](x)
        state["tested"] = True
        try:
            return compiled(x)
        except Exception as e:  # noqa: BLE001 - decided just below: the compiler's fault or the model's
            out = model(x)  # raises the model's own error if the model is what fails
            first = (str(e).strip().splitlines() or [""])[0][:200]
            print(
                f"torch.compile does not work here ({type(e).__name__}: {first}); "
                "continuing without it (drop --compile=true to skip this message).",
                file=sys.stderr,
            )
            state["fn"] = model
            return out

    return forward
