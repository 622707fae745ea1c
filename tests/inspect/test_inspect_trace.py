"""The shape trace table: its shapes are the hooks' shapes, for every model kind and depth.

trace.py checked whole: the rows made around the model (text, pieces, ids; softmax and loss)
field by field in English and Chinese, their numbers against torch computed here; the three
renderings (text, markdown, JSON) of a hand-made trace; the helpers' edges (labels, examples,
dims, batches, collapsing) and print_shapes_once.

A row's words are found as the sentences trace() said (by their fields), or the module's own
tables give (LOSS_WORDS, COLUMNS, describe), so the English may be reworded freely; the whole words
of real models' traces are pinned once, in tests/inspect/snapshots/ (test_text_snapshots.py). Kept
whole here, on purpose: the text and markdown renderings of a hand-made trace, where the layout (CJK
counting two columns, escaped pipes) is the point.
"""

import json
import re
from types import SimpleNamespace

import pytest
import torch
import torch.nn.functional as F
from helpers import en, in_catalogue, keyed, said, zh

from glassformer import messages
from glassformer.config import ModelConfig
from glassformer.errors import UsageError
from glassformer.inspect.trace import (
    COLUMNS,
    LOSS_WORDS,
    Trace,
    TraceRow,
    _collapse,
    _dims,
    _example,
    as_batch,
    print_shapes_once,
    token_labels,
    trace,
)
from glassformer.inspect.words import LETTER_WORDS, MEANS_WORDS, add_words, describe, meaning
from glassformer.messages import t as words_of  # the real t: said() stands in only for glassformer's own
from glassformer.messages import translated
from glassformer.models import GPT, Encoder, SequenceRegressor
from glassformer.nn.hooks import STAGES, HookPoint
from glassformer.nn.loss import next_token_loss
from glassformer.text import CharTokenizer

SMALL = dict(d_model=16, n_heads=2, d_ff=24, max_len=16, dropout=0.0)
CJK = re.compile(r"[\u4e00-\u9fff]")


def plain(heard) -> set[str]:
    """The words of each sentence said with no fields (a stage, a meaning)."""
    return {words_of(m) for m, f in heard if not f}


def hook_shapes(model, x):
    model.eval()
    with torch.no_grad():
        _, cache = model.run_with_cache(x)
    return cache.shapes()


@pytest.mark.parametrize(
    "make,x",
    [
        (lambda: GPT(ModelConfig(vocab_size=11, n_layers=3, **SMALL)), torch.randint(0, 11, (2, 7))),
        (
            lambda: Encoder(ModelConfig(vocab_size=11, n_layers=1, causal=False, norm="none", **SMALL)),
            torch.randint(0, 11, (1, 5)),
        ),
        (
            lambda: SequenceRegressor(
                ModelConfig(kind="regressor", n_layers=2, norm="post", position="sinusoidal", **SMALL)
            ),
            torch.randn(1, 9, 1),
        ),
    ],
)
def test_table_shapes_are_the_hook_shapes(make, x):
    model = make()
    t = trace(model, x)
    rows = {r.name: r for r in t.rows}
    shapes = hook_shapes(model, x)
    for name, shape in shapes.items():  # every hook point has its row, with the hook's shape
        assert rows[name].shape == shape, name
    n_layers = model.cfg.n_layers
    assert sum(r.name.endswith("attn.weights") for r in t.rows) == n_layers  # every block shown
    # the dims column spells out the same numbers, letter by letter
    B, T = x.shape[:2]
    C, H = model.cfg.d_model, model.cfg.n_heads
    assert rows["blocks.0.attn.q"].dims == f"(B={B}, H={H}, T={T}, D={C // H})"
    assert rows[f"blocks.{n_layers - 1}.attn.merged"].shape == (B, T, C)


