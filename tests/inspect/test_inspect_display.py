"""Rich displays: every view's HTML (what Jupyter shows) holds the computed values with all text
escaped, loads nothing from anywhere, and the plain repr stays plain text for a terminal.

The notebook HTML of display.py checked whole: every tag, style, cell and word a learner's
notebook renders, in both languages, so that any change to a table, a colour, a column's
alignment or a note shows. Inputs are small hand-made tables and monitors (no model), so each
expected page is written out in full here: its markup whole, its words found by their fields and as
the sentences the code said (helpers.said) or the module's own tables give, and in Chinese as holding
Chinese and differing from the English, so the English may be reworded freely.
"""

import base64
import html
import re
from html.parser import HTMLParser
from types import SimpleNamespace

import pytest
import torch
from helpers import en, keyed, said, zh

from glassformer import messages
from glassformer.config import ModelConfig
from glassformer.errors import UsageError
from glassformer.inspect import (
    AttentionView,
    GradientMonitor,
    attention_grid_png,
    attention_head_png,
    attention_html,
    attention_view,
    gradient_flow,
    param_table,
    trace,
)
from glassformer.inspect.display import PARAM_COLUMNS, Raw, grads_html, note, params_html, status_words, table
from glassformer.inspect.params import ParamRow, ParamTable
from glassformer.inspect.trace import as_batch
from glassformer.inspect.words import describe
from glassformer.models import GPT, SequenceRegressor
from glassformer.text import CharTokenizer

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
TEXT = "<b>&ok</b>"  # a prompt whose tokens are markup: each must arrive as text, never as a tag
TOK = CharTokenizer.from_text(TEXT + " http://x.y")
CFG = dict(vocab_size=TOK.vocab_size, d_model=16, n_heads=2, d_ff=24, n_layers=2, max_len=16, dropout=0.0)


def gpt(**kw):
    torch.manual_seed(0)
    return GPT(ModelConfig(**{**CFG, **kw})).eval()


def ids(text=TEXT):
    return torch.tensor(TOK.encode(text))  # (T,)


def no_raw_markup_from(text_html: str, *tokens: str) -> bool:
    """None of the tokens appears unescaped (as a tag) in the HTML."""
    return not any(t in text_html for t in tokens)


CJK = re.compile(r"[\u4e00-\u9fff]")


def elements(page: str, *tags: str) -> list[tuple[str, dict, str]]:
    """Each element of an HTML page (or only those of `tags`), in order: its tag, its style as a dict
    (a property given twice keeps its later value, as CSS does) and its text, unescaped: what a
    browser shows, read without typing the markup's spelling into a test."""
    found: list[list] = []
    open_: list[list] = []

    class Reader(HTMLParser):
        def handle_starttag(self, tag, attrs):
            style = {}
            for part in (dict(attrs).get("style") or "").split(";"):
                if ":" in part:
                    name, value = part.split(":", 1)
                    style[name.strip()] = value.strip()
            element = [tag, style, ""]
            found.append(element)
            open_.append(element)

        def handle_endtag(self, tag):
            while open_ and open_.pop()[0] != tag:
                pass

        def handle_data(self, data):
            for element in open_:
                element[2] += data

    Reader(convert_charrefs=True).feed(page)
    return [(tag, style, text) for tag, style, text in found if not tags or tag in tags]


def texts(page: str, tag: str) -> list[str]:
    """The text of each `tag` element of the page, unescaped."""
    return [text for _, _, text in elements(page, tag)]


def rows_of(page: str) -> list[list[str]]:
    """The text of each body row's cells."""
    return [texts(row, "td") for row in re.findall(r"<tr[^>]*>.*?</tr>", page) if "<td" in row]


def test_trace_html_escapes_and_holds_the_numbers():
    t = trace(gpt(), ids(), tokenizer=TOK)
    page = t._repr_html_()
    assert no_raw_markup_from(page, "<b>", "</b>") and "&lt;b&gt;&amp;ok" in page  # text row, escaped
    rows = {r.name: r for r in t.rows}
    for name in ("embed", "blocks.1.attn.weights", "logits"):
        assert html.escape(rows[name].dims) in page and html.escape(rows[name].example) in page
    assert html.escape(t.legend()) in page
    assert repr(t) == t.to_text() == str(t) and "<table" not in repr(t)  # a terminal gets the aligned text


