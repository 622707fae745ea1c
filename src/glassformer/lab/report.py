"""The lab's reports: one report.md per experiment, and one index (Markdown and offline HTML) of them.

Everything is read back from the experiments' results.json files: the index shows what was
measured, never a second copy of it. The HTML page has no script from anywhere, no font or style
sheet from anywhere and no URL: its figures are the PNGs beside it, named by relative paths, and the
shipped CJK font travels inside it (cut to its characters), so the folder opens offline as it is,
Chinese drawn on a machine without a CJK font (and docs/lab/ reads the same on a code host). It opens
in the current language (--lang); a switch shows the other.
"""

from __future__ import annotations

import html
from pathlib import Path

from glassformer import messages
from glassformer.errors import DamagedFile, NotFound, UsageError
from glassformer.files import read_json, write_text_atomic
from glassformer.fonts import SANS, embedded_css, html_lang
from glassformer.messages import N_, NP_

LANGS = messages.LANGS  # a report holds every language side by side
LEVEL_WORDS = {  # the three verdicts a rule can return, and how a report writes each
    "holds": N_("holds"),
    "half-true": N_("half-true"),
    "fails": N_("fails"),
}
LEVELS = tuple(LEVEL_WORDS)


def steps(values, within: int) -> dict:
    """A sentence field of per-seed steps: the step at which something happened in each seed, None
    where it did not happen within `within` steps. Kept as numbers (so results.json stores data, not
    words) and written out by `text` in the sentence's own language: "4700, not within 5000 steps"
    / "第 4700 步, 5000 步内未出现", never "None"."""
    return {"steps": [None if v is None else int(v) for v in values], "within": int(within)}


def words(lang: str, value):
    """A sentence field as `lang` writes it: a `steps` field in words of that language, else as it is."""
    if isinstance(value, dict) and set(value) == {"steps", "within"}:
        with messages.in_language(lang):
            return messages.t(", ").join(
                messages.t("not within {within} steps", within=value["within"])
                if v is None
                else messages.t("step {step}", step=v)
                for v in value["steps"]
            )
    return value


def text(lang: str, key: str, **fields) -> str:
    """The catalogue's sentence `key` in `lang` (a `lab.*` key), with its {fields} filled in."""
    if lang not in LANGS:
        raise UsageError("lab.lang", "--lang {lang!r} is not one of {langs}.", lang=lang, langs=sorted(LANGS))
    fields = {k: words(lang, v) for k, v in fields.items()}
    with messages.in_language(lang):
        return messages.t(key, **fields)


def _took(record: dict, lang: str) -> str:
    m = record["machine"]
    load = "?" if m.get("load_1min") is None else f"{m['load_1min']:.2f}"
    return text(
        lang,
        N_(
            "Took {seconds} s of wall time and {cpu_seconds} s of CPU "
            "time on {cpu} ({cores} cores, {threads} thread(s), torch "
            "{torch}; load average {load} at the start: the machine was "
            "shared, so the CPU time is the steadier figure)."
        ),
        seconds=record["seconds"],
        cpu_seconds=record.get("cpu_seconds", "?"),
        cpu=m["cpu"],
        cores=m["cores"],
        threads=m["threads"],
        torch=m["torch"],
        load=load,
    )


def _code(record: dict, lang: str) -> str:
    code = record.get("git")  # None: not run from a git checkout (or recorded before commits were)
    if code is None:
        return text(lang, N_("Code: not run from a git checkout, so no commit was recorded."))
    return text(
        lang,
        N_(
            "Code: git commit {commit}, with uncommitted changes to "
            "tracked files: the code that ran differs from that commit."
        )
        if code["dirty"]
        else N_("Code: git commit {commit}."),
        commit=code["commit"],
    )


def source(claim: dict, lang: str) -> str:
    """Where a claim comes from: "tutorial 004 §3.2", or a ledger entry's paper and its section."""
    if claim.get("paper"):
        return text(
            lang, N_("{who}, {where} ({paper})"), who=claim["tutorial"], where=claim["where"], paper=claim["paper"]
        )
    return text(lang, N_("tutorial {tutorial} {where}"), tutorial=claim["tutorial"], where=claim["where"])


