"""AttentionHeads.attend writes eq. 1 out in its own lines (the reader of the model meets it there);
scaled_dot_product_attention composes the same two calls as a function (lessons, exercises, MLA).
The two must agree in every case attend takes: grouped keys, a bias, dropout's draws in training,
and a hook point that replaces the scores or the weights."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from glassformer.nn.attention import MultiHeadAttention, causal_mask, scaled_dot_product_attention

B, T, C = 2, 6, 12


def arguments_of_attend(attn: MultiHeadAttention, x: torch.Tensor, mask: torch.Tensor) -> tuple:
    """Run the module's forward once and keep what it hands attend (q, k, v, mask, bias)."""
    seen: list[tuple] = []
    real = attn.attend

    def keep(*args, **kwargs):
        seen.append((args, kwargs))
        return real(*args, **kwargs)

    attn.attend = keep  # type: ignore[method-assign]
    try:
        attn(x, mask)
    finally:
        del attn.attend
    return seen[0]


@pytest.mark.parametrize("n_kv_heads", [4, 2, 1])  # MHA, GQA, MQA
@pytest.mark.parametrize("replace", [None, "scores", "weights"])
def test_attend_equals_scaled_dot_product_attention_then_the_merge(n_kv_heads, replace):
    torch.manual_seed(0)
    attn = MultiHeadAttention(C, 4, True, 0.25, "packed", "glass", None, n_kv_heads).double().train()
    x = torch.randn(B, T, C, dtype=torch.float64)  # (B, T, C)
    mask = causal_mask(T, x.device)  # (T, T)
    args, kwargs = arguments_of_attend(attn, x, mask)
    bias = torch.randn(4, T, T, dtype=torch.float64)  # (H, T, T): as a position scheme hands it
    change = lambda t: t * 0.5 + 0.1  # noqa: E731 - what a listener may return in place of the tensor
    hooks = {"scores": attn.hook_scores, "weights": attn.hook_weights}
    if replace:
        hooks[replace].fns.append(lambda t, name: change(t))
    q, k, v = args[:3]
    torch.manual_seed(7)
    got = attn.attend(q, k, v, mask, bias)  # (B, T, C)
    torch.manual_seed(7)
    z, _ = scaled_dot_product_attention(
        q,
        k,
        v,
        mask,
        0.25,
        bias,
        change if replace == "scores" else (lambda t: t),
        change if replace == "weights" else (lambda t: t),
    )  # (B, H, T, D)
    merged = z.transpose(1, 2).reshape(B, T, -1)  # (B, T, H·D)
    want = F.dropout(attn.proj(merged), p=0.25)  # (B, T, C): the output's own dropout, drawn next
    assert got.shape == (B, T, C)
    assert torch.equal(got, want)
    assert not torch.equal(got, attn.eval().attend(q, k, v, mask, bias))  # dropout drew something
