"""The attention viewer's page (html.py), the data-flow order (flow.py) and the label fonts
(fonts.py) checked whole: the data the page's script reads, number for number and label for
label; the order a forward pass uses the modules; the font warning word for word."""

import json
import re
import warnings

import pytest
import torch

from glassformer.config import ModelConfig
from glassformer.inspect import fonts
from glassformer.inspect.attention_maps import attention_maps
from glassformer.inspect.flow import first_use
from glassformer.inspect.html import CSS, JS, attention_html, attention_page
from glassformer.models import GPT

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
    assert data == {"tokens": ["你", "</script>", "a&b", "http://x"], "weights": expected}
    assert data["weights"][0][0][0][1] == 0.1429  # 1/7 + 0.000041 = 0.142898...: 4 places, not 5
    script = re.search(r"<script>const DATA = (.*);</script>", page).group(1)
    assert "你" in script and "\\u4f60" not in script  # Chinese written as itself
    assert '"</script>"' not in script and "\\u003c\\/script\\u003e" in script and "a\\u0026b" in script
    assert "http:\\/\\/x" in script  # no URL anywhere in the file
    assert page.startswith('<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>glassformer attention</title>')
    assert f"<style>{CSS}</style>" in page and f"<script>{JS}</script>" in page


def test_the_page_names_positions_when_there_are_no_labels_and_counts_keys_for_them():
    W = torch.full((1, 1, 2, 3), 1 / 3)  # (L, H, T_q, T_k)
    data = page_data(attention_page(W, torch.zeros(1, 1, 2, 3, dtype=torch.bool), None))
    assert data["tokens"] == ["0", "1", "2"] and data["weights"] == [[[[0.3333] * 3] * 2]]
    with pytest.raises(ValueError, match="2 labels for 3 tokens"):
        attention_page(W, torch.zeros(1, 1, 2, 3, dtype=torch.bool), ["a", "b"])


def test_attention_html_writes_the_page_of_that_model_and_those_labels_into_new_folders(tmp_path):
    torch.manual_seed(0)
    model = GPT(CFG).eval()
    ids = torch.tensor([[1, 2, 3]])
    labels = ["你", "好", "!"]
    path = attention_html(model, ids, labels, str(tmp_path / "a" / "b" / "view.html"))
    assert path == tmp_path / "a" / "b" / "view.html"
    assert path.read_bytes().decode("utf-8") == attention_page(*attention_maps(model, ids), labels)
    assert attention_html(model, ids, labels, path).read_text(encoding="utf-8") == path.read_text(encoding="utf-8")


def test_first_use_is_the_forward_order_and_leaves_no_hook_and_the_mode_as_it_was():
    model = GPT(CFG).train()
    assert first_use(model) == {
        "tok_embed": 0,
        "tok_embed.table": 1,
        "pos_embed": 2,
        "pos_embed.table": 3,
        "drop": 4,
        "blocks.0": 5,
        "blocks.0.ln1": 6,
        "blocks.0.attn": 7,
        "blocks.0.attn.qkv": 8,
        "blocks.0.attn.proj": 9,
        "blocks.0.attn.resid_dropout": 10,
        "blocks.0.ln2": 11,
        "blocks.0.ffn": 12,
        "blocks.0.ffn.fc1": 13,
        "blocks.0.ffn.fc2": 14,
        "blocks.0.drop": 15,
        "ln_final": 16,
        "head": 17,
    }
    assert model.training and all(not m._forward_pre_hooks for m in model.modules())
    assert len(first_use(model.eval())) == 18 and not model.training


def test_first_use_runs_an_encoder_decoder_on_its_pair_of_inputs():
    from glassformer.models import build_model

    model = build_model(
        ModelConfig(kind="seq2seq", vocab_size=9, d_model=4, n_heads=2, d_ff=6, max_len=6, pad_id=0, n_layers=1)
    )
    order = first_use(model)
    assert list(order)[:6] == ["src_embed", "src_embed.table", "pos_embed", "pos_embed.table", "drop", "encoder.0"]
    assert sorted(order.values()) == list(range(len(order)))  # 0, 1, 2 ... with no gap
    assert all(not m._forward_pre_hooks for m in model.modules()) and "" not in order


