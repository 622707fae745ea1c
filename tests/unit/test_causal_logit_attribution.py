"""Direct logit attribution: the parts sum to the logit difference minus the bias term (float64)."""

import pytest
import torch

from glassformer.causal.logit_attribution import logit_attribution
from glassformer.config import ModelConfig
from glassformer.errors import Unsupported
from glassformer.models.kinds import build_model

IDS = torch.tensor([1, 2, 3, 4, 5, 6])  # (T,)


def model_of(**kw):
    torch.manual_seed(1)
    cfg = dict(vocab_size=11, d_model=16, n_heads=4, d_ff=32, n_layers=3, max_len=16)
    return build_model(ModelConfig(**{**cfg, **kw})).double().eval()


@pytest.mark.parametrize(
    "kw",
    [{}, {"bias": False}, {"position": "rotary"}, {"norm": "none"}, {"final_norm": False}, {"tie_weights": True}],
)
def test_parts_sum_to_the_logit_difference(kw):
    model = model_of(**kw)
    for pos in (-1, 2):
        dla = logit_attribution(model, IDS, answer=3, wrong=7, pos=pos)
        assert abs(sum(dla.parts.values()) + dla.bias - dla.logit_diff) < 1e-10
    assert list(dla.parts)[0] == "embed" and ("pos_embed" in dla.parts) == (kw.get("position") != "rotary")
    assert [k for k in dla.parts if k.startswith("blocks.")] == [
        f"blocks.{i}.{p}" for i in range(3) for p in ("attn", "ffn")
    ]
    if kw.get("bias") is False:
        assert dla.bias == 0


def test_post_norm_is_refused():
    with pytest.raises(Unsupported) as e:
        logit_attribution(model_of(norm="post"), IDS, 3, 7)
    assert e.value.key == "error.causal.norm_post" and e.value.fields == {"norm": "post"}
