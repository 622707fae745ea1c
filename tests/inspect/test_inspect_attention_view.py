"""AttentionView checked whole on hand-made maps (no model: every weight is written here): the
terminal table word for word, its title, the cut to 12 tokens, the notebook HTML's frame, which
figure each choice of layer/head draws, and the files it saves. Then the interactive viewer's page
checked whole: the data the page's script reads, number for number and label for label.

Kept word for word on purpose: one terminal table (TITLE and the first test), what a learner reads in a
terminal, where wide labels must count two columns; every other heading and title is found as the
sentence said with its fields (a map's name, a head, a cut), so the English may be reworded freely."""

import base64
import html
import json
import re

import pytest
import torch
from helpers import keyed, said, strict_json

from glassformer.config import ModelConfig
from glassformer.errors import UsageError
from glassformer.fonts import SANS
from glassformer.inspect.attention_maps import AttentionMap, attention_maps, masked_note
from glassformer.inspect.attention_view import CSS, JS, AttentionView, attention_html, attention_page, script_json
from glassformer.messages import t
from glassformer.models import GPT

W = torch.tensor(
    [[[1, 0, 0], [0.25, 0.75, 0], [0.1, 0.2, 0.7]], [[1, 0, 0], [0.5, 0.5, 0], [0.333, 0.333, 0.334]]]
)  # (H, T_q, T_k)
CAUSAL = torch.triu(torch.ones(3, 3, dtype=torch.bool), 1).expand(2, 3, 3)  # (H, T_q, T_k)
MAPS = [
    AttentionMap("blocks.0.attn.weights", "B H T_q T_k", W, CAUSAL),
    AttentionMap("blocks.1.attn.weights", "B H T_q T_k", W.flip(0), CAUSAL),
]
TITLE = "AttentionView: 2 layers × 2 heads, maps 3×3; grey hatched = masked (may not attend)"


CJK = re.compile(r"[\u4e00-\u9fff]")


def told(make):
    """What `make()` returns, and the sentences said making it (a heading, a title): a test finds
    them by their fields (a map's name, a head, a cut) instead of typing their English."""
    with said() as heard:
        made = make()
    return made, heard


def test_the_terminal_table_of_the_chosen_head_whole_wide_labels_counting_two_columns():
    view = AttentionView(MAPS, ["a", "你好", "c"], layer=1, head=1)  # layer 1 head 1 = W's head 0
    # snapshot: the terminal table a learner reads word for word, wide labels counting two columns
    assert repr(view) == "\n".join(
        [
            TITLE,
            "blocks.1.attn.weights, head 1 (rows = query, columns = key; · = masked):",
            "           a  你好     c",
            "     a  1.00     ·     ·",
            "  你好  0.25  0.75     ·",
            "     c  0.10  0.20  0.70",
        ]
    )


def test_without_a_choice_the_table_is_layer_0_head_0_and_a_long_label_widens_every_column():
    view = AttentionView(MAPS, ["a", "b", "longer"])
    text, heard = told(lambda: repr(view))
    lines = text.splitlines()
    assert lines[1] == heard.sentence(name="blocks.0.attn.weights", head=0, cut="")  # the map and head shown
    other, heard = told(lambda: repr(AttentionView(MAPS, list("abc"), layer=0, head=1)))
    assert other.splitlines()[1] == heard.sentence(name="blocks.0.attn.weights", head=1, cut="")
    assert lines[2:] == [
        "             a      b longer",  # every column 7 wide: the longest label + 1
        "      a   1.00      ·      ·",
        "      b   0.25   0.75      ·",
        " longer   0.10   0.20   0.70",
    ]


