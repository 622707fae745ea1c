"""How the shipped Chinese font (GlassformerCJK-Regular.otf) was made: `python -m glassformer.fonts.recipe`.

Chinese labels need a font with Chinese glyphs, and a fresh Debian or container has none. So the
package carries one: a subset of Noto Sans CJK SC Regular (SIL Open Font License 1.1, © Adobe),
renamed "Glassformer CJK" as the licence asks of a modified font (and since "Noto" is a trademark).

    source   the PyPI wheel noto-cjk-sans-otc==0.0.1 (NotoSansCJK-Regular.ttc, face "Noto Sans CJK SC"),
             downloaded once with pip and checked against SOURCE_SHA256
    kept     printable ASCII and Latin-1, general punctuation, arrows, box drawing and blocks,
             CJK punctuation, full-width forms, all 7,445 characters of GB 2312 (6,763 hanzi),
             every character of the zh-poems corpus and of the Chinese catalogue
    size     about 3 MB (the whole collection is 19 MB)

A character outside the subset (a rare hanzi in your own text) is drawn with an installed system
CJK font when there is one, else shown as its code point with a note that says how to install one.
fontTools does the subsetting (matplotlib depends on it, so it is always there).
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

SOURCE = "noto-cjk-sans-otc==0.0.1"
SOURCE_WHEEL = "noto_cjk_sans_otc-0.0.1-py3-none-any.whl"
SOURCE_SHA256 = "44596df7f0c1590cb9c4cfe85b9213b7e91e1086a8a024f1a05df6d6badd33ec"
SOURCE_FILE = "noto_cjk_sans_otc/NotoSansCJK-Regular.ttc"
SOURCE_FACE = "Noto Sans CJK SC"
FAMILY = "Glassformer CJK"
HERE = Path(__file__).resolve().parent
OUTPUT = HERE / "GlassformerCJK-Regular.otf"

RANGES = (
    (0x20, 0x7E),  # printable ASCII
    (0xA0, 0xFF),  # Latin-1
    (0x2000, 0x206F),  # general punctuation (… — ‘ ’ “ ”)
    (0x2190, 0x21FF),  # arrows
    (0x2300, 0x243F),  # technical symbols, control pictures (␣ ⏎)
    (0x2500, 0x259F),  # box drawing and blocks (▁ ▏ █)
    (0x3000, 0x303F),  # CJK punctuation (、。《》「」)
    (0xFF00, 0xFFEF),  # full-width forms (，！？：；)
)


def gb2312() -> set[str]:
    """Every character of GB 2312 (rows 0xA1-0xF7, cells 0xA1-0xFE): symbols and 6,763 hanzi."""
    chars = set()
    for row in range(0xA1, 0xF8):
        for cell in range(0xA1, 0xFF):
            try:
                chars.add(bytes((row, cell)).decode("gb2312"))
            except UnicodeDecodeError:
                pass
    return chars


def wanted(poems: str = "") -> set[int]:
    from glassformer.messages import translations

    chars = gb2312() | set(poems) | set("".join(translations("zh")))
    codes = {ord(c) for c in chars if not c.isspace()}
    for lo, hi in RANGES:
        codes.update(range(lo, hi + 1))
    return codes


def source_font(folder: Path) -> Path:
    """The source wheel's .ttc, downloaded with pip and checked by sha256."""
    wheel = folder / SOURCE_WHEEL
    if not wheel.exists():
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(folder), SOURCE]
        subprocess.run(cmd, check=True)
    got = hashlib.sha256(wheel.read_bytes()).hexdigest()
    if got != SOURCE_SHA256:
        raise SystemExit(f"{wheel}: sha256 {got}, expected {SOURCE_SHA256}")
    with zipfile.ZipFile(wheel) as z:
        z.extract(SOURCE_FILE, folder)
    return folder / SOURCE_FILE


def build(ttc: Path, codes: set[int], out: Path = OUTPUT) -> Path:
    from fontTools import subset
    from fontTools.ttLib import TTCollection

    faces = TTCollection(str(ttc)).fonts
    font = next(f for f in faces if f["name"].getDebugName(4) == SOURCE_FACE)
    options = subset.Options()
    options.layout_features = []  # horizontal text only: no vertical or regional variants
    options.name_IDs = ["*"]
    options.notdef_outline = True
    sub = subset.Subsetter(options)
    sub.populate(unicodes=sorted(codes & set(font.getBestCmap())))
    sub.subset(font)
    names = font["name"]
    postscript = FAMILY.replace(" ", "") + "-Regular"
    for record in list(names.names):
        if record.nameID in (1, 4, 16):
            names.setName(FAMILY if record.nameID != 4 else FAMILY + " Regular", record.nameID, *_ids(record))
        elif record.nameID in (3, 6):
            names.setName(postscript, record.nameID, *_ids(record))
        elif record.nameID == 7:  # the trademark line goes with the name
            names.removeNames(nameID=7)
    names.setName(
        "A subset of Noto Sans CJK SC Regular (SIL Open Font License 1.1), renamed; made by glassformer.fonts.recipe",
        10,
        3,
        1,
        0x409,
    )
    font["CFF "].cff.fontNames = [postscript]
    font["CFF "].cff[0].FullName = FAMILY + " Regular"
    font["CFF "].cff[0].FamilyName = FAMILY
    font.save(str(out))
    return out


def _ids(record) -> tuple[int, int, int]:
    return record.platformID, record.platEncID, record.langID


def main() -> None:
    from glassformer.text.chinese import load_zh_poems

    with tempfile.TemporaryDirectory() as tmp:
        poems = load_zh_poems(Path(tmp))
        out = build(source_font(Path(tmp)), wanted(poems))
    print(out, out.stat().st_size, hashlib.sha256(out.read_bytes()).hexdigest())


if __name__ == "__main__":
    main()
