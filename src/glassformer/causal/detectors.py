"""Head detectors: how much of each head's attention goes where a kind of head would look.

From the tokens of one sequence, a (T, T) 0/1 pattern of the cells that kind attends to:

    previous_token   key = query − 1
    duplicate_token  an earlier position holding the same token
    induction        the position just after an earlier copy of the current token

A head's score is the share of its attention weight on those cells (attention · pattern summed,
over attention summed: the `"mul"` measure of TransformerLens's head_detector), averaged over the
sequences of the batch. Read from the hook points blocks.<i>.attn.weights (B, H, T, T).
On repeated random sequences [r, r] a perfect previous-token head scores near 1, a perfect
induction head near 1/2 (only the repeated half's rows have a cell to look at), a random head near
1/T. `ablation_check` is the causal test of what a detector claims.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import torch

from glassformer.causal.patching import MAX_BYTES, grid_points, row_bytes
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
    raise UsageError("causal.bad_kind", "No head detector {kind!r}; choose from {kinds}.", kind=kind, kinds=list(KINDS))


def repeated_tokens(vocab_size: int, n: int, batch: int = 1, seed: int = 0) -> torch.Tensor:
    """(batch, 2n) random tokens, each row a random sequence of n followed by itself."""
    g = torch.Generator().manual_seed(seed)
    half = torch.randint(0, vocab_size, (batch, n), generator=g)  # (batch, n)
    return torch.cat([half, half], dim=1)  # (batch, 2n)


def weights_points(model) -> list[str]:
    names = [n for n in model.hook_names() if re.fullmatch(r"blocks\.\d+\.attn\.weights", n)]
    if not names:
        raise Unsupported(
            "causal.no_hook",
            "This model has no hook point {name!r}, which {method} needs; {fix}",
            name="blocks.<i>.attn.weights",
            method=t("the head detectors"),
            fix="",
        )
    if getattr(model.cfg, "attention", "glass") == "fused":
        raise Unsupported(
            "causal.fused",
            "attention='fused' shows no attention weights; run model.set_attention('glass') first (same weights).",
        )
    return names


def head_scores(model, tokens: torch.Tensor, kind: str) -> torch.Tensor:
    """(L, H) score of every head for `kind` on tokens (B, T), averaged over the B sequences."""
    tokens = tokens.reshape(-1, tokens.shape[-1])  # (B, T)
    names = weights_points(model)
    with torch.no_grad():
        _, cache = model.run_with_cache(tokens, names=names)
    pats = torch.stack([pattern(row, kind) for row in tokens])  # (B, T, T)
    return torch.stack([share_on(cache[n], pats) for n in names])  # (L, H)


def share_on(w: torch.Tensor, pats: torch.Tensor) -> torch.Tensor:
    """The score: weights (B, H, T, T) and patterns (B, T, T) -> (H,), the share of each head's
    attention on the pattern's cells, averaged over the B sequences."""
    p = pats.to(w.dtype)[:, None]  # (B, 1, T, T)
    return ((w * p).sum((-1, -2)) / w.sum((-1, -2))).mean(0)  # (H,)


def reference_scores(tokens: torch.Tensor, kind: str, causal: bool = True) -> tuple[float, float]:
    """What a score means on these tokens (B, T): (chance, perfect). Chance is the score of a head
    that attends evenly to every key it may see (the keys up to itself when `causal`); perfect, of a
    head that puts a row's whole attention on the row's cells wherever it has any (evenly elsewhere).
    Both are `share_on` of those weights, so they follow the score as computed: on [r, r] chance is
    about ln 2 / T for induction, perfect about 1/2."""
    tokens = tokens.reshape(-1, tokens.shape[-1])  # (B, T)
    T = tokens.shape[1]
    pats = torch.stack([pattern(row, kind) for row in tokens]).double()  # (B, T, T)
    seen = torch.ones(T, T, dtype=torch.float64)  # (T, T)
    seen = seen.tril() if causal else seen
    even = seen / seen.sum(-1, keepdim=True)  # (T, T): each row sums to 1
    cells = pats.sum(-1, keepdim=True)  # (B, T, 1)
    ideal = torch.where(cells > 0, pats / cells.clamp(min=1), even)  # (B, T, T)
    return float(share_on(even.expand_as(pats)[:, None], pats)), float(share_on(ideal[:, None], pats))


