"""The user-facing side of glassformer.causal: checked inputs, the grids the `patch`, `heads` and
`attribute` verbs and the explorer's panel show, and their PNG, offline HTML, text table and JSON.

Every call into glassformer.causal is in the first section ("the library, in one place"), so a
change of its API is adapted here once. The rest only reads the small dataclasses it returns.

What each view computes (the methods themselves: docs/causal.md):

    patch --by position   resid_post of every block patched one position at a time    (layer, T)
    patch --by layer      each block's whole attention output, then its whole FFN     (2, layer)
    patch --by head       each head's z (its output before W_O) at every position     (layer, H)
    heads                 the three detector scores of every head on repeated random tokens, and the
                          causal check: each head zero-ablated, the loss on the repeated half
    attribute             the final stream split into its parts, each projected on answer − wrong
                          (a mixture of experts' layers split into their experts)
"""

from __future__ import annotations

import textwrap
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch

from glassformer.errors import UsageError
from glassformer.files import json_text
from glassformer.messages import N_, t

# what patching goes by, and its grid's title
BY = {
    "position": N_("patching the residual stream, by layer and position (clean = 1, corrupted = 0)"),
    "layer": N_("patching a whole attention or FFN output (clean = 1, corrupted = 0)"),
    "head": N_("patching one head's output at every position (clean = 1, corrupted = 0)"),
}
DETECTORS = ("previous_token", "duplicate_token", "induction")
# the heads grid's columns: each detector's score, then the ablation's
HEAD_COLUMNS = {
    "previous_token": N_("previous"),
    "duplicate_token": N_("duplicate"),
    "induction": N_("induction"),
    "ablation": N_("ablation Δloss"),
}


# ------------------------------------------------------------------ the library, in one place
def _patch_grids(model, clean: torch.Tensor, corrupt: torch.Tensor, answer: int, wrong: int, by: str):
    """[(row label prefix, PatchGrid)] for one `by`; every grid normalised clean = 1, corrupt = 0."""
    from glassformer.causal import activation_patching, logit_diff

    metric = logit_diff(answer, wrong)
    if by == "position":
        return [("resid_post", activation_patching(model, clean, corrupt, metric, "resid_post", by=("T",)))]
    if by == "head":
        return [("attn.z", activation_patching(model, clean, corrupt, metric, "attn.z", by=("H",)))]
    return [
        ("attn.out", activation_patching(model, clean, corrupt, metric, "attn.out", by=())),
        ("ffn.hidden", activation_patching(model, clean, corrupt, metric, "ffn.hidden", by=())),
    ]


def _gap(model, clean: torch.Tensor, corrupt: torch.Tensor, answer: int, wrong: int) -> tuple[float, float]:
    """The logit difference answer − wrong of the clean and of the corrupted run (what the grids
    normalise between), measured before any grid is computed."""
    from glassformer.causal import logit_diff

    metric = logit_diff(answer, wrong)
    with torch.no_grad():
        return float(metric(model(clean)).mean()), float(metric(model(corrupt)).mean())


def _detector_scores(model, tokens: torch.Tensor) -> torch.Tensor:
    """(3, L, H): previous-token, duplicate-token and induction score of every head."""
    from glassformer.causal import head_scores

    return torch.stack([head_scores(model, tokens, kind) for kind in DETECTORS])  # (3, L, H)


def _chance_and_perfect(model, tokens: torch.Tensor) -> tuple[float, float]:
    """The induction score of a head attending evenly and of a perfect induction head, on `tokens`."""
    from glassformer.causal.detectors import reference_scores

    return reference_scores(tokens, "induction", causal=bool(getattr(model.cfg, "causal", True)))


def _repeated(vocab_size: int, n: int, batch: int, seed: int) -> torch.Tensor:
    from glassformer.causal import repeated_tokens

    return repeated_tokens(vocab_size, n, batch, seed)  # (batch, 2n)


def _logit_attribution(model, ids: torch.Tensor, answer: int, wrong: int):
    """The attribution's parts; a mixture-of-experts layer split into its experts (and shared ones)."""
    from glassformer.causal import logit_attribution
    from glassformer.causal.experts import expert_grid

    return logit_attribution(model, ids, answer, wrong, experts=bool(expert_grid(model)))