def experiment_markdown(record: dict, tables: list[str]) -> str:
    """lab.report.md of one experiment: setup, each claim with its rule and verdict, numbers, figures."""
    out = [f"# {record['title_en']}", f"*{record['title_zh']}*", ""]
    out += [
        f"**{text('en', N_('Reproduce'))} / {text('zh', N_('Reproduce'))}:** `{record['command']}`",
        "",
    ]
    for lang in LANGS:
        out.append(_took(record, lang))
    out.append("")
    out += [_code(record, lang) for lang in LANGS] + [""]
    out += [
        text(
            lang,
            N_("Seeds: {seeds}; where several, figures are mean ± half the range over seeds."),
            seeds=record["seeds"],
        )
        for lang in LANGS
    ] + [""]
    if record["fast"]:
        out += [
            f"> {text(lang, N_('Fast mode: smoke-test sizes. The numbers show that the code runs and what it measures, not what the full run finds.'))}"  # noqa: E501
            for lang in LANGS
        ] + [""]
    out += [f"## {text('en', N_('Setup'))} / {text('zh', N_('Setup'))}", ""]
    out += [record["setup_en"], "", record["setup_zh"], ""]
    out += [f"## {text('en', N_('Claims and verdicts'))} / {text('zh', N_('Claims and verdicts'))}", ""]
    for i, c in enumerate(record["claims"], 1):
        where = source(c, "en")
        verdict = " / ".join(text(lang, LEVEL_WORDS[c["level"]]) for lang in LANGS)
        out += [f"### {i}. {where} — **{verdict}**", ""]
        for lang in LANGS:
            out += [f"> {c[f'claim_{lang}']}", ">"]
        out[-1] = ""
        for lang in LANGS:
            out += [f"- *{text(lang, N_('Rule (code, fixed before the run)'))}:* {c[f'rule_{lang}']}"]
        for lang in LANGS:
            out += [f"- *{text(lang, N_('Measured'))}:* {c[f'finding_{lang}']}"]
        if c.get("paper"):  # a ledger entry: the paper's number beside ours
            for lang in LANGS:
                out += [f"- *{text(lang, N_('The paper'))}:* {c[f'paper_{lang}']}"]
            for lang in LANGS:
                out += [f"- *{text(lang, N_('Ours'))}:* {c[f'ours_{lang}']}"]
        out.append("")
    if tables:
        out += [f"## {text('en', N_('Numbers'))} / {text('zh', N_('Numbers'))}", "", *tables, ""]
    if record["figures"]:
        out += [f"## {text('en', N_('Figures'))} / {text('zh', N_('Figures'))}", ""]
        out += [f"![{name}]({name})" for name in record["figures"]] + [""]
    return "\n".join(out)


# ---- results.json read back ---------------------------------------------------------------------
# What run_experiment writes and every reader (report.md, the index, the ledger, `lab list`) relies
# on: a committed file damaged by hand, by a merge or by a disk is refused naming itself and the
# first field that is wrong, never an internal error deep in a reader.
NUMBER, WHOLE, TEXT, FLAG = "number", "whole", "text", "flag"
KINDS = {NUMBER: (int, float), WHOLE: (int,), TEXT: (str,), FLAG: (bool,), "object": (dict,), "list": (list,)}
WANT = {  # what a field of each kind should hold, as the error for a wrong one says it
    NUMBER: N_("a number"),
    WHOLE: N_("a whole number"),
    TEXT: N_("text"),
    FLAG: N_(NP_("lab.report.want.flag", "true or false")),
    "object": N_("a JSON object"),
    "list": N_("a list"),
    "names": N_("a list of file names"),  # the figures: a list of file names
}
RECORD = {
    "experiment": TEXT,
    **{f"{part}_{lang}": TEXT for part in ("title", "setup") for lang in LANGS},
    "fast": FLAG,
    "seeds": WHOLE,
    "seconds": NUMBER,
    "machine": "object",
    "command": TEXT,
    "claims": "list",
    "figures": "list",
    "results": "object",
}
MACHINE = {"cpu": TEXT, "cores": WHOLE, "threads": WHOLE, "torch": TEXT}
CLAIM = {
    "key": TEXT,
    "tutorial": TEXT,
    "where": TEXT,
    "level": TEXT,
    "figures": "object",
    **{f"{part}_{lang}": TEXT for part in ("claim", "rule", "finding") for lang in LANGS},
}
LEDGER_CLAIM = {f"{part}_{lang}": TEXT for part in ("paper", "ours") for lang in LANGS}  # a claim with a paper
RESULTS_MOST = 16 << 20  # bytes: the largest committed results.json is a few hundred KB


