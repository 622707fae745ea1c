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
- A modern decoder (RMSNorm, SwiGLU, RoPE, grouped-query attention: baby-llama, baby-qwen3) is
  not what `block()` computes, so there the plug works piece by piece (`MODERN`): the learner's
  `rms_norm` computes every RMSNorm (the blocks', the final one, QK-norm's), `swiglu` every SwiGLU
  FFN, `rope` the rotation of q and k, and `grouped_query_attention` the attention from q, k and v
  on (fed the projected, normalised and turned q, k, v through identity matrices: its own grouping,
  scaling, masking and output projection). Only the pieces the config uses are required; the rest
  stays glassformer's.
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
# the modern decoder's exercises: (file, function), each required where the config uses its piece
MODERN = {
    "rms_norm": "rms_norm",
    "swiglu": "swiglu",
    "rope": "rope",
    "gqa": "grouped_query_attention",
}


def modern_pieces(cfg) -> tuple[str, ...]:
    """The MODERN exercises whose piece `cfg` has (none: the classic block plug)."""
    uses = {
        "rms_norm": cfg.norm_type == "rms" or cfg.qk_norm,
        "swiglu": cfg.ffn == "swiglu",
        "rope": cfg.position == "rope",
        "gqa": cfg.kv_heads < cfg.n_heads,
    }
    return tuple(name for name in MODERN if uses[name])


def required(cfg) -> tuple[str, ...]:
    """The exercises that must pass for --use-mine to compute `cfg`."""
    return modern_pieces(cfg) or REQUIRED


def check_ready(folder: Path, names: tuple[str, ...] = REQUIRED) -> None:
    """All of `names` pass the grader; otherwise a clear error saying which and how to fix them."""
    missing = [name for name in names if not (folder / f"{name}.py").is_file()]
    if missing:
        raise NotFound(
            "exercise.use_mine.missing",
            "--use-mine {folder}: no {files} there. Write them with "
            "`glassformer exercise start NAME --dir {folder}` and make "
            "them pass first.",
            folder=folder,
            files=", ".join(f"{m}.py" for m in missing),
        )
    reports = grading.check_many([(name, folder / f"{name}.py") for name in names])
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
    runs it, in check_all, before it makes the run directory, so a failure leaves nothing behind)."""
    modern = modern_pieces(cfg)
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
    if cfg.norm != "pre" and not modern:
        problems.append(t("norm='{norm}' (your block is pre-LN: pass --norm=pre)", norm=cfg.norm))
    if cfg.ffn == "none":
        problems.append(t("ffn='{ffn}' (your block has a feed-forward network: pass --ffn=mlp)", ffn=cfg.ffn))
    if "swiglu" in modern and cfg.bias:
        problems.append(t("bias={bias} (your swiglu has no biases: pass --bias=False)", bias=cfg.bias))
    if "gqa" in modern and cfg.position == "alibi":
        problems.append(
            t(
                "position='{position}' (your grouped_query_attention adds no score bias: pass --position=rope)",
                position=cfg.position,
            )
        )
    if "rope" in modern and cfg.rope_scaling != "none":
        problems.append(
            t(
                "rope_scaling='{scaling}' (your rope turns by unscaled angles: pass --rope_scaling=none)",
                scaling=cfg.rope_scaling,
            )
        )
    if problems:
        raise UsageError(
            "exercise.use_mine.model", "--use-mine cannot compute this model: {problems}.", problems="; ".join(problems)
        )
    if folder is not None:
        trial(cfg, Path(folder).expanduser())


def check_all(cfg, folder: Path) -> None:
    """Everything --use-mine checks before `glassformer train` makes or touches a run directory: the
    config (check_config), the files it needs passing the grader (check_ready), then the trial step."""
    check_config(cfg)
    check_ready(folder, required(cfg))
    trial(cfg, folder)


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


def learner_functions(folder: Path, functions: dict[str, str]) -> dict:
    """The learner's functions ({file: function name}), imported by the grader's own loader
    (sandbox.LearnerFiles) and each called inside it, so their imports of their own files work when
    they run, not only at import."""
    files = LearnerFiles(folder)
    with files:
        loaded = {
            name: getattr(files.load(folder / f"{name}.py", f"glassformer_mine_{name}"), fn)
            for name, fn in functions.items()
        }

    def inside(fn):
        def call(*args):
            with files:
                return fn(*args)

        return call

    return {name: inside(fn) for name, fn in loaded.items()}


def plug_in(model, folder: str | Path) -> list[str]:
    """Check the learner's files, then swap their functions into `model`. Returns what was plugged."""
    folder = Path(folder).expanduser()
    check_config(model.cfg)
    check_ready(folder, required(model.cfg))
    return swap_in(model, folder)


