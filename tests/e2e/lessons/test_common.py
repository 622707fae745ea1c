"""The lessons' shared parts: their words in the catalogue, the epoch loop, the CLI verb, and one
deliberate snapshot of what a learner reads in English and in Chinese."""

from __future__ import annotations

import ast
import copy
import re
from pathlib import Path

import pytest
import torch
from helpers import said

from glassformer.cli import main
from glassformer.devices import using_threads
from glassformer.lessons import fruit
from glassformer.lessons.common import FitResult, Narrator, fmt, train_epochs
from glassformer.messages import UnknownLanguage, has, speaking, t, translated

CJK = "[\u4e00-\u9fff]"

LESSONS = Path(fruit.__file__).parent  # src/glassformer/lessons


def lesson_words() -> set[str]:
    """Every sentence the lessons say (each a literal in src/glassformer/lessons/*.py)."""
    return {
        node.value
        for path in sorted(LESSONS.glob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and has(node.value)
    }


def test_no_measured_figure_is_typed_into_the_commentary():
    """Results come in through {fields}: no sentence holds a decimal fraction or a 1e-3-style figure
    (integers such as section numbers or the tutorial's seed id are words, not results). That English
    and Chinese carry the same {fields}: tests/messages/test_catalogue.py."""
    words = lesson_words()
    assert len(words) > 140 and "epoch" in words
    for message in sorted(words):
        for lang in ("en", "zh"):
            stripped = re.sub(r"\{[^}]*\}", "", translated(message, lang))
            assert not re.search(r"\d\.\d|\d[eE]-?\d", stripped), f"{message!r} ({lang})"


def test_train_epochs_stops_early_and_keeps_the_best_weights():
    torch.manual_seed(0)
    model = torch.nn.Linear(1, 1)
    x = torch.randn(8, 1)
    twin = copy.deepcopy(model)
    scores = iter([3.0, 2.0, 2.5, 2.6, 1.0])  # best at epoch 1, then two worse epochs
    weights = []

    def evaluate():
        weights.append(model.weight.detach().clone())
        return next(scores)

    result = train_epochs(
        model,
        x,
        2 * x,
        lambda out, b: ((out - b) ** 2).mean(),
        torch.optim.SGD(model.parameters(), lr=0.1),
        10,
        3,
        evaluate=evaluate,
        patience=2,
    )
    assert isinstance(result, FitResult)
    assert result.stopped_early and result.best_epoch == 1 and len(result.val) == 4
    assert torch.equal(model.weight, weights[1])  # the best epoch's weights, not the last
    assert result.steps == 4 * 3  # 8 samples in batches of 3 -> 3 steps an epoch
    # each epoch's train loss is the mean over its 8 rows (batches of 3, 3, 2) of the loss each batch
    # had when it was drawn: the same numbers as a plain SGD loop on a copy of the starting weights
    sgd, expected = torch.optim.SGD(twin.parameters(), lr=0.1), []
    for _ in range(4):
        total = 0.0
        for rows in (slice(0, 3), slice(3, 6), slice(6, 8)):
            loss = ((twin(x[rows]) - 2 * x[rows]) ** 2).mean()
            sgd.zero_grad()
            loss.backward()
            sgd.step()
            total += loss.item() * len(x[rows])
        expected.append(total / 8)
    assert result.train == pytest.approx(expected, rel=1e-6)


def test_threads_are_restored():
    before = torch.get_num_threads()
    with using_threads(1):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before
    with pytest.raises(ValueError, match="threads"):
        with using_threads(-1):
            pass


def test_fmt_is_fixed_and_readable():
    assert fmt([2, -0.0, 10.5], 1) == "[2.0, 0.0, 10.5]"
    assert fmt(3.14159, 2) == "3.14"


def test_cli_runs_fruit_in_chinese(tmp_path, capsys):
    with said() as heard:
        assert main(["lesson", "fruit", "--lang", "zh", "--explain", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    titles = [line for line in out.splitlines() if line.startswith("== ") and line.endswith(" ==")]
    assert len(titles) >= 3 and all(re.search(CJK, title) for title in titles)  # its sections, in Chinese
    with speaking("zh"):
        told = [t(m, **f) for m, f in heard if not f]  # what the lesson said (sentences with no figure)
    assert sum(line in out for line in told) >= 5 and all(re.search(CJK, line) for line in told if line in out)
    assert [line for line in out.splitlines() if line.startswith("  » ")]  # --explain: the why lines too
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fruit_attention.png", "positions.png"]


SNAPSHOT = {  # the deliberate snapshot: the first heading and the verdict lines a learner reads in fruit
    "en": [
        "",
        "== 1. Attention by hand (NumPy, row vectors: x·W) ==",
        "apple gives its largest weight to banana (0.9913).",
        "banana gives its largest weight to orange (0.9810).",
        "orange gives its largest weight to banana (1.0000).",
        "1 of 7 printed steps agree with the computation.",
    ],
    "zh": [
        "",
        "== 1. 手算注意力（NumPy，行向量约定：x·W） ==",
        "apple 把最大的权重给了 banana（0.9913）。",
        "banana 把最大的权重给了 orange（0.9810）。",
        "orange 把最大的权重给了 banana（1.0000）。",
        "教程印出的 7 个步骤中，有 1 个与计算一致。",
    ],
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_what_a_learner_reads_in_each_language(tmp_path, lang):
    lines = []
    fruit.run(lang=lang, out=tmp_path, echo=lines.append)
    picked = lines[0].split("\n") + [line for line in lines if line in SNAPSHOT[lang][2:]]
    assert picked == SNAPSHOT[lang]  # snapshot: what a learner reads first in fruit, word for word, in en and zh


def test_an_unknown_language_is_refused_by_the_catalogue():
    with pytest.raises(UnknownLanguage) as e:
        Narrator("fr")
    assert e.value.code == "lang.unknown" and e.value.fields["lang"] == "fr"


def test_cli_rejects_an_unknown_schedule(capsys):
    with pytest.raises(SystemExit) as e:
        main(["lesson", "sine", "--schedule", "linear"])
    assert e.value.code == 2
    err = capsys.readouterr().err  # argparse names the option, the value and the choices
    assert "--schedule" in err and "'linear'" in err and "noam" in err