def test_trace_html_in_chinese():
    page = trace(gpt(), ids(), tokenizer=TOK, lang="zh")._repr_html_()
    assert f">{zh('stage')}<" in page and f">{zh('weights')}<" in page


def test_activation_cache_html_reads_the_declarations():
    model = gpt()
    _, cache = model.run_with_cache(ids()[None])
    page = cache._repr_html_()
    points = model.hook_points()
    for name, t in cache.items():
        d = describe(points[name])
        assert f">{name}<" in page and html.escape(d["means"]) in page
        assert f"{t.reshape(-1)[0].item():.3g}" in page  # the first value of every tensor
    assert "(B=1, H=2, T_q=10, T_k=10)" in page  # the weights' axes named by their declaration
    scores = cache["blocks.0.attn.scores"]  # (1, H, T, T): the future is -inf
    finite = scores[torch.isfinite(scores)]
    spread = f"{finite.mean().item():.3g} ± {finite.std().item():.3g}"
    [scores_row] = [c for c in rows_of(page) if c[0] == "blocks.0.attn.scores"]
    assert scores_row[-1].startswith(spread)
    assert re.findall(r"\d+", scores_row[-1][len(spread) :]) == ["90"]  # 2 heads × 45 cells not finite
    english = texts(page, "th")
    cache.lang = "zh"
    assert html.escape(describe(points["blocks.0.attn.weights"], "zh")["means"]) in cache._repr_html_()
    chinese = texts(cache._repr_html_(), "th")  # the same six columns, each worded in Chinese
    assert len(english) == len(chinese) == 6 and all(CJK.search(h) and h not in english for h in chinese)
    assert repr(cache).startswith(f"ActivationCache({len(cache)} tensors)\n") and "<" not in repr(cache)


def test_activation_cache_html_escapes_a_strange_declaration():
    model = gpt()
    model.hook_points()["embed"].means = "<script>alert(1)</script>"
    _, cache = model.run_with_cache(ids()[None], names=["embed"])
    assert "<script>" not in cache._repr_html_() and "&lt;script&gt;" in cache._repr_html_()


def test_param_table_html_marks_a_mismatch_and_escapes():
    table = ParamTable(
        [
            ParamRow("tok<embed>", 160, "V·C", 160, "one C-vector per token"),
            ParamRow("head", 170, "C·V + V", 176, "a bias"),
        ],
        {"V": 10, "C": 16},
    )
    page = table._repr_html_()
    assert "tok&lt;embed&gt;" in page and "<embed>" not in page
    good, wrong = rows_of(page)[:2]
    right_note, wrong_note = (r.note for r in table.rows)
    assert good[-1] == right_note and "#fde2e2" in page  # the wrong row stands out, its note marked
    assert wrong[-1].startswith(wrong_note) and wrong[-1][len(wrong_note) :].strip()
    assert "330" in page and "336" in page  # the totals, computed
    real = param_table(gpt())
    assert all(f"{r.count:,}" in real._repr_html_() for r in real.rows)
    assert repr(real) == real.to_text() and "<" not in repr(real)
    with messages.speaking("zh"):  # a notebook under GLASSFORMER_LANG=zh: headers, notes and marks in Chinese
        page = table._repr_html_()
        mark = rows_of(page)[1][-1][len(wrong_note) :]
        assert f">{zh(PARAM_COLUMNS[0])}<" in page and CJK.search(mark) and "formula" not in page
        assert f">{zh('total')}<" in page
        notes = [r.note_in("zh") for r in real.rows]  # each module's own Chinese note, as it declares it
        assert any(CJK.search(n) for n in notes) and all(html.escape(n) in real._repr_html_() for n in notes)
        assert repr(real) == real.to_text(lang="zh")


