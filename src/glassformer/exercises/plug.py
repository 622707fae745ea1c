"""`--use-mine DIR`: train glassformer with the learner's own components plugged in.

Once the attention, multi-head attention, LayerNorm, FFN and block exercises pass, the learner's
`block(x, params, n_heads, mask, activation, eps)` replaces every Block's forward pass and their
`layer_norm(x, weight, bias, eps)` replaces the final LayerNorm. (A learner's block is built from
their own attention, heads and FFN, or calls those files directly: `from attention import ...`.)

How the plug works, and what it keeps:
- The modules stay where they are, with their parameters under the same names: the learner's
  function is given the module's own parameters (`params` uses exactly the Block's state_dict
  names), so the optimizer, checkpoints, resume and the parameter table are unchanged.
- Only the forward computation is swapped (an instance attribute `forward` on each module).
  Sampling with a KV cache still uses glassformer's block (the `kv_cache` exercise covers a decode
  step on its own); hook points inside a plugged block do not fire — the learner's code has none.
- The configurations the learner's functions cannot compute are refused with a message: dropout
  (the exercises have none), the per-head projection style, and a norm other than pre-LN.
- No sandbox: the learner's code runs inside the training process. That is why the check runs
  first, in a separate process with a time limit, and why this is an explicit opt-in.
"""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path

import glassformer.exercises.grading as grading
from glassformer.errors import NotFound, UsageError
from glassformer.messages import t

REQUIRED = ("attention", "multi_head_attention", "layer_norm", "feed_forward", "block")


def check_ready(folder: Path) -> None:
    """All of REQUIRED pass the grader; otherwise a clear error saying which and how to fix them."""
    missing = [name for name in REQUIRED if not (folder / f"{name}.py").is_file()]
    if missing:
        raise NotFound("error.exercise.use_mine.missing", folder=folder, files=", ".join(f"{m}.py" for m in missing))
    reports = grading.check_many([(name, folder / f"{name}.py") for name in REQUIRED])
    failing = [r.exercise for r in reports if not r.passed]
    if failing:
        raise UsageError("error.exercise.use_mine.failing", folder=folder, failing=", ".join(failing), first=failing[0])


def check_config(cfg) -> None:
    problems = []
    if cfg.dropout > 0:
        problems.append(t("exercise.use_mine.dropout", dropout=cfg.dropout))
    if cfg.mha_style != "packed":
        problems.append(t("exercise.use_mine.mha_style", style=cfg.mha_style))
    if cfg.norm != "pre":
        problems.append(t("exercise.use_mine.norm", norm=cfg.norm))
    if problems:
        raise UsageError("error.exercise.use_mine.model", problems="; ".join(problems))


def load(folder: Path, name: str) -> types.ModuleType:
    """Import the learner's `name.py` from `folder` (its own imports of sibling files work)."""
    path = folder / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"glassformer_mine_{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(folder))  # so `from attention import ...` in their file finds their file
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(folder))
    return module


def plug_in(model, folder: str | Path) -> list[str]:
    """Check the learner's files, then swap their functions into `model`. Returns what was plugged."""
    folder = Path(folder).expanduser()
    check_config(model.cfg)
    check_ready(folder)
    return swap_in(model, folder)


def swap_in(model, folder: str | Path) -> list[str]:
    """Swap the learner's functions into `model`, once check_config and check_ready have passed
    (`glassformer train` runs them before it makes a run directory). Returns what was plugged."""
    folder = Path(folder).expanduser()
    block_fn, layer_norm_fn = load(folder, "block").block, load(folder, "layer_norm").layer_norm
    plugged = []
    for i, block in enumerate(model.blocks):
        block.forward = _mine_block(block, block_fn)
        plugged.append(f"blocks.{i}")
    if model.use_final_norm:
        ln = model.ln_final
        model.ln_final.forward = lambda x: layer_norm_fn(x, ln.weight, ln.bias, ln.eps)  # (B, T, C)
        plugged.append("ln_final")
    return plugged


def _mine_block(block, block_fn):
    ours = block.forward  # kept for sampling with a KV cache
    cfg = block.cfg

    def forward(x, mask=None, cache=None):
        if cache is not None:
            return ours(x, mask, cache)  # (B, T, C)
        params = dict(block.named_parameters())  # the Block's own names: ln1.weight, attn.qkv.weight, ...
        return block_fn(x, params, cfg.n_heads, mask, cfg.activation, cfg.ln_eps)  # (B, T, C)

    return forward
