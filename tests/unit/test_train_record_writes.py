"""RunFiles (train/record.py) file by file: what each call writes, what a failed write says (each cause's
remedy, before and after the first checkpoint, in English and Chinese), and what restore keeps: the
metrics up to the checkpoint's step, no stray temp files, a note naming damaged lines."""

from __future__ import annotations

import errno
import json
from types import SimpleNamespace

import pytest
import torch

from glassformer.errors import WriteFailed
from glassformer.messages import speaking
from glassformer.train import record
from glassformer.train.checkpoint import save_checkpoint
from glassformer.train.record import RunFiles


def trainer_at(step: int, best_val=1.5, last_eval=None):
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    return SimpleNamespace(
        model=model,
        optimizer=torch.optim.AdamW(model.parameters()),
        step=step,
        batch_generator=torch.Generator().manual_seed(5),
        best_val=best_val,
        last_eval=last_eval or {"train_loss": 2.0, "val_loss": 1.5},
    )


def failing(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


CAUSES = [
    (errno.ENOSPC, "No space left on device", "free some disk space", "腾出一些磁盘空间"),
    (errno.EACCES, "Permission denied", "make the directory writable", "让这个目录可写"),
    (errno.EPERM, "Operation not permitted", "make the directory writable", "让这个目录可写"),
    (errno.EROFS, "Read-only file system", "move the run to a writable disk", "把运行移到可写的磁盘上"),
    (errno.EIO, "Input/output error", "fix the cause", "排除原因"),
]


@pytest.mark.parametrize("code, reason, remedy, remedy_zh", CAUSES)
def test_a_failed_write_says_what_which_cause_what_is_kept_and_what_to_do(tmp_path, code, reason, remedy, remedy_zh):
    files = RunFiles(tmp_path)

    def fail(*args):
        raise OSError(code, reason)

    files.metrics.append = fail
    messages = []
    for saved in (None, 4):
        files.saved_step = saved
        for lang in ("en", "zh"):
            with speaking(lang), pytest.raises(WriteFailed) as e:
                files.log({"kind": "log", "step": 5})
            assert isinstance(e.value.__cause__, OSError) and e.value.__cause__.errno == code
            messages.append(str(e.value))
    d = tmp_path
    assert messages == [
        f"could not write metrics.jsonl in {d} ({reason}); no checkpoint had been saved yet. To retry, {remedy}, then "
        f"start the run again.",
        f"无法在 {d} 里写入 metrics.jsonl（{reason}）；此前还没有保存过检查点。要重试，请{remedy_zh}，然后重新开始这次运行。",
        f"could not write metrics.jsonl in {d} ({reason}). The last good checkpoint, step 4, is kept; {remedy}, then "
        f"continue with: glassformer train --resume {d}",
        f"无法在 {d} 里写入 metrics.jsonl（{reason}）。上一个完好的检查点（第 4 步）保留着；请{remedy_zh}，"
        f"然后这样继续：glassformer train --resume {d}",
    ]


def test_an_oserror_without_a_strerror_is_said_as_it_prints(tmp_path):
    files = RunFiles(tmp_path)
    files.metrics.append = lambda record: (_ for _ in ()).throw(OSError("quota exceeded for user 1000"))
    with pytest.raises(WriteFailed) as e:
        files.log({})
    assert str(e.value) == (
        f"could not write metrics.jsonl in {tmp_path} (quota exceeded for user 1000); no checkpoint "
        f"had been saved yet. To retry, fix the cause, then start the run again."
    )


@pytest.mark.parametrize(
    "target, what",
    [
        ("save_weights", "best.safetensors"),
        ("save_checkpoint", "the checkpoint of step 7 (model.safetensors and train_state.pt)"),
        ("plot_loss", "loss.png"),
    ],
)
def test_each_file_of_an_evaluation_is_named_when_its_write_fails(tmp_path, monkeypatch, target, what):
    monkeypatch.setattr(record, target, failing)
    with pytest.raises(WriteFailed) as e:
        RunFiles(tmp_path).evaluation({"kind": "eval", "step": 7, "val_loss": 1.0}, True, trainer_at(7))
    assert str(e.value).startswith(f"could not write {what} in {tmp_path} (No space left on device)")


def test_an_evaluation_writes_its_line_the_best_weights_the_checkpoint_and_the_titled_plot(tmp_path, monkeypatch):
    plotted = []
    monkeypatch.setattr(record, "plot_loss", lambda records, path, title="": plotted.append((records, path, title)))
    files, trainer = RunFiles(tmp_path / "my-run"), trainer_at(7, best_val=0.75, last_eval={"val_loss": 0.75})
    (tmp_path / "my-run").mkdir()
    files.log({"kind": "log", "step": 6, "loss": 1.0})
    files.evaluation({"kind": "eval", "step": 7, "val_loss": 0.75}, False, trainer)
    assert not (tmp_path / "my-run" / "best.safetensors").exists() and files.saved_step == 7
    files.evaluation({"kind": "eval", "step": 7, "val_loss": 0.75}, True, trainer)
    assert (tmp_path / "my-run" / "best.safetensors").is_file()
    lines = [json.loads(x) for x in (tmp_path / "my-run" / "metrics.jsonl").read_text().splitlines()]
    assert [r["kind"] for r in lines] == ["log", "eval", "eval"]
    assert plotted[-1] == (lines, tmp_path / "my-run" / "loss.png", "my-run")
    state = torch.load(tmp_path / "my-run" / "train_state.pt", weights_only=False)
    assert state["step"] == 7 and state["best_val"] == 0.75 and state["val_loss"] == 0.75


@pytest.mark.parametrize("saved_step, kept_steps", [(0, []), (1, [0, 1]), (3, [0, 1, 2, 3])])
def test_restore_keeps_the_metrics_up_to_the_checkpoint_and_removes_stray_temp_files(
    tmp_path, capsys, saved_step, kept_steps
):
    trainer = trainer_at(saved_step)
    save_checkpoint(tmp_path, trainer.model, trainer.optimizer, saved_step, trainer.batch_generator, {"best_val": 1.0})
    (tmp_path / "metrics.jsonl").write_text("".join(json.dumps({"kind": "log", "step": s}) + "\n" for s in range(6)))
    (tmp_path / ".model.safetensors.x1.tmp").write_bytes(b"cut")
    (tmp_path / "notes.tmp").write_text("the user's")  # not hidden: not ours
    files = RunFiles(tmp_path)
    state = files.restore(trainer_at(99))
    assert state["step"] == saved_step == files.saved_step and state["best_val"] == 1.0
    assert [json.loads(x)["step"] for x in (tmp_path / "metrics.jsonl").read_text().splitlines()] == kept_steps
    assert not (tmp_path / ".model.safetensors.x1.tmp").exists() and (tmp_path / "notes.tmp").is_file()
    assert capsys.readouterr().err == ""  # no damaged line: no note


def test_restore_names_the_damaged_lines_it_dropped(tmp_path, capsys):
    trainer = trainer_at(3)
    save_checkpoint(tmp_path, trainer.model, trainer.optimizer, 3, trainer.batch_generator, {"best_val": 1.0})
    good = json.dumps({"kind": "log", "step": 1})
    path = tmp_path / "metrics.jsonl"
    for lang, expected in (
        (
            "en",
            f"note: {path}: dropped 2 damaged line(s) (line 2, 4); a run killed while writing leaves its last "
            f"line cut short.\n",
        ),
        ("zh", f"注意：{path}：丢弃了 2 行损坏的记录（第 2, 4 行）；写入时被杀掉的运行会留下被截断的最后一行。\n"),
    ):
        path.write_text(f"{good}\n{{cut\n{good}\n[1]\n")
        with speaking(lang):
            RunFiles(tmp_path).restore(trainer_at(0))
        assert capsys.readouterr() == ("", expected)
        assert path.read_text() == f"{good}\n{good}\n"
