"""What a run directory receives while training (train/record.py): best weights only when validation
improves, a resumed run's metrics without the lines a crashed run wrote after its checkpoint; which
file each trainer event writes, what a failed write says (each cause's remedy, before and after the
first checkpoint, in English and Chinese), and what restore keeps and says; metrics.jsonl and loss.png
(the plot checked through the figure matplotlib drew and through the PNG's pixels); what a run prints
while it trains (the evaluation line in both languages, the three progress modes, the step timer); the
attention-recording callback (AttentionLog) and `glassformer train --attention-every`.
"""

from __future__ import annotations

import errno
import json
import math
import os
import re
import shutil
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from helpers import said, strict_json, train_argv
from matplotlib.image import imread
from safetensors.torch import load_file
from torch import nn

from glassformer.cli import main
from glassformer.config import ModelConfig, TrainConfig, get_preset
from glassformer.errors import DiskFull, UsageError, WriteFailed
from glassformer.inspect.attention_maps import attention_maps
from glassformer.messages import NP_, speaking, t
from glassformer.models import build_model
from glassformer.train import record
from glassformer.train.checkpoint import checkpoint_bytes, load_weights, read_state, read_weights, save_checkpoint
from glassformer.train.data import TensorBatches, TextWindows
from glassformer.train.loop import Trainer
from glassformer.train.record import (
    ATTENTION_FILE,
    PROBE_LENGTH,
    AttentionLog,
    MetricsLog,
    Progress,
    RunFiles,
    StepTimer,
    eval_line,
    parse_heads,
    plot_loss,
    probe_for,
    read_log,
)

pytestmark = pytest.mark.usefixtures("one_thread")  # fixture in tests/conftest.py


# ---- best weights, and a resumed run's metrics ---------------------------------------------------
MODEL = ModelConfig(vocab_size=11, d_model=16, n_heads=2, d_ff=32, n_layers=1, max_len=8, dropout=0.0)


DATA = (np.arange(2000) % 11).astype(np.uint16)


def trainer(run_dir, max_steps, eval_interval, grad_accum=1, **kw) -> Trainer:
    cfg = TrainConfig(
        batch_size=4,
        seq_len=8,
        max_steps=max_steps,
        eval_interval=eval_interval,
        eval_iters=1,
        log_interval=1,
        lr=1e-2,
        seed=2,
        grad_accum=grad_accum,
    )
    torch.manual_seed(0)
    model = build_model(MODEL)
    return Trainer(model, cfg, TextWindows(DATA, DATA, 4, 8, 1, cfg.seed), run_dir, progress="silent", **kw)


def records(run_dir) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]


def test_best_weights_are_those_of_the_lowest_validation_loss(tmp_path):
    """Bug guarded: best.safetensors written at every evaluation (a test that only checks the
    file exists cannot tell). Scripted validation losses 5, 3, 4, 2, 2.5 at steps 0, 2, 4, 6, 8:
    best.safetensors must hold the step-2 weights after step 4 and the step-6 weights at the end."""
    val = iter([5.0, 3.0, 4.0, 2.0, 2.5])
    snapshots, best_steps = {}, []

    def at_eval(event, t):
        if event == "eval":
            snapshots[t.step] = {n: p.detach().clone() for n, p in t.model.named_parameters()}
            best_steps.append(load_weights(t.run_dir / "best.safetensors", build_model(MODEL)))

    t = trainer(tmp_path, 8, 2, evaluate=lambda: {"train_loss": 1.0, "val_loss": next(val)}, callbacks=[at_eval])
    result = t.fit()
    assert best_steps == [0, 2, 2, 6, 6]
    assert result.best_val == 2.0 and result.val_loss == 2.5
    best = load_file(tmp_path / "best.safetensors")
    assert all(torch.equal(best[n], snapshots[6][n]) for n in snapshots[6])
    assert not torch.equal(best["head.weight"], snapshots[8]["head.weight"])  # training went on
    assert [r["best_val"] for r in records(tmp_path) if r["kind"] == "eval"] == [5.0, 3.0, 3.0, 2.0, 2.0]


def test_a_source_without_a_val_split_trains_plots_and_writes_no_best_file(tmp_path):
    """A TensorBatches source without val data evaluates only "train". The run still checkpoints
    and plots (the plot once raised KeyError 'val_loss'), and no best.safetensors is written, since
    nothing measures "best"."""
    x = torch.randint(0, 11, (12, 8))
    cfg = TrainConfig(batch_size=4, seq_len=8, max_steps=4, eval_interval=2, log_interval=1)
    torch.manual_seed(0)
    result = Trainer(
        build_model(MODEL), cfg, TensorBatches(x, x.roll(-1, dims=1), 4), tmp_path, progress="silent"
    ).fit()
    assert result.status == "done" and result.val_loss is None and result.best_val is None
    assert not (tmp_path / "best.safetensors").exists() and (tmp_path / "model.safetensors").exists()
    assert [sorted(r) for r in records(tmp_path) if r["kind"] == "eval"][0] == [
        "best_val",
        "kind",
        "lr",
        "step",
        "time",
        "train_loss",
    ]
    image = (imread(tmp_path / "loss.png")[..., :3] * 255).round()  # (H, W, 3)

    def pixels(rgb):
        return int((np.abs(image - np.array(rgb)) <= 2).all(-1).sum())

    assert pixels((31, 119, 180)) > 100 and pixels((255, 127, 14)) == 0  # a train curve (blue), no val (orange)


