"""The ledger's cells read as sentences of their own language: no Python value ("None", "nan") in any
rendered cell (Markdown, HTML, the terminal in en and zh), a step that never came is the catalogue's
phrase with the budget as its field, and a Chinese "ours" or "measured" cell has no English word."""

from __future__ import annotations

import re

import pytest
from helpers import ROOT, said

from glassformer.config import ROPE_SCALINGS
from glassformer.lab import grokking, induction
from glassformer.lab.report import (
    LANGS,
    index_html,
    ledger_markdown,
    ledger_rows,
    ledger_text,
    read_records,
    steps,
    text,
    words,
)
from glassformer.messages import speaking, t
from glassformer.nn.position import POSITION_SCHEMES

DOCS_LAB = ROOT / "docs" / "lab"
PYTHON_VALUE = re.compile(r"\b(None|nan|NaN)\b")
# Latin words a Chinese sentence may hold: units, symbols and names the Chinese text uses as they are:
# methods and measures named after their authors, the activations and position methods by their published
# names, and the registry names of position schemes and RoPE scalings (what --position, rope_scaling take)
NAMES = ("ALiBi", "NoPE", "Kendall", "tau", "Jensen", "Shannon", "ReLU", "GELU", "SwiGLU", "GeGLU", "RoPE", "YaRN")
NAMES += (*POSITION_SCHEMES, *ROPE_SCALINGS)
# the experts' and latent attention's entries: the presets they train, the load's measure (MaxVio, Wang et
# al. 2024), the routing functions, the clock, the dtype and ln (the entropy's normaliser ln E)
NAMES += ("baby-llama", "baby-moe", "baby-mla", "MaxVio", "softmax", "sigmoid", "CPU", "float32", "ln")
# and Welleck et al.'s repetition measure by its published name, seq-rep-n
KEPT = re.compile(r"\b(ICL|nats|d_model|d_ff|H_kv|FFN|p|k|L\d+H\d+|H\d+|seq-rep-\d+|" + "|".join(NAMES) + r")\b")


def english_words(zh: str) -> list[str]:
    return re.findall(r"[A-Za-z]{2,}", KEPT.sub("", zh))


@pytest.fixture(scope="module")
def records():
    rows = read_records(DOCS_LAB)
    assert ledger_rows(rows), "docs/lab holds no ledger entry"
    return rows


def test_no_rendered_ledger_cell_holds_a_python_value(records):
    page = index_html(records)
    table = page[page.index("<table>") : page.index("</table>")]  # the ledger: the page's first table
    pages = {"md": ledger_markdown(records), "html": table}
    pages.update({f"terminal {lang}": ledger_text(records, lang) for lang in LANGS})
    for row in ledger_rows(records):
        for lang in LANGS:
            pages[f"{row['experiment']} ours {lang}"] = row[f"ours_{lang}"]
    found = {name: PYTHON_VALUE.findall(page) for name, page in pages.items()}
    assert not any(found.values()), found


def test_the_chinese_ours_and_measured_cells_have_no_english_word(records):
    for r in records:
        for c in r["claims"]:
            if c.get("paper"):
                for part in ("ours", "finding", "rule"):
                    assert english_words(c[f"{part}_zh"]) == [], (c["key"], part, c[f"{part}_zh"])


def test_the_english_detector_finds_english_in_chinese():
    # snapshot: a made-up mixed line the English detector is fed, not the package's words
    assert english_words("测试跃升于第 4700 步、never") == ["never"]
    assert english_words("头 L1H0：ICL -0.66 nats，p = 53") == []