def test_rows_follow_the_data_flow_and_add_softmax_and_loss():
    tok = CharTokenizer.from_text("hello world")
    model = GPT(ModelConfig(vocab_size=tok.vocab_size, n_layers=2, **SMALL))
    ids = torch.tensor([tok.encode("hello wo")])
    x, y = ids[:, :-1], ids[:, 1:]
    t = trace(model, x, tokenizer=tok, targets=y)
    names = [r.name for r in t.rows]
    order = [
        "text",
        "pieces",
        "ids",
        "embed",
        "pos_embed",
        "resid_pre",
        "blocks.0.ln1",
        "blocks.0.attn.q",
        "blocks.0.attn.scores",
        "blocks.0.attn.weights",
        "blocks.0.attn.z",
        "blocks.0.attn.merged",
        "blocks.0.attn.out",
        "blocks.0.resid_mid",
        "blocks.0.ffn.hidden",
        "blocks.1.resid_post",
        "ln_final",
        "logits",
        "softmax(logits)",
        "loss",
    ]
    assert [n for n in names if n in order] == order
    rows = {r.name: r for r in t.rows}
    assert rows["text"].example == repr("hello w")
    assert rows["pieces"].example == "h e l l o ␣ w"
    with torch.no_grad():
        loss = next_token_loss(model(x), y)
    assert rows["loss"].example == f"{loss.item():.4f}"
    probs = torch.softmax(model(x), -1)[0, 0, :4].tolist()
    assert rows["softmax(logits)"].example.startswith("[" + ", ".join(f"{p:.3f}" for p in probs))


def test_identity_norms_are_labelled():
    model = Encoder(ModelConfig(vocab_size=5, n_layers=1, causal=False, norm="none", final_norm=False, **SMALL))
    rows = {r.name: r for r in trace(model, torch.tensor([[1, 2, 3]])).rows}
    assert rows["blocks.0.ln1"].stage.endswith("(identity)")
    assert rows["ln_final"].stage.endswith("(identity)")
    pre = GPT(ModelConfig(vocab_size=5, n_layers=1, **SMALL))
    assert "identity" not in {r.name: r for r in trace(pre, torch.tensor([[1, 2, 3]])).rows}["blocks.0.ln1"].stage


def test_collapse_and_renderers():
    model = GPT(ModelConfig(vocab_size=7, n_layers=4, **SMALL))
    full, short = trace(model, torch.tensor([1, 2, 3])), trace(model, torch.tensor([1, 2, 3]), collapse=True)
    assert [r.name for r in short.rows if r.name.endswith(".*")] == ["blocks.1.*", "blocks.2.*", "blocks.3.*"]
    assert len(full.rows) - len(short.rows) == 3 * (sum(r.name.startswith("blocks.0.") for r in full.rows) - 1)
    text = full.to_text().splitlines()
    header = text[0]
    assert header.split() == ["stage", "name", "shape", "dims", "example", "means"]
    col = header.index("shape")  # aligned: every row's shape starts in the same column
    embed = next(line for line in text if line.startswith(en("embedding") + " "))
    pos = next(line for line in text if line.startswith(en("+ position") + " ") and "pos_embed" in line)
    assert embed[col:].startswith("(1, 3, 16) ") and pos[col:].startswith("(3, 16) ")
    md = full.to_markdown()
    assert f"| {en('embedding')} | embed | (1, 3, 16) | (B=1, T=3, C=16) |" in md
    data = json.loads(full.to_json())
    assert data["rows"][1]["shape"] == [1, 3, 16] and data["letters"]["C"] == "d_model"


def test_print_shapes_once(capsys):
    model = GPT(ModelConfig(vocab_size=7, n_layers=1, **SMALL)).train()
    ids = torch.randint(0, 7, (4, 6))
    rng = torch.get_rng_state()
    assert print_shapes_once(model, ids) is True
    assert torch.equal(rng, torch.get_rng_state())  # no random numbers drawn: training stays reproducible
    assert model.training
    first = capsys.readouterr().out
    assert "(B=1, H=2, T_q=6, T_k=6)" in first
    assert print_shapes_once(model, ids) is False and capsys.readouterr().out == ""


def test_token_labels():
    tok = CharTokenizer.from_text("a b\n你")
    assert token_labels(torch.tensor(tok.encode("a b\n你")), tok) == ["a", "␣", "b", "↵", "你"]
    assert token_labels([4, 4, 4]) == ["0", "1", "2"]


class Doubler(torch.nn.Module):
    """A module nobody in inspect/ has heard of, with a hook point of its own, declared in its own words
    (STAGE, MEANS in English; their Chinese): the trace must show them as given."""

    STAGE, MEANS, MEANS_ZH, STAGE_ZH = "toy stage", "the stream, doubled", "残差流乘以二", "玩具阶段"

    def __init__(self):
        super().__init__()
        self.hook_twice = HookPoint("toy", "B T C", "toy.twice")  # ids; the words given once, below
        add_words(
            {"stage.toy": self.STAGE, "means.toy.twice": self.MEANS},
            {"stage.toy": self.STAGE_ZH, "means.toy.twice": self.MEANS_ZH},
        )

    def forward(self, x):
        return self.hook_twice(2 * x)  # (B, T, C)


