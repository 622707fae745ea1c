"""One message catalogue (glassformer/messages, the Chinese in locale/zh/LC_MESSAGES/glassformer.po:
its own checks are tests/messages/test_catalogue.py): every sentence the code says gets exactly its
fields; the command line speaks Chinese under `--lang zh` (anywhere) or
GLASSFORMER_LANG=zh — help, progress lines and errors, with the same exit codes; and the CLI's code
passes no literal sentence to print, argparse or an exception (docs/architecture.md, "Messages")."""

from __future__ import annotations

import argparse
import ast
import inspect
import re
import string
from pathlib import Path

import pytest
from helpers import formulas, said

import glassformer
import glassformer.errors
from glassformer import messages
from glassformer.cli import build_parser, main
from glassformer.cli.options import ARGPARSE_PLURALS, ARGPARSE_SAYS, Later, argparse_speaking
from glassformer.config import PRESETS, preset_about
from glassformer.messages import t


def english(value: str) -> str:
    """The sentence a call names (a key's English while keys remain)."""
    return value


PACKAGE = Path(glassformer.__file__).parent
CHINESE = re.compile(r"[\u4e00-\u9fff]")
CHINESE_OR_ITS_MARKS = re.compile(r"[\u4e00-\u9fff\u3000-\u303f\uff00-\uffef]")  # 。，；（） too


# ---- the tables -----------------------------------------------------------------------------------
def fields(text: str) -> set[tuple[str, str, str]]:
    """The {fields} of a format string: (name, conversion, format spec)."""
    return {
        (name, conv or "", spec or "") for _, name, spec, conv in string.Formatter().parse(text) if name is not None
    }


ERRORS = {name for name, value in vars(glassformer.errors).items() if isinstance(value, type)} | {"CorpusUnavailable"}


def test_every_sentence_the_code_says_gets_exactly_its_fields():
    """A t("sentence", ...), say("sentence", ...) or typed error `UsageError("code", "sentence", ...)`
    that does not fill a {field} of its sentence (or fills one the sentence does not use) would fail
    only when that sentence is said: in an error path. Two raises that are a choice (`X(...) if c else
    Y(...)`, one sentence each) share the fields they are given: each sentence uses some of them."""
    calls = 0
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if not any(
            isinstance(n, ast.ImportFrom) and n.module in ("glassformer.messages", "glassformer.errors")
            for n in ast.walk(tree)
        ):
            continue
        choices = {id(b) for n in ast.walk(tree) if isinstance(n, ast.IfExp) for b in (n.body, n.orelse)}
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("t", "say", *ERRORS)):
                continue
            strings = [a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None for a in node.args]
            if node.func.id in ERRORS and len(strings) > 1 and strings[1] is not None:
                text = strings[1]  # (code, English)
            elif strings and strings[0] is not None:
                text = english(strings[0])  # t("English"), say("English")
            else:
                continue
            where = f"{path.relative_to(PACKAGE)}:{node.lineno}"
            if all(k.arg is not None for k in node.keywords):  # no **fields: the names can be checked
                given = {k.arg for k in node.keywords} - {"file"}
                used = {name for name, _, _ in fields(text)}
                assert used <= given if id(node) in choices else used == given, f"{where}: {text!r} gets {given}"
            calls += 1
    assert calls > 400


# a figure: a number standing alone (not part of a name such as UTF-8, sha256, L0_H0 or --max_len={T})
FIGURE = re.compile(r"(?<![\w.\-*/])\d+(?:[.,]\d+)*(?!\w)")


def figures(text: str) -> list[str]:
    return FIGURE.findall(re.sub(r"\{[^{}]*\}", "F", text))


def test_the_figure_rule_can_fail():
    assert figures("1.25 s, 300 steps, 4") == ["1.25", "300", "4"]
    names = ("UTF-8", "sha256", "0x{byte:02x}", "--max_len={T}", "2**63-1", "L0_H0")  # figures inside names
    assert [figures(name) for name in names] == [[], [], [], [], ["2"], []]


