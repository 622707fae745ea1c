"""What the experiments share: the text they train on, the lab's char model, one training call
through glassformer's trainer, fixed evaluation windows, and the mean ± spread of seeds.

The lab's char model is the first tutorial's TinyTransformer (preset `seed000`: 2 layers, 4 heads,
d_model 64, d_ff 128) without dropout, read 64 characters at a time. Each experiment changes only
what its claim is about, through ordinary preset overrides (`lab_preset(n_heads=16)`), and trains
through `train.loop.Trainer` like every other run.

Data: `shakespeare` for full runs (offline once the cache holds it), and in --fast mode a text the
lab writes itself (`toy`: seeded sentences from a small grammar, ~60k characters), so a fast run
never needs the network. `--data` takes any text source (`file:PATH`, `builtin:...`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import torch
import torch.nn.functional as F

from glassformer.config import Preset, apply_overrides, get_preset
from glassformer.errors import UsageError
from glassformer.models import build_model
from glassformer.nn.loss import next_token_loss
from glassformer.text.corpora import prepare
from glassformer.text.tokenizers import CharTokenizer
from glassformer.train.data import TextWindows, get_batch
from glassformer.train.loop import Trainer

TOY = "toy"  # the lab's own offline text (see toy_text)
LAB_DEFAULTS = {
    "dropout": 0.0,
    "max_len": 64,
    "seq_len": 64,
    "batch_size": 16,
    "lr": 1e-3,
    "eval_iters": 1,
    "log_interval": 10,
    "threads": 0,
}


def toy_text(n_chars: int = 60_000, seed: int = 0) -> str:
    """Sentences from a tiny grammar (subject verb object [adverb].), drawn with a fixed seed: enough
    structure for a char model to learn something in a few hundred steps, and no download."""
    subjects = ("the cat", "a dog", "my friend", "the old man", "she", "he", "the king", "a bird")
    verbs = ("sees", "likes", "finds", "follows", "hears", "draws", "meets")
    objects = ("the moon", "a red ball", "the river", "his hat", "the queen", "a small fish", "her")
    tails = ("", " today", " at night", " again", " slowly", " by the sea")
    rng = np.random.default_rng(seed)
    out, size = [], 0
    while size < n_chars:
        s = f"{rng.choice(subjects)} {rng.choice(verbs)} {rng.choice(objects)}{rng.choice(tails)}."
        s += "\n" if rng.random() < 0.2 else " "
        out.append(s)
        size += len(s)
    return "".join(out)


@dataclass
class Corpus:
    name: str
    train: np.ndarray  # (N_train,) char ids
    val: np.ndarray  # (N_val,)
    tokenizer: CharTokenizer

    @property
    def vocab_size(self) -> int:
        return self.tokenizer.vocab_size

    def need(self, T: int) -> None:
        """Raise a clear error when a split is too short for windows of T tokens."""
        shortest = min(len(self.train), len(self.val))
        if shortest < T + 1:
            raise UsageError(
                "lab.short_data",
                "--data {name}: its validation split has {tokens} tokens, "
                "but this experiment reads windows of {T}. Give a longer "
                "text (file:PATH, at least {chars} characters) or use "
                "shakespeare.",
                name=self.name,
                tokens=len(self.val),
                T=T,
                chars=10 * (T + 1),
            )

    @torch.no_grad()
    def unigram_loss(self) -> float:
        """Cross-entropy on val of a model that knows only the training characters' frequencies."""
        counts = np.bincount(np.asarray(self.train), minlength=self.vocab_size) + 1.0  # (V,) add-one
        logp = np.log(counts / counts.sum())  # (V,)
        return float(-logp[np.asarray(self.val)].mean())

    def bigram_loss(self) -> float:
        """Cross-entropy on val of a model that knows only which character follows which (counted
        on train, add-one): what a model reading nothing but the current token can reach."""
        V, train, val = self.vocab_size, np.asarray(self.train, dtype=np.int64), np.asarray(self.val, dtype=np.int64)
        counts = np.ones((V, V)) + np.bincount(train[:-1] * V + train[1:], minlength=V * V).reshape(V, V)
        logp = np.log(counts / counts.sum(1, keepdims=True))  # (V, V): row = current, column = next
        return float(-logp[val[:-1], val[1:]].mean())


