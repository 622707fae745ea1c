"""Attention maps: the cached weights are the real softmax, hooks can ablate and patch exactly,
and the PNG and HTML files are written with readable labels in any script.

The attention figures (attention_maps.grid_figure, head_figure) read from the matplotlib Figure
they build, on hand-made maps: titles, axis labels, tick texts and their rotation, the image's
data, mask and colour scale, the numbers written in cells and their colour, the hatched patch
behind masked cells, the figure's size; and the refusal of a head that does not exist.
"""

import copy
import json
import math
import re
import shutil
import subprocess
import warnings

import matplotlib.image
import numpy as np
import pytest
import torch
from helpers import keyed, said

from glassformer import messages
from glassformer.config import ModelConfig
from glassformer.errors import UsageError
from glassformer.inspect import (
    FontWarning,
    attention_grid_png,
    attention_head_png,
    attention_html,
    attention_maps,
    fonts,
    token_labels,
)
from glassformer.inspect.attention_maps import AttentionMap, grid_figure, head_figure, masked_note
from glassformer.models import GPT, Encoder
from glassformer.text import CharTokenizer

CFG = dict(vocab_size=12, d_model=16, n_heads=4, d_ff=32, n_layers=2, max_len=16, dropout=0.0)
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def gpt(**kw):
    return GPT(ModelConfig(**{**CFG, **kw})).eval()


def test_cached_weights_equal_manual_softmax_and_rows_sum_to_one():
    model, ids = gpt(), torch.randint(0, 12, (2, 9))
    _, cache = model.run_with_cache(ids)
    T, D = 9, CFG["d_model"] // CFG["n_heads"]
    future = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)  # (T, T) True = hidden
    for layer in range(CFG["n_layers"]):
        q, k = cache[f"blocks.{layer}.attn.q"], cache[f"blocks.{layer}.attn.k"]  # (B, H, T, D)
        scores = q @ k.transpose(-1, -2) / math.sqrt(D) + torch.where(future, -math.inf, 0.0)
        manual = torch.exp(scores - scores.amax(-1, keepdim=True))
        manual = manual / manual.sum(-1, keepdim=True)  # softmax written out
        weights = cache[f"blocks.{layer}.attn.weights"]
        torch.testing.assert_close(weights, manual, atol=1e-6, rtol=0)
        torch.testing.assert_close(weights.sum(-1), torch.ones(2, 4, T), atol=1e-6, rtol=0)
        assert (weights[..., future] == 0).all()


@pytest.mark.parametrize("layer,head", [(0, 1), (1, 3)])
def test_zero_ablating_a_head_equals_zeroing_its_output_columns(layer, head):
    model, ids = gpt(), torch.randint(0, 12, (2, 8))
    D = CFG["d_model"] // CFG["n_heads"]

    def ablate(z, name):  # z (B, H, T, D)
        z = z.clone()
        z[:, head] = 0.0
        return z

    with torch.no_grad():
        ablated = model.run_with_hooks(ids, hooks={f"blocks.{layer}.attn.z": ablate})
        surgery = copy.deepcopy(model)
        surgery.blocks[layer].attn.proj.weight[:, head * D : (head + 1) * D] = 0.0
        expected = surgery(ids)
        plain = model(ids)
    assert torch.equal(ablated, expected)
    assert not torch.allclose(ablated, plain)  # the head mattered, so the test can fail


def test_patching_every_activation_with_itself_changes_nothing():
    model, ids = gpt(norm="post", final_norm=False), torch.randint(0, 12, (2, 8))
    with torch.no_grad():
        plain = model(ids)
        same = {n: (lambda t, name: t.clone()) for n in model.hook_names()}
        patched = model.run_with_hooks(ids, hooks={n: f for n, f in same.items() if not n.endswith("attn.result")})
        with_shares = model.run_with_hooks(ids, hooks=same)
    assert torch.equal(plain, patched)
    # a replaced result makes attn out as Σ_h result_h + b (nn/attention.py): the same, up to rounding
    torch.testing.assert_close(with_shares, plain, rtol=0, atol=1e-5)


