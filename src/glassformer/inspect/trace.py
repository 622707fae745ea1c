"""The shape trace: one forward pass, every named tensor, its shape and what each axis means.

    text ─► ids ─► embed ─► + pos ─► [ ln1 ─► q k v ─► scores ─► weights ─► z ─► merged ─►
        out ─► resid_mid ─► ln2 ─► ffn.hidden ─► resid_post ] × N ─►
    ln_final ─► logits ─► softmax ─► loss

Every shape in the table is read from the activation cache of `run_with_cache` (so it cannot
drift from what the model really does); only three rows are computed here from cached tensors,
and they say so: the merged heads (z reshaped), the softmax of the logits, and the loss.
Rows come out in the order the hook points fired, which is also right for post-norm blocks.
"""

from __future__ import annotations

import json
import re
import unicodedata
import weakref
from dataclasses import asdict, dataclass, field

import torch
import torch.nn.functional as F

from glassformer.nn.loss import next_token_loss

# What each letter of a shape means (nn/__init__.py states the notation once; this is its legend).
LETTERS = {
    "B": "batch", "T": "sequence length", "C": "d_model", "H": "heads", "D": "d_head",
    "F": "d_ff", "V": "vocab_size", "T_q": "queries", "T_k": "keys",
    "d_in": "numbers per input step", "d_out": "numbers per output step",
}

# hook name (block prefix removed) -> (stage, axis letters, what it is)
STAGES = {
    "embed": ("embedding", "B T C", "token vectors looked up (or numbers projected) to width C"),
    "pos_embed": ("+ position", "T C", "one position vector per place, broadcast over B"),
    "resid_pre": ("+ position", "B T C", "embedding + position: the residual stream enters block 0"),
    "ln1": ("LayerNorm 1", "B T C", "normalised stream fed to attention"),
    "attn.q": ("Q/K/V split heads", "B H T D", "queries, already split into H heads of D"),
    "attn.k": ("Q/K/V split heads", "B H T D", "keys, split into heads"),
    "attn.v": ("Q/K/V split heads", "B H T D", "values, split into heads"),
    "attn.scores": ("scores", "B H T_q T_k", "Q·Kᵀ/√D, masked cells = -inf"),
    "attn.weights": ("weights", "B H T_q T_k", "softmax over keys: each row sums to 1"),
    "attn.z": ("heads' outputs (z)", "B H T D", "weights · V, one D-wide result per head"),
    "attn.merged": ("merged heads", "B T C", "z with heads put side by side: H·D = C (computed from z)"),
    "attn.out": ("attn out", "B T C", "output projection of the merged heads"),
    "resid_mid": ("residual", "B T C", "stream after adding attention"),
    "ln2": ("LayerNorm 2", "B T C", "normalised stream fed to the FFN"),
    "ffn.hidden": ("FFN hidden", "B T F", "after the first Linear and the activation"),
    "resid_post": ("residual", "B T C", "stream after adding the FFN: the block's output"),
    "ln_final": ("final LayerNorm", "B T C", "last normalisation before the head"),
    "logits": ("logits", "B T V", "one score per vocabulary entry"),
    "probs": ("softmax", "B T V", "softmax(logits): next-token probabilities (computed from logits)"),
    "pred": ("prediction", "B T d_out", "the regressor's numbers out"),
}


@dataclass
class TraceRow:
    stage: str
    name: str
    shape: tuple[int, ...] | None  # None for the text rows, which are not tensors
    dims: str  # e.g. "(B=1, T=12, C=64)"
    example: str  # a few leading numbers
    about: str = ""


@dataclass
class Trace:
    rows: list[TraceRow] = field(default_factory=list)
    letters: dict[str, str] = field(default_factory=dict)  # letter -> meaning, those used

    COLUMNS = ("stage", "name", "shape", "dims", "example")

    def _cells(self) -> list[list[str]]:
        return [[r.stage, r.name, str(tuple(r.shape)) if r.shape is not None else "", r.dims,
                 r.example] for r in self.rows]

    def legend(self) -> str:
        return "  ".join(f"{k} = {v}" for k, v in self.letters.items())

    def to_text(self) -> str:
        """Aligned plain-text table (wide CJK characters count as two columns)."""
        table = [list(self.COLUMNS)] + self._cells()
        widths = [max(_width(row[i]) for row in table) for i in range(len(self.COLUMNS))]
        lines = ["  ".join(_pad(c, w) for c, w in zip(row, widths)).rstrip() for row in table]
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
        return json.dumps({"rows": rows, "letters": self.letters}, ensure_ascii=False, indent=1)

    def __str__(self) -> str:
        return self.to_text()


def _width(s: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)


def _pad(s: str, w: int) -> str:
    return s + " " * (w - _width(s))


VISIBLE = {" ": "␣", "\n": "↵", "\t": "⇥"}


def token_labels(ids, tokenizer=None) -> list[str]:
    """One readable label per token of a 1-D id sequence: its text (whitespace made visible) or,
    without a tokenizer, its position."""
    ids = [int(i) for i in (ids.tolist() if hasattr(ids, "tolist") else ids)]
    if tokenizer is None:
        return [str(t) for t in range(len(ids))]
    return ["".join(VISIBLE.get(c, c) for c in tokenizer.decode([i])) or "∅" for i in ids]


