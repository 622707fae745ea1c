"""Why does my model repeat itself? The microscope of `glassformer repeats RUN --prompt …`.

The model writes greedily from the prompt (sample.generate_ids at temperature 0, the decoding that
degenerates most: Holtzman et al. 2020) and inspect/repetition.find_loop finds the loop its text
ends in, period p from position s. Then, at that loop, with the text given (teacher forcing):

    heads     every head's previous-token, duplicate-token (copy) and induction score on the text
              itself (causal.detectors, through causal_views): an induction head at a token of the
              loop looks at the token after that token's previous occurrence, and so copies the loop
              on. The heads whose induction score clears `glassformer heads`' bar (a quarter of the
              way from an even head's score to a perfect one's) are named, the strongest first; none
              when the text cannot tell them apart (a perfect head under MIN_CONTRAST above an even one).
    causal    the probability of continuing the loop: the mean probability the model gives each
              token of the loop's second and later copies. Each head zeroed alone
              (causal_views.head_ablation, the `heads` verb's check), and the named heads zeroed
              together — and the text the model then writes greedily: its loop, its seq-rep-4.
    lens      where the loop first repeats (position s + p − 1, which predicts the first token of
              the second copy), each block's residual stream read through the model's own final norm
              and head (panels.readout: the explorer's logit lens): the top candidates, the loop
              token's probability, and the logit gap between the first two. A gap under NEAR_TIE
              nats is a near tie: there greedy decoding's pick hangs on a small difference.
    control   a prompt that does not loop, written and measured the same way, with and without the
              named heads zeroed.

Two Grids come back (causal_views' table, drawn as PNG, offline HTML, JSON and a text table by the
same functions as the `heads` verb's), the figures a test reads in their `extra`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import asdict

import torch

from glassformer.errors import UsageError
from glassformer.explore.panels import readout
from glassformer.inspect.causal_views import (
    CLEARS,
    Grid,
    _chance_and_perfect,
    _detector_scores,
    check_model,
    head_ablation,
)
from glassformer.inspect.repetition import MIN_REPEATS, MIN_SPAN, Loop, find_loop, seq_rep_n
from glassformer.inspect.trace import token_labels
from glassformer.messages import N_, speaking, t
from glassformer.sample import generate_ids

NEAR_TIE = 0.5  # nats: top-1 and top-2 logits closer than this (odds under 1.65 to 1) are a near tie
TOP = 3  # candidates the lens shows at each layer
MOST_NAMED = 3  # heads named and zeroed together, at most
REP_N = 4  # seq-rep-4, as Welleck et al. report it
# A perfect induction head must score at least this much above an evenly attending one on the text for
# the scores to say anything: on a loop of one repeated token every head attends to copies of it, the
# two reference scores nearly meet (0.926 against 0.984 on a zh-poems run's run of spaces) and every
# head "clears" a bar set a quarter of the way between them. Below it, no head is named.
MIN_CONTRAST = 0.25


def prompt_ids(model, tokenizer, text: str, flag: str) -> list[int]:
    """The prompt's ids, refused when empty or when it leaves the model no room for a loop (MIN_SPAN
    tokens of its context): the whole text must fit one forward pass to be looked at."""
    ids = tokenizer.encode(text)
    if not ids:
        raise UsageError("cview.empty", "{flag} is empty after tokenizing; give it some text.", flag=flag)
    L = model.cfg.max_len
    if len(ids) > L - MIN_SPAN:
        raise UsageError(
            "repeats.too_long",
            "{flag} has {n} tokens; the model reads {max_len}, and a "
            "loop needs {room} more to be seen: give at most {most} "
            "tokens.",
            flag=flag,
            n=len(ids),
            max_len=L,
            room=MIN_SPAN,
            most=L - MIN_SPAN,
        )
    return ids


def zero_heads(
    n_heads: int, heads: Iterable[tuple[int, int]], z_point: Callable[[int], str] = "blocks.{}.attn.z".format
) -> dict:
    """Hooks on each layer's heads' outputs z (B, H, T, D), named by z_point(layer), that zero these
    (layer, head) pairs at every position and any T (so they hold while a text is written, a KV cache
    or not). The explorer's head ablation is this too."""
    heads = list(heads)
    hooks = {}
    for layer in sorted({lay for lay, _ in heads}):
        keep = torch.ones(n_heads)  # (H,)
        keep[[h for lay, h in heads if lay == layer]] = 0.0
        hooks[z_point(layer)] = lambda z, name, keep=keep: z * keep.to(z)[:, None, None]  # (B, H, T, D) · (H, 1, 1)
    return hooks