def test_param_table_html_aligns_the_numbers_right_and_sets_formulas_in_monospace():
    """Counts and the formula's value line up on the right, so digits compare by place; the module
    and the formula are code, in monospace; the note is prose, left-aligned."""
    page = param_table(gpt())._repr_html_()
    header = elements(page, "th")
    assert [text for _, _, text in header] == [en(k) for k in PARAM_COLUMNS]
    first_row = elements(page, "td")[: len(header)]
    for cells in (header, first_row):
        assert [style["text-align"] for _, style, _ in cells] == ["left", "right", "left", "right", "left"]
    assert ["monospace" in style.get("font-family", "") for _, style, _ in first_row] == [
        True,
        False,
        True,
        False,
        False,
    ]


def test_attention_view_saves_into_a_folder_it_makes(tmp_path):
    view = attention_view(gpt(), ids()[None], tokenizer=TOK)
    files = view.save(tmp_path / "new" / "deeper")
    assert [f.name for f in files] == ["attention.png", "attention.html"] and all(f.is_file() for f in files)
    assert files[0].read_bytes().startswith(PNG_SIGNATURE) and files[1].read_text(encoding="utf-8") == view.page()


def test_a_table_caption_is_shown_above_and_escaped():
    from glassformer.inspect.display import table

    page = table(("a",), [["1"]], caption="<b>why</b>")
    [caption] = elements(page, "caption", "b")  # the caption's markup arrives as text, not as a <b>
    assert caption == ("caption", {"caption-side": "top", "text-align": "left"}, "<b>why</b>")
    assert page.index("<caption") < page.index("<thead>")
    assert "<caption" not in table(("a",), [["1"]])


def test_a_one_layer_models_attention_view_has_a_title():
    view = attention_view(gpt(n_layers=1), ids()[None], tokenizer=TOK)
    assert repr(view).startswith("AttentionView: 1 layers × 2 heads, maps 10×10")


def test_gradient_monitor_html_and_repr():
    model = gpt()
    empty = GradientMonitor(model)
    with messages.speaking("en"):
        told = empty._repr_html_()  # no table yet: a note naming the calls that fill it
    assert_says_what_to_call(told) and "loss.backward()" in repr(empty)
    monitor = gradient_flow(model, ids())
    page = monitor._repr_html_()
    for r in monitor.rows:
        assert f">{r.name}<" in page and f"{r.grad_norm:.2e}" in page
    assert f"loss {monitor.loss:.4f}" in repr(monitor) and monitor.table() in repr(monitor)
    assert "<" not in repr(monitor)
    with messages.speaking("zh"):
        page = monitor._repr_html_()
        assert f">{zh('status')}<" in page and f">{zh('ok')}<" in page
        assert "status" not in page
        assert_says_what_to_call(empty._repr_html_()) and empty._repr_html_() != told
        assert CJK.search(empty._repr_html_())
        assert monitor.table().split()[:2] == ["参数", "形状"] and monitor.table(lang="en").startswith("parameter")


def assert_says_what_to_call(page: str) -> bool:
    """A monitor that has checked nothing shows one note, no table, that names the calls to make."""
    [(tag, _, words)] = elements(page)
    assert tag == "div" and page == note(words)
    assert all(call in words for call in ("loss.backward()", "monitor.check()", "inspect.gradient_flow("))
    return True


def test_gradient_flow_leaves_the_model_as_it_was():
    model = gpt(dropout=0.1).train()
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    rng = torch.get_rng_state()
    monitor = gradient_flow(model, ids(), lr=1e-2)
    assert model.training and torch.equal(torch.get_rng_state(), rng)
    assert all(torch.equal(p, before[n]) and p.grad is None for n, p in model.named_parameters())
    assert all(r.update_ratio is not None for r in monitor.rows if r.name.endswith("weight"))


def test_gradient_flow_takes_the_shapes_a_user_has():
    model = gpt()
    one = gradient_flow(model, ids(), lr=None)  # (T,)
    batch = gradient_flow(model, ids()[None], lr=None)  # (1, T)
    listed = gradient_flow(model, TOK.encode(TEXT), lr=None)  # a list
    assert one.loss == batch.loss == listed.loss
    assert [r.grad_norm for r in one.rows] == [r.grad_norm for r in batch.rows]
    regressor = SequenceRegressor(ModelConfig(kind="regressor", d_model=16, n_heads=2, d_ff=24, n_layers=1, max_len=16))
    wave = torch.sin(torch.arange(12.0))  # (T,) numbers
    assert gradient_flow(regressor, wave).loss == gradient_flow(regressor, wave[:, None]).loss
    assert keyed(UsageError, gradient_flow, model, ids()[:1]) == ("grads.too_short", {"T": 1})
    wide = SequenceRegressor(
        ModelConfig(kind="regressor", d_model=16, n_heads=2, d_ff=24, n_layers=1, max_len=16, d_out=3)
    )
    assert keyed(UsageError, gradient_flow, wide, wave) == (
        "grads.targets",
        {"shape": (1, 11, 1), "out": (1, 11, 3), "want": (1, 11, 3)},
    )


