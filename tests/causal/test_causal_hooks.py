"""The hooks the causal tools read: each head's result (B, T, H, C) and the FFN's output (B, T, C)."""

import pytest
import torch

from glassformer.config import ModelConfig
from glassformer.models.kinds import build_model

IDS = torch.tensor([[1, 2, 3, 4, 5, 6], [6, 5, 4, 3, 2, 1]])  # (B, T)


def model_of(**kw):
    torch.manual_seed(0)
    cfg = dict(vocab_size=11, d_model=16, n_heads=4, d_ff=32, n_layers=2, max_len=16)
    return build_model(ModelConfig(**{**cfg, **kw})).double().eval()


@pytest.mark.parametrize("kw", [{}, {"bias": False}, {"mha_style": "heads"}, {"position": "rotary"}])
def test_head_results_sum_to_attn_out(kw):
    model = model_of(**kw)
    plain = model(IDS)  # (B, T, V)
    logits, cache = model.run_with_cache(IDS)
    assert torch.equal(logits, plain)  # a listener that only reads leaves the forward bit for bit
    for i, block in enumerate(model.blocks):
        result, z = cache[f"blocks.{i}.attn.result"], cache[f"blocks.{i}.attn.z"]  # (B, T, H, C), (B, H, T, D)
        assert result.shape == (2, 6, 4, 16)
        b = block.attn.proj.bias if block.attn.proj.bias is not None else 0
        torch.testing.assert_close(result.sum(2) + b, cache[f"blocks.{i}.attn.out"], rtol=0, atol=1e-12)
        W = block.attn.proj.weight  # (C, C)
        for h in range(4):  # head h: its z through its own D columns of W_O
            torch.testing.assert_close(result[:, :, h], z[:, h] @ W[:, h * 4 : (h + 1) * 4].T, rtol=0, atol=1e-12)
        post, mid = cache[f"blocks.{i}.resid_post"], cache[f"blocks.{i}.resid_mid"]  # 2 × (B, T, C)
        torch.testing.assert_close(cache[f"blocks.{i}.ffn.out"], post - mid, rtol=0, atol=1e-12)


def test_a_replaced_result_is_what_attn_out_sums():
    model = model_of()
    seen = {}

    def store(t, name):
        seen[name] = t.detach()

    copy = {n: (lambda t, _n: t.clone()) for n in model.hook_names()}
    # an unchanged copy changes nothing but rounding: a replaced result makes out as Σ_h result_h + b
    torch.testing.assert_close(model.run_with_hooks(IDS, hooks=copy), model(IDS), rtol=0, atol=1e-12)
    reads = {n: (lambda t, _n: None) for n in model.hook_names()}
    assert torch.equal(model.run_with_hooks(IDS, hooks=reads), model(IDS))  # reading changes nothing at all
    doubled = {"blocks.0.attn.result": lambda t, _n: 2 * t, "blocks.0.attn.out": store}
    model.run_with_hooks(IDS, hooks=doubled)
    _, cache = model.run_with_cache(IDS, names=["blocks.0.attn.result"])
    summed = cache["blocks.0.attn.result"].sum(2) + model.blocks[0].attn.proj.bias  # (B, T, C)
    twice = 2 * cache["blocks.0.attn.result"].sum(2) + model.blocks[0].attn.proj.bias  # (B, T, C)
    torch.testing.assert_close(seen["blocks.0.attn.out"], twice, rtol=0, atol=1e-12)
    # zeroing one head's result removes exactly its share
    zero = {"blocks.0.attn.result": lambda t, _n: t.index_fill(2, torch.tensor([1]), 0.0), "blocks.0.attn.out": store}
    model.run_with_hooks(IDS, hooks=zero)
    without = summed - cache["blocks.0.attn.result"][:, :, 1]  # (B, T, C)
    torch.testing.assert_close(seen["blocks.0.attn.out"], without, rtol=0, atol=1e-12)


