"""The shared part of the tests that build a transformers decoder family (Llama, Qwen3,
Mistral, Mixtral, Qwen3-MoE, DeepSeek-V3) and compare glassformer's GPT made from it: the model built
the same way (seeded, in float64 where asked, weights moved away from their initial values), the
tokens read, the logits comparison and the cached-against-whole-forward comparison; and the tiny
tokenizer.json the import tests' checkpoints ship."""

from __future__ import annotations

import contextlib
import importlib

import torch
from helpers import ATOL, assert_close
from hf_float64 import transformers_in_float64

from glassformer.models.llama import gpt_from_hf


def precision(dtype: torch.dtype):
    """transformers at float64 for a float64 model (hf_float64.py), untouched otherwise."""
    return transformers_in_float64() if dtype == torch.float64 else contextlib.nullcontext()


def hf_model(name: str, settings: dict, dtype: torch.dtype = torch.float64):
    """transformers' `name` (e.g. "LlamaForCausalLM") with its config (`name`'s "Config") from
    settings, seeded, every parameter moved by 0.1·N(0, 1): norms' gains away from 1, so a gain read
    from the wrong place shows."""
    transformers = importlib.import_module("transformers")
    config = getattr(transformers, name.replace("ForCausalLM", "Config"))(**settings)
    torch.manual_seed(0)
    with torch.no_grad(), precision(dtype):  # RoPE's frequencies, too
        model = getattr(transformers, name)(config).to(dtype).eval()
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.1)
    return model


def ids(V: int, n: int, B: int = 2) -> torch.Tensor:
    return torch.randint(0, V, (B, n), generator=torch.Generator().manual_seed(1))  # (B, n)


def assert_logits_equal(hf, x: torch.Tensor, dtype: torch.dtype):
    """Our GPT from hf gives hf's logits on x within ATOL[dtype]; returns (ours, hf's output)."""
    ours = gpt_from_hf(hf)
    with torch.no_grad():
        with precision(dtype):
            out = hf(x)
        assert_close("logits", ours(x), out.logits, ATOL[dtype])  # (B, T, V)
    return ours, out


def assert_cached_equals_whole_forward(ours, x: torch.Tensor):
    """Three tokens through the cache, then one at a time, equal the whole forward within 1e-10;
    returns the cache."""
    cache = ours.new_cache(x.size(0))
    with torch.no_grad():
        full = ours(x)  # (B, T, V)
        steps = [ours(x[:, :3], cache)] + [ours(x[:, t : t + 1], cache) for t in range(3, x.size(1))]
    assert_close("cached", torch.cat(steps, dim=1), full, 1e-10)
    return cache


def assert_same_tensors(back: dict, theirs: dict) -> None:
    """The same names, every tensor equal."""
    assert back.keys() == theirs.keys()
    assert all(torch.equal(back[k], theirs[k]) for k in theirs)


TEXT = "the cat sat on the mat and the dog sat on the log " * 20


def tokenizer_json() -> str:
    """A tiny byte-less BPE of the tokenizers library, trained on TEXT (what a checkpoint ships)."""
    tokenizers = importlib.import_module("tokenizers")
    tok = tokenizers.Tokenizer(tokenizers.models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Metaspace()
    tok.decoder = tokenizers.decoders.Metaspace()
    tok.train_from_iterator([TEXT], tokenizers.trainers.BpeTrainer(vocab_size=40, special_tokens=["<unk>"]))
    return tok.to_str()