@lru_cache(maxsize=4)
def load_corpus(source: str, cache_dir: str | None = None) -> Corpus:
    if source == TOY:
        text = toy_text()
        tok = CharTokenizer.from_text(text)
        ids = tok.encode_array(text)  # (N,)
        n = len(ids) * 9 // 10
        return Corpus(TOY, ids[:n], ids[n:], tok)
    data = prepare(source, cache_dir)
    return Corpus(source, data.train, data.val, data.tokenizer)


def corpus_for(ctx, T: int) -> Corpus:
    """The text of a run: --data if given, else shakespeare (full) or the toy text (--fast)."""
    source = ctx.data or (TOY if ctx.fast else "shakespeare")
    corpus = load_corpus(source, ctx.cache_dir)
    corpus.need(T)
    return corpus


def lab_preset(**changes) -> Preset:
    """Preset seed000 with the lab's defaults (no dropout, 64-character windows) and `changes`."""
    return apply_overrides(get_preset("seed000"), {**LAB_DEFAULTS, **changes})


# a named preset (baby-llama, baby-moe, baby-mla) trained the lab's way: its own model and run, the
# lab's logging and threads (the runner's --threads), no evaluation of its own (the lab measures)
PRESET_LAB = {"eval_iters": 1, "log_interval": 10, "threads": 0}


def preset_for_lab(name: str, **changes) -> Preset:
    """Preset `name` with the lab's logging and threads, and `changes` (model or run fields)."""
    return apply_overrides(get_preset(name), {**PRESET_LAB, **changes})


@dataclass
class Fit:
    model: torch.nn.Module
    status: str  # the trainer's: "done" | "nonfinite" | ...
    curve: list = field(default_factory=list)  # [(step, mean training loss since the last point)]
    seconds: float = 0.0

    @property
    def final(self) -> float:
        """Mean training loss of the last curve point (inf if the run blew up)."""
        if self.status == "nonfinite" or not self.curve:
            return math.inf
        return self.curve[-1][1]


class LossCurve:
    """Trainer callback: the mean training loss of every `every` steps."""

    def __init__(self, every: int) -> None:
        self.every, self.points, self.total, self.n = every, [], 0.0, 0

    def __call__(self, event: str, trainer) -> None:
        if event == "end" and self.n:  # a run that stopped between two points keeps its last steps
            self.points.append((trainer.step, self.total / self.n))
        if event != "step":
            return
        self.total += trainer.last_loss.item()
        self.n += 1
        if trainer.step % self.every == 0:
            self.points.append((trainer.step, self.total / self.n))
            self.total, self.n = 0.0, 0


def train(
    preset: Preset,
    corpus: Corpus,
    seed: int,
    steps: int,
    *,
    modify=None,
    wrap=None,
    lr_at=None,
    every: int = 10,
    callbacks_for=None,
) -> Fit:
    """Build the preset's model with `seed`, optionally change it (`modify(model)`, in place) or wrap
    it (`wrap(model) -> module`), and train it for `steps` steps on random windows of the corpus.
    callbacks_for(model) -> extra trainer callbacks, made once the model exists."""
    p = apply_overrides(preset, {"vocab_size": corpus.vocab_size, "max_steps": steps, "seed": seed})
    torch.manual_seed(seed)
    model = build_model(p.model)
    if modify is not None:
        modify(model)
    net = wrap(model) if wrap is not None else model
    cfg = p.train
    source = TextWindows(corpus.train, corpus.val, cfg.batch_size, cfg.seq_len, cfg.eval_iters, seed)
    curve = LossCurve(every)
    trainer = Trainer(
        net,
        cfg,
        source,
        evaluate=None,
        loss=next_token_loss,
        lr_at=lr_at,
        callbacks=[curve, *(callbacks_for(model) if callbacks_for else [])],
        progress="silent",
    )
    start = time.perf_counter()
    result = trainer.fit()
    net.eval()
    return Fit(net, result.status, curve.points, time.perf_counter() - start)


