"""train/run.py's refusals word for word (en and zh), and what each generated source resolves to.

Each test reaches one branch of open_data / resolve / _fit_pairs / new_run / _resume and checks the
whole sentence a user reads, so a changed key, a dropped field or a swapped value is seen."""

from __future__ import annotations

import json

import pytest

from glassformer.config import get_preset
from glassformer.errors import DamagedFile, UsageError
from glassformer.messages import speaking
from glassformer.train import run as run_mod
from glassformer.train.data import PairBatches, PairData, TensorBatches, WaveData, pair_source, wave_source
from glassformer.train.run import batches_for, identity, new_run, open_data, resolve, resume_run, train

PAIRS = "['digits:copy', 'digits:reverse', 'digits:sort', 'numbers:num2zh', 'numbers:zh2num']"


def refusal(kind, call, *args, **kw) -> str:
    with pytest.raises(kind) as e:
        call(*args, **kw)
    return str(e.value)


def test_tokenizer_options_for_a_generated_source_are_refused_in_both_languages():
    msg = refusal(UsageError, open_data, "sine", "numbers", None, {"tokenizer": "bpe"})
    assert msg == (
        "--tokenizer and its options choose how a text corpus is cut into tokens; this model reads "
        "numbers, from a generated source. Drop them."
    )
    with speaking("zh"):
        zh = refusal(UsageError, open_data, "numbers:zh2num", "token pairs", None, {"vocab_size": 9})
    assert zh.startswith("--tokenizer 及其选项决定怎样把文本语料切成词元；这个模型读的是 token pairs，")


def test_a_source_of_the_wrong_family_names_the_choices_and_the_preset_to_use():
    assert refusal(ValueError, open_data, "shakespeare", "numbers") == (
        "this model reads numbers: --data must be one of ['sine', 'sine:forecast'], not 'shakespeare'."
    )
    assert refusal(ValueError, open_data, "sine", "token pairs") == (
        "--data sine makes numbers, but this model reads token pairs; use --preset sine (a regressor)."
    )
    assert refusal(ValueError, open_data, "shakespeare", "token pairs") == (
        f"this model reads (source, target) pairs: --data must be one of {PAIRS}, not 'shakespeare'."
    )
    assert refusal(ValueError, open_data, "sine", "tokens") == (
        "--data sine makes numbers, but this model reads tokens; use --preset sine (a regressor)."
    )
    assert refusal(ValueError, open_data, "digits:copy", "numbers") == (
        "this model reads numbers: --data must be one of ['sine', 'sine:forecast'], not 'digits:copy'."
    )
    assert refusal(ValueError, open_data, "digits:copy", "tokens") == (
        "--data digits:copy makes (source, target) pairs, but this model reads tokens; use --preset seq2seq "
        "(or --kind=seq2seq)."
    )
    with speaking("zh"):
        assert refusal(ValueError, open_data, "sine", "tokens") == (
            "--data sine 生成的是数字，但这个模型读的是 tokens；请用 --preset sine（回归模型）。"
        )
        assert refusal(ValueError, open_data, "digits:sort", "tokens") == (
            "--data digits:sort 生成的是（源序列，目标序列）对，但这个模型读的是 tokens；请用 --preset seq2seq（或 --kind=seq2seq）。"
        )
        assert refusal(ValueError, open_data, "x", "token pairs") == (
            f"这个模型读的是（源序列，目标序列）对：--data 必须是 {PAIRS} 之一，而不是 'x'。"
        )


def test_generated_sources_open_as_their_own_data():
    waves = open_data("sine:forecast", "numbers")
    assert (
        isinstance(waves, WaveData) and waves.source == "sine:forecast" and tuple(waves.y_train.shape[1:]) == (40, 10)
    )
    pairs = open_data("digits:reverse", "token pairs", None, {})
    assert isinstance(pairs, PairData) and pairs.source == "digits:reverse"
    assert identity(waves) == waves.identity and identity(pairs) == pairs.identity
    assert set(identity(pairs)) == {"data_sha256"}


