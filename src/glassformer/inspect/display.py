"""How the views show themselves in a notebook: HTML tables for Jupyter's rich display.

Jupyter calls an object's `_repr_html_()` to show it; the classes of this package (Trace,
ParamTable, GradientMonitor, AttentionView) answer with one of the functions below, and keep a
plain-text `repr` for a terminal. Every piece of text is HTML-escaped (a token can be "<script>"),
the style is inline (a notebook page has no stylesheet of ours), and nothing is loaded from
anywhere: no CDN, no URL.
"""

from __future__ import annotations

import html
import math

import torch

from glassformer.inspect.words import describe
from glassformer.messages import N_, language, t, translated
from glassformer.nn.hooks import ActivationCache, HookPoint

MONO = "font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; white-space: pre"
TABLE = "border-collapse: collapse; font-size: 12px; margin: 0.4em 0"
CELL = "padding: 2px 8px; border-bottom: 1px solid #e5e5e5; text-align: left; vertical-align: top"


def esc(value) -> str:
    """Any value as HTML-safe text (quotes included, so it is safe inside attributes too)."""
    return html.escape(str(value), quote=True)


def table(columns, rows, mono=(), right=(), row_styles=None, caption: str = "") -> str:
    """An HTML table of text cells; `mono`/`right` are column indices drawn monospaced/right-aligned.
    Cells are escaped here, except those wrapped in `Raw` (already HTML, made by this module)."""

    def cell(tag: str, i: int, value) -> str:
        style = (
            CELL + ("; " + MONO if i in mono and tag == "td" else "") + ("; text-align: right" if i in right else "")
        )
        text = value.html if isinstance(value, Raw) else esc(value)
        return f'<{tag} style="{style}">{text}</{tag}>'

    head = "".join(cell("th", i, c) for i, c in enumerate(columns))
    body = []
    for n, row in enumerate(rows):
        style = f' style="{row_styles[n]}"' if row_styles and row_styles[n] else ""
        body.append(f"<tr{style}>" + "".join(cell("td", i, v) for i, v in enumerate(row)) + "</tr>")
    cap = f'<caption style="caption-side: top; text-align: left">{esc(caption)}</caption>' if caption else ""
    return f'<table style="{TABLE}">{cap}<thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'


class Raw:
    """A table cell that is already HTML (made from escaped parts by this module)."""

    def __init__(self, html_text: str) -> None:
        self.html = html_text


def note(text: str) -> str:
    return f'<div style="color: #555; font-size: 12px">{esc(text)}</div>'


# ------------------------------------------------------------------ one function per view
def trace_html(trace) -> str:
    """The trace table: stage, name, shape, named dims, first numbers, meaning; the letters below."""
    return table(trace.COLUMNS, trace._cells(), mono=(1, 2, 3, 4)) + note(trace.legend())


# the parameter table's columns, in the text table (inspect/params.py) and the notebook's
PARAM_COLUMNS = (
    N_("module"),
    N_("params"),
    N_("formula"),
    N_("= formula"),
    N_("note"),
)


def params_html(p) -> str:
    """The parameter table: computed count beside the module's own formula; mismatches in red."""
    rows = [
        [
            r.module,
            f"{r.count:,}",
            r.formula,
            f"{r.expected:,}",
            r.note_in(language()) + ("  " + t("≠ formula!") if r.count != r.expected else ""),
        ]
        for r in p.rows
    ]
    styles = ["" if r.count == r.expected else "background: #fde2e2" for r in p.rows]
    rows.append([t("total"), f"{p.total:,}", "", f"{p.expected_total:,}", ""])
    styles.append("font-weight: bold")
    symbols = ", ".join(f"{k}={v}" for k, v in p.symbols.items())
    return table([t(k) for k in PARAM_COLUMNS], rows, mono=(0, 2), right=(1, 3), row_styles=styles) + note(
        t("symbols: {symbols}", symbols=symbols)
    )


STATUS_COLOUR = {
    "ok": "#2e7d32",
    "no grad": "#777",
    "vanishing": "#b26a00",
    "exploding": "#c62828",
    "nan/inf": "#c62828",
}


STATUS_WORDS = {  # a gradient row's status as a reader sees it
    "ok": N_("ok"),
    "no grad": N_("no grad"),
    "vanishing": N_("vanishing"),
    "exploding": N_("exploding"),
    "nan/inf": N_("nan/inf"),
}


def status_words(status: str) -> str:
    """A gradient row's status ("no grad", "nan/inf" ...) in the process's language."""
    return t(STATUS_WORDS[status]) if status in STATUS_WORDS else status