def _check_fields(value: dict, shape: dict, where: str, path: Path) -> None:
    for name, kind in shape.items():
        field = f"{where}{name}"
        if name not in value:
            raise DamagedFile(
                "lab.results_missing",
                "{path} is damaged: it has no {field}, which every results file glassformer writes holds. {fix}",
                path=path,
                field=field,
                fix=_results_fix(path),
            )
        if not isinstance(value[name], KINDS[kind]) or (kind != FLAG and isinstance(value[name], bool)):
            raise _wrong_type(path, field, kind)


def _results_fix(path: Path) -> str:
    return messages.t(
        "Run the experiment again (glassformer lab run {name}) or, "
        "for a committed result, restore it: git checkout -- {path}",
        name=path.parent.name,
        path=path,
    )


def _wrong_type(path: Path, field: str, want: str) -> DamagedFile:
    """The error for a results.json field of the wrong type (`want`: a kind of WANT)."""
    return DamagedFile(
        "lab.results_type",
        "{path} is damaged: its {field} must be {want}. {fix}",
        path=path,
        field=field,
        want=messages.t(WANT[want]),
        fix=_results_fix(path),
    )


def read_record(path: str | Path) -> dict:
    """One results.json, checked to hold every field the readers use (RECORD, MACHINE, CLAIM), or
    DamagedFile naming the file, the first wrong field and how to get a good one back."""
    path = Path(path)
    record = read_json(path, _results_fix(path), most=RESULTS_MOST)
    if not isinstance(record, dict):
        raise _wrong_type(path, "results.json", "object")
    _check_fields(record, RECORD, "", path)
    _check_fields(record["machine"], MACHINE, "machine.", path)
    for i, claim in enumerate(record["claims"]):
        where = f"claims[{i}]."
        if not isinstance(claim, dict):
            raise _wrong_type(path, where[:-1], "object")
        _check_fields(claim, {**CLAIM, **(LEDGER_CLAIM if claim.get("paper") else {})}, where, path)
        if claim["level"] not in LEVELS:
            raise DamagedFile(
                "lab.results_level",
                "{path} is damaged: its {field} is {level!r}, not one of {levels}. {fix}",
                path=path,
                field=f"{where}level",
                level=claim["level"],
                levels=", ".join(LEVELS),
                fix=_results_fix(path),
            )
    if not all(isinstance(name, str) for name in record["figures"]):
        raise _wrong_type(path, "figures", "names")
    return record


def read_records(root: str | Path) -> list[dict]:
    """Every experiment's results.json under root (each checked: read_record), in the lab's order
    (others after, by name)."""
    from glassformer.lab import experiments

    order = list(experiments())
    records = [read_record(path) for path in sorted(Path(root).glob("*/results.json"))]
    return sorted(
        records,
        key=lambda r: (order.index(r["experiment"]) if r["experiment"] in order else len(order), r["experiment"]),
    )


def ledger_rows(records: list[dict]) -> list[dict]:
    """One row per claim of a ledger entry (a claim with a paper): where it comes from, the claim,
    the paper's number, ours, the verdict and the run's time, every sentence in every language."""
    rows = []
    for r in records:
        for c in r["claims"]:
            if not c.get("paper"):
                continue
            rows.append(
                {
                    "experiment": r["experiment"],
                    "level": c["level"],
                    "cpu_seconds": r.get("cpu_seconds"),
                    "seconds": r["seconds"],
                    "fast": r["fast"],
                    **{f"source_{lang}": source(c, lang) for lang in LANGS},
                    **{f"{part}_{lang}": c[f"{part}_{lang}"] for part in ("claim", "paper", "ours") for lang in LANGS},
                }
            )
    return rows


LEDGER_COLUMNS = {  # the ledger's columns, in order, and their headings
    "entry": N_("entry"),
    "source": N_("paper"),
    "claim": N_("claim"),
    "paper": N_("the paper's number"),
    "ours": N_(NP_("lab.ledger.col.ours", "ours")),
    "verdict": N_("verdict"),
    "cpu": N_("CPU time"),
}