def test_batches_for_each_kind_of_data_take_the_train_configs_sizes():
    from dataclasses import replace

    import torch

    cfg = replace(get_preset("sine").train, batch_size=3, eval_iters=2)
    waves = wave_source("sine")
    b = batches_for(waves, cfg)
    assert isinstance(b, TensorBatches) and b.batch_size == 3 and b.eval_iters == 2 and b.shuffle
    assert b.splits == ("train", "val") and torch.equal(b.val[0], waves.x_val) and torch.equal(b.val[1], waves.y_val)
    assert torch.equal(b.inputs, waves.x_train) and torch.equal(b.targets, waves.y_train)
    pairs = pair_source("digits:copy", n_pairs=200, max_digits=3)
    pb = batches_for(pairs, cfg)
    assert isinstance(pb, PairBatches) and pb.batch_size == 3 and pb.eval_rows == 6 and pb.device == "cpu"
    tok = pairs.tokenizer
    assert pb.pad_id == tok.pad_id
    (src, tgt_in), tgt_out = pb.batch("val", torch.arange(1))  # [<BOS>] + target, target + [<EOS>]
    want = pairs.encoded("val")[0]
    assert src[0].tolist() == want[0] and tgt_in[0].tolist() == [tok.bos_id, *want[1]]
    assert tgt_out[0].tolist() == [*want[1], tok.eos_id]
    assert len(pb.data["train"][0]) == len(pairs.train) and len(pb.data["val"][0]) == len(pairs.val)


def test_resolve_names_sequences_too_long_for_numbers_and_pairs_too_long_for_pairs():
    waves = wave_source("sine")
    assert refusal(ValueError, resolve, get_preset("sine"), ["--max_len=49"], waves) == (
        "the sine sequences' length=50 is longer than max_len=49: the model has positions for only 49 tokens. "
        "Pass --max_len=50."
    )
    assert resolve(get_preset("sine"), ["--max_len=50"], waves).model.max_len == 50  # the edge fits
    pairs = pair_source("digits:copy", n_pairs=200, max_digits=3)  # sources and targets of 3 tokens
    assert refusal(ValueError, resolve, get_preset("seq2seq"), {"max_len": 3}, pairs) == (
        "digits:copy has sources of 3 and targets of 3 tokens (+1 for <BOS>/<EOS>), longer than max_len=3. "
        "Pass --max_len=4."
    )
    p = resolve(get_preset("seq2seq"), {"max_len": 4}, pairs)  # the edge: target + 1 = max_len
    assert p.model.max_len == 4 and p.model.pad_id == pairs.tokenizer.pad_id
    assert p.model.vocab_size == pairs.tokenizer.vocab_size
    with speaking("zh"):
        assert refusal(ValueError, resolve, get_preset("seq2seq"), ["--pad_id=5"], pairs) == (
            f"pad_id 由分词器决定（这里是 {pairs.tokenizer.pad_id}）；不要设置它。"
        )
    assert refusal(ValueError, resolve, get_preset("seq2seq"), ["--vocab_size=30"], pairs) == (
        f"vocab_size comes from the tokenizer ({pairs.tokenizer.vocab_size} here); do not set it."
    )


def test_resolve_refuses_a_missing_device_before_any_training():
    with pytest.raises(UsageError, match="cuda:99"):
        resolve(get_preset("sine"), ["--device=cuda:99"], wave_source("sine"))


QUICK = ["--max_steps=1", "--eval_interval=1", "--eval_iters=1", "--threads=1", "--batch_size=2"]


def test_out_that_is_a_file_is_refused_before_anything_is_written(tmp_path):
    out = tmp_path / "taken"
    out.write_text("x")
    msg = refusal(UsageError, new_run, "sine", QUICK, source="sine", out=out, progress=False)
    assert msg == f"--out {out} is a file; a run needs a directory. Choose another --out DIR."
    assert out.read_text() == "x"


@pytest.fixture(scope="module")
def sine_run(tmp_path_factory):
    """A one-step sine run, trained and saved (about a second)."""
    out = tmp_path_factory.mktemp("sine") / "run"
    run = new_run("sine", QUICK, source="sine", out=out, progress=False)
    train(run)
    run.trainer = None
    return out


def copy_run(src, tmp_path):
    import shutil

    dst = tmp_path / "copy"
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("*.lock", ".lock*"))
    return dst