def test_argparse_words_are_argparse_s_own_with_the_same_fields():
    """The argparse sentences the catalogue translates are sentences argparse really says (it would
    silently stop translating one that a new Python rewords), and each keeps its %-fields in Chinese."""
    source = inspect.getsource(argparse)
    said = [*ARGPARSE_SAYS, *(english for pair in ARGPARSE_PLURALS for english in pair)]
    assert len(said) > 15
    with messages.speaking("zh"):
        for english in said:
            assert repr(english) in source or f'"{english}"' in source, english
            chinese = (
                t(english)
                if english not in ARGPARSE_PLURALS[0]
                else messages.catalogue("zh").ngettext(english, english, 2)
            )
            percent = re.compile(r"%(?:\(\w+\))?[sr]")
            assert sorted(percent.findall(english)) == sorted(percent.findall(chinese)), english


def test_a_preset_s_description_reads_its_numbers_from_the_preset():
    for name, preset in PRESETS.items():
        with messages.speaking("zh"):
            zh_about = preset_about(name)
        assert CHINESE.search(zh_about) and str(preset.model.d_model) in zh_about


# ---- help in Chinese ---------------------------------------------------------------------------------
def parsers(parser: argparse.ArgumentParser, path=()):
    """(path of verbs, parser) for the top-level parser and every subcommand's, depth first."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from parsers(sub, (*path, name))


def test_every_option_of_every_verb_has_chinese_help_under_lang_zh():
    with messages.speaking("zh"), argparse_speaking():
        top = build_parser()
        seen = 0
        for path, parser in parsers(top):
            for action in parser._actions:
                if isinstance(action, argparse._SubParsersAction):
                    for choice in action._choices_actions:  # the one-line help of each subcommand
                        assert CHINESE.search(choice.help or ""), (path, choice.dest)
                    continue
                shown = action.help() if isinstance(action.help, Later) else action.help  # Later: made when shown
                assert shown and CHINESE.search(shown), (path, action.option_strings or action.dest)
                seen += 1
            if parser.description:
                assert CHINESE.search(parser.description), path
    assert seen > 100  # every verb's options, not a handful


def test_every_verb_s_help_prints_in_chinese(capsys):
    with messages.speaking("en"):
        paths = [path for path, _ in parsers(build_parser())]
    assert len(paths) > 20
    help_action = next(a for a in argparse.ArgumentParser()._actions if a.dest == "help")  # argparse's own -h
    with messages.speaking("zh"):
        usage, show_help = t("usage: "), t(help_action.help)
    assert CHINESE.search(usage) and CHINESE.search(show_help)
    for i, path in enumerate(paths):
        argv = ["--lang", "zh", *path, "--help"] if i % 2 else [*path, "--help", "--lang=zh"]  # before, after
        with pytest.raises(SystemExit) as done:
            main(argv)
        out = capsys.readouterr().out
        assert done.value.code == 0 and out.startswith(usage) and show_help in out, path
        assert CHINESE.search(out.split("\n\n", 1)[1]), path  # past the usage line: the help is Chinese


# ---- errors and progress lines through main ------------------------------------------------------
@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.setenv("GLASSFORMER_CACHE", str(tmp_path / "cache"))
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "config.json").write_text("{broken")
    return tmp_path


COMMON_ERRORS = [  # (argv with {tmp} for the folder, exit code)
    (["nosuch"], 2),
    (["train", "--bogus=1"], 2),
    (["train", "--n_heads=5"], 2),
    (["train", "--preset", "nope"], 2),
    (["train", "--max_steps"], 2),
    (["train", "--device=tpu"], 2),
    (["trace", "--threads", "-1"], 2),
    (["sample", "{tmp}/missing"], 2),
    (["sample", "{tmp}/broken"], 1),
    (["sample", "x", "--top-p", "1.5"], 2),
    (["data", "prepare", "file:{tmp}/missing.txt"], 2),
    (["data", "prepare", "file:{tmp}/empty.txt"], 1),
    (["data", "prepare", "builtin:seed", "--tokenizer", "bpe", "--vocab-size", "100"], 2),
    (["explore", "--preset", "seed000", "--host", "0.0.0.0"], 2),
    (["exercise", "start", "layernorm", "--dir", "{tmp}/ex"], 2),
    (["lab", "run", "lenght", "--fast"], 2),
    (["lab", "report", "--out", "{tmp}/nolab"], 2),
]


@pytest.mark.parametrize("argv, code", COMMON_ERRORS, ids=[" ".join(a) for a, _ in COMMON_ERRORS])
def test_common_errors_speak_chinese_with_the_same_exit_code(argv, code, files, capsys, monkeypatch):
    argv = [a.replace("{tmp}", str(files)) for a in argv]
    english = _run(argv, capsys)
    monkeypatch.setenv("GLASSFORMER_LANG", "zh")
    chinese = _run(argv, capsys)
    assert english[0] == chinese[0] == code
    assert english[1].strip() and not CHINESE.search(english[1])
    # in Chinese: the "error" label and the message itself, at least two runs of Chinese, not the label alone
    assert len(re.findall("[\u4e00-\u9fff]+", chinese[1])) >= 2, chinese[1]


def _run(argv, capsys) -> tuple[int, str]:
    try:
        code = main(argv)
    except SystemExit as e:  # argparse's own refusals
        code = e.code
    return code, capsys.readouterr().err


def test_a_bug_and_ctrl_c_speak_chinese_too(files, capsys, monkeypatch):
    import glassformer.cli.train as train_cli

    def broken(*args, **kwargs):
        raise ZeroDivisionError("planted")

    monkeypatch.setattr(train_cli, "prepare", broken)
    with said() as heard:
        assert main(["--lang", "zh", "data", "prepare", "builtin:seed"]) == 1
    err = capsys.readouterr().err
    (bug,) = heard.carrying(who="glassformer data", kind="ZeroDivisionError", detail="planted")
    assert bug["path"].exists() and str(bug["path"]) in err  # the traceback, kept for the report
    assert "planted" in err and CHINESE.search(err)  # the error's own detail, in a Chinese line

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(train_cli, "prepare", interrupted)
    with said() as heard:
        assert main(["data", "prepare", "builtin:seed", "--lang", "zh"]) == 130
    err = capsys.readouterr().err
    assert heard.carrying(who="glassformer data")  # one line naming the verb
    assert err.startswith("glassformer data") and err.count("\n") == 1 and CHINESE.search(err)


def test_lang_is_read_anywhere_and_beats_the_environment(capsys, monkeypatch):
    for argv in (
        ["--lang", "zh", "train", "--bogus=1"],
        ["train", "--lang", "zh", "--bogus=1"],
        ["train", "--bogus=1", "--lang=zh"],
    ):
        assert unknown_key(argv, capsys) == ("zh", [{"key": "bogus", "hint": ""}])
    monkeypatch.setenv("GLASSFORMER_LANG", "zh_CN.UTF-8")  # a locale name is understood
    assert unknown_key(["train", "--bogus=1"], capsys) == ("zh", [{"key": "bogus", "hint": ""}])
    assert unknown_key(["--lang", "en", "train", "--bogus=1"], capsys) == ("en", [{"key": "bogus", "hint": ""}])
    assert messages.language() == "zh"  # main's choice ended with main: the environment speaks again
    monkeypatch.delenv("GLASSFORMER_LANG")
    assert messages.language() == "en"


def unknown_key(argv, capsys) -> tuple[str, list[dict]]:
    """Run a command that gives an unknown config key: the language its error was said in, and the
    fields of each config.unknown_key said (exit code 2 checked)."""
    with said() as heard:
        assert main(argv) == 2
    err = capsys.readouterr().err
    return ("zh" if CHINESE.search(err) else "en"), heard.of("config.unknown_key")


def refused_language(argv, capsys):
    """Run a command with a bad --lang: exit code 2, and the UnknownLanguage error it printed."""
    with said() as heard:
        assert main(argv) == 2
    err = capsys.readouterr().err
    (error,) = [f["message"] for f in heard.carrying(who="glassformer")]
    assert isinstance(error, messages.UnknownLanguage) and str(error) in err
    return error


LANGS = ", ".join(messages.LANGS)  # the languages an error offers


def test_a_bad_language_is_a_usage_error(capsys, monkeypatch):
    with said() as heard:
        assert main(["train", "--lang"]) == 2
    assert heard.of("cli.lang_no_value") == [{"langs": LANGS}] and "--lang" in capsys.readouterr().err
    error = refused_language(["--lang", "fr", "train"], capsys)
    assert (error.code, error.fields["lang"], error.fields["langs"], error.lang) == (
        "lang.unknown",
        "fr",
        LANGS,
        "en",
    )
    assert "GLASSFORMER_LANG" in str(error) and not CHINESE.search(str(error))
    monkeypatch.setenv("GLASSFORMER_LANG", "zh")  # said in the environment's language when it has one
    error = refused_language(["--lang", "fr", "train"], capsys)
    assert (error.fields["lang"], error.lang) == ("fr", "zh") and CHINESE.search(str(error)) and "'fr'" in str(error)


@pytest.mark.slow
def test_training_prints_its_frame_in_chinese_with_the_same_numbers(tmp_path, capsys):
    """The run directory line, the evaluation lines of the trainer's progress and the summary, in both
    languages: every number of the Chinese run is the English run's (they come in as fields)."""
    outs, heard = {}, {}
    for lang in ("en", "zh"):
        argv = [
            "--lang",
            lang,
            "train",
            "--preset",
            "seed000",
            "--data",
            "builtin:seed",
            "--max_steps=2",
            "--eval_interval=1",
            "--eval_iters=1",
            "--d_model=16",
            "--d_ff=32",
            "--n_layers=1",
            "--out",
            str(tmp_path / lang),
            "--no-progress",
            "--sample-chars",
            "0",
            "--threads",
            "1",
        ]
        with said() as heard[lang]:
            assert main(argv) == 0
        outs[lang] = capsys.readouterr().out
        assert heard[lang].carrying(step=1) and heard[lang].carrying(steps=2)  # an evaluation line, the summary
        assert heard[lang].carrying(dir=tmp_path / lang, plot=tmp_path / lang / "loss.png")  # the run directory
    assert heard["en"].keys() == heard["zh"].keys()  # the same sentences, in the same order
    zh_out = outs["zh"]
    en_lines, zh_lines = outs["en"].splitlines(), zh_out.splitlines()
    losses = [i for i, line in enumerate(zh_lines) if re.search(r"\d+\.\d{4}", line)]
    assert len(en_lines) == len(zh_lines) and len(losses) >= 4  # three evaluations and the summary
    assert all(CHINESE.search(zh_lines[i]) and not CHINESE.search(en_lines[i]) for i in losses)

    def numbers(text):  # the losses
        return re.findall(r"\d+\.\d{4}", text)

    assert numbers(outs["en"]) == numbers(zh_out) and len(numbers(zh_out)) >= 8


