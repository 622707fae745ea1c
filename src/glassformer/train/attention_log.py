"""A trainer callback that keeps attention maps as training goes: how the heads learn where to look.

    AttentionLog(model, probe, labels, heads=[(0, 1), (3, 2)], every=100, path=run_dir / FILE)

At step 0 (when it is made, before the first update) and then at every `every`-th step, or at the
steps listed in `steps`, it runs the model once on a fixed probe input, reads the attention weights
of the chosen heads through the hook points (inspect.attention_maps: the hooks of stage "weights";
no module attributes), and appends them to a JSON file:

    {"tokens": [...labels...], "heads": [[layer, head], ...],
     "records": [{"step": 0, "maps": [[[w_ij ...] ...] per head]}, ...]}     masked cells are null

The probe runs in eval mode under no_grad and draws no random numbers, so recording changes nothing
in the run (the loss curve is bit-identical with and without it). `glassformer train
--attention-every N` adds one; the lab's attention-steps experiment uses the same class, and
glassformer.lab.attention_steps turns the file into a PNG strip and an offline page with a slider.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import cast

import torch

from glassformer.errors import NotFound, UsageError
from glassformer.files import write_text_atomic
from glassformer.inspect.attention_maps import attention_maps
from glassformer.inspect.trace import token_labels

FILE = "attention_log.json"
PROBE_LENGTH = 32  # tokens in the probe: enough to see a pattern, small enough to keep every record


def probe_for(data, T: int) -> tuple[torch.Tensor, list[str]]:
    """A fixed probe from a run's data — the first T validation tokens (or the first validation
    sequence, for numbers) — and one label per position."""
    T = min(T, PROBE_LENGTH)
    if getattr(data, "tokenizer", None) is None:  # numbers (WaveData): (1, T, d_in)
        x = data.x_val[:1, :T]
        return x, [str(t) for t in range(x.size(1))]
    ids = torch.as_tensor(data.val[:T].astype("int64"))[None, :]  # (1, T)
    return ids, token_labels(ids, data.tokenizer)


def parse_heads(text: str | None) -> list[tuple[int, int]] | None:
    """'0.1,3.2' -> [(0, 1), (3, 2)]; None or 'all' -> None (every head of every layer)."""
    if text is None or text == "all":
        return None
    heads = []
    for part in text.split(","):
        layer, dot, head = part.strip().partition(".")
        if not dot or not layer.isdigit() or not head.isdigit():
            raise UsageError("error.attention_log.heads_spec", text=text, example="0.1,3.2")
        heads.append((int(layer), int(head)))
    return heads


class AttentionLog:
    """Records the chosen heads' maps for one probe input at chosen steps (see the module doc)."""

    def __init__(
        self,
        model,
        probe: torch.Tensor,
        labels: list[str],
        heads=None,
        every: int | None = None,
        steps=None,
        path: str | Path | None = None,
        start_step: int = 0,
    ) -> None:
        if every is None and steps is None:
            raise UsageError("error.attention_log.when")
        if every is not None and every < 1:
            raise UsageError("error.attention_log.every", every=every)
        W, _ = attention_maps(model, probe)  # (L, H, T, T): also checks the probe fits the model
        L, H = W.shape[:2]
        self.heads = [(layer, h) for layer in range(L) for h in range(H)] if heads is None else list(heads)
        bad = [(layer, h) for layer, h in self.heads if not (0 <= layer < L and 0 <= h < H)]
        if bad:
            raise UsageError("error.attention_log.outside", bad=bad, last_layer=L - 1, last_head=H - 1)
        self.probe, self.labels, self.every = probe, list(labels), every
        self.steps = None if steps is None else sorted(set(steps))
        self.path = Path(path) if path is not None else None
        self.records: list[dict] = []
        if self.path is not None and self.path.exists() and start_step > 0:  # a resumed run keeps its maps
            self.records = [
                r for r in json.loads(self.path.read_text(encoding="utf-8"))["records"] if r["step"] <= start_step
            ]
        elif self.due(start_step):
            self.record(model, start_step)

    def due(self, step: int) -> bool:
        if self.steps is not None:
            return step in self.steps
        return step % cast(int, self.every) == 0  # __init__ refused neither every nor steps

    def record(self, model, step: int) -> None:
        W, hidden = attention_maps(model, self.probe)  # (L, H, T, T) each, first sequence
        maps = []
        for layer, h in self.heads:
            w = W[layer, h].masked_fill(hidden[layer, h], float("nan"))  # (T, T), masked cells NaN -> null
            maps.append([[None if v != v else round(v, 3) for v in row] for row in w.tolist()])
        self.records.append({"step": step, "maps": maps})
        self.save()

    def save(self) -> None:
        if self.path is not None:
            write_text_atomic(self.path, json.dumps(self.as_dict(), ensure_ascii=False) + "\n")

    def as_dict(self) -> dict:
        return {"tokens": self.labels, "heads": [list(p) for p in self.heads], "records": self.records}

    def __call__(self, event: str, trainer) -> None:
        if event == "step" and self.due(trainer.step):
            self.record(trainer.model, trainer.step)


def read_log(path: str | Path) -> dict:
    path = Path(path)
    if path.is_dir():
        path = path / FILE
    if not path.exists():
        raise NotFound("error.attention_log.missing", path=path)
    return json.loads(path.read_text(encoding="utf-8"))
