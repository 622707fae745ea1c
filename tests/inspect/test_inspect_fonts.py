"""The label fonts (fonts.py): which font draws the labels, the warning by its code and fields, and where it points."""

import warnings

import pytest

from glassformer.inspect import fonts
from glassformer.inspect.fonts import FontWarning


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
    assert (w.message.code, w.message.fields) == (
        "inspect.font.missing",
        {"chars": "'你' (U+4F60), '好' (U+597D)", "install": fonts.INSTALL},  # the module's one-line fix
    )
    assert all(value in str(w.message) for value in w.message.fields.values())  # the sentence names both
    assert labels == ["aU+4F60", "U+597D"] and font.get_file() == fonts.default_font_path()


def test_six_missing_characters_have_no_ellipsis_seven_do(monkeypatch):
    monkeypatch.setattr(fonts, "candidate_fonts", lambda: iter([fonts.default_font_path()]))
    for n, tail in ((6, " (U+4E05)"), (7, " (U+4E05) …")):
        with pytest.warns(fonts.FontWarning) as record:
            fonts.label_font(["".join(chr(0x4E00 + i) for i in range(n))])
        assert record[0].message.fields["chars"].endswith(tail)


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


def test_the_font_warning_lists_six_missing_characters_then_an_ellipsis(monkeypatch):
    """Six missing characters are all named; a seventh adds " …" (an off-by-one would add it to six)."""
    monkeypatch.setattr(fonts, "candidate_fonts", lambda: iter([fonts.default_font_path()]))
    for text, ellipsis in (("你好世界再见", False), ("你好世界再见吧", True)):
        with pytest.warns(FontWarning) as caught:
            fonts.label_font([text])
        chars = caught[0].message.fields["chars"]
        assert chars.count("(U+") == 6 and chars.endswith(" …") == ellipsis, chars


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


def test_the_shipped_chinese_font_is_tried_right_after_the_default_and_draws_chinese():
    """Issue 27: on a machine with no CJK font (this one: `fc-list | grep -i cjk` is empty) Chinese
    labels became U+XXXX. The package's own font (glassformer/fonts) is the second candidate, so
    Chinese is drawn with it whatever is installed."""
    from glassformer.fonts import CJK_FONT

    assert list(fonts.candidate_fonts())[1] == str(CJK_FONT)
    from glassformer.inspect.attention_maps import masked_note
    from glassformer.messages import speaking

    with speaking("zh"):
        label = masked_note()  # a Chinese label the pictures draw
    assert fonts.pick_font(label) == (str(CJK_FONT), set())


def chinese_catalogue() -> set[str]:
    """Every character of the Chinese catalogue (locale/zh/LC_MESSAGES/glassformer.po)."""
    from babel.messages.pofile import read_po

    from glassformer.messages import LOCALE

    po = LOCALE / "zh" / "LC_MESSAGES" / "glassformer.po"
    with po.open("rb") as f:
        strings = [m.string for m in read_po(f) if m.id]
    return set("".join(s if isinstance(s, str) else "".join(s) for s in strings))


def test_the_shipped_font_covers_gb2312_the_chinese_catalogue_and_the_explorers_characters():
    from glassformer.explore.server import PRESET_CHARS
    from glassformer.fonts import CJK_FONT, LICENSE, recipe

    have = fonts.charmap(str(CJK_FONT)) | fonts.charmap(fonts.default_font_path())  # ᵀ ₁ ✗: DejaVu's, not Noto CJK's
    needed = recipe.gb2312() | chinese_catalogue() | set(PRESET_CHARS)
    missing = {c for c in needed if not c.isspace() and ord(c) not in have}
    assert missing == set()
    # snapshot: the licence's own title (OFL.txt, a file we ship, not our words)
    assert "SIL OPEN FONT LICENSE Version 1.1" in LICENSE.read_text(encoding="utf-8")
    assert CJK_FONT.stat().st_size < 2_500_000  # a subset, not the 19 MB collection


def test_chinese_beside_a_symbol_only_the_default_has_draws_from_both_fonts_without_a_warning():
    """ "你 ↵": the shipped font has 你 but not ↵ (DejaVu has ↵ but not 你): a family list of both,
    matplotlib taking each glyph from the first that has it, and no label escaped."""
    from glassformer.fonts import CJK_FONT, FAMILY

    assert ord("↵") not in fonts.charmap(str(CJK_FONT)) and ord("↵") in fonts.charmap(fonts.default_font_path())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        font, labels = fonts.label_font(["你", "↵", "好"])
    from matplotlib.font_manager import FontProperties

    default = FontProperties(fname=fonts.default_font_path()).get_name()  # matplotlib's own font, first
    assert font.get_family() == [default, FAMILY] and labels == ["你", "↵", "好"]