def test_more_than_12_tokens_are_cut_to_the_first_12_and_the_cut_is_said():
    T = 13
    w = torch.full((1, T, T), 1 / T)  # (H, T_q, T_k)
    view = AttentionView(
        [AttentionMap("enc.0.attn.weights", "B H T_q T_k", w, torch.zeros(1, T, T, dtype=torch.bool))],
        [str(i) for i in range(T)],
    )
    text, heard = told(lambda: repr(view))
    lines = text.splitlines()
    assert lines[0] == heard.sentence(layers=1, heads=1, shapes="13×13", masked="")  # no note
    cut = heard.sentence(rows=12, cols=12)  # the cut is said, with its size
    assert lines[1] == heard.sentence(name="enc.0.attn.weights", head=0, cut=cut)
    assert len(lines) == 3 + 12 and lines[2].split() == [str(i) for i in range(12)]
    assert lines[3] == "     0" + "  0.08" * 12
    exact = AttentionView(
        [AttentionMap("x", "B H T_q T_k", w[:, :12, :12], torch.zeros(1, 12, 12, dtype=torch.bool))],
        [str(i) for i in range(12)],
    )
    text, heard = told(lambda: repr(exact))
    assert text.splitlines()[1] == heard.sentence(name="x", head=0, cut="")  # 12 fit: no cut


def test_maps_of_several_shapes_are_each_named_in_the_title_and_do_not_stack():
    cross = AttentionMap(
        "dec.0.cross.weights", "B H T_q S", torch.full((2, 3, 4), 0.25), torch.zeros(2, 3, 4, dtype=torch.bool)
    )
    view = AttentionView([MAPS[0], cross], {"S": list("wxyz"), "T": list("abc")})
    title, heard = told(view._title)
    assert title == heard.sentence(layers=2, heads=2, shapes="3×3, 3×4", masked="; " + masked_note())
    assert not view.square and AttentionView(MAPS, list("abc")).square
    for field in ("weights", "masked"):
        with pytest.raises(ValueError) as e:
            getattr(view, field)
        assert e.value.code == "inspect.view_shape" and e.value.fields == {}
    lines = repr(AttentionView([MAPS[0], cross], {"S": list("wxyz"), "T": list("abc")}, layer=1)).splitlines()
    assert lines[2].split() == ["w", "x", "y", "z"] and [row.split()[0] for row in lines[3:]] == ["a", "b", "c"]
    page = view._repr_html_()
    assert "<iframe" not in page and page.endswith('"></div>')


def test_weights_and_masked_stack_layer_by_layer():
    view = AttentionView(MAPS, list("abc"))
    assert torch.equal(view.weights, torch.stack([W, W.flip(0)])) and torch.equal(
        view.masked, torch.stack([CAUSAL] * 2)
    )


@pytest.mark.parametrize(
    "layer,head,title",
    [
        (None, None, None),
        (1, None, ("blocks.1.attn.weights", 0)),
        (None, 1, ("blocks.0.attn.weights", 1)),
        (1, 1, ("blocks.1.attn.weights", 1)),
    ],
)
def test_the_figure_is_the_grid_or_the_one_head_chosen(layer, head, title):
    fig, heard = told(AttentionView(MAPS, list("abc"), layer, head).figure)
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    if title is None:  # the grid: a title per layer and head
        assert titles == [heard.sentence(name=f"blocks.{i}.attn", head=h) for i in (0, 1) for h in (0, 1)]
    else:  # the one head chosen, and the note on its masked cells
        name, h = title
        assert titles == [heard.sentence(name=name, head=h, masked="\n" + masked_note())]


def png_width(data: bytes) -> int:
    return int.from_bytes(data[16:20], "big")  # the IHDR chunk's width


def test_the_notebook_html_whole_around_the_picture_and_the_frame():
    view = AttentionView(MAPS, list("abc"))
    page, heard = told(view._repr_html_)
    image = re.search(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page).group(1)
    assert base64.b64decode(image) == view.png()
    summary = html.unescape(re.search("<summary>(.*?)</summary>", page).group(1))  # what the frame holds
    assert summary in {t(m) for m, f in heard if not f} - {masked_note()}  # a sentence of its own
    # snapshot: the notebook frame's markup whole: its structure is the point, its one sentence read from what was said
    assert page == (
        f'<div><img alt="{html.escape(view._title())}" style="max-width: 100%" src="data:image/png;base64,{image}">'
        f"<details><summary>{html.escape(summary)}</summary>"
        '<iframe sandbox="allow-scripts" style="width: 100%; height: 404px; border: 1px solid #ddd" '
        f'srcdoc="{html.escape(view.page(), quote=True)}"></iframe></details></div>'
    )  # 260 + 48·3


