"""The Chinese catalogue (src/glassformer/locale/zh/LC_MESSAGES/glassformer.po) stays true to the
source: every sentence the code says is in it, translated, not fuzzy, with the same {fields} and
the same figures as its English; nothing obsolete or no longer said; its Chinese is Chinese; and
the compiled .mo is the .po's. Each check is a function that is also run on a planted bad .po, so
each can fail. `make po` (tools/po.py) is how the catalogue is kept; docs/translating.md."""

from __future__ import annotations

import importlib.util
import re
import string
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("glassformer_po", ROOT / "tools" / "po.py")
po = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(po)


CHINESE_OR_ITS_MARKS = re.compile(r"[\u4e00-\u9fff\u3000-\u303f\uff00-\uffef]")
# a paper quoted in its own words (“...”): the Chinese renders its figures in Chinese units (1.3 billion: 13 亿),
# so its figures are the quotation's, checked against the paper in the lab's ledger, not against the English
QUOTED = re.compile(r"“[^”]*\d[^”]*”")
SAME_IN_CHINESE = {"top-p", "logits"}  # terms Chinese writing keeps in Latin letters
PERCENT = re.compile(r"%(?:\(\w+\))?[sr]")
FIGURE = re.compile(r"(?<![\w.\-*/])\d+(?:[.,]\d+)*(?!\w)")  # a number standing alone (not UTF-8, sha256, L0_H0)


def brace_fields(text: str) -> set:
    """The {fields} of a format string, with conversion and spec: ("name", "r", ".2f")."""
    return {
        (name, conv or "", spec or "") for _, name, spec, conv in string.Formatter().parse(text) if name is not None
    }


def figures(text: str) -> Counter:
    """The figures typed into a sentence (a digit alone, as in "3-D" or "k = 1", is a word: 三维)."""
    return Counter(f for f in FIGURE.findall(re.sub(r"\{[^{}]*\}", "F", text)) if len(f) > 1)


def has_words(english: str) -> bool:
    """A sentence with a word of its own ("T = {T}" has none: it reads the same in Chinese)."""
    return bool(re.search(r"[A-Za-z]{3,}", re.sub(r"\{[^{}]*\}", "", english)))


def entries(catalogue):
    """(message, English, Chinese) for each entry (a plural: its singular and its one Chinese form)."""
    for m in catalogue:
        if not m.id:
            continue  # the header
        english = m.id[0] if isinstance(m.id, tuple) else m.id
        chinese = m.string[0] if isinstance(m.string, tuple) else m.string
        yield m, english, chinese


def problems(catalogue, said: set) -> dict[str, list[str]]:
    """What is wrong with a catalogue, by kind; `said`: the (context, English) pairs the source says."""
    found: dict[str, list[str]] = {
        "untranslated": [],
        "fuzzy": [],
        "fields": [],
        "figures": [],
        "not_chinese": [],
        "obsolete": [],
        "not_said": [],
        "not_in_catalogue": [],
    }
    held = set()
    for m, english, chinese in entries(catalogue):
        held.add((m.context, english))
        if not chinese:
            found["untranslated"].append(english)
            continue
        if m.fuzzy:
            found["fuzzy"].append(english)
        percent = sorted(PERCENT.findall(english)) != sorted(PERCENT.findall(chinese))
        if brace_fields(english) != brace_fields(chinese) or (PERCENT.search(english) and percent):
            found["fields"].append(english)
        if figures(english) != figures(chinese) and not QUOTED.search(english):
            found["figures"].append(english)
        if has_words(english) and not CHINESE_OR_ITS_MARKS.search(chinese) and english not in SAME_IN_CHINESE:
            found["not_chinese"].append(english)
        if (m.context, english) not in said:
            found["not_said"].append(english)
    found["obsolete"] = [m.id for m in catalogue.obsolete.values()]
    found["not_in_catalogue"] = sorted(english for context, english in said - held)
    return found


def said_in(template) -> set:
    return {(m.context, m.id[0] if isinstance(m.id, tuple) else m.id) for m in template if m.id}


@pytest.fixture(scope="module")
def said() -> set:
    """What the source says: Babel's extraction of src/glassformer, as `make po` runs it."""
    return said_in(po.extract())


def test_the_catalogue_is_complete_translated_clean_and_says_only_what_the_code_says(said):
    catalogue = po.read()
    assert len(said) > 1000
    assert {kind: items for kind, items in problems(catalogue, said).items() if items} == {}


