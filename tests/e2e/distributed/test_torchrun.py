"""Two processes under torchrun (gloo, CPU) train as one process with their global batch would.

2 processes × batch_size 4 draw the windows 1 process × batch_size 8 draws (distributed.py), so
every logged loss, gradient norm and evaluation must agree over 20 steps — with gradient
accumulation (no_sync on the first micro-batch), and across a checkpoint: the job stops at step 10
and is resumed under torchrun. Rank 0 alone writes the run's files; a single process then loads
and samples the result.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT
from safetensors.torch import load_file

from glassformer.cli import main
from glassformer.sample import sample
from glassformer.train.run import load_model

SRC = str(ROOT / "src")
OPTIONS = [
    "--preset",
    "seed000",
    "--data",
    "builtin:seed",
    "--no-progress",
    "--sample-chars=0",
    "--dropout=0",
    "--grad_accum=2",
    "--eval_interval=10",
    "--eval_iters=2",
    "--log_interval=1",
    "--threads=1",
]


def records(run: Path) -> dict[tuple[str, int], dict]:
    lines = [json.loads(line) for line in (run / "metrics.jsonl").read_text(encoding="utf-8").splitlines()]
    keyed = {(r["kind"], r["step"]): r for r in lines}
    assert len(keyed) == len(lines), "a step was logged twice"
    return keyed


@pytest.mark.slow
def test_two_processes_train_as_one_with_their_global_batch(tmp_path):
    cache = tmp_path / "cache"
    assert main(["data", "prepare", "builtin:seed", "--cache-dir", str(cache)]) == 0  # once, before both read it
    launch = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        "--nproc_per_node=2",
        str(Path(__file__).with_name("ddp_driver.py")),
        str(tmp_path / "two"),
        str(cache),
        *OPTIONS,
        "--batch_size=4",
    ]
    env = {**os.environ, "PYTHONPATH": SRC, "OMP_NUM_THREADS": "1"}
    job = subprocess.Popen(launch, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:  # the one-process reference trains while torchrun imports torch
        assert (
            main(
                [
                    "train",
                    "--out",
                    str(tmp_path / "one"),
                    "--cache-dir",
                    str(cache),
                    *OPTIONS,
                    "--batch_size=8",
                    "--max_steps=20",
                ]
            )
            == 0
        )
        out, err = job.communicate(timeout=300)
    finally:
        if job.poll() is None:
            job.kill()
            job.communicate()
    assert job.returncode == 0, out[-3000:] + err[-3000:]
    said = [json.loads((tmp_path / f"said.{rank}.json").read_text(encoding="utf-8")) for rank in (0, 1)]
    resumed = [s["words"] for s in said[0] if s["fields"] == {"dir": str(tmp_path / "two"), "step": 10}]
    done = [s["words"] for s in said[0] if s["fields"].keys() == {"steps", "train", "val", "best"}]
    assert [s["fields"]["steps"] for s in said[0] if s["words"] in done] == [10, 20]  # the job, then its resume
    assert resumed and all(line in out for line in resumed)  # step 10's checkpoint, resumed
    assert all(out.count(line) == 1 for line in done)  # rank 0 alone prints ...
    assert [s["words"] for s in said[1] if s["words"] in done] == done  # ... though rank 1 says the same

    one, two = records(tmp_path / "one"), records(tmp_path / "two")
    assert one.keys() == two.keys() and len([k for k in one if k[0] == "log"]) == 20
    for key, a in one.items():
        b = two[key]
        for field in ("loss", "grad_norm", "train_loss", "val_loss"):
            if field in a:
                assert b[field] == pytest.approx(a[field], abs=1e-5), (key, field, a[field], b[field])
    assert (
        two[("log", 1)]["tokens_per_s"] > 0
        and json.loads((tmp_path / "two" / "config.json").read_text(encoding="utf-8"))["train"]["batch_size"] == 4
    )  # the config says per process, as given

    files = {p.name for p in (tmp_path / "two").iterdir()}  # rank 0's files, nothing more (no lock left)
    assert files == {
        "config.json",
        "tokenizer.json",
        "metrics.jsonl",
        "model.safetensors",
        "train_state.pt",
        "best.safetensors",
        "loss.png",
        "samples.txt",
    }
    assert (tmp_path / "two" / "samples.txt").read_text(encoding="utf-8").count("=== step 20 ===") == 1
    weights = load_file(str(tmp_path / "two" / "model.safetensors"))
    assert not [k for k in weights if k.startswith("module.")]  # DDP's wrapper leaves no trace
    reference = load_file(str(tmp_path / "one" / "model.safetensors"))
    assert max((weights[k] - reference[k]).abs().max().item() for k in reference) < 1e-3  # Adam: ~4e-5 seen

    model, tokenizer, _ = load_model(tmp_path / "two")  # one process reads what two wrote
    text = sample(model, tokenizer, "the ", 20, temperature=0)[0]
    assert len(text) == 20 and text == sample(load_model(tmp_path / "one")[0], tokenizer, "the ", 20, temperature=0)[0]