def _patch_rows(act, source, axes, by, rows, cells):
    """Row r of `act` takes `source`'s values at cells[r] (glassformer.causal.patching's own copy)."""
    from glassformer.causal.patching import patch_rows

    return patch_rows(act, source, axes, by, rows, cells)


# ------------------------------------------------------------------ checked inputs
def check_model(model, verb: str) -> None:
    """These views read a model that predicts tokens from tokens, with the hooks of a Transformer
    block (attn.z, attn.weights, resid_post) and the final norm's readout. Others are refused."""
    names = set(model.hook_names()) if hasattr(model, "hook_names") else set()
    needed = ("blocks.0.attn.z", "blocks.0.attn.weights", "blocks.0.resid_post", "logits")
    if getattr(model, "inputs", None) != "tokens" or not all(n in names for n in needed):
        raise UsageError(
            "cview.kind",
            "glassformer {verb} reads a model that predicts tokens from "
            "tokens, with Transformer blocks' hook points; this run is "
            "kind {kind!r} (it reads {inputs}). Give a run of kind gpt "
            "or encoder.",
            verb=verb,
            kind=getattr(model, "kind", type(model).__name__),
            inputs=getattr(model, "inputs", "?"),
        )
    if getattr(model.cfg, "attention", "glass") == "fused":
        model.set_attention("glass")  # same weights; the detectors need the weights shown
    if verb == "attribute" and model.cfg.norm == "post":
        raise UsageError(
            "cview.post_norm",
            "Direct logit attribution needs a pre-norm or norm-free "
            "model; this run has norm={norm!r}, which normalises the "
            "stream inside every block. Use glassformer patch instead.",
            norm=model.cfg.norm,
        )


def encode(tokenizer, text: str, flag: str, max_len: int) -> list[int]:
    ids = tokenizer.encode(text)
    if not ids:
        raise UsageError("cview.empty", "{flag} is empty after tokenizing; give it some text.", flag=flag)
    if len(ids) > max_len:
        raise UsageError(
            "cview.too_long",
            "{flag} has {n} tokens, more than the model's max_len of {max_len}; shorten it.",
            flag=flag,
            n=len(ids),
            max_len=max_len,
        )
    return ids


def one_token(tokenizer, text: str, flag: str) -> int:
    """The id of `text`, which must be exactly one token."""
    from glassformer.inspect.trace import token_labels

    ids = tokenizer.encode(text)
    if len(ids) != 1:
        raise UsageError(
            "cview.not_one_token",
            "{flag} {text!r} is {n} tokens ({tokens}), not one; give a single token of the run's vocabulary.",
            flag=flag,
            text=text,
            n=len(ids),
            tokens=" ".join(token_labels(ids, tokenizer)),
        )
    return ids[0]


def prompt_pair(tokenizer, clean: str, corrupt: str, max_len: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Both prompts as (1, T), refused unless they have the same number of tokens."""
    from glassformer.inspect.trace import token_labels

    a, b = encode(tokenizer, clean, "--clean", max_len), encode(tokenizer, corrupt, "--corrupt", max_len)
    if len(a) != len(b):
        raise UsageError(
            "cview.lengths",
            "--clean has {clean} tokens ({clean_tokens}) and --corrupt "
            "has {corrupt} ({corrupt_tokens}); patching copies position "
            "by position, so make them the same number of tokens.",
            clean=len(a),
            corrupt=len(b),
            clean_tokens=" ".join(token_labels(a, tokenizer)),
            corrupt_tokens=" ".join(token_labels(b, tokenizer)),
        )
    different(a, b, tokenizer)
    return torch.tensor([a]), torch.tensor([b])  # (1, T), (1, T)


def different(clean: list[int], corrupt: list[int], tokenizer) -> None:
    """Patching copies the clean run into the corrupted one: the same tokens leave nothing to copy."""
    from glassformer.inspect.trace import token_labels

    if clean == corrupt:
        raise UsageError(
            "cview.same_prompts",
            "The clean and the corrupted prompt are the same tokens "
            "({tokens}): a patch copies one run into the other, so "
            "nothing could change; change one detail of the corrupted "
            "prompt.",
            tokens=" ".join(token_labels(clean, tokenizer)),
        )


def answer_and_wrong(tokenizer, answer: str, wrong: str | None) -> tuple[int, int | None]:
    """--answer and --wrong as one token each (wrong may be left out), refused when they are the same."""
    a = one_token(tokenizer, answer, "--answer")
    w = one_token(tokenizer, wrong, "--wrong") if wrong is not None else None
    if a == w:
        raise UsageError(
            "cview.same_tokens",
            "--answer and --wrong are the same token {token!r}: their "
            "logit difference is 0 whatever the model does; give two "
            "different tokens.",
            token=answer,
        )
    return a, w


GAP_SHARE = 0.1  # the smallest clean − corrupt gap normalised by, as a share of the metric's scale


def gap_floor(clean: float, corrupt: float) -> float:
    """The smallest gap the views normalise by: GAP_SHARE of the metric's scale, max(|clean|,
    |corrupt|, 1). The metric is a logit difference, in nats of log-odds, so its unit is 1: a gap
    must be at least 0.1 nats and at least a tenth of the larger of the two runs' own values."""
    return GAP_SHARE * max(abs(clean), abs(corrupt), 1.0)