class Crash(RuntimeError):
    pass


def crash_at(step):
    def callback(event, t):
        if event == "step" and t.step == step:
            raise Crash(f"power cut at step {step}")

    return callback


def test_resume_forgets_metrics_written_after_the_checkpoint(tmp_path):
    """Bug guarded: resume keeps the metrics lines a crashed run wrote after the checkpoint it
    restarts from, so steps 21..24 would appear twice. A run checkpoints at 10 and 20 and dies at
    step 25 (no Ctrl-C handler, no save); the resumed run starts from 20 and must leave exactly
    the metrics an uninterrupted run writes (times aside)."""
    whole_dir, part_dir = tmp_path / "whole", tmp_path / "part"
    whole_dir.mkdir(), part_dir.mkdir()
    trainer(whole_dir, 30, 10).fit()

    with pytest.raises(Crash):
        trainer(part_dir, 30, 10, callbacks=[crash_at(25)]).fit()
    assert max(r["step"] for r in records(part_dir)) == 24  # lines past the checkpoint exist ...
    again = trainer(part_dir, 30, 10)
    again.resume()
    assert again.step == 20
    assert max(r["step"] for r in records(part_dir)) == 20  # ... and are dropped on resume
    assert again.fit().status == "done"

    def strip(rs):
        return [{k: v for k, v in r.items() if k not in ("time", "ms_per_step", "tokens_per_s")} for r in rs]

    assert strip(records(part_dir)) == strip(records(whole_dir))  # steps 1..30 once, bit-equal losses
    assert [r["step"] for r in records(part_dir) if r["kind"] == "log"] == list(range(1, 31))


@pytest.mark.parametrize("grad_accum", [1, 3])
def test_logged_throughput_counts_batch_times_block_tokens_per_step(tmp_path, grad_accum):
    """tokens_per_s and ms_per_step come from one timed interval, so their product is the tokens of
    one step, B·T·accumulated micro-batches = 4·8·accum, whatever the clock says (bugs guarded:
    B/T instead of B·T; dividing by the accumulation instead of multiplying)."""
    trainer(tmp_path, max_steps=3, eval_interval=10, grad_accum=grad_accum).fit()
    logs = [r for r in records(tmp_path) if r["kind"] == "log"]
    assert len(logs) == 3
    for r in logs:
        assert r["tokens_per_s"] * r["ms_per_step"] / 1000 == pytest.approx(32 * grad_accum)


# ---- RunFiles whole: which file each event writes, a failed write's message ----------------------
class FakeTrainer:
    def __init__(self, step=3):
        torch.manual_seed(0)
        self.model = nn.Linear(2, 1)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.step, self.best_val, self.last_eval = step, 0.5, {"train_loss": 0.4, "val_loss": 0.5}
        self.batch_generator = torch.Generator().manual_seed(1)


def jsonl(*records) -> str:
    """metrics.jsonl's text for these records: one json.dumps line each (\\u escapes, ", " and ": ")."""
    return "".join(json.dumps(r) + "\n" for r in records)


def keyed(kind, call, *args, **kw) -> tuple[str, dict]:
    """The key and fields of the error `call` raises: what a test pins (the words are the catalogue's)."""
    with pytest.raises(kind) as e:
        call(*args, **kw)
    return e.value.key, e.value.fields


def failing(code, text):
    def write(*args):
        raise OSError(code, text)

    return write


def remedy_of(code) -> str:
    """The remedy a failed write with this errno names (RunFiles._write's choice, as it reads now)."""
    return keyed(WriteFailed, RunFiles(".")._write, "x", failing(code, "gremlins"))[1]["remedy"]


def known_remedies() -> set[str]:
    return {t(remedy) for remedy in record.REMEDIES.values()}


@pytest.mark.parametrize(
    "code, like",  # like: the errno whose remedy (record.REMEDIES) this one shares; None: the general one
    [(errno.EACCES, errno.EACCES), (errno.EPERM, errno.EACCES), (errno.EROFS, errno.EROFS), (errno.EIO, None)],
)
def test_a_failed_write_says_what_failed_why_and_what_to_do_before_and_after_a_checkpoint(tmp_path, code, like):
    files = RunFiles(str(tmp_path))
    with pytest.raises(WriteFailed) as e:
        files._write("metrics.jsonl", failing(code, "gremlins"))
    remedy = e.value.fields["remedy"]
    assert (e.value.code, e.value.fields) == (
        "write.first",
        {"what": "metrics.jsonl", "dir": tmp_path, "reason": "gremlins", "remedy": remedy},
    )
    if like is None:  # no remedy of its own: the general one, which no listed cause gets
        assert remedy and remedy not in known_remedies()
    else:
        assert remedy == t(record.REMEDIES[like])
    assert isinstance(e.value.__cause__, OSError)
    files.saved_step = 8
    assert keyed(WriteFailed, files._write, "loss.png", failing(code, "gremlins")) == (
        "write.kept",
        {"what": "loss.png", "dir": tmp_path, "reason": "gremlins", "step": 8, "remedy": remedy},
    )


