"""Solution: the sinusoidal position table of "Attention Is All You Need" (§3.5)."""

import torch


def sinusoidal_table(max_len: int, d_model: int) -> torch.Tensor:
    """(max_len, d_model) float64:  P[p, 2i] = sin(p / 10000^(2i/C)),  P[p, 2i+1] = cos(same angle)."""
    p = torch.arange(max_len, dtype=torch.float64)[:, None]  # (L, 1) positions
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)  # (ceil(C/2),) even feature indices
    angle = p / 10000.0 ** (two_i / d_model)  # (L, ceil(C/2)): the angle p·ω_i
    table = torch.zeros(max_len, d_model, dtype=torch.float64)  # (L, C)
    table[:, 0::2] = torch.sin(angle)  # even features
    table[:, 1::2] = torch.cos(angle[:, : d_model // 2])  # odd features (one fewer when C is odd)
    return table