def _example(t: torch.Tensor, n: int = 4) -> str:
    flat = t.reshape(-1)[:n].tolist()
    if not t.dtype.is_floating_point:
        return "[" + ", ".join(str(v) for v in flat) + (", …]" if t.numel() > n else "]")
    return "[" + ", ".join(f"{v:.3f}" for v in flat) + (", …]" if t.numel() > n else "]")


def _dims(letters: str, shape: tuple[int, ...], used: dict[str, str]) -> str:
    names = letters.split()
    if len(names) != len(shape):  # an unexpected layout: show plain sizes rather than lie
        return "(" + ", ".join(str(s) for s in shape) + ")"
    for n in names:
        used.setdefault(n, LETTERS[n])
    return "(" + ", ".join(f"{n}={s}" for n, s in zip(names, shape)) + ")"


def _row(name: str, t: torch.Tensor, used: dict[str, str], key: str | None = None) -> TraceRow:
    key = key or re.sub(r"^blocks\.\d+\.", "", name)
    stage, letters, about = STAGES[key]
    return TraceRow(stage, name, tuple(t.shape), _dims(letters, tuple(t.shape), used), _example(t), about)


def _merged(z: torch.Tensor) -> torch.Tensor:
    B, H, T, D = z.shape
    return z.transpose(1, 2).reshape(B, T, H * D)  # (B, T, C)


def trace(model, ids_or_x, tokenizer=None, targets=None, collapse: bool = False) -> Trace:
    """Run one forward pass (eval mode, no grad) and tabulate every hooked tensor.

    ids_or_x: (B, T) or (T,) token ids, or (B, T, d_in) / (T, d_in) numbers for a regressor.
    targets: optional (B, T) next-token ids (or (B, T, d_out) numbers) to add the loss row.
    collapse: show blocks 1..N-1 as one row each when their shapes equal block 0's.
    """
    x = torch.as_tensor(ids_or_x)  # (B, T), (T,) ids or (B, T, d_in), (T, d_in) numbers
    numbers = x.dtype.is_floating_point
    if x.dim() == (2 if numbers else 1):
        x = x.unsqueeze(0)  # add the batch axis
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            out, cache = model.run_with_cache(x)  # (B, T, V) or (B, T, d_out)
    finally:
        model.train(was_training)
    used: dict[str, str] = {}
    rows = _input_rows(x, tokenizer, numbers, used)
    previous = None
    for name, t in cache.items():
        rows.append(_row(name, t, used))
        if re.search(r"ln(1|2|_final)$", name) and previous is not None and torch.equal(t, previous):
            rows[-1].stage += " (identity)"  # this config has no norm here: same tensor as before
            rows[-1].about = "no normalisation in this config: the hook sees its input unchanged"
        previous = t
        if name.endswith("attn.z"):
            rows.append(_row(name[: -len("z")] + "merged", _merged(t), used))
    if "logits" in cache:
        rows.append(_row("softmax(logits)", F.softmax(out, dim=-1), used, key="probs"))  # (B, T, V)
    if targets is not None:
        shape = out.shape if numbers else out.shape[:-1]
        targets = torch.as_tensor(targets).reshape(shape)  # (B, T, d_out) numbers or (B, T) ids
        loss = F.mse_loss(out, targets) if numbers else next_token_loss(out, targets)  # ()
        what = "mean squared error" if numbers else "cross-entropy of the next tokens"
        rows.append(TraceRow("loss", "loss", tuple(loss.shape), "() scalar", f"{loss.item():.4f}", what))
    if collapse:
        rows = _collapse(rows)
    return Trace(rows, used)


def _input_rows(x: torch.Tensor, tokenizer, numbers: bool, used: dict[str, str]) -> list[TraceRow]:
    if numbers:
        dims = _dims("B T d_in", tuple(x.shape), used)
        return [TraceRow("numbers in", "x", tuple(x.shape), dims, _example(x), "the input sequence")]
    rows = []
    if tokenizer is not None:
        text = tokenizer.decode(x[0].tolist())
        rows.append(TraceRow("raw text", "text", None, f"{len(text)} characters", repr(text)[:40],
                             "what the tokenizer was given"))
        pieces = token_labels(x[0], tokenizer)
        rows.append(TraceRow("tokens", "pieces", None, f"{len(pieces)} pieces",
                             " ".join(pieces)[:40], "one label per token"))
    rows.append(TraceRow("token ids", "ids", tuple(x.shape), _dims("B T", tuple(x.shape), used),
                         _example(x, 8), "integer index of each token"))
    return rows


def _collapse(rows: list[TraceRow]) -> list[TraceRow]:
    """Replace block i's rows by one summary row when its (name, shape) pattern equals block 0's."""
    def block_of(r):
        m = re.match(r"blocks\.(\d+)\.", r.name)
        return int(m.group(1)) if m else None

    def pattern(i):
        return [(re.sub(r"^blocks\.\d+\.", "", r.name), r.shape) for r in rows if block_of(r) == i]

    first = pattern(0)
    out, done = [], set()
    for r in rows:
        i = block_of(r)
        if i is None or i == 0 or pattern(i) != first:
            out.append(r)
        elif i not in done:
            done.add(i)
            out.append(TraceRow(f"block {i}", f"blocks.{i}.*", None, "same shapes as blocks.0",
                                "…", "collapsed: identical to block 0"))
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
    print(trace(model, ids[:1], tokenizer=tokenizer, collapse=True).to_text())
    return True
