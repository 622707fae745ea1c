"""Solution: top-k and top-p (nucleus) filtering of next-token logits."""

import torch


def top_k_filter(logits: torch.Tensor, k: int) -> torch.Tensor:
    """(B, V) -> (B, V): every logit below the k-th largest of its row becomes -inf.
    Logits tied with the k-th largest are kept, so a row may keep more than k."""
    k = min(k, logits.size(-1))
    kth = torch.topk(logits, k, dim=-1).values[:, -1:]  # (B, 1): the k-th largest per row
    return logits.masked_fill(logits < kth, float("-inf"))  # (B, V)


def top_p_filter(logits: torch.Tensor, p: float) -> torch.Tensor:
    """(B, V) -> (B, V): keep the most likely tokens until their probability reaches p, -inf for
    the rest. The token that carries the total over p is kept; so is the most likely token."""
    if p >= 1:
        return logits
    sorted_logits, order = torch.sort(logits, dim=-1, descending=True)  # (B, V), (B, V)
    probs = torch.softmax(sorted_logits, dim=-1)  # (B, V), most likely first
    mass_before = torch.cumsum(probs, dim=-1) - probs  # (B, V): probability ranked above each token
    drop_sorted = mass_before >= p  # (B, V): the tokens above already reach p without this one
    drop = torch.zeros_like(drop_sorted).scatter(-1, order, drop_sorted)  # (B, V) vocabulary order
    return logits.masked_fill(drop, float("-inf"))  # (B, V)