def test_a_sine_runs_config_records_the_source_its_data_and_the_resolved_configs(sine_run):
    config = json.loads((sine_run / "config.json").read_text())
    assert list(config) == ["preset", "about", "source", "data_sha256", "model", "train"]
    assert config["preset"] == "sine" and config["source"] == "sine"
    assert config["about"] == get_preset("sine").about
    assert config["data_sha256"] == wave_source("sine").identity["data_sha256"]
    assert config["model"]["kind"] == "regressor" and config["train"]["batch_size"] == 2
    assert (sine_run / "config.json").read_text().endswith("}\n") and '\n  "preset"' in (
        sine_run / "config.json"
    ).read_text()
    assert not (sine_run / "tokenizer.json").exists() and not (sine_run / "samples.txt").exists()


def test_a_second_start_into_a_saved_run_is_refused_with_the_resume_advice(sine_run):
    msg = refusal(UsageError, new_run, "sine", QUICK, source="sine", out=sine_run, progress=False)
    assert msg == (
        f"{sine_run} already holds a checkpoint. Continue it with --resume {sine_run}, or choose "
        "another directory with --out DIR."
    )


def test_resume_without_a_source_in_config_is_a_damaged_file(sine_run, tmp_path):
    run_dir = copy_run(sine_run, tmp_path)
    config = json.loads((run_dir / "config.json").read_text())
    del config["source"]
    (run_dir / "config.json").write_text(json.dumps(config))
    msg = refusal(DamagedFile, resume_run, run_dir, progress=False)
    assert msg == (
        f'{run_dir / "config.json"} does not say which data the run was trained on (no "source"), so it '
        "cannot be resumed. The weights still sample; to train further, start a new run."
    )


def test_resume_of_a_source_this_version_cannot_open_names_it(sine_run, tmp_path):
    run_dir = copy_run(sine_run, tmp_path)
    config = json.loads((run_dir / "config.json").read_text())
    config["source"] = "sine:daily"
    (run_dir / "config.json").write_text(json.dumps(config))
    msg = refusal(DamagedFile, resume_run, run_dir, progress=False)
    assert msg == (
        f"cannot resume {run_dir}: its config.json names the data source 'sine:daily', which cannot be "
        "opened: this model reads numbers: --data must be one of ['sine', 'sine:forecast'], not "
        "'sine:daily'."
    )


def test_resume_with_changed_data_names_the_fingerprint_that_differs(sine_run, tmp_path):
    run_dir = copy_run(sine_run, tmp_path)
    config = json.loads((run_dir / "config.json").read_text())
    config["data_sha256"] = "0" * 64
    (run_dir / "config.json").write_text(json.dumps(config))
    msg = refusal(ValueError, resume_run, run_dir, progress=False)
    assert msg == f"cannot resume {run_dir}: the data of 'sine' changed since the run started (data_sha256 differs)."
    with speaking("zh"):
        assert str(run_dir) in refusal(ValueError, resume_run, run_dir, progress=False)


def test_resume_with_another_source_and_another_model_word_for_word(sine_run, tmp_path):
    run_dir = copy_run(sine_run, tmp_path)
    assert refusal(ValueError, resume_run, run_dir, source="sine:forecast", progress=False) == (
        f"cannot resume {run_dir}: it was trained on source 'sine', not 'sine:forecast'. Start a new run with --out "
        "to use other data."
    )
    assert refusal(ValueError, resume_run, run_dir, ["--d_ff=64"], progress=False) == (
        f"cannot resume {run_dir}: the model config differs in d_ff (d_ff: saved 128, asked 64). These fields fix the "
        "shape and meaning of the saved weights; start a new run with --out to change them."
    )
    assert refusal(ValueError, resume_run, run_dir, {"d_ff": 64, "n_heads": 2}, progress=False) == (
        f"cannot resume {run_dir}: the model config differs in n_heads, d_ff (n_heads: saved 4, asked 2, d_ff: saved "
        "128, asked 64). These fields fix the shape and meaning of the saved weights; start a new run with --out to "
        "change them."
    )


