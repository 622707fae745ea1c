"""What a run prints while it trains (train/metrics.py): the evaluation line in both languages, the
three progress modes, and the step timer."""

from __future__ import annotations

import pytest

from glassformer.messages import speaking
from glassformer.train.record import Progress, StepTimer, eval_line


def test_the_eval_line_names_each_split_in_the_users_language_and_marks_the_best():
    losses = {"train_loss": 1.23456, "val_loss": 2.0}
    assert eval_line(500, losses, False) == "step    500: train 1.2346  val 2.0000"
    assert eval_line(7, losses, True) == "step      7: train 1.2346  val 2.0000  (best)"
    assert eval_line(1234567, {"test_loss": 0.5}, False) == "step 1234567: test 0.5000"  # a split of its own
    assert eval_line(3, {"val": 0.25}, False) == "step      3: val 0.2500"  # no _loss suffix: the key as is
    with speaking("zh"):
        assert eval_line(500, losses, False) == "第    500 步：训练 1.2346  验证 2.0000"
        assert eval_line(5, losses, True) == "第      5 步：训练 1.2346  验证 2.0000  （最佳）"
        assert eval_line(5, {"test_loss": 1.0}, False) == "第      5 步：test 1.0000"


def test_progress_modes_print_where_each_says(capsys):
    with pytest.raises(ValueError) as e:
        Progress(10, 0, "loud")
    assert str(e.value) == "progress='loud' is not one of ['bar', 'lines', 'silent']."
    lines = Progress(10, 0, "lines")
    assert lines.mode == "lines" and lines.bar.disable
    lines.write("hello")
    lines.update(3, 1.5, 0.001, 1234.0)  # no bar: nothing printed
    lines.close()
    silent = Progress(10, 0, "silent")
    silent.write("quiet")
    silent.close()
    captured = capsys.readouterr()
    assert captured.out == "hello\n" and captured.err == ""
    assert Progress(10, 0).mode == "bar"  # the default


def test_the_bar_counts_optimizer_steps_from_where_a_run_resumes(capsys):
    bar = Progress(10, 4, "bar")
    assert not bar.bar.disable and bar.bar.total == 10 and bar.bar.n == 4 and bar.bar.unit == "step"
    assert bar.bar.dynamic_ncols and bar.bar.leave
    bar.update(6, 1.23456, 0.00012345, 12345.6)
    assert bar.bar.n == 6
    assert bar.bar.postfix == "loss=1.2346, lr=1.23e-04, tok_s=12,346"
    bar.write("above the bar")
    bar.close()
    captured = capsys.readouterr()
    assert "above the bar\n" in captured.out
    assert "6/10" in captured.err and "loss=1.2346, lr=1.23e-04, tok_s=12,346" in captured.err


def test_the_step_timer_measures_each_lap_from_the_last(monkeypatch):
    import glassformer.train.record as metrics

    clock = iter([10.0, 12.5, 13.0])
    monkeypatch.setattr(metrics.time, "perf_counter", lambda: next(clock))
    monkeypatch.setattr(metrics.time, "time", lambda: 1e9)
    timer = StepTimer()
    assert timer.lap() == 2.5 and timer.lap() == 0.5 and StepTimer.now() == 1e9
