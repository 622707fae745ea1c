"""A rank above 0 under torchrun, in this process: it reads the run rank 0 announced (run._follow) and
writes nothing (record.ReadOnlyRunFiles). The world is a ProcessWorld of rank 1 whose collective calls
are stood in for: `hear` returns what rank 0 announced, the barrier is counted, DDP is left out."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from glassformer.messages import speaking
from glassformer.train import distributed
from glassformer.train import run as run_module
from glassformer.train.distributed import ProcessWorld, RankSlice
from glassformer.train.record import ReadOnlyRunFiles
from glassformer.train.run import new_run, resume_run, train

QUICK = ["--max_steps=2", "--eval_interval=2", "--eval_iters=1", "--threads=1", "--batch_size=4", "--block_size=3"]
WORDS = {"tokenizer": "word", "segment": "whitespace"}  # not the default: rank 1 must tokenize as rank 0 did


class Rank1(ProcessWorld):
    def __init__(self, run_dir, resumed: bool) -> None:
        super().__init__(1, 1, 2)
        self.announced, self.barriers = (Path(run_dir), resumed), 0

    def hear(self):
        return self.announced

    def wrap(self, model):
        return model

    def _barrier(self) -> None:
        self.barriers += 1


def files_of(run_dir: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(run_dir.iterdir())}


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """Rank 0's run (one process), trained 2 steps: its initial weights, final weights, directory."""
    tmp = tmp_path_factory.mktemp("rank0")
    run0 = new_run(
        "seed000",
        QUICK,
        source="builtin:seed",
        out=tmp / "run",
        cache_dir=tmp / "cache",
        progress=False,
        sample_chars=0,
        text=WORDS,
    )
    initial = {k: v.clone() for k, v in run0.model.state_dict().items()}
    train(run0)
    return run0, initial


def follow(monkeypatch, tmp_path, run0, resumed: bool, entry):
    world = Rank1(run0.dir, resumed)
    monkeypatch.setattr(distributed, "_world", world)
    loaded = []
    real = run_module.load_tokenizer
    monkeypatch.setattr(run_module, "load_tokenizer", lambda path: loaded.append(path) or real(path))
    before = files_of(run0.dir)
    run = entry(tmp_path / "cache1")
    assert files_of(run0.dir) == before  # a rank above 0 writes nothing into the run
    return run, world, loaded


@pytest.mark.parametrize("entry", ["new_run", "resume_run"])
def test_a_rank_above_0_reads_the_announced_run_and_starts_from_the_same_weights(trained, monkeypatch, tmp_path, entry):
    run0, initial = trained
    start = {
        "new_run": lambda cache: new_run(
            "baby",
            ["--lr=9"],
            source="shakespeare",
            out=tmp_path / "ignored",
            cache_dir=cache,
            progress=True,
            sample_chars=50,
        ),
        "resume_run": lambda cache: resume_run(tmp_path / "ignored", ["--lr=9"], cache_dir=cache),
    }[entry]
    run, world, loaded = follow(monkeypatch, tmp_path, run0, False, start)
    assert run.dir == run0.dir and run.lock is None and not (tmp_path / "ignored").exists()
    assert run.config == json.loads((run0.dir / "config.json").read_text())
    assert run.config["text"] == WORDS and run.trainer.cfg == run0.trainer.cfg
    assert np.array_equal(run.data.train, run0.data.train) and np.array_equal(run.data.val, run0.data.val)
    assert (tmp_path / "cache1" / "prepared").is_dir()  # its own cache_dir, as given
    assert loaded == [run0.dir / "tokenizer.json"] and run.data.tokenizer.vocab_size == run0.model.cfg.vocab_size
    state = run.model.state_dict()
    assert state.keys() == initial.keys() and all(torch.equal(state[k], initial[k]) for k in state)
    trainer = run.trainer
    assert trainer.world is world and trainer.step == 0 and world.barriers == 0
    assert type(trainer.files) is ReadOnlyRunFiles and trainer.files.dir == run0.dir
    assert trainer.callbacks == [] and trainer.progress_mode == "silent"
    assert isinstance(trainer.batches, RankSlice) and (trainer.batches.rank, trainer.batches.size) == (1, 2)
    x, _ = trainer.batches.train_batch(torch.Generator().manual_seed(0))  # (B, T): its half of 2·B windows
    assert x.shape == (4, run0.trainer.cfg.block_size)


def test_a_rank_above_0_resumes_the_checkpoint_rank_0_resumed(trained, monkeypatch, tmp_path):
    run0, _ = trained
    run, world, loaded = follow(
        monkeypatch, tmp_path, run0, True, lambda cache: new_run("seed000", source="builtin:seed", cache_dir=cache)
    )
    assert run.trainer.step == 2 and run.trainer.files.saved_step == 2 and world.barriers == 1  # after rank 0
    state, final = run.model.state_dict(), run0.model.state_dict()
    assert all(torch.equal(state[k], final[k]) for k in final)
    assert run.trainer.last_eval == run0.trainer.last_eval


def test_read_only_files_record_steps_and_write_nothing(trained, tmp_path):
    run0, _ = trained
    files = ReadOnlyRunFiles(run0.dir)
    before = files_of(run0.dir)
    assert files.kept() == "No checkpoint was written."
    with speaking("zh"):
        assert files.kept() == "没有写入任何检查点。"
    files.log({"kind": "log", "step": 9, "loss": 1.0})
    files.evaluation({"kind": "eval", "step": 9}, True, run0.trainer)
    assert files.saved_step == run0.trainer.step == 2
    files.saved_step = None
    files.checkpoint(run0.trainer)
    assert files.saved_step == 2 and files_of(run0.dir) == before
    assert files.kept() == f"The last good checkpoint (step 2) in {run0.dir} is kept."
    with speaking("zh"):
        assert files.kept() == f"{run0.dir} 里上一个完好的检查点（第 2 步）保留着。"


def test_read_only_restore_reads_a_cut_save_from_its_temp_file_and_leaves_it(trained, tmp_path):
    """A crash between a save's two renames: rank 0 repairs it; a rank above 0 reads it as it is."""
    run0, _ = trained
    import shutil

    shutil.copytree(run0.dir, tmp_path / "run")
    (tmp_path / "run" / "train_state.pt").rename(tmp_path / "run" / ".train_state.pt.bbb.tmp")
    with (tmp_path / "run" / "metrics.jsonl").open("a") as f:
        f.write(json.dumps({"kind": "log", "step": 3, "loss": 1.0}) + "\n")  # after the checkpoint
    before = files_of(tmp_path / "run")
    files = ReadOnlyRunFiles(tmp_path / "run")
    state = files.restore(run0.trainer)
    assert state["step"] == 2 and files.saved_step == 2 and files_of(tmp_path / "run") == before