def test_fused_attention_maps_are_recomputed_and_agree():
    glass = gpt()
    fused = gpt(attention="fused")
    fused.load_state_dict(glass.state_dict())
    ids = torch.randint(0, 12, (1, 7))
    (wg, hg), (wf, hf) = attention_maps(glass, ids), attention_maps(fused, ids)
    assert wg.shape == (2, 4, 7, 7) and torch.equal(hg, hf)
    torch.testing.assert_close(wf, wg, atol=1e-6, rtol=0)
    assert torch.equal(hg[0, 0], torch.triu(torch.ones(7, 7, dtype=torch.bool), 1))


def grey_pixels(path) -> int:
    """Pixels of the hatched mask background (0.85 grey)."""
    rgb = (matplotlib.image.imread(path)[..., :3] * 255).round()
    return int((np.abs(rgb - 217) <= 1).all(-1).sum())


def check_png(path, min_side=300):
    assert path.read_bytes()[:8] == PNG_SIGNATURE
    img = matplotlib.image.imread(path)
    assert img.ndim == 3 and min(img.shape[:2]) >= min_side and img.shape[2] in (3, 4)
    assert img[..., :3].std() > 0.05  # not a blank canvas


@pytest.mark.parametrize("text", ["hello there", "你好世界，你好"])
def test_png_and_html_for_latin_and_chinese(tmp_path, text):
    tok = CharTokenizer.from_text(text)
    model = gpt(vocab_size=tok.vocab_size)
    ids = torch.tensor(tok.encode(text))
    labels = token_labels(ids, tok)
    cjk_font = not fonts.pick_font(text)[1]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        grid = attention_grid_png(model, ids, labels, tmp_path / "grid.png")
        head = attention_head_png(model, ids, labels, 1, 2, tmp_path / "head.png")
    messages = [str(w.message) for w in caught]
    assert not any("Glyph" in m for m in messages), messages  # no tofu boxes (matplotlib's "Glyph ... missing")
    font_warnings = [w for w in caught if issubclass(w.category, FontWarning)]
    assert bool(font_warnings) == (not cjk_font)  # a warning exactly when glyphs are missing
    check_png(grid)
    check_png(head)
    assert grey_pixels(head) > 10_000  # the causal mask is drawn, not left as dark zeros
    html = attention_html(model, ids, labels, tmp_path / "a.html").read_text(encoding="utf-8")
    assert re.search(r"https?://", html, re.IGNORECASE) is None
    assert not re.findall(r"<script[^>]*\ssrc=", html) and "<link" not in html  # nothing loaded from outside
    data = json.loads(re.search(r"const DATA = (.*?);</script>", html, re.S).group(1))
    assert data["tokens"] == labels
    W, hidden = attention_maps(model, ids)
    cell = data["weights"][1][2]
    assert cell[0][1] is None  # a masked cell is null
    assert cell[-1][0] == round(float(W[1, 2, -1, 0]), 4)


def test_unmasked_model_has_no_hatching(tmp_path):
    model = Encoder(ModelConfig(**{**CFG, "causal": False})).eval()
    path = attention_head_png(model, torch.arange(6), None, 0, 0, tmp_path / "enc.png")
    assert grey_pixels(path) < 1000  # a few anti-aliased edge pixels, no hatched area


def test_urls_in_the_labels_are_inert(tmp_path):
    model = gpt()
    labels = ["http://a.b", "https://c", "</script>", "x", "y"]
    html = attention_html(model, torch.arange(5), labels, tmp_path / "u.html").read_text(encoding="utf-8")
    assert re.search(r"https?://", html, re.IGNORECASE) is None and html.count("</script>") == 2


def test_bad_layer_or_labels_are_explained(tmp_path):
    assert keyed(UsageError, attention_head_png, gpt(), torch.arange(3), None, 2, 0, tmp_path / "x.png") == (
        "inspect.head_range",
        {"layer": 2, "head": 0, "last_layer": 1, "last_head": 3},
    )
    assert keyed(UsageError, attention_grid_png, gpt(), torch.arange(3), ["a", "b"], tmp_path / "x.png") == (
        "inspect.labels_count",
        {"n": 2, "tokens": 3},
    )


