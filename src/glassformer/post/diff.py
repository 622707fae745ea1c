"""What post-training changed inside a model: `glassformer diff BASE TUNED` (cli/post.py).

Seven views, each a causal_views ``Grid`` (so the terminal table, the PNG heatmap, the HTML page and the
JSON are causal_views' own ``text_table`` and ``write_all``):

    layers    ‖ΔW‖ / ‖W‖ of each layer (a block, the embedding, the head ...): its parameters together
    weights   ‖ΔW‖ / ‖W‖, ‖ΔW‖ and ‖W‖ of every parameter tensor
    heads     ‖ΔW_h‖ / ‖W_h‖ of each head's share of every self-attention projection: the rows of q, k
              and v that make head h's features h·D..(h+1)·D (weights and biases), and the columns of the
              output projection that read them (``AttentionHeads.split_heads`` and ``from_heads``' layout)
    lora      a LoRA run's own update, ΔW = (α/r)·B·A from its lora.safetensors: its norm against the
              base layer's and its rank (at most r)
    attention how far each head's attention moved on a few prompts: the total variation distance
              ½·Σ_k |a_tuned − a_base| between its two attention rows, averaged over queries and prompts
              (0: it looks where it looked, 1: somewhere else entirely)
    effect    how each head's causal effect moved on the same prompts: what zeroing the head adds to the
              loss of the prompts' own next tokens (causal_views.zero_ablation_loss), tuned minus base
    tokens    the next tokens whose probability moved most on a few prompts: p under the base, under the
              tuned model, and the change, largest |change| first

``views`` makes them all: `glassformer diff` prints and writes them, `glassformer explore BASE --against
TUNED` shows them in the page (explore/diffview.py).

ΔW = W_tuned − W_base, ‖·‖ the Frobenius norm; a relative change divides by the base's norm (by the
tuned one's where the base's is 0, as for a bias that started at zero; 0 when both are).

**A post-training run's base.** sft, dpo and grpo add the chat's control tokens to the vocabulary and
the model grows a row for each (tune.py's ``grow_vocab``, each new row the mean of the old ones). When
TUNED's tokenizer is BASE's plus special tokens, BASE is grown the same way first: the comparison
starts where the run started, and the new rows' change is what training did to them. Any other
difference (a field of the model's config, a tokenizer that is not BASE's) is refused in one line.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

import torch
from safetensors.torch import load_file
from torch import Tensor, nn

from glassformer.errors import UsageError
from glassformer.inspect.causal_views import Grid
from glassformer.messages import t
from glassformer.nn.attention import MultiHeadAttention
from glassformer.text.specials import SpecialTokens

TOP_TOKENS = 12  # rows of the tokens view
PROMPTS_FROM_DATA = 3  # examples of the run's own data used when no --prompt is given
IGNORED_FIELDS = ("vocab_size", "dropout")  # what a post run may change without changing a weight's shape
PARTS = ("q", "k", "v", "o")


@dataclass
class Pair:
    """The two models to compare, their shapes alike; ``grown`` new vocabulary rows in ``base``."""

    base: nn.Module
    tuned: nn.Module
    tokenizer: object
    tuned_config: dict
    grown: int = 0


def open_pair(base_dir: str | Path, tuned_dir: str | Path) -> Pair:
    """BASE and TUNED loaded, BASE grown to TUNED's vocabulary when TUNED is a post run of it; runs of
    different kinds, shapes or vocabularies are refused, naming what differs."""
    from glassformer.post.tune import grow_vocab
    from glassformer.train.run import load_model

    base, base_tok, _ = load_model(base_dir)
    tuned, tuned_tok, tuned_config = load_model(tuned_dir)
    if type(base) is not type(tuned) or base_tok is None or tuned_tok is None:
        raise UsageError(
            "diff.kind",
            "{base} holds a {a} model and {tuned} a {b} model: diff "
            "compares two runs of the same kind of text model, a base "
            "and a run tuned from it.",
            base=base_dir,
            tuned=tuned_dir,
            a=base.kind,
            b=tuned.kind,
        )
    differ = [
        f.name
        for f in fields(base.cfg)
        if f.name not in IGNORED_FIELDS and getattr(base.cfg, f.name) != getattr(tuned.cfg, f.name)
    ]
    if differ:
        raise UsageError(
            "diff.shapes",
            "{base} and {tuned} differ in {fields}, so their weights do "
            "not line up: compare a base with a run tuned from it (sft, "
            "dpo, grpo, or train --resume).",
            base=base_dir,
            tuned=tuned_dir,
            fields=", ".join(differ),
        )
    grown = tuned.cfg.vocab_size - base.cfg.vocab_size
    extends = isinstance(tuned_tok, SpecialTokens) and tuned_tok.base.to_dict() == base_tok.to_dict()
    if not (tuned_tok.to_dict() == base_tok.to_dict() if grown == 0 else grown > 0 and extends):
        raise UsageError(
            "diff.vocab",
            "{base} has {a} tokens and {tuned} {b}, and {tuned}'s "
            "tokenizer is not {base}'s (nor {base}'s plus a chat's "
            "special tokens): compare a base with a run tuned from it.",
            base=base_dir,
            tuned=tuned_dir,
            a=base.cfg.vocab_size,
            b=tuned.cfg.vocab_size,
        )
    if grown:
        base = grow_vocab(base, tuned.cfg)
    return Pair(base.eval(), tuned.eval(), tuned_tok, tuned_config, grown)


def _relative(delta: float, base: float, tuned: float) -> float:
    """‖ΔW‖ / ‖W_base‖ (or / ‖W_tuned‖ where the base is 0; 0 when both are)."""
    scale = base if base > 0 else tuned
    return delta / scale if scale > 0 else 0.0


def _layer(name: str) -> str:
    """The layer a parameter belongs to: ``blocks.3`` for blocks.3.attn.qkv.weight, else its first name."""
    parts = name.split(".")
    return ".".join(parts[:2]) if parts[0] == "blocks" and len(parts) > 2 else parts[0]


@torch.no_grad()
def weight_views(pair: Pair) -> tuple[Grid, Grid]:
    """(layers, weights): every parameter's ‖ΔW‖, ‖W‖ and their ratio, and each layer's together."""
    held = dict(pair.base.named_parameters())
    rows, values = [], []
    layers: dict[str, list[float]] = {}  # layer -> [Σ‖ΔW‖², Σ‖W_base‖², Σ‖W_tuned‖²]
    for name, tuned in pair.tuned.named_parameters():
        base = held[name]
        delta = float((tuned.double() - base.double()).norm())
        size, size_tuned = float(base.double().norm()), float(tuned.double().norm())
        rows.append(name)
        values.append([_relative(delta, size, size_tuned), delta, size])
        sums = layers.setdefault(_layer(name), [0.0, 0.0, 0.0])
        for i, v in enumerate((delta, size, size_tuned)):
            sums[i] += v * v
    notes = (
        [
            t(
                "the base grew {n} vocabulary rows for the chat's special "
                "tokens (each the mean of its old rows), as the run did when "
                "it started; ΔW counts from there.",
                n=pair.grown,
            )
        ]
        if pair.grown
        else []
    )
    columns = [t("‖ΔW‖/‖W‖"), t("‖ΔW‖"), t("‖W‖")]
    per_layer = Grid(
        t("Weight change of each layer, ‖ΔW‖ / ‖W‖"),
        list(layers),
        [t("‖ΔW‖/‖W‖")],
        [[_relative(*(v**0.5 for v in sums))] for sums in layers.values()],
        notes,
    )
    return per_layer, Grid(t("Weight change of each parameter"), rows, columns, values, notes)


def head_parts(attn: MultiHeadAttention) -> dict[str, Tensor]:
    """Each head's numbers in the projections of one self-attention, part -> (H, n): q, k, v (the
    weight rows and bias entries that make head h's D features) and o (the output projection's
    columns that read them)."""
    H, D = attn.n_heads, attn.d_head
    C_in = attn.proj.weight.size(0)
    out: dict[str, Tensor] = {}
    for i, part in enumerate(PARTS[:3]):
        if attn.style == "packed":
            w = attn.qkv.weight.view(3, H, D * C_in)[i]  # (H, D·C): rows h·D..(h+1)·D of part i
            b = attn.qkv.bias.view(3, H, D)[i] if attn.qkv.bias is not None else w[:, :0]  # (H, D)
        else:
            layers = [getattr(head, part) for head in attn.heads]
            w = torch.stack([layer.weight.flatten() for layer in layers])  # (H, D·C)
            b = torch.stack([layer.bias for layer in layers]) if attn.bias else w[:, :0]  # (H, D)
        out[part] = torch.cat([w, b], dim=1)  # (H, D·C + D)
    W_O = attn.proj.weight.view(C_in, H, D)  # (C, H, D): the columns that read head h
    out["o"] = W_O.permute(1, 0, 2).reshape(H, C_in * D)  # (H, C·D)
    return out


@torch.no_grad()
def head_view(pair: Pair) -> Grid | None:
    """‖ΔW_h‖ / ‖W_h‖ of every head of every self-attention, a row per (layer, projection); None
    for a model without one (another attention's heads are not laid out this way)."""
    tuned_modules = dict(pair.tuned.named_modules())
    rows, values = [], []
    heads = 0
    for name, base in pair.base.named_modules():
        if type(base) is not MultiHeadAttention:  # a subclass may lay its heads out otherwise
            continue
        b, u = head_parts(base), head_parts(tuned_modules[name])
        heads = base.n_heads
        for part in PARTS:
            delta = (u[part].double() - b[part].double()).norm(dim=1)  # (H,)
            size, size_tuned = b[part].double().norm(dim=1), u[part].double().norm(dim=1)  # (H,), (H,)
            rows.append(f"{name} {part}")
            values.append([_relative(*map(float, x)) for x in zip(delta, size, size_tuned, strict=True)])
    if not rows:
        return None
    columns = [t("head {h}", h=h) for h in range(heads)]
    return Grid(
        t("Weight change of each head's share of the attention projections, ‖ΔW_h‖ / ‖W_h‖"), rows, columns, values
    )


@torch.no_grad()
def lora_view(pair: Pair, run_dir: str | Path) -> Grid | None:
    """A LoRA run's update (α/r)·B·A per layer, from its lora.safetensors: ‖ΔW‖ / ‖W_base‖ and the
    rank of ΔW; None for a run without LoRA."""
    from glassformer.post.tune import LORA_FILE

    lora = (pair.tuned_config.get("post") or {}).get("lora")
    path = Path(run_dir) / LORA_FILE
    if not lora or not path.exists():
        return None
    adapters = load_file(str(path))
    scale = lora["alpha"] / lora["r"]
    held = dict(pair.base.named_parameters())
    rows, values = [], []
    for key in sorted(k for k in adapters if k.endswith(".A")):
        layer = key[: -len(".A")]
        update = scale * adapters[f"{layer}.B"].double() @ adapters[key].double()  # (d_out, d_in)
        base = held[f"{layer}.weight"].double()  # (d_out, d_in)
        rows.append(layer)
        values.append([float(update.norm()) / float(base.norm()), float(torch.linalg.matrix_rank(update))])
    notes = [t("r = {r}, α = {alpha}; the rank of ΔW is at most r.", r=lora["r"], alpha=lora["alpha"])]
    return Grid(t("LoRA's update ΔW = (α/r)·B·A of each layer"), rows, [t("‖ΔW‖/‖W‖"), t("rank")], values, notes)


def prompts_of_run(pair: Pair) -> list[list[int]]:
    """The first examples of the tuned run's own data, as ids (a conversation, a preference pair's
    chosen answer, a question); a run with no data of its own needs --prompt."""
    return run_examples(pair.tuned_config, pair.tokenizer, PROMPTS_FROM_DATA)


def run_examples(config: dict, tokenizer, n: int) -> list[list[int]]:
    """The first ``n`` examples of a post-training run's own data (its config.json's ``post``), as ids,
    rendered with its chat template; the explorer opens a chat run on the first."""
    from glassformer.post import data as post_data
    from glassformer.post.chat import CHAT_FORMATS
    from glassformer.post.tune import encode_examples

    post = config.get("post")
    if not isinstance(post, dict):
        raise UsageError(
            "diff.no_prompt",
            "the tuned run has no data of its own to read prompts from: give one or more --prompt TEXT.",
        )
    examples, _ = post_data.load(post["method"], post["data"])
    encoded = encode_examples(post["method"], tokenizer, CHAT_FORMATS[post["format"]].template(), examples[:n])
    return [e[0].ids if isinstance(e, tuple) else e.ids for e in encoded]


def prompt_ids(pair: Pair, texts: list[str] | None) -> list[list[int]]:
    """The prompts of the views that run the models, as ids: ``texts`` encoded (an empty one refused),
    or, with none, the tuned run's own first examples (``prompts_of_run``)."""
    if not texts:
        return prompts_of_run(pair)
    prompts = [pair.tokenizer.encode(text) for text in texts]
    if not all(prompts):
        raise UsageError("sample.empty_prompt", "the prompt is empty: give the model at least one token to continue")
    return prompts


@torch.no_grad()
def token_view(pair: Pair, prompts: list[list[int]], top: int = TOP_TOKENS) -> Grid:
    """The ``top`` (prompt, position, next token) whose probability moved most between the models."""
    from glassformer.inspect.trace import token_labels

    found: list[tuple[float, int, int, int, float, float]] = []  # (|Δp|, prompt, position, token, p_base, p_tuned)
    for n, prompt in enumerate(prompts):
        ids = torch.tensor([prompt[-pair.base.cfg.max_len :]])  # (1, T)
        p_base = pair.base(ids)[0].double().softmax(dim=-1)  # (T, V)
        p_tuned = pair.tuned(ids)[0].double().softmax(dim=-1)  # (T, V)
        change = (p_tuned - p_base).abs()  # (T, V)
        best, token = change.max(dim=-1)  # (T,), (T,): the most moved token at each position
        for pos in best.topk(min(top, best.numel())).indices.tolist():
            k = int(token[pos])
            found.append((float(best[pos]), n, pos, k, float(p_base[pos, k]), float(p_tuned[pos, k])))
    found.sort(key=lambda f: -f[0])
    rows, values = [], []
    for _, n, pos, k, pb, pt in found[:top]:
        ids = prompts[n][-pair.base.cfg.max_len :]
        context = "".join(token_labels(ids[max(0, pos - 5) : pos + 1], pair.tokenizer))
        (label,) = token_labels([k], pair.tokenizer)
        rows.append(
            t(
                "prompt {prompt} @{position} {context} → {token}",
                prompt=n + 1,
                position=pos,
                context=context,
                token=label,
            )
        )
        values.append([pb, pt, pt - pb])
    columns = [t("p base"), t("p tuned"), t("change")]
    return Grid(
        t("Next tokens whose probability moved most"),
        rows,
        columns,
        values,
        [t("over every position of {n} prompt(s); p is the probability of that next token.", n=len(prompts))],
    )


@torch.no_grad()
def head_moves(pair: Pair, prompts: list[list[int]]) -> tuple[Grid, Grid] | None:
    """(attention, effect), a row per layer and a column per head, over ``prompts``: the total variation
    distance between each head's attention rows under the base and the tuned model (averaged over the
    queries of every prompt), and the change of its zero-ablation effect on the loss of the prompts' own
    next tokens (tuned minus base; a prompt of one token has no next token and is skipped there). None
    for a model whose layers declare no ``attn.weights`` and ``attn.z`` hooks."""
    from glassformer.inspect.causal_views import zero_ablation_loss

    L, H = pair.base.cfg.n_layers, pair.base.cfg.n_heads
    names = [f"blocks.{layer}.attn.weights" for layer in range(L)]
    points = pair.base.hook_points()
    if not all(n in points and n.replace("weights", "z") in points for n in names):
        return None
    moved = torch.zeros(L, H, dtype=torch.float64)  # (L, H)
    effect = torch.zeros(L, H, dtype=torch.float64)  # (L, H)
    scored = 0
    for prompt in prompts:
        ids = torch.tensor([prompt[-pair.base.cfg.max_len :]])  # (1, T)
        _, base = pair.base.run_with_cache(ids, names=names)
        _, tuned = pair.tuned.run_with_cache(ids, names=names)
        for layer, name in enumerate(names):
            rows = (tuned[name][0].double() - base[name][0].double()).abs().sum(-1)  # (H, T_q)
            moved[layer] += 0.5 * rows.mean(-1)  # (H,)
        if ids.size(1) >= 2:
            (b0, b), (u0, u) = (zero_ablation_loss(m, ids, 1) for m in (pair.base, pair.tuned))  # (), (L, H)
            effect += (u.double() - u0) - (b.double() - b0)  # (L, H)
            scored += 1
    rows = [f"blocks.{layer}.attn" for layer in range(L)]
    columns = [t("head {h}", h=h) for h in range(H)]
    attention = Grid(
        t("How far each head's attention moved, ½·Σ|a_tuned − a_base| (0 to 1)"),
        rows,
        columns,
        (moved / max(len(prompts), 1)).tolist(),
        [t("over every query of {n} prompt(s).", n=len(prompts))],
    )
    causal = Grid(
        t("How each head's causal effect moved: loss rise when zeroed, tuned − base"),
        rows,
        columns,
        (effect / max(scored, 1)).tolist(),
        [t("over the next tokens of {n} prompt(s); > 0: the tuned model leans on the head more.", n=scored)],
    )
    return attention, causal


def views(pair: Pair, run_dir: str | Path, prompts: list[list[int]]) -> dict[str, Grid | None]:
    """Every view, by the stem its files are written under (None: a view this pair has nothing for):
    what `glassformer diff` prints and writes and `glassformer explore --against` shows."""
    layers, weights = weight_views(pair)
    moves = head_moves(pair, prompts)
    return {
        "diff_layers": layers,
        "diff_weights": weights,
        "diff_heads": head_view(pair),
        "diff_lora": lora_view(pair, run_dir),
        "diff_attention": moves[0] if moves else None,
        "diff_effect": moves[1] if moves else None,
        "diff_tokens": token_view(pair, prompts),
    }