def test_attention_view_html_is_inline_escaped_and_offline():
    model = gpt()
    labels = ["</script>", "http://a.b", *list("xyzuvw")]
    view = attention_view(model, ids("<b>&ok</b")[:8], labels=labels)
    page = view._repr_html_()
    image = re.search(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page).group(1)
    assert base64.b64decode(image).startswith(PNG_SIGNATURE)
    srcdoc = re.search(r'srcdoc="([^"]*)"', page).group(1)
    assert html.unescape(srcdoc) == view.page()  # the interactive page, whole, inside the frame
    assert "<script" not in page and "</script>" not in page  # scripts live only inside srcdoc, escaped
    assert re.search(r"https?://", page) is None and 'sandbox="allow-scripts"' in page
    W = view.weights  # (L, H, T, T)
    assert W.shape == (2, 2, 8, 8) and torch.allclose(W.sum(-1), torch.ones(2, 2, 8))


def test_attention_view_repr_shows_the_chosen_heads_numbers():
    model = gpt()
    view = attention_view(model, ids()[None], tokenizer=TOK, layer=1, head=1)
    text = repr(view)
    assert text.startswith("AttentionView: 2 layers × 2 heads, maps 10×10") and "<table" not in text
    assert text.splitlines()[1].startswith("blocks.1.attn.weights, head 1")
    last = text.splitlines()[-1].split()
    assert last[1:] == [f"{v:.2f}" for v in view.weights[1, 1, -1].tolist()]  # the last query's row
    assert text.splitlines()[3].split()[2:] == ["·"] * (len(ids()) - 1)  # the first query sees only itself
    assert keyed(UsageError, attention_view, model, ids(), layer=2) == (
        "inspect.head_range",
        {"layer": 2, "head": None, "last_layer": 1, "last_head": 1},
    )


def test_attention_view_of_numbers_and_its_files(tmp_path):
    regressor = SequenceRegressor(ModelConfig(kind="regressor", d_model=16, n_heads=2, d_ff=24, n_layers=1, max_len=16))
    view = attention_view(regressor, torch.linspace(0, 1, 6))  # (T,) numbers
    assert isinstance(view, AttentionView) and view.labels == ["0", "0.2", "0.4", "0.6", "0.8", "1"]
    png, page = view.save(tmp_path)
    assert png.read_bytes().startswith(PNG_SIGNATURE) and page.read_text(encoding="utf-8") == view.page()


@pytest.mark.parametrize("shape", ["(T,)", "(1, T)", "list"])
def test_attention_files_take_the_shapes_a_user_has(tmp_path, shape):
    model = gpt()
    x = {"(T,)": ids(), "(1, T)": ids()[None], "list": TOK.encode(TEXT)}[shape]
    attention_grid_png(model, x, None, tmp_path / "grid.png")
    attention_head_png(model, x, None, 1, 0, tmp_path / "head.png")
    page = attention_html(model, x, None, tmp_path / "a.html").read_text(encoding="utf-8")
    reference = attention_html(model, ids()[None], None, tmp_path / "ref.html").read_text(encoding="utf-8")
    assert page == reference and (tmp_path / "grid.png").read_bytes().startswith(PNG_SIGNATURE)


@pytest.mark.parametrize(
    "given,expected",
    [
        ((7,), (1, 7, 1)),
        ((7, 1), (1, 7, 1)),
        ((1, 7), (1, 7, 1)),
        ((3, 7), (3, 7, 1)),
        ((1,), (1, 1, 1)),
        ((2, 7, 1), (2, 7, 1)),
    ],
)
def test_numbers_come_as_a_batch_in_any_natural_shape(given, expected):
    regressor = SequenceRegressor(ModelConfig(kind="regressor", d_model=16, n_heads=2, d_ff=24, n_layers=1, max_len=16))
    assert tuple(as_batch(regressor, torch.zeros(given)).shape) == expected