def _cell(s: str) -> str:
    return s.replace("|", "\\|")


def ledger_markdown(records: list[dict]) -> str:
    """docs/lab/ledger.md: one row per ledger claim, both languages in each cell, linking to the report."""
    rows = ledger_rows(records)
    out = [
        f"# {text('en', N_('The reproduction ledger: published small-Transformer results re-run on a CPU'))}",
        f"*{text('zh', N_('The reproduction ledger: published small-Transformer results re-run on a CPU'))}*",
        "",
    ]
    out += [
        text(
            "en",
            N_(
                "One row per claim of a published result, scaled down to a "
                "laptop CPU: the paper's number (and where it is printed) "
                "beside ours, and a verdict from a rule written as code "
                "before the run. Where the paper's number is not in the "
                "parts of the paper read for the entry, the row says so "
                "instead of quoting one."
            ),
        ),
        "",
        text(
            "zh",
            N_(
                "One row per claim of a published result, scaled down to a "
                "laptop CPU: the paper's number (and where it is printed) "
                "beside ours, and a verdict from a rule written as code "
                "before the run. Where the paper's number is not in the "
                "parts of the paper read for the entry, the row says so "
                "instead of quoting one."
            ),
        ),
        "",
    ]
    out.append("| " + " | ".join(f"{text('en', k)} / {text('zh', k)}" for k in LEDGER_COLUMNS.values()) + " |")
    out.append("|" + "---|" * len(LEDGER_COLUMNS))
    for row in rows:
        both = {
            k: "<br>".join(_cell(row[f"{k}_{lang}"]) for lang in LANGS) for k in ("source", "claim", "paper", "ours")
        }
        verdict = " / ".join(text(lang, LEVEL_WORDS[row["level"]]) for lang in LANGS)
        took = text(
            "en", N_("{cpu} s CPU ({wall} s wall)"), cpu=f"{row['cpu_seconds']:.0f}", wall=f"{row['seconds']:.0f}"
        )
        fast = " (fast)" if row["fast"] else ""
        out.append(
            f"| [{row['experiment']}]({row['experiment']}/report.md) | {both['source']} | {both['claim']} | "
            f"{both['paper']} | {both['ours']} | **{verdict}** | {took}{fast} |"
        )
    return "\n".join(out) + "\n"


def ledger_text(records: list[dict], lang: str) -> str:
    """The ledger for a terminal, in one language: a block per row."""
    rows = ledger_rows(records)
    out = [text(lang, N_("The reproduction ledger: published small-Transformer results re-run on a CPU")), ""]
    for row in rows:
        took = text(
            lang, N_("{cpu} s CPU ({wall} s wall)"), cpu=f"{row['cpu_seconds']:.0f}", wall=f"{row['seconds']:.0f}"
        )
        out.append(f"[{text(lang, LEVEL_WORDS[row['level']])}] {row['experiment']} · {row[f'source_{lang}']} · {took}")
        for part in ("claim", "paper", "ours"):
            out.append(f"    {text(lang, LEDGER_COLUMNS[part])}: {row[f'{part}_{lang}']}")
        out.append("")
    return "\n".join(out)