def test_resume_with_changed_training_says_each_change_and_rewrites_the_train_config(sine_run, tmp_path, capsys):
    run_dir = copy_run(sine_run, tmp_path)
    before = json.loads((run_dir / "config.json").read_text())
    run = resume_run(run_dir, ["--max_steps=2", "--lr=0.002"], progress=False)
    assert capsys.readouterr().out == "resuming with changed training settings: max_steps 1 -> 2, lr 0.001 -> 0.002\n"
    after = json.loads((run_dir / "config.json").read_text())
    assert after == {**before, "train": {**before["train"], "max_steps": 2, "lr": 0.002}}
    assert (run_dir / "config.json").read_text().endswith("}\n") and '\n  "preset"' in (
        run_dir / "config.json"
    ).read_text()
    assert run.trainer.step == 1 and run.trainer.cfg.max_steps == 2 and run.lock is not None
    assert run.loss_plot == run_dir / "loss.png" and run.tokenizer is None
    result = train(run)
    assert result.step == 2 and capsys.readouterr().out.startswith("step      2: train ")
    again = resume_run(run_dir, ["--max_steps=2", "--lr=0.002"], progress=False)  # nothing changes now
    assert capsys.readouterr().out == "" and again.trainer.step == 2


class FakeTrainer:
    """What the evaluation callbacks read of a trainer: its model, seed, step and progress display."""

    def __init__(self, model, seed=3, step=7):
        from types import SimpleNamespace

        self.model, self.cfg, self.step, self.written = model, SimpleNamespace(seed=seed), step, []
        self.progress = SimpleNamespace(write=self.written.append)


def test_the_eval_sampler_shows_and_appends_a_seeded_sample_at_each_evaluation_only(tmp_path):
    import torch

    from glassformer.config import ModelConfig
    from glassformer.models import build_model
    from glassformer.sample import sample
    from glassformer.text.tokenizers import CharTokenizer

    tok = CharTokenizer.from_text("ab\ncd")
    torch.manual_seed(0)
    model = build_model(ModelConfig(vocab_size=tok.vocab_size, d_model=8, n_heads=2, d_ff=16, n_layers=1, max_len=16))
    path = tmp_path / "samples.txt"
    callback = run_mod._eval_sampler(tok, None, 5, path)  # no prompt: "\n", which this tokenizer encodes
    trainer = FakeTrainer(model)
    callback("step", trainer)
    assert trainer.written == [] and not path.exists()
    callback("eval", trainer)
    text = sample(model, tok, "\n", 5, temperature=0.8, seed=3)[0]
    assert len(text) == 5
    assert trainer.written == [f"--- sample at step 7 ---\n\n{text}\n---"]
    trainer.step = 9
    callback("eval", trainer)
    assert path.read_text(encoding="utf-8") == f"=== step 7 ===\n\n{text}\n\n=== step 9 ===\n\n{text}\n\n"
    other = sample(model, tok, "\n", 5, temperature=0.8, seed=4)[0]
    assert other != text  # so the seed passed through is seen
    with speaking("zh"):
        callback("eval", trainer)
    assert trainer.written[-1] != trainer.written[0] and text in trainer.written[-1]


def test_the_eval_sampler_starts_from_token_0_when_newline_cannot_be_encoded(tmp_path):
    import torch

    from glassformer.config import ModelConfig
    from glassformer.models import build_model
    from glassformer.text.tokenizers import CharTokenizer

    tok = CharTokenizer.from_text("xyz")
    assert not run_mod._encodable(tok, "\n") and run_mod._encodable(tok, "x") and not run_mod._encodable(tok, "")
    torch.manual_seed(0)
    model = build_model(ModelConfig(vocab_size=tok.vocab_size, d_model=8, n_heads=2, d_ff=16, n_layers=1, max_len=16))
    path = tmp_path / "s.txt"
    trainer = FakeTrainer(model, step=0)
    run_mod._eval_sampler(tok, None, 3, path)("eval", trainer)
    assert path.read_text().startswith(f"=== step 0 ===\n{tok.decode([0])}") and tok.decode([0]) == "x"
    run_mod._eval_sampler(tok, "zz", 3, path)("eval", trainer)  # a prompt given is used as given
    assert path.read_text().split("\n\n")[1].startswith("=== step 0 ===\nzz")