def test_a_new_hook_point_appears_in_the_trace_with_no_edit_to_inspect():
    model = GPT(ModelConfig(vocab_size=7, n_layers=1, **SMALL))
    model.blocks[0].ffn.toy = Doubler()
    original = model.blocks[0].ffn.forward
    model.blocks[0].ffn.forward = lambda x: model.blocks[0].ffn.toy(original(x))
    model.name_hook_points()
    t = trace(model, torch.tensor([1, 2, 3]))
    row = next(r for r in t.rows if r.name == "blocks.0.ffn.toy.twice")
    assert (row.stage, row.dims, row.about) == (Doubler.STAGE, "(B=1, T=3, C=16)", Doubler.MEANS)
    names = [r.name for r in t.rows]
    assert (
        names.index("blocks.0.ffn.hidden") < names.index("blocks.0.ffn.toy.twice") < names.index("blocks.0.resid_post")
    )  # in the order it fired
    assert Doubler.MEANS in t.to_text() and Doubler.MEANS in t.to_markdown()
    chinese = {r.name: r for r in trace(model, torch.tensor([1, 2, 3]), lang="zh").rows}["blocks.0.ffn.toy.twice"]
    assert (chinese.stage, chinese.about) == (Doubler.STAGE_ZH, Doubler.MEANS_ZH)


def test_every_hook_declares_known_axes_that_match_its_tensor():
    """Each declaration's axes name every axis of the tensor it sees, with a letter the legend knows."""
    from glassformer.nn.hooks import LETTERS

    for make, x in [
        (lambda: GPT(ModelConfig(vocab_size=11, n_layers=2, **SMALL)), torch.randint(0, 11, (2, 7))),
        (
            lambda: SequenceRegressor(ModelConfig(kind="regressor", n_layers=1, norm="post", **SMALL)),
            torch.randn(1, 9, 1),
        ),
    ]:
        model = make()
        points = model.hook_points()
        for name, t in hook_shapes(model, x).items():
            axes = points[name].axes.split()
            assert len(axes) == len(t), f"{name}: axes {axes} for shape {t}"
            assert all(a in LETTERS for a in axes), name
            assert points[name].stage in STAGES and points[name].means in MEANS_WORDS


def test_token_labels_accept_the_batch_a_model_reads():
    tok = CharTokenizer.from_text("ab")
    assert token_labels(torch.tensor([tok.encode("ab")]), tok) == ["a", "b"]  # (1, T)
    assert keyed(UsageError, token_labels, torch.zeros(2, 3, dtype=torch.long), tok) == (
        "inspect.labels_batch",
        {"n": 2},
    )


def test_collapse_keeps_a_block_that_differs_from_block_0_and_folds_the_others():
    """Block 1 gets an extra hook point; blocks 2 and 3 are like block 0. Only they fold."""
    model = GPT(ModelConfig(vocab_size=7, n_layers=4, **SMALL))
    model.blocks[1].ffn.toy = Doubler()
    original = model.blocks[1].ffn.forward
    model.blocks[1].ffn.forward = lambda x: model.blocks[1].ffn.toy(original(x))
    model.name_hook_points()
    whole = trace(model, torch.tensor([1, 2, 3])).rows
    with said() as heard:
        rows = _collapse(whole)  # what trace(collapse=True) does with them
    assert [(r.name, r.dims) for r in rows] == [
        (r.name, r.dims) for r in trace(model, torch.tensor([1, 2, 3]), collapse=True).rows
    ]
    names = [r.name for r in rows]
    assert "blocks.1.ffn.toy.twice" in names and "blocks.1.attn.q" in names  # block 1 shown whole
    assert "blocks.1.*" not in names and "blocks.2.*" in names and "blocks.3.*" in names
    assert not any(n.startswith(("blocks.2.", "blocks.3.")) and not n.endswith("*") for n in names)
    folded = next(r for r in rows if r.name == "blocks.2.*")
    [about] = plain(heard)  # the one sentence every folded row means
    assert (folded.stage, folded.dims, folded.about) == (heard.sentence(i=2), heard.sentence(stack="blocks"), about)


def test_as_batch_turns_what_a_user_has_into_the_batch_a_model_reads():
    from glassformer.inspect.trace import as_batch

    gpt = GPT(ModelConfig(vocab_size=7, n_layers=1, **SMALL))
    reg = SequenceRegressor(ModelConfig(kind="regressor", n_layers=1, d_in=2, **SMALL))
    assert as_batch(gpt, [1, 2, 3]).tolist() == [[1, 2, 3]]  # (T,) -> (1, T)
    assert as_batch(gpt, [[1, 2], [3, 4]]).shape == (2, 2)  # already a batch
    numbers = as_batch(reg, [[1, 2], [3, 4], [5, 6]])  # (T, d_in) ints -> (1, T, d_in) floats
    assert numbers.shape == (1, 3, 2) and numbers.dtype == torch.float32
    assert trace(reg, [[1, 2], [3, 4], [5, 6]]).rows[0].dims == "(B=1, T=3, d_in=2)"