def test_attention_view_of_an_encoder_decoder_draws_every_shape():
    from glassformer.models import EncoderDecoder
    from glassformer.train.data import pair_source

    data = pair_source("numbers:zh2num")
    torch.manual_seed(0)
    model = EncoderDecoder(
        ModelConfig(
            kind="seq2seq",
            vocab_size=data.tokenizer.vocab_size,
            d_model=16,
            n_heads=2,
            d_ff=24,
            max_len=12,
            pad_id=0,
            n_layers=1,
        )
    ).eval()
    words = "一千二百零五"
    src = data.ids(words)  # a list: (S,)
    tgt = torch.tensor([data.tokenizer.bos_id] + data.ids("1205"))  # (T,)
    view = attention_view(model, (src, tgt), tokenizer=data.tokenizer, layer=2, head=1)
    shapes = [tuple(m.weights.shape) for m in view.maps]  # encoder S×S, decoder T×T, cross T×S
    bos = data.tokenizer.decode([data.tokenizer.bos_id])  # the target side by its own tokens too
    assert view.labels["T"] == [bos, *"1205"]
    assert view.labels["S"] == list(words)  # one character a token
    assert shapes == [(2, len(src), len(src)), (2, len(tgt), len(tgt)), (2, len(tgt), len(src))]
    page = view._repr_html_()
    assert "data:image/png;base64," in page and "<iframe" not in page  # the page shows one square shape only
    with messages.speaking("en"), said() as heard:
        text = repr(view)
    assert heard.carrying(name="decoder.0.cross.weights", head=1)  # the chosen map: the last layer's cross head 1
    assert "decoder.0.cross.weights" in text.splitlines()[1] and "1" in text.splitlines()[1]
    assert "一" in text.splitlines()[2]  # source tokens label the keys
    assert keyed(UsageError, lambda: view.weights) == ("inspect.view_shape", {})


CELL = "padding: 2px 8px; border-bottom: 1px solid #e5e5e5; text-align: left; vertical-align: top"
MONO = "; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; white-space: pre"
RIGHT = "; text-align: right"
OPEN = '<table style="border-collapse: collapse; font-size: 12px; margin: 0.4em 0">'


def th(text, extra=""):
    return f'<th style="{CELL}{extra}">{text}</th>'


def td(text, extra=""):
    return f'<td style="{CELL}{extra}">{text}</td>'


def test_a_table_whole_monospace_only_in_body_cells_right_alignment_in_both_and_row_styles():
    page = table(
        ("a", "b<", "c"),
        [["x", "y&", Raw("<i>z</i>")], ["1", "2", "3"]],
        mono=(1,),
        right=(2,),
        row_styles=["color: red", ""],
    )
    head = th("a") + th("b&lt;") + th("c", RIGHT)  # a header cell is never monospaced
    row1 = td("x") + td("y&amp;", MONO) + td("<i>z</i>", RIGHT)  # Raw passes through unescaped
    row2 = td("1") + td("2", MONO) + td("3", RIGHT)
    assert page == (
        f'{OPEN}<thead><tr>{head}</tr></thead><tbody><tr style="color: red">{row1}</tr><tr>{row2}</tr></tbody></table>'
    )


def test_a_table_escapes_quotes_too_and_takes_no_row_styles():
    page = table(("q",), [["say \"hi\" 'x'"]])
    assert page == (
        f"{OPEN}<thead><tr>{th('q')}</tr></thead><tbody>"
        f"<tr>{td('say &quot;hi&quot; &#x27;x&#x27;')}</tr></tbody></table>"
    )


def test_a_note_is_grey_small_and_escaped():
    assert elements(note("a<b")) == [("div", {"color": "#555", "font-size": "12px"}, "a<b")]
    assert "a&lt;b" in note("a<b")


