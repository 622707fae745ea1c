"""Encoder: a GPT, bidirectional by default, with an optional padding mask.

    ids (B, T) ─► embedding + positions ─► blocks (mask = causal? ∧ not-padding) ─► head ─► (B, T, V)

The masks an encoder adds to nn/attention.py's causal one live here: `padding_mask` (no query reads
a <PAD> key) and `combine_masks` (their AND). The EncoderDecoder (models/seq2seq.py) uses both.

The second tutorial's one-layer word model is `build_model(get_preset("seed002").model)`: no
LayerNorm, no mask (its next-token training then leaks the future; lessons/hello_world.py shows it).
"""

from __future__ import annotations

import torch

from glassformer.errors import UsageError
from glassformer.models.gpt import GPT
from glassformer.models.kinds import register_model_kind


def padding_mask(ids: torch.Tensor, pad_id: int) -> torch.Tensor:
    """(B, 1, 1, T) mask that hides padding *keys*: no query may attend to a <PAD> token.

    Padding *queries* still produce outputs (they attend to the real tokens); the loss ignores
    them through ignore_index, which is the usual arrangement (and the one PyTorch's
    key_padding_mask implements).
    """
    if ids.dim() != 2:
        raise UsageError(
            "mask.padding_ids", "padding_mask expects token ids of shape (B, T), got {shape}.", shape=tuple(ids.shape)
        )
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
            raise UsageError(
                "mask.combine",
                "cannot combine masks of shapes {a} and {b}: they do not "
                "broadcast. Give each mask the layout (B or 1, H or 1, T_q "
                "or 1, T_k).",
                a=tuple(out.shape),
                b=tuple(m.shape),
            ) from None
    return out


@register_model_kind("encoder")
class Encoder(GPT):
    """Token ids in, per-position logits out; attention direction set by cfg.causal. No KV cache:
    a bidirectional token reads the ones after it."""

    inputs, loss, samples, causal_only = "tokens", "next_token", True, False
    new_cache = None  # type: ignore[assignment]  # sampling feeds the whole text every step

    def attention_mask(self, ids: torch.Tensor, offset: int = 0) -> torch.Tensor | None:
        if offset:
            raise UsageError(
                "model.encoder_cache", "Encoder does not support a KV cache (its keys may see the future)."
            )
        pad = padding_mask(ids, self.cfg.pad_id) if self.cfg.pad_id is not None else None  # (B, 1, 1, T)
        return combine_masks(super().attention_mask(ids), pad)  # (T, T) ∧ (B, 1, 1, T)