def swap_in(model, folder: str | Path) -> list[str]:
    """Swap the learner's functions into `model`, once check_config and check_ready have passed
    (`glassformer train` runs them before it makes a run directory). Returns what was plugged."""
    folder = Path(folder).expanduser()
    modern = modern_pieces(model.cfg)
    if modern:
        return _swap_in_modern(model, learner_functions(folder, {name: MODERN[name] for name in modern}))
    fns = learner_functions(folder, {"block": "block", "layer_norm": "layer_norm"})
    block_fn, layer_norm_fn = fns["block"], fns["layer_norm"]
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


def _swap_in_modern(model, fns: dict) -> list[str]:
    """Each module of a modern piece the learner wrote gets their function as its forward (or, for
    RoPE, its rotate). Returns the modules' names."""
    plugged = []
    for name, module in model.named_modules():
        swap = _modern_swap(module, fns)
        if swap is not None:
            setattr(module, *swap)  # an instance attribute: the class's method stays glassformer's
            plugged.append(name)
    return plugged


def _modern_swap(module, fns: dict):
    """(attribute, the learner's function in its place) for a module of a piece in `fns`, else None."""
    from glassformer.nn.attention import MultiHeadAttention
    from glassformer.nn.glu import GatedFeedForward
    from glassformer.nn.rmsnorm import RMSNorm
    from glassformer.nn.rope_scaling import ScaledRotary

    if "rms_norm" in fns and isinstance(module, RMSNorm):
        return "forward", _mine_rms_norm(module, fns["rms_norm"])
    if "swiglu" in fns and isinstance(module, GatedFeedForward) and module.variant == "swiglu":
        return "forward", _mine_swiglu(module, fns["swiglu"])
    if "rope" in fns and isinstance(module, ScaledRotary):
        return "rotate", _mine_rope(module, fns["rope"])
    if "gqa" in fns and isinstance(module, MultiHeadAttention) and module.groups > 1:
        return "forward", _mine_gqa(module, fns["gqa"])
    return None


def _mine_rms_norm(norm, rms_norm_fn):
    return lambda x: rms_norm_fn(x, norm.weight, norm.eps)  # (..., C)


def _mine_swiglu(ffn, swiglu_fn):
    return lambda x: swiglu_fn(x, ffn.gate.weight, ffn.up.weight, ffn.down.weight)  # (B, T, C)


def _mine_rope(rotary, rope_fn):
    def rotate(q, k, offset):
        return rope_fn(q, offset, rotary.base), rope_fn(k, offset, rotary.base)  # (B, H, T, D), (B, H_kv, T, D)

    return rotate


def _mine_gqa(attn, gqa_fn):
    """The attention from q, k, v on is the learner's: glassformer's projection, QK-norm and rotation
    (themselves plugged where the learner wrote them) make q, k and v, which go to the learner's
    grouped_query_attention packed side by side as its x, picked apart again by identity matrices
    as w_q, w_k and w_v; its w_out is the module's own output projection."""
    import torch

    ours = attn.forward  # kept for sampling with a KV cache
    H, H_kv = attn.head_counts[0], attn.head_counts[1]

    def forward(x, mask=None, cache=None):
        if cache is not None:
            return ours(x, mask, cache)  # (B, T, C)
        B, T = x.size(0), x.size(1)
        packed = attn.qkv(x).view(B, T, -1, attn.d_head).transpose(1, 2)  # (B, H + 2·H_kv, T, D)
        q, k, v = packed.split_with_sizes(attn.head_counts, dim=1)  # (B, H, T, D), 2 × (B, H_kv, T, D)
        if attn.qk_norm is not None:
            q, k = attn.qk_norm(q, k)  # (B, H, T, D), (B, H_kv, T, D)
        if attn.positions is not None:
            q, k = attn.positions.rotate(q, k, 0)  # (B, H, T, D), (B, H_kv, T, D)
        flat = torch.cat([t.transpose(1, 2).reshape(B, T, -1) for t in (q, k, v)], dim=-1)  # (B, T, (H + 2·H_kv)·D)
        picks = torch.eye(flat.size(-1), dtype=flat.dtype, device=flat.device).split(attn.widths)  # 3 × (width, ·)
        out = gqa_fn(flat, *picks, attn.proj.weight, H, H_kv, mask)  # (B, T, C)
        return out + attn.proj.bias if attn.proj.bias is not None else out  # (B, T, C)

    return forward
