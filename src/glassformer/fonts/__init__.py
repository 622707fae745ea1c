"""The Chinese font glassformer carries, so Chinese draws on a machine that has none installed.

    CJK_FONT        GlassformerCJK-Regular.otf: a 1.9 MB subset of Noto Sans CJK SC Regular (every
                    GB 2312 character, the zh-poems corpus, the Chinese catalogue, ASCII and Latin-1),
                    renamed "Glassformer CJK"; SIL Open Font License 1.1, text in OFL.txt beside it
    FAMILY          its family name, for matplotlib and the explorer page's @font-face
    use_in_matplotlib()   registers it with matplotlib and puts it behind the default sans-serif
                    font, so any text (a title, an axis) falls back to it for characters the
                    default font lacks
    use_in_figure(fig)    every text of one matplotlib Figure drawn glyph by glyph from that list
    SANS, MONO      the CSS font-family lists of every page glassformer writes or serves: the
                    shipped font in each, behind the usual fonts and before the generic family,
                    so Chinese in any text (a monospace column too) draws with it when the system
                    has none
    html_lang()     the <html lang> of a page in the current language (zh-CN picks the glyph forms)
    embedded_css(text)    the @font-face rule an offline page carries: the shipped font, cut to
                    the characters of `text` it has, as a data: URI (a page opened from a file
                    may not load a font file beside it: Chromium refuses file:// fonts)

recipe.py says how the file was made from its source (a PyPI wheel, checked by sha256).
"""

from __future__ import annotations

import base64
import functools
import io
from pathlib import Path

HERE = Path(__file__).resolve().parent
CJK_FONT = HERE / "GlassformerCJK-Regular.otf"
LICENSE = HERE / "OFL.txt"
FAMILY = "Glassformer CJK"
# every page's two font lists (the explorer's static/app.css spells the same; a test holds them equal)
SANS = (
    f'system-ui, "Noto Sans CJK SC", "WenQuanYi Zen Hei", "Microsoft YaHei", "PingFang SC", "DejaVu Sans", '
    f'"{FAMILY}", sans-serif'
)
MONO = f'ui-monospace, "DejaVu Sans Mono", "{FAMILY}", monospace'


def html_lang() -> str:
    """A page's <html lang>, in the language it is written in: it also picks the glyph forms a
    browser draws hanzi with (zh-CN: simplified Chinese forms)."""
    from glassformer.messages import language

    return "zh-CN" if language() == "zh" else "en"


def embedded_css(text: str) -> str:
    """`@font-face { font-family: "Glassformer CJK"; src: url(data:font/otf;base64,...) }` with the
    shipped font cut to the characters of `text` beyond ASCII that it has ("" when there are none),
    for a page that must draw them offline; its CSS then names the family in SANS or MONO."""
    data = _subset("".join(sorted({c for c in text if ord(c) > 0x7F})))
    if not data:
        return ""
    encoded = base64.b64encode(data).decode("ascii")
    return f'@font-face {{ font-family: "{FAMILY}"; src: url(data:font/otf;base64,{encoded}) format("opentype"); }}'


@functools.lru_cache(maxsize=32)
def _subset(chars: str) -> bytes:
    """The shipped font with only `chars` (those it has), as OpenType bytes; b"" if it has none of them.
    Names and licence strings are kept (SIL OFL 1.1 allows a subset, its notice travels with it)."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    font = TTFont(str(CJK_FONT))
    have = font.getBestCmap()
    wanted = [ord(c) for c in chars if ord(c) in have]
    if not wanted:
        return b""
    options = subset.Options()
    options.name_IDs, options.name_languages, options.notdef_outline = ["*"], ["*"], True
    cutter = subset.Subsetter(options)
    cutter.populate(unicodes=wanted)
    cutter.subset(font)
    out = io.BytesIO()
    font.save(out)
    return out.getvalue()


@functools.lru_cache(maxsize=1)
def use_in_matplotlib() -> str:
    """Register the shipped font with matplotlib (once) and add it as the sans-serif fallback;
    returns its path."""
    import matplotlib
    from matplotlib import font_manager

    font_manager.fontManager.addfont(str(CJK_FONT))
    fallback = list(matplotlib.rcParams["font.sans-serif"])
    if FAMILY not in fallback:
        head = fallback[:1]  # the default (DejaVu Sans) first: Latin stays as it was
        matplotlib.rcParams["font.sans-serif"] = [*head, FAMILY, *fallback[1:]]
    return str(CJK_FONT)


def use_in_figure(fig) -> None:
    """Every text of `fig` drawn glyph by glyph from two fonts: the default one first (Latin stays as it
    was), the shipped CJK font behind it. A family name alone gives matplotlib one font, which lacks
    汉字; the two names, not the whole sans-serif list, so no uninstalled family is looked up (and
    logged) once per glyph. Call it once the figure's texts are set, before saving."""
    from matplotlib import font_manager
    from matplotlib.font_manager import FontProperties
    from matplotlib.text import Text

    use_in_matplotlib()
    default = font_manager.findfont(FontProperties(), fallback_to_default=True)  # DejaVu Sans, as a rule
    families = [FontProperties(fname=default).get_name(), FAMILY]
    for drawn in fig.findobj(Text):
        drawn.set_fontfamily(families)
