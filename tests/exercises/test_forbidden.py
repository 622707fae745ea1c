"""Forbidden shortcuts are found by reading the learner's syntax tree, never by running it."""

from __future__ import annotations

import re
import textwrap

from helpers import en, in_catalogue, said, zh

from glassformer.exercises import catalog, grading
from glassformer.exercises.catalog import ATTENTION, LAYER_NORM, LINEAR, LOSS, SILU, SOFTMAX
from glassformer.exercises.grading.scanning import scan


def offences(tmp_path, source, rules, name="learner.py", **siblings):
    for sibling, text in siblings.items():
        (tmp_path / f"{sibling}.py").write_text(textwrap.dedent(text))
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return [(o.file, o.line, o.name, o.why) for o in scan(path, rules)]


def test_calls_imports_and_lookups_by_name_are_refused(tmp_path):
    found = offences(
        tmp_path,
        """
        import torch
        import torch.nn.functional as F
        from torch.nn.functional import softmax as sm
        def softmax(x, dim=-1):                  # defining it is the exercise
            a = torch.softmax(x, dim)            # line 6
            b = x.softmax(dim)                   # line 7
            c = getattr(F, "softmax")(x, dim)    # line 8
            d = vars(F)["log_softmax"](x, dim)   # line 9
            return a + b + c + d + sm(x, dim)
        """,
        (SOFTMAX,),
    )
    assert [(line, name) for _, line, name, _ in found] == [
        (4, "from torch.nn.functional import softmax"),
        (6, "torch.softmax"),
        (7, "x.softmax"),
        (8, "getattr(…, 'softmax')"),
        (9, "…['log_softmax']"),
    ]
    assert {why for *_, why in found} == {SOFTMAX.why}


def test_comments_docstrings_and_other_names_are_fine(tmp_path):
    source = '''
        """Unlike F.scaled_dot_product_attention or nn.MultiheadAttention, we write it out."""
        import math
        import torch
        def scaled_dot_product_attention(q, k, v, mask=None):  # not torch.softmax, not nn.LayerNorm
            activation = "linear"
            return torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.size(-1)), -1) @ v, None
        '''  # the learner's file: the input scanned, not words compared
    assert offences(tmp_path, source, (ATTENTION, LAYER_NORM)) == []


def test_glassformer_dynamic_code_and_star_imports_are_refused_everywhere(tmp_path):
    found = offences(
        tmp_path,
        """
        import glassformer.nn.attention
        from glassformer.numpy_ref import softmax
        from torch.nn.functional import *
        import importlib
        def f(x):
            return eval("x")
        """,
        (),
    )
    assert [line for _, line, _, _ in found] == [2, 3, 4, 5, 7]
    why = {line: why for _, line, _, why in found}
    # one reason for glassformer (lines 2, 3), one for the star import (4), one for dynamic code (5, 7)
    assert why[2] == why[3] and why[5] == why[7] and len({why[2], why[4], why[5]}) == 3
    rules = {r.why for name in catalog.ORDER for r in catalog.get(name).forbidden}
    assert all(in_catalogue(w) and w not in rules for w in why.values())  # its own words, in both languages


def test_the_learners_own_files_may_be_imported_and_are_scanned_too(tmp_path):
    found = offences(
        tmp_path,
        """
        import attention
        from heads import split_heads
        def multi_head_attention(x, w_qkv, b_qkv, w_out, b_out, n_heads, mask=None):
            return attention.scaled_dot_product_attention(x, x, x, mask)[0]   # the learner's own
        """,
        (ATTENTION,),
        name="multi_head_attention.py",
        attention="""
        import torch.nn.functional as F
        def scaled_dot_product_attention(q, k, v, mask=None):
            return F.scaled_dot_product_attention(q, k, v), None
        """,
        heads="def split_heads(x, n_heads):\n    return x\n",
    )
    assert found == [
        (
            "attention.py",
            4,
            "F.scaled_dot_product_attention",
            ATTENTION.why,
        )
    ]  # line 1 is blank


def test_a_refused_file_is_never_run_and_the_report_says_why(tmp_path):
    path = tmp_path / "feed_forward.py"
    path.write_text(
        "import torch.nn as nn\n\ndef feed_forward(x, w1, b1, w2, b2, activation='relu'):\n"
        "    layer = nn.Linear(4, 8)\n    return layer(x)\n"
    )
    rep = grading.check("feed_forward", path)
    assert rep.status == "forbidden" and rep.cases == []  # refused before any process started
    assert [(o.line, o.name) for o in rep.offences] == [(4, "nn.Linear")]
    for lang, words in (("en", en), ("zh", zh)):
        with said() as heard:
            text = grading.render(rep, lang)
        assert heard.carrying(path="feed_forward.py", line=4, name="nn.Linear", why=words(LINEAR.why))
        assert words(LINEAR.why) in text and bool(re.search("[\u4e00-\u9fff]", text)) == (lang == "zh")


def test_swiglu_refuses_pytorchs_silu_however_it_is_reached(tmp_path):
    found = offences(
        tmp_path,
        """
        import torch
        import torch.nn.functional as F
        def swiglu(x, w_gate, w_up, w_down):
            a = F.silu(x @ w_gate.T)                   # line 5
            b = torch.nn.SiLU()(x @ w_gate.T)          # line 6
            c = getattr(F, "silu")(x @ w_gate.T)       # line 7
            d = (x @ w_gate.T) * torch.sigmoid(x @ w_gate.T)  # allowed: SiLU written out
            return (a + b + c + d) @ w_down.T
        """,
        (SILU,),
    )
    assert [(line, why) for _, line, _, why in found] == [(5, SILU.why), (6, SILU.why), (7, SILU.why)]


def test_each_exercise_refuses_what_it_is_about():
    rules = {name: {r.why for r in catalog.get(name).forbidden} for name in catalog.ORDER}
    assert rules["softmax"] == {SOFTMAX.why}
    assert rules["layer_norm"] == rules["rms_norm"] == {LAYER_NORM.why}  # nn.RMSNorm is refused in both
    assert LINEAR.why in rules["feed_forward"]
    assert rules["swiglu"] == {LINEAR.why, SILU.why}
    for name in ("attention_scores", "attention", "multi_head_attention", "block", "kv_cache", "fruit", "gqa"):
        assert ATTENTION.why in rules[name], name
    assert LOSS.why in rules["loss"]
    assert len({SOFTMAX.why, LAYER_NORM.why, LINEAR.why, ATTENTION.why, LOSS.why, SILU.why}) == 6  # each its own reason


def test_the_fused_attention_and_safe_softmax_are_softmax_shortcuts(tmp_path):
    found = offences(
        tmp_path,
        """
        import torch
        import torch.nn.functional as F
        def softmax(x, dim=-1):
            eye = torch.eye(x.shape[-1], dtype=x.dtype)
            a = F.scaled_dot_product_attention(x.unsqueeze(-2), eye, eye, scale=1.0)  # line 6
            return torch._safe_softmax(x, dim) + a                                    # line 7
        """,
        (SOFTMAX,),
    )
    assert [(line, name, why) for _, line, name, why in found] == [
        (6, "F.scaled_dot_product_attention", SOFTMAX.why),
        (7, "torch._safe_softmax", SOFTMAX.why),
    ]
