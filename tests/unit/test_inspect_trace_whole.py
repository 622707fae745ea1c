"""trace.py checked whole: the rows made around the model (text, pieces, ids; softmax and loss)
field by field in English and Chinese, their numbers against torch computed here; the three
renderings (text, markdown, JSON) of a hand-made trace written out in full; the helpers' edges
(labels, examples, dims, batches, collapsing) and print_shapes_once."""

import json

import pytest
import torch
import torch.nn.functional as F

from glassformer.config import ModelConfig
from glassformer.inspect.trace import (
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
from glassformer.models import GPT, SequenceRegressor
from glassformer.text import CharTokenizer

TOK = CharTokenizer.from_text("ab c\n")
TEXT, NEXT = "ab c\n", "b c\na"


def gpt(n_layers=2):
    torch.manual_seed(0)
    return GPT(ModelConfig(vocab_size=TOK.vocab_size, d_model=4, n_heads=2, d_ff=6, n_layers=n_layers, max_len=8))


def fields(r):
    return (r.stage, r.name, r.shape, r.dims, r.example, r.about)


def test_the_rows_around_the_model_whole_in_english_with_numbers_from_torch():
    model = gpt().train()
    ids, targets = torch.tensor(TOK.encode(TEXT)), torch.tensor(TOK.encode(NEXT))
    t = trace(model, ids, tokenizer=TOK, targets=targets)
    assert model.training  # traced in eval mode, given back as it was
    assert [fields(r) for r in t.rows[:3]] == [
        ("raw text", "text", None, "5 characters", "'ab c\\n'", "what the tokenizer was given"),
        ("tokens", "pieces", None, "5 pieces", "a b ␣ c ↵", "one label per token"),
        ("token ids", "ids", (1, 5), "(B=1, T=5)", "[2, 3, 1, 4, 0]", "integer index of each token"),
    ]
    with torch.no_grad():
        logits = model.eval()(ids[None])  # (1, T, V)
    probs = torch.softmax(logits, -1).reshape(-1)[:4]  # (4,)
    loss = F.cross_entropy(logits[0], targets)  # ()
    assert [fields(r) for r in t.rows[-2:]] == [
        (
            "softmax",
            "softmax(logits)",
            (1, 5, 5),
            "(B=1, T=5, V=5)",
            "[" + ", ".join(f"{p:.3f}" for p in probs.tolist()) + ", …]",
            "softmax(logits): next-token probabilities (computed from logits)",
        ),
        ("loss", "loss", (), "() scalar", f"{loss.item():.4f}", "cross-entropy of the next tokens"),
    ]
    assert t.rows[-3].name == "logits" and t.lang == "en" and list(t.letters)[:3] == ["B", "T", "C"]
    _, cache = model.run_with_cache(ids[None])
    embed = cache["embed"]  # (1, T, C)
    assert fields(t.rows[3]) == (
        "embedding",
        "embed",
        (1, 5, 4),
        "(B=1, T=5, C=4)",
        "[" + ", ".join(f"{v:.3f}" for v in embed.reshape(-1)[:4].tolist()) + ", …]",
        "token vectors looked up in the (V, C) table",
    )


def test_the_rows_around_the_model_in_chinese():
    t = trace(gpt(), TOK.encode(TEXT), tokenizer=TOK, targets=TOK.encode(NEXT), lang="zh")
    assert [(r.stage, r.dims, r.about) for r in t.rows[:3]] == [
        ("原始文本", "5 个字符", "交给分词器的文本"),
        ("词元", "5 个", "每个词元一个标签"),
        ("词元 id", "(B=1, T=5)", "每个词元在词表中的整数编号"),
    ]
    assert [(r.stage, r.about) for r in t.rows[-2:]] == [
        ("softmax 概率", "softmax(logits)：下一个词的概率（由 logits 算出）"),
        ("损失", "下一个词的交叉熵"),
    ]
    assert (t.rows[3].stage, t.rows[3].name) == ("嵌入", "embed") and t.rows[
        3
    ].about != "token vectors looked up in the (V, C) table"
    assert t.letters["B"] == "批大小" and t.COLUMNS == ("阶段", "名称", "形状", "维度", "示例", "含义")


def test_without_a_tokenizer_there_is_no_text_row_and_without_targets_no_loss():
    t = trace(gpt(), torch.tensor([[2, 3, 1]]))
    assert t.rows[0].name == "ids" and t.rows[0].example == "[2, 3, 1]" and t.rows[-1].name == "softmax(logits)"


def test_a_regressor_reads_numbers_and_its_loss_is_the_mean_squared_error():
    torch.manual_seed(0)
    model = SequenceRegressor(ModelConfig(kind="regressor", d_model=4, n_heads=2, d_ff=6, n_layers=1, max_len=8))
    x, y = torch.arange(3.0), torch.tensor([0.5, -1.0, 2.0])
    t = trace(model, x, targets=y)
    assert fields(t.rows[0]) == (
        "numbers in",
        "x",
        (1, 3, 1),
        "(B=1, T=3, d_in=1)",
        "[0.000, 1.000, 2.000]",
        "the input sequence",
    )
    with torch.no_grad():
        mse = F.mse_loss(model.eval()(x[None, :, None]), y.reshape(1, 3, 1))
    assert fields(t.rows[-1]) == ("loss", "loss", (), "() scalar", f"{mse.item():.4f}", "mean squared error")
    assert all(r.name != "softmax(logits)" for r in t.rows)  # numbers out: no probabilities
    zh = trace(model, x, targets=y, lang="zh")
    assert (zh.rows[0].stage, zh.rows[0].about, zh.rows[-1].about) == ("数值输入", "输入序列", "均方误差")


HAND = Trace(
    [
        TraceRow("tokens", "pieces", None, "2 pieces", "a|b", "one\nlabel"),
        TraceRow("词元 id", "ids", (1, 2), "(B=1, T=2)", "[0, 1]", ""),
    ],
    {"B": "batch", "T": "sequence length"},
)


def test_the_text_table_of_a_hand_made_trace_whole_cjk_counting_two_columns():
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
    assert json.loads(text) == {
        "rows": [
            {
                "stage": "tokens",
                "name": "pieces",
                "shape": None,
                "dims": "2 pieces",
                "example": "a|b",
                "about": "one\nlabel",
            },
            {
                "stage": "词元 id",
                "name": "ids",
                "shape": [1, 2],
                "dims": "(B=1, T=2)",
                "example": "[0, 1]",
                "about": "",
            },
        ],
        "letters": {"B": "batch", "T": "sequence length"},
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
    assert str(e.value) == (
        "token_labels takes one sequence, (T,) or (1, T); got a batch of 2: pass ids[i] "
        "for the sequence you want labelled."
    )


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
    assert used == {"B": "batch", "T": "sequence length", "C": "d_model"}
    assert _dims("B T", (2, 3, 4), used, "zh") == "(2, 3, 4)" and len(used) == 3  # nothing learnt from a lie
    zh = {}
    _dims("B", (1,), zh, "zh")
    assert zh == {"B": "批大小"}


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
    src, tgt = as_batch(gpt(), ([1, 2, 3], [[4, 5]]))
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
    assert fields(summary) == (
        "block 1",
        "blocks.1.*",
        None,
        "same shapes as blocks.0",
        "…",
        "collapsed: identical to block 0",
    )
    zh = _collapse(rows, "zh")[3]
    assert (zh.stage, zh.dims, zh.about) == ("第 1 块", "形状同 blocks.0", "已折叠：与第 0 块相同")


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
    t = trace(model, (TOK.encode("ab"), TOK.encode("c a")), tokenizer=TOK)
    assert [fields(r) for r in t.rows[:6]] == [
        ("raw text", "src text", None, "2 characters", "'ab'", "what the tokenizer was given"),
        ("tokens", "src pieces", None, "2 pieces", "a b", "one label per token"),
        ("token ids", "src ids", (1, 2), "(B=1, S=2)", "[2, 3]", "integer index of each token"),
        ("raw text", "tgt text", None, "3 characters", "'c a'", "what the tokenizer was given"),
        ("tokens", "tgt pieces", None, "3 pieces", "c ␣ a", "one label per token"),
        ("token ids", "tgt ids", (1, 3), "(B=1, T=3)", "[4, 1, 2]", "integer index of each token"),
    ]
    zh = trace(model, (TOK.encode("ab"), TOK.encode("c a")), tokenizer=TOK, lang="zh")
    assert [r.stage for r in zh.rows[:3]] == ["原始文本", "词元", "词元 id"] and zh.letters["B"] == "批大小"
