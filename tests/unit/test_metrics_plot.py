"""metrics.jsonl and loss.png: what is written is what happened (train/metrics.py).

The plot is checked twice: through the figure matplotlib drew (every line's data, colour and
label, the axis labels, the title), and through the PNG's pixels (its size, the two curves'
colours present, and different runs giving different images) — not only that the file decodes.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from matplotlib.figure import Figure
from matplotlib.image import imread

from glassformer.train.record import MetricsLog, plot_loss

TAB_BLUE, TAB_ORANGE = (31, 119, 180), (255, 127, 14)


def records(val=(3.0, 2.5, 2.4)) -> list[dict]:
    logs = [{"kind": "log", "step": s, "loss": 4.0 - 0.1 * s} for s in range(1, 11)]
    evals = [{"kind": "eval", "step": s, "train_loss": 3.5 - 0.1 * s, "val_loss": v} for s, v in zip((0, 5, 10), val, strict=False)]
    return logs + evals


@pytest.fixture
def drawn(monkeypatch):
    """Every Figure saved during the test, so its contents can be read back."""
    figures = []
    save = Figure.savefig

    def keep(self, *args, **kwargs):
        figures.append(self)
        return save(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", keep)
    return figures


def test_the_figure_holds_the_logged_and_evaluated_losses(tmp_path, drawn):
    plot_loss(records(), tmp_path / "loss.png", title="run-7")
    (ax,) = drawn[0].axes
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert list(lines) == ["train (batch, log interval mean)", "train (eval)", "val (eval)"]
    assert list(lines["train (batch, log interval mean)"].get_xdata()) == list(range(1, 11))
    assert list(lines["train (batch, log interval mean)"].get_ydata()) == pytest.approx(
        [4.0 - 0.1 * s for s in range(1, 11)]
    )
    assert list(lines["train (eval)"].get_xdata()) == [0, 5, 10]
    assert list(lines["train (eval)"].get_ydata()) == pytest.approx([3.5, 3.0, 2.5])
    assert list(lines["val (eval)"].get_ydata()) == [3.0, 2.5, 2.4]
    assert lines["val (eval)"].get_color() == "tab:orange" and lines["train (eval)"].get_color() == "tab:blue"
    assert ax.get_xlabel() == "step" and ax.get_ylabel() == "cross-entropy (nats / token)"
    assert ax.get_title() == "run-7"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(lines)


def test_a_run_without_a_val_split_plots_its_train_evaluations(tmp_path, drawn):
    """A source without val data logs evaluations with train_loss only. Bug once seen: the eval
    records were kept only when they had both losses, so such a run's plot lost its eval curve."""
    evals = [r for r in records() if r["kind"] == "eval"]
    plot_loss([{k: v for k, v in r.items() if k != "val_loss"} for r in evals], tmp_path / "loss.png")
    (ax,) = drawn[0].axes
    assert [line.get_label() for line in ax.get_lines()] == ["train (eval)"]
    assert list(ax.get_lines()[0].get_ydata()) == pytest.approx([3.5, 3.0, 2.5])


def color_pixels(path, rgb) -> int:
    image = (imread(path)[..., :3] * 255).round()  # (H, W, 3)
    return int((np.abs(image - np.array(rgb)) <= 2).all(-1).sum())


def test_the_png_shows_both_curves_and_differs_between_runs(tmp_path):
    plot_loss(records(), tmp_path / "a.png")
    plot_loss(records(val=(3.0, 2.9, 2.95)), tmp_path / "b.png")
    plot_loss([r for r in records() if r["kind"] == "log"], tmp_path / "logs_only.png")
    a = imread(tmp_path / "a.png")
    assert a.shape[:2] == (round(4.2 * 110), 7 * 110)  # figsize (7, 4.2) inches at 110 dpi
    assert color_pixels(tmp_path / "a.png", TAB_ORANGE) > 100  # the val curve is drawn
    assert color_pixels(tmp_path / "a.png", TAB_BLUE) > 100  # the train curve is drawn
    assert not np.array_equal(a, imread(tmp_path / "b.png"))  # another run, another picture
    assert color_pixels(tmp_path / "logs_only.png", TAB_ORANGE) == 0  # no evaluation, no val curve


def test_metrics_log_appends_reads_and_truncates(tmp_path):
    log = MetricsLog(tmp_path / "metrics.jsonl")
    assert log.read() == []  # no file yet
    for step in (1, 2, 3):
        log.append({"kind": "log", "step": step, "loss": 1.0 / step})
    assert (tmp_path / "metrics.jsonl").read_text().count("\n") == 3  # one JSON object a line
    assert [r["step"] for r in log.read()] == [1, 2, 3]
    log.truncate_after(2)
    assert log.read() == [{"kind": "log", "step": 1, "loss": 1.0}, {"kind": "log", "step": 2, "loss": 0.5}]
    assert [json.loads(line)["step"] for line in (tmp_path / "metrics.jsonl").read_text().splitlines()] == [1, 2]
    log.truncate_after(2)  # nothing past step 2 is left: nothing changes
    assert len(log.read()) == 2


