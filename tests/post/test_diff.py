"""post/diff.py's per-head split on both attention layouts: the numbers `head_parts` gives head h are the
ones that head reads and writes — moving them changes that head's z and what it adds to the stream, and
no other head's — and `head_view` names exactly that head."""

from __future__ import annotations

import copy

import pytest
import torch

from glassformer.config import ModelConfig
from glassformer.models import build_model
from glassformer.post.diff import PARTS, Pair, head_moves, head_view

HEAD = 1


def model(style: str):
    torch.manual_seed(0)
    cfg = ModelConfig(d_model=16, n_heads=4, d_ff=32, n_layers=2, max_len=8, vocab_size=11, mha_style=style)
    return build_model(cfg).eval()


def share(attn, part: str, h: int) -> torch.Tensor:
    """Head h's weights in projection `part`, written out from the layout (not from head_parts)."""
    D, C = attn.d_head, attn.n_heads * attn.d_head
    if part == "o":
        return attn.proj.weight[:, h * D : (h + 1) * D]  # (C, D): the columns that read head h's z
    if attn.style == "heads":
        return getattr(attn.heads[h], part).weight  # (D, C)
    i = PARTS.index(part)
    return attn.qkv.weight[i * C + h * D : i * C + (h + 1) * D]  # (D, C): q, then k, then v


@pytest.mark.parametrize("style", ["packed", "heads"])
@pytest.mark.parametrize("part", PARTS)
def test_moving_one_heads_share_moves_that_head_only(style, part):
    base = model(style)
    tuned = copy.deepcopy(base)
    with torch.no_grad():
        share(tuned.blocks[1].attn, part, HEAD).add_(0.25)
    view = head_view(Pair(base, tuned, None, {}))
    assert view is not None
    values = torch.tensor(view.values)  # (L·4, H)
    moved = (values != 0).nonzero().tolist()
    assert moved == [[view.rows.index(f"blocks.1.attn {part}"), HEAD]]
    # the head itself: with hooks, head h's z (q, k, v) or its share of the output (o) is what changed
    ids = torch.tensor([[1, 2, 3, 4, 5]])
    z = {name: m.run_with_cache(ids)[1]["blocks.1.attn.z"] for name, m in (("base", base), ("tuned", tuned))}
    changed = [(z["base"][0, h] != z["tuned"][0, h]).any().item() for h in range(4)]
    if part == "o":  # the output projection acts after z: every z is as it was, the logits moved
        assert changed == [False] * 4 and not torch.equal(base(ids), tuned(ids))
    else:
        assert changed == [h == HEAD for h in range(4)]


@torch.no_grad()
def zeroed_loss(m, ids: torch.Tensor, layer: int, h: int | None) -> float:
    """The mean loss of ids' own next tokens with head h of `layer` zeroed (None: none), written out."""

    def hook(z: torch.Tensor, name: str) -> torch.Tensor:
        z = z.clone()
        z[:, h] = 0  # (B, H, T, D): head h's output
        return z

    hooks = {f"blocks.{layer}.attn.z": hook} if h is not None else {}
    logits = m.run_with_hooks(ids[:, :-1], hooks=hooks)  # (1, T−1, V)
    return float(torch.nn.functional.cross_entropy(logits[0], ids[0, 1:]))


@pytest.mark.parametrize("style", ["packed", "heads"])
def test_head_moves_name_the_moved_head_and_its_causal_change(style):
    base = model(style)
    tuned = copy.deepcopy(base)
    pair = Pair(base, tuned, None, {})
    prompts = [[1, 2, 3, 4, 5], [6, 7, 8, 2], [9]]  # a one-token prompt has no next token: attention only
    attention, effect = head_moves(pair, prompts)
    assert torch.tensor(attention.values).abs().max() == 0 and torch.tensor(effect.values).abs().max() == 0
    with torch.no_grad():
        share(tuned.blocks[1].attn, "q", HEAD).add_(0.5)  # head HEAD of layer 1 looks elsewhere
    attention, effect = head_moves(pair, prompts)
    moved = torch.tensor(attention.values)  # (L, H)
    assert (moved != 0).nonzero().tolist() == [[1, HEAD]]  # layer 0 reads the same stream; other heads' q, k unchanged
    expected = 0.0
    for prompt in prompts:  # ½·Σ|Δa| over each query's row, by hand
        ids = torch.tensor([prompt])
        a = base.run_with_cache(ids)[1]["blocks.1.attn.weights"][0, HEAD]  # (T, T)
        b = tuned.run_with_cache(ids)[1]["blocks.1.attn.weights"][0, HEAD]  # (T, T)
        expected += float(0.5 * (b - a).abs().sum(-1).mean()) / len(prompts)
    assert moved[1, HEAD].item() == pytest.approx(expected, rel=1e-6)
    for layer in range(2):
        for h in range(4):
            want = 0.0
            for prompt in prompts[:2]:
                ids = torch.tensor([prompt])
                rise = {m: zeroed_loss(m, ids, layer, h) - zeroed_loss(m, ids, layer, None) for m in (base, tuned)}
                want += (rise[tuned] - rise[base]) / 2
            assert effect.values[layer][h] == pytest.approx(want, abs=1e-5), (layer, h)
    assert effect.rows == attention.rows == ["blocks.0.attn", "blocks.1.attn"]
