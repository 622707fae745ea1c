"""Solution: split the model width into heads, and put the heads back side by side."""

import torch


def split_heads(x: torch.Tensor, n_heads: int) -> torch.Tensor:
    """(B, T, C) -> (B, H, T, D), D = C // H: features h·D .. (h+1)·D belong to head h."""
    B, T, C = x.shape
    x = x.reshape(B, T, n_heads, C // n_heads)  # (B, T, H, D): cut each token's features into H blocks
    return x.transpose(1, 2)  # (B, H, T, D): the head axis in front, so each head is its own (T, D) matrix


def merge_heads(z: torch.Tensor) -> torch.Tensor:
    """(B, H, T, D) -> (B, T, H·D): the exact inverse of split_heads."""
    B, H, T, D = z.shape
    z = z.transpose(1, 2)  # (B, T, H, D): tokens first again (no longer contiguous)
    return z.reshape(B, T, H * D)  # (B, T, C); reshape copies when it must, view would fail here
