"""See inside a model, through its hook points' declarations only (never private attributes).

    trace.py           trace(model, ids) -> Trace: every named tensor's stage, shape, axes, meaning
    attention_maps.py  attention_grid_png / attention_head_png: heatmaps, masked cells hatched
    html.py            attention_html: a self-contained interactive viewer (no network)
    gradflow.py        GradientMonitor: per-parameter gradient norms, update ratios, warnings
    params.py          param_table (the modules' own formulas vs numel), flops_per_token, activation_memory
    flow.py            the order a forward pass uses the modules in (the data flow, measured)
    fonts.py           a font that can draw the labels (Chinese included), or U+XXXX escapes
"""

from glassformer.inspect.attention_maps import attention_grid_png, attention_head_png, attention_maps
from glassformer.inspect.gradflow import GradientMonitor, GradientWarning
from glassformer.inspect.html import attention_html
from glassformer.inspect.params import activation_memory, flops_per_token, param_table
from glassformer.inspect.trace import Trace, print_shapes_once, token_labels, trace


def __getattr__(name):  # FontWarning lives with the font search, which imports matplotlib: lazily
    if name == "FontWarning":
        from glassformer.inspect.fonts import FontWarning

        return FontWarning
    raise AttributeError(f"module 'glassformer.inspect' has no attribute {name!r}")


__all__ = [
    "FontWarning", "GradientMonitor", "GradientWarning", "Trace", "activation_memory",
    "attention_grid_png", "attention_head_png", "attention_html", "attention_maps",
    "flops_per_token", "param_table", "print_shapes_once", "token_labels", "trace",
]
