"""Lesson 2 — the second tutorial's tiny word-level model, trained for real, and its missing mask.

Setup (seed 002): a hand-written vocabulary, a whitespace tokenizer with <UNK> for unknown
words, 100 copies of "hello world" as [<BOS>, hello, world, <EOS>, <PAD>], and a one-layer
model (d_model 128, 4 heads, d_ff 512, learned positions, no LayerNorm, no dropout, Xavier
init: the `seed002` preset) trained with cross-entropy (ignore <PAD>), Adam 1e-3, 200 epochs,
batch 16. The tutorial trains next-token prediction *without* a causal mask; this lesson trains
both ways side by side (--mask none|causal|both) and then shows the leak (hello_leak.py).

Run it:  glassformer lesson hello-world [--mask both] [--data tutorial|greetings|FILE]
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import torch

from glassformer.config import get_preset
from glassformer.lessons import hello_data, hello_leak, hello_report
from glassformer.lessons.common import Narrator, n_batches, out_dir, train_epochs
from glassformer.lessons.published import PUBLISHED_PARAM_COUNT, TUTORIAL_VOCAB
from glassformer.models import Encoder
from glassformer.models import build_model as model_from_config
from glassformer.nn.loss import next_token_loss
from glassformer.threads import using_threads

PRESET = get_preset("seed002")  # the tutorial's model and optimiser settings (seed 002, §4)
BATCH_SIZE, LR = PRESET.train.batch_size, PRESET.train.lr
EPOCHS, REPORT_EVERY = 200, 20  # the tutorial's loop: 200 epochs, a printout every 20
FAST_EPOCHS = 40  # --fast: at most this many (what the tests run)
MASK_CHOICES = {"none": ("none",), "causal": ("causal",), "both": ("none", "causal")}


def build_model(data: hello_data.WordData, mask: str, seed: int) -> Encoder:
    """The seed002 architecture sized to the data's vocabulary and row length."""
    torch.manual_seed(seed)
    cfg = dataclasses.replace(
        PRESET.model, vocab_size=data.tokenizer.vocab_size, max_len=data.rows.size(1), causal=(mask == "causal")
    )
    return model_from_config(cfg)


def train(model: Encoder, data: hello_data.WordData, epochs: int):
    """The tutorial's loop: batches in order (no shuffling), <PAD> targets ignored."""
    pad = data.tokenizer.pad_id
    return train_epochs(
        model,
        data.inputs,
        data.targets,
        lambda logits, y: next_token_loss(logits, y, ignore_index=pad),
        torch.optim.Adam(model.parameters(), lr=LR),
        epochs,
        BATCH_SIZE,
    )


def explain_vocabulary(nar: Narrator, data: hello_data.WordData) -> dict:
    tok = data.tokenizer
    nar.title("hello.title.tokenizer")
    nar.show("  " + "  ".join(f"{i}:{tok.decode([i])}" for i in range(tok.vocab_size)))
    info = {"vocab_size": tok.vocab_size}
    if data.name == "tutorial":
        dups = sorted({w for w in TUTORIAL_VOCAB if TUTORIAL_VOCAB.count(w) > 1})
        their_stoi = {w: i for i, w in enumerate(TUTORIAL_VOCAB)}  # the tutorial's own dict: last id wins
        for w in dups:
            ids = [i for i, v in enumerate(TUTORIAL_VOCAB) if v == w]
            nar.say(
                "hello.say.duplicate",
                word=w,
                ids=ids,
                n=len(TUTORIAL_VOCAB),
                theirs=their_stoi[w],
                unused=", ".join(str(i) for i in ids if i != their_stoi[w]),
                ours=tok.encode(w)[0],
                size=tok.vocab_size,
            )
        info.update(tutorial_size=len(TUTORIAL_VOCAB), duplicates=dups)
    example = data.lines[0] + " " + "zebra"
    work = tok.show_work(example, add_bos=True, add_eos=True)
    nar.why("hello.why.tokenize")
    nar.show(f"  {example!r} → {work['tokens']} → {work['ids']}")
    return info


