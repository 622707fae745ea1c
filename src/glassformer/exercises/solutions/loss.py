"""Solution: next-token cross-entropy, averaged over the targets that count."""

import torch


def next_token_loss(logits, targets, ignore_index=-100):
    """logits (B, T, V), targets (B, T) int -> scalar:  -1/N Σ log softmax(logits[b, t])[targets[b, t]]

    over the N positions whose target is not `ignore_index`. targets[b, t] is already the token
    that follows position t (the batch was shifted when it was made): no shifting here.
    """
    V = logits.size(-1)
    flat = logits.reshape(-1, V)  # (B·T, V)
    tgt = targets.reshape(-1)  # (B·T,)
    keep = tgt != ignore_index  # (B·T,) bool
    flat, tgt = flat[keep], tgt[keep]  # (N, V), (N,)
    # log softmax without overflow: log Σ exp(z) = m + log Σ exp(z - m)
    m = flat.amax(dim=-1, keepdim=True)  # (N, 1)
    log_norm = m + torch.log(torch.exp(flat - m).sum(dim=-1, keepdim=True))  # (N, 1)
    log_probs = flat - log_norm  # (N, V)
    picked = log_probs[torch.arange(tgt.numel()), tgt]  # (N,): log p(correct next token)
    return -picked.mean()  # ()
