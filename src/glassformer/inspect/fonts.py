"""Fonts for axis labels in any script: find one that really has the glyphs, or say so.

matplotlib's default font (DejaVu Sans) has Latin, Greek, Cyrillic and many symbols but no
Chinese. Given a Chinese label it draws empty boxes ("tofu"), or silently falls back to the
"Last Resort" font whose every glyph is a box. So before drawing we look for a font whose
character map covers every character of the labels:

    1. the default font, if it covers them (most English text)
    2. the Chinese font glassformer ships (glassformer.fonts: a subset of Noto Sans CJK SC with
       every GB 2312 character), so Chinese draws on a machine with no CJK font installed
    3. installed fonts with a known CJK family name (Noto Sans CJK, WenQuanYi, AR PL …)
    4. any other font matplotlib knows about

and when none covers everything (a rare character outside the shipped subset, and no system CJK
font) we keep the best one and replace each missing character with its code point ("你" ->
"U+4F60"), with a FontWarning, in the user's language, that names the package to install.
"""

from __future__ import annotations

import functools
import warnings

from matplotlib import font_manager
from matplotlib.font_manager import FontProperties

from glassformer.fonts import FAMILY, use_in_matplotlib

CJK_FAMILY_HINTS = (
    "noto sans cjk",
    "noto serif cjk",
    "source han",
    "wenquanyi",
    "wqy",
    "droid sans fallback",
    "ar pl",
    "uming",
    "ukai",
    "noto sans sc",
    "noto sans tc",
    "sarasa",
    "microsoft yahei",
    "simhei",
    "pingfang",
    "hiragino",
)
NOT_REAL_GLYPHS = ("last resort",)  # covers every code point, with a box for each
INSTALL = "apt-get install fonts-noto-cjk"  # the one-line fix the warning names (Debian/Ubuntu)


class FontWarning(UserWarning):
    """No installed font can draw some characters of the labels; they are shown as U+XXXX.
    Carries a stable code, its English sentence and fields (tests compare the code and fields, not the words)."""

    def __init__(self, code: str, message: str | None = None, /, **fields) -> None:
        from glassformer.messages import t

        self.code, self.message, self.fields = code, message, fields
        super().__init__(t(message, **fields))

    @property
    def key(self) -> str:  # the old name of `code`
        return self.code


@functools.lru_cache(maxsize=None)
def charmap(path: str) -> frozenset[int]:
    """The code points a font file has glyphs for (first face of a .ttc collection)."""
    from matplotlib.ft2font import FT2Font

    try:
        return frozenset(FT2Font(path).get_charmap())
    except (OSError, RuntimeError, ValueError):  # unreadable or exotic font file
        return frozenset()


def shipped_font() -> str:
    """The Chinese font in the package, registered with matplotlib as the sans-serif fallback."""
    return use_in_matplotlib()


def default_font_path() -> str:
    return str(font_manager.findfont(FontProperties(), fallback_to_default=True))  # a plain path


@functools.lru_cache(maxsize=1)
def _system_fonts() -> tuple[str, ...]:
    return tuple(sorted(font_manager.findSystemFonts()))  # scans the font folders: once


def candidate_fonts():
    """Font files to try, best first: the default, known CJK families, every other font
    matplotlib knows, then font files on the system that its (possibly stale) cache lacks."""
    fonts = [f for f in font_manager.fontManager.ttflist if not any(bad in f.name.lower() for bad in NOT_REAL_GLYPHS)]
    cjk = [f.fname for f in fonts if any(h in f.name.lower() for h in CJK_FAMILY_HINTS)]
    known = list(dict.fromkeys([default_font_path(), shipped_font(), *cjk, *(f.fname for f in fonts)]))
    yield from known
    # a font installed after matplotlib built its cache is not in ttflist; look on disk too
    on_disk = [p for p in _system_fonts() if p not in set(known)]
    hinted = [
        p
        for p in on_disk
        if any(h.replace(" ", "") in p.lower().replace("-", "").replace("_", "") for h in CJK_FAMILY_HINTS)
    ]
    yield from dict.fromkeys([*hinted, *on_disk])


def pick_font(text: str) -> tuple[str, set[str]]:
    """The font covering most characters of `text` (the first that covers all), and the
    characters it still lacks (empty when every character can be drawn)."""
    needed = {c for c in text if not c.isspace()}
    best, best_missing = None, needed
    for path in candidate_fonts():
        missing = {c for c in needed if ord(c) not in charmap(path)}
        if best is None or len(missing) < len(best_missing):
            best, best_missing = path, missing
        if not missing:
            break
    return best or default_font_path(), best_missing


def escape(label: str, missing: set[str]) -> str:
    """Replace every character the font cannot draw by its code point: 你 -> U+4F60."""
    return "".join(f"U+{ord(c):04X}" if c in missing else c for c in label)


def label_font(labels: list[str]) -> tuple[FontProperties, list[str]]:
    """A FontProperties for drawing `labels`, and the labels themselves (escaped where needed)."""
    path, missing = pick_font("".join(labels))
    if missing and not {c for c in missing if ord(c) not in charmap(default_font_path())}:
        # "你 ␣ ↵": the shipped font has the Chinese, the default the symbols; matplotlib draws each
        # glyph from the first font of the family list that has it
        return FontProperties(family=[FontProperties(fname=default_font_path()).get_name(), FAMILY]), labels
    if missing:
        shown = ", ".join(f"{c!r} (U+{ord(c):04X})" for c in sorted(missing)[:6])
        warning = FontWarning(
            "inspect.font.missing",
            "no font here has glyphs for {chars}; labels show code "
            "points instead. To see them, install a CJK font "
            "(Debian/Ubuntu: `{install}`), then delete "
            "~/.cache/matplotlib.",
            chars=shown + (" …" if len(missing) > 6 else ""),
            install=INSTALL,
        )
        warnings.warn(warning, stacklevel=3)
        labels = [escape(s, missing) for s in labels]
    return FontProperties(fname=path), labels