def test_damaged_lines_are_skipped_and_counted_never_fatal(tmp_path):
    """A run killed mid-append leaves a cut line; a disk error can leave bytes that are not UTF-8.
    Both are reported by line number and skipped; the good records around them are kept (bug
    guarded: decoding strictly, so one bad byte makes the whole log unreadable and the run stops)."""
    path = tmp_path / "metrics.jsonl"
    good = [{"kind": "log", "step": 1, "loss": 2.0}, {"kind": "eval", "step": 2, "val_loss": 1.5}]
    path.write_bytes(
        json.dumps(good[0]).encode()
        + b"\n"
        + b'{"kind": "log", "step": 2, "loss": \xff\xfe}\n'  # 2: not UTF-8
        + b"\n"  # blank lines are neither records nor damage
        + b'{"kind": "log", "step": "3"}\n'  # 4: a step that is not a whole number
        + b'[1, 2]\n{"step": 5}\n'  # 5: not an object; 6: no kind
        + json.dumps(good[1]).encode()
        + b"\n"
        + b'{"kind": "log", "st'
    )  # 8: cut short by a kill
    assert MetricsLog(path).read_checked() == (good, [2, 4, 5, 6, 8])
    assert MetricsLog(tmp_path / "none.jsonl").read_checked() == ([], [])


def test_the_figures_style_and_size_and_what_is_left_out(tmp_path, drawn):
    """Every style setting of the plot: a faint thin batch curve, marked evaluation curves, a light
    grid, a 7 × 4.2 inch figure at 110 dpi, the default title empty; log records without a numeric
    loss, and evaluations without a split's loss, are left out rather than plotted as gaps."""
    from matplotlib.colors import to_rgba

    recs = records() + [
        {"kind": "log", "step": 11, "loss": None},
        {"kind": "eval", "step": 12, "val_loss": "nan?"},
        {"kind": "other", "step": 13, "loss": 0.1, "train_loss": 0.1},
    ]
    plot_loss(recs, tmp_path / "loss.png")
    fig = drawn[0]
    assert tuple(fig.get_size_inches()) == pytest.approx((7, 4.2)) and fig.dpi == 110
    (ax,) = fig.axes
    batch, train_eval, val_eval = ax.get_lines()
    assert batch.get_alpha() == 0.3 and batch.get_linewidth() == 1 and batch.get_marker() in ("None", None, "")
    assert to_rgba(batch.get_color()) == to_rgba("tab:blue") and list(batch.get_xdata()) == list(range(1, 11))
    for line in (train_eval, val_eval):
        assert line.get_marker() == "o" and line.get_linestyle() == "-" and line.get_markersize() == 3
        assert line.get_alpha() is None
    assert list(train_eval.get_xdata()) == [0, 5, 10] and list(val_eval.get_xdata()) == [0, 5, 10]
    assert ax.get_title() == ""
    grid = ax.xaxis.get_gridlines()[0]
    assert grid.get_visible() and grid.get_alpha() == 0.3
    assert (tmp_path / "loss.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_each_record_is_one_json_line_appended_and_truncation_keeps_the_step_itself(tmp_path):
    path = tmp_path / "metrics.jsonl"
    log = MetricsLog(str(path))  # a str path is taken too
    log.append({"kind": "log", "step": 1, "note": "步"})
    log.append({"kind": "eval", "step": 2, "val_loss": 0.5})
    assert path.read_text(encoding="utf-8") == (
        '{"kind": "log", "step": 1, "note": "\\u6b65"}\n{"kind": "eval", "step": 2, "val_loss": 0.5}\n'
    )
    path.write_text(path.read_text() + "cut\n" + '{"kind": "log", "step": 3}\n')
    assert log.read() == [
        {"kind": "log", "step": 1, "note": "步"},
        {"kind": "eval", "step": 2, "val_loss": 0.5},
        {"kind": "log", "step": 3},
    ]
    assert log.truncate_after(2) == [3]  # the damaged line's number
    assert (
        path.read_text()
        == '{"kind": "log", "step": 1, "note": "\\u6b65"}\n{"kind": "eval", "step": 2, "val_loss": 0.5}\n'
    )
    assert log.truncate_after(1) == [] and log.read() == [{"kind": "log", "step": 1, "note": "步"}]


def test_a_metrics_path_that_cannot_be_read_says_what_to_do(tmp_path):
    from glassformer.errors import GlassformerError

    (tmp_path / "metrics.jsonl").mkdir()
    with pytest.raises(GlassformerError) as e:
        MetricsLog(tmp_path / "metrics.jsonl").read()
    assert "metrics.jsonl" in str(e.value) and str(e.value).endswith(
        "It is the run's log; delete it to start a fresh one."
    )
