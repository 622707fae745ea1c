"""The Chinese font glassformer carries, so Chinese draws on a machine that has none installed.

    CJK_FONT        GlassformerCJK-Regular.otf: a 1.9 MB subset of Noto Sans CJK SC Regular (every
                    GB 2312 character, the zh-poems corpus, the Chinese catalogue, ASCII and Latin-1),
                    renamed "Glassformer CJK"; SIL Open Font License 1.1, text in OFL.txt beside it
    FAMILY          its family name, for matplotlib and the explorer page's @font-face
    use_in_matplotlib()   registers it with matplotlib and puts it behind the default sans-serif
                    font, so any text (a title, an axis) falls back to it for characters the
                    default font lacks
    use_in_figure(fig)    every text of one matplotlib Figure drawn glyph by glyph from that list

recipe.py says how the file was made from its source (a PyPI wheel, checked by sha256).
"""

from __future__ import annotations

import functools
from pathlib import Path

HERE = Path(__file__).resolve().parent
CJK_FONT = HERE / "GlassformerCJK-Regular.otf"
LICENSE = HERE / "OFL.txt"
FAMILY = "Glassformer CJK"


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