def check_gap(clean: float, corrupt: float) -> None:
    """Refuse a gap that is inverted (the corruption did not lower the answer's lead) or too small to
    divide by: every normalised cell would be noise over a near-zero denominator."""
    gap = clean - corrupt
    if not gap > 0:  # NaN included
        raise UsageError(
            "cview.gap.inverted",
            "The corruption does not lower the answer's lead: logit "
            "difference clean {clean:.4f}, corrupted {corrupt:.4f} (gap "
            "{gap:.4f}), so clean = 1, corrupted = 0 would read upside "
            "down; corrupt a detail the answer depends on (on the "
            "command line, or swap --answer and --wrong).",
            clean=clean,
            corrupt=corrupt,
            gap=gap,
        )
    if gap < gap_floor(clean, corrupt):
        raise UsageError(
            "cview.gap.small",
            "The clean and the corrupted run barely differ: logit "
            "difference clean {clean:.4f}, corrupted {corrupt:.4f}, a "
            "gap of {gap:.4f}, under the {floor:.4f} a grid is "
            "normalised by (a tenth of the larger value, at least 0.1): "
            "every cell would be noise over it; corrupt a detail the "
            "answer depends on more.",
            clean=clean,
            corrupt=corrupt,
            gap=gap,
            floor=gap_floor(clean, corrupt),
        )


# ------------------------------------------------------------------ the views' numbers
@dataclass
class Grid:
    """A 2-D table of numbers with its row and column labels (what every view draws)."""

    title: str
    rows: list[str]
    columns: list[str]
    values: list[list[float]]  # (rows, columns)
    notes: list[str] = field(default_factory=list)
    extra: dict = field(default_factory=dict)  # figures a test or the JSON reads (clean, corrupt ...)

    def to_json(self) -> str:
        """The grid as JSON proper: a NaN or an infinity (a cell no input defines) is null, never a bare NaN."""
        return json_text(asdict(self), ensure_ascii=False, indent=1)


def patch_view(model, tokenizer, clean, corrupt, answer: int, wrong: int, by: str) -> Grid:
    """The normalised patching grid of `by` (clean = 1, corrupted = 0) as a Grid; the prompts and
    tokens checked (the same prompts, the same tokens, a gap too small or inverted are refused)."""
    from glassformer.inspect.trace import token_labels

    different(clean.flatten().tolist(), corrupt.flatten().tolist(), tokenizer)
    check_gap(*_gap(model, clean, corrupt, answer, wrong))
    grids = _patch_grids(model, clean, corrupt, answer, wrong, by)
    first = grids[0][1]
    layers = [f"L{i}" for i in range(len(first.names))]
    if by == "position":
        rows, columns = [f"{n}" for n in first.names], token_labels(clean, tokenizer)
        values = first.normalised()  # (L, T)
    elif by == "head":
        rows, columns = (
            [f"blocks.{i}.attn" for i in range(len(first.names))],
            [f"H{h}" for h in range(model.cfg.n_heads)],
        )
        values = first.normalised()  # (L, H)
    else:
        rows, columns = [t("attention"), t("feed-forward")], layers
        values = torch.stack([g.normalised() for _, g in grids])  # (2, L)
    return Grid(
        t(BY[by]),
        rows,
        columns,
        [[round(float(v), 6) for v in row] for row in values.tolist()],
        [
            t(
                "logit difference: clean {clean:.4f}, corrupted {corrupt:.4f}, gap {gap:.4f}",
                clean=first.clean,
                corrupt=first.corrupt,
                gap=first.gap,
            ),
            t(
                "1 = the clean run, 0 = the corrupted run; above 1 a patch "
                "overshoots the clean run, below 0 it moves further from the "
                "answer than the corruption did."
            ),
        ],
        {
            "by": by,
            "clean": first.clean,
            "corrupt": first.corrupt,
            "gap": first.gap,
            "gap_floor": gap_floor(first.clean, first.corrupt),
            "answer": answer,
            "wrong": wrong,
            "points": [n for _, g in grids for n in g.names],
        },  # fmt: skip
    )