def test_text_rows_and_the_plain_table_layout():
    tok = CharTokenizer.from_text("hello world")
    model = GPT(ModelConfig(vocab_size=tok.vocab_size, n_layers=1, **SMALL))
    with said() as heard:
        t = trace(model, torch.tensor([tok.encode("hello")]), tokenizer=tok)
    assert [r.name for r in t.rows[:3]] == ["text", "pieces", "ids"]
    words = [w for r in t.rows[:3] for w in (r.stage, r.about)]  # six sentences the trace said, all different
    assert len(set(words)) == 6 and set(words) <= plain(heard)
    chinese = trace(model, torch.tensor([tok.encode("hello")]), tokenizer=tok, lang="zh").rows[:3]
    assert all(CJK.search(w) and w not in words for r in chinese for w in (r.stage, r.about))
    assert [r.shape for r in t.rows[:3]] == [None, None, (1, 5)] and t.rows[2].dims == "(B=1, T=5)"
    lines = t.to_text().splitlines()
    assert lines[0].split()[:5] == ["stage", "name", "shape", "dims", "example"]
    assert set(lines[1]) == {"-", " "} and len(lines[1]) >= len(lines[0])  # one rule of dashes per column
    assert lines[-1] == t.legend() and lines[-2] == ""


def test_collapse_covers_every_stack_of_blocks():
    """A seq2seq model's encoder and decoder stacks collapse each to their own block 0."""
    from glassformer.config import get_preset
    from glassformer.models import build_model

    model = build_model(get_preset("seq2seq").model)
    short = trace(model, model.example_input(1, 5), collapse=True)
    assert [r.name for r in short.rows if r.name.endswith(".*")] == ["encoder.1.*", "decoder.1.*"]


def test_the_loss_row_of_a_regressor_names_its_loss_and_measures_it():
    """A regressor's trace with targets ends with its loss, the mean squared error, in words and value
    (bug guarded: a loss row whose description was looked up under the wrong key)."""
    torch.manual_seed(0)
    model = SequenceRegressor(
        ModelConfig(kind="regressor", n_layers=1, d_in=2, d_out=3, position="sinusoidal", **SMALL)
    )
    x, y = torch.randn(1, 4, 2), torch.randn(1, 4, 3)
    for lang in ("en", "zh"):
        words = translated(LOSS_WORDS["mse"], lang)  # the loss row says which loss it is
        row = trace(model, x, targets=y, lang=lang).rows[-1]
        assert (row.name, row.about) == ("loss", words)
        assert float(row.example) == pytest.approx(torch.nn.functional.mse_loss(model(x), y).item(), abs=1e-4)


TOK = CharTokenizer.from_text("ab c\n")
TEXT, NEXT = "ab c\n", "b c\na"


def gpt(n_layers=2):
    torch.manual_seed(0)
    return GPT(ModelConfig(vocab_size=TOK.vocab_size, d_model=4, n_heads=2, d_ff=6, n_layers=n_layers, max_len=8))


def fields(r):
    return (r.stage, r.name, r.shape, r.dims, r.example, r.about)


def figures(r):
    """A row's name, shape and example: what no rewording of the English can change."""
    return (r.name, r.shape, r.example)


