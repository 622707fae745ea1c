"""The shape trace: one forward pass, every named tensor, its shape and what each axis means.

    text ─► ids ─► embed ─► + pos ─► [ ln1 ─► q k v ─► scores ─► weights ─► z ─► merged ─►
        out ─► resid_mid ─► ln2 ─► ffn.hidden ─► resid_post ] × N ─►
    ln_final ─► logits ─► softmax ─► loss

Every row is a hook point, read from the activation cache of `run_with_cache`, and described by
the hook point's own declaration (stage, axes, meaning: nn/hooks.py), so the table cannot drift
from what the model really does and a new hook point appears here with no edit to this file.
Only the rows around the model are made here, and they say so: the text, its tokens and ids on
the way in; the softmax of the logits and the loss on the way out.
Rows come out in the order the hook points fired, which is also right for post-norm blocks.
"""

from __future__ import annotations

import re
import unicodedata
import weakref
from dataclasses import asdict, dataclass, field

import torch
import torch.nn.functional as F

from glassformer.errors import UsageError
from glassformer.files import json_text
from glassformer.inspect.display import trace_html
from glassformer.inspect.words import describe, meaning
from glassformer.messages import N_, in_language, t
from glassformer.nn.loss import LOSSES


@dataclass
class TraceRow:
    stage: str
    name: str
    shape: tuple[int, ...] | None  # None for the text rows, which are not tensors
    dims: str  # e.g. "(B=1, T=12, C=64)"
    example: str  # a few leading numbers
    about: str = ""  # what the tensor is: the hook point's declared meaning


# the columns' keys: the four the activation cache's table shares, and the trace's own two
COLUMNS = (
    N_("stage"),
    N_("name"),
    N_("shape"),
    N_("dims"),
    N_("example"),
    N_("means"),
)

# what the loss row is, by the model's loss (a key of nn/loss.py LOSSES)
LOSS_WORDS = {
    "mse": N_("mean squared error"),
    "next_token": N_("cross-entropy of the next tokens"),
    "label_smoothed": N_("label-smoothed cross-entropy of the next target tokens"),
}


@dataclass
class Trace:
    rows: list[TraceRow] = field(default_factory=list)
    letters: dict[str, str] = field(default_factory=dict)  # letter -> meaning, those used
    lang: str = "en"

    @property
    def COLUMNS(self) -> tuple[str, ...]:
        with in_language(self.lang):
            return tuple(t(key) for key in COLUMNS)

    def _cells(self) -> list[list[str]]:
        return [
            [r.stage, r.name, str(tuple(r.shape)) if r.shape is not None else "", r.dims, r.example, r.about]
            for r in self.rows
        ]

    def legend(self) -> str:
        return "  ".join(f"{k} = {v}" for k, v in self.letters.items())

    def to_text(self) -> str:
        """Aligned plain-text table (wide CJK characters count as two columns)."""
        table = [list(self.COLUMNS)] + self._cells()
        widths = [max(_width(row[i]) for row in table) for i in range(len(self.COLUMNS))]
        lines = ["  ".join(_pad(c, w) for c, w in zip(row, widths, strict=False)).rstrip() for row in table]
        lines.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(lines + ["", self.legend()])

    def to_markdown(self) -> str:
        esc = lambda s: s.replace("|", "\\|").replace("\n", " ")  # noqa: E731
        head = "| " + " | ".join(self.COLUMNS) + " |"
        rule = "|" + "---|" * len(self.COLUMNS)
        body = ["| " + " | ".join(esc(c) for c in row) + " |" for row in self._cells()]
        return "\n".join([head, rule, *body, "", self.legend()])

    def to_json(self) -> str:
        rows = [{**asdict(r), "shape": list(r.shape) if r.shape is not None else None} for r in self.rows]
        return json_text({"rows": rows, "letters": self.letters, "lang": self.lang}, ensure_ascii=False, indent=1)

    def __str__(self) -> str:
        return self.to_text()

    __repr__ = __str__  # a terminal shows the aligned table, not the dataclass fields

    def _repr_html_(self) -> str:  # Jupyter's rich display
        return trace_html(self)


def _width(s: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)


def _pad(s: str, w: int) -> str:
    return s + " " * (w - _width(s))


VISIBLE = {" ": "␣", "\n": "↵", "\t": "⇥"}


def token_labels(ids, tokenizer=None) -> list[str]:
    """One readable label per token of an id sequence — (T,), or the (1, T) batch a model reads —
    its text (whitespace made visible) or, without a tokenizer, its position. A byte-level BPE
    token that holds part of a character (a Chinese character may be cut between tokens) shows its bytes ("\\xe4"),
    not "�": the tokenizer's token_text says what the id stands for."""
    ids = ids.tolist() if hasattr(ids, "tolist") else list(ids)
    if ids and isinstance(ids[0], list):  # a batch: only a batch of one has one set of labels
        if len(ids) != 1:
            raise UsageError(
                "inspect.labels_batch",
                "token_labels takes one sequence, (T,) or (1, T); got a "
                "batch of {n}: pass ids[i] for the sequence you want "
                "labelled.",
                n=len(ids),
            )
        ids = ids[0]
    ids = [int(i) for i in ids]
    if tokenizer is None:
        return [str(t) for t in range(len(ids))]
    from glassformer.causal.tokens import to_str_tokens  # each token's own text, as TransformerLens names it

    return ["".join(VISIBLE.get(c, c) for c in text) or "∅" for text in to_str_tokens(tokenizer, ids)]


