"""Lesson 2, part 2 — making the tutorial's missing causal mask visible.

The tutorial trains "predict token t+1 at position t" with bidirectional attention, so position t
can simply read token t+1 from its input. On its own data (one sentence, 100 times) the loss
reaches ~0 with or without a mask, so the leak cannot be seen there. Two measurements show it:

1. Random tokens. When every token is drawn independently and uniformly from S symbols, no
   model can predict the next one: the best held-out loss is ln S ("chance"). A causal model
   stays there. Without the mask, positions 0..T-2 copy their target from the input and the
   last position (whose target is not in the input) stays at chance, so the held-out loss
   falls to about ln(S) / T.
2. Gradients. ∂logits[t] / ∂embedding[j] for j > t (the future) is non-zero without the mask
   and exactly zero with it: masked scores are -inf, their softmax weight is exactly 0, and
   nothing flows back through a zero weight.
"""

from __future__ import annotations

import dataclasses
import math

import torch
import torch.nn.functional as F

from glassformer.config import get_preset
from glassformer.lessons.common import train_epochs
from glassformer.models import Encoder, build_model
from glassformer.nn.loss import next_token_loss


def embedding_jacobian_norms(model: Encoder, ids: torch.Tensor) -> torch.Tensor:
    """(T, T): entry [t, j] = ‖∂ logits[0, t] / ∂ embedding[0, j]‖ for one sequence ids (1, T).

    The `embed` hook point swaps the looked-up embeddings for a tensor we own, so autograd can
    differentiate the logits with respect to it (an integer id has no gradient)."""
    model.eval()
    with torch.no_grad():
        _, cache = model.run_with_cache(ids, names=["embed"])

    def logits_of(emb: torch.Tensor) -> torch.Tensor:
        return model.run_with_hooks(ids, hooks={"embed": lambda t, name: emb})  # (1, T, V)

    J = torch.autograd.functional.jacobian(logits_of, cache["embed"])  # (1, T, V, 1, T, C)
    return J[0, :, :, 0].pow(2).sum(dim=(1, 3)).sqrt()  # (T_out, T_in)


@dataclasses.dataclass
class LeakResult:
    symbols: int
    length: int  # T, tokens the model reads
    chance: float  # ln S: the best possible held-out loss for independent uniform tokens
    leak_floor: float  # ln(S) / T: what a perfect copier of the visible next tokens reaches
    held_out: dict  # mask name -> mean held-out loss
    per_position: dict  # mask name -> [held-out loss at t for t in 0..T-1]


def per_position_loss(model: Encoder, seqs: torch.Tensor) -> torch.Tensor:
    logits = model(seqs[:, :-1])  # (N, T, S)
    return F.cross_entropy(logits.transpose(1, 2), seqs[:, 1:], reduction="none").mean(0)  # (T,)


def random_token_leak(
    symbols: int = 16,
    length: int = 4,
    n_train: int = 2000,
    n_val: int = 500,
    epochs: int = 3,
    batch_size: int = 32,
    seed: int = 0,
) -> LeakResult:
    """Train the seed002 architecture on independent uniform tokens, unmasked and causal."""
    g = torch.Generator().manual_seed(seed)
    train = torch.randint(0, symbols, (n_train, length + 1), generator=g)  # (N, T+1)
    val = torch.randint(0, symbols, (n_val, length + 1), generator=g)  # (M, T+1)
    held_out, per_pos = {}, {}
    for mask in ("none", "causal"):
        torch.manual_seed(seed)
        cfg = dataclasses.replace(
            get_preset("seed002").model, vocab_size=symbols, max_len=length, causal=(mask == "causal")
        )
        model = build_model(cfg)
        train_epochs(
            model,
            train[:, :-1],
            train[:, 1:],
            next_token_loss,
            torch.optim.Adam(model.parameters(), lr=1e-3),
            epochs,
            batch_size,
            shuffle_seed=seed,
        )
        with torch.no_grad():
            losses = per_position_loss(model, val)  # (T,)
        held_out[mask], per_pos[mask] = losses.mean().item(), losses.tolist()
    chance = math.log(symbols)
    return LeakResult(symbols, length, chance, chance / length, held_out, per_pos)