def fixed_windows(data: np.ndarray, T: int, n: int, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """The same n windows every time (seeded), whatever ran before: x, y (n, T)."""
    return get_batch(data, n, T, torch.Generator().manual_seed(seed))


@torch.no_grad()
def position_losses(model, x: torch.Tensor, y: torch.Tensor, batch: int = 16) -> np.ndarray:
    """Mean next-token cross-entropy at each position over the windows: (T,)."""
    model.eval()
    total = torch.zeros(x.size(1), dtype=torch.float64)  # (T,)
    for i in range(0, len(x), batch):
        logits = model(x[i : i + batch])  # (b, T, V)
        ce = F.cross_entropy(logits.transpose(1, 2), y[i : i + batch], reduction="none")  # (b, T)
        total += ce.double().sum(0)
    return (total / len(x)).numpy()


def eval_loss(model, corpus: Corpus, T: int, n: int = 64, seed: int = 0) -> float:
    """Mean validation loss over n fixed windows of T tokens (the same windows for every model)."""
    x, y = fixed_windows(corpus.val, T, n, seed)
    return float(position_losses(model, x, y).mean())


def row_entropy(maps: np.ndarray) -> np.ndarray:
    """Normalised entropy H(w_t) / ln(t + 1) of each query row of causal maps (..., T, T), masked
    cells 0 or NaN: (..., T-1), for queries 1..T-1 (query 0 sees one key: nothing to spread).
    1 = weight spread evenly over the keys the query may see, 0 = all on one key."""
    w = np.nan_to_num(np.asarray(maps, dtype=np.float64))  # masked cells weigh 0
    T = w.shape[-1]
    h = -(w * np.log(np.where(w > 0, w, 1.0))).sum(-1)  # (..., T)
    return h[..., 1:] / np.log(np.arange(2, T + 1))  # (..., T-1)


@torch.no_grad()
def head_statistics(model, x: torch.Tensor) -> dict:
    """Per head of every layer, from the hook points of stage "weights": mean normalised entropy
    and mean weight a query gives itself. Lists indexed [layer][head]."""
    model.eval()
    names = [n for n, hp in model.hook_points().items() if hp.stage == "weights"]
    _, cache = model.run_with_cache(x, names=names)
    entropy, self_weight = [], []
    for name in names:
        w = cache[name].double().numpy()  # (B, H, T, T)
        entropy.append(row_entropy(w).mean(axis=(0, 2)).tolist())  # (H,)
        self_weight.append(np.diagonal(w, axis1=-2, axis2=-1).mean(axis=(0, 2)).tolist())  # (H,)
    return {"entropy": entropy, "self_weight": self_weight}


class ValCurve:
    """Trainer callback: the validation loss on n fixed windows of T tokens every `every` steps, with
    the seconds of training until then, CPU time of this process and wall clock, the evaluations' own
    time left out. points: [(step, cpu_s, wall_s, val_loss)], from step 0 (made when it is built)."""

    def __init__(self, model, corpus: Corpus, T: int, every: int, n: int = 32) -> None:
        self.model, self.every = model, every
        self.x, self.y = fixed_windows(corpus.val, T, n)  # (n, T), (n, T)
        self.cpu = self.wall = 0.0
        self.points = [(0, 0.0, 0.0, self.loss())]
        self.mark = (time.process_time(), time.perf_counter())

    def loss(self) -> float:
        loss = float(position_losses(self.model, self.x, self.y).mean())
        self.model.train()
        return loss

    def __call__(self, event: str, trainer) -> None:
        if event != "step" or trainer.step % self.every:
            return
        cpu, wall = time.process_time(), time.perf_counter()
        self.cpu, self.wall = self.cpu + cpu - self.mark[0], self.wall + wall - self.mark[1]
        self.points.append((trainer.step, self.cpu, self.wall, self.loss()))
        self.mark = (time.process_time(), time.perf_counter())


def spread(values) -> dict:
    """mean ± half the range over seeds (with 2-3 seeds a range says more than a std)."""
    v = np.asarray(values, dtype=np.float64)
    finite = v[np.isfinite(v)]
    if not len(finite):
        return {"mean": math.inf, "spread": 0.0, "values": v.tolist()}
    return {"mean": float(finite.mean()), "spread": float((finite.max() - finite.min()) / 2), "values": v.tolist()}


def below(a, b) -> bool:
    """Every seed of a is below every seed of b: a difference larger than the seeds' own scatter."""
    return max(a) < min(b)


def pm(s: dict, decimals: int = 3) -> str:
    """'mean ± spread' as text (just the mean for one seed)."""
    if not math.isfinite(s["mean"]):
        return "diverged"
    if len(s["values"]) == 1:
        return f"{s['mean']:.{decimals}f}"
    return f"{s['mean']:.{decimals}f} ± {s['spread']:.{decimals}f}"


def steps_for(ctx, full: int, fast: int) -> int:
    return fast if ctx.fast else full