@dataclass
class AblationCheck:
    """What ablating each head does to the next-token loss on repeated sequences [r, r]: a head
    the detectors call previous-token or induction should raise the loss on the repeated half
    (where copying from the first half is possible) and not on the first half (where it is not)."""

    heads: list[tuple[int, int]]  # (layer, head), one per row of the tensors below
    first: torch.Tensor  # (N,) mean loss on the first half with that head ablated
    repeated: torch.Tensor  # (N,) mean loss on the repeated half with that head ablated
    base_first: float  # the same without ablation
    base_repeated: float
    how: str  # "zero" | "mean"

    def raised(self) -> torch.Tensor:
        """(N,) how much each ablation raises the repeated half's loss more than the first half's."""
        return (self.repeated - self.base_repeated) - (self.first - self.base_first)  # (N,)

    def matters(self, margin: float = 0.1) -> list[tuple[int, int]]:
        """The heads whose ablation raises the repeated half's loss by `margin` nats more than the first half's."""
        return [h for h, r in zip(self.heads, self.raised().tolist(), strict=True) if r > margin]


def half_losses(logits: torch.Tensor, tokens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """logits (N, T, V) of rows each of tokens (B, T = 2n) -> mean next-token loss on the first half
    (positions 0..n−2 predicting 1..n−1) and on the repeated half (n..2n−2 predicting n+1..2n−1), (N,) each."""
    B, T = tokens.shape
    n = T // 2
    target = tokens.repeat(logits.shape[0] // B, 1)  # (N, T)
    loss = -logits[:, :-1].log_softmax(-1).gather(-1, target[:, 1:, None])[..., 0]  # (N, T−1)
    return loss[:, : n - 1].mean(1), loss[:, n:].mean(1)  # (N,), (N,)


def ablation_check(
    model, tokens: torch.Tensor, heads: list[tuple[int, int]], how: str = "zero", max_bytes: int = MAX_BYTES
) -> AblationCheck:
    """Ablate each head (its attn.z set to zero, or to its mean over the B sequences at each position)
    on tokens (B, 2n) of repeated sequences, and measure both halves' loss. Batched: one row per head."""
    if how not in ("zero", "mean"):
        raise UsageError(
            "causal.bad_ablation", "No ablation {how!r}; choose from {choices}.", how=how, choices=["zero", "mean"]
        )
    tokens = tokens.reshape(-1, tokens.shape[-1])  # (B, T)
    names = grid_points(model, "attn.z")
    with torch.no_grad():
        logits, cache = model.run_with_cache(tokens)  # (B, T, V)
        base_first, base_repeated = half_losses(logits, tokens)  # (B,), (B,)
        per_row = row_bytes(cache)
        if max_bytes < per_row:
            raise UsageError(
                "causal.budget",
                "max_bytes={max_bytes} is below one patched row ({row} bytes); give at least {row}.",
                max_bytes=max_bytes,
                row=per_row,
            )
        R = max(1, min(len(heads), max_bytes // per_row))  # rows of one batched forward
        first, repeated = [], []
        for start in range(0, len(heads), R):
            chunk = heads[start : start + R]
            hooks = {}
            for layer in sorted({lh[0] for lh in chunk}):
                rows = [(i, h) for i, (lh, h) in enumerate(chunk) if lh == layer]
                hooks[names[layer]] = _ablate(cache[names[layer]], rows, how)
            out = model.run_with_hooks(tokens.repeat(len(chunk), 1), hooks=hooks)  # (R·B, T, V)
            f, r = half_losses(out, tokens)  # (R·B,), (R·B,)
            first.append(f.view(len(chunk), -1).mean(1))  # (R,)
            repeated.append(r.view(len(chunk), -1).mean(1))  # (R,)
    return AblationCheck(
        list(heads), torch.cat(first), torch.cat(repeated), base_first.mean().item(), base_repeated.mean().item(), how
    )


def _ablate(z_clean: torch.Tensor, rows: list[tuple[int, int]], how: str):
    """A hook on attn.z (R·B, H, T, D): row r's head h zeroed, or set to its mean over the batch."""
    mean = z_clean.mean(0)  # (H, T, D)

    def hook(z: torch.Tensor, _name: str) -> torch.Tensor:
        out = z.clone()  # (R·B, H, T, D)
        view = out.view(-1, *z_clean.shape)  # (R, B, H, T, D)
        for r, h in rows:
            view[r, :, h] = 0.0 if how == "zero" else mean[h]  # (B, T, D)
        return out

    return hook
