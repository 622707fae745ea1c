"""What new_run assembles on rank 0 (run._assemble): the progress mode, the evaluation sampler with the
run's prompt and length writing samples.txt, none when sample_chars is 0, the lock a Run holds and lets
go when it is dropped."""

from __future__ import annotations

import gc
from types import SimpleNamespace

from glassformer.train import lock
from glassformer.train.run import new_run

QUICK = ["--max_steps=1", "--eval_interval=1", "--eval_iters=1", "--threads=1", "--batch_size=2", "--block_size=8"]


def start(tmp_path, name, **kwargs):
    return new_run("seed000", QUICK, source="builtin:seed", out=tmp_path / name, cache_dir=tmp_path / "cache", **kwargs)


def test_rank_0_gets_a_sampler_with_the_runs_prompt_and_length_and_the_progress_it_asked_for(tmp_path):
    run = start(tmp_path, "a", progress=True, prompt="ab", sample_chars=7)
    assert run.trainer.progress_mode == "bar" and len(run.trainer.callbacks) == 1
    shown = []
    run.trainer.progress = SimpleNamespace(write=shown.append)
    run.trainer.callbacks[0]("eval", run.trainer)
    kept = (run.dir / "samples.txt").read_text(encoding="utf-8")
    assert kept.startswith("=== step 0 ===\nab") and kept.endswith("\n\n")
    text = kept[len("=== step 0 ===\n") : -2]
    assert len(run.data.tokenizer.encode(text)) == 2 + 7 and shown == [f"--- sample at step 0 ---\n{text}\n---"]
    lines = start(tmp_path, "b", progress=False)  # default sample length: a sampler too
    assert lines.trainer.progress_mode == "lines" and len(lines.trainer.callbacks) == 1
    none = start(tmp_path, "c", progress=False, sample_chars=0)
    assert none.trainer.callbacks == []


def test_a_run_holds_its_directory_until_it_is_dropped(tmp_path):
    run = start(tmp_path, "d", progress=False, sample_chars=0)
    path = (tmp_path / "d" / lock.LOCK_FILE).resolve()
    assert run.lock == path and path.is_file() and lock._held[str(path)][1] == 1
    del run
    gc.collect()
    assert not path.exists() and str(path) not in lock._held


def test_config_json_is_written_whole_and_rank_0_announces_a_fresh_start(tmp_path, monkeypatch):
    import json

    from glassformer.config import get_preset
    from glassformer.train import distributed

    class Announcing(distributed.World):
        heard: list = []

        def announce(self, run_dir, resumed: bool) -> None:
            self.heard.append((run_dir, resumed))

    world = Announcing()
    monkeypatch.setattr(distributed, "_world", world)
    for name, text in (("plain", None), ("words", {"tokenizer": "word", "segment": "whitespace"})):
        run = start(tmp_path, name, progress=False, sample_chars=0, text=text)
        written = (run.dir / "config.json").read_text(encoding="utf-8")
        assert written == json.dumps(run.config, indent=2) + "\n"  # two-space indent, one final newline
        keys = ["preset", "about", "source", *(["text"] if text else []), "text_sha256", "model", "train"]
        assert list(run.config) == keys and run.config["about"] == get_preset("seed000").about
        assert run.config["preset"] == "seed000" and run.config["source"] == "builtin:seed"
        assert (
            run.config["train"]["max_steps"] == 1 and run.config["model"]["vocab_size"] == run.data.tokenizer.vocab_size
        )
        assert (run.dir / "tokenizer.json").is_file() and world.heard[-1] == (run.dir, False)


def test_defaults_a_new_run_fills_in_the_folder_the_source_by_kind_and_text_options_given(tmp_path, monkeypatch):
    import re

    from glassformer.train import run as run_module

    monkeypatch.setattr(run_module, "RUNS_DIR", tmp_path / "runs")
    plain = new_run(
        "seed000",
        QUICK,
        source="builtin:seed",
        cache_dir=tmp_path / "cache",
        progress=False,
        sample_chars=0,
        text={"tokenizer": "char", "vocab_size": None, "segment": None},
    )
    assert plain.dir.parent == tmp_path / "runs" and re.fullmatch(r"seed000-\d{8}-\d{6}", plain.dir.name)
    assert plain.config["text"] == {"tokenizer": "char"}  # options left unset are not recorded
    sine = new_run("sine", ["--max_steps=1", "--threads=1"], out=tmp_path / "sine", progress=False)
    assert sine.config["source"] == "sine" and sine.data.tokenizer is None  # a regressor reads generated numbers
    pairs = new_run(
        "seed000",
        ["--kind=seq2seq", "--max_steps=1", "--threads=1"],
        out=tmp_path / "pairs",
        progress=False,
        sample_chars=0,
    )
    assert pairs.config["source"] == "numbers:zh2num" and pairs.config["model"]["kind"] == "seq2seq"