def test_a_full_disk_is_disk_full_with_the_mb_free_and_the_mb_a_checkpoint_needs(tmp_path):
    files = RunFiles(tmp_path)
    files.trainer = SimpleNamespace(model=torch.nn.Linear(1000, 100), optimizer=None)
    files.trainer.optimizer = torch.optim.AdamW(files.trainer.model.parameters())
    need = checkpoint_bytes(files.trainer.model, files.trainer.optimizer) / 1e6
    assert need == pytest.approx((100_100 * 4 * 3 + (64 << 10)) / 1e6)  # weights + two moments + headers
    for saved, key in ((None, "write.disk_full_first"), (8, "write.disk_full")):
        files.saved_step = saved
        with pytest.raises(DiskFull) as e:
            files._write("metrics.jsonl", failing(errno.ENOSPC, "No space left on device"))
        free = e.value.fields["free"]
        assert e.value.key == key and e.value.exit_code == 2 and isinstance(e.value, WriteFailed)
        assert e.value.fields == {"dir": tmp_path, "free": free, "need": need, **({"step": 8} if saved else {})}
        assert free == pytest.approx(shutil.disk_usage(tmp_path).free / 1e6, rel=0.01)
        assert len(str(e.value).splitlines()) == 1


def test_a_full_disk_before_any_trainer_wrote_needs_no_checkpoint(tmp_path):
    """The run directory fills up before training (its first metrics line): no trainer yet, so the line
    says 0 MB needed instead of failing to size a checkpoint that does not exist."""
    with pytest.raises(DiskFull) as e:
        RunFiles(tmp_path)._write("metrics.jsonl", failing(errno.ENOSPC, "No space left on device"))
    assert e.value.code == "write.disk_full_first" and e.value.fields["need"] == 0.0


def test_an_oserror_without_strerror_is_said_by_its_text(tmp_path):
    why = OSError("plain text")  # no errno, no strerror: said as it prints
    assert keyed(WriteFailed, RunFiles(tmp_path)._write, "x", _raise(why)) == (
        "write.first",
        {"what": "x", "dir": tmp_path, "reason": str(why), "remedy": remedy_of(errno.EIO)},  # the general remedy
    )


def _raise(error):
    def write(*args):
        raise error

    return write


def test_the_checkpoint_write_names_its_step_and_both_files(tmp_path, monkeypatch):
    import glassformer.train.record as record

    monkeypatch.setattr(record, "save_checkpoint", failing(errno.EIO, "gremlins"))
    code, fields = keyed(WriteFailed, RunFiles(tmp_path).checkpoint, FakeTrainer(step=12))
    assert (code, fields["dir"], fields["reason"]) == ("write.first", tmp_path, "gremlins")
    what = fields["what"]  # the checkpoint of step 12, naming both of its files
    assert "12" in str(what).split() and "model.safetensors" in what and "train_state.pt" in what
    with speaking("zh"):  # a Chinese reader gets it in Chinese, step and files as they are
        _, fields = keyed(WriteFailed, RunFiles(tmp_path).checkpoint, FakeTrainer(step=12))
        assert re.search("[\u4e00-\u9fff]", str(fields["what"])) and "12" in str(fields["what"]).split()


def test_an_evaluation_writes_its_line_the_checkpoint_the_plot_and_the_best_weights_only_when_improved(
    tmp_path, monkeypatch
):
    import glassformer.train.record as record

    titles = []
    monkeypatch.setattr(record, "plot_loss", lambda recs, path, title="": titles.append((len(recs), path, title)))
    files = RunFiles(tmp_path / "myrun")
    (tmp_path / "myrun").mkdir()
    trainer = FakeTrainer(step=3)
    with said() as heard:
        nothing = files.kept()
    assert heard == [(heard[0][0], {})] and nothing == t(heard[0][0])  # a sentence with no step and no dir
    files.evaluation({"kind": "eval", "step": 3, "val_loss": 0.5}, False, trainer)
    assert not (tmp_path / "myrun" / "best.safetensors").exists()
    with said() as heard:
        assert files.saved_step == 3 and files.kept() == heard.worded(step=3, dir=tmp_path / "myrun")[0] != nothing
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
    with said() as heard:
        state = again.restore(FakeTrainer(step=0))
    assert state["step"] == 2 and again.saved_step == 2
    assert not (tmp_path / ".model.safetensors.x.tmp").exists() and (tmp_path / "keep.tmp").exists()
    assert (tmp_path / "metrics.jsonl").read_text() == jsonl({"kind": "eval", "step": 0}, {"kind": "log", "step": 2})
    assert (
        capsys.readouterr().err
        == "".join(line + "\n" for line in heard.worded(path=tmp_path / "metrics.jsonl", n=2, lines="3, 5"))
        != ""
    )  # lines 3 and 5 of the file were dropped
    again.restore(FakeTrainer())
    assert capsys.readouterr().err == ""  # nothing damaged: nothing said


def test_a_restore_at_step_0_keeps_no_step_0_record(tmp_path):
    files = RunFiles(tmp_path)
    files.checkpoint(FakeTrainer(step=0))
    (tmp_path / "metrics.jsonl").write_text('{"kind": "eval", "step": 0}\n')
    assert RunFiles(tmp_path).restore(FakeTrainer())["step"] == 0
    assert (tmp_path / "metrics.jsonl").read_text() == ""  # fit() writes step 0's evaluation again


# ---- RunFiles file by file, in English and Chinese -----------------------------------------------
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


def io_error(*args, **kwargs):  # a full disk is DiskFull, which speaks of the disk, not the file
    raise OSError(errno.EIO, os.strerror(errno.EIO))