def count_parameters(nar: Narrator, model: Encoder, data: hello_data.WordData) -> dict:
    nar.title("hello.title.params")
    groups: dict[str, int] = {}
    for name, p in model.named_parameters():
        module = name.rsplit(".", 1)[0]  # e.g. blocks.0.attn.qkv
        group = module.rsplit(".", 1)[0] if "." in module else module  # e.g. blocks.0.attn
        groups[group] = groups.get(group, 0) + p.numel()
    for group in sorted(groups, key=lambda g: g != "tok_embed"):  # data-flow order: token table first
        n = groups[group]
        nar.show(f"  {group:<14} {n:>8,}")
    ours = model.num_params()
    nar.show(f"  {'total':<14} {ours:>8,}")
    counts = {"ours": ours, "groups": groups}
    if data.name == "tutorial":
        tut_cfg = dataclasses.replace(model.cfg, vocab_size=len(TUTORIAL_VOCAB))
        theirs = model_from_config(tut_cfg).num_params()  # the tutorial's model, with its 20-row vocabulary
        nar.say(
            "hello.say.params",
            V=len(TUTORIAL_VOCAB),
            theirs=f"{theirs:,}",
            published=f"{PUBLISHED_PARAM_COUNT:,}",
            diff=f"{theirs - PUBLISHED_PARAM_COUNT:+,}",
            v_ours=model.cfg.vocab_size,
            ours=f"{ours:,}",
        )
        counts.update(tutorial=theirs, published=PUBLISHED_PARAM_COUNT)
    return counts


def run(
    lang: str = "en",
    explain: bool = False,
    out: str | Path | None = None,
    echo=print,
    mask: str = "both",
    data: str = "tutorial",
    epochs: int = EPOCHS,
    fast: bool = False,
    seed: int = 0,
    threads: int = 1,
) -> dict:
    """Print the whole lesson; return what it computed (tests read it).

    fast: at most 40 epochs and a smaller random-token experiment (what the tests run)."""
    if mask not in MASK_CHOICES:
        raise ValueError(f"--mask {mask!r} is not one of {list(MASK_CHOICES)}.")
    if epochs < 1:
        raise ValueError(f"--epochs must be at least 1, got {epochs}.")
    with using_threads(threads):
        return _lesson(Narrator(lang, explain, echo), out, mask, data, epochs, fast, seed)


def _lesson(nar: Narrator, out, mask: str, data: str, epochs: int, fast: bool, seed: int) -> dict:
    if fast:
        epochs = min(epochs, FAST_EPOCHS)
    words = hello_data.load(data)  # first, so a bad --data fails before anything is written
    folder = out_dir("hello-world", out)
    vocab = explain_vocabulary(nar, words)
    nar.title("hello.title.data")
    nar.show(f"  rows {tuple(words.rows.shape)}: {words.tokenizer.decode(words.rows[0])}")
    nar.show(f"  inputs  rows[:, :-1] {tuple(words.inputs.shape)}: {words.tokenizer.decode(words.inputs[0])}")
    nar.show(f"  targets rows[:, 1:]  {tuple(words.targets.shape)}: {words.tokenizer.decode(words.targets[0])}")
    nar.why("hello.why.shift")

    masks = MASK_CHOICES[mask]
    models = {m: build_model(words, m, seed) for m in masks}
    params = count_parameters(nar, models[masks[0]], words)
    nar.title("hello.title.train", epochs=epochs, batch=BATCH_SIZE)
    nar.why("hello.why.mask")
    fits = {m: train(models[m], words, epochs) for m in masks}
    hello_report.loss_table(nar, fits, REPORT_EVERY)
    if words.name == "tutorial":
        N = len(words.rows)
        nar.say("hello.say.divisor", batches=n_batches(N, BATCH_SIZE), n=N, b=BATCH_SIZE, div=N // BATCH_SIZE)
        predictions = hello_report.predict_next(nar, models, words)
    else:
        predictions = hello_report.continue_prompts(nar, models, words)
    attention = hello_report.last_query_attention(nar, models, words)

    nar.title("hello.title.gradient")
    nar.why("hello.why.gradient")
    ids = words.inputs[:1]  # (1, T): the first training row
    jac = {m: hello_leak.embedding_jacobian_norms(models[m], ids) for m in masks}
    future = hello_report.gradient_table(nar, jac, words.tokenizer.decode(ids[0]).split())

    nar.title("hello.title.random")
    leak = hello_leak.random_token_leak(
        n_train=1000 if fast else 2000, n_val=300 if fast else 500, epochs=2 if fast else 3, seed=seed
    )
    hello_report.leak_table(nar, leak)

    files = hello_report.save_figures(folder, fits, models, words, leak)
    nar.title("common.title.files")
    for f in files:
        nar.show(f"  {f}")
    return {
        "vocab": vocab,
        "params": params,
        "fits": fits,
        "predictions": predictions,
        "attention": attention,
        "jacobian": jac,
        "future_gradient": future,
        "leak": leak,
        "files": files,
    }