def test_the_rows_around_the_model_whole_in_english_with_numbers_from_torch():
    model = gpt().train()
    ids, targets = torch.tensor(TOK.encode(TEXT)), torch.tensor(TOK.encode(NEXT))
    with said() as heard:
        t = trace(model, ids, tokenizer=TOK, targets=targets)
    assert model.training  # traced in eval mode, given back as it was
    assert [figures(r) for r in t.rows[:3]] == [
        ("text", None, "'ab c\\n'"),
        ("pieces", None, "a b ␣ c ↵"),
        ("ids", (1, 5), "[2, 3, 1, 4, 0]"),
    ]
    counts = {words_of(m, **f) for m, f in heard if f == {"n": 5}}  # 5 characters, 5 pieces
    assert {t.rows[0].dims, t.rows[1].dims} == counts and len(counts) == 2 and t.rows[2].dims == "(B=1, T=5)"
    words = [w for r in t.rows[:3] for w in (r.stage, r.about)]  # six sentences the trace said, all different
    assert len(set(words)) == 6 and set(words) <= plain(heard)
    with torch.no_grad():
        logits = model.eval()(ids[None])  # (1, T, V)
    probs = torch.softmax(logits, -1).reshape(-1)[:4]  # (4,)
    loss = F.cross_entropy(logits[0], targets)  # ()
    softmax, loss_row = t.rows[-2:]
    assert [figures(r) for r in t.rows[-2:]] == [
        ("softmax(logits)", (1, 5, 5), "[" + ", ".join(f"{p:.3f}" for p in probs.tolist()) + ", …]"),
        ("loss", (), f"{loss.item():.4f}"),
    ]
    assert softmax.dims == "(B=1, T=5, V=5)" and loss_row.about == translated(LOSS_WORDS["next_token"], "en")
    assert {softmax.stage, softmax.about, loss_row.stage, loss_row.dims} <= plain(heard)
    assert t.rows[-3].name == "logits" and t.lang == "en" and list(t.letters)[:3] == ["B", "T", "C"]
    _, cache = model.run_with_cache(ids[None])
    embed = cache["embed"]  # (1, T, C)
    declared = describe(model.hook_points()["embed"], "en")  # the hook point's own words
    assert fields(t.rows[3]) == (
        declared["stage"],
        "embed",
        (1, 5, 4),
        "(B=1, T=5, C=4)",
        "[" + ", ".join(f"{v:.3f}" for v in embed.reshape(-1)[:4].tolist()) + ", …]",
        declared["means"],
    )


def test_the_rows_around_the_model_in_chinese():
    model = gpt()
    english = trace(model, TOK.encode(TEXT), tokenizer=TOK, targets=TOK.encode(NEXT))
    t = trace(model, TOK.encode(TEXT), tokenizer=TOK, targets=TOK.encode(NEXT), lang="zh")
    around = [*t.rows[:3], *t.rows[-2:]]  # the rows made around the model: every word of theirs in Chinese
    assert [figures(r) for r in around] == [figures(r) for r in [*english.rows[:3], *english.rows[-2:]]]
    words = [r.stage for r in around] + [r.about for r in around] + [r.dims for r in (t.rows[0], t.rows[1], t.rows[-1])]
    english_words = {w for r in english.rows for w in (r.stage, r.dims, r.about)}
    assert all(CJK.search(w) and w not in english_words for w in words)
    assert "5" in t.rows[0].dims and "5" in t.rows[1].dims  # 5 characters, 5 pieces
    assert (t.rows[2].dims, t.rows[-2].dims) == ("(B=1, T=5)", "(B=1, T=5, V=5)")
    assert t.rows[-1].about == translated(LOSS_WORDS["next_token"], "zh")
    declared = describe(model.hook_points()["embed"], "zh")
    assert (t.rows[3].stage, t.rows[3].name, t.rows[3].about) == (declared["stage"], "embed", declared["means"])
    assert t.letters["B"] == meaning("B", "zh") and CJK.search(t.letters["B"])
    assert t.COLUMNS == tuple(translated(k, "zh") for k in COLUMNS) and all(CJK.search(c) for c in t.COLUMNS)


def test_without_a_tokenizer_there_is_no_text_row_and_without_targets_no_loss():
    t = trace(gpt(), torch.tensor([[2, 3, 1]]))
    assert t.rows[0].name == "ids" and t.rows[0].example == "[2, 3, 1]" and t.rows[-1].name == "softmax(logits)"


def test_a_regressor_reads_numbers_and_its_loss_is_the_mean_squared_error():
    torch.manual_seed(0)
    model = SequenceRegressor(ModelConfig(kind="regressor", d_model=4, n_heads=2, d_ff=6, n_layers=1, max_len=8))
    x, y = torch.arange(3.0), torch.tensor([0.5, -1.0, 2.0])
    with said() as heard:
        t = trace(model, x, targets=y)
    first, last = t.rows[0], t.rows[-1]
    assert (*figures(first), first.dims) == ("x", (1, 3, 1), "[0.000, 1.000, 2.000]", "(B=1, T=3, d_in=1)")
    with torch.no_grad():
        mse = F.mse_loss(model.eval()(x[None, :, None]), y.reshape(1, 3, 1))
    assert figures(last) == ("loss", (), f"{mse.item():.4f}") and last.about == translated(LOSS_WORDS["mse"], "en")
    assert {first.stage, first.about, last.stage, last.dims} <= plain(heard) and first.about != last.about
    assert all(r.name != "softmax(logits)" for r in t.rows)  # numbers out: no probabilities
    chinese = trace(model, x, targets=y, lang="zh")
    assert chinese.rows[-1].about == translated(LOSS_WORDS["mse"], "zh")
    assert all(
        CJK.search(w) and w not in (first.stage, first.about) for w in (chinese.rows[0].stage, chinese.rows[0].about)
    )


