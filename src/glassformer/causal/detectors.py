"""Head detectors: how much of each head's attention goes where a kind of head would look.

From the tokens of one sequence, a (T, T) 0/1 pattern of the cells that kind attends to:

    previous_token   key = query − 1
    duplicate_token  an earlier position holding the same token
    induction        the position just after an earlier copy of the current token

A head's score is the share of its attention weight on those cells (attention · pattern summed,
over attention summed: the `"mul"` measure of TransformerLens's head_detector), averaged over the
sequences of the batch. Read from the hook points blocks.<i>.attn.weights (B, H, T, T).
On repeated random sequences [r, r] an induction head scores near 1, a random head near 1/T.
"""

from __future__ import annotations

import re

import torch

from glassformer.errors import Unsupported, UsageError
from glassformer.messages import t

KINDS = ("previous_token", "duplicate_token", "induction")


def pattern(tokens: torch.Tensor, kind: str) -> torch.Tensor:
    """tokens (T,) -> (T, T) 0/1 pattern of the cells a head of `kind` attends to."""
    T = tokens.shape[0]
    if kind == "previous_token":
        return torch.diag(torch.ones(T - 1), -1)  # (T, T)
    same = (tokens[:, None] == tokens[None, :]).float().tril(-1)  # (T, T): an earlier copy, not itself
    if kind == "duplicate_token":
        return same  # (T, T)
    if kind == "induction":
        shifted = torch.zeros_like(same)  # (T, T)
        shifted[:, 1:] = same[:, :-1]  # the key after the copy
        return shifted.tril()  # (T, T)
    raise UsageError("error.causal.bad_kind", kind=kind, kinds=list(KINDS))


def repeated_tokens(vocab_size: int, n: int, batch: int = 1, seed: int = 0) -> torch.Tensor:
    """(batch, 2n) random tokens, each row a random sequence of n followed by itself."""
    g = torch.Generator().manual_seed(seed)
    half = torch.randint(0, vocab_size, (batch, n), generator=g)  # (batch, n)
    return torch.cat([half, half], dim=1)  # (batch, 2n)


def weights_points(model) -> list[str]:
    names = [n for n in model.hook_names() if re.fullmatch(r"blocks\.\d+\.attn\.weights", n)]
    if not names:
        raise Unsupported(
            "error.causal.no_hook", name="blocks.<i>.attn.weights", method=t("causal.method.detectors"), fix=""
        )
    if getattr(model.cfg, "attention", "glass") == "fused":
        raise Unsupported("error.causal.fused")
    return names


def head_scores(model, tokens: torch.Tensor, kind: str) -> torch.Tensor:
    """(L, H) score of every head for `kind` on tokens (B, T), averaged over the B sequences."""
    tokens = tokens.reshape(-1, tokens.shape[-1])  # (B, T)
    names = weights_points(model)
    with torch.no_grad():
        _, cache = model.run_with_cache(tokens, names=names)
    pats = torch.stack([pattern(row, kind) for row in tokens])  # (B, T, T)
    rows = []
    for n in names:
        w = cache[n]  # (B, H, T, T)
        p = pats.to(w.dtype)[:, None]  # (B, 1, T, T)
        rows.append(((w * p).sum((-1, -2)) / w.sum((-1, -2))).mean(0))  # (H,)
    return torch.stack(rows)  # (L, H)