def index_markdown(records: list[dict]) -> str:
    out = [
        f"# {text('en', N_('''glassformer lab: the tutorials' claims, tested'''))}",
        f"*{text('zh', N_('''glassformer lab: the tutorials' claims, tested'''))}*",
        "",
        text(
            "en",
            N_(
                "Each experiment trains or computes the small thing a claim "
                "is about, on a CPU, and applies a verdict rule that was "
                "written as code before the run. Numbers, rules and figures "
                "are in each experiment's report."
            ),
        ),
        "",
        text(
            "zh",
            N_(
                "Each experiment trains or computes the small thing a claim "
                "is about, on a CPU, and applies a verdict rule that was "
                "written as code before the run. Numbers, rules and figures "
                "are in each experiment's report."
            ),
        ),
        "",
    ]
    if ledger_rows(records):
        out += [
            f"[{text('en', N_('The reproduction ledger: published small-Transformer results re-run on a CPU'))}](ledger.md) · [{text('zh', N_('The reproduction ledger: published small-Transformer results re-run on a CPU'))}](ledger.md)",  # noqa: E501
            "",
        ]
    out += [
        "| experiment | tutorial | claim | verdict | seeds · wall (CPU) time | reproduce |",
        "|---|---|---|---|---|---|",
    ]
    for r in records:
        for c in r["claims"]:
            claim = c["claim_en"].replace("|", "\\|") + "<br>" + c["claim_zh"].replace("|", "\\|")
            verdict = f"**{text('en', LEVEL_WORDS[c['level']])}** / {text('zh', LEVEL_WORDS[c['level']])}"
            mode = " (fast)" if r["fast"] else ""
            cpu = f" ({r['cpu_seconds']:.0f} s)" if "cpu_seconds" in r else ""
            out.append(
                f"| [{r['experiment']}]({r['experiment']}/report.md) | {c['tutorial']} {c['where']} | "
                f"{claim} | {verdict} | {r['seeds']} · {r['seconds']:.0f} s{cpu}{mode} | `{r['command']}` |"
            )
    out.append("")
    for r in records:
        out += [f"## [{r['title_en']}]({r['experiment']}/report.md)", f"*{r['title_zh']}*", ""]
        for c in r["claims"]:
            out += [
                f"- **{text('en', LEVEL_WORDS[c['level']])}** ({c['tutorial']} {c['where']}): {c['finding_en']}",
                f"  <br>**{text('zh', LEVEL_WORDS[c['level']])}**：{c['finding_zh']}",
            ]
        out += [""] + [f"![{name}]({r['experiment']}/{name})" for name in r["figures"]] + [""]
    return "\n".join(out)


CSS = """
body { font-family: SANS; max-width: 1100px; margin: 1.5em auto; padding: 0 1em; color: #222; line-height: 1.45; }
select { font-family: inherit; }
.lang-zh .en, .lang-en .zh { display: none; }
.verdict { font-weight: bold; padding: 0 0.4em; border-radius: 3px; }
.holds { background: #d4edda; } .half-true { background: #fff3cd; } .fails { background: #f8d7da; }
.claim { border-left: 3px solid #bbb; padding-left: 0.8em; margin: 0.6em 0; }
code { background: #f3f3f3; padding: 0 0.3em; } img { max-width: 100%; border: 1px solid #ddd; margin: 0.4em 0; }
.note { color: #666; font-size: 0.9em; }
table { border-collapse: collapse; font-size: 0.9em; }
td, th { border: 1px solid #ccc; padding: 0.3em; vertical-align: top; }
"""

JS = """
const pick = document.getElementById("lang");
function setLang() {  // the chosen language's texts shown, and <html lang> (the glyph forms) set to it
  document.body.className = "lang-" + pick.value;
  document.documentElement.lang = pick.selectedOptions[0].dataset.lang;
}
pick.onchange = setLang;
setLang();
"""


def _both(key: str, **fields) -> str:
    return "".join(f'<span class="{lang}">{html.escape(text(lang, key, **fields))}</span>' for lang in LANGS)


def _pair(record_or_claim: dict, field: str) -> str:
    return "".join(
        f'<span class="{lang}">{html.escape(str(record_or_claim[f"{field}_{lang}"]))}</span>' for lang in LANGS
    )