def _example(t: torch.Tensor, n: int = 4) -> str:
    flat = t.reshape(-1)[:n].tolist()
    if not t.dtype.is_floating_point:
        return "[" + ", ".join(str(v) for v in flat) + (", …]" if t.numel() > n else "]")
    return "[" + ", ".join(f"{v:.3f}" for v in flat) + (", …]" if t.numel() > n else "]")


def _dims(letters: str, shape: tuple[int, ...], used: dict[str, str], lang: str) -> str:
    names = letters.split()
    if len(names) != len(shape):  # an unexpected layout: show plain sizes rather than lie
        return "(" + ", ".join(str(s) for s in shape) + ")"
    for n in names:
        used.setdefault(n, meaning(n, lang))
    return "(" + ", ".join(f"{n}={s}" for n, s in zip(names, shape, strict=False)) + ")"


def _row(hook, t: torch.Tensor, used: dict[str, str], lang: str) -> TraceRow:
    d = describe(hook, lang)
    return TraceRow(
        d["stage"], d["name"], tuple(t.shape), _dims(d["axes"], tuple(t.shape), used, lang), _example(t), d["means"]
    )


def as_batch(model, ids_or_x) -> torch.Tensor:
    """What a user naturally has — (T,) ids or (T, d_in) numbers, a list, a (B, ...) batch; for a
    model reading one number a step also (T,) or (B, T) values — as the (B, T) or (B, T, d_in)
    batch the model reads; a tuple (an encoder-decoder's (src, tgt_in)) part by part."""
    inputs = getattr(model, "inputs", "tokens")  # what the model reads: tokens, numbers or token pairs
    if isinstance(ids_or_x, tuple):
        if inputs != "token pairs":
            raise UsageError(
                "inspect.tuple_for_one",
                "a tuple of {n} is an encoder-decoder's input, (src, "
                "tgt_in); this model reads {inputs}: give them as one "
                "tensor, not in a tuple.",
                n=len(ids_or_x),
                inputs=inputs,
            )
        if len(ids_or_x) != 2:
            raise UsageError(
                "inspect.pair_size",
                "an encoder-decoder reads two id tensors, (src, tgt_in); got a tuple of {n}.",
                n=len(ids_or_x),
            )
        return tuple(as_batch(model, part) for part in ids_or_x)
    x = torch.as_tensor(ids_or_x)  # (B, T), (T,) ids or (B, T, d_in), (T, d_in) numbers
    numbers = inputs == "numbers"
    if numbers and not x.dtype.is_floating_point:
        x = x.float()
    if numbers and model.cfg.d_in == 1 and (x.dim() == 1 or (x.dim() == 2 and x.shape[-1] != 1)):
        x = x.unsqueeze(-1)  # (T,) or (B, T) values: one number a step -> (T, 1) or (B, T, 1)
    if x.dim() == (2 if numbers else 1):
        x = x.unsqueeze(0)  # add the batch axis
    return x


def trace(model, ids_or_x, tokenizer=None, targets=None, collapse: bool = False, lang: str = "en") -> Trace:
    """Run one forward pass (eval mode, no grad) and tabulate every hooked tensor.

    ids_or_x: (B, T) or (T,) token ids, or (B, T, d_in) / (T, d_in) numbers for a regressor, or
        a tuple (src, tgt_in) of ids for an encoder-decoder (tokenizer: their shared one).
    targets: optional (B, T) next-token ids (or (B, T, d_out) numbers) to add the loss row.
    collapse: show blocks 1..N-1 as one row each when their shapes equal block 0's.
    lang: "en" or "zh", for the stages, meanings and the letters' legend.
    """
    x = as_batch(model, ids_or_x)  # (B, T) ids, (B, T, d_in) numbers, or a tuple of id tensors
    pair = isinstance(x, tuple)
    numbers = not pair and x.dtype.is_floating_point
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            out, cache = model.run_with_cache(*x) if pair else model.run_with_cache(x)  # (B, T, V) or (B, T, d_out)
    finally:
        model.train(was_training)
    used: dict[str, str] = {}
    if pair:  # the source's rows (axis S), then the target's
        rows = [
            r
            for part, side in zip(x, ("src", "tgt"), strict=False)
            for r in _input_rows(part, tokenizer, False, used, lang, side)
        ]
    else:
        rows = _input_rows(x, tokenizer, numbers, used, lang)
    points = model.hook_points()
    rows += [_row(points[name], tensor, used, lang) for name, tensor in cache.items()]
    if model.loss in ("next_token", "label_smoothed"):  # scores become probabilities: shown, not hooked
        probs = F.softmax(out, dim=-1)  # (B, T, V)
        with in_language(lang):
            stage, means = t("softmax"), t("softmax(logits): next-token probabilities (computed from logits)")
        dims = _dims("B T V", tuple(probs.shape), used, lang)
        rows.append(TraceRow(stage, "softmax(logits)", tuple(probs.shape), dims, _example(probs), means))
    if targets is not None:
        shape = out.shape if numbers else out.shape[:-1]
        targets = torch.as_tensor(targets).reshape(shape)  # (B, T, d_out) numbers or (B, T) ids
        loss = LOSSES[model.loss](out, targets)  # ()
        with in_language(lang):  # the loss says which one it is
            stage, dims, means = t("loss"), t("() scalar"), t(LOSS_WORDS[model.loss])
        rows.append(TraceRow(stage, "loss", tuple(loss.shape), dims, f"{loss.item():.4f}", means))
    if collapse:
        rows = _collapse(rows, lang)
    return Trace(rows, used, lang)


