"""What a learner reads, pinned: the parameter table and the trace's words for a few model shapes.

The views say in words what a model's parameters and tensors are (the parameter table's notes, the
hook points' stages and meanings in English and Chinese, axis letters), looked up by id. Those
sentences are the teaching; a typo, a lost note or a note moved to the wrong row is a bug no numeric
test sees (mutation testing found dozens). So the text of each view is compared with an approved
copy in tests/inspect/snapshots/. Only words, shapes and formulas are pinned, never the example
numbers of a random init.

After an intended change of wording, regenerate the copies and review the diff:

    GLASSFORMER_UPDATE_SNAPSHOTS=1 python -m pytest tests/inspect/test_text_snapshots.py
"""

from __future__ import annotations

import difflib
import os
import re
from pathlib import Path

import pytest
import torch

from glassformer.config import ModelConfig
from glassformer.inspect import param_table, trace
from glassformer.models import build_model

SNAPSHOTS = Path(__file__).parent / "snapshots"
SMALL = dict(d_model=8, n_heads=2, d_ff=12, n_layers=2, max_len=6)
MODELS = {
    "gpt": ModelConfig(vocab_size=5, **SMALL),
    "gpt-heads-rotary-tied": ModelConfig(
        vocab_size=5, mha_style="heads", position="rotary", tie_weights=True, bias=False, **SMALL
    ),
    "gpt-alibi-post-nofinal": ModelConfig(vocab_size=5, position="alibi", norm="post", final_norm=False, **SMALL),
    "gpt-nope-nonorm": ModelConfig(vocab_size=5, position="none", norm="none", **SMALL),
    "encoder-sinusoidal": ModelConfig(
        kind="encoder", vocab_size=5, causal=False, position="sinusoidal", pad_id=0, **SMALL
    ),
    "regressor": ModelConfig(kind="regressor", d_in=2, d_out=3, position="sinusoidal", **SMALL),
    "seq2seq": ModelConfig(kind="seq2seq", vocab_size=5, pad_id=0, **SMALL),  # encoder, decoder, cross-attention
    "seq2seq-paper": ModelConfig(
        kind="seq2seq",
        vocab_size=5,
        pad_id=0,
        norm="post",
        final_norm=False,
        position="sinusoidal",
        share_embeddings=True,
        tie_weights=True,
        **SMALL,
    ),
}


def words(name: str) -> str:
    torch.manual_seed(0)
    model = build_model(MODELS[name])
    table = param_table(model)
    parts = [table.to_text(lang="en"), "", table.to_text(lang="zh"), ""]  # the same rows, the headers in each language
    for lang in ("en", "zh"):
        t = trace(model, model.example_input(1, 3), lang=lang)
        parts += [" | ".join((r.stage, r.name, r.dims, r.about)) for r in t.rows]
        parts += [t.legend(), ""]
    collapsed = trace(model, model.example_input(1, 3), collapse=True).rows  # blocks 1.. as one row each
    parts += [
        " | ".join((r.stage, r.name, r.dims, r.about)) for r in collapsed if r.name.split(".")[1:2] == ["1"]
    ]  # blocks.1.*, or encoder.1.* and decoder.1.* of a seq2seq
    return "\n".join(parts)


@pytest.mark.parametrize("name", list(MODELS))
def test_the_words_a_learner_reads_are_the_approved_ones(name):
    path = SNAPSHOTS / f"{name}.txt"
    now = words(name)
    if os.environ.get("GLASSFORMER_UPDATE_SNAPSHOTS"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(now, encoding="utf-8")
    approved = path.read_text(encoding="utf-8")
    diff = "\n".join(difflib.unified_diff(approved.splitlines(), now.splitlines(), "approved", "now", lineterm=""))
    assert now == approved, f"{name}: the text differs from {path} (if intended, see this file's docstring):\n{diff}"


def test_markdown_escapes_pipes_and_newlines_inside_cells():
    from glassformer.inspect.trace import COLUMNS, Trace, TraceRow
    from glassformer.messages import translated

    md = Trace([TraceRow("bias", "alibi", (2, 3), "(H=2, T=3)", "[1]", "-m·|i - j|\nadded")]).to_markdown()
    head, rule, row = md.splitlines()[:3]
    assert head == "| " + " | ".join(translated(k, "en") for k in COLUMNS) + " |" and rule == "|" + "---|" * len(
        COLUMNS
    )
    assert row.startswith("| ") and row.endswith(" |")  # one cell a column: pipes inside a cell escaped
    assert re.split(r" (?<!\\)\| ", row[2:-2]) == [
        "bias",
        "alibi",
        "(2, 3)",
        "(H=2, T=3)",
        "[1]",
        "-m·\\|i - j\\| added",
    ]


def test_every_note_in_words_is_declared_in_chinese_too():
    """A part's note that says something in words ("one C-vector per token") has its Chinese (the
    glossary's `formula.<id>` in both tables); a symbolic one ("C -> F") reads the same in both."""
    import re

    notes = {}
    for cfg in MODELS.values():
        for row in param_table(build_model(cfg)).rows:
            notes[row.note] = row.note_zh
    worded = {note: zh for note, zh in notes.items() if re.search(r"\b[a-z]{3,}\b", note)}
    assert len(worded) >= 15  # the models above reach every kind of note
    assert not [note for note, zh in worded.items() if not re.search(r"[\u4e00-\u9fff]", zh)]
    assert notes["C -> F"] == ""  # the rule can tell the two apart
