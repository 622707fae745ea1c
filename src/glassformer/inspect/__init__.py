"""See inside a model, through its hook points' declarations only (never private attributes).

trace.py           trace(model, ids) -> Trace: every named tensor's stage, shape, axes, meaning
attention_maps.py  attention_grid_png / attention_head_png: heatmaps, masked cells hatched
                   (attention_map_list: an encoder-decoder's S×S, T×T and T×S maps)
attention_view.py  attention_html: a self-contained interactive viewer (no network); and
                   attention_view -> AttentionView: both at once, shown inline in a notebook
gradflow.py        GradientMonitor: per-parameter gradient norms, update ratios, warnings;
                   gradient_flow(model, ids): one measured look, the model left as it was
params.py          param_table (the modules' own formulas vs numel), flops_per_token, activation_memory;
                   first_use: the order a forward pass uses the modules in (the data flow, measured)
repetition.py      find_loop (the loop a generated text ends in), seq_rep_n, distinct_n, rep_l,
                   measure_repetition: how repetitive a generated text is
display.py         the HTML every view shows in a notebook (`_repr_html_`), all text escaped
fonts.py           a font that can draw the labels (Chinese included), or U+XXXX escapes
"""

from glassformer.errors import NoAttribute
from glassformer.inspect.attention_maps import (
    attention_grid_png,
    attention_head_png,
    attention_map_list,
    attention_maps,
)
from glassformer.inspect.attention_view import AttentionView, attention_html, attention_view
from glassformer.inspect.gradflow import GradientMonitor, GradientWarning, gradient_flow
from glassformer.inspect.params import activation_memory, flops_per_token, param_table
from glassformer.inspect.repetition import find_loop, measure_repetition
from glassformer.inspect.trace import Trace, print_shapes_once, token_labels, trace


def __getattr__(name):  # FontWarning lives with the font search, which imports matplotlib: lazily
    if name == "FontWarning":
        from glassformer.inspect.fonts import FontWarning

        return FontWarning
    raise NoAttribute("module.no_attribute", "module {module!r} has no attribute {name!r}", module=__name__, name=name)


__all__ = [
    "AttentionView",
    "FontWarning",
    "GradientMonitor",
    "GradientWarning",
    "Trace",
    "activation_memory",
    "attention_grid_png",
    "attention_head_png",
    "attention_html",
    "attention_map_list",
    "attention_maps",
    "attention_view",
    "find_loop",
    "flops_per_token",
    "gradient_flow",
    "measure_repetition",
    "param_table",
    "print_shapes_once",
    "token_labels",
    "trace",
]