CAUSES = [  # a full disk is DiskFull: below
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
    # a failed write is what a learner reads when the disk or permissions fail: what, why, what is kept, what to do
    # snapshot: a failed write before and after the first checkpoint, in both languages, word for word
    assert messages == [
        f"could not write metrics.jsonl in {d} ({reason}); no checkpoint had been saved yet. To retry, {remedy}, then "
        f"start the run again.",
        f"无法在 {d} 里写入 metrics.jsonl（{reason}）；"
        f"此前还没有保存过检查点。要重试，请{remedy_zh}，然后重新开始这次运行。",
        f"could not write metrics.jsonl in {d} ({reason}). The last good checkpoint, step 4, is kept; {remedy}, then "
        f"continue with: glassformer train --resume {d}",
        f"无法在 {d} 里写入 metrics.jsonl（{reason}）。上一个完好的检查点（第 4 步）保留着；请{remedy_zh}，"
        f"然后这样继续：glassformer train --resume {d}",
    ]


def test_an_oserror_without_a_strerror_is_said_as_it_prints(tmp_path):
    files = RunFiles(tmp_path)
    why = OSError("quota exceeded for user 1000")  # no errno, no strerror: said as it prints
    files.metrics.append = lambda record: (_ for _ in ()).throw(why)
    assert keyed(WriteFailed, files.log, {}) == (
        "write.first",
        {"what": "metrics.jsonl", "dir": tmp_path, "reason": str(why), "remedy": remedy_of(errno.EIO)},
    )


@pytest.mark.parametrize(
    "target, names",
    [
        ("save_weights", ["best.safetensors"]),
        ("save_checkpoint", ["model.safetensors", "train_state.pt"]),  # the checkpoint of step 7: both files
        ("plot_loss", ["loss.png"]),
    ],
)
def test_each_file_of_an_evaluation_is_named_when_its_write_fails(tmp_path, monkeypatch, target, names):
    monkeypatch.setattr(record, target, io_error)
    with pytest.raises(WriteFailed) as e:
        RunFiles(tmp_path).evaluation({"kind": "eval", "step": 7, "val_loss": 1.0}, True, trainer_at(7))
    what = e.value.fields["what"]
    assert (e.value.fields["dir"], e.value.fields["reason"]) == (tmp_path, os.strerror(errno.EIO))
    assert all(name in what for name in names) and (what == names[0] if len(names) == 1 else "7" in str(what).split())


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
    notes = []
    for lang in ("en", "zh"):
        path.write_text(f"{good}\n{{cut\n{good}\n[1]\n")
        with speaking(lang), said() as heard:
            RunFiles(tmp_path).restore(trainer_at(0))
            [note] = heard.worded(path=path, n=2, lines="2, 4")  # the file, how many lines and which
        assert capsys.readouterr() == ("", note + "\n")
        assert path.read_text() == f"{good}\n{good}\n"
        notes.append(note)
    assert notes[0] != notes[1] and re.search("[\u4e00-\u9fff]", notes[1])  # said in each language


# ---- metrics.jsonl and loss.png ------------------------------------------------------------------
TAB_BLUE, TAB_ORANGE = (31, 119, 180), (255, 127, 14)


def plot_records(val=(3.0, 2.5, 2.4)) -> list[dict]:
    logs = [{"kind": "log", "step": s, "loss": 4.0 - 0.1 * s} for s in range(1, 11)]
    evals = [
        {"kind": "eval", "step": s, "train_loss": 3.5 - 0.1 * s, "val_loss": v}
        for s, v in zip((0, 5, 10), val, strict=False)
    ]
    return logs + evals


def test_a_figure_with_no_loss_yet_draws_no_legend(tmp_path, saved_figures):
    """A GRPO run's first evaluation logs an accuracy and no loss: nothing to draw, and no empty legend
    (matplotlib warned "No artists with labels" on every such run)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the warning would fail the test
        plot_loss([{"kind": "eval", "step": 0, "val_accuracy": 0.5}], tmp_path / "loss.png")
    (ax,) = saved_figures[0][0].axes
    assert ax.get_legend() is None and ax.get_lines() == []


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_figure_holds_the_logged_and_evaluated_losses(tmp_path, saved_figures, lang):
    """Curves, and the words drawn: the catalogue's in the user's language (zh once had English)."""
    with speaking(lang), said() as heard:
        plot_loss(plot_records(), tmp_path / "loss.png", title="run-7")
        [train] = heard.worded(split=t(NP_("pictures.loss.split.train", "train")))  # each split's eval curve
        [val] = heard.worded(split=t(NP_("pictures.loss.split.val", "val")))
        plain = [t(message) for message, fields in heard if not fields]  # the sentences with no fields
        x = t(NP_("pictures.loss.step_axis", "step"))
    (ax,) = saved_figures[0][0].axes
    lines = {line.get_label(): line for line in ax.get_lines()}
    batch, y = list(lines)[0], ax.get_ylabel()  # the training curve's label and the loss axis: said, no fields
    assert list(lines) == [batch, train, val] and batch in plain and y in plain and len({batch, y, x}) == 3
    if lang == "zh":
        assert all(re.search("[\u4e00-\u9fff]", words) for words in (batch, train, val, x, y))
    assert list(lines[batch].get_xdata()) == list(range(1, 11))
    assert list(lines[batch].get_ydata()) == pytest.approx([4.0 - 0.1 * s for s in range(1, 11)])
    assert list(lines[train].get_xdata()) == [0, 5, 10]
    assert list(lines[train].get_ydata()) == pytest.approx([3.5, 3.0, 2.5])
    assert list(lines[val].get_ydata()) == [3.0, 2.5, 2.4]
    assert lines[val].get_color() == "tab:orange" and lines[train].get_color() == "tab:blue"
    assert ax.get_xlabel() == x and ax.get_ylabel() == y
    assert ax.get_title() == "run-7"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(lines)
    if lang == "zh":  # the Chinese words are drawn with the shipped CJK font, not as empty boxes
        from glassformer.inspect.fonts import charmap

        drawn_with = ax.xaxis.label.get_fontproperties().get_file() or ""
        assert drawn_with and all(ord(c) in charmap(drawn_with) for c in x + y if not c.isspace())


def test_a_run_without_a_val_split_plots_its_train_evaluations(tmp_path, saved_figures):
    """A source without val data logs evaluations with train_loss only. Bug once seen: the eval
    records were kept only when they had both losses, so such a run's plot lost its eval curve."""
    evals = [r for r in plot_records() if r["kind"] == "eval"]
    with said() as heard:
        plot_loss([{k: v for k, v in r.items() if k != "val_loss"} for r in evals], tmp_path / "loss.png")
    (ax,) = saved_figures[0][0].axes
    train_eval = heard.worded(split=t(NP_("pictures.loss.split.train", "train")))  # the train split's eval curve
    assert [line.get_label() for line in ax.get_lines()] == train_eval != []
    assert list(ax.get_lines()[0].get_ydata()) == pytest.approx([3.5, 3.0, 2.5])


def color_pixels(path, rgb) -> int:
    image = (imread(path)[..., :3] * 255).round()  # (H, W, 3)
    return int((np.abs(image - np.array(rgb)) <= 2).all(-1).sum())


def test_the_png_shows_both_curves_and_differs_between_runs(tmp_path):
    plot_loss(plot_records(), tmp_path / "a.png")
    plot_loss(plot_records(val=(3.0, 2.9, 2.95)), tmp_path / "b.png")
    plot_loss([r for r in plot_records() if r["kind"] == "log"], tmp_path / "logs_only.png")
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


def test_the_figures_style_and_size_and_what_is_left_out(tmp_path, saved_figures):
    """Every style setting of the plot: a faint thin batch curve, marked evaluation curves, a light
    grid, a 7 × 4.2 inch figure at 110 dpi, the default title empty; log records without a numeric
    loss, and evaluations without a split's loss, are left out rather than plotted as gaps."""
    from matplotlib.colors import to_rgba

    recs = plot_records() + [
        {"kind": "log", "step": 11, "loss": None},
        {"kind": "eval", "step": 12, "val_loss": "nan?"},
        {"kind": "other", "step": 13, "loss": 0.1, "train_loss": 0.1},
    ]
    plot_loss(recs, tmp_path / "loss.png")
    fig = saved_figures[0][0]
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
    text = path.read_text(encoding="utf-8")
    assert text == jsonl({"kind": "log", "step": 1, "note": "步"}, {"kind": "eval", "step": 2, "val_loss": 0.5})
    assert "\\u6b65" in text and text.isascii()  # ASCII on disk: the character as its \\u escape
    path.write_text(path.read_text() + "cut\n" + '{"kind": "log", "step": 3}\n')
    assert log.read() == [
        {"kind": "log", "step": 1, "note": "步"},
        {"kind": "eval", "step": 2, "val_loss": 0.5},
        {"kind": "log", "step": 3},
    ]
    assert log.truncate_after(2) == [3]  # the damaged line's number
    assert path.read_text() == jsonl(
        {"kind": "log", "step": 1, "note": "步"}, {"kind": "eval", "step": 2, "val_loss": 0.5}
    )
    assert log.truncate_after(1) == [] and log.read() == [{"kind": "log", "step": 1, "note": "步"}]


def test_a_metrics_path_that_cannot_be_read_says_what_to_do(tmp_path):
    from glassformer.errors import GlassformerError

    (tmp_path / "metrics.jsonl").mkdir()
    with pytest.raises(GlassformerError) as e, said() as heard:
        MetricsLog(tmp_path / "metrics.jsonl").read()
    fix = e.value.fields["fix"]  # what to do, said for this file (a sentence of its own, no fields)
    assert (e.value.code, e.value.fields) == ("files.directory", {"path": tmp_path / "metrics.jsonl", "fix": fix})
    assert heard[0] == (heard[0][0], {}) and fix == t(heard[0][0]) and str(e.value).endswith(fix)


# ---- what a run prints while it trains -----------------------------------------------------------
def test_the_eval_line_names_each_split_in_the_users_language_and_marks_the_best():
    losses = {"train_loss": 1.23456, "val_loss": 2.0}

    def said_line(step, losses, improved):
        """The line, and the sentence (msgid) and fields it was made from."""
        with said() as heard:
            line = eval_line(step, losses, improved)
        [(message, fields)] = heard[-1:]
        assert line == t(message, **fields)
        return message, fields

    lines = {}
    for lang in ("en", "zh"):
        with speaking(lang):
            train, val = t(NP_("train.split.train", "train")), t(NP_("train.split.val", "val"))
            plain, fields = said_line(500, losses, False)
            assert fields == {"step": 500, "losses": f"{train} 1.2346  {val} 2.0000"}
            best, fields = said_line(7, losses, True)
            assert best == record.IMPROVED != plain and fields == {"step": 7, "losses": f"{train} 1.2346  {val} 2.0000"}
            assert said_line(1234567, {"test_loss": 0.5}, False) == (plain, {"step": 1234567, "losses": "test 0.5000"})
            assert said_line(3, {"val": 0.25}, False) == (plain, {"step": 3, "losses": f"{val} 0.2500"})  # key as is
            lines[lang] = eval_line(5, {"x": 1.0}, False)
            assert f"{5:>6}" in lines[lang]  # the step is right-aligned in 6 columns
    assert lines["en"] != lines["zh"] and train != "train" and val != "val"  # the splits were named in Chinese


def test_progress_modes_print_where_each_says(capsys):
    with pytest.raises(ValueError) as e:
        Progress(10, 0, "loud")
    assert (e.value.code, e.value.fields) == (
        "progress.mode",
        {"mode": "loud", "modes": ["bar", "lines", "silent"]},
    )
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
    assert Progress(10, 0).mode == "lines" and Progress(10, 0).plain  # the default, "bar", off a terminal


def test_the_bar_counts_optimizer_steps_from_where_a_run_resumes(capsys, monkeypatch):
    monkeypatch.setattr(record, "_on_terminal", lambda stream: True)  # the bar is drawn on a terminal only
    bar = Progress(10, 4, "bar")
    assert not bar.bar.disable and bar.bar.total == 10 and bar.bar.n == 4 and bar.bar.unit == "step"
    assert bar.bar.dynamic_ncols and bar.bar.leave
    bar.update(6, 1.23456, 0.00012345, 12345.6)
    assert bar.bar.n == 6
    postfix = bar.bar.postfix
    assert dict(item.split("=") for item in postfix.split(", ")) == {
        "loss": "1.2346",
        "lr": "1.23e-04",
        "tok_s": "12,346",
    }
    bar.write("above-the-bar")
    bar.close()
    captured = capsys.readouterr()
    assert "above-the-bar\n" in captured.out
    assert "6/10" in captured.err and postfix in captured.err


def test_the_step_timer_measures_each_lap_from_the_last(monkeypatch):
    import glassformer.train.record as metrics

    clock = iter([10.0, 12.5, 13.0])
    monkeypatch.setattr(metrics.time, "perf_counter", lambda: next(clock))
    monkeypatch.setattr(metrics.time, "time", lambda: 1e9)
    timer = StepTimer()
    assert timer.lap() == 2.5 and timer.lap() == 0.5 and StepTimer.now() == 1e9


def test_off_a_terminal_the_bar_becomes_one_plain_line_per_log_interval(capsys, monkeypatch):
    """Issue 27, item 9: piped into a file, tqdm's carriage returns filled the log. Where stderr is
    not a terminal (here: pytest's capture) each update is one line on stdout, an evaluation line
    its own line, and stderr gets nothing."""
    progress = Progress(300, 0, "bar")
    assert progress.plain and progress.mode == "lines"
    with said() as heard:
        progress.update(50, 2.5, 3e-4, 12345.0)
    progress.write(eval_line(50, {"train": 2.4, "val": 2.6}, True))
    progress.close()
    out, err = capsys.readouterr()
    fields = {"step": 50, "total": 300, "loss": 2.5, "lr": 3e-4, "tokens_per_s": 12345.0}
    assert out.splitlines() == [*heard.worded(**fields), eval_line(50, {"train": 2.4, "val": 2.6}, True)]
    assert len(out.splitlines()) == 2
    assert "\r" not in err and err == ""
    monkeypatch.setattr(record, "_on_terminal", lambda stream: True)  # on a terminal: the bar, as before
    on_tty = Progress(300, 0, "bar")
    assert not on_tty.plain and on_tty.mode == "bar"
    on_tty.close()
    assert not Progress(300, 0, "lines").plain  # --no-progress: evaluation lines only, as before


# ---- attention_log.json: the AttentionLog callback and `glassformer train --attention-every` ---------
def tiny_run(log_every: int | None):
    torch.manual_seed(0)
    p = get_preset("seed000")
    p.model.vocab_size, p.train.max_steps, p.train.seq_len = 12, 12, 8
    model = build_model(p.model)
    data = (torch.arange(400) % 12).numpy()
    losses, logs = [], []
    callbacks = [lambda event, t: losses.append(t.last_loss.item()) if event == "step" else None]
    if log_every:
        logs.append(
            AttentionLog(model, torch.arange(8)[None] % 12, list("abcdefgh"), heads=[(0, 1), (1, 3)], every=log_every)
        )
        callbacks.append(logs[0])
    Trainer(
        model, p.train, TextWindows(data, data, 4, 8, 1, 0), evaluate=None, callbacks=callbacks, progress="silent"
    ).fit()
    return losses, logs, model


def test_recording_changes_nothing_in_the_run():
    plain, _, _ = tiny_run(None)
    logged, logs, model = tiny_run(5)
    assert plain == logged  # dropout is on in seed000: recording draws no random numbers
    log = logs[0].as_dict()
    assert [r["step"] for r in log["records"]] == [0, 5, 10]
    assert log["heads"] == [[0, 1], [1, 3]] and log["tokens"] == list("abcdefgh")
    W, hidden = attention_maps(model, torch.arange(8)[None] % 12)  # the trained model, now
    assert logs[0].records[-1]["step"] == 10
    last = torch.tensor([[v if v is not None else float("nan") for v in row] for row in log["records"][-1]["maps"][1]])
    assert torch.isnan(last[hidden[1, 3]]).all() and not torch.isnan(last[~hidden[1, 3]]).any()


def test_heads_are_parsed_and_checked():
    assert parse_heads("0.1, 3.2") == [(0, 1), (3, 2)] and parse_heads("all") is None
    assert keyed(ValueError, parse_heads, "0:1")[0] == "attention_log.heads_spec"
    model = build_model(get_preset("seed000").model)
    ids = torch.zeros(1, 4, dtype=torch.long)  # (1, T)
    assert keyed(UsageError, AttentionLog, model, ids, list("abcd"), heads=[(2, 0)], every=1) == (
        "attention_log.outside",
        {"bad": [(2, 0)], "last_layer": 1, "last_head": 3},
    )
    assert keyed(UsageError, AttentionLog, model, ids, list("abcd")) == ("attention_log.when", {})


def test_train_attention_every_writes_the_log_the_strip_and_the_page(tmp_path, capsys):
    """Under --lang zh: the page's words follow it (tests/lab/test_charts.py checks each word)."""
    run = tmp_path / "run"
    argv = ["--lang", "zh", "--max_steps=10", "--eval_interval=5", "--eval_iters=1"]
    code = main(train_argv(tmp_path, "run", *argv, "--attention-every", "4", "--attention-heads", "1.2"))
    out = capsys.readouterr().out
    assert code == 0 and "attention_steps.html" in out
    log = read_log(run)
    assert [r["step"] for r in log["records"]] == [0, 4, 8] and log["heads"] == [[1, 2]]
    strip = imread(run / "attention_steps.png")[..., :3]  # (H, W, 3); one head as a row, three steps as columns
    assert strip.shape[:2] == (round(80 * (1.9 + 0.5)), round(80 * (1.9 * 3 + 0.6)))  # 80 dpi
    assert (strip.std(axis=-1) > 0.1).sum() > 1000  # coloured cells drawn, not a blank or grey page
    page = (run / "attention_steps.html").read_text(encoding="utf-8")
    assert 'type="range"' in page and "http" not in page and '"heads":[[1,2]]' in page
    head = page.split("<head>")[0]  # <!DOCTYPE html> and <html lang=...>
    assert 'lang="zh-CN"' in head and 'charset="utf-8"' in page.split("<title>")[0]
    title = page.split("<title>")[1].split("</title>")[0]
    assert re.search("[\u4e00-\u9fff]", title)  # the page's title, in Chinese


def test_attention_heads_without_every_is_an_error(tmp_path, capsys):
    code = main(train_argv(tmp_path, "r", "--max_steps=2", "--attention-heads", "0.0"))
    assert code == 2 and "--attention-every" in capsys.readouterr().err
    assert not (tmp_path / "r").exists() and not (tmp_path / "cache").exists()  # refused before anything was made


def test_attention_every_refuses_zero_and_a_model_it_cannot_record(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop, said() as heard:  # the option's range type refuses 0 before anything runs
        main(["train", "--preset", "seed000", "--out", str(tmp_path / "z"), "--attention-every", "0"])
    err = capsys.readouterr().err
    [refused] = heard.worded(value="0")  # the range type's sentence, with the value given
    assert stop.value.code == 2 and f"--attention-every: {refused}" in err
    argv = ["train", "--preset", "seq2seq", "--out", str(tmp_path / "s"), "--no-progress", "--max_steps=1"]
    with said() as heard:
        code = main([*argv, "--threads=1", "--attention-every", "1"])
    one_stack = {"kind": "seq2seq", "inputs": "token pairs", "dir": tmp_path / "s"}  # it says: look after training
    assert code == 2 and ("train.attention_one_stack", one_stack) in heard
    [refused] = heard.worded(**one_stack)
    assert refused in capsys.readouterr().err


def seed_model():
    torch.manual_seed(0)
    return build_model(get_preset("seed000").model)  # 2 layers of 4 heads


def test_the_probe_is_the_first_validation_tokens_or_sequence_at_most_32_long():
    from glassformer.text.tokenizers import CharTokenizer

    waves = SimpleNamespace(tokenizer=None, x_val=torch.arange(3 * 40 * 2.0).reshape(3, 40, 2))  # numbers
    for T, n in ((5, 5), (31, 31), (32, 32), (40, 32)):
        x, labels = probe_for(waves, T)
        assert torch.equal(x, waves.x_val[:1, :n]) and labels == [str(i) for i in range(n)]
    tok = CharTokenizer.from_text("abcdefghij")
    text = SimpleNamespace(tokenizer=tok, val=np.array([3, 1, 4, 1, 5, 9, 2, 6] * 6, dtype=np.uint16))
    ids, labels = probe_for(text, 6)
    assert ids.dtype == torch.int64 and ids.tolist() == [[3, 1, 4, 1, 5, 9]] and labels == list("dbebfj")
    assert probe_for(text, 100)[0].shape == (1, PROBE_LENGTH) == (1, 32)


@pytest.mark.parametrize("text", ["0:1", "a.1", "0.b", "0.", ".1", "0.1,,1.0"])
def test_a_heads_spec_that_is_not_layer_dot_head_pairs_is_refused_with_an_example_it_takes(text):
    assert keyed(ValueError, parse_heads, text) == ("attention_log.heads_spec", {"text": text, "example": "0.1,3.2"})
    assert parse_heads("0.1,3.2") == [(0, 1), (3, 2)]  # its example is one the parser takes
    assert parse_heads(None) is None and parse_heads("1.3") == [(1, 3)] and parse_heads("10.12") == [(10, 12)]


def test_each_refusal_of_attention_log_by_code_and_fields():
    model, probe = seed_model(), torch.zeros(1, 4, dtype=torch.long)
    cases = [
        ({}, ("attention_log.when", {})),
        ({"every": 0}, ("attention_log.every", {"every": 0})),
        (
            {"every": 1, "heads": [(1, 3), (2, 0), (0, 4), (-1, 0)]},
            ("attention_log.outside", {"bad": [(2, 0), (0, 4), (-1, 0)], "last_layer": 1, "last_head": 3}),
        ),
    ]
    for kwargs, refused in cases:
        assert keyed(ValueError, AttentionLog, model, probe, list("abcd"), **kwargs) == refused
    log = AttentionLog(model, probe, list("abcd"), every=1)  # the smallest interval; every head by default
    assert log.heads == [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1), (1, 2), (1, 3)]
    assert [r["step"] for r in log.records] == [0] and len(log.records[0]["maps"]) == 8


def test_listed_steps_are_recorded_once_each_and_only_on_step_events():
    from types import SimpleNamespace

    model, probe = seed_model(), torch.arange(4)[None]
    log = AttentionLog(model, probe, list("abcd"), heads=[(1, 2)], steps=[4, 2, 2])
    assert log.steps == [2, 4] and log.records == []  # step 0 is not listed: nothing at the start
    assert [s for s in range(7) if log.due(s)] == [2, 4]
    for step in range(7):
        log("eval", SimpleNamespace(step=step, model=model))  # evaluations record nothing
        log("step", SimpleNamespace(step=step, model=model))
    W, hidden = attention_maps(model, probe)
    expected = [[None if hidden[1, 2, i, j] else round(W[1, 2, i, j].item(), 3) for j in range(4)] for i in range(4)]
    assert log.as_dict() == {
        "tokens": list("abcd"),
        "heads": [[1, 2]],
        "records": [{"step": 2, "maps": [expected]}, {"step": 4, "maps": [expected]}],
    }
    assert expected[0][1] is None and expected[3][0] is not None  # causal: above the diagonal is hidden


def test_the_file_is_rewritten_whole_and_a_resumed_run_keeps_its_earlier_maps(tmp_path):
    model, probe, path = seed_model(), torch.arange(4)[None], tmp_path / ATTENTION_FILE
    labels = ["你", "好", "\n", "a"]
    log = AttentionLog(model, probe, labels, heads=[(0, 0)], every=3, path=str(path))
    for step in (3, 6, 9):
        log.record(model, step)
    text = path.read_text(encoding="utf-8")
    assert text.endswith("}\n") and '"你"' in text and json.loads(text) == log.as_dict()  # characters as they are
    assert read_log(tmp_path) == read_log(path) == log.as_dict()
    resumed = AttentionLog(model, probe, labels, heads=[(0, 0)], every=3, path=path, start_step=6)
    assert [r["step"] for r in resumed.records] == [0, 3, 6] and read_log(path) == log.as_dict()  # not rewritten yet
    one = AttentionLog(model, probe, labels, heads=[(0, 0)], every=3, path=path, start_step=1)
    assert [r["step"] for r in one.records] == [0]  # resumed from step 1 keeps the maps of steps <= 1 too
    fresh = AttentionLog(model, probe, labels, heads=[(0, 0)], every=3, path=path)  # start_step 0: a new run
    assert [r["step"] for r in fresh.records] == [0] and [r["step"] for r in read_log(path)["records"]] == [0]
    missing = tmp_path / "nowhere" / ATTENTION_FILE
    assert keyed(FileNotFoundError, read_log, missing) == ("attention_log.missing", {"path": missing})
    assert AttentionLog(model, probe, labels, heads=[(0, 0)], every=1).path is None  # no path: no file


def test_a_number_that_is_not_finite_is_written_as_null_and_read_back_as_nan(tmp_path):
    """metrics.jsonl is JSON proper (files.json_text): an infinite gradient norm beside a finite loss
    is null on disk (it was a bare Infinity, which jq and a browser refuse), and the reader takes the
    null back as NaN, so the line is a record, not a damaged line; truncating keeps it so."""
    path = tmp_path / "metrics.jsonl"
    log = MetricsLog(path)
    log.append({"kind": "log", "step": 1, "loss": 2.0, "grad_norm": math.inf, "lr": 1e-3})
    log.append({"kind": "eval", "step": 2, "val_loss": math.nan})
    assert [strict_json(line) for line in path.read_text(encoding="utf-8").splitlines()] == [
        {"kind": "log", "step": 1, "loss": 2.0, "grad_norm": None, "lr": 1e-3},
        {"kind": "eval", "step": 2, "val_loss": None},
    ]
    for _ in range(2):  # as written, then as truncate_after rewrites it
        records, bad = log.read_checked()
        assert bad == [] and [r["step"] for r in records] == [1, 2]
        assert math.isnan(records[0]["grad_norm"]) and records[0]["loss"] == 2.0 and math.isnan(records[1]["val_loss"])
        assert log.truncate_after(2) == []
        assert all(strict_json(line) for line in path.read_text(encoding="utf-8").splitlines())
    path.write_text('{"kind": "log", "step": 3, "loss": null, "note": null}\n', encoding="utf-8")
    (only,) = log.read()
    assert math.isnan(only["loss"]) and only["note"] is None  # only the numbers' fields are read as NaN
