"""Attention maps: the cached weights are the real softmax, hooks can ablate and patch exactly,
and the PNG and HTML files are written with readable labels in any script."""

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

from glassformer.config import ModelConfig
from glassformer.inspect import (
    FontWarning,
    attention_grid_png,
    attention_head_png,
    attention_html,
    attention_maps,
    fonts,
    token_labels,
)
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
        patched = model.run_with_hooks(ids, hooks={n: (lambda t, name: t.clone()) for n in model.hook_names()})
    assert torch.equal(plain, patched)


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
    assert not any("missing from" in m for m in messages), messages  # no tofu boxes
    font_warnings = [w for w in caught if issubclass(w.category, FontWarning)]
    assert bool(font_warnings) == (not cjk_font)  # a warning exactly when glyphs are missing
    check_png(grid)
    check_png(head)
    assert grey_pixels(head) > 10_000  # the causal mask is drawn, not left as dark zeros
    html = attention_html(model, ids, labels, tmp_path / "a.html").read_text(encoding="utf-8")
    assert re.search(r"https?://", html, re.IGNORECASE) is None
    assert "<script src" not in html and "<link" not in html  # nothing loaded from outside
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


def test_without_a_cjk_font_labels_become_code_points(tmp_path, monkeypatch):
    monkeypatch.setattr(fonts, "candidate_fonts", lambda: iter([fonts.default_font_path()]))
    with pytest.warns(FontWarning, match=r"U\+4F60.*fonts-noto-cjk"):
        _, labels = fonts.label_font(["你", "a", "好!"])
    assert labels == ["U+4F60", "a", "U+597D!"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        path = attention_head_png(gpt(), torch.arange(3), ["你", "a", "好"], 0, 0, tmp_path / "f.png")
    assert any(issubclass(w.category, FontWarning) for w in caught)
    assert not any("missing from" in str(w.message) for w in caught)
    check_png(path)


def test_the_font_warning_lists_six_missing_characters_then_an_ellipsis(monkeypatch):
    """Six missing characters are all named; a seventh adds " …" (an off-by-one would add it to six)."""
    monkeypatch.setattr(fonts, "candidate_fonts", lambda: iter([fonts.default_font_path()]))
    for text, ellipsis in (("你好世界再见", False), ("你好世界再见吧", True)):
        with pytest.warns(FontWarning) as caught:
            fonts.label_font([text])
        message = str(caught[0].message)
        assert message.count("(U+") == 6 and (" …;" in message) == ellipsis, message


def test_fonts_on_disk_but_not_in_matplotlibs_cache_come_last_cjk_families_first(monkeypatch):
    """A font installed after matplotlib built its cache is still tried: after every known font,
    the on-disk files whose names hint at a CJK family first (Noto Sans CJK, WenQuanYi), then the rest."""
    monkeypatch.setattr(
        fonts,
        "_system_fonts",
        lambda: ("/f/DejaVuSerif.ttf", "/f/NotoSansCJK-Regular.ttc", "/f/Zed.ttf", "/f/wqy-zenhei.ttc"),
    )
    listed = list(fonts.candidate_fonts())
    assert listed[0] == fonts.default_font_path()
    assert listed[-4:] == ["/f/NotoSansCJK-Regular.ttc", "/f/wqy-zenhei.ttc", "/f/DejaVuSerif.ttf", "/f/Zed.ttf"]


def test_bad_layer_or_labels_are_explained(tmp_path):
    with pytest.raises(ValueError, match="layers 0..1, heads 0..3"):
        attention_head_png(gpt(), torch.arange(3), None, 2, 0, tmp_path / "x.png")
    with pytest.raises(ValueError, match="2 labels for 3 tokens"):
        attention_grid_png(gpt(), torch.arange(3), ["a", "b"], tmp_path / "x.png")


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
    with pytest.raises(AttributeError, match="has no attribute 'FontWarnings'"):
        inspect_pkg.FontWarnings
