"""Metrics: logits (N, T, V) -> one number per row (N,), read at one position (the last by default).

    logit_diff(answer, wrong)   logit[answer] − logit[wrong]   (linear in the logits)
    token_prob(token)           softmax probability of `token`
    token_loss(token)           −log p(token)

Patching normalises a metric m as (m − m_corrupt) / (m_clean − m_corrupt): clean = 1, corrupted = 0.
"""

from __future__ import annotations

from typing import Callable

import torch

Metric = Callable[[torch.Tensor], torch.Tensor]  # logits (N, T, V) -> (N,)


def logit_diff(answer: int, wrong: int, pos: int = -1) -> Metric:
    def metric(logits: torch.Tensor) -> torch.Tensor:
        last = logits[:, pos]  # (N, V)
        return last[:, answer] - last[:, wrong]  # (N,)

    return metric


def token_prob(token: int, pos: int = -1) -> Metric:
    def metric(logits: torch.Tensor) -> torch.Tensor:
        return logits[:, pos].softmax(-1)[:, token]  # (N,)

    return metric


def token_loss(token: int, pos: int = -1) -> Metric:
    def metric(logits: torch.Tensor) -> torch.Tensor:
        return -logits[:, pos].log_softmax(-1)[:, token]  # (N,)

    return metric
