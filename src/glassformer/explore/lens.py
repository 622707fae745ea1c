"""The logit lens: what the residual stream would predict if the model stopped at each layer.

    lens_p(t) = head(final_norm(h_p(t)))        h_p = the stream at point p (structure.py)

The model's last stream point, after its final norm and head, IS its output (for a pre-norm
stack); the earlier points ask the same head what they "mean so far" (nostalgebraist 2020,
"interpreting GPT: the logit lens"). The stream's size ‖h_p(t)‖₂ is shown beside it: in a
pre-norm stack it grows block by block, which is why the final norm exists.
"""

from __future__ import annotations

from typing import Callable

import torch
from torch import nn

from glassformer.errors import Unsupported


def readout(model) -> Callable[[torch.Tensor], torch.Tensor]:
    """(…, C) stream -> what the model outputs from it: its final norm (an identity when it has
    none), then its head, the model's own top-level Linear from C to its outputs."""
    C, n_out = model.cfg.d_model, model.n_outputs
    heads = [m for m in model.children() if isinstance(m, nn.Linear) and m.in_features == C and m.out_features == n_out]
    if not heads:
        raise Unsupported("error.explore.no_readout", model=type(model).__name__, d_model=C, n_out=n_out)
    head, final_norm = heads[-1], model.ln_final
    return lambda h: head(final_norm(h))


def stream_norms(stream: torch.Tensor) -> torch.Tensor:
    """(P, T, C) stream at P points -> (P, T) Euclidean length of each token's vector."""
    return stream.norm(dim=-1)  # (P, T)


def token_lens(out: torch.Tensor, k: int = 3) -> tuple[torch.Tensor, torch.Tensor]:
    """(P, T, V) lens logits -> the k most likely tokens at each point and position:
    probabilities (P, T, k) and ids (P, T, k)."""
    probs = out.softmax(dim=-1)  # (P, T, V)
    top = probs.topk(min(k, probs.size(-1)), dim=-1)
    return top.values, top.indices  # (P, T, k), (P, T, k)