def _input_rows(
    x: torch.Tensor, tokenizer, numbers: bool, used: dict[str, str], lang: str, side: str = ""
) -> list[TraceRow]:
    """The rows before the model: text, pieces, ids (side "src"/"tgt": an encoder-decoder's input); each
    row's stage, dims and meaning are catalogue sentences in `lang`."""
    with in_language(lang):
        pre, axes = (side + " ", "B S" if side == "src" else "B T") if side else ("", "B T")
        if numbers:
            dims = _dims("B T d_in", tuple(x.shape), used, lang)
            return [TraceRow(t("numbers in"), "x", tuple(x.shape), dims, _example(x), t("the input sequence"))]
        rows = []
        if tokenizer is not None:
            text = tokenizer.decode(x[0].tolist())
            rows.append(
                TraceRow(
                    t("raw text"),
                    pre + "text",
                    None,
                    t("{n} characters", n=len(text)),
                    repr(text)[:40],
                    t("what the tokenizer was given"),
                )
            )
            pieces = token_labels(x[0], tokenizer)
            rows.append(
                TraceRow(
                    t("tokens"),
                    pre + "pieces",
                    None,
                    t("{n} pieces", n=len(pieces)),
                    " ".join(pieces)[:40],
                    t("one label per token"),
                )
            )
        rows.append(
            TraceRow(
                t("token ids"),
                pre + "ids",
                tuple(x.shape),
                _dims(axes, tuple(x.shape), used, lang),
                _example(x, 8),
                t("integer index of each token"),
            )
        )
        return rows


_BLOCK_ROW = re.compile(r"^([A-Za-z_.]*?[A-Za-z_])\.(\d+)\.(.*)$")  # "blocks.3.attn.q" -> stack, 3, rest


def _collapse(rows: list[TraceRow], lang: str = "en") -> list[TraceRow]:
    """Replace block i's rows by one summary row when its (name, shape) pattern equals block 0's
    of the same stack (blocks, or a seq2seq model's encoder and decoder). One pass to read the patterns,
    one to build the table."""
    where = [_BLOCK_ROW.match(r.name) for r in rows]
    patterns: dict[tuple[str, int], list] = {}
    for r, m in zip(rows, where, strict=False):
        if m:
            patterns.setdefault((m.group(1), int(m.group(2))), []).append((m.group(3), r.shape))
    out, done = [], set()
    for r, m in zip(rows, where, strict=False):
        key = (m.group(1), int(m.group(2))) if m else None
        if key is None or key[1] == 0 or patterns[key] != patterns.get((key[0], 0)):
            out.append(r)
        elif key not in done:
            done.add(key)
            stack, i = key
            with in_language(lang):
                stage, dims, means = (
                    t("block {i}", i=i),
                    t("same shapes as {stack}.0", stack=stack),
                    t("collapsed: identical to block 0"),
                )
            out.append(TraceRow(stage, f"{stack}.{i}.*", None, dims, "…", means))
    return out


_printed: "weakref.WeakSet" = weakref.WeakSet()


def print_shapes_once(model, ids, tokenizer=None) -> bool:
    """Print the trace table the first time it is called for `model`; later calls do nothing.

    For a `--debug-shapes` switch in training or sampling. The extra forward runs in eval mode
    without gradients, so it draws no random numbers and leaves training reproducible.
    Returns True when it printed.
    """
    if model in _printed:
        return False
    _printed.add(model)
    first = tuple(t[:1] for t in ids) if isinstance(ids, tuple) else ids[:1]  # (src, tgt_in) for a seq2seq
    print(trace(model, first, tokenizer=tokenizer, collapse=True).to_text())
    return True