HAND = Trace(
    [
        TraceRow("tokens", "pieces", None, "2 pieces", "a|b", "one\nlabel"),
        TraceRow("词元 id", "ids", (1, 2), "(B=1, T=2)", "[0, 1]", ""),
    ],
    {"B": "batch", "T": "sequence length"},
)


def test_the_text_table_of_a_hand_made_trace_whole_cjk_counting_two_columns():
    # snapshot: the terminal table of --debug-shapes whole, its layout the point (CJK counts two columns)
    assert HAND.to_text() == "\n".join(
        [
            "stage    name    shape   dims        example  means",
            "-------  ------  ------  ----------  -------  ---------",
            "tokens   pieces          2 pieces    a|b      one\nlabel",
            "词元 id  ids     (1, 2)  (B=1, T=2)  [0, 1]",
            "",
            "B = batch  T = sequence length",
        ]
    )
    assert str(HAND) == repr(HAND) == HAND.to_text()


def test_the_markdown_of_a_hand_made_trace_whole():
    # snapshot: the markdown a learner pastes into a notebook, whole (escaped pipes, a newline made a space)
    assert HAND.to_markdown() == "\n".join(
        [
            "| stage | name | shape | dims | example | means |",
            "|---|---|---|---|---|---|",
            "| tokens | pieces |  | 2 pieces | a\\|b | one label |",
            "| 词元 id | ids | (1, 2) | (B=1, T=2) | [0, 1] |  |",
            "",
            "B = batch  T = sequence length",
        ]
    )


def test_the_json_of_a_hand_made_trace_whole():
    text = HAND.to_json()
    pieces, ids = HAND.rows
    assert json.loads(text) == {
        "rows": [
            {
                "stage": pieces.stage,
                "name": "pieces",
                "shape": None,  # a text row: no tensor
                "dims": pieces.dims,
                "example": "a|b",
                "about": pieces.about,  # as given, its newline kept
            },
            {
                "stage": ids.stage,
                "name": "ids",
                "shape": [1, 2],  # a tuple becomes a list
                "dims": "(B=1, T=2)",
                "example": "[0, 1]",
                "about": "",
            },
        ],
        "letters": HAND.letters,
        "lang": "en",
    }
    assert "词元" in text and text.startswith('{\n "rows": [\n  {\n   "stage"')  # readable: Chinese as is, indent 1


def test_token_labels_make_whitespace_visible_and_take_one_sequence_only():
    assert token_labels(torch.tensor(TOK.encode(TEXT)), TOK) == ["a", "b", "␣", "c", "↵"]
    assert token_labels(torch.tensor([TOK.encode(TEXT)]), TOK) == ["a", "b", "␣", "c", "↵"]  # (1, T)
    assert token_labels([7, 8, 9]) == ["0", "1", "2"] and token_labels([]) == []
    tab = CharTokenizer.from_text("\t")
    assert token_labels(tab.encode("\t"), tab) == ["⇥"]
    with pytest.raises(ValueError) as e:
        token_labels(torch.zeros(2, 3, dtype=torch.long))
    assert (e.value.code, e.value.fields) == ("inspect.labels_batch", {"n": 2})


def test_a_token_that_decodes_to_nothing_is_labelled_empty_set():
    class Silent:
        def decode(self, ids):
            return ""

    assert token_labels([3], Silent()) == ["∅"]

    class Words:
        def decode(self, ids):
            return "a b\n"

    assert token_labels([3], Words()) == ["a␣b↵"]  # a many-character piece, whitespace made visible


def test_examples_show_four_numbers_three_places_then_an_ellipsis_only_when_more_remain():
    assert _example(torch.tensor([1.0, 2.5, -0.1234, 4.0])) == "[1.000, 2.500, -0.123, 4.000]"
    assert _example(torch.tensor([1.0, 2.5, -0.1234, 4.0, 5.0])) == "[1.000, 2.500, -0.123, 4.000, …]"
    assert _example(torch.tensor([[1, 2], [3, 4]])) == "[1, 2, 3, 4]"
    assert _example(torch.arange(5)) == "[0, 1, 2, 3, …]" and _example(torch.arange(9), 8).endswith("7, …]")