def test_the_result_is_not_made_when_nobody_listens(monkeypatch):
    model = model_of()
    calls = []
    einsum = torch.einsum
    monkeypatch.setattr(torch, "einsum", lambda *a: calls.append(a[0]) or einsum(*a))
    model.run_with_cache(IDS, names=lambda n: not n.endswith("attn.result"))
    assert calls == []
    model.run_with_cache(IDS, names=["blocks.1.attn.result"])
    assert calls == ["bthd,chd->bthc"]  # one layer listened, one result made


def test_cross_attention_results_sum_to_cross_out():
    torch.manual_seed(0)
    cfg = ModelConfig(kind="seq2seq", vocab_size=11, d_model=16, n_heads=4, d_ff=32, n_layers=1, max_len=16, pad_id=0)
    model = build_model(cfg).double().eval()
    src, tgt = torch.tensor([[3, 4, 5, 6]]), torch.tensor([[1, 7, 8]])  # (1, S), (1, T)
    _, cache = model.run_with_cache(src, tgt)
    names = [n for n in cache if n.endswith("cross.result")]
    assert names
    for n in names:
        bias = model.get_submodule(n.rsplit(".", 1)[0]).proj.bias  # (C,)
        out = cache[n.replace("result", "out")]  # (B, T, C)
        torch.testing.assert_close(cache[n].sum(2) + bias, out, rtol=0, atol=1e-12)


# ---- what a TransformerLens user reaches for (issue 44) ---------------------------------------------


def test_to_tokens_and_to_str_tokens_are_the_batch_and_each_token_s_text():
    from glassformer.causal import to_str_tokens, to_tokens
    from glassformer.text import CharTokenizer

    tok = CharTokenizer.from_text("the cat, 你好")
    ids = to_tokens(tok, "the 你")
    assert ids.shape == (1, 5) and ids.tolist() == [tok.encode("the 你")]
    assert to_str_tokens(tok, "the 你") == to_str_tokens(tok, ids) == to_str_tokens(tok, ids[0]) == list("the 你")


def test_names_filter_is_run_with_cache_s_names_under_transformer_lens_s_name():
    from glassformer.errors import UsageError

    model = model_of()
    keep = lambda name: name.endswith("attn.z")  # noqa: E731
    _, by_filter = model.run_with_cache(IDS, names_filter=keep)
    _, by_names = model.run_with_cache(IDS, names=keep)
    assert list(by_filter) == list(by_names) == ["blocks.0.attn.z", "blocks.1.attn.z"]
    assert all(torch.equal(by_filter[n], by_names[n]) for n in by_names)
    with pytest.raises(UsageError) as e:
        model.run_with_cache(IDS, names=keep, names_filter=keep)
    assert e.value.code == "cache.names_twice"


def test_a_missing_cache_key_is_a_key_error_that_names_the_nearest_name():
    model = model_of()
    _, cache = model.run_with_cache(IDS, names_filter=lambda name: name.endswith("attn.z"))
    with pytest.raises(KeyError) as e:
        cache["blocks.1.attn.zz"]
    assert e.value.code == "cache.missing" and e.value.fields["n"] == 2
    assert "'blocks.1.attn.z'" in str(e.value.fields["hint"]).split("'blocks.1.attn.zz'", 1)[1]  # the suggestion
    with pytest.raises(KeyError) as e:
        cache["nothing_like_it"]
    assert e.value.fields["hint"] == "'nothing_like_it'"  # no suggestion when nothing is close
    with pytest.raises(KeyError) as e:
        cache["blocks.0.resid_post"]  # a real hook point the filter left out: how to keep it
    assert e.value.code == "cache.not_kept" and e.value.fields == {"name": "blocks.0.resid_post", "n": 2}
    assert cache.get("blocks.0.resid_post") is None and "blocks.0.attn.z" in cache  # a dict still