NODE_DOM = r"""
function El(){ this.children=[]; this.style={}; this.value="0"; this.options=[]; this.width=260;
  this.classList={toggle(){}}; }
El.prototype.appendChild=function(c){this.children.push(c); return c;};
Object.defineProperty(El.prototype,'innerHTML',{set(v){this.children=[];}});
El.prototype.insertRow=function(){return this.appendChild(new El());};
El.prototype.insertCell=function(){return this.appendChild(new El());};
El.prototype.add=function(o){this.options.push(o); if(this.options.length===1) this.value=o.value;};
El.prototype.getContext=function(){return {clearRect(){},beginPath(){},moveTo(){},lineTo(){},stroke(){}};};
const els={}; const document={getElementById(id){return els[id]||(els[id]=new El());},
  createElement(){return new El();}};
function Option(t,v){this.text=t; this.value=String(v);}
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node not installed")
def test_html_script_runs(tmp_path):
    """Run the page's script against a minimal fake DOM: hover a query, pick a head, read a cell."""
    model = gpt()
    html = attention_html(model, torch.arange(4), list("abcd"), tmp_path / "a.html").read_text(encoding="utf-8")
    scripts = re.findall(r"<script>(.*?)</script>", html, re.S)
    drive = (
        'els.q.children[2].onmouseenter(); els.head.value="1"; els.layer.value="1"; draw();'
        'console.log(els.matrix.children[3].children[1].title + "|" + els.matrix.children[1].children[2].className);'
    )
    js = tmp_path / "run.js"
    js.write_text(NODE_DOM + "\n".join(scripts) + "\n" + drive, encoding="utf-8")
    out = subprocess.run(["node", str(js)], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    W, _ = attention_maps(model, torch.arange(4))
    assert out.stdout.strip() == f"c \u2192 a: {round(float(W[1, 1, 2, 0]), 4):.3f}|masked"


def test_grid_grows_with_the_sequence(tmp_path):
    """Each heatmap's side grows with T (1.6 + 0.09·T inches), so long prompts stay legible."""
    model = gpt()
    sizes = {}
    for T in (3, 16):
        ids = torch.arange(T) % 12
        path = attention_grid_png(model, ids, [str(i) for i in range(T)], tmp_path / f"grid{T}.png")
        sizes[T] = matplotlib.image.imread(path).shape[:2]  # (height, width)
    (h3, w3), (h16, w16) = sizes[3], sizes[16]
    assert w16 > w3 + 100 and h16 > h3 + 100


def test_the_grid_hatches_masked_cells_and_makes_missing_folders(tmp_path):
    """Every heatmap of a causal model shows its masked upper triangle as the grey hatched area;
    a bidirectional encoder's grid has none. The output folder is created if it does not exist."""
    causal = attention_grid_png(gpt(), torch.arange(8), None, tmp_path / "new" / "sub" / "causal.png")
    plain = attention_grid_png(
        Encoder(ModelConfig(**{**CFG, "causal": False})).eval(), torch.arange(8), None, tmp_path / "enc.png"
    )
    assert causal.is_file() and grey_pixels(causal) > 20 * grey_pixels(plain) + 1000


def test_the_hatching_is_mid_grey_and_long_labels_stand_upright(tmp_path, monkeypatch):
    """The masked area is hatched in mid-grey lines (0.55) over light grey, not in black lines that
    read as data; column labels longer than two characters are turned 90° so they cannot overlap,
    short ones stay level."""
    from matplotlib.figure import Figure

    figures, save = [], Figure.savefig
    monkeypatch.setattr(Figure, "savefig", lambda self, *a, **k: (figures.append(self), save(self, *a, **k))[1])
    path = attention_head_png(gpt(), torch.arange(6), None, 0, 0, tmp_path / "short.png")
    rgb = (matplotlib.image.imread(path)[..., :3] * 255).round()  # (H, W, 3)
    assert int((np.abs(rgb - 140) <= 1).all(-1).sum()) > 2000  # hatch lines, grey 0.55 = 140
    attention_head_png(gpt(), torch.arange(6), ["word"] * 6, 0, 0, tmp_path / "long.png")
    short_ax, long_ax = figures[0].axes[0], figures[1].axes[0]
    assert {label.get_rotation() for label in short_ax.get_xticklabels()} == {0.0}
    assert {label.get_rotation() for label in long_ax.get_xticklabels()} == {90.0}
    assert {label.get_rotation() for label in long_ax.get_yticklabels()} == {0.0}  # rows stay level


def test_the_numbers_are_written_in_the_visible_cells_only(tmp_path, monkeypatch):
    """A small map writes each weight in its cell, to two places: every unmasked cell, and none of
    the masked ones (whose weight is 0 and means "not allowed", not "no attention")."""
    from matplotlib.figure import Figure

    figures, save = [], Figure.savefig
    monkeypatch.setattr(Figure, "savefig", lambda self, *a, **k: (figures.append(self), save(self, *a, **k))[1])
    model = gpt()
    attention_head_png(model, torch.arange(5), None, 1, 3, tmp_path / "h.png")
    W, hidden = attention_maps(model, torch.arange(5))  # (L, H, T, T) each
    written = sorted(
        (round(t.get_position()[1]), round(t.get_position()[0]), t.get_text()) for t in figures[0].axes[0].texts
    )
    visible = sorted(
        (i, j, f"{float(W[1, 3, i, j]):.2f}") for i in range(5) for j in range(5) if not hidden[1, 3, i, j]
    )
    assert written == visible and len(written) == 15  # the lower triangle with its diagonal


def test_font_warning_is_importable_lazily_and_other_names_are_not_invented():
    import glassformer.inspect as inspect_pkg
    from glassformer.inspect import fonts

    assert inspect_pkg.FontWarning is fonts.FontWarning
    with pytest.raises(AttributeError) as caught:  # a NoAttribute, so getattr(..., default) and hasattr work
        inspect_pkg.FontWarnings  # noqa: B018 - the attribute read is the test
    assert (caught.value.code, caught.value.fields) == (
        "module.no_attribute",
        {"module": "glassformer.inspect", "name": "FontWarnings"},
    )
    assert getattr(inspect_pkg, "FontWarnings", None) is None and not hasattr(inspect_pkg, "FontWarnings")


W = torch.tensor(
    [[[1, 0, 0], [0.4, 0.6, 0], [0.1, 0.2, 0.7]], [[1, 0, 0], [0.5, 0.5, 0], [0.3, 0.3, 0.4]]]
)  # (H, T_q, T_k)
CAUSAL = torch.triu(torch.ones(3, 3, dtype=torch.bool), 1).expand(2, 3, 3)  # (H, T_q, T_k)
OPEN = torch.zeros(2, 3, 3, dtype=torch.bool)
MAPS = [
    AttentionMap("blocks.0.attn.weights", "B H T_q T_k", W, CAUSAL),
    AttentionMap("blocks.1.attn.weights", "B H T_q T_k", W.flip(0), OPEN),
]
CJK = re.compile(r"[\u4e00-\u9fff]")


def drawn(make):
    """The figure `make()` builds and the sentences it said building it: a picture's words are found
    by their fields (a map's name, a head) and checked to be what was said, never typed in English."""
    with said() as heard:
        fig = make()
    return fig, heard


def plain(heard) -> set[str]:
    """The words of each sentence said with no fields (a label, a note)."""
    return {messages.t(m) for m, f in heard if not f}


def ticks(axis_labels):
    return [t.get_text() for t in axis_labels]


def test_one_head_whole():
    fig, heard = drawn(lambda: head_figure(MAPS, ["a", "b", "c"], 0, 0))
    ax, bar = fig.axes
    assert heard.carrying(name="blocks.0.attn.weights", head=0, masked=f"\n{masked_note()}")  # the map, its mask
    assert ax.get_title() == heard.sentence(name="blocks.0.attn.weights", head=0)
    labels = [ax.get_xlabel(), ax.get_ylabel(), bar.get_ylabel()]  # key, query, weight: three sentences said
    assert len(set(labels)) == 3 and plain(heard) == {*labels, masked_note()}
    assert ticks(ax.get_xticklabels()) == ["a", "b", "c"] and ticks(ax.get_yticklabels()) == ["a", "b", "c"]
    assert all(t.get_rotation() == 0 for t in ax.get_xticklabels())  # short labels stand upright
    (im,) = ax.images
    data = im.get_array()
    assert np.allclose(data.data, W[0].numpy()) and data.mask.tolist() == CAUSAL[0].tolist()
    assert im.get_clim() == (0.0, 1.0) and im.get_cmap().name.startswith("viridis")
    cells = {(t.get_position(), t.get_text(), t.get_color()) for t in ax.texts}
    assert cells == {
        ((0, 0), "1.00", "black"),
        ((0, 1), "0.40", "white"),
        ((1, 1), "0.60", "black"),
        ((0, 2), "0.10", "white"),
        ((1, 2), "0.20", "white"),
        ((2, 2), "0.70", "black"),
    }
    assert [t.get_fontsize() for t in ax.texts] == pytest.approx([12 * 0.8] * 6)  # 300/3 capped at 12
    (patch,) = [p for p in ax.patches if p.get_hatch()]
    assert patch.get_hatch() == "///" and (patch.get_x(), patch.get_y(), patch.get_width(), patch.get_height()) == (
        -0.5,
        -0.5,
        3,
        3,
    )
    assert tuple(fig.get_size_inches()) == pytest.approx((6.8, 5.6))  # side max(5, 0.32·3) = 5


def test_an_unmasked_head_has_no_note_and_long_labels_turn_upright():
    fig, heard = drawn(lambda: head_figure(MAPS, ["one", "two", "six"], 1, 1))
    ax = fig.axes[0]
    assert ax.get_title() == heard.sentence(name="blocks.1.attn.weights", head=1, masked="")  # no note
    assert all(t.get_rotation() == 90 for t in ax.get_xticklabels())
    assert len(ax.texts) == 9  # every cell visible, every cell written


def test_a_long_map_thins_nothing_below_32_and_writes_no_numbers_above():
    T = 33
    w = torch.full((1, T, T), 1 / T)
    fig = head_figure([AttentionMap("x.weights", "B H T_q T_k", w, torch.zeros(1, T, T, dtype=torch.bool))], None, 0, 0)
    ax = fig.axes[0]
    assert len(ax.texts) == 0 and ticks(ax.get_xticklabels()) == [str(i) for i in range(T)]
    assert tuple(fig.get_size_inches()) == pytest.approx((0.32 * T + 1.8, 0.32 * T + 0.6))


@pytest.mark.parametrize("T", [8, 16, 20, 32])
def test_cell_numbers_are_written_only_where_each_fits_inside_its_own_cell(T):
    """Issue 27: at ~16 tokens the numbers ran into each other (a fixed 9.6 pt "0.06" in an 18 pt
    cell). Now each number is sized to its cell as laid out, or left out: every written number's
    drawn box lies inside its cell, so no two overlap."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    w = torch.full((1, T, T), 1 / T)
    labels = [f"token{i:02d}" for i in range(T)]  # long labels take room: the cells shrink
    fig = head_figure(
        [AttentionMap("x.weights", "B H T_q T_k", w, torch.zeros(1, T, T, dtype=torch.bool))], labels, 0, 0
    )
    FigureCanvasAgg(fig).draw()
    ax, renderer = fig.axes[0], fig.canvas.get_renderer()
    assert len(ax.texts) in (0, T * T)
    for text in ax.texts:
        box = text.get_window_extent(renderer)
        j, i = text.get_position()
        (x0, y0), (x1, y1) = ax.transData.transform([(j - 0.5, i + 0.5), (j + 0.5, i - 0.5)])  # y grows down
        assert x0 <= box.x0 and box.x1 <= x1 and y0 <= box.y0 and box.y1 <= y1, (T, text.get_text())
        assert text.get_fontsize() >= 5.0
    assert T > 16 or len(ax.texts) == T * T  # up to 16 tokens the numbers are there


@pytest.mark.parametrize("layer,head", [(2, 0), (0, 2), (-1, 0), (0, -1)])
def test_a_head_outside_the_model_is_refused_with_the_ranges(layer, head):
    with pytest.raises(ValueError) as e:
        head_figure(MAPS, None, layer, head)
    assert (e.value.code, e.value.fields) == (
        "inspect.head_range",
        {"layer": layer, "head": head, "last_layer": 1, "last_head": 1},
    )


def test_the_grid_whole():
    fig, heard = drawn(lambda: grid_figure(MAPS, ["a", "b", "c"]))
    *axes, bar = fig.axes
    assert [ax.get_title() for ax in axes] == [
        heard.sentence(name=f"blocks.{layer}.attn", head=head) for layer in (0, 1) for head in (0, 1)
    ]
    assert fig._suptitle.get_text() == heard.sentence(masked=f"; {masked_note()}")  # the one title, with the note
    one_head, _ = drawn(lambda: head_figure(MAPS, ["a", "b", "c"], 0, 0))
    assert bar.get_ylabel() == one_head.axes[1].get_ylabel() and bar.get_ylabel() in plain(heard)
    assert [ticks(ax.get_xticklabels()) for ax in axes] == [
        [""] * 3,
        [""] * 3,
        ["a", "b", "c"],
        ["a", "b", "c"],
    ]  # bottom
    assert [ticks(ax.get_yticklabels()) for ax in axes] == [
        ["a", "b", "c"],
        [""] * 3,
        ["a", "b", "c"],
        [""] * 3,
    ]  # left
    assert [
        np.allclose(ax.images[0].get_array().data, w.numpy())
        for ax, w in zip(axes, [W[0], W[1], W[1], W[0]], strict=False)
    ] == [True] * 4
    assert all(ax.images[0].get_clim() == (0.0, 1.0) and not ax.texts for ax in axes)
    side = 1.6 + 0.09 * 3
    assert tuple(fig.get_size_inches()) == pytest.approx((side * 2 + 1.5, side * 2 + 0.8))
    assert {t.get_fontsize() for t in axes[2].get_xticklabels()} == {9.0}  # 180/3 capped at 9


def test_a_grid_of_unmasked_maps_of_several_shapes_labels_every_row():
    cross = AttentionMap(
        "dec.0.cross.weights", "B H T_q S", torch.full((2, 3, 4), 0.25), torch.zeros(2, 3, 4, dtype=torch.bool)
    )
    fig, heard = drawn(lambda: grid_figure([MAPS[1], cross], {"S": list("wxyz"), "T": list("abc")}))
    axes = fig.axes[:-1]
    assert fig._suptitle.get_text() == heard.sentence(masked="")  # nothing masked: no note
    assert [ticks(ax.get_xticklabels()) for ax in axes] == [
        ["a", "b", "c"],
        ["a", "b", "c"],
        list("wxyz"),
        list("wxyz"),
    ]
    assert ticks(axes[2].get_yticklabels()) == ["a", "b", "c"]


def test_a_long_grid_thins_its_ticks_and_shrinks_its_font():
    T = 64
    w = torch.full((1, T, T), 1 / T)
    fig = grid_figure([AttentionMap("x.weights", "B H T_q T_k", w, torch.zeros(1, T, T, dtype=torch.bool))], None)
    ax = fig.axes[0]
    assert ticks(ax.get_xticklabels()) == [str(i) for i in range(0, T, 2)]
    assert ticks(ax.get_yticklabels()) == [str(i) for i in range(0, T, 2)]
    assert [t.get_fontsize() for t in ax.get_xticklabels()] == [4.0] * 32  # 180/64 raised to the floor of 4


def test_layers_the_hatch_below_the_map_below_its_numbers():
    """What is drawn over what: the hatched patch (masked cells) at the bottom, showing only where
    the map is masked out; the map's colours above it; each cell's number above the colours. A map
    raised to its numbers' level (zorder 2, as a mutant of sample H did, 30 Nov) leaves the order to
    insertion and changed 216 pixels of the saved PNGs."""
    head, grid = head_figure(MAPS, ["a", "b", "c"], 0, 0), grid_figure(MAPS, ["a", "b", "c"])
    assert len(head.axes[0].texts) == 6  # the one head's cells carry their numbers
    for fig in (head, grid):
        for ax in (a for a in fig.axes if a.images):
            (im,) = ax.images
            (hatch,) = ax.patches
            assert hatch.get_hatch() == "///"
            numbers = [t.get_zorder() for t in ax.texts]  # the grid writes none in its small cells
            assert hatch.get_zorder() < im.get_zorder() < min(numbers, default=float("inf"))
            assert all(z > im.get_zorder() for z in numbers)


def test_the_grid_lays_itself_out_so_no_map_covers_another():
    """Each map of the grid with its title, tick labels and colour bar stays inside the figure and
    clear of every other (read from the drawn figure's bounding boxes). Bug it guards: the grid
    built without its constrained layout, where titles and labels of neighbours run into each
    other (sample I, 30 Nov)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = grid_figure(MAPS, ["alpha", "beta", "gamma"])
    FigureCanvasAgg(fig).draw()  # place everything as the PNG would
    renderer = fig.canvas.get_renderer()
    boxes = [ax.get_tightbbox(renderer) for ax in fig.axes]
    page = fig.bbox
    for box in boxes:
        assert page.x0 - 1 <= box.x0 and box.x1 <= page.x1 + 1 and page.y0 - 1 <= box.y0 and box.y1 <= page.y1 + 1
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            overlap_w = min(a.x1, b.x1) - max(a.x0, b.x0)
            overlap_h = min(a.y1, b.y1) - max(a.y0, b.y0)
            assert overlap_w <= 1 or overlap_h <= 1, (a, b)


def test_without_a_cjk_font_labels_become_code_points(tmp_path, monkeypatch):
    monkeypatch.setattr(fonts, "candidate_fonts", lambda: iter([fonts.default_font_path()]))
    with pytest.warns(FontWarning) as caught:
        _, labels = fonts.label_font(["你", "a", "好!"])
    assert caught[0].message.code == "inspect.font.missing" and "U+4F60" in caught[0].message.fields["chars"]
    assert labels == ["U+4F60", "a", "U+597D!"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        path = attention_head_png(gpt(), torch.arange(3), ["你", "a", "好"], 0, 0, tmp_path / "f.png")
    assert any(issubclass(w.category, FontWarning) for w in caught)
    assert not any("Glyph" in str(w.message) for w in caught)  # matplotlib's "Glyph ... missing from font"
    check_png(path)


def test_the_head_and_the_grid_speak_chinese_by_key_with_every_glyph_drawn(tmp_path):
    from glassformer.messages import speaking

    english = head_figure(MAPS, ["a", "b", "c"], 0, 1)
    with speaking("zh"):
        head, said_head = drawn(lambda: head_figure(MAPS, ["a", "b", "c"], 0, 1))
        grid, said_grid = drawn(lambda: grid_figure(MAPS, ["a", "b", "c"]))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            head.savefig(tmp_path / "head.png")
            grid.savefig(tmp_path / "grid.png")
        note = masked_note()
        title = said_head.sentence(name="blocks.0.attn.weights", head=1, masked="\n" + note)
        labels = plain(said_head) - {note}
        cells = [said_grid.sentence(name="blocks.0.attn", head=h) for h in (0, 1)]
        suptitle = said_grid.sentence(masked="; " + note)
    assert not [w for w in caught if "Glyph" in str(w.message)]  # the shipped font drew the 汉字
    ax, bar = head.axes
    assert ax.get_title() == title and {ax.get_xlabel(), ax.get_ylabel(), bar.get_ylabel()} == labels
    assert [a.get_title() for a in grid.axes[:2]] == cells and grid.get_suptitle() == suptitle
    chinese = [title, ax.get_xlabel(), ax.get_ylabel(), bar.get_ylabel(), *cells, suptitle]
    en_ax, en_bar = english.axes
    assert all(CJK.search(w) for w in chinese) and not {
        en_ax.get_title(),
        en_ax.get_xlabel(),
        en_bar.get_ylabel(),
    } & set(chinese)


def test_a_cell_number_is_written_at_exactly_the_smallest_size_too():
    from matplotlib.figure import Figure

    from glassformer.inspect.attention_maps import MIN_VALUE_POINTS, value_fontsize

    ax = Figure(figsize=(4, 4)).add_subplot()
    assert value_fontsize(ax, 1, 1, MIN_VALUE_POINTS) == MIN_VALUE_POINTS  # one roomy cell: the wanted size
    assert value_fontsize(ax, 1, 1, MIN_VALUE_POINTS - 0.5) is None  # below the smallest: no number
    assert value_fontsize(ax, 400, 400, 12.0) is None  # cells too small for the smallest size
