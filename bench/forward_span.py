"""How much code one model forward runs through: files, functions and their lines (issue 24 item 1).

    PYTHONPATH=src python bench/forward_span.py                 # the default preset (baby, a GPT), glass path
    PYTHONPATH=src python bench/forward_span.py --preset seed000 --attention fused -v
    PYTHONPATH=src python bench/forward_span.py --preset seq2seq   # any kind: encoder (seed002), regressor (sine)

sys.settrace over one forward of the preset's model (no hooks attached, eval mode, one row of
`max_len` positions from the model's own `example_input`): every Python function of src/glassformer
that runs is counted once, as a distinct (file, function), with the lines of its source
(decorators, docstring and comments included). Printed: the files and their whole length (what a
reader opens), the functions and their lines (what runs), and the class chain of the model up to
nn.Module. The files are also counted without INFRASTRUCTURE (nn/hooks.py: every hook point's
identity call runs in the forward, but it is the views' tap, not a step of the model): both figures
are printed. Only what a clean forward runs is counted: a function that runs when something is wrong
(an error made for a bad input) is not. docs/architecture.md names this command and types none of its
figures; tests/repo/test_architecture.py keeps the GPT's files and functions to their bounds.
"""

from __future__ import annotations

import argparse
import inspect
import sys
from dataclasses import replace
from pathlib import Path

import torch

import glassformer
from glassformer.config import get_preset
from glassformer.models import build_model

ROOT = Path(glassformer.__file__).resolve().parent
INFRASTRUCTURE = {"nn/hooks.py"}  # run by the forward, but not the model's own steps


def span(model: torch.nn.Module, ids: tuple[torch.Tensor, ...]) -> dict[tuple[str, str], int]:
    """(file relative to src/glassformer, qualified function) -> its number of source lines."""
    seen: dict[tuple[str, str], int] = {}

    def tracer(frame, event, arg):
        if event != "call":
            return None
        code = frame.f_code
        path = Path(code.co_filename).resolve()
        if ROOT in path.parents and (str(path.relative_to(ROOT)), code.co_qualname) not in seen:
            try:
                lines = len(inspect.getsourcelines(code)[0])
            except (OSError, TypeError):
                lines = 0
            seen[(str(path.relative_to(ROOT)), code.co_qualname)] = lines
        return None  # no line events: calls are all we count

    with torch.no_grad():
        sys.settrace(tracer)
        try:
            model(*ids)
        finally:
            sys.settrace(None)
    return seen


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--preset", default="baby")
    ap.add_argument("--attention", default="glass", choices=["glass", "fused"])
    ap.add_argument("-v", "--verbose", action="store_true", help="list every function")
    args = ap.parse_args()
    cfg = replace(get_preset(args.preset).model, attention=args.attention, dropout=0.0)
    model = build_model(cfg).eval()
    inputs = model.example_input(1, cfg.max_len)
    ids = inputs if isinstance(inputs, tuple) else (inputs,)
    model(*ids)  # once untraced: first-call work (lazy imports, caches) is not the forward
    seen = span(model, ids)
    files = sorted({f for f, _ in seen})
    chain = [c.__name__ for c in type(model).__mro__ if c.__module__.startswith("glassformer")]
    print(f"one {type(model).__name__} forward, preset {args.preset}, attention {args.attention}:")
    length = {f: len((ROOT / f).read_text(encoding="utf-8").splitlines()) for f in files}
    print(f"  files {len(files)} ({sum(length.values())} lines), functions {len(seen)} ({sum(seen.values())} lines)")
    model_files = [f for f in files if f not in INFRASTRUCTURE]
    left_out = ", ".join(sorted(set(files) & INFRASTRUCTURE)) or "nothing"
    print(f"  model files {len(model_files)} ({sum(length[f] for f in model_files)} lines), without {left_out}")
    print(f"  class chain: {' -> '.join(chain)} -> nn.Module  ({len(chain)} glassformer classes)")
    for f in files:
        fns = {fn: n for (ff, fn), n in seen.items() if ff == f}
        print(f"  {f:<28} {len(fns):>3} functions {sum(fns.values()):>5} lines")
        if args.verbose:
            for fn, n in fns.items():
                print(f"      {fn:<44} {n:>4}")


if __name__ == "__main__":
    main()