def test_the_params_and_grads_tables_speak_chinese_with_the_same_numbers(tmp_path, capsys):
    """`params` and `grads` under --lang zh: Chinese headers (wide characters counted as two
    columns, so the columns still line up), the same rows and numbers as in English."""
    from glassformer.inspect.display import PARAM_COLUMNS, STATUS_WORDS
    from glassformer.messages import columns

    def words(lang, *messages_):  # the tables' own words, in `lang`
        with messages.speaking(lang):
            return [t(m) for m in messages_]

    outs = {}
    for verb in ("params", "grads"):
        for lang in ("en", "zh"):
            argv = ["--lang", lang, verb, "--preset", "seed000", "--out", str(tmp_path / lang), "--threads", "1"]
            assert main(argv) == 0
            outs[verb, lang] = capsys.readouterr().out.splitlines()
    params_en, params_zh = outs["params", "en"], outs["params", "zh"]
    head = params_zh[1]
    assert head.split() == " ".join(words("zh", *PARAM_COLUMNS)).split() and CHINESE.search(head)
    assert params_en[1].split()[0] == words("en", PARAM_COLUMNS[0])[0]
    rows = [i for i, line in enumerate(params_zh) if line.startswith("blocks.0.attn.qkv")]
    row_en, row_zh = params_en[rows[0]], params_zh[rows[0]]  # a row: the same cells, the note in Chinese
    from glassformer.models import build_model

    ((*_, note_en, note_zh),) = formulas(build_model(PRESETS["seed000"].model), lambda p: p == "blocks.0.attn.qkv")
    assert note_zh and CHINESE.search(note_zh) and row_zh == row_en.replace(note_en, note_zh) != row_en
    formula = words("zh", PARAM_COLUMNS[2])[0]
    assert columns(head[: head.index(formula)]) == params_zh[rows[0]].index("C·3C")  # headers over their columns
    end = [i for i, line in enumerate(params_zh) if line and set(line) == {"-"}][1]  # the rule above the total
    total_en, total_zh = params_en[end + 1], params_zh[end + 1]  # the total, then the symbols, each in Chinese
    assert total_zh.split()[1:] == total_en.split()[1:] and CHINESE.search(total_zh.split()[0])
    assert "C=" in params_zh[end + 2] and CHINESE.search(params_zh[end + 2]) and len(params_en) == len(params_zh)
    grads_en, grads_zh = outs["grads", "en"], outs["grads", "zh"]
    head = grads_zh[1]
    assert len(head.split()) == len(grads_en[1].split()) == 6 and all(CHINESE.search(w) for w in head.split())
    (ok,) = words("zh", STATUS_WORDS["ok"])  # a healthy row's status, under the status column
    status = head.split()[-1]
    assert columns(head[: head.index(status)]) == len(grads_zh[3]) - len(ok) and grads_zh[3].endswith(ok)
    numbers = lambda lines: [re.findall(r"\d\.\d\de[-+]\d\d", line) for line in lines[3:]]  # noqa: E731
    assert numbers(grads_en) == numbers(grads_zh) and sum(map(len, numbers(grads_zh))) > 30


