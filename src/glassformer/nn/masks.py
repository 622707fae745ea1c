"""Attention masks. Convention everywhere in glassformer: a boolean tensor, True = may attend.

That is the convention of `torch.tril(torch.ones(T, T, dtype=torch.bool))`. A mask is any shape
that broadcasts against the attention scores (B, H, T_q, T_k): (T, T), (B, 1, T, T),
(B, H, T, T), (B, 1, 1, T) ... A 3-D mask (B, T_q, T_k) is given a head axis (see attention.py).
"""

from __future__ import annotations

import torch


def check_mask(mask: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
    """Validate a boolean mask against attention scores (B, H, T_q, T_k) and return it in a
    broadcastable layout; a 3-D mask (B, T_q, T_k) gets a head axis."""
    if mask.dtype != torch.bool:
        raise ValueError(
            f"attention mask must be boolean (True = may attend), got dtype {mask.dtype}. "
            "Convert a 0/1 mask with mask.bool(); an additive float mask with (mask == 0)."
        )
    if mask.dim() == 3 and scores.dim() == 4:
        mask = mask.unsqueeze(1)  # (B, T_q, T_k) -> (B, 1, T_q, T_k): same mask for every head
    try:
        shape = torch.broadcast_shapes(mask.shape, scores.shape)
    except RuntimeError:
        shape = None
    if shape != scores.shape:
        raise ValueError(
            f"attention mask of shape {tuple(mask.shape)} cannot broadcast to the scores' shape "
            f"{tuple(scores.shape)} (B, H, T_q, T_k). Give it one of the shapes (T_q, T_k), "
            "(B, T_q, T_k), (B, 1, T_q, T_k), (B, H, T_q, T_k) or (B, 1, 1, T_k), with T_q and "
            "T_k equal to the query and key lengths."
        )
    return mask


def causal_mask(T: int, device: torch.device | str | None = None, offset: int = 0) -> torch.Tensor:
    """Lower-triangular mask: query i, at position offset+i, may attend to keys 0..offset+i, never
    the future. `offset` = tokens already in a KV cache: (T, offset+T); without one, (T, T).
    The one place a causal mask is built (models and decoders all ask here)."""
    full = torch.ones(T, offset + T, dtype=torch.bool, device=device)  # (T, L+T)
    return torch.tril(full, diagonal=offset)  # (T, L+T)


def padding_mask(ids: torch.Tensor, pad_id: int) -> torch.Tensor:
    """(B, 1, 1, T) mask that hides padding *keys*: no query may attend to a <PAD> token.

    Padding *queries* still produce outputs (they attend to the real tokens); the loss ignores
    them through ignore_index, which is the usual arrangement (and the one PyTorch's
    key_padding_mask implements).
    """
    if ids.dim() != 2:
        raise ValueError(f"padding_mask expects token ids of shape (B, T), got {tuple(ids.shape)}.")
    return (ids != pad_id)[:, None, None, :]  # (B, 1, 1, T)


def combine_masks(*masks: torch.Tensor | None) -> torch.Tensor | None:
    """Logical AND of any number of masks (None entries are skipped), broadcast together.

    A 3-D mask (B, T_q, T_k) gets its head axis first, so (B, T, T) and (B, 1, 1, T) combine to
    (B, 1, T, T) rather than mis-aligning B with H.
    """
    present = [m for m in masks if m is not None]
    if not present:
        return None
    if any(m.dim() == 4 for m in present):
        present = [m.unsqueeze(1) if m.dim() == 3 else m for m in present]
    out = present[0]
    for m in present[1:]:
        try:
            out = out & m  # broadcasts
        except RuntimeError:
            raise ValueError(
                f"cannot combine masks of shapes {tuple(out.shape)} and {tuple(m.shape)}: "
                "they do not broadcast. Give each mask the layout (B or 1, H or 1, T_q or 1, T_k)."
            ) from None
    return out