@pytest.mark.parametrize("T,height", [(23, 1364), (24, 1400), (25, 1400)])
def test_the_frame_grows_48_px_a_token_up_to_1400(T, height):
    w = torch.full((1, T, T), 1 / T)  # (H, T_q, T_k)
    view = AttentionView(
        [AttentionMap("a.weights", "B H T_q T_k", w, torch.zeros(1, T, T, dtype=torch.bool))],
        [str(i) for i in range(T)],
    )
    assert f"height: {height}px;" in view._repr_html_()


def test_png_is_drawn_at_the_dpi_asked_for_and_save_uses_110(tmp_path):
    view = AttentionView(MAPS, list("abc"), layer=0, head=0)
    default, sharp = png_width(view.png()), png_width(view.png(dpi=180))
    assert sharp == 2 * default  # 90 dpi unless told
    files = view.save(str(tmp_path / "new" / "deeper"))
    assert files == [tmp_path / "new" / "deeper" / "attention.png", tmp_path / "new" / "deeper" / "attention.html"]
    assert png_width(files[0].read_bytes()) == png_width(view.png(dpi=110))
    assert files[1].read_bytes().decode("utf-8") == view.page()
    assert view.save(tmp_path / "new" / "deeper") == files  # a second save into the same folder


def test_maps_of_several_shapes_save_only_the_picture(tmp_path):
    cross = AttentionMap(
        "dec.0.cross.weights", "B H T_q S", torch.full((2, 3, 4), 0.25), torch.zeros(2, 3, 4, dtype=torch.bool)
    )
    files = AttentionView([MAPS[0], cross], {"S": list("wxyz"), "T": list("abc")}).save(tmp_path)
    assert files == [tmp_path / "attention.png"] and sorted(p.name for p in tmp_path.iterdir()) == ["attention.png"]


# ---- the interactive viewer's page -------------------------------------------------------------
CFG = ModelConfig(vocab_size=7, d_model=4, n_heads=2, d_ff=6, n_layers=1, max_len=5)


def page_data(page: str) -> dict:
    return json.loads(re.search(r"<script>const DATA = (.*);</script>", page).group(1))


def test_the_page_carries_every_weight_rounded_to_4_places_masked_cells_as_null():
    """L=1, H=2, T_q=3, T_k=4 (all different, so no axis can stand in for another)."""
    W = torch.arange(24, dtype=torch.float64).reshape(1, 2, 3, 4) / 7 + 0.000041  # (L, H, T_q, T_k)
    hidden = torch.zeros(1, 2, 3, 4, dtype=torch.bool)
    hidden[0, 1, 0, 3] = True  # one masked cell
    page = attention_page(W, hidden, ["你", "</script>", "a&b", "http://x"])
    data = page_data(page)
    expected = [[[[round(float(W[0, h, i, j]), 4) for j in range(4)] for i in range(3)] for h in range(2)]]
    expected[0][1][0][3] = None
    words = data.pop("words")  # the page's own words, in its language (tests/e2e/browser/test_page_fonts_browser.py)
    assert data == {"tokens": ["你", "</script>", "a&b", "http://x"], "weights": expected, "kv": [0, 1], "groups": 1}
    assert set(words) == {"layer", "head", "all_heads", "matrix", "masked", "kv"}
    assert data["weights"][0][0][0][1] == 0.1429  # 1/7 + 0.000041 = 0.142898...: 4 places, not 5
    script = re.search(r"<script>const DATA = (.*);</script>", page).group(1)
    assert "你" in script and "\\u4f60" not in script  # Chinese written as itself
    assert '"</script>"' not in script and "\\u003c\\/script\\u003e" in script and "a\\u0026b" in script
    assert "http:\\/\\/x" in script  # no URL anywhere in the file
    assert page.startswith(
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>glassformer attention</title>'
    )
    assert f"{CSS.replace('SANS', SANS)}</style>" in page and f"<script>{JS}</script>" in page


def test_the_page_names_positions_when_there_are_no_labels_and_counts_keys_for_them():
    W = torch.full((1, 1, 2, 3), 1 / 3)  # (L, H, T_q, T_k)
    data = page_data(attention_page(W, torch.zeros(1, 1, 2, 3, dtype=torch.bool), None))
    assert data["tokens"] == ["0", "1", "2"] and data["weights"] == [[[[0.3333] * 3] * 2]]
    assert keyed(UsageError, attention_page, W, torch.zeros(1, 1, 2, 3, dtype=torch.bool), ["a", "b"]) == (
        "inspect.labels_count",
        {"n": 2, "tokens": 3},
    )


