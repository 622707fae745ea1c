"""Small random GPT-2 directories, as transformers saves them, made offline for the interop tests.

The tokenizer is learned here by the `tokenizers` library's ByteLevelBPETokenizer (GPT-2's recipe:
256 byte tokens, then merges) on a text with English, Chinese, emoji and whitespace runs, and
written as vocab.json + merges.txt; the model is a GPT2LMHeadModel whose every weight is random.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import torch
from helpers import randomize_

transformers = pytest.importorskip("transformers")
from tokenizers import ByteLevelBPETokenizer  # noqa: E402

CORPUS = (
    "The cat sat on the mat. It's 12 o'clock, isn't it?  Hello, world!\n"
    "我爱你。你好吗？今天天气很好。 The dog's 3 bones.\t\tTabs and   spaces.\n"
    "Emoji 🙂👍🏽 and café, naïve, Œuvre — 1234567 numbers.\n"
) * 20
TEXTS = {  # what the tokenizer tests encode: each kind the brief names, and the edges between them
    "english": "The quick brown fox jumps over the lazy dog. It's 3 o'clock; we'll see, won't we?",
    "chinese": "我爱你。你好吗？今天天气很好，我们去公园散步吧！",
    "emoji": "Emoji 🙂👍🏽🇨🇳 and 👨‍👩‍👧 (a family), ✨ sparkles",
    "whitespace": "  two leading\n\n\tthen tabs\t\tand   runs of spaces   \n  \r\n trailing   ",
    "mixed": "GPT-2 说 hello 世界 42 次! naïve café 🙂",
    "special": "first document<|endoftext|>second<|endoftext|><|endoftext|> third",
    "empty": "",
}


def train_tokenizer(folder: Path, vocab_size: int = 400) -> Path:
    tok = ByteLevelBPETokenizer()
    tok.train_from_iterator([CORPUS], vocab_size=vocab_size, special_tokens=["<|endoftext|>"], show_progress=False)
    folder.mkdir(parents=True, exist_ok=True)
    tok.save_model(str(folder))  # vocab.json, merges.txt
    return folder


def vocab_size_of(folder: Path) -> int:
    return len(json.loads((folder / "vocab.json").read_text(encoding="utf-8")))


def random_gpt2(vocab_size: int, dtype=torch.float32, n_positions: int = 32, **variant):
    """A seeded GPT2LMHeadModel of 2 layers, 4 heads, C = 24, no dropout, every weight random."""
    cfg = transformers.GPT2Config(
        vocab_size=vocab_size,
        n_positions=n_positions,
        n_embd=24,
        n_layer=2,
        n_head=4,
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        attn_pdrop=0.0,
        bos_token_id=0,
        eos_token_id=0,
        **variant,
    )
    torch.manual_seed(0)
    hf = transformers.GPT2LMHeadModel(cfg).to(dtype).eval()
    return randomize_(hf, std=0.2)  # no LayerNorm gain of 1 or bias of 0 can hide a mix-up


def gpt2_dir(folder: Path, **variant):
    """A directory like save_pretrained's: config.json, model.safetensors, vocab.json, merges.txt.
    Returns (folder, the HF model, the HF tokenizer loaded from the folder)."""
    train_tokenizer(folder)
    hf = random_gpt2(vocab_size_of(folder), **variant)
    hf.save_pretrained(folder)
    return folder, hf, transformers.GPT2Tokenizer.from_pretrained(folder)


def copy_dir(src: Path, dst: Path, config_changes: dict | None = None) -> Path:
    """A copy of a GPT-2 directory, with config.json fields changed."""
    shutil.copytree(src, dst)
    if config_changes:
        config = json.loads((dst / "config.json").read_text(encoding="utf-8"))
        config.update(config_changes)
        (dst / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return dst


def fast_tokenizer_dir(folder: Path, files: str = "tokenizer.json"):
    """The directory of issue 29: a byte-level BPE built with the `tokenizers` library and trained
    WITHOUT <|endoftext|>, wrapped in GPT2TokenizerFast(tokenizer_object=...) (whose bos/eos/unk
    default to <|endoftext|>) and saved by save_pretrained beside a random GPT2LMHeadModel of
    vocab_size=len(tokenizer). tokenizer_config.json names <|endoftext|>, the vocabulary lacks it:
    transformers adds it with the next id. `files`: what holds the tables, as saved ("tokenizer.json",
    transformers 5's form), or "vocab.json" (vocab.json + merges.txt written by the library's model,
    tokenizer.json removed: transformers then reads those). Returns (folder, HF model, HF tokenizer),
    both loaded back from the folder."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    bpe.train_from_iterator(
        [CORPUS], trainers.BpeTrainer(vocab_size=400, initial_alphabet=alphabet, show_progress=False)
    )
    fast = transformers.GPT2TokenizerFast(tokenizer_object=bpe)
    folder.mkdir(parents=True, exist_ok=True)
    fast.save_pretrained(folder)
    random_gpt2(len(fast)).save_pretrained(folder)
    if files == "vocab.json":
        bpe.model.save(str(folder))  # vocab.json, merges.txt
        (folder / "tokenizer.json").unlink()
    hf = transformers.GPT2LMHeadModel.from_pretrained(folder).eval()
    return folder, hf, transformers.AutoTokenizer.from_pretrained(folder)