def draw(labels):
    return fonts.label_font(labels)  # stacklevel=3: the warning points at draw's caller, not at fonts.py


def frames_added_by_mutmut() -> bool:
    """mutmut's trampolines add two frames under every function, so stacklevel points elsewhere there."""
    return hasattr(fonts.label_font, "__wrapped__")  # functools.wraps marks the trampoline


def test_the_font_warning_whole_and_where_it_points(monkeypatch):
    monkeypatch.setattr(fonts, "candidate_fonts", lambda: iter([fonts.default_font_path()]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        font, labels = draw(["a你", "好"])
    (w,) = caught
    assert w.category is fonts.FontWarning and w.filename != fonts.__file__
    assert w.filename == __file__ or frames_added_by_mutmut()
    assert str(w.message) == (
        "no installed font has glyphs for '你' (U+4F60), '好' (U+597D); labels show code points instead. "
        "To see the characters, install a CJK font, e.g. `apt-get install fonts-noto-cjk` or `apt-get install "
        "fonts-wqy-zenhei` on Debian/Ubuntu, then delete matplotlib's font cache (~/.cache/matplotlib) so it "
        "is found."
    )
    assert labels == ["aU+4F60", "U+597D"] and font.get_file() == fonts.default_font_path()


def test_six_missing_characters_have_no_ellipsis_seven_do(monkeypatch):
    monkeypatch.setattr(fonts, "candidate_fonts", lambda: iter([fonts.default_font_path()]))
    for n, tail in ((6, " (U+4E05); labels"), (7, " (U+4E05) …; labels")):
        with pytest.warns(fonts.FontWarning) as record:
            fonts.label_font(["".join(chr(0x4E00 + i) for i in range(n))])
        assert tail in str(record[0].message)


def test_escape_writes_four_hex_digits_at_least():
    assert fonts.escape("a\x07你b", {"\x07", "你"}) == "aU+0007U+4F60b"
    assert fonts.escape("abc", set()) == "abc"


def test_pick_font_takes_the_first_font_that_covers_everything_ignoring_spaces(monkeypatch):
    monkeypatch.setattr(fonts, "candidate_fonts", lambda: iter(["/none", "/latin", "/all", "/also-all"]))
    maps = {
        "/none": frozenset(),
        "/latin": frozenset(map(ord, "ab")),
        "/all": frozenset(map(ord, "ab你")),
        "/also-all": frozenset(map(ord, "ab你")),
    }
    monkeypatch.setattr(fonts, "charmap", maps.get)
    assert fonts.pick_font("a b\t你\n") == ("/all", set())
    assert fonts.pick_font("") == ("/none", set())  # nothing needed: the first font will do
    monkeypatch.setattr(fonts, "candidate_fonts", lambda: iter(["/none", "/latin"]))
    assert fonts.pick_font("ab你") == ("/latin", {"你"})  # the best one, and what it lacks
    monkeypatch.setattr(fonts, "candidate_fonts", lambda: iter([]))
    assert fonts.pick_font("a") == (fonts.default_font_path(), {"a"})


def test_an_unreadable_font_file_has_no_glyphs(tmp_path):
    bad = tmp_path / "broken.ttf"
    bad.write_bytes(b"not a font")
    assert fonts.charmap(str(bad)) == frozenset()
    assert ord("A") in fonts.charmap(fonts.default_font_path())


def test_candidate_fonts_start_with_the_default_never_repeat_and_skip_last_resort():
    listed = list(fonts.candidate_fonts())
    assert listed[0] == fonts.default_font_path() and len(listed) == len(set(listed))
    assert not any("lastresort" in p.lower().replace(" ", "") for p in listed)