def test_attention_html_writes_the_page_of_that_model_and_those_labels_into_new_folders(tmp_path):
    torch.manual_seed(0)
    model = GPT(CFG).eval()
    ids = torch.tensor([[1, 2, 3]])
    labels = ["你", "好", "!"]
    path = attention_html(model, ids, labels, str(tmp_path / "a" / "b" / "view.html"))
    assert path == tmp_path / "a" / "b" / "view.html"
    assert path.read_bytes().decode("utf-8") == attention_page(*attention_maps(model, ids), labels)
    assert attention_html(model, ids, labels, path).read_text(encoding="utf-8") == path.read_text(encoding="utf-8")


def test_attention_view_labels_a_token_model_with_its_tokenizers_pieces():
    from glassformer.inspect.attention_view import attention_view
    from glassformer.text.tokenizers import CharTokenizer

    torch.manual_seed(0)
    tok = CharTokenizer(list("ab c"))  # four characters, a space among them
    ids = torch.tensor([tok.encode("ca b")])  # (1, T)
    view = attention_view(GPT(CFG).eval(), ids, tokenizer=tok)
    assert view.labels == ["c", "a", "␣", "b"]  # the tokenizer's pieces, the space made visible
    assert attention_view(GPT(CFG).eval(), ids).labels == ["0", "1", "2", "3"]  # no tokenizer: positions


# ---- grouped-query attention: each query head under the key-value head it shares ------------------
GQA = ModelConfig(
    vocab_size=7, d_model=16, n_heads=4, n_kv_heads=2, d_ff=8, n_layers=2, max_len=8, norm_type="rms", position="rope"
)


def test_grouped_query_maps_name_the_key_value_head_each_query_head_shares(tmp_path):
    """4 query heads over 2 key-value heads: heads 0, 1 read kv head 0 and heads 2, 3 kv head 1 —
    in the maps' data, the grid's titles (en and zh) and the page's head list; an MHA model names none."""
    from glassformer.inspect.attention_maps import attention_map_list
    from glassformer.messages import speaking

    torch.manual_seed(0)
    ids = torch.tensor([[1, 2, 3, 4, 5]])
    maps = attention_map_list(GPT(GQA).eval(), ids)
    assert [m.groups for m in maps] == [2, 2] and [maps[1].kv_head(h) for h in range(4)] == [0, 0, 1, 1]
    assert maps[0].weights.shape == (4, 5, 5)  # a map per query head: the shared keys score differently
    title, heard = told(lambda: maps[1].title(3))
    assert title == heard.sentence(name="blocks.1.attn", head=3, kv=1)  # head 3 shares kv head 1
    with speaking("zh"):
        chinese = maps[1].title(3)
    assert CJK.search(chinese) and chinese != title and "blocks.1.attn" in chinese
    path = attention_html(GPT(GQA).eval(), ids, None, tmp_path / "view.html")
    data = page_data(path.read_text(encoding="utf-8"))
    assert (data["kv"], data["groups"]) == ([0, 0, 1, 1], 2)
    mha = attention_map_list(GPT(CFG).eval(), torch.tensor([[1, 2, 3]]))
    title, heard = told(lambda: mha[0].title(1))
    [fields] = heard.carrying(name="blocks.0.attn", head=1)
    assert mha[0].groups == 1 and fields == {"name": "blocks.0.attn", "head": 1}  # no key-value head to name
    assert title == heard.sentence(head=1)
    assert page_data(attention_page(*attention_maps(GPT(CFG).eval(), torch.tensor([[1, 2]])), None))["groups"] == 1


def test_a_pages_data_is_json_with_null_for_a_number_that_is_not_finite():
    """script_json writes through the one JSON writer (files.json_text): a NaN weight is null (it
    was a bare NaN), and the escaping that keeps the script closed still applies."""
    data = script_json({"weights": [[0.5, float("nan")], [float("inf"), 1.0]], "tokens": ["</script>", "中"]})
    assert "NaN" not in data and "Infinity" not in data and "</" not in data and "中" in data
    assert strict_json(data) == {"weights": [[0.5, None], [None, 1.0]], "tokens": ["</script>", "中"]}
