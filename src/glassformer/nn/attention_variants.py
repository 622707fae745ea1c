"""Three changes modern decoders make inside attention: fewer key-value heads, normalised queries and
keys, and a window on how far back a query looks. Each leaves Attention(Q, K, V) itself as it was.

Grouped-query attention (GQA) and multi-query attention (MQA):

    H query heads share H_kv key-value heads, g = H / H_kv queries each: query head h reads key-value
    head ⌊h / g⌋.   H_kv = H: multi-head (MHA); H_kv = 1: multi-query; between: grouped-query.

    Shazeer 2019, "Fast Transformer Decoding: One Write-Head is All You Need" (MQA); Ainslie et al.
    2023, "GQA: Training Generalized Multi-Query Transformer Models from Multi-Head Checkpoints", §2.2.

Against GPT-2's attention: W_k and W_v project to H_kv·D instead of C = H·D, so a KV cache holds
H_kv / H of GPT-2's numbers per token. `repeat_kv` lays each key-value head beside the g query heads
it serves (consecutive query heads share one, as transformers' repeat_kv), so attention runs as before.

QK-norm: RMSNorm (nn/rmsnorm.py) over each head's D features of q and of k, with one D-wide gain for
all query heads and one for all key heads, after the projection and before RoPE (Qwen3's order):

    q_h = RMSNorm_q(x W_q,h),   k_h = RMSNorm_k(x W_k,h)

    Dehghani et al. 2023, "Scaling Vision Transformers to 22 Billion Parameters" (LayerNorm on q and
    k, to keep the attention logits from growing); Qwen3 uses RMSNorm (Yang et al. 2025, "Qwen3
    Technical Report", its architecture section), and drops Qwen2's q/k/v biases.

Sliding window (Mistral):

    query at position i may see key j  ⟺  i - W < j ≤ i          W keys: itself and W - 1 before it

    Jiang et al. 2023, "Mistral 7B", §2 ("Sliding Window Attention"); Beltagy et al. 2020 (Longformer).
    The paper's words allow positions i - W .. i, W + 1 keys; transformers (and so every Mistral
    checkpoint's reference) allows W, as here. Stacked layers still carry information from up to
    n_layers·W tokens back. A cache then needs only the last W - 1 keys before the new token.
    The mask is nn/attention.py's `causal_mask(T, offset=..., window=W)`, the one place a causal
    mask is built (this file comes before attention.py, which reads `repeat_kv` from it).
"""

from __future__ import annotations

from torch import Tensor, nn

from glassformer.errors import UsageError
from glassformer.nn.hooks import HookPoint
from glassformer.nn.rmsnorm import RMSNorm

# ---- grouped-query and multi-query attention ----------------------------------------------------------


def kv_groups(n_heads: int, n_kv_heads: int) -> int:
    """g = H / H_kv, the query heads each key-value head serves; an error when H_kv does not divide H."""
    if n_kv_heads < 1 or n_heads % n_kv_heads:
        divisors = [d for d in range(1, n_heads + 1) if n_heads % d == 0]
        raise UsageError(
            "gqa.heads",
            "n_heads={n_heads} is not a multiple of "
            "n_kv_heads={n_kv_heads}: every key-value head serves the "
            "same number of query heads. Choose n_kv_heads among "
            "{divisors}.",
            n_heads=n_heads,
            n_kv_heads=n_kv_heads,
            divisors=divisors,
        )
    return n_heads // n_kv_heads


def repeat_kv(x: Tensor, groups: int) -> Tensor:
    """(B, H_kv, T, D) -> (B, H_kv·g, T, D): key-value head j becomes heads j·g .. j·g + g - 1. A view
    plus one copy; g = 1 returns x itself."""
    if groups == 1:
        return x  # (B, H, T, D): multi-head attention, nothing shared
    B, H_kv, T, D = x.shape
    spread = x[:, :, None].expand(B, H_kv, groups, T, D)  # (B, H_kv, g, T, D) no copy yet
    return spread.reshape(B, H_kv * groups, T, D)  # (B, H, T, D)


# ---- QK-norm ---------------------------------------------------------------------------------------------


class QKNorm(nn.Module):
    """q (B, H, T, D), k (B, H_kv, T, D) -> the same, each head's vectors RMS-normalised with one
    D-wide gain for q and one for k. 2D parameters."""

    def __init__(self, d_head: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.q_norm = RMSNorm(d_head, eps, axes="B H T D")
        self.k_norm = RMSNorm(d_head, eps, axes="B H_kv T D")
        self.hook_q = HookPoint("qk_norm", "B H T D", "qk_norm.q")
        self.hook_k = HookPoint("qk_norm", "B H_kv T D", "qk_norm.k")

    def forward(self, q: Tensor, k: Tensor) -> tuple[Tensor, Tensor]:
        q = self.hook_q(self.q_norm(q))  # (B, H, T, D)
        k = self.hook_k(self.k_norm(k))  # (B, H_kv, T, D)
        return q, k
