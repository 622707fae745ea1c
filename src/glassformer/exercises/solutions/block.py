"""Solution: one pre-LN Transformer block (GPT-2's arrangement)."""

import math

import torch


def block(x, params, n_heads, mask=None, activation="relu", eps=1e-5):
    """x (B, T, C) -> (B, T, C):

        x = x + Attn(LN₁(x))        the attention half reads a normalised copy of the stream
        x = x + FFN(LN₂(x))         so does the FFN half; the stream itself is never normalised

    params: the block's weights by name, as a glassformer Block's state_dict names them:
    ln1.weight, ln1.bias, attn.qkv.weight, attn.qkv.bias, attn.proj.weight, attn.proj.bias,
    ln2.weight, ln2.bias, ffn.fc1.weight, ffn.fc1.bias, ffn.fc2.weight, ffn.fc2.bias
    (a bias may be missing or None).
    """
    p = params
    h = _layer_norm(x, p["ln1.weight"], p.get("ln1.bias"), eps)  # (B, T, C)
    x = x + _multi_head_attention(
        h, p["attn.qkv.weight"], p.get("attn.qkv.bias"), p["attn.proj.weight"], p.get("attn.proj.bias"), n_heads, mask
    )  # (B, T, C)
    h = _layer_norm(x, p["ln2.weight"], p.get("ln2.bias"), eps)  # (B, T, C)
    return x + _feed_forward(
        h, p["ffn.fc1.weight"], p.get("ffn.fc1.bias"), p["ffn.fc2.weight"], p.get("ffn.fc2.bias"), activation
    )  # (B, T, C)


def _layer_norm(x, weight, bias, eps):
    mean = x.mean(dim=-1, keepdim=True)  # (B, T, 1)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)  # (B, T, 1)
    y = (x - mean) / torch.sqrt(var + eps) * weight  # (B, T, C)
    return y + bias if bias is not None else y


def _multi_head_attention(x, w_qkv, b_qkv, w_out, b_out, n_heads, mask):
    B, T, C = x.shape
    qkv = x @ w_qkv.T + (b_qkv if b_qkv is not None else 0.0)  # (B, T, 3C)
    q, k, v = (t.reshape(B, T, n_heads, C // n_heads).transpose(1, 2) for t in qkv.split(C, dim=-1))  # 3 × (B, H, T, D)
    scores = q @ k.transpose(-2, -1) / math.sqrt(C // n_heads)  # (B, H, T, T)
    if mask is None:
        weights = torch.softmax(scores, dim=-1)  # (B, H, T, T)
    else:
        alive = mask.any(dim=-1, keepdim=True)  # rows that see at least one key
        scores = scores.masked_fill(~mask, float("-inf")).masked_fill(~alive, 0.0)
        weights = torch.softmax(scores, dim=-1).masked_fill(~alive, 0.0)  # (B, H, T, T)
    merged = (weights @ v).transpose(1, 2).reshape(B, T, C)  # (B, T, C)
    return merged @ w_out.T + (b_out if b_out is not None else 0.0)  # (B, T, C)


def _feed_forward(x, w1, b1, w2, b2, activation):
    h = x @ w1.T + (b1 if b1 is not None else 0.0)  # (B, T, F)
    if activation == "relu":
        h = torch.clamp(h, min=0.0)
    elif activation == "gelu":
        h = h * 0.5 * (1.0 + torch.erf(h / math.sqrt(2.0)))
    elif activation == "gelu_tanh":
        h = 0.5 * h * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (h + 0.044715 * h**3)))
    else:
        raise ValueError(f"unknown activation {activation!r}")
    return h @ w2.T + (b2 if b2 is not None else 0.0)  # (B, T, C)
