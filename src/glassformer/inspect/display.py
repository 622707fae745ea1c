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
        style = CELL + ("; " + MONO if i in mono and tag == "td" else "") + ("; text-align: right" if i in right else "")
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
def trace_html(t) -> str:
    """The trace table: stage, name, shape, named dims, first numbers, meaning; the letters below."""
    return table(t.COLUMNS, t._cells(), mono=(1, 2, 3, 4)) + note(t.legend())


def params_html(t) -> str:
    """The parameter table: computed count beside the module's own formula; mismatches in red."""
    rows = [[r.module, f"{r.count:,}", r.formula, f"{r.expected:,}",
             r.note + ("  ≠ formula!" if r.count != r.expected else "")] for r in t.rows]
    styles = ["" if r.count == r.expected else "background: #fde2e2" for r in t.rows]
    rows.append(["total", f"{t.total:,}", "", f"{t.expected_total:,}", ""])
    styles.append("font-weight: bold")
    symbols = ", ".join(f"{k}={v}" for k, v in t.symbols.items())
    return (table(("module", "params", "formula", "= formula", "note"), rows, mono=(0, 2), right=(1, 3),
                  row_styles=styles) + note(f"symbols: {symbols}"))


STATUS_COLOUR = {"ok": "#2e7d32", "no grad": "#777", "vanishing": "#b26a00", "exploding": "#c62828",
                 "nan/inf": "#c62828"}


def grads_html(monitor) -> str:
    """Gradient flow: one row per parameter with a bar for its gradient norm (log scale)."""
    if not monitor.rows:
        return note("GradientMonitor: nothing checked yet. Call loss.backward(), then monitor.check() "
                    "(or use inspect.gradient_flow(model, ids)).")
    logs = [math.log10(r.grad_norm) for r in monitor.rows if r.grad_norm and math.isfinite(r.grad_norm)]
    low, high = (min(logs), max(logs)) if logs else (0.0, 1.0)

    def bar(norm) -> Raw:
        if not norm or not math.isfinite(norm):
            return Raw(esc("—" if norm is None else f"{norm:.2e}"))
        width = 8 + 92 * (math.log10(norm) - low) / max(high - low, 1e-9)  # 8..100 px
        return Raw(f'<span style="display: inline-block; width: {width:.0f}px; height: 9px; '
                   f'background: #4c72b0; margin-right: 6px"></span>{esc(f"{norm:.2e}")}')

    fmt = lambda v: "—" if v is None else f"{v:.2e}"  # noqa: E731
    rows = [[r.name, r.layer, str(r.shape), bar(r.grad_norm), fmt(r.grad_abs_mean), fmt(r.update_ratio),
             Raw(f'<span style="color: {STATUS_COLOUR.get(r.status, "#000")}">{esc(r.status)}</span>')]
            for r in monitor.rows]
    layers = ", ".join(f"{k} {v:.2e}" for k, v in monitor.layer_norms().items())
    return (table(("parameter", "layer", "shape", "‖grad‖ (bar: log scale)", "mean|g|", "upd/w", "status"),
                  rows, mono=(0, 2, 4, 5))
            + note(f"gradient norm per layer (input side first): {layers}"))
