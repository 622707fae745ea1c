"""Direct logit attribution: the parts sum to the logit difference minus the bias term (float64)."""

import pytest
import torch

from glassformer.causal.logit_attribution import logit_attribution
from glassformer.config import ModelConfig
from glassformer.errors import Unsupported
from glassformer.models.kinds import build_model

IDS = torch.tensor([1, 2, 3, 4, 5, 6])  # (T,)
# the modern decoder (Qwen3's choices): a final RMSNorm that neither centres nor shifts, 4 query heads
# sharing 2 key-value heads, QK-norm, RoPE, SwiGLU
MODERN = {"norm_type": "rms", "ffn": "swiglu", "n_kv_heads": 2, "qk_norm": True, "position": "rope", "bias": False}


def model_of(**kw):
    torch.manual_seed(1)
    cfg = dict(vocab_size=11, d_model=16, n_heads=4, d_ff=32, n_layers=3, max_len=16)
    return build_model(ModelConfig(**{**cfg, **kw})).double().eval()


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"bias": False},
        {"position": "rotary"},
        {"norm": "none"},
        {"final_norm": False},
        {"tie_weights": True},
        {"ln_eps": 1e-2},  # the final norm's own eps, not a default (issue 43: 1e-5 typed in missed by 2.8e-4)
        {"norm_type": "rms"},
        {"norm_type": "rms", "ln_eps": 1e-2},
        MODERN,
    ],
)
def test_parts_sum_to_the_logit_difference(kw):
    model = model_of(**kw)
    for pos in (-1, 2):
        dla = logit_attribution(model, IDS, answer=3, wrong=7, pos=pos)
        assert abs(sum(dla.parts.values()) + dla.bias - dla.logit_diff) < 1e-10
    rotates = kw.get("position") in ("rotary", "rope")
    assert list(dla.parts)[0] == "embed" and ("pos_embed" in dla.parts) == (not rotates)
    assert [k for k in dla.parts if k.startswith("blocks.")] == [
        f"blocks.{i}.{p}" for i in range(3) for p in ("attn", "ffn")
    ]
    if kw.get("bias") is False:
        assert dla.bias == 0


@pytest.mark.parametrize("heads", [False, True])
def test_an_attention_only_model_has_no_ffn_parts_and_still_sums(heads):
    model = model_of(ffn="none")
    dla = logit_attribution(model, IDS, answer=3, wrong=7, heads=heads)
    assert abs(sum(dla.parts.values()) + dla.bias - dla.logit_diff) < 1e-10
    blocks = [k for k in dla.parts if k.startswith("blocks.")]
    assert blocks == (
        [f"blocks.{i}.attn.{h}" for i in range(3) for h in (0, 1, 2, 3, "bias")]
        if heads
        else [f"blocks.{i}.attn" for i in range(3)]
    )


def test_post_norm_is_refused():
    with pytest.raises(Unsupported) as e:
        logit_attribution(model_of(norm="post"), IDS, 3, 7)
    assert e.value.code == "causal.norm_post" and e.value.fields == {"norm": "post"}


@pytest.mark.parametrize("kw", [{}, {"bias": False}, {"position": "rotary"}, {"norm": "none"}, MODERN])
def test_per_head_parts_sum_to_the_layer_and_to_the_logit_difference(kw):
    model = model_of(**kw)
    layers = logit_attribution(model, IDS, answer=3, wrong=7)
    dla = logit_attribution(model, IDS, answer=3, wrong=7, heads=True)
    assert abs(sum(dla.parts.values()) + dla.bias - dla.logit_diff) < 1e-10
    grid = dla.head_grid()  # (L, H)
    assert grid.shape == (3, 4) and grid[1, 2].item() == dla.parts["blocks.1.attn.2"]
    for i in range(3):
        bias = dla.parts.get(f"blocks.{i}.attn.bias", 0.0)
        assert abs(grid[i].sum().item() + bias - layers.parts[f"blocks.{i}.attn"]) < 1e-12
        assert dla.parts[f"blocks.{i}.ffn"] == pytest.approx(layers.parts[f"blocks.{i}.ffn"], abs=1e-14)
    assert ("blocks.0.attn.bias" in dla.parts) == (kw.get("bias") is not False)


def test_a_head_s_part_is_its_result_read_through_the_frozen_norm():
    model = model_of()
    dla = logit_attribution(model, IDS, answer=3, wrong=7, heads=True)
    _, cache = model.run_with_cache(IDS[None])
    c = cache["blocks.2.attn.result"][0, -1, 1]  # (C,)
    x = cache["blocks.2.resid_post"][0, -1]  # (C,)
    direction = (model.head.weight[3] - model.head.weight[7]) * model.ln_final.weight  # (C,)
    expected = direction @ (c - c.mean()) / (x.var(unbiased=False) + model.ln_final.eps).sqrt()
    assert abs(dla.parts["blocks.2.attn.1"] - expected.item()) < 1e-12
    with pytest.raises(Unsupported) as e:
        logit_attribution(model, IDS, 3, 7).head_grid()
    assert e.value.code == "causal.no_head_parts"


def test_a_part_is_read_through_the_frozen_rms_norm_without_centring():
    """Through RMSNorm a part c contributes (W_U[a] − W_U[w]) · g ⊙ c / √(mean(x²) + ε): no mean
    taken away (LayerNorm's centring would move every part) and no β left over."""
    model = model_of(**MODERN)
    dla = logit_attribution(model, IDS, answer=3, wrong=7, heads=True)
    _, cache = model.run_with_cache(IDS[None])
    c = cache["blocks.2.attn.result"][0, -1, 1]  # (C,)
    x = cache["blocks.2.resid_post"][0, -1]  # (C,)
    direction = (model.head.weight[3] - model.head.weight[7]) * model.ln_final.weight  # (C,)
    rms = (x.pow(2).mean() + model.ln_final.eps).sqrt()  # ()
    assert abs(dla.parts["blocks.2.attn.1"] - (direction @ c / rms).item()) < 1e-12
    assert (dla.bias, dla.scale) == (0.0, pytest.approx(rms.item(), abs=1e-14))