# ---- the catalogue is the only source ----------------------------------------------------------------
# What glassformer says to a user goes through the catalogue. In cli/ that is every print, every
# write, every argparse help/description and every exception; in the library modules below (the
# ones whose errors a new user meets first), every print and every exception. The rule a literal
# breaks: it holds a word (two letters or more) outside a {field}: "wrote {path}" must be
# t("inspect.wrote", files=path). Formats without words (f"{k} {v:.2e}", "\n") are fine, and what a
# nested call returns (t(...), ", ".join(...)) is that call's business.
CLI = sorted((PACKAGE / "cli").glob("*.py"))
CATALOGUED = [
    "config.py",
    "files.py",
    "devices.py",
    "sample.py",
    "logits_processors.py",
    "evaluation.py",
    "models/kinds.py",
    "nn/position.py",
    "train/checkpoint.py",
    "train/run.py",
    "train/record.py",
    "train/loop.py",
    "train/data.py",
    "train/distributed.py",
    "explore/server.py",
    "exercises/catalog.py",
    "models/gpt2.py",
    "errors.py",
    *sorted(
        str(p.relative_to(PACKAGE))
        for area in ("lab", "lessons", "text", "inspect", "cli", "post")
        for p in (PACKAGE / area).glob("*.py")
    ),
]  # the whole lab, every lesson, the text stage, views, command line and post-training
SAYS = {"print", "error", "exit"}  # calls whose arguments reach the user; and .write to these:
SCREENS = ("stdout", "stderr", "progress")  # (a file's .write is the file's content, e.g. samples.txt)
HELP = {"help", "description", "epilog", "usage"}  # argparse keywords that do
WORD = re.compile(r"[A-Za-z]{2,}")