def test_dims_name_each_size_and_fall_back_to_plain_sizes_for_an_unexpected_layout():
    used = {}
    assert _dims("B T C", (2, 3, 4), used, "en") == "(B=2, T=3, C=4)"
    assert used == {letter: en(LETTER_WORDS[letter]) for letter in "BTC"}
    assert _dims("B T", (2, 3, 4), used, "zh") == "(2, 3, 4)" and len(used) == 3  # nothing learnt from a lie
    chinese = {}
    _dims("B", (1,), chinese, "zh")
    assert chinese == {"B": zh("batch")}


def regressor(d_in=1):
    return SequenceRegressor(
        ModelConfig(kind="regressor", d_model=4, n_heads=2, d_ff=6, n_layers=1, max_len=8, d_in=d_in)
    )


def test_as_batch_for_ids_numbers_and_pairs():
    assert as_batch(gpt(), [1, 2]).tolist() == [[1, 2]] and as_batch(gpt(), torch.ones(2, 3)).shape == (2, 3)
    ints = as_batch(regressor(), [1, 2, 3])  # whole numbers for a number model become floats
    assert ints.dtype == torch.float32 and ints.shape == (1, 3, 1)
    assert as_batch(regressor(d_in=2), torch.zeros(3, 2)).shape == (1, 3, 2)  # (T, d_in): not a batch of values
    assert as_batch(regressor(d_in=2), torch.zeros(4, 3, 2)).shape == (4, 3, 2)
    pairs = SimpleNamespace(inputs="token pairs")  # what an encoder-decoder declares; a pair is read part by part
    src, tgt = as_batch(pairs, ([1, 2, 3], [[4, 5]]))
    assert src.shape == (1, 3) and tgt.shape == (1, 2)


def row(name, shape=(1,)):
    return TraceRow("s", name, shape, "d", "e", "a")


def test_collapse_keeps_block_0_and_every_block_whose_shapes_differ_and_says_so_in_both_languages():
    rows = [
        row("embed"),
        row("blocks.0.x"),
        row("blocks.0.y"),
        row("blocks.1.x"),
        row("blocks.1.y"),
        row("blocks.2.x"),
        row("blocks.2.y", (2,)),
        row("encoder.0.x"),
        row("encoder.1.x"),
        row("head"),
    ]
    with said() as heard:
        out = _collapse(rows)
    assert [r.name for r in out] == [
        "embed",
        "blocks.0.x",
        "blocks.0.y",
        "blocks.1.*",
        "blocks.2.x",
        "blocks.2.y",
        "encoder.0.x",
        "encoder.1.*",
        "head",
    ]
    summary = out[3]
    [about] = plain(heard)  # one sentence says what a folded row is
    assert fields(summary) == (heard.sentence(i=1), "blocks.1.*", None, heard.sentence(stack="blocks"), "…", about)
    assert out[7].dims == heard.sentence(stack="encoder") != summary.dims  # encoder.1.*: its own stack's name
    with messages.speaking("zh"), said() as heard:
        chinese = _collapse(rows, "zh")[7]
        words = (heard.sentence(i=1), heard.sentence(stack="encoder"), *plain(heard))
    assert (chinese.stage, chinese.dims, chinese.about) == words and all(CJK.search(w) for w in words)


def test_a_collapsed_trace_of_a_real_model(capsys):
    t = trace(gpt(n_layers=3), [1, 2, 3], collapse=True)
    names = [r.name for r in t.rows]
    assert "blocks.1.*" in names and "blocks.2.*" in names and "blocks.1.attn.q" not in names
    assert "blocks.0.attn.q" in names


def test_print_shapes_once_prints_the_collapsed_table_of_the_first_sequence_once(capsys):
    model = gpt(n_layers=3)
    ids = torch.tensor([[1, 2, 3], [3, 2, 1]])
    assert print_shapes_once(model, ids, tokenizer=TOK) is True
    printed = capsys.readouterr().out
    assert printed == trace(model, ids[:1], tokenizer=TOK, collapse=True).to_text() + "\n"
    assert "(B=1, T=3)" in printed and "blocks.2.*" in printed
    assert print_shapes_once(model, ids) is False and capsys.readouterr().out == ""