def grads_html(monitor) -> str:
    """Gradient flow: one row per parameter with a bar for its gradient norm (log scale)."""
    if not monitor.rows:
        return note(
            t(
                "GradientMonitor: nothing checked yet. Call loss.backward(), "
                "then monitor.check() (or use inspect.gradient_flow(model, "
                "ids))."
            )
        )
    logs = [math.log10(r.grad_norm) for r in monitor.rows if r.grad_norm and math.isfinite(r.grad_norm)]
    low, high = (min(logs), max(logs)) if logs else (0.0, 1.0)

    def bar(norm) -> Raw:
        if not norm or not math.isfinite(norm):
            return Raw(esc("—" if norm is None else f"{norm:.2e}"))
        width = 8 + 92 * (math.log10(norm) - low) / max(high - low, 1e-9)  # 8..100 px
        return Raw(
            f'<span style="display: inline-block; width: {width:.0f}px; height: 9px; '
            f'background: #4c72b0; margin-right: 6px"></span>{esc(f"{norm:.2e}")}'
        )

    fmt = lambda v: "—" if v is None else f"{v:.2e}"  # noqa: E731
    rows = [
        [
            r.name,
            r.layer,
            str(r.shape),
            bar(r.grad_norm),
            fmt(r.grad_abs_mean),
            fmt(r.update_ratio),
            Raw(f'<span style="color: {STATUS_COLOUR.get(r.status, "#000")}">{esc(status_words(r.status))}</span>'),
        ]
        for r in monitor.rows
    ]
    layers = ", ".join(f"{k} {v:.2e}" for k, v in monitor.layer_norms().items())
    columns = [
        t("parameter"),
        t("layer"),
        t("shape"),
        t("‖grad‖ (bar: log scale)"),
        t("mean|g|"),
        t("upd/w"),
        t("status"),
    ]
    return table(columns, rows, mono=(0, 2, 4, 5)) + note(
        t("gradient norm per layer (input side first): {layers}", layers=layers)
    )


# ---- the activation cache (nn/hooks.py: run_with_cache) in a notebook ----------------------------------


def cache_html(cache: ActivationCache) -> str:
    """An ActivationCache as a table: each tensor's name, stage, named shape, meaning (from its hook
    point's declaration, worded in `cache.lang`), first numbers and mean ± std. Every text is escaped."""
    lang = cache.lang
    head = [
        translated(N_("name"), lang),
        translated(N_("stage"), lang),
        translated(N_("shape"), lang),
        translated(N_("means"), lang),
        translated(N_("first values"), lang),
        translated(N_("mean ± std"), lang),
    ]
    rows = [_cache_row(name, x, cache.points.get(name), cache.lang) for name, x in cache.items()]
    td = 'style="padding: 2px 8px; border-bottom: 1px solid #e5e5e5; text-align: left"'
    mono = td[:-1] + '; font-family: monospace"'
    body = "".join(
        "<tr>"
        + "".join(f"<td {mono if i in (0, 2, 4, 5) else td}>{html.escape(c)}</td>" for i, c in enumerate(row))
        + "</tr>"
        for row in rows
    )
    title = html.escape(translated(N_("ActivationCache: {n} tensors"), lang).format(n=len(cache)))
    return (
        f'<table style="border-collapse: collapse; font-size: 12px"><caption style="text-align: left">'
        f"{title}</caption><thead><tr>{''.join(f'<th {td}>{h}</th>' for h in head)}</tr></thead>"
        f"<tbody>{body}</tbody></table>"
    )


def _cache_row(name: str, x: torch.Tensor, point: HookPoint | None, lang: str) -> tuple[str, ...]:
    """One row of the cache's table: name, stage, named shape, meaning, first numbers, mean ± std."""
    d = describe(point, lang) if point is not None else {"stage": "", "axes": "", "means": ""}
    axes = d["axes"].split()
    named = len(axes) == x.dim()  # an unexpected layout shows plain sizes rather than wrong letters
    dims = ", ".join(f"{a}={n}" if named else str(n) for a, n in zip(axes if named else x.shape, x.shape, strict=False))
    flat = x.detach().float().reshape(-1)  # (numel,)
    first = ", ".join(f"{v:.3g}" for v in flat[:4].tolist()) + (", …" if flat.numel() > 4 else "")
    finite = flat[torch.isfinite(flat)]  # masked scores are -inf: the statistics are of the rest
    spread = f"{finite.mean().item():.3g} ± {finite.std().item():.3g}" if finite.numel() > 1 else first
    if finite.numel() < flat.numel():
        spread += translated(N_(" ({n} not finite)"), lang).format(n=flat.numel() - finite.numel())
    return name, d["stage"], f"({dims})", d["means"], f"[{first}]", spread


ActivationCache.html_view = cache_html  # the cache draws itself through this view
