"""Solution: the attention scores Q·Kᵀ/√D."""

import math

import torch


def attention_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """q (..., T_q, D), k (..., T_k, D) -> (..., T_q, T_k): entry [i, j] = q_i·k_j / √D."""
    D = q.size(-1)
    return q @ k.transpose(-2, -1) / math.sqrt(D)  # (..., T_q, D) @ (..., D, T_k) -> (..., T_q, T_k)