def test_as_batch_lays_one_value_a_step_along_time_and_treats_a_plain_module_as_tokens():
    values = as_batch(regressor(), torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))  # (B, T) values
    assert values.shape == (2, 3, 1) and values[1, :, 0].tolist() == [4.0, 5.0, 6.0]
    assert as_batch(regressor(), torch.zeros(3, 1)).shape == (1, 3, 1)  # (T, 1): already one a step
    assert as_batch(torch.nn.Linear(1, 1), [1, 2]).tolist() == [[1, 2]]  # no `inputs`: token ids


def test_an_encoder_decoder_traces_its_source_then_its_target_in_both_languages():
    from glassformer.models import build_model

    torch.manual_seed(0)
    model = build_model(
        ModelConfig(
            kind="seq2seq", vocab_size=TOK.vocab_size, d_model=4, n_heads=2, d_ff=6, max_len=6, pad_id=0, n_layers=1
        )
    )
    with said() as heard:
        t = trace(model, (TOK.encode("ab"), TOK.encode("c a")), tokenizer=TOK)

    def side(name, text, pieces, shape, ids):
        return [(f"{name} text", None, text), (f"{name} pieces", None, pieces), (f"{name} ids", shape, ids)]

    assert [figures(r) for r in t.rows[:6]] == side("src", "'ab'", "a b", (1, 2), "[2, 3]") + side(
        "tgt", "'c a'", "c ␣ a", (1, 3), "[4, 1, 2]"
    )
    assert (t.rows[2].dims, t.rows[5].dims) == ("(B=1, S=2)", "(B=1, T=3)")
    assert len(heard.carrying(n=2)) == len(heard.carrying(n=3)) == 2  # each side's characters and pieces
    alone = trace(gpt(), TOK.encode("c a"), tokenizer=TOK).rows[:3]  # each side's rows say what one input's say
    words = lambda rows: [(r.stage, r.about) for r in rows]  # noqa: E731
    assert words(t.rows[:3]) == words(t.rows[3:6]) == words(alone) and [r.dims for r in t.rows[3:5]] == [
        r.dims for r in alone[:2]
    ]
    chinese = trace(model, (TOK.encode("ab"), TOK.encode("c a")), tokenizer=TOK, lang="zh")
    one_side = trace(gpt(), TOK.encode("c a"), tokenizer=TOK, lang="zh").rows[:3]  # a decoder-only model's
    assert [r.stage for r in chinese.rows[3:6]] == [r.stage for r in one_side] and CJK.search(one_side[0].stage)
    assert chinese.letters["B"] == meaning("B", "zh")


def test_a_byte_token_that_cuts_a_character_is_labelled_by_its_bytes_not_a_replacement_mark():
    """Issue 27, item 10: an imported GPT-2 run showed its byte tokens as "�" in the explorer (and
    in every label). A byte-level BPE id below 256 is one raw byte: 你 is e4 bd a0."""
    from glassformer.text.bpe import BPETokenizer

    tok = BPETokenizer.from_text("hello world", vocab_size=260)
    assert tok.decode([0xE4]) == "\ufffd"  # what the label used to be
    assert token_labels([0xE4, 0xBD, ord("h"), ord(" ")], tok) == ["\\xe4", "\\xbd", "h", "␣"]
    assert token_labels(tok.encode("你"), tok) == ["\\xe4", "\\xbd", "\\xa0"]


def test_a_tuple_is_an_encoder_decoders_pair_and_is_refused_for_any_other_model_or_size():
    """A GPT given (ids,) is not traced as a 'source' side; an encoder-decoder needs exactly two parts."""
    from glassformer.config import get_preset
    from glassformer.errors import UsageError
    from glassformer.models import build_model

    ids = torch.tensor([[1, 2, 3]])
    with pytest.raises(UsageError) as caught:
        trace(gpt(), (ids,))
    assert (caught.value.code, caught.value.fields) == ("inspect.tuple_for_one", {"n": 1, "inputs": "tokens"})
    pair = build_model(get_preset("seq2seq").model)
    for parts in [(ids,), (ids, ids, ids)]:
        with pytest.raises(UsageError) as caught:
            trace(pair, parts)
        assert (caught.value.code, caught.value.fields) == ("inspect.pair_size", {"n": len(parts)})
    names = [r.name for r in trace(pair, (ids, ids)).rows]
    assert names.index("src ids") < names.index("tgt ids")  # both sides traced, the source first


def test_every_loss_has_the_words_of_its_trace_row():
    """The trace's loss row says which loss it is: every loss a model can name has its sentence."""
    from glassformer.inspect.trace import LOSS_WORDS
    from glassformer.nn.loss import LOSSES

    assert set(LOSS_WORDS) == set(LOSSES)
    assert all(in_catalogue(key) for key in LOSS_WORDS.values())