def test_the_eval_translator_lists_the_first_four_val_sources_with_what_was_expected(tmp_path, monkeypatch):
    pairs = pair_source("digits:copy", n_pairs=200, max_digits=3)
    first = pairs.val[:4]
    calls = []

    def fake_translate(model, data, sources):
        calls.append((model, data, sources))
        return [first[0][1], "", "9", first[3][1]]

    monkeypatch.setattr(run_mod, "translate", fake_translate)
    path = tmp_path / "samples.txt"
    callback = run_mod._eval_translator(pairs, path)
    trainer = FakeTrainer("MODEL", step=12)
    callback("train", trainer)
    assert calls == [] and not path.exists()
    callback("eval", trainer)
    assert calls == [("MODEL", pairs, [s for s, _ in first])]
    lines = "\n".join(
        [
            f"{first[0][0]} → {first[0][1]}",
            f"{first[1][0]} → ∅   (expected {first[1][1]})",
            f"{first[2][0]} → 9   (expected {first[2][1]})",
            f"{first[3][0]} → {first[3][1]}",
        ]
    )
    assert trainer.written == [f"--- translations at step 12 ---\n{lines}\n---"]
    callback("eval", trainer)
    assert path.read_text(encoding="utf-8") == f"=== step 12 ===\n{lines}\n\n" * 2


def test_assemble_wires_progress_callbacks_and_the_lock_by_what_the_run_asks(tmp_path):
    import gc

    from glassformer.train import lock

    run = new_run("sine", QUICK, source="sine", out=tmp_path / "a", progress=True)
    assert run.trainer.progress_mode == "bar" and run.trainer.callbacks == []  # numbers: nothing to sample
    assert run.trainer.world is not None and run.trainer.cfg.batch_size == 2 and run.trainer.files is not None
    held = run.lock
    assert held is not None and held.exists()
    del run
    gc.collect()
    assert not held.exists()  # a dropped Run lets the directory go
    quiet = new_run("sine", QUICK, source="sine", out=tmp_path / "a", progress=False)
    assert quiet.trainer.progress_mode == "lines"
    lock.release(quiet.lock)


def test_new_run_defaults_the_source_by_what_the_model_reads_and_names_its_directory(tmp_path, monkeypatch):
    from glassformer.train import lock

    monkeypatch.setattr(run_mod, "RUNS_DIR", tmp_path / "runs")
    monkeypatch.setattr(run_mod.time, "strftime", lambda fmt: "20260101-120000" if fmt == "%Y%m%d-%H%M%S" else "?")
    run = new_run("sine", QUICK, progress=False, text={"tokenizer": None, "vocab_size": None})
    assert run.dir == tmp_path / "runs" / "sine-20260101-120000"
    config = json.loads((run.dir / "config.json").read_text())
    assert config["source"] == "sine" and "text" not in config  # options left unset are not options
    assert isinstance(run.data, WaveData) and run.lock == (run.dir / "train.lock").resolve()
    lock.release(run.lock)


def test_a_bad_device_is_refused_before_any_data_is_opened(tmp_path):
    with pytest.raises(UsageError, match="cuda:99"):
        new_run("sine", ["--device=cuda:99"], source="no-such-corpus", out=tmp_path / "r", progress=False)
    assert not (tmp_path / "r").exists()


def test_a_refused_start_or_resume_lets_the_directory_go(sine_run, tmp_path):
    from glassformer.train import lock

    with pytest.raises(UsageError):
        new_run("sine", QUICK, source="sine", out=sine_run, progress=False)
    assert not (sine_run / "train.lock").exists()
    with pytest.raises(ValueError):
        resume_run(sine_run, source="sine:forecast", progress=False)
    assert not (sine_run / "train.lock").exists()
    held = lock.acquire(sine_run)  # nobody holds it: this process can take it
    lock.release(held)


def test_train_holds_the_lock_and_restores_the_thread_count(sine_run, tmp_path):
    import torch

    run_dir = copy_run(sine_run, tmp_path)
    run = resume_run(run_dir, ["--max_steps=2", "--threads=1"], progress=False)
    seen = []
    run.trainer.callbacks.append(lambda e, t: seen.append((torch.get_num_threads(), (run_dir / "train.lock").exists())))
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        train(run)
        assert seen and all(s == (1, True) for s in seen) and torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