def head_ablation(model, x: torch.Tensor, metric) -> tuple[float, torch.Tensor]:
    """metric(logits) (N, T, V) -> (N,), averaged over x's B rows: unablated, and (L, H) with each
    head's z zeroed — one batched forward per layer, a row per head (the patching module's own copy)."""
    L, H = model.cfg.n_layers, model.cfg.n_heads
    B = x.shape[0]
    with torch.no_grad():
        base = float(metric(model(x)).mean())
        out = torch.zeros(L, H)  # (L, H)
        for layer in range(L):
            name = f"blocks.{layer}.attn.z"
            axes = model.hook_points()[name].axes.split()

            def hook(a: torch.Tensor, name: str, axes=axes) -> torch.Tensor:
                zeros = torch.zeros_like(a[:B])  # (B, H, T, D)
                return _patch_rows(a, zeros, axes, ("H",), list(range(H)), [(h,) for h in range(H)])

            logits = model.run_with_hooks(x.repeat(H, 1), hooks={name: hook})  # (H·B, T, V)
            out[layer] = metric(logits).view(H, B).mean(1)  # (H,)
    return base, out


def zero_ablation_loss(model, tokens: torch.Tensor, start: int) -> tuple[float, torch.Tensor]:
    """Loss on the next tokens from position `start` on: unablated, and (L, H) with each head zeroed."""
    B = tokens.shape[0]
    x, y = tokens[:, :-1], tokens[:, 1:]  # (B, T−1), (B, T−1)

    def loss(logits: torch.Tensor) -> torch.Tensor:
        lp = logits[:, start - 1 :].log_softmax(-1)  # (R·B, T−start, V)
        target = y[:, start - 1 :].repeat(logits.shape[0] // B, 1)  # (R·B, T−start)
        return -lp.gather(-1, target[..., None])[..., 0].mean(1)  # (R·B,)

    return head_ablation(model, x, loss)


CLEARS = 0.25  # an induction head's score clears a quarter of the way from an even head's to a perfect one's


def heads_view(model, n: int, batch: int, seed: int) -> Grid:
    """One row per head: its three detector scores, and the causal check: how much zero-ablating
    it raises the loss on the repeated half of the sequences the detectors read."""
    n = max(2, min(n, model.cfg.max_len // 2))
    tokens = _repeated(model.cfg.vocab_size, n, batch, seed)  # (batch, 2n)
    scores = _detector_scores(model, tokens)  # (3, L, H)
    base, ablated = zero_ablation_loss(model, tokens, n)  # (), (L, H)
    rise = ablated - base  # (L, H)
    L, H = rise.shape
    rows, values = [], []
    for layer in range(L):
        for h in range(H):
            rows.append(f"L{layer}H{h}")
            values.append([round(float(scores[k, layer, h]), 6) for k in range(3)] + [round(float(rise[layer, h]), 6)])
    flat = scores[2].flatten()  # (L·H,)
    top = int(flat.argmax())
    chance, perfect = _chance_and_perfect(model, tokens)
    bar = chance + CLEARS * (perfect - chance)  # an induction head's score is at least this
    found = float(flat[top]) >= bar
    others = torch.cat([rise.flatten()[:top], rise.flatten()[top + 1 :]])  # (L·H − 1,)
    median = float(others.median()) if others.numel() else 0.0
    check = {"top": rows[top] if found else None, "score": float(flat[top]), "rise": float(rise.flatten()[top]),
             "median_rise": median, "base_loss": base, "chance": chance, "perfect": perfect, "bar": bar,
             "n": n, "batch": batch, "seed": seed}  # fmt: skip
    notes = [
        t(
            "read from {batch} random sequences of {n} tokens each "
            "repeated once (seed {seed}); a score is the share of the "
            "head's attention on the cells that kind looks at.",
            batch=batch,
            n=n,
            seed=seed,
        ),
        t(
            "chance: a head attending evenly scores {chance:.3f} on "
            "induction here, a perfect induction head {perfect:.3f}; a "
            "head counts as an induction head from {bar:.3f} (a quarter "
            "of the way).",
            chance=chance,
            perfect=perfect,
            bar=bar,
        ),
    ]
    if found:
        way = (
            N_(
                "causal check: zero-ablating {head} (induction score "
                "{score:.3f}) raises the loss on the repeated half by "
                "{rise:.4f} (from {base:.4f}); the median other head's "
                "change: {median:+.4f}."
            )
            if check["rise"] >= 0
            else N_(
                "causal check: zero-ablating {head} (induction score "
                "{score:.3f}) lowers the loss on the repeated half by "
                "{rise:.4f} (from {base:.4f}); the median other head's "
                "change: {median:+.4f}."
            )
        )
        notes.append(t(way, head=rows[top], score=check["score"], rise=abs(check["rise"]),
                       median=median, base=base))  # fmt: skip
    else:
        notes.append(
            t(
                "no induction head found: the highest induction score, {head}'s {score:.3f}, is under {bar:.3f}.",
                head=rows[top],
                score=check["score"],
                bar=bar,
            )
        )
    columns = [t(HEAD_COLUMNS[k]) for k in (*DETECTORS, "ablation")]
    return Grid(t("head detectors and the ablation check"), rows, columns, values, notes, check)


def attribution_view(model, tokenizer, ids: torch.Tensor, answer: int, wrong: int | None) -> Grid:
    """The direct logit attribution of answer − wrong at the last position; without `wrong`, the
    model's most likely token other than the answer stands in for it."""
    from glassformer.inspect.trace import token_labels

    if wrong is None:
        with torch.no_grad():
            last = model(ids)[0, -1].clone()  # (V,)
        last[answer] = -float("inf")
        wrong = int(last.argmax())
    la = _logit_attribution(model, ids, answer, wrong)
    rows = [*la.parts, t("bias (norm β, head bias)")]
    values = [[round(v, 6)] for v in la.parts.values()] + [[round(la.bias, 6)]]
    total = sum(la.parts.values()) + la.bias
    a, w = token_labels([answer, wrong], tokenizer)
    notes = [
        t(
            "the parts and bias sum to {total:.6f}; the model's logit "
            "difference {answer!r} − {wrong!r} is {diff:.6f} (final "
            "norm's scale frozen at {scale:.4f}).",
            total=total,
            diff=la.logit_diff,
            scale=la.scale,
            answer=a,
            wrong=w,
        )
    ]
    return Grid(
        t("direct logit attribution of {answer!r} against {wrong!r}", answer=a, wrong=w),
        rows,
        [t("contribution")],
        values,
        notes,
        {
            "answer": answer,
            "wrong": wrong,
            "logit_diff": la.logit_diff,
            "bias": la.bias,
            "scale": la.scale,
            "sum": total,
        },
    )


# ------------------------------------------------------------------ drawing
def text_table(grid: Grid) -> str:
    """The grid as aligned text (terminal columns counted, so Chinese labels line up)."""
    from glassformer.messages import columns, pad, pad_left

    first = max([columns(r) for r in grid.rows] + [1]) + 2
    width = max([columns(c) for c in grid.columns] + [7]) + 1
    lines = [grid.title, pad("", first) + "".join(pad_left(c, width) for c in grid.columns)]
    for r, vals in zip(grid.rows, grid.values, strict=True):
        lines.append(pad(r, first) + "".join(pad_left(f"{v:.3f}", width) for v in vals))
    return "\n".join(lines + grid.notes)


def grid_png(grid: Grid, path) -> Path:
    """A heatmap of the grid, values written in the cells, a diverging colour centred on 0."""
    from matplotlib.figure import Figure

    from glassformer.inspect.attention_maps import _fonted, _save

    font, (rows, cols, (title,), notes) = _fonted([grid.rows, grid.columns, [grid.title], grid.notes])
    values = torch.tensor(grid.values, dtype=torch.float64)  # (R, C)
    R, C = values.shape
    below = "\n".join(textwrap.fill(n, 100) for n in notes)  # the gap, the legend, the chance line
    fig = Figure(
        figsize=(max(1.8 + 0.55 * C + 0.08 * max(map(len, rows)), 6.0), 1.2 + 0.42 * R + 0.12 * below.count("\n")),
        layout="constrained",
    )
    ax = fig.subplots()
    bound = max(1.0, float(values.abs().max())) if values.numel() else 1.0
    im = ax.imshow(values.numpy(), cmap="RdBu_r", vmin=-bound, vmax=bound, aspect="auto", interpolation="nearest")
    ax.set_xticks(range(C), cols, fontproperties=font, fontsize=8, rotation=90 if max(map(len, cols)) > 3 else 0)
    ax.set_yticks(range(R), rows, fontproperties=font, fontsize=8)
    if R * C <= 400:
        for i in range(R):
            for j in range(C):
                v = float(values[i, j])
                ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=6,
                        color="white" if abs(v) > 0.6 * bound else "black")  # fmt: skip
    ax.set_title(title, fontproperties=font, fontsize=9)
    fig.colorbar(im, ax=ax, shrink=0.8)
    if below:  # what the numbers mean, under the picture
        fig.supxlabel(below, fontproperties=font, fontsize=6, ha="left", x=0.01)
    return _save(fig, path)


def _colour(v: float, bound: float) -> str:
    """Blue (negative) — white (0) — red (positive), as the PNG's colour map runs."""
    x = max(-1.0, min(1.0, v / bound))
    a, b = (255, int(255 * (1 - x))) if x > 0 else (int(255 * (1 + x)), 255)
    return f"rgb({a},{min(a, b)},{b})"


def grid_html(grid: Grid, path) -> Path:
    """The grid as one offline HTML page: a table with coloured cells; no script, no URL."""
    from glassformer.fonts import SANS, embedded_css, html_lang
    from glassformer.inspect.display import esc

    bound = max([1.0] + [abs(v) for row in grid.values for v in row])
    head = "".join(f"<th>{esc(c)}</th>" for c in grid.columns)
    body = "".join(
        f"<tr><th>{esc(r)}</th>"
        + "".join(f'<td style="background:{_colour(v, bound)}" title="{v:.6f}">{v:.3f}</td>' for v in vals)
        + "</tr>"
        for r, vals in zip(grid.rows, grid.values, strict=True)
    )
    notes = "".join(f"<p>{esc(n)}</p>" for n in grid.notes)
    words = "".join([grid.title, *grid.rows, *grid.columns, *grid.notes])
    page = (  # the shipped font inside the page, cut to its characters: Chinese draws without a CJK font
        f'<!doctype html><html lang="{html_lang()}"><head><meta charset="utf-8"><title>'
        + esc(grid.title)
        + f"</title><style>{embedded_css(words)}body{{font-family:{SANS};margin:1.2em}}"
        "table{border-collapse:collapse;font-size:12px}td,th{padding:3px 6px;text-align:right;"
        "border:1px solid #eee;white-space:pre}</style></head><body>"
        f"<h3>{esc(grid.title)}</h3><table><thead><tr><th></th>{head}</tr></thead><tbody>{body}</tbody></table>"
        f"{notes}</body></html>"
    )
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page, encoding="utf-8")
    return path


def write_all(grid: Grid, out: Path, stem: str) -> list[Path]:
    """PNG, HTML and JSON of the grid under `out`; returns the paths."""
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{stem}.json").write_text(grid.to_json() + "\n", encoding="utf-8")
    return [grid_png(grid, out / f"{stem}.png"), grid_html(grid, out / f"{stem}.html"), out / f"{stem}.json"]