def compiled(data: bytes) -> dict:
    """A .mo's entries as gettext reads them, less the header (its Generated-By names Babel's version)."""
    import gettext
    import io

    entries = dict(gettext.GNUTranslations(io.BytesIO(data))._catalog)  # gettext keeps them in _catalog
    entries.pop("", None)
    return entries


def test_the_compiled_catalogue_is_the_po_s():
    """The .mo is committed (a wheel or a checkout runs without Babel): it must be the .po compiled —
    the same entries, whichever Babel compiles it (a newer one writes other header bytes)."""
    assert compiled(po.MO.read_bytes()) == compiled(po.mo_bytes(po.PO)), "run `make po` (or python tools/po.py compile)"


def test_the_compiled_catalogue_check_sees_a_stale_entry():
    fresh = compiled(po.mo_bytes(po.PO))
    assert len(fresh) > 1000
    stale = po.read()
    entry = next(m for m in stale if m.id and not m.context and isinstance(m.string, str) and m.string)
    entry.string += "（旧）"
    import io

    from babel.messages.mofile import write_mo

    buffer = io.BytesIO()
    write_mo(buffer, stale)
    assert compiled(buffer.getvalue()) != fresh


PLANTED = """
msgid ""
msgstr ""
"Content-Type: text/plain; charset=utf-8\\n"
"Plural-Forms: nplurals=1; plural=0;\\n"

msgid "kept {n}"
msgstr "保留了 {n} 句"

msgid "untranslated"
msgstr ""

#, fuzzy
msgid "changed {n}"
msgstr "改了 {n} 次"

msgid "{path}"
msgstr "写入了 {file}"

msgid "%s argument"
msgid_plural "%s arguments"
msgstr[0] "需要参数值"

msgid "300 steps"
msgstr "走了 400 步"

msgid "leftover"
msgstr "leftover"

msgid "unsaid"
msgstr "不再说了"

#~ msgid "obsolete"
#~ msgstr "旧句子"
"""


def test_each_check_fails_on_a_planted_bad_catalogue(tmp_path):
    planted = tmp_path / "bad.po"
    planted.write_text(PLANTED, encoding="utf-8")
    said = {
        (None, english)
        for english in (
            "kept {n}",
            "untranslated",
            "changed {n}",
            "{path}",
            "%s argument",
            "300 steps",
            "leftover",
            "lacking",
        )
    }
    found = problems(po.read(planted), said)
    assert found == {
        "untranslated": ["untranslated"],
        "fuzzy": ["changed {n}"],
        "fields": ["{path}", "%s argument"],
        "figures": ["300 steps"],
        "not_chinese": ["leftover"],
        "obsolete": ["obsolete"],
        "not_said": ["unsaid"],
        "not_in_catalogue": ["lacking"],
    }
    assert po.mo_bytes(planted) != po.MO.read_bytes()  # the currency check compares bytes: a changed .po fails it


def test_extraction_finds_marked_sentences_also_inside_an_f_string(tmp_path):
    """Babel's own method misses a t(...) inside an f-string on Python 3.11; ours reads the syntax tree."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "m.py").write_text(
        "class UsageError(GlassformerError): ...\n"  # an error class: its second argument is the sentence
        "x = f\"# {t('Inside')}\"\n"
        'raise UsageError("area.what", "Sentence {n}.", n=1)\n'
        'y = NP_("a split", "train")\n'
        'z = t("a" if c else "b")\n',  # a choice is not a sentence: the codemod writes N_ on each
        encoding="utf-8",
    )
    assert said_in(po.extract(package)) == {
        (None, "Inside"),
        (None, "Sentence {n}."),
        ("a split", "train"),
    }


def test_the_chinese_is_read_at_run_time_with_its_context(monkeypatch):
    from glassformer import messages

    with messages.speaking("zh"):
        catalogue = po.read()
        m = next(m for m in catalogue if m.id and m.context is None and not isinstance(m.id, tuple) and "{" not in m.id)
        assert messages.t(m.id) == m.string != m.id
        contexts = [m for m in catalogue if m.context]
        # read as t() reads it, fields left unfilled (several of these sentences have some)
        assert contexts and all(messages.translated(messages.NP_(m.context, m.id), "zh") == m.string for m in contexts)
    assert all(messages.translated(messages.NP_(m.context, m.id), "en") == m.id for m in contexts)