@pytest.mark.parametrize("lang", LANGS)
def test_a_step_that_never_came_is_the_catalogues_phrase_with_the_budget(lang):
    field = steps([4700, None], 5000)
    assert field == {"steps": [4700, None], "within": 5000}  # data, not words: results.json stores this
    with said() as heard:
        got = words(lang, field)
    assert [f for _, f in heard] == [{}, {"step": 4700}, {"within": 5000}]  # the list's comma, a step, the budget
    (comma, _), (step, at), (never_key, budget) = heard
    with speaking(lang):
        want = t(step, **at) + t(comma) + t(never_key, **budget)
        never = t(never_key, **budget)
    assert got == want and "None" not in want and "5000" in never
    assert lang == "en" or re.search("[\u4e00-\u9fff]", never)
    ours = next(c.ours for c in grokking.EXPERIMENT.claims if "{jump_steps}" in (c.ours or ""))  # a ledger cell
    assert never in text(lang, ours, fit_steps=steps([300], 5000), jump_steps=field, p=53)


def test_the_rules_give_steps_as_data_the_sentence_words():
    v = grokking.verdicts(
        {
            "p": 53,
            "steps": 5000,
            "wd": 1.0,
            "init_keys": [],
            "runs": {
                "decay": [
                    {"fit_step": 300, "jump_step": None, "final_test": 0.6, "final_train": 1.0, "keys": [3]}
                    | {"key_share": 0.5}
                ],
                "no_decay": [
                    {"fit_step": 200, "jump_step": None, "final_test": 0.04, "final_train": 1.0, "keys": []}
                    | {"key_share": 0.0}
                ],
            },
        }
    )
    assert v["grokking.delay"].figures["jump_steps"] == {"steps": [None], "within": 5000}
    summ = {
        "final_icl": -0.6,
        "window_share": 0.5,
        "half_step": 1950,
        "induction_step": None,
        "previous_step": 2850,
        "final_induction": 0.4,
        "final_previous": 0.6,
    }
    abl = {"layer": 1, "head": 0, "heads": [0], "control_head": 2, "icl": -0.6, "icl_without_induction": -0.5}
    abl["icl_without_strongest"] = -0.5
    r = {
        "steps": 3000,
        "bag": -0.8,
        "perfect": {"induction": 0.6, "previous_token": 0.98},
        "runs": {
            "1": [{"summary": {**summ, "half_step": None}}],
            "2": [{"summary": summ, "ablation": {**abl, "icl_without_control": -0.6}}],
        },
    }
    heads = induction.verdicts(r)["induction.heads"].figures
    assert heads["induction"] == {"steps": [None], "within": 3000}
    assert heads["previous"] == {"steps": [2850], "within": 3000}


def test_rewrite_rewords_a_record_from_its_numbers_and_keeps_the_runs_facts(tmp_path):
    import json
    import shutil

    from glassformer.lab.runner import rewrite

    folder = tmp_path / "grokking"
    shutil.copytree(DOCS_LAB / "grokking", folder)
    before = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    stale = {**before, "claims": [{**c, "ours_zh": "第 None 步"} for c in before["claims"]]}
    (folder / "results.json").write_text(json.dumps(stale, ensure_ascii=False), encoding="utf-8")
    after = rewrite(folder)
    assert after == json.loads((folder / "results.json").read_text(encoding="utf-8"))
    assert [c["ours_zh"] for c in after["claims"]] == [c["ours_zh"] for c in before["claims"]]
    for key in ("results", "seconds", "cpu_seconds", "machine", "git", "command", "figures"):
        assert after[key] == before[key], key
    assert (folder / "report.md").read_text(encoding="utf-8") == (DOCS_LAB / "grokking" / "report.md").read_text(
        encoding="utf-8"
    )


def test_every_committed_record_rewrites_from_its_own_numbers(tmp_path):
    """rewrite() re-renders a committed record from the numbers in it: a figure results.json keeps as
    "nan" (mask-fill's max_diff where no row is live) is shown as nan, not an error on its format."""
    import shutil

    from glassformer.lab.runner import rewrite

    for source in sorted(p.parent for p in DOCS_LAB.glob("*/results.json")):
        folder = tmp_path / source.name
        shutil.copytree(source, folder)
        record = rewrite(folder)
        assert record["experiment"] and (folder / "report.md").read_text(encoding="utf-8"), source.name
    assert "| nan |" in (tmp_path / "mask-fill" / "report.md").read_text(encoding="utf-8")