def test_status_words_in_both_languages_and_unknown_statuses_unchanged():
    statuses = ("ok", "no grad", "vanishing", "exploding", "nan/inf", "odd")
    with messages.speaking("en"):
        english = [status_words(s) for s in statuses]
    with messages.speaking("zh"):
        chinese = [status_words(s) for s in statuses]
    assert english[-1] == chinese[-1] == "odd"  # an unknown status: as is
    assert len(set(english)) == len(set(chinese)) == len(statuses)  # each known status its own words
    assert all(CJK.search(c) and c != e for e, c in zip(english[:-1], chinese[:-1], strict=True))


TABLE = ParamTable(
    [
        ParamRow("tok_embed", 1600, "V·C", 1600, "one C-vector per token", "每个词元一个向量"),
        ParamRow("head", 170, "C·V + V", 176, "C -> V"),
    ],
    {"V": 10, "C": 160},
)


def params_head(say):
    """The parameter table's header row in `say`'s language: counts right-aligned."""
    aligns = ("", RIGHT, "", RIGHT, "")  # module, params, formula, expected, note
    return "".join(th(html.escape(say(k)), extra) for k, extra in zip(PARAM_COLUMNS, aligns, strict=True))


def test_params_html_whole_in_english():
    tok_embed, head = TABLE.rows
    row1 = td("tok_embed", MONO) + td("1,600", RIGHT) + td("V·C", MONO) + td("1,600", RIGHT) + td(tok_embed.note)
    mismatch = html.escape(f"{head.note}  {en('≠ formula!')}")  # the count differs from the formula's
    row2 = td("head", MONO) + td("170", RIGHT) + td("C·V + V", MONO) + td("176", RIGHT) + td(mismatch)
    total = td(en("total"), MONO) + td("1,770", RIGHT) + td("", MONO) + td("1,776", RIGHT) + td("")
    with messages.speaking("en"), said() as heard:
        page = params_html(TABLE)
    [(symbols, fields)] = [(msgid, f) for msgid, f in heard if f == {"symbols": "V=10, C=160"}]
    assert page == (
        f'{OPEN}<thead><tr>{params_head(en)}</tr></thead><tbody><tr>{row1}</tr><tr style="background: #fde2e2">'
        f'{row2}</tr><tr style="font-weight: bold">{total}</tr></tbody></table>'
        f"{note(messages.t(symbols, **fields))}"  # the symbols' values, under the table
    )


def test_params_html_whole_in_chinese():
    with messages.speaking("zh"), said() as heard:
        page = params_html(TABLE)
        [(symbols, fields)] = [(msgid, f) for msgid, f in heard if f == {"symbols": "V=10, C=160"}]
        symbols_note = note(messages.t(symbols, **fields))
    tok_embed, head = TABLE.rows
    assert f"<thead><tr>{params_head(zh)}</tr></thead>" in page
    assert td(tok_embed.note_zh) in page  # the note's Chinese, given by the row
    mismatch = rows_of(page)[1][-1]  # a note with no zh stays as is; the mark is in Chinese
    assert mismatch.startswith(head.note) and CJK.search(mismatch[len(head.note) :])
    assert td(zh("total"), MONO) in page and page.endswith(symbols_note) and CJK.search(symbols_note)


def grad_row(name, layer, norm, mean, ratio, status):
    return SimpleNamespace(
        name=name, layer=layer, shape=(2, 3), grad_norm=norm, grad_abs_mean=mean, update_ratio=ratio, status=status
    )


def monitor(*rows):
    return SimpleNamespace(rows=list(rows), layer_norms=lambda: {"embed": 0.5, "blocks.0": 12.0})


def bar(width, norm):
    return (
        f'<span style="display: inline-block; width: {width}px; height: 9px; background: #4c72b0; '
        f'margin-right: 6px"></span>{norm}'
    )


def status(colour, words):
    return f'<span style="color: {colour}">{words}</span>'