def write_greedily(model, ids: list[int], n: int, hooks: dict | None = None) -> list[int]:
    """n tokens written greedily after ids (sample.generate_ids, the one sampling path), hooks attached."""
    x = torch.tensor([ids], device=next(model.parameters()).device)  # (1, T0)
    with model.hooks_attached(hooks or {}):
        return [int(i) for i in generate_ids(model, x, n, temperature=0)]


def loop_probability(start: int, period: int, x: torch.Tensor):
    """A metric for head_ablation: logits (N, T, V) -> (N,), the mean probability of each token of
    the loop's second and later copies (x (1, T) positions start + period .. T − 1), given the text."""
    targets = x[0, start + period :]  # (K,)

    def metric(logits: torch.Tensor) -> torch.Tensor:
        probs = logits[:, start + period - 1 : -1].softmax(-1)  # (N, K, V)
        return probs.gather(-1, targets.expand(probs.shape[0], -1)[..., None])[..., 0].mean(1)  # (N,)

    return metric


def _loop_words(loop: Loop | None) -> str:
    if loop is None:
        return t("no loop")
    return t(
        "a loop of period {period}, {span!r}, {repeats:.1f} copies",
        period=loop.period,
        span=loop.text,
        repeats=loop.repeats,
    )


def _loop_json(loop: Loop | None) -> dict | None:
    return None if loop is None else {k: v for k, v in asdict(loop).items() if k != "span"} | {"span": list(loop.span)}


