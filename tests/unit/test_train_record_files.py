"""RunFiles whole (train/record.py): which file each trainer event writes, a failed write's message
word for word for each cause, and what a restore cleans up and says."""

from __future__ import annotations

import errno
import json

import pytest
import torch
from torch import nn

from glassformer.errors import WriteFailed
from glassformer.train.checkpoint import read_state, read_weights
from glassformer.train.record import RunFiles


class FakeTrainer:
    def __init__(self, step=3):
        torch.manual_seed(0)
        self.model = nn.Linear(2, 1)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.step, self.best_val, self.last_eval = step, 0.5, {"train_loss": 0.4, "val_loss": 0.5}
        self.batch_generator = torch.Generator().manual_seed(1)


def failing(code, text):
    def write(*args):
        raise OSError(code, text)

    return write


@pytest.mark.parametrize(
    "code, remedy",
    [
        (errno.ENOSPC, "free some disk space"),
        (errno.EACCES, "make the directory writable"),
        (errno.EPERM, "make the directory writable"),
        (errno.EROFS, "move the run to a writable disk"),
        (errno.EIO, "fix the cause"),
    ],
)
def test_a_failed_write_says_what_failed_why_and_what_to_do_before_and_after_a_checkpoint(tmp_path, code, remedy):
    files = RunFiles(str(tmp_path))
    with pytest.raises(WriteFailed) as e:
        files._write("metrics.jsonl", failing(code, "Some reason"))
    assert str(e.value) == (
        f"could not write metrics.jsonl in {tmp_path} (Some reason); no checkpoint had been saved "
        f"yet. To retry, {remedy}, then start the run again."
    )
    assert isinstance(e.value.__cause__, OSError)
    files.saved_step = 8
    with pytest.raises(WriteFailed) as e:
        files._write("loss.png", failing(code, "Some reason"))
    assert str(e.value) == (
        f"could not write loss.png in {tmp_path} (Some reason). The last good checkpoint, step 8, "
        f"is kept; {remedy}, then continue with: glassformer train --resume {tmp_path}"
    )


def test_an_oserror_without_strerror_is_said_by_its_text(tmp_path):
    with pytest.raises(WriteFailed) as e:
        RunFiles(tmp_path)._write("x", _raise(OSError("plain text")))
    assert "(plain text)" in str(e.value) and "fix the cause" in str(e.value)


def _raise(error):
    def write(*args):
        raise error

    return write


def test_the_checkpoint_write_names_its_step_and_both_files(tmp_path, monkeypatch):
    import glassformer.train.record as record

    monkeypatch.setattr(record, "save_checkpoint", failing(errno.ENOSPC, "No space left on device"))
    with pytest.raises(WriteFailed) as e:
        RunFiles(tmp_path).checkpoint(FakeTrainer(step=12))
    assert str(e.value).startswith(
        f"could not write the checkpoint of step 12 (model.safetensors and train_state.pt) "
        f"in {tmp_path} (No space left on device)"
    )


def test_an_evaluation_writes_its_line_the_checkpoint_the_plot_and_the_best_weights_only_when_improved(
    tmp_path, monkeypatch
):
    import glassformer.train.record as record

    titles = []
    monkeypatch.setattr(record, "plot_loss", lambda recs, path, title="": titles.append((len(recs), path, title)))
    files = RunFiles(tmp_path / "myrun")
    (tmp_path / "myrun").mkdir()
    trainer = FakeTrainer(step=3)
    assert files.kept() == "No checkpoint was written."
    files.evaluation({"kind": "eval", "step": 3, "val_loss": 0.5}, False, trainer)
    assert not (tmp_path / "myrun" / "best.safetensors").exists()
    assert (
        files.saved_step == 3 and files.kept() == f"The last good checkpoint (step 3) in {tmp_path / 'myrun'} is kept."
    )
    state = read_state(tmp_path / "myrun" / "train_state.pt")
    assert state["step"] == 3 and state["best_val"] == 0.5 and state["train_loss"] == 0.4 and state["val_loss"] == 0.5
    assert titles == [(1, tmp_path / "myrun" / "loss.png", "myrun")]
    trainer.step = 4
    files.evaluation({"kind": "eval", "step": 4, "val_loss": 0.4}, True, trainer)
    assert read_weights(tmp_path / "myrun" / "best.safetensors")[2] == 4
    files.log({"kind": "log", "step": 5, "loss": 1.0})
    lines = [json.loads(line) for line in (tmp_path / "myrun" / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in lines] == [3, 4, 5] and titles[-1][0] == 2


def test_restore_removes_stray_temp_files_and_metrics_after_the_checkpoint_and_says_which_lines_were_damaged(
    tmp_path, capsys
):
    files = RunFiles(tmp_path)
    trainer = FakeTrainer(step=2)
    files.checkpoint(trainer)
    (tmp_path / ".model.safetensors.x.tmp").write_bytes(b"half")
    (tmp_path / "keep.tmp").write_bytes(b"not hidden: not ours")
    (tmp_path / "metrics.jsonl").write_text(
        '{"kind": "eval", "step": 0}\n{"kind": "log", "step": 2}\ncut\n{"kind": "log", "step": 3}\n{"kind"\n'
    )
    again = RunFiles(tmp_path)
    state = again.restore(FakeTrainer(step=0))
    assert state["step"] == 2 and again.saved_step == 2
    assert not (tmp_path / ".model.safetensors.x.tmp").exists() and (tmp_path / "keep.tmp").exists()
    assert (tmp_path / "metrics.jsonl").read_text() == '{"kind": "eval", "step": 0}\n{"kind": "log", "step": 2}\n'
    assert capsys.readouterr().err == (
        f"note: {tmp_path / 'metrics.jsonl'}: dropped 2 damaged line(s) (line 3, 5); a "
        "run killed while writing leaves its last line cut short.\n"
    )
    again.restore(FakeTrainer())
    assert capsys.readouterr().err == ""  # nothing damaged: nothing said


def test_a_restore_at_step_0_keeps_no_step_0_record(tmp_path):
    files = RunFiles(tmp_path)
    files.checkpoint(FakeTrainer(step=0))
    (tmp_path / "metrics.jsonl").write_text('{"kind": "eval", "step": 0}\n')
    assert RunFiles(tmp_path).restore(FakeTrainer())["step"] == 0
    assert (tmp_path / "metrics.jsonl").read_text() == ""  # fit() writes step 0's evaluation again
