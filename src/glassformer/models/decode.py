"""The decode step: one new token through a GPT and its KV cache, in as few operations as possible.

With a KV cache (nn/kv_cache.py) every sampling step after the prompt feeds one token per row.
At batch 1 that is a 128-wide vector through four blocks: almost no arithmetic, and most of the
time goes to the fixed cost of each operation PyTorch dispatches (a few µs each) and of each
module call (~60 a step, hook points included). This file computes the same step the model
computes, embedding ─► + position ─► blocks ─► final norm ─► head, as one flat function over the
model's own weights, read when the step is built at the start of each generation (the matrices
as transposed copies, the position table once; weights do not change while a text is written):

- no module calls and no hook points: it runs only while no hook is attached, and hands the
  step to the model itself otherwise, so a hook never silently misses a token;
- the token-id check is skipped: the ids are the model's own picks, always in the vocabulary
  (the prompt goes through the model, and is checked there);
- Q, K and V come out of one matrix product and are split by a view;
- matrix products are called directly (`torch.mm`) rather than through `F.linear`, on a
  transposed copy of each weight made contiguous when the step is built: x Wᵀ against a (C, out)
  row-major matrix takes a faster kernel than against Wᵀ as a view or through `F.linear`
  (one product alone: 1.6–1.8× at 128 wide and batch 1, 1.2–1.3× at batch 16; the whole step:
  1.01× at batch 1, 1.12× at batch 16, docs/performance.md; the copy is the model's matrices once
  more, made once per generation); without biases the residual
  addition rides on the product (`torch.addmm(x, h, Wᵀ)` = x + h Wᵀ, one call);
- attention is the fused path's kernel (nn/fused_attention.py) whichever path the model is set
  to: glass and fused compute the same function (tests/reference/test_fused_path.py), and nobody
  is watching the weights here (a hook would have handed the step to the model);
- GELU runs on PyTorch's own kernel, with oneDNN (mkldnn) switched off around that one call and
  put back as it was, also when the call raises (`_onednn_off`). With oneDNN on, which is
  PyTorch's default on a CPU, a float32 GELU goes to oneDNN's eltwise primitive, whose fixed cost
  dwarfs a (1, 512) tensor: 18 µs a call against 1.9 µs for the native kernel and the switch
  together on this machine's CPU (docs/performance.md). The two kernels agree to a float32
  rounding (1.4e-6 at most on values up to ~10), not bit for bit, so the step's logits sit within float tolerance of the
  model's as before, and the tokens are unchanged (tests/reference/test_decode_step.py). Only
  GELU: ReLU never reaches oneDNN, and a matrix product or norm may (bf16, reduced fp32
  precision), so the switch covers nothing else. The switch is process-wide: a model run on
  another thread during those microseconds would take the native GELU too;
- the check that no hook is attached reads the hook points' function lists, gathered once when
  the step is built, in one `any` (5.9 → 0.7 µs a token for the 65 points of the 4-layer `baby`);
- it runs under torch.inference_mode, which skips autograd's per-operation bookkeeping that
  no_grad still pays (version counters, view tracking): 1.8× → 2.1× the model step in one
  side-by-side run of bench/levers.py. What a step grows and keeps (the rotary tables past
  max_len, a KV cache that doubles) is made with inference mode switched off
  (nn/position.py's RotaryPositions, nn/kv_cache.py), so it stays an ordinary tensor that the next training step can
  use; tests/reference/test_decode_step.py trains after sampling past max_len to keep it so.

Everything a position scheme does inside attention (rotate q, k; bias the scores) and the cache
itself are reached through their public methods (`rotate`, `score_bias`, `LayerCache.append`), so
the step follows whatever those do. It is a third spelling of the model's function (glass path →
fused kernel → this), so tests/reference/test_decode_step.py checks it against the model: logits
within float tolerance and identical greedy and seeded tokens, for every norm placement, both
MHA styles, with and without biases, every activation and every registered position scheme.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, cast

import torch
import torch.nn.functional as F
from torch import nn

from glassformer.models.gpt import ACTIVATION_FNS, Block, FeedForward
from glassformer.nn.attention import MultiHeadAttention
from glassformer.nn.embedding import TokenEmbedding
from glassformer.nn.fused_attention import fused_attention

if TYPE_CHECKING:
    from glassformer.models.gpt import GPT

Step = Callable[[torch.Tensor, object], torch.Tensor]  # (ids (B, T), cache) -> logits (B, T, V)


ONEDNN_ACTIVATIONS = (ACTIVATION_FNS["gelu"], ACTIVATION_FNS["gelu_tanh"])  # the ones oneDNN would take
_onednn_enabled, _set_onednn = torch._C._get_mkldnn_enabled, torch._C._set_mkldnn_enabled  # the global switch


def _onednn_off(act: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor) -> torch.Tensor:
    """act(x) with oneDNN switched off for that one call (PyTorch's own kernel, see above), the
    switch put back as it was found, also when act raises."""
    if not _onednn_enabled():
        return act(x)  # already off: nothing to switch
    _set_onednn(False)
    try:
        return act(x)  # (B, F)
    finally:
        _set_onednn(True)


def _norm(ln: nn.Module) -> tuple | None:
    """(weight, bias, eps) of a LayerNorm, None for the identity of norm='none'."""
    if isinstance(ln, nn.LayerNorm):
        return ln.weight, ln.bias, ln.eps
    return None


def _layer_norm(x: torch.Tensor, norm: tuple | None) -> torch.Tensor:
    if norm is None:
        return x
    w, b, eps = norm
    return F.layer_norm(x, w.shape, w, b, eps)  # (B, C)


def _t(w: torch.Tensor) -> torch.Tensor:
    """Wᵀ as its own row-major (in, out) tensor, detached: the fast layout for x Wᵀ (see above)."""
    return w.detach().t().contiguous()  # (in, out)


def _packed_qkv(attn: MultiHeadAttention) -> tuple[torch.Tensor, torch.Tensor | None]:
    """The (3C, C) Q/K/V matrix (and bias) in the packed layout [Q heads; K heads; V heads]."""
    if attn.style == "packed":
        return attn.qkv.weight, attn.qkv.bias
    heads = attn.heads  # stack the per-head (D, C) matrices once: rows of head h at h·D..(h+1)·D
    w = torch.cat([torch.cat([getattr(h, part).weight for h in heads]) for part in "qkv"])  # (3C, C)
    if not attn.bias:
        return w, None
    return w, torch.cat([torch.cat([getattr(h, part).bias for h in heads]) for part in "qkv"])  # (3C,)


class DecodeLayer:
    """One Block's weights, arranged for a (B, C) stream of one token per row."""

    def __init__(self, block: Block) -> None:
        attn, ffn = block.attn, block.ffn
        self.post = block.norm == "post"
        self.ln1, self.ln2 = _norm(block.ln1), _norm(block.ln2)
        self.H, self.D = attn.n_heads, attn.d_head
        w_qkv, self.b_qkv = _packed_qkv(attn)
        self.w_qkv_t = _t(w_qkv)  # (C, 3C)
        self.w_proj_t, self.b_proj = _t(attn.proj.weight), attn.proj.bias  # (C, C)
        self.w1_t, self.b1 = _t(ffn.fc1.weight), ffn.fc1.bias  # (C, F)
        self.w2_t, self.b2 = _t(ffn.fc2.weight), ffn.fc2.bias  # (F, C)
        self.act = ffn.act
        self.native_act = ffn.act in ONEDNN_ACTIVATIONS  # run it with oneDNN off (see above)
        self.positions = attn.positions  # rotary / ALiBi touch points, or None

    @staticmethod
    def _linear(x: torch.Tensor, w_t: torch.Tensor, b: torch.Tensor | None) -> torch.Tensor:
        return torch.mm(x, w_t) if b is None else torch.addmm(b, x, w_t)  # (B, out)

    @staticmethod
    def _residual(x: torch.Tensor, h: torch.Tensor, w_t: torch.Tensor, b: torch.Tensor | None) -> torch.Tensor:
        """x + h Wᵀ (+ b): without a bias the addition rides on the product, one call."""
        if b is None:
            return torch.addmm(x, h, w_t)  # (B, C)
        return x + torch.addmm(b, h, w_t)  # (B, C)

    def attention(self, h: torch.Tensor, cache, offset: int, x: torch.Tensor) -> torch.Tensor:
        """h (B, C) normalised stream of the newest token -> x + attention output (B, C)."""
        B, H, D = h.size(0), self.H, self.D
        qkv = self._linear(h, self.w_qkv_t, self.b_qkv)  # (B, 3C)
        q, k, v = qkv.view(B, 3, H, 1, D).unbind(1)  # 3 × (B, H, 1, D), views
        bias = None
        if self.positions is not None:
            q, k = self.positions.rotate(q, k, offset)  # 2 × (B, H, 1, D)
        k, v = cache.append(k, v)  # 2 × (B, H, L+1, D): every key so far, this one included
        if self.positions is not None:
            bias = self.positions.score_bias(1, k.size(2), offset)  # (H, 1, L+1) or None
        z = fused_attention(q, k, v, None, 0.0, bias)  # (B, H, 1, D): no mask, the one query sees every key
        return self._residual(x, z.view(B, H * D), self.w_proj_t, self.b_proj)  # (B, C)

    def ffn(self, h: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        """h (B, C) normalised stream -> x + FFN(h) (B, C)."""
        pre = self._linear(h, self.w1_t, self.b1)  # (B, F)
        hidden = _onednn_off(self.act, pre) if self.native_act else self.act(pre)  # (B, F)
        return self._residual(x, hidden, self.w2_t, self.b2)  # (B, C)

    def __call__(self, x: torch.Tensor, cache, offset: int) -> torch.Tensor:
        """x (B, C) -> (B, C), as Block.forward computes it for one token."""
        if self.post:  # x = LN₁(x + Attn(x));  x = LN₂(x + FFN(x))
            x = _layer_norm(self.attention(x, cache, offset, x), self.ln1)  # (B, C)
            return _layer_norm(self.ffn(x, x), self.ln2)  # (B, C)
        x = self.attention(_layer_norm(x, self.ln1), cache, offset, x)  # (B, C) = x + Attn(LN₁(x))
        return self.ffn(_layer_norm(x, self.ln2), x)  # (B, C) = x + FFN(LN₂(x))


class DecodeStep:
    """`step(ids, cache)` computes `model(ids, cache=cache)`; the one-token case the short way."""

    def __init__(self, model: GPT) -> None:
        self.model = model
        self.hook_fns = [h.fns for h in model.hook_points().values()]  # each point's list, attached to in place
        self.layers = [DecodeLayer(cast(Block, block)) for block in model.blocks]
        self.embed = model.tok_embed.weight  # (V, C)
        self.final = _norm(model.ln_final)
        self.head_w_t, self.head_b = _t(model.head.weight), model.head.bias  # (C, V)
        self.pos_table: torch.Tensor | None = None
        self.pos_embed = model.pos_embed  # past the table, the position module decides
        if model.pos_embed is not None:
            with torch.no_grad():  # the stream positions 0..max_len-1, read once: (L, C)
                self.pos_table = model.pos_embed(model.cfg.max_len, 0)

    def __call__(self, ids: torch.Tensor, cache) -> torch.Tensor:
        offset = cache.length  # the new token's absolute position
        if (
            ids.size(1) != 1
            or self.model.training
            or any(self.hook_fns)  # any point with a function attached
            or self.model.attention_mask(ids, offset) is not None
        ):
            return self.model(ids, cache=cache)  # prefill, dropout, hooks, an extra mask: the model
        with torch.inference_mode():  # no autograd bookkeeping at all (cheaper than no_grad per op)
            return self.one_token(ids, cache, offset)  # (B, 1, V)

    def one_token(self, ids: torch.Tensor, cache, offset: int) -> torch.Tensor:
        """ids (B, 1) of tokens at position `offset` -> logits (B, 1, V); fills the cache."""
        x = self.embed.index_select(0, ids.view(-1))  # (B, C)
        if self.pos_table is not None:
            if offset < self.pos_table.size(0):
                x = x + self.pos_table[offset]  # (B, C) + (C,)
            else:  # past the table: the position module decides (it says what to do)
                assert self.pos_embed is not None  # a table comes from a position module
                x = x + self.pos_embed(1, offset)[0]  # (B, C) + (C,)
        for layer, layer_cache in zip(self.layers, cache.layers, strict=False):
            x = layer(x, layer_cache, offset)  # (B, C)
        x = _layer_norm(x, self.final)  # (B, C)
        logits = torch.mm(x, self.head_w_t)  # (B, V)
        if self.head_b is not None:
            logits = logits + self.head_b  # (B, V)
        return logits[:, None]  # (B, 1, V): the model's layout


def mirrored() -> dict[type, tuple[str, ...]]:
    """The classes whose methods this step copies, and those methods: the step is the model's
    function only while the model's own classes run exactly these."""
    from glassformer.models.gpt import GPT  # models/gpt.py imports nothing from here; import late anyway

    return {
        GPT: ("forward", "run_from", "attention_mask", "embed", "add_position", "unembed"),
        Block: ("forward",),
        MultiHeadAttention: ("forward", "split_qkv", "split_heads", "attend", "merge"),
        FeedForward: ("forward",),
        TokenEmbedding: ("forward",),
    }


def mirrors(model: nn.Module) -> bool:
    """True when `model` computes what DecodeStep computes: a GPT, or a subclass that overrides
    none of the methods the step copies, built of exactly the parts the step copies (a Block,
    MultiHeadAttention, FeedForward or TokenEmbedding subclass is never assumed to be one), with
    plain norms, head and a known activation. A subclass that changes its forward
    (docs/architecture.md's ScaledGPT) gets its own forward for every token (issue 24, bug 1)."""
    copied = mirrored()
    gpt = next(iter(copied))
    if not isinstance(model, gpt) or any(name in vars(model) for name in copied[gpt]):
        return False  # not a GPT, or a method replaced on the instance itself
    if any(getattr(type(model), name) is not getattr(gpt, name) for name in copied[gpt]):
        return False  # a subclass with its own forward (or mask, or ends)
    blocks = [cast(Block, b) for b in cast("GPT", model).blocks]
    parts = [model.tok_embed, *blocks, *(b.attn for b in blocks), *(b.ffn for b in blocks)]
    if any(type(part) not in copied or any(n in vars(part) for n in copied[type(part)]) for part in parts):
        return False
    norms = [model.ln_final, *(ln for b in blocks for ln in (b.ln1, b.ln2))]
    return (
        all(type(ln) in (nn.LayerNorm, nn.Identity) for ln in norms)
        and type(model.head) is nn.Linear
        and all(b.ffn.act in ACTIVATION_FNS.values() for b in blocks)
    )


def decode_step(model: nn.Module) -> Step:
    """The fast step for a model whose function it mirrors (`mirrors`), else the model's own
    forward. Either way: step(ids (B, T), cache) -> logits (B, T, V)."""
    if not mirrors(model):
        return lambda ids, cache: model(ids, cache=cache)
    return DecodeStep(cast("GPT", model))