def repeats_view(model, tokenizer, prompt: str, control: str | None = None, max_new_tokens: int | None = None):
    """(heads Grid, lens Grid): the loop greedy decoding falls into after `prompt`, and the mechanism
    at it (module docstring). A prompt whose greedy text ends in no loop is refused, naming the fix."""
    check_model(model, "repeats")
    ids = prompt_ids(model, tokenizer, prompt, "--prompt")
    c_ids = prompt_ids(model, tokenizer, control, "--control") if control is not None else None  # refused first
    room = model.cfg.max_len - len(ids)
    n = room if max_new_tokens is None else min(max_new_tokens, room)
    new = write_greedily(model, ids, n)
    loop = find_loop(new, tokenizer)
    if loop is None:
        raise UsageError(
            "repeats.no_loop",
            "greedy decoding wrote {n} tokens after --prompt that end in "
            "no loop (at least {repeats} copies of a span covering "
            "{span} tokens or more); try another prompt, or see "
            "repetition at work with `glassformer eval`.",
            n=len(new),
            repeats=MIN_REPEATS,
            span=MIN_SPAN,
        )
    x = torch.tensor([ids + new], device=next(model.parameters()).device)  # (1, T)
    start = len(ids) + loop.start  # where the loop starts in the whole text

    # heads: the detectors on the text itself, and the bar of `glassformer heads`
    scores = _detector_scores(model, x)  # (3, L, H) previous, duplicate, induction
    chance, perfect = _chance_and_perfect(model, x)
    bar = chance + CLEARS * (perfect - chance)
    L, H = scores.shape[1:]
    induction = scores[2].flatten()  # (L·H,)
    order = [int(i) for i in induction.argsort(descending=True)]
    readable = perfect - chance >= MIN_CONTRAST  # can this text tell an induction head from an even one?
    named = [divmod(i, H) for i in order if readable and float(induction[i]) >= bar][:MOST_NAMED]

    # causal: each head alone, then the named heads together
    metric = loop_probability(start, loop.period, x)
    base, alone = head_ablation(model, x, metric)  # (), (L, H)
    figures: dict = {"loop": _loop_json(loop), "loop_start": start, "named": [list(h) for h in named],
                     "bar": bar, "chance": chance, "perfect": perfect, "readable": readable, "loop_p": base,
                     "seq_rep": seq_rep_n(new, REP_N)}  # fmt: skip
    rows, values = [], []
    for layer in range(L):
        for h in range(H):
            rows.append(f"L{layer}H{h}")
            values.append(
                [round(float(scores[k, layer, h]), 6) for k in range(3)] + [round(float(alone[layer, h] - base), 6)]
            )
    notes = [
        t(
            "greedy decoding wrote {n} tokens: {loop}, from token "
            "{start} of what it wrote; given the text, the model "
            "continues the loop with probability {p:.3f} on average.",
            start=loop.start,
            loop=_loop_words(loop),
            n=len(new),
            p=base,
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
    names = ", ".join(f"L{a}H{b}" for a, b in named)
    if named:
        hooks = zero_heads(model.cfg.n_heads, named)
        with torch.no_grad():
            after = float(metric(model.run_with_hooks(x, hooks=hooks)).mean())
        rewritten = write_greedily(model, ids, n, hooks)
        loop_after = find_loop(rewritten, tokenizer)
        figures |= {"loop_p_ablated": after, "seq_rep_ablated": seq_rep_n(rewritten, REP_N),
                    "loop_ablated": _loop_json(loop_after)}  # fmt: skip
        notes.append(
            t(
                "heads that look at the token after the previous occurrence (induction score >= {bar:.3f}): {heads}.",
                heads=names,
                bar=bar,
            )
        )
        notes.append(
            t(
                "causal test: with {heads} zeroed, the probability of "
                "continuing the loop goes from {before:.3f} to {after:.3f}; "
                "the greedy text then has seq-rep-4 {rep_after:.3f} (was "
                "{rep_before:.3f}) and {loop}.",
                heads=names,
                before=base,
                after=after,
                rep_before=figures["seq_rep"],
                rep_after=figures["seq_rep_ablated"],
                loop=_loop_words(loop_after),
            )
        )
    elif not readable:
        notes.append(
            t(
                "on this text a perfect induction head scores only "
                "{gain:.3f} above an evenly attending one (less than "
                "{contrast}): the detectors cannot tell the heads apart "
                "here (a loop of one repeated token, say), so none is "
                "named; the column Δp(loop) still shows what zeroing each "
                "head does.",
                gain=perfect - chance,
                contrast=MIN_CONTRAST,
            )
        )
    else:
        top = order[0]
        notes.append(
            t(
                "no head's induction score reaches {bar:.3f} (the highest: "
                "{head}, {score:.3f}): by the detectors no head here copies "
                "the previous occurrence; the column Δp(loop) shows which "
                "heads the loop leans on all the same.",
                head=f"L{top // H}H{top % H}",
                score=float(induction[top]),
                bar=bar,
            )
        )

    if c_ids is not None:
        c_n = min(n, model.cfg.max_len - len(c_ids))
        c_new = write_greedily(model, c_ids, c_n)
        c_loop = find_loop(c_new, tokenizer)
        figures["control"] = {"loop": _loop_json(c_loop), "seq_rep": seq_rep_n(c_new, REP_N)}
        notes.append(
            t(
                "control prompt: greedy decoding writes {loop}, seq-rep-4 {rep:.3f}.",
                loop=_loop_words(c_loop),
                rep=figures["control"]["seq_rep"],
            )
        )
        if named:
            c_after = write_greedily(model, c_ids, c_n, zero_heads(model.cfg.n_heads, named))
            figures["control"] |= {"loop_ablated": _loop_json(find_loop(c_after, tokenizer)),
                                   "seq_rep_ablated": seq_rep_n(c_after, REP_N)}  # fmt: skip
            notes.append(
                t(
                    "control prompt with {heads} zeroed: {loop}, seq-rep-4 {rep:.3f}.",
                    heads=names,
                    rep=figures["control"]["seq_rep_ablated"],
                    loop=_loop_words(find_loop(c_after, tokenizer)),
                )
            )
    columns = [t("previous"), t("duplicate"),
               t("induction"), t("Δp(loop)")]  # fmt: skip
    heads = Grid(
        t("the heads at the loop: detector scores on the text, and each head zeroed"),
        rows,
        columns,
        values,
        notes,
        _finite(figures),
    )
    return heads, lens_view(model, tokenizer, x, start + loop.period - 1)


def lens_view(model, tokenizer, x: torch.Tensor, pos: int) -> Grid:
    """The logit lens at position pos of x (1, T): after each block, the top TOP candidates for the
    token at pos + 1 (the loop's), that token's probability and the top-two logit gap."""
    L = model.cfg.n_layers
    names = [f"blocks.{i}.resid_post" for i in range(L)]
    with torch.no_grad():
        _, cache = model.run_with_cache(x, names=names)
        h = torch.stack([cache[name][0, pos] for name in names])  # (L, C)
        logits = readout(model)(h)  # (L, V)
    probs = logits.softmax(-1)  # (L, V)
    top = logits.topk(min(TOP, logits.shape[-1]), dim=-1)  # (L, k), (L, k)
    gap = top.values[:, 0] - top.values[:, 1]  # (L,)
    token = int(x[0, pos + 1])
    rows, values = [], []
    for layer in range(L):
        rows.append(f"L{layer}  " + " · ".join(token_labels(top.indices[layer].tolist(), tokenizer)))
        values.append([round(float(probs[layer, token]), 6)]
                      + [round(float(probs[layer, i]), 6) for i in top.indices[layer].tolist()]
                      + [round(float(gap[layer]), 6)])  # fmt: skip
    ties = [f"L{i}" for i in range(L) if float(gap[i]) < NEAR_TIE]
    (label,) = token_labels([token], tokenizer)
    near = (
        t("near ties at {layers}: there greedy decoding's pick hangs on a small difference.", layers=", ".join(ties))
        if ties
        else t("no near tie at any layer: the pick is clear.")
    )
    notes = [
        t(
            "after each block, at token {pos}, which predicts the first "
            "token of the loop's second copy, {token}; a near tie: the "
            "two top logits within {near} nats.",
            pos=pos,
            token=label,
            near=NEAR_TIE,
        ),
        near,
    ]
    ranked = [t("p(1st)"), t("p(2nd)"), t("p(3rd)")]
    columns = [t("p(loop)"), *ranked[: top.indices.shape[1]], t("logit gap")]
    return Grid(
        t("logit lens where the loop first repeats"),
        rows,
        columns,
        values,
        notes,
        {
            "position": pos,
            "token": token,
            "near_ties": ties,
            "gap": [float(g) for g in gap],
            "top": top.indices.tolist(),
            "loop_token_p": [float(p) for p in probs[:, token]],
        },
    )


def _finite(figures):
    """NaN (a measure of a text too short for it) as None, so the JSON stays JSON."""
    if isinstance(figures, dict):
        return {k: _finite(v) for k, v in figures.items()}
    if isinstance(figures, float) and math.isnan(figures):
        return None
    return figures


# ---- the explorer's repeats panel (static/repeats.js) ---------------------------------------------------
# its words, by the names the page asks for; explore/server.py serves them with the page's other words
PANEL_WORDS = {
    "repeats.title": N_("Why does it repeat itself?"),
    "repeats.help": N_(
        "Greedy decoding writes from the prompt until the context is "
        "full. If its text ends in a loop, the tables show what "
        "`glassformer repeats` shows: each head's previous-token, "
        "duplicate and induction scores on that text, how much zeroing "
        "each head changes the probability of continuing the loop "
        "(Δp), and the logit lens where the loop first repeats. The "
        "control prompt is written and measured the same way."
    ),
    "repeats.prompt": N_("prompt"),
    "repeats.control": N_("control prompt (one that does not loop)"),
    "repeats.look": N_("Look"),
    "knobs.repetition_penalty": N_("repetition penalty (1 = off)"),
    "knobs.frequency_penalty": N_("frequency penalty"),
    "knobs.presence_penalty": N_("presence penalty"),
    "knobs.no_repeat_ngram": N_("no-repeat n-gram (0 = off)"),
    "knobs.min_p": N_("min-p"),
    "knobs.typical_p": N_("typical-p (1 = off)"),
}


def panel(ex, req: dict) -> dict:
    """The explorer's answer for the repeats panel: repeats_view's two Grids as they are (nothing
    recomputed for the page), their words in the page's language. A prompt the view refuses (longer
    than the context allows, empty, no loop) is the request's fault: HTTP 422 with the view's code."""
    from glassformer.explore.requests import RequestError

    try:
        with speaking(req["lang"]):
            heads, lens = repeats_view(
                ex.model, ex.tokenizer, req["text"] or "", req["control"] or None, req["max_new_tokens"] or None
            )
    except UsageError as e:
        raise RequestError(e.code, e.message, 422, "bad_prompt", **e.fields) from None
    return {"heads": _finite(asdict(heads)), "lens": _finite(asdict(lens))}


# ---- the sweep: repetition against each knob, on the user's run --------------------------------------
# Each knob's values, its "off" value first (every knob's off value gives the same text: one baseline).
SWEEP: dict[str, tuple] = {
    "repetition_penalty": (1.0, 1.1, 1.2, 1.5, 2.0),
    "frequency_penalty": (0.0, 0.2, 0.5, 1.0, 2.0),
    "presence_penalty": (0.0, 0.2, 0.5, 1.0, 2.0),
    "no_repeat_ngram": (None, 6, 4, 3, 2),
    "min_p": (0.0, 0.02, 0.05, 0.1, 0.2),
    "typical_p": (1.0, 0.95, 0.9, 0.5, 0.2),
}
SWEEP_N = 2  # distinct-2 beside seq-rep-4: how varied, how repetitive


def draw_rows(
    model, ids: list[int], n: int, samples: int, temperature: float, seed: int, knobs=None
) -> list[list[int]]:
    """`samples` continuations of ids, n tokens each, as `sample.sample` draws them: one batch, one
    torch.Generator seeded with `seed`, through sample.generate_ids with these knobs."""
    device = next(model.parameters()).device
    generator = torch.Generator(device=device).manual_seed(seed)
    x = torch.tensor([ids] * samples, device=device)  # (N, T0)
    rows: list[list[int]] = [[] for _ in range(samples)]
    for step in generate_ids(model, x, n, temperature, generator=generator, knobs=knobs):  # (N,)
        for row, token in zip(rows, step.tolist(), strict=True):
            row.append(token)
    return rows


def sweep_view(model, tokenizer, prompt: str, samples: int = 8, max_new_tokens: int | None = None,
               temperature: float = 1.0, seed: int = 0) -> Grid:  # fmt: skip
    """One row per (knob, value): the mean seq-rep-4 and distinct-2 of `samples` seeded samples (the
    same seed for every setting, so the settings differ only by the knob). eval_card's measures."""
    from glassformer.eval_card import sample_figures
    from glassformer.logits_processors import Knobs

    check_model(model, "repeats")
    ids = prompt_ids(model, tokenizer, prompt, "--prompt")
    room = model.cfg.max_len - len(ids)
    n = room if max_new_tokens is None else min(max_new_tokens, room)
    measured: dict[tuple, tuple[float, float]] = {}
    rows, values, series = [], [], {}
    for knob, settings in SWEEP.items():
        series[knob] = []
        for value in settings:
            knobs = Knobs(**{knob: value})
            if knobs not in measured:  # every "off" is Knobs(): drawn once
                figures = sample_figures(draw_rows(model, ids, n, samples, temperature, seed, knobs), tokenizer)
                measured[knobs] = (figures["seq_rep"][str(REP_N)], figures["distinct"][str(SWEEP_N)])
            rep, distinct = measured[knobs]
            rows.append(f"{knob}={'off' if value is None else value}")
            values.append([round(rep, 6), round(distinct, 6)])
            series[knob].append(["off" if value is None else value, rep, distinct])
    notes = [
        t(
            "{samples} samples of {n} tokens per setting, temperature "
            "{temperature}, seed {seed} (the same for every setting); "
            "each knob moved alone from its off value, the others off.",
            samples=samples,
            n=n,
            temperature=temperature,
            seed=seed,
        )
    ]
    columns = [f"seq-rep-{REP_N}", f"distinct-{SWEEP_N}"]
    return Grid(t("repetition against each knob"), rows, columns, values, notes, _finite({"series": series}))


def sweep_png(grid: Grid, path):
    """One panel per knob: seq-rep-4 and distinct-2 against the knob's values (its off value first)."""
    from matplotlib.figure import Figure

    from glassformer.inspect.attention_maps import _fonted, _save

    series = grid.extra["series"]
    font, ((title,), notes) = _fonted([[grid.title], grid.notes])
    fig = Figure(figsize=(11, 6.5), layout="constrained")
    axes = fig.subplots(2, 3, sharey=True).flatten()
    for ax, (knob, points) in zip(axes, series.items(), strict=True):
        x = range(len(points))
        for k, column in ((1, grid.columns[0]), (2, grid.columns[1])):
            ax.plot(x, [p[k] if p[k] is not None else float("nan") for p in points], marker="o", label=column)
        ax.set_xticks(list(x), [str(p[0]) for p in points], fontsize=8)
        ax.set_title(knob, fontsize=9)
        ax.set_ylim(0, 1)
    axes[0].legend(fontsize=8)
    fig.suptitle(title, fontproperties=font, fontsize=10)
    fig.supxlabel("\n".join(notes), fontproperties=font, fontsize=7)
    return _save(fig, path)