def literals(node: ast.AST):
    """The string constants of an expression, not entering calls (their results are theirs)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node
    elif isinstance(node, ast.JoinedStr):
        yield from (v for v in node.values if isinstance(v, ast.Constant))
    elif isinstance(node, ast.BinOp):
        yield from literals(node.left)
        yield from literals(node.right)
    elif isinstance(node, ast.IfExp):
        yield from literals(node.body)
        yield from literals(node.orelse)
    elif isinstance(node, ast.BoolOp):
        for value in node.values:
            yield from literals(value)
    elif isinstance(node, (ast.Tuple, ast.List)):
        for element in node.elts:
            yield from literals(element)


def names_a_key(node: ast.AST) -> bool:
    """A call's first argument that is a catalogue key, not a sentence (only while keys remain)."""
    return False


def sentences(path: Path, helps: bool, root: Path = PACKAGE) -> list[str]:
    """`file:line: 'literal'` for every literal sentence passed to a user-facing call in `path`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "id", None) or getattr(node.func, "attr", "")
        if name == "write" and isinstance(node.func, ast.Attribute) and ast.unparse(node.func.value).endswith(SCREENS):
            name = "print"
        error = name.endswith(("Error", "Exception", "Unavailable")) or name in (
            "NotFound",
            "DamagedFile",
            "WriteFailed",
            "RunLocked",
            "NonFiniteLoss",
        )
        if error and len(node.args) > 1 and isinstance(node.args[1], ast.Constant):
            said = list(node.args[2:])  # (code, English): the English is the catalogue's msgid
        elif name in SAYS or error:
            said = [a for a in node.args[:1] if not names_a_key(a)] + list(node.args[1:])
        else:
            said = []
        said += [k.value for k in node.keywords if helps and k.arg in HELP]
        found += [
            f"{path.relative_to(root)}:{lit.lineno}: {lit.value!r}"
            for arg in said
            for lit in literals(arg)
            if WORD.search(lit.value)
        ]
    return found


def test_the_cli_passes_no_literal_sentence_to_print_argparse_or_an_exception():
    assert len(CLI) >= 7
    assert [s for path in CLI for s in sentences(path, helps=True)] == []


def test_the_catalogued_library_modules_raise_and_print_only_catalogue_sentences():
    assert len(CATALOGUED) > 40 and "lab/runner.py" in CATALOGUED
    assert [s for name in CATALOGUED for s in sentences(PACKAGE / name, helps=False)] == []


def test_the_rule_can_fail(tmp_path):
    planted = tmp_path / "verb.py"
    planted.write_text(
        'p.add_argument("--x", help="helpful")\nprint(f"wrote {path}")\n'
        'raise ValueError("bad " + name)\nprint(t("key"), f"{k} {v:.2e}", "\\n")\n'
        'sys.stderr.write("slow")\nf.write(f"=== step {step} ===")\n'
    )  # one word is enough to be words: made-up ones, each where the rule must find it
    found = [s.split(": ", 1)[1] for s in sentences(planted, helps=True, root=tmp_path)]
    assert found == ["'helpful'", "'wrote '", "'bad '", "'slow'"]


def test_chinese_help_is_wrapped_by_terminal_columns():
    from glassformer.cli.options import _wrap
    from glassformer.messages import columns

    with messages.speaking("zh"), argparse_speaking():  # the longest Chinese description of a verb
        text = max((p.description or "" for _, p in parsers(build_parser())), key=len)
    assert CHINESE.search(text) and columns(text) > 160
    lines = _wrap(text, 40)
    assert len(lines) > 3 and all(columns(line) <= 40 or line[-1] in "，。）；" for line in lines)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")  # nothing lost, nothing added
    assert not any(line[0] in "，。、；：）" for line in lines)  # no line starts with a closing mark
    # made-up text: full-width digits are as wide as Chinese characters
    assert _wrap("１２３４（５６）７", 10) == ["１２３４", "（５６）７"]  # an opening mark goes with what it opens
    assert _wrap("ours（Python）或", 10) == ["ours", "（Python）", "或"]  # a word is never cut


def test_english_help_keeps_argparse_s_own_wrapping_even_around_a_chinese_example():
    """English help is byte for byte what argparse writes (tests and users' scripts read it); only
    Chinese help is wrapped by terminal columns."""
    from glassformer.cli.options import HelpFormatter

    text = "x " * 20 + "(一千二百零五 ↔ 1205)"  # made-up: English-like words around a Chinese example
    ours, argparse_own = HelpFormatter("prog"), argparse.HelpFormatter("prog")
    with messages.speaking("en"):
        assert ours._split_lines(text, 50) == argparse_own._split_lines(text, 50)
    with messages.speaking("zh"):
        assert ours._split_lines(text, 50) != argparse_own._split_lines(text, 50)  # by columns: narrower