def test_grads_html_whole_bars_on_a_log_scale_from_8_to_100_px_and_coloured_statuses():
    with messages.speaking("en"), said() as heard:
        page = grads_html(
            monitor(
                grad_row("a.weight", "embed", 1e-3, 2e-4, 0.5, "ok"),
                grad_row("b.weight", "blocks.0", 1e-1, None, None, "vanishing"),  # log10 halfway
                grad_row("c.bias", "blocks.0", 10.0, 3.0, 1e-3, "exploding"),
                grad_row("d.bias", "head", None, None, None, "no grad"),
                grad_row("e.bias", "head", float("nan"), float("inf"), None, "nan/inf"),
                grad_row("f.bias", "head", 0.0, 0.0, None, "weird"),
            )
        )
    headers = texts(page, "th")  # seven columns, each a sentence the table said
    worded = {messages.t(m) for m, f in heard if not f}
    assert len(set(headers)) == 7 and set(headers) <= worded
    head = "".join(th(html.escape(h)) for h in headers)

    def row(name, layer, norm_cell, mean, ratio, stat):
        return (
            "<tr>"
            + td(name, MONO)
            + td(layer)
            + td("(2, 3)", MONO)
            + td(norm_cell)
            + td(mean, MONO)
            + td(ratio, MONO)
            + td(stat)
            + "</tr>"
        )

    def coloured(colour, status_key):
        with messages.speaking("en"):
            return status(colour, html.escape(status_words(status_key)))

    rows = (
        row("a.weight", "embed", bar(8, "1.00e-03"), "2.00e-04", "5.00e-01", coloured("#2e7d32", "ok"))
        + row("b.weight", "blocks.0", bar(54, "1.00e-01"), "—", "—", coloured("#b26a00", "vanishing"))
        + row(
            "c.bias",
            "blocks.0",
            bar(100, "1.00e+01"),
            "3.00e+00",
            "1.00e-03",
            coloured("#c62828", "exploding"),
        )
        + row("d.bias", "head", "—", "—", "—", coloured("#777", "no grad"))
        + row("e.bias", "head", "nan", "inf", "—", coloured("#c62828", "nan/inf"))
        + row("f.bias", "head", "0.00e+00", "0.00e+00", "—", status("#000", "weird"))  # unknown: as is, black
    )
    [(layers, fields)] = [(m, f) for m, f in heard if f == {"layers": "embed 5.00e-01, blocks.0 1.20e+01"}]
    per_layer = note(messages.t(layers, **fields))  # each layer's norm, in data-flow order
    assert page == f"{OPEN}<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>{per_layer}"


def test_grads_html_with_one_finite_norm_draws_the_shortest_bar_and_speaks_chinese():
    rows = monitor(grad_row("a", "embed", 2.0, 1.0, 1.0, "no grad"))
    with messages.speaking("en"):
        english = texts(grads_html(rows), "th")
    with messages.speaking("zh"), said() as heard:
        page = grads_html(rows)
        no_grad = status_words("no grad")
    assert bar(8, "2.00e+00") in page and status("#777", html.escape(no_grad)) in page and CJK.search(no_grad)
    chinese = texts(page, "th")  # every header in Chinese, none left as the English
    assert len(chinese) == len(english) == 7
    assert all(CJK.search(c) and c != e for c, e in zip(chinese, english, strict=True))
    assert heard.carrying(layers="embed 5.00e-01, blocks.0 1.20e+01")  # the per-layer norms, under the table
    tag, _, words = elements(page)[-1]
    assert tag == "div" and CJK.search(words) and "1.20e+01" in words  # translated too


def test_grads_html_before_any_check_says_what_to_do_in_both_languages():
    with messages.speaking("en"):
        english = grads_html(monitor())
    with messages.speaking("zh"):
        chinese = grads_html(monitor())
    assert assert_says_what_to_call(english) and assert_says_what_to_call(chinese)
    assert CJK.search(chinese) and not CJK.search(english)


def test_grads_html_bars_span_8_to_100_px_even_when_norms_differ_by_less_than_ten_times():
    page = grads_html(monitor(grad_row("a", "embed", 1.0, 1.0, 1.0, "ok"), grad_row("b", "embed", 2.0, 1.0, 1.0, "ok")))
    assert bar(8, "1.00e+00") in page and bar(100, "2.00e+00") in page


def test_grads_html_with_no_finite_norm_at_all_draws_no_bar():
    page = grads_html(
        monitor(
            grad_row("a", "embed", None, None, None, "no grad"),
            grad_row("b", "embed", float("inf"), None, None, "nan/inf"),
        )
    )
    assert td("—") in page and td("inf") in page
    assert not [style for _, style, _ in elements(page, "span") if "display" in style]  # no bar, only statuses