def index_html(records: list[dict]) -> str:
    """One offline page: a language switch, then each experiment with its claims, verdicts, figures."""
    body = [
        f"<h1>{_both(N_('''glassformer lab: the tutorials' claims, tested'''))}</h1>",
        f"<p>{_both(N_('Each experiment trains or computes the small thing a claim ' 'is about, on a CPU, and applies a verdict rule that was ' 'written as code before the run. Numbers, rules and figures ' '''are in each experiment's report.'''))}</p>",  # noqa: E501
    ]
    rows = ledger_rows(records)
    if rows:  # the ledger first: published results re-run, the paper's number beside ours
        body.append(
            f"<h2>{_both(N_('The reproduction ledger: published small-Transformer results re-run on a CPU'))}</h2><p>{_both(N_('One row per claim of a published result, scaled down to a ' '''laptop CPU: the paper's number (and where it is printed) ''' 'beside ours, and a verdict from a rule written as code ' '''before the run. Where the paper's number is not in the ''' 'parts of the paper read for the entry, the row says so ' 'instead of quoting one.'))}</p><table><tr>"  # noqa: E501
        )
        body.append("".join(f"<th>{_both(k)}</th>" for k in LEDGER_COLUMNS.values()) + "</tr>")
        for row in rows:
            cells = [f'<a href="{html.escape(row["experiment"])}/report.md">{html.escape(row["experiment"])}</a>']
            cells += [_pair(row, k) for k in ("source", "claim", "paper", "ours")]
            cells.append(f'<span class="verdict {row["level"]}">{_both(LEVEL_WORDS[row["level"]])}</span>')
            cells.append(
                _both(N_("{cpu} s CPU ({wall} s wall)"), cpu=f"{row['cpu_seconds']:.0f}", wall=f"{row['seconds']:.0f}")
            )
            body.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
        body.append("</table>")
    for r in records:
        body.append(f"<h2>{_pair(r, 'title')}</h2>")
        body.append(f'<p class="note">{_pair(r, "setup")}</p>')
        for c in r["claims"]:
            body.append('<div class="claim">')
            body.append(
                f'<p><span class="verdict {c["level"]}">{_both(LEVEL_WORDS[c["level"]])}</span> '
                + "".join(f'<span class="{lang}">{html.escape(source(c, lang))}</span>' for lang in LANGS)
                + "</p>"
            )
            body.append(f"<p><b>{_both(N_('Claim'))}:</b> {_pair(c, 'claim')}</p>")
            body.append(f"<p><b>{_both(N_('Rule (code, fixed before the run)'))}:</b> {_pair(c, 'rule')}</p>")
            body.append(f"<p><b>{_both(N_('Measured'))}:</b> {_pair(c, 'finding')}</p>")
            if c.get("paper"):
                body.append(f"<p><b>{_both(N_('The paper'))}:</b> {_pair(c, 'paper')}</p>")
                body.append(f"<p><b>{_both(N_('Ours'))}:</b> {_pair(c, 'ours')}</p>")
            body.append("</div>")
        took = "".join(f'<span class="{lang}">{html.escape(_took(r, lang))}</span>' for lang in LANGS)
        fast = (
            f" {_both(N_('Fast mode: smoke-test sizes. The numbers show that the code runs and what it measures, not what the full run finds.'))}"  # noqa: E501
            if r["fast"]
            else ""
        )
        body.append(
            f'<p class="note">{took}{fast}<br><code>{html.escape(r["command"])}</code> · '
            f'<a href="{html.escape(r["experiment"])}/report.md">report.md</a></p>'
        )
        for name in r["figures"]:
            src = html.escape(f"{r['experiment']}/{name}")
            body.append(f'<img src="{src}" alt="{html.escape(name)}">')
    options = "".join(_option(lang) for lang in LANGS)
    page = "\n".join(body)
    return (  # the shipped font inside, cut to the page's characters: Chinese draws without a CJK font
        f'<!DOCTYPE html>\n<html lang="{html_lang()}"><head><meta charset="utf-8"><title>glassformer lab</title>'
        f"<style>{embedded_css(options + page)}{CSS.replace('SANS', SANS)}</style></head>\n<body>\n"
        f'<select id="lang">{options}</select>\n{page}\n<script>{JS}</script>\n</body></html>\n'
    )


def _option(lang: str) -> str:
    """The language switch's entry for `lang`: chosen when it is the current language (--lang), with
    the <html lang> the page takes when it is picked."""
    chosen = " selected" if lang == messages.language() else ""
    with messages.in_language(lang):
        tag = html_lang()
    return f'<option value="{lang}" data-lang="{tag}"{chosen}>{html.escape(text(lang, N_("English")))}</option>'


def write_index(root: str | Path) -> tuple[Path, Path]:
    """Write <root>/index.md and <root>/index.html from every results.json under root."""
    root = Path(root)
    records = read_records(root)
    if not records:
        raise NotFound(
            "lab.no_results",
            "{root} holds no experiment results (no */results.json). Run "
            "one first: glassformer lab run NAME --out {root}",
            root=root,
        )
    md, page = root / "index.md", root / "index.html"
    write_text_atomic(md, index_markdown(records))
    write_text_atomic(page, index_html(records))
    if ledger_rows(records):
        write_text_atomic(root / "ledger.md", ledger_markdown(records))
    return md, page
