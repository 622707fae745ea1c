"""The notebook HTML of display.py checked whole: every tag, style, cell and word a learner's
notebook renders, in both languages, so that any change to a table, a colour, a column's
alignment or a note shows. Inputs are small hand-made tables and monitors (no model), so each
expected page is written out in full here."""

from types import SimpleNamespace

from glassformer import messages
from glassformer.inspect.display import Raw, grads_html, note, params_html, status_words, table
from glassformer.inspect.params import ParamRow, ParamTable

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
    assert note("a<b") == '<div style="color: #555; font-size: 12px">a&lt;b</div>'


def test_status_words_in_both_languages_and_unknown_statuses_unchanged():
    en = {s: status_words(s) for s in ("ok", "no grad", "vanishing", "exploding", "nan/inf", "odd")}
    assert en == {
        "ok": "ok",
        "no grad": "no grad",
        "vanishing": "vanishing",
        "exploding": "exploding",
        "nan/inf": "nan/inf",
        "odd": "odd",
    }
    with messages.speaking("zh"):
        zh = [status_words(s) for s in ("ok", "no grad", "vanishing", "exploding", "nan/inf", "odd")]
    assert zh == ["正常", "无梯度", "消失", "爆炸", "NaN/无穷", "odd"]


TABLE = ParamTable(
    [
        ParamRow("tok_embed", 1600, "V·C", 1600, "one C-vector per token", "每个词元一个向量"),
        ParamRow("head", 170, "C·V + V", 176, "C -> V"),
    ],
    {"V": 10, "C": 160},
)


def test_params_html_whole_in_english():
    head = th("module") + th("params", RIGHT) + th("formula") + th("= formula", RIGHT) + th("note")
    row1 = (
        td("tok_embed", MONO) + td("1,600", RIGHT) + td("V·C", MONO) + td("1,600", RIGHT) + td("one C-vector per token")
    )
    row2 = td("head", MONO) + td("170", RIGHT) + td("C·V + V", MONO) + td("176", RIGHT) + td("C -&gt; V  ≠ formula!")
    total = td("total", MONO) + td("1,770", RIGHT) + td("", MONO) + td("1,776", RIGHT) + td("")
    assert params_html(TABLE) == (
        f'{OPEN}<thead><tr>{head}</tr></thead><tbody><tr>{row1}</tr><tr style="background: #fde2e2">{row2}</tr>'
        f'<tr style="font-weight: bold">{total}</tr></tbody></table>'
        '<div style="color: #555; font-size: 12px">symbols: V=10, C=160</div>'
    )


def test_params_html_whole_in_chinese():
    with messages.speaking("zh"):
        page = params_html(TABLE)
    head = th("模块") + th("参数量", RIGHT) + th("公式") + th("= 公式", RIGHT) + th("说明")
    assert f"<thead><tr>{head}</tr></thead>" in page
    assert td("每个词元一个向量") in page and td("C -&gt; V  ≠ 公式！") in page  # a note with no zh stays as is
    assert td("合计", MONO) in page and page.endswith(
        '<div style="color: #555; font-size: 12px">符号：V=10, C=160</div>'
    )


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
    head = (
        th("parameter")
        + th("layer")
        + th("shape")
        + th("‖grad‖ (bar: log scale)")
        + th("mean|g|")
        + th("upd/w")
        + th("status")
    )

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

    rows = (
        row("a.weight", "embed", bar(8, "1.00e-03"), "2.00e-04", "5.00e-01", status("#2e7d32", "ok"))
        + row("b.weight", "blocks.0", bar(54, "1.00e-01"), "—", "—", status("#b26a00", "vanishing"))
        + row("c.bias", "blocks.0", bar(100, "1.00e+01"), "3.00e+00", "1.00e-03", status("#c62828", "exploding"))
        + row("d.bias", "head", "—", "—", "—", status("#777", "no grad"))
        + row("e.bias", "head", "nan", "inf", "—", status("#c62828", "nan/inf"))
        + row("f.bias", "head", "0.00e+00", "0.00e+00", "—", status("#000", "weird"))
    )
    assert page == (
        f"{OPEN}<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
        '<div style="color: #555; font-size: 12px">gradient norm per layer (input side first): '
        "embed 5.00e-01, blocks.0 1.20e+01</div>"
    )


def test_grads_html_with_one_finite_norm_draws_the_shortest_bar_and_speaks_chinese():
    with messages.speaking("zh"):
        page = grads_html(monitor(grad_row("a", "embed", 2.0, 1.0, 1.0, "no grad")))
    assert bar(8, "2.00e+00") in page and status("#777", "无梯度") in page
    assert th("‖梯度‖（条形：对数刻度）") in page and th("状态") in page
    assert page.endswith(
        '<div style="color: #555; font-size: 12px">逐层梯度范数（从输入端开始）：embed 5.00e-01, blocks.0 1.20e+01</div>'
    )  # the note translated too


def test_grads_html_before_any_check_says_what_to_do_in_both_languages():
    assert grads_html(monitor()) == (
        '<div style="color: #555; font-size: 12px">GradientMonitor: nothing checked '
        "yet. Call loss.backward(), then monitor.check() (or use "
        "inspect.gradient_flow(model, ids)).</div>"
    )
    with messages.speaking("zh"):
        assert grads_html(monitor()) == (
            '<div style="color: #555; font-size: 12px">GradientMonitor：还没有检查过。'
            "先调用 loss.backward()，再调用 monitor.check()（或使用 "
            "inspect.gradient_flow(model, ids)）。</div>"
        )


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
    assert td("—") in page and td("inf") in page and '<span style="display' not in page
