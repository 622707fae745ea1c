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

from pathlib import Path

import glassformer.exercises.grading as grading
from glassformer.errors import NotFound, UsageError
from glassformer.exercises.sandbox import LearnerFiles
from glassformer.messages import t

REQUIRED = ("attention", "multi_head_attention", "layer_norm", "feed_forward", "block")


def check_ready(folder: Path) -> None:
    """All of REQUIRED pass the grader; otherwise a clear error saying which and how to fix them."""
    missing = [name for name in REQUIRED if not (folder / f"{name}.py").is_file()]
    if missing:
        raise NotFound(
            "exercise.use_mine.missing",
            "--use-mine {folder}: no {files} there. Write them with "
            "`glassformer exercise start NAME --dir {folder}` and make "
            "them pass first.",
            folder=folder,
            files=", ".join(f"{m}.py" for m in missing),
        )
    reports = grading.check_many([(name, folder / f"{name}.py") for name in REQUIRED])
    failing = [r.exercise for r in reports if not r.passed]
    if failing:
        raise UsageError(
            "exercise.use_mine.failing",
            "--use-mine {folder}: {failing} do not pass yet; run "
            "`glassformer exercise check {first} --dir {folder}` to see "
            "why.",
            folder=folder,
            failing=", ".join(failing),
            first=failing[0],
        )


def check_config(cfg, folder: Path | None = None) -> None:
    """The model config the learner's functions can compute; with `folder`, also one training step
    of a small model of that config with the learner's functions plugged in (`glassformer train`
    calls this before it makes the run directory, so a failure leaves nothing behind)."""
    problems = []
    if cfg.dropout > 0:
        problems.append(t("dropout={dropout} (your functions have no dropout: pass --dropout=0)", dropout=cfg.dropout))
    if cfg.mha_style != "packed":
        problems.append(
            t(
                "mha_style='{style}' (your multi-head attention reads one packed qkv matrix: pass --mha_style=packed)",
                style=cfg.mha_style,
            )
        )
    if cfg.norm != "pre":
        problems.append(t("norm='{norm}' (your block is pre-LN: pass --norm=pre)", norm=cfg.norm))
    if problems:
        raise UsageError(
            "exercise.use_mine.model", "--use-mine cannot compute this model: {problems}.", problems="; ".join(problems)
        )
    if folder is not None:
        trial(cfg, Path(folder).expanduser())


TRIAL_T = 4  # positions of the trial step's one sequence


def trial(cfg, folder: Path) -> None:
    """A forward and backward pass of a freshly built model of `cfg` (one layer) with the learner's
    functions in: what passed the grader one function at a time, working together in the model."""
    import dataclasses

    import torch

    from glassformer.models import build_model

    small = dataclasses.replace(cfg, n_layers=1)
    model = build_model(small)
    if model.inputs != "tokens":
        return  # the plug swaps a decoder's blocks: the kinds reading tokens (check_ready's grading still holds)
    swap_in(model, folder)
    x = torch.zeros(1, min(TRIAL_T, small.max_len), dtype=torch.long)  # (B, T)
    try:
        model(x).float().sum().backward()  # (B, T, V) -> a scalar
    except Exception as e:  # noqa: BLE001 - the learner's code: any error is theirs to fix
        raise UsageError(
            "exercise.use_mine.trial",
            "--use-mine {folder}: your functions pass one by one but "
            "fail together in the model ({error}); nothing was written. "
            "Fix it and run the same command again.",
            folder=folder,
            error=f"{type(e).__name__}: {e}",
        ) from e


def learner_functions(folder: Path) -> tuple:
    """The learner's block() and layer_norm(), imported by the grader's own loader (sandbox.LearnerFiles)
    and each called inside it, so their imports of their own files work when they run, not only at import."""
    files = LearnerFiles(folder)
    with files:
        block_fn = files.load(folder / "block.py", "glassformer_mine_block").block
        layer_norm_fn = files.load(folder / "layer_norm.py", "glassformer_mine_layer_norm").layer_norm

    def inside(fn):
        def call(*args):
            with files:
                return fn(*args)

        return call

    return inside(block_fn), inside(layer_norm_fn)


def plug_in(model, folder: str | Path) -> list[str]:
    """Check the learner's files, then swap their functions into `model`. Returns what was plugged."""
    folder = Path(folder).expanduser()
    check_config(model.cfg)
    check_ready(folder)
    return swap_in(model, folder)


def swap_in(model, folder: str | Path) -> list[str]:
    """Swap the learner's functions into `model`, once check_config and check_ready have passed
    (`glassformer train` runs them before it makes a run directory). Returns what was plugged."""
    block_fn, layer_norm_fn = learner_functions(Path(folder).expanduser())
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
