"""How the kv_cache exercise is graded. What the learner reads (its title, the math and the shapes,
the hints, the note on each known mistake) is written once, in EXERCISE's words below.

Reference: glassformer's MultiHeadAttention run on the new token with a LayerCache
(nn/kv_cache.py) holding the L earlier keys and values, and a NumPy twin built from numpy_ref's
pieces. Each case's cache is what a real prefill of L random tokens stores (tests check that the
step then equals the last row of attention over all L+1 tokens, recomputed from scratch).
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch.func import functional_call

from glassformer import numpy_ref
from glassformer.exercises.catalog import ATTENTION, Case, Exercise, Function, Variant, numpy_twin, randn
from glassformer.exercises.defs.multi_head_attention import weights_by_name
from glassformer.messages import N_
from glassformer.nn.attention import MultiHeadAttention
from glassformer.nn.kv_cache import LayerCache
from glassformer.numpy_ref.forward import linear, project_qkv, scope

# ------------------------------------------------------------------ the reference solution
# A learner's file, exactly: only torch and math, no glassformer, nothing shared with another
# exercise. `glassformer exercise solution NAME` prints it; the tests grade it with the grader
# the learner meets, in the same separate process.

SOLUTION = r'''"""Solution: one decoding step of multi-head attention with a key/value cache."""

import math

import torch


def decode_step(x_new, k_cache, v_cache, w_qkv, b_qkv, w_out, b_out, n_heads):
    B, T, C = x_new.shape
    D = C // n_heads
    # 1) project only the new token
    qkv = x_new @ w_qkv.T + (b_qkv if b_qkv is not None else 0.0)  # (B, 1, 3C)
    q, k, v = (t.reshape(B, T, n_heads, D).transpose(1, 2) for t in qkv.split(C, dim=-1))  # 3 × (B, H, 1, D)
    # 2) append its key and value after the cached ones (the time axis is dim 2)
    keys = torch.cat([k_cache, k], dim=2)  # (B, H, L+1, D)
    values = torch.cat([v_cache, v], dim=2)  # (B, H, L+1, D)
    # 3) the new query may see every key: all of them are in its past (or itself), so no mask
    scores = q @ keys.transpose(-2, -1) / math.sqrt(D)  # (B, H, 1, L+1)
    z = torch.softmax(scores, dim=-1) @ values  # (B, H, 1, D)
    # 4) merge the heads and project, as in the full forward pass
    out = z.transpose(1, 2).reshape(B, T, C) @ w_out.T + (b_out if b_out is not None else 0.0)  # (B, 1, C)
    return out, keys, values
'''


def reference(x_new, k_cache, v_cache, w_qkv, b_qkv, w_out, b_out, n_heads):
    B, H, L, D = k_cache.shape
    mha = MultiHeadAttention(x_new.size(-1), n_heads, bias=b_qkv is not None).double()
    cache = LayerCache(B, H, L + 1, D, dtype=torch.float64)
    cache.append(k_cache, v_cache)  # the L earlier tokens, as the prefill stored them
    out = functional_call(mha, weights_by_name(w_qkv, b_qkv, w_out, b_out), (x_new, None, cache))  # (B, 1, C)
    return out, cache.k[:, :, : L + 1], cache.v[:, :, : L + 1]


def twin(x_new, k_cache, v_cache, w_qkv, b_qkv, w_out, b_out, n_heads):
    params = weights_by_name(w_qkv, b_qkv, w_out, b_out)
    q, k, v = project_qkv(x_new, params, n_heads)  # 3 × (B, H, 1, D)
    keys, values = np.concatenate([k_cache, k], axis=2), np.concatenate([v_cache, v], axis=2)  # (B, H, L+1, D)
    z, _ = numpy_ref.scaled_dot_product_attention(q, keys, values)  # (B, H, 1, D)
    B, H, _, D = z.shape
    return linear(z.transpose(0, 2, 1, 3).reshape(B, 1, H * D), scope(params, "proj.")), keys, values


# ------------------------------------------------------------------ known-wrong variants


def _new_qkv(x_new, w_qkv, b_qkv, n_heads):
    B, T, C = x_new.shape
    qkv = x_new @ w_qkv.T + (b_qkv if b_qkv is not None else 0.0)
    return (t.reshape(B, T, n_heads, C // n_heads).transpose(1, 2) for t in qkv.split(C, dim=-1))


def _finish(q, keys, values, w_out, b_out, mask=None):
    scores = q @ keys.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    z = torch.softmax(scores, dim=-1) @ values
    B, H, T, D = z.shape
    return z.transpose(1, 2).reshape(B, T, H * D) @ w_out.T + (b_out if b_out is not None else 0.0)


def forgot_new_key(x_new, k_cache, v_cache, w_qkv, b_qkv, w_out, b_out, n_heads):
    q, k, v = _new_qkv(x_new, w_qkv, b_qkv, n_heads)
    out = _finish(q, k_cache, v_cache, w_out, b_out)  # attends to the old tokens only
    return out, torch.cat([k_cache, k], dim=2), torch.cat([v_cache, v], dim=2)


def only_new_token(x_new, k_cache, v_cache, w_qkv, b_qkv, w_out, b_out, n_heads):
    q, k, v = _new_qkv(x_new, w_qkv, b_qkv, n_heads)
    out = _finish(q, k, v, w_out, b_out)  # the cache is never read
    return out, torch.cat([k_cache, k], dim=2), torch.cat([v_cache, v], dim=2)


def stale_cache(x_new, k_cache, v_cache, w_qkv, b_qkv, w_out, b_out, n_heads):
    q, k, v = _new_qkv(x_new, w_qkv, b_qkv, n_heads)
    keys, values = torch.cat([k_cache, k], dim=2), torch.cat([v_cache, v], dim=2)
    return _finish(q, keys, values, w_out, b_out), k_cache, v_cache  # the caches handed back unchanged


def causal_mask_on_step(x_new, k_cache, v_cache, w_qkv, b_qkv, w_out, b_out, n_heads):
    q, k, v = _new_qkv(x_new, w_qkv, b_qkv, n_heads)
    keys, values = torch.cat([k_cache, k], dim=2), torch.cat([v_cache, v], dim=2)
    mask = torch.tril(torch.ones(1, keys.size(2), dtype=torch.bool))  # row 0 of a causal mask: key 0 only
    return _finish(q, keys, values, w_out, b_out, mask), keys, values


# -------------------------------------------------------------------------------- cases


def _case(label, rng, B, L, H, D, bias=True, buffer=False, fields=None):
    """A cache filled the way a prefill fills it: the keys and values of L random tokens."""
    C = H * D
    w_qkv, w_out = randn(rng, 3 * C, C, scale=1 / math.sqrt(C)), randn(rng, C, C, scale=1 / math.sqrt(C))
    b_qkv, b_out = (randn(rng, 3 * C, scale=0.1), randn(rng, C, scale=0.1)) if bias else (None, None)
    prefix = randn(rng, B, L, C).numpy()
    params = {name: w.numpy() for name, w in weights_by_name(w_qkv, b_qkv, w_out, b_out).items()}
    _, k, v = project_qkv(prefix, params, H)  # 2 × (B, H, L, D)
    k_cache, v_cache = torch.from_numpy(np.ascontiguousarray(k)), torch.from_numpy(np.ascontiguousarray(v))
    if buffer:  # as LayerCache hands them out: the first L slots of a longer buffer (not contiguous)
        k_cache = torch.cat([k_cache, torch.zeros(B, H, 3, D, dtype=torch.float64)], dim=2)[:, :, :L]
        v_cache = torch.cat([v_cache, torch.zeros(B, H, 3, D, dtype=torch.float64)], dim=2)[:, :, :L]
    args = (randn(rng, B, 1, C), k_cache, v_cache, w_qkv, b_qkv, w_out, b_out, H)
    return Case(label, "decode_step", args, (), fields or {})


def make_cases(rng: np.random.Generator) -> list[Case]:
    cases = [
        _case(N_("a small ordinary input"), rng, 2, 4, 2, 4),
        _case(N_("an empty cache (L = 0: the first token)"), rng, 2, 0, 2, 4),
        _case(N_("one cached token (L = 1)"), rng, 2, 1, 2, 3),
        _case(N_("one head (H = 1)"), rng, 2, 5, 1, 6),
        _case(N_("a batch of 1"), rng, 1, 6, 3, 2),
        _case(N_("no biases (None)"), rng, 2, 3, 2, 4, bias=False),
        _case(N_("non-contiguous inputs (transposed views)"), rng, 2, 5, 2, 3, buffer=True),
    ]
    for i in range(2):
        B, L, H, D = (int(n) for n in rng.integers(1, 7, size=4))
        cases.append(_case(N_("random case #{i}"), rng, B, L, H, D, fields={"i": i + 1}))
    return cases


EXERCISE = Exercise(
    name="kv_cache",
    title=N_("one decoding step with a KV cache"),
    todo=N_("TODO: project the new token, append its key and value to the caches, attend, merge, project."),
    hints=(
        N_(
            "The only new work is for the new token: project x_new "
            "exactly as multi_head_attention projects x, giving q, k, v "
            "of shape (B, H, 1, D)."
        ),
        N_(
            "Append along the time axis, dim=2: torch.cat([k_cache, k], "
            "dim=2). The single query attends to all L+1 keys; a causal "
            "mask would hide nothing here."
        ),
        N_(
            "Nearly the answer: keys = torch.cat([k_cache, k], 2); "
            "values = torch.cat([v_cache, v], 2); z = torch.softmax(q @ "
            "keys.transpose(-2, -1) / math.sqrt(D), -1) @ values; out = "
            "z.transpose(1, 2).reshape(B, 1, C) @ w_out.T + b_out; "
            "return out, keys, values"
        ),
    ),
    solution=SOLUTION,
    functions=(
        Function(
            "decode_step",
            "(x_new, k_cache, v_cache, w_qkv, b_qkv, w_out, b_out, n_heads)",
            ("x_new", "k_cache", "v_cache", "w_qkv", "b_qkv", "w_out", "b_out", "n_heads"),
            ("output", "keys", "values"),
            doc=N_(
                "Multi-head attention for ONE new token, reusing the keys "
                "and values of the L tokens\nbefore it instead of recomputing "
                "them (a causal model's past never changes).\n\n    q, k, v = "
                "heads of (x_new·W_qkvᵀ + b_qkv)          (B, H, 1, D) "
                "each\n    keys = [k_cache ; k], values = [v_cache ; v]       "
                "(B, H, L+1, D)\n    out  = "
                "merge(softmax(q·keysᵀ/√D)·values)·W_outᵀ + b_out\n\nNo mask: "
                "every cached key lies in the new token's past. L may be 0.\n\n"
                "Shapes: x_new (B, 1, C), k_cache and v_cache (B, H, L, D), "
                "weights as in\nmulti_head_attention -> (out (B, 1, C), keys "
                "(B, H, L+1, D), values (B, H, L+1, D))."
            ),
        ),
    ),
    make_cases=make_cases,
    reference={"decode_step": reference},
    numpy_reference={"decode_step": numpy_twin(twin)},
    variants=(
        Variant(
            "forgot_new_key",
            "decode_step",
            forgot_new_key,
            N_(
                "The new token attends only to the cached keys: append its "
                "own key and value BEFORE attending (a token always sees "
                "itself)."
            ),
        ),
        Variant(
            "only_new_token",
            "decode_step",
            only_new_token,
            N_("The new token attends only to itself: the cache is never read. Attend to [cached keys ; new key]."),
        ),
        Variant(
            "stale_cache",
            "decode_step",
            stale_cache,
            N_(
                "You return the caches without the new token. Return the "
                "keys and values with it appended, (B, H, L+1, D): the next "
                "step needs them."
            ),
        ),
        Variant(
            "causal_mask_on_step",
            "decode_step",
            causal_mask_on_step,
            N_(
                "You apply a causal mask to the single new query; built for "
                "length 1 it hides every key but the first. The newest token "
                "may see every cached key: no mask in a decoding step."
            ),
        ),
    ),
    forbidden=(ATTENTION,),
    allowed=("torch.cat(..., dim=2)", "@ / torch.matmul", "torch.softmax", "Tensor.reshape / transpose / split"),
    error_hints=(
        (
            r"Sizes of tensors must match except in dimension",
            N_(
                "torch.cat needs every axis but the joined one to match: "
                "append along the time axis, dim=2, of two (B, H, ·, D) "
                "tensors."
            ),
        ),
    ),
    seed=114,
    plugs_into="glassformer.nn.attention.MultiHeadAttention.forward(x, mask, cache)",
)
