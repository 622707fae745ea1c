"""Run directories (train/run.py): the resolved config on disk, refusing to overwrite, resume
compatibility; every refusal (en and zh) and what each generated source resolves to; what new_run
assembles on rank 0 (the progress mode, the evaluation sampler and translator, the lock a Run holds and
lets go); the sample written at each evaluation; _refuse_imported and train()'s frame around fit();
the batch source each kind of data trains from; a rank above 0 under torchrun (run._follow, which reads
the run rank 0 announced and writes nothing).

The run directory's lock (acquire, release) counts holders within one process. Bugs guarded: a
release that resets the count instead of lowering it (the lock would then be held forever, or let
go while an outer holder still works in the directory)."""

from __future__ import annotations

import datetime
import errno
import gc
import json
import os
import re
import shutil
import socket
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from helpers import said
from seed_runs import seed_run

from glassformer.config import TrainConfig, get_preset
from glassformer.errors import DamagedFile, GlassformerError, UsageError
from glassformer.messages import speaking, t
from glassformer.models import build_model
from glassformer.sample import sample
from glassformer.text.tokenizers import CharTokenizer, load_tokenizer
from glassformer.train import distributed
from glassformer.train import run as run_mod
from glassformer.train import run as run_module
from glassformer.train.data import PairBatches, PairData, TensorBatches, TextWindows, WaveData, pair_source, wave_source
from glassformer.train.distributed import SINGLE, ProcessWorld, RankSlice
from glassformer.train.record import ReadOnlyRunFiles
from glassformer.train.run import (
    EVAL_SAMPLE_CHARS,
    EVAL_SAMPLE_TEMPERATURE,
    _eval_sampler,
    _refuse_imported,
    batches_for,
    identity,
    load_model,
    new_run,
    open_data,
    resolve,
    resume_run,
    train,
)

# ---- building and resuming runs ------------------------------------------------------------------
QUICK = ["--max_steps=4", "--eval_interval=2", "--eval_iters=1", "--threads=1"]


def make(tmp_path, overrides=QUICK, name="run", preset="seed000"):
    return seed_run(tmp_path, name, overrides, preset)


def test_run_directory_holds_resolved_config_and_every_file(tmp_path):
    run = make(tmp_path, [*QUICK, "--d_model=32", "--lr=3e-3"])
    result = train(run)
    config = json.loads((run.dir / "config.json").read_text())
    tok = load_tokenizer(run.dir / "tokenizer.json")
    assert config["preset"] == "seed000" and config["source"] == "builtin:seed"
    assert config["model"]["d_model"] == 32 and config["train"]["lr"] == 3e-3
    assert config["model"]["vocab_size"] == tok.vocab_size == run.data.tokenizer.vocab_size
    for name in ("model.safetensors", "train_state.pt", "best.safetensors", "metrics.jsonl", "loss.png"):
        assert (run.dir / name).stat().st_size > 0, name
    from matplotlib.image import imread

    plot = (imread(run.dir / "loss.png")[..., :3] * 255).round()  # (H, W, 3); test_train_record checks more
    assert plot.shape == (462, 770, 3) and (abs(plot - [255, 127, 14]) <= 2).all(-1).sum() > 50  # val curve
    records = [json.loads(line) for line in (run.dir / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in records if r["kind"] == "eval"] == [0, 2, 4]
    assert records[-1]["val_loss"] == pytest.approx(result.val_loss)
    model, tokenizer, _ = load_model(run.dir)
    assert model.cfg.d_model == 32 and tokenizer.vocab_size == tok.vocab_size


def test_existing_checkpoint_is_never_overwritten(tmp_path):
    train(make(tmp_path))
    assert keyed(ValueError, make, tmp_path) == ("run.has_checkpoint", {"dir": tmp_path / "run"})


def test_seq_len_longer_than_max_len_is_explained(tmp_path):
    assert keyed(ValueError, make, tmp_path, ["--seq_len=200"]) == (
        "run.seq_len_too_long",
        {"T": 200, "max_len": 128, "source": ""},
    )


def test_vocab_size_comes_from_the_tokenizer(tmp_path):
    key, fields = keyed(ValueError, make, tmp_path, ["--vocab_size=100"])
    assert key == "run.vocab_size_set" and set(fields) == {"vocab_size"}


def test_unknown_override_is_rejected(tmp_path):
    with said() as heard:
        code, fields = keyed(ValueError, make, tmp_path, ["--d_modle=32"])
    assert (code, fields["key"]) == ("config.unknown_key", "d_modle")
    assert heard.carrying(near="d_model") and "--d_model" in fields["hint"]  # the near miss, suggested


def test_resume_may_change_training_but_not_the_model_or_data(tmp_path, capsys):
    run = make(tmp_path)
    train(run)
    with said() as heard:
        key, fields = keyed(
            ValueError,
            resume_run,
            run.dir,
            ["--d_model=32", "--n_layers=3"],
            cache_dir=tmp_path / "cache",
            progress=False,
        )
    assert (key, fields["keys"].split(", ")) == ("run.model_differs", ["d_model", "n_layers"])
    assert [f for f in heard.carrying(key="d_model") if "saved" in f] == [{"key": "d_model", "saved": 64, "asked": 32}]
    assert keyed(ValueError, resume_run, run.dir, source="shakespeare", cache_dir=tmp_path / "cache") == (
        "run.other_source",
        {"dir": run.dir, "saved": "builtin:seed", "source": "shakespeare"},
    )
    other = keyed(ValueError, resume_run, run.dir, preset="baby", cache_dir=tmp_path / "cache")
    assert other[0] == "run.model_differs" and "d_model" in other[1]["keys"]  # another preset: another model
    with said() as heard:
        more = resume_run(run.dir, ["--max_steps=6"], cache_dir=tmp_path / "cache", progress=False, sample_chars=0)
    [line] = heard.worded(changes="max_steps 4 -> 6")  # the change, said once
    assert line in capsys.readouterr().out
    assert train(more).step == 6
    assert json.loads((run.dir / "config.json").read_text())["train"]["max_steps"] == 6


def test_a_run_may_go_into_an_empty_folder_the_user_made(tmp_path):
    (tmp_path / "run").mkdir()
    run = make(tmp_path, ["--max_steps=1", "--eval_interval=1", "--eval_iters=1", "--threads=1"])
    assert train(run).status == "done" and (tmp_path / "run" / "config.json").is_file()


def test_a_start_that_never_saved_leaves_nothing_for_the_next_start(tmp_path):
    """A first start killed before its first checkpoint leaves metrics, samples and a plot; the next
    start in that folder removes all three (else the plot and the log mix two runs)."""
    leftovers = ("metrics.jsonl", "samples.txt", "loss.png")
    (tmp_path / "run").mkdir()
    for name in leftovers:
        (tmp_path / "run" / name).write_text("from a start that never saved")
    make(tmp_path, QUICK)
    assert not any((tmp_path / "run" / name).exists() for name in leftovers)


def test_resuming_a_run_saved_for_a_missing_device_says_where_the_device_came_from(tmp_path):
    run = make(tmp_path, ["--max_steps=1", "--eval_interval=1", "--eval_iters=1", "--threads=1"])
    train(run)
    config = json.loads((run.dir / "config.json").read_text())
    config["train"]["device"] = "cuda:99"  # no machine has a hundredth GPU
    (run.dir / "config.json").write_text(json.dumps(config))
    key, fields = keyed(ValueError, resume_run, run.dir)
    assert (key, fields["path"], fields["device"]) == ("run.saved_device", run.dir / "config.json", "cuda:99")
    assert fields["problem"].code == "device.no_cuda"


# ---- refusals, and what each generated source resolves to ----------------------------------------
PAIRED = run_mod._reads("seq2seq")  # what a seq2seq model reads (its class's `inputs`): a name, not words
PAIRS = "['digits:copy', 'digits:reverse', 'digits:sort', 'numbers:num2zh', 'numbers:zh2num']"


def refusal(kind, call, *args, **kw) -> str:
    with pytest.raises(kind) as e:
        call(*args, **kw)
    return str(e.value)


def expected_note(heard, target) -> str:
    """The one note `heard` said of what a wrong translation should have been, as it reads now."""
    [note] = heard.worded(target=target)
    return note


def keyed(kind, call, *args, **kw) -> tuple[str, dict]:
    """The key and fields of the error `call` raises: what a test pins (the words are the catalogue's)."""
    with pytest.raises(kind) as e:
        call(*args, **kw)
    return e.value.key, e.value.fields


def test_tokenizer_options_for_a_generated_source_are_refused_in_both_languages():
    assert keyed(UsageError, open_data, "sine", "numbers", None, {"tokenizer": "bpe"}) == (
        "run.tokenizer_options",
        {"inputs": "numbers"},
    )
    with speaking("zh"):
        zh = keyed(UsageError, open_data, "numbers:zh2num", PAIRED, None, {"vocab_size": 9})
    assert zh == ("run.tokenizer_options", {"inputs": PAIRED})


def test_a_source_of_the_wrong_family_names_the_choices_and_the_preset_to_use():
    numbers, pairs = ["sine", "sine:forecast"], sorted(eval(PAIRS))

    # what each family makes and the preset it needs: the module's own (English) table, worded on raising
    made = {reads: (what, use) for reads, (what, _, _, use) in run_mod.GENERATED.items()}

    def wrong(source, reads, names):
        return ("run.wrong_source", {"what": t(made[reads][0]), "names": names, "source": source})

    def other(source, makes, inputs):
        what, use = made[makes]
        return ("run.source_for_other", {"source": source, "what": t(what), "inputs": inputs, "use": t(use)})

    assert sorted(made) == sorted(["numbers", PAIRED])
    for lang in ("en", "zh"):  # `what` and `use` are worded when raised, in the language of that moment
        with speaking(lang):
            assert keyed(ValueError, open_data, "shakespeare", "numbers") == wrong("shakespeare", "numbers", numbers)
            assert keyed(ValueError, open_data, "sine", PAIRED) == other("sine", "numbers", PAIRED)
            assert keyed(ValueError, open_data, "shakespeare", PAIRED) == wrong("shakespeare", PAIRED, pairs)
            assert keyed(ValueError, open_data, "sine", "tokens") == other("sine", "numbers", "tokens")
            assert keyed(ValueError, open_data, "digits:copy", "numbers") == wrong("digits:copy", "numbers", numbers)
            assert keyed(ValueError, open_data, "digits:sort", "tokens") == other("digits:sort", PAIRED, "tokens")
            assert keyed(ValueError, open_data, "x", PAIRED) == wrong("x", PAIRED, pairs)


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
    assert keyed(ValueError, resolve, get_preset("sine"), ["--max_len=49"], waves) == (
        "run.sequences_too_long",
        {"T": 50, "max_len": 49, "source": "sine"},
    )
    assert resolve(get_preset("sine"), ["--max_len=50"], waves).model.max_len == 50  # the edge fits
    pairs = pair_source("digits:copy", n_pairs=200, max_digits=3)  # sources and targets of 3 tokens
    assert keyed(ValueError, resolve, get_preset("seq2seq"), {"max_len": 3}, pairs) == (
        "run.pairs_too_long",
        {"source": "digits:copy", "S": 3, "T": 3, "max_len": 3, "need": 4},
    )
    p = resolve(get_preset("seq2seq"), {"max_len": 4}, pairs)  # the edge: target + 1 = max_len
    assert p.model.max_len == 4 and p.model.pad_id == pairs.tokenizer.pad_id
    assert p.model.vocab_size == pairs.tokenizer.vocab_size
    with speaking("zh"):
        assert keyed(ValueError, resolve, get_preset("seq2seq"), ["--pad_id=5"], pairs) == (
            "run.pad_id_set",
            {"pad_id": pairs.tokenizer.pad_id},
        )
    assert keyed(ValueError, resolve, get_preset("seq2seq"), ["--vocab_size=30"], pairs) == (
        "run.vocab_size_set",
        {"vocab_size": pairs.tokenizer.vocab_size},
    )


def test_resolve_refuses_a_missing_device_before_any_training():
    with pytest.raises(UsageError, match="cuda:99"):
        resolve(get_preset("sine"), ["--device=cuda:99"], wave_source("sine"))


QUICK_ONE = ["--max_steps=1", "--eval_interval=1", "--eval_iters=1", "--threads=1", "--batch_size=2"]


def test_out_that_is_a_file_is_refused_before_anything_is_written(tmp_path):
    out = tmp_path / "taken"
    out.write_text("x")
    refused = keyed(UsageError, new_run, "sine", QUICK_ONE, source="sine", out=out, progress=False)
    assert refused == ("run.out_is_file", {"dir": out})
    assert out.read_text() == "x"


@pytest.fixture(scope="module")
def sine_run(tmp_path_factory):
    """A one-step sine run, trained and saved (about a second)."""
    out = tmp_path_factory.mktemp("sine") / "run"
    run = new_run("sine", QUICK_ONE, source="sine", out=out, progress=False)
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
    refused = keyed(UsageError, new_run, "sine", QUICK_ONE, source="sine", out=sine_run, progress=False)
    assert refused == ("run.has_checkpoint", {"dir": sine_run})


def test_a_run_saved_by_an_earlier_version_still_loads_and_resumes(sine_run, tmp_path):
    """config.json as earlier versions wrote it: the sine preset's vocab_size=1 (there only to pass a
    check), every kind's fields at their old defaults, and the training window called block_size."""
    run_dir = copy_run(sine_run, tmp_path)
    config = json.loads((run_dir / "config.json").read_text())
    config["model"].update(vocab_size=1, tie_weights=False, share_embeddings=False, pad_id=None, d_in=1, d_out=1)
    config["train"]["block_size"] = config["train"].pop("seq_len")
    (run_dir / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    model, tokenizer, _ = load_model(run_dir)
    assert (model.cfg.kind, model.cfg.vocab_size, model.cfg.d_in, tokenizer) == ("regressor", 0, 1, None)
    run = resume_run(run_dir, ["--max_steps=2"], progress=False)
    assert (run.trainer.cfg.seq_len, run.trainer.cfg.max_steps) == (get_preset("sine").train.seq_len, 2)
    assert train(run).step == 2
    rewritten = json.loads((run_dir / "config.json").read_text())["train"]  # resume wrote the changed settings
    assert "block_size" not in rewritten and rewritten["seq_len"] == get_preset("sine").train.seq_len


def test_resume_without_a_source_in_config_is_a_damaged_file(sine_run, tmp_path):
    run_dir = copy_run(sine_run, tmp_path)
    config = json.loads((run_dir / "config.json").read_text())
    del config["source"]
    (run_dir / "config.json").write_text(json.dumps(config))
    assert keyed(DamagedFile, resume_run, run_dir, progress=False) == (
        "run.no_source",
        {"path": run_dir / "config.json"},
    )


def test_resume_of_a_source_this_version_cannot_open_names_it(sine_run, tmp_path):
    run_dir = copy_run(sine_run, tmp_path)
    config = json.loads((run_dir / "config.json").read_text())
    config["source"] = "sine:daily"
    (run_dir / "config.json").write_text(json.dumps(config))
    key, fields = keyed(DamagedFile, resume_run, run_dir, progress=False)
    assert (key, fields["dir"], fields["source"]) == ("run.source_gone", run_dir, "sine:daily")
    assert (fields["problem"].code, fields["problem"].fields) == (
        "run.wrong_source",
        {"what": t("numbers"), "names": ["sine", "sine:forecast"], "source": "sine:daily"},
    )


def test_resume_with_changed_data_names_the_fingerprint_that_differs(sine_run, tmp_path):
    run_dir = copy_run(sine_run, tmp_path)
    config = json.loads((run_dir / "config.json").read_text())
    config["data_sha256"] = "0" * 64
    (run_dir / "config.json").write_text(json.dumps(config))
    changed = ("run.data_changed", {"dir": run_dir, "source": "sine", "key": "data_sha256"})
    assert keyed(ValueError, resume_run, run_dir, progress=False) == changed
    with speaking("zh"):
        assert str(run_dir) in refusal(ValueError, resume_run, run_dir, progress=False)


def test_resume_with_another_source_and_another_model_names_each_field(sine_run, tmp_path):
    run_dir = copy_run(sine_run, tmp_path)
    assert keyed(ValueError, resume_run, run_dir, source="sine:forecast", progress=False) == (
        "run.other_source",
        {"dir": run_dir, "saved": "sine", "source": "sine:forecast"},
    )

    def item(key, saved, asked):  # one item of the detail, as said when refused (found by its fields)
        [words] = heard.worded(key=key, saved=saved, asked=asked)
        return words

    with said() as heard:
        assert keyed(ValueError, resume_run, run_dir, ["--d_ff=64"], progress=False) == (
            "run.model_differs",
            {"dir": run_dir, "keys": "d_ff", "detail": item("d_ff", 128, 64)},
        )
    with said() as heard:
        assert keyed(ValueError, resume_run, run_dir, {"d_ff": 64, "n_heads": 2}, progress=False) == (
            "run.model_differs",
            {
                "dir": run_dir,
                "keys": ", ".join(["n_heads", "d_ff"]),
                "detail": f"{item('n_heads', 4, 2)}, {item('d_ff', 128, 64)}",
            },
        )


def test_resume_with_changed_training_says_each_change_and_rewrites_the_train_config(sine_run, tmp_path, capsys):
    run_dir = copy_run(sine_run, tmp_path)
    before = json.loads((run_dir / "config.json").read_text())
    with said() as heard:
        run = resume_run(run_dir, ["--max_steps=2", "--lr=0.002"], progress=False)
    # two lines: each change, then the learning rate before and after the resume (and nothing else)
    lines = heard.worded(changes="max_steps 1 -> 2, lr 0.001 -> 0.002") + heard.worded(
        before=0.001, after=0.002, step=1, next=2, end=""
    )
    assert capsys.readouterr().out == "".join(line + "\n" for line in lines) and len(lines) == 2
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
    with said() as heard:
        callback("eval", trainer)
    text = sample(model, tok, "\n", 5, temperature=0.8, seed=3)[0]
    assert len(text) == 5
    assert trainer.written == heard.worded(step=7, text="\n" + text) != []  # the sample, with its step
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
    with said() as heard:
        callback("eval", trainer)
    assert calls == [("MODEL", pairs, [s for s, _ in first])]
    lines = "\n".join(
        [
            f"{first[0][0]} → {first[0][1]}",
            f"{first[1][0]} → ∅" + expected_note(heard, first[1][1]),
            f"{first[2][0]} → 9" + expected_note(heard, first[2][1]),
            f"{first[3][0]} → {first[3][1]}",
        ]
    )
    assert trainer.written == heard.worded(step=12, lines=lines) != []
    callback("eval", trainer)
    assert path.read_text(encoding="utf-8") == f"=== step 12 ===\n{lines}\n\n" * 2


def test_assemble_wires_progress_callbacks_and_the_lock_by_what_the_run_asks(tmp_path):
    import gc

    run = new_run("sine", QUICK_ONE, source="sine", out=tmp_path / "a")  # progress by default (sample P's survivor)
    assert run.trainer.progress_mode == "bar" and run.trainer.callbacks == []  # numbers: nothing to sample
    assert run.trainer.world is not None and run.trainer.cfg.batch_size == 2 and run.trainer.files is not None
    held = run.lock
    assert held is not None and held.exists()
    del run
    gc.collect()
    assert not held.exists()  # a dropped Run lets the directory go
    quiet = new_run("sine", QUICK_ONE, source="sine", out=tmp_path / "a", progress=False)
    assert quiet.trainer.progress_mode == "lines"
    run_module.release(quiet.lock)


def test_new_run_defaults_the_source_by_what_the_model_reads_and_names_its_directory(tmp_path, monkeypatch):
    monkeypatch.setattr(run_mod, "RUNS_DIR", tmp_path / "runs")
    monkeypatch.setattr(run_mod.time, "strftime", lambda fmt: "20260101-120000" if fmt == "%Y%m%d-%H%M%S" else "?")
    run = new_run("sine", QUICK_ONE, progress=False, text={"tokenizer": None, "vocab_size": None})
    assert run.dir == tmp_path / "runs" / "sine-20260101-120000"
    config = json.loads((run.dir / "config.json").read_text())
    assert config["source"] == "sine" and "text" not in config  # options left unset are not options
    assert isinstance(run.data, WaveData) and run.lock == (run.dir / "train.lock").resolve()
    run_module.release(run.lock)


def test_a_bad_device_is_refused_before_any_data_is_opened(tmp_path):
    with pytest.raises(UsageError, match="cuda:99"):
        new_run("sine", ["--device=cuda:99"], source="no-such-corpus", out=tmp_path / "r", progress=False)
    assert not (tmp_path / "r").exists()


def test_a_refused_start_or_resume_lets_the_directory_go(sine_run, tmp_path):
    with pytest.raises(UsageError):
        new_run("sine", QUICK_ONE, source="sine", out=sine_run, progress=False)
    assert not (sine_run / "train.lock").exists()
    with pytest.raises(ValueError):
        resume_run(sine_run, source="sine:forecast", progress=False)
    assert not (sine_run / "train.lock").exists()
    held = run_module.acquire(sine_run)  # nobody holds it: this process can take it
    run_module.release(held)


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


# ---- more refusals: generated data, pad_id, --out, a resume whose data moved ---------------------
QUICK_TINY = ["--max_steps=1", "--eval_interval=1", "--eval_iters=1", "--threads=1", "--batch_size=2", "--seq_len=8"]


def in_both_languages(call, error=Exception):
    """The message `call` raises, in English and in Chinese."""
    out = []
    for lang in ("en", "zh"):
        with speaking(lang), pytest.raises(error) as e:
            call()
        out.append(str(e.value))
    return tuple(out)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("saved")
    train(seed_run(tmp, "run", QUICK_TINY))
    return tmp / "run", tmp / "cache"


def copy_with(saved, tmp_path, change):
    run_dir, cache = saved
    shutil.copytree(run_dir, tmp_path / "run")
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    change(config)
    (tmp_path / "run" / "config.json").write_text(json.dumps(config))
    return tmp_path / "run", cache


def test_tokenizer_options_are_refused_for_a_model_that_reads_generated_numbers():
    for inputs in ("numbers", "token pairs"):
        assert keyed(UsageError, open_data, "sine", inputs, text={"tokenizer": "bpe"}) == (
            "run.tokenizer_options",
            {"inputs": inputs},
        )


def test_pad_id_comes_from_the_tokenizer_and_may_not_be_set():
    data = open_data("numbers:zh2num", "token pairs")
    pad = data.tokenizer.pad_id
    preset = get_preset("seq2seq")
    assert keyed(ValueError, resolve, preset, {"pad_id": pad + 1}, data) == ("run.pad_id_set", {"pad_id": pad})
    assert resolve(preset, {"pad_id": pad}, data).model.pad_id == pad  # the same value is no conflict


def test_out_naming_a_file_is_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    assert keyed(
        UsageError,
        new_run,
        "seed000",
        QUICK_TINY,
        source="builtin:seed",
        out=tmp_path / "notes.txt",
        cache_dir=tmp_path / "cache",
        progress=False,
    ) == ("run.out_is_file", {"dir": tmp_path / "notes.txt"})
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_a_damaged_config_beside_a_checkpoint_still_says_resume_or_choose_another_directory(saved, tmp_path):
    run_dir, cache = saved
    shutil.copytree(run_dir, tmp_path / "run")
    (tmp_path / "run" / "config.json").write_text("{")
    d = tmp_path / "run"
    # snapshot: the refusal a learner meets most (a second start in the same --out), in both languages
    assert in_both_languages(
        lambda: new_run("seed000", QUICK_TINY, source="builtin:seed", out=d, cache_dir=cache, progress=False),
        UsageError,
    ) == (
        f"{d} already holds a checkpoint. Continue it with --resume {d}, or choose another directory with --out DIR.",
        f"{d} 里已经有检查点。用 --resume {d} 继续它，或用 --out DIR 换一个目录。",
    )
    assert not (d / "train.lock").exists()  # the refused start let the directory go


def test_a_resume_without_a_source_in_config_json_is_refused(saved, tmp_path):
    d, cache = copy_with(saved, tmp_path, lambda c: c.pop("source"))
    assert keyed(DamagedFile, resume_run, d, cache_dir=cache, progress=False) == (
        "run.no_source",
        {"path": d / "config.json"},
    )


def test_a_resume_whose_source_cannot_be_opened_names_it_and_why(saved, tmp_path):
    d, cache = copy_with(saved, tmp_path, lambda c: c.update(source="sine"))  # numbers, for a token model
    with pytest.raises(ValueError) as why:
        open_data("sine", "tokens", cache)
    key, fields = keyed(DamagedFile, resume_run, d, cache_dir=cache, progress=False)
    assert (key, fields["dir"], fields["source"]) == ("run.source_gone", d, "sine")
    assert (fields["problem"].key, fields["problem"].fields) == (why.value.key, why.value.fields)  # and why
    with pytest.raises(DamagedFile) as e:
        resume_run(d, cache_dir=cache, progress=False)
    assert e.value.__cause__ is None and e.value.__suppress_context__


def test_a_resume_on_changed_data_names_the_field_that_differs(saved, tmp_path):
    d, cache = copy_with(saved, tmp_path, lambda c: c.update(text_sha256="0" * 64))
    assert keyed(ValueError, resume_run, d, cache_dir=cache, progress=False) == (
        "run.data_changed",
        {"dir": d, "source": "builtin:seed", "key": "text_sha256"},
    )
    assert not (d / "train.lock").exists()


def test_a_resume_that_changes_the_model_names_each_field_saved_and_asked(saved, tmp_path):
    d, cache = copy_with(saved, tmp_path, lambda c: None)
    config = json.loads((d / "config.json").read_text())["model"]
    dm, nl = config["d_model"], config["n_layers"]
    asked = [f"--d_model={dm * 2}", f"--n_layers={nl + 1}"]
    details = []
    for lang in ("en", "zh"):  # each item is worded when raised, in the language of that moment
        with speaking(lang), said() as heard:
            refused = keyed(ValueError, resume_run, d, asked, cache_dir=cache, progress=False)
            items = [
                heard.worded(key=k, saved=a, asked=b) for k, a, b in (("d_model", dm, dm * 2), ("n_layers", nl, nl + 1))
            ]
            assert [len(i) for i in items] == [1, 1]  # each field said once, with what was saved and asked
            assert refused == (
                "run.model_differs",
                {"dir": d, "keys": ", ".join(["d_model", "n_layers"]), "detail": ", ".join(i[0] for i in items)},
            )
        details.append(refused[1]["detail"])
    assert details[0] != details[1] and re.search("[\u4e00-\u9fff]", details[1])  # worded in Chinese


def test_a_resume_with_new_training_settings_says_each_change_rewrites_config_and_announces_a_resume(
    saved, tmp_path, capsys, monkeypatch
):
    from glassformer.train import distributed

    class Announcing(distributed.World):
        heard: list = []

        def announce(self, run_dir, resumed: bool) -> None:
            self.heard.append((run_dir, resumed))

    monkeypatch.setattr(distributed, "_world", Announcing())
    d, cache = copy_with(saved, tmp_path, lambda c: None)
    before = json.loads((d / "config.json").read_text())
    lr = before["train"]["lr"]
    with speaking("zh"), said() as heard:
        run = resume_run(d, ["--max_steps=5", f"--lr={lr * 2}"], cache_dir=cache, progress=False, sample_chars=0)
        lines = heard.worded(changes=f"max_steps 1 -> 5, lr {lr!r} -> {lr * 2!r}") + heard.worded(
            before=lr, after=lr * 2, step=1, next=2, end=""
        )  # worded in Chinese, as said
    assert capsys.readouterr().out == "".join(line + "\n" for line in lines) and len(lines) == 2
    assert all(re.search("[\u4e00-\u9fff]", line) for line in lines)
    after = json.loads((d / "config.json").read_text())
    assert after == {**before, "train": {**before["train"], "max_steps": 5, "lr": lr * 2}}
    assert Announcing.heard == [(d, True)] and run.trainer.step == 1 and run.lock is not None
    del run
    again = resume_run(d, cache_dir=cache, progress=False, sample_chars=0)  # nothing changed: nothing said
    assert again.trainer.step == 1
    assert capsys.readouterr().out == "" and json.loads((d / "config.json").read_text()) == after


def test_a_source_for_another_kind_of_model_is_refused_with_the_preset_to_use():
    cases = [
        ("shakespeare", "numbers", "run.wrong_source"),
        ("digits:copy", "numbers", "run.wrong_source"),
        ("shakespeare", PAIRED, "run.wrong_source"),
        ("sine", PAIRED, "run.source_for_other"),
        ("sine", "tokens", "run.source_for_other"),
        ("digits:copy", "tokens", "run.source_for_other"),
    ]
    for source, inputs, code in cases:
        assert keyed(ValueError, open_data, source, inputs)[0] == code, (source, inputs)
        en, zh = in_both_languages(lambda source=source, inputs=inputs: open_data(source, inputs), ValueError)
        assert repr(source) in en or f"--data {source}" in en  # the source named, in both languages
        assert en != zh and re.search("[\u4e00-\u9fff]", zh) and source in zh
        if code == "run.source_for_other":  # and the preset that reads what it makes
            assert "--preset" in en and "--preset" in zh


def test_what_the_data_fixes_may_not_be_set_and_must_fit_max_len(saved):
    _, cache = saved
    text = open_data("builtin:seed", "tokens", cache)
    V = text.tokenizer.vocab_size
    assert keyed(ValueError, resolve, get_preset("seed000"), {"vocab_size": V + 1}, text) == (
        "run.vocab_size_set",
        {"vocab_size": V},
    )
    assert keyed(ValueError, resolve, get_preset("seed000"), {"max_len": 8, "seq_len": 9}, text) == (
        "run.seq_len_too_long",
        {"T": 9, "max_len": 8, "source": ""},
    )
    p = resolve(get_preset("seed000"), {"max_len": 8, "seq_len": 8}, text)  # the edge fits
    assert (p.model.max_len, p.train.seq_len, p.model.vocab_size) == (8, 8, V)
    waves = open_data("sine", "numbers")
    T = waves.x_train.size(1)
    assert keyed(ValueError, resolve, get_preset("sine"), {"max_len": T - 1}, waves) == (
        "run.sequences_too_long",
        {"T": T, "max_len": T - 1, "source": "sine"},
    )
    assert resolve(get_preset("sine"), {"max_len": T}, waves).model.max_len == T
    pairs = open_data("numbers:zh2num", "token pairs")
    S, Tt = pairs.longest()
    need = max(S, Tt + 1)
    assert keyed(ValueError, resolve, get_preset("seq2seq"), {"max_len": need - 1}, pairs) == (
        "run.pairs_too_long",
        {"source": "numbers:zh2num", "S": S, "T": Tt, "max_len": need - 1, "need": need},
    )
    assert resolve(get_preset("seq2seq"), {"max_len": need}, pairs).model.pad_id == pairs.tokenizer.pad_id


def test_a_resume_on_another_source_or_a_missing_device_is_refused_whole(saved, tmp_path):
    d, cache = copy_with(saved, tmp_path, lambda c: c["train"].update(device="cuda:99"))
    assert keyed(ValueError, resume_run, d, source="shakespeare", cache_dir=cache) == (
        "run.other_source",
        {"dir": d, "saved": "builtin:seed", "source": "shakespeare"},
    )
    from glassformer.devices import check_device

    with pytest.raises(UsageError) as why:
        check_device("cuda:99")
    key, fields = keyed(UsageError, resume_run, d, cache_dir=cache)
    assert (key, fields["path"], fields["device"]) == ("run.saved_device", d / "config.json", "cuda:99")
    assert (fields["problem"].key, fields["problem"].fields) == (why.value.key, why.value.fields)
    run = resume_run(d, ["--device=cpu"], cache_dir=cache, progress=False, sample_chars=0)  # the way out works
    assert run.trainer.cfg.device == "cpu" and run.trainer.step == 1


# ---- what new_run assembles on rank 0 ------------------------------------------------------------
def start(tmp_path, name, **kwargs):
    return new_run(
        "seed000", QUICK_TINY, source="builtin:seed", out=tmp_path / name, cache_dir=tmp_path / "cache", **kwargs
    )


def test_rank_0_gets_a_sampler_with_the_runs_prompt_and_length_and_the_progress_it_asked_for(tmp_path):
    run = start(tmp_path, "a", progress=True, prompt="ab", sample_chars=7)
    assert run.trainer.progress_mode == "bar" and len(run.trainer.callbacks) == 1
    shown = []
    run.trainer.progress = SimpleNamespace(write=shown.append)
    with said() as heard:
        run.trainer.callbacks[0]("eval", run.trainer)
    kept = (run.dir / "samples.txt").read_text(encoding="utf-8")
    assert kept.startswith("=== step 0 ===\nab") and kept.endswith("\n\n")
    text = kept[len("=== step 0 ===\n") : -2]
    assert len(run.data.tokenizer.encode(text)) == 2 + 7 and shown == heard.worded(step=0, text=text) != []
    lines = start(tmp_path, "b", progress=False)  # default sample length: a sampler too
    assert lines.trainer.progress_mode == "lines" and len(lines.trainer.callbacks) == 1
    none = start(tmp_path, "c", progress=False, sample_chars=0)
    assert none.trainer.callbacks == []


def test_a_run_holds_its_directory_until_it_is_dropped(tmp_path):
    run = start(tmp_path, "d", progress=False, sample_chars=0)
    path = (tmp_path / "d" / run_module.LOCK_FILE).resolve()
    assert run.lock == path and path.is_file() and run_module._held[str(path)][1] == 1
    del run
    gc.collect()
    assert not path.exists() and str(path) not in run_module._held


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
        keys = ["preset", "about", "source", *(["text"] if text else []), "text_sha256", "example", "model", "train"]
        assert list(run.config) == keys and run.config["about"] == get_preset("seed000").about
        opening = run.data.tokenizer.decode([int(i) for i in run.data.train[:48]])  # the explorer's first input:
        assert run.config["example"] in [line.strip() for line in opening.splitlines()] and run.config["example"]
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
        QUICK_TINY,
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


# ---- the sample a run writes at each evaluation --------------------------------------------------
def model_for(tok):
    torch.manual_seed(0)
    cfg = get_preset("seed000").model
    cfg.vocab_size = tok.vocab_size
    model = build_model(cfg).eval()
    with torch.no_grad():
        for p in model.parameters():
            p.mul_(4)  # logits far from uniform: another temperature draws other text
    return model


def trainer(model, step, seed=11):
    shown = []
    return SimpleNamespace(
        model=model, step=step, cfg=SimpleNamespace(seed=seed), progress=SimpleNamespace(write=shown.append)
    ), shown


def test_each_evaluation_shows_and_keeps_a_seeded_sample(tmp_path):
    assert (EVAL_SAMPLE_CHARS, EVAL_SAMPLE_TEMPERATURE) == (200, 0.8)
    tok = CharTokenizer.from_text("ab c\nde")
    model, path = model_for(tok), tmp_path / "samples.txt"
    on_event = _eval_sampler(tok, None, 30, path)
    t3, shown = trainer(model, 3)
    on_event("step", t3)
    assert shown == [] and not path.exists()  # only evaluations sample
    expected = sample(model, tok, "\n", 30, temperature=0.8, seed=11)[0]
    assert expected != sample(model, tok, "\n", 30, temperature=0.1, seed=11)[0]  # the temperature tells
    with said() as heard:
        on_event("eval", t3)
    assert shown == heard.worded(step=3, text="\n" + expected) != []
    t5, shown5 = trainer(model, 5)
    with speaking("zh"), said() as heard:
        on_event("eval", t5)
        assert shown5 == heard.worded(step=5, text="\n" + expected) != []  # in the language of that moment
    assert re.search("[\u4e00-\u9fff]", shown5[0].replace(expected, "")) and shown5[0] != shown[0]
    assert path.read_text(encoding="utf-8") == f"=== step 3 ===\n\n{expected}\n\n=== step 5 ===\n\n{expected}\n\n"
    other, shown_other = trainer(model, 3, seed=12)
    on_event("eval", other)
    assert shown_other[0] != shown[0]  # the run's seed, not a fixed one


def test_a_vocabulary_without_a_newline_starts_from_its_first_token_or_the_given_prompt(tmp_path):
    tok = CharTokenizer.from_text("xyz")
    model = model_for(tok)
    t0, shown = trainer(model, 0)
    with said() as heard:
        _eval_sampler(tok, None, 5, tmp_path / "a.txt")("eval", t0)
    first = (tmp_path / "a.txt").read_text().removeprefix("=== step 0 ===\n")[:-2]
    assert first.startswith("x") and shown == heard.worded(step=0, text=first) != []
    t0, shown = trainer(model, 0)
    with said() as heard:
        _eval_sampler(tok, "zy", 5, tmp_path / "b.txt")("eval", t0)
    text = sample(model, tok, "zy", 5, temperature=0.8, seed=11)[0]
    assert shown == heard.worded(step=0, text="zy" + text) != []


def test_each_evaluation_of_a_seq2seq_run_translates_the_first_four_val_sources(tmp_path, monkeypatch):
    from glassformer.train import run as run_module
    from glassformer.train.run import _eval_translator

    data = SimpleNamespace(val=[("一", "1"), ("二", "2"), ("三", "3"), ("四", "4"), ("五", "5")])
    asked = []
    monkeypatch.setattr(
        run_module, "translate", lambda model, d, sources: asked.append((model, d, sources)) or ["1", "", "33", "4"]
    )
    path = tmp_path / "samples.txt"
    on_event = _eval_translator(data, path)
    t3, shown = trainer("MODEL", 3)
    on_event("step", t3)
    assert asked == [] and shown == [] and not path.exists()
    with said() as heard:
        on_event("eval", t3)
    assert asked == [("MODEL", data, ["一", "二", "三", "四"])]
    lines = f"一 → 1\n二 → ∅{expected_note(heard, '2')}\n三 → 33{expected_note(heard, '3')}\n四 → 4"
    assert shown == heard.worded(step=3, lines=lines) != []
    t4, shown4 = trainer("MODEL", 4)
    with speaking("zh"), said() as heard:
        on_event("eval", t4)
        lines_zh = f"一 → 1\n二 → ∅{expected_note(heard, '2')}\n三 → 33{expected_note(heard, '3')}\n四 → 4"
        assert shown4 == heard.worded(step=4, lines=lines_zh) != []
    assert lines_zh != lines  # the notes were worded in Chinese, the language of that moment
    assert path.read_text(encoding="utf-8") == f"=== step 3 ===\n{lines}\n\n=== step 4 ===\n{lines_zh}\n\n"


# ---- an imported model, and train()'s frame around fit() -----------------------------------------
@pytest.mark.parametrize(
    "imported, fmt, origin, origin_zh",
    [
        ({"from": "gpt2 (Hugging Face)", "format": "gpt2"}, "gpt2", "gpt2 (Hugging Face)", "gpt2 (Hugging Face)"),
        ({}, "gpt2", "elsewhere", "别处"),
        ({"format": "llama", "from": ""}, "llama", "elsewhere", "别处"),
    ],
)
def test_an_imported_model_is_refused_with_how_to_train_it_further(tmp_path, imported, fmt, origin, origin_zh):
    d, config = tmp_path / "imp", {"model": {}, "imported": imported}
    with pytest.raises(UsageError) as e:
        _refuse_imported(d, config)
    assert (e.value.code, e.value.fields) == ("run.imported", {"dir": d, "format": fmt, "origin": origin})
    with speaking("zh"), pytest.raises(UsageError) as e:
        _refuse_imported(d, config)
    assert (e.value.code, e.value.fields) == ("run.imported", {"dir": d, "format": fmt, "origin": origin_zh})


@pytest.mark.parametrize("config", [None, {"source": "x", "imported": {"from": "hub"}}, {"imported": "gpt2"}, {}])
def test_a_training_run_or_an_unreadable_config_is_not_called_imported(tmp_path, config):
    assert _refuse_imported(tmp_path, config) is None


class SilentRank1(ProcessWorld):
    def __init__(self):
        super().__init__(1, 1, 2)


@pytest.mark.parametrize("world, locked", [(SINGLE, True), (SilentRank1(), False)])
def test_train_holds_the_lock_on_rank_0_only_and_uses_the_runs_threads(tmp_path, world, locked):
    seen = []

    def fit():
        seen.append(((tmp_path / run_module.LOCK_FILE).is_file(), torch.get_num_threads()))
        return "result"

    before = torch.get_num_threads()
    threads = 2 if before != 2 else 3
    run = SimpleNamespace(
        dir=tmp_path, trainer=SimpleNamespace(world=world, cfg=SimpleNamespace(threads=threads), fit=fit)
    )
    assert train(run) == "result" and seen == [(locked, threads)]
    assert not (tmp_path / run_module.LOCK_FILE).exists() and torch.get_num_threads() == before


def test_train_on_a_rank_whose_peer_ended_says_so_in_one_line_and_lets_the_lock_go(tmp_path):
    gone = RuntimeError("[../gloo/transport/tcp/pair.cc:534] Connection closed by peer")  # gloo's own words

    def fit():
        raise gone

    run = SimpleNamespace(
        dir=tmp_path, trainer=SimpleNamespace(world=SilentRank1(), cfg=SimpleNamespace(threads=1), fit=fit)
    )
    with pytest.raises(GlassformerError) as e:
        train(run)
    assert (e.value.code, e.value.fields) == ("world.peer_stopped", {"rank": 1})
    failing = SimpleNamespace(
        dir=tmp_path, trainer=SimpleNamespace(world=SINGLE, cfg=SimpleNamespace(threads=1), fit=fit)
    )
    with pytest.raises(RuntimeError) as e:  # one process: left as it is
        train(failing)
    assert e.value is gone
    held = str((tmp_path / run_module.LOCK_FILE).resolve())
    assert not (tmp_path / run_module.LOCK_FILE).exists() and held not in run_module._held


# ---- the batch source each kind of data trains from ----------------------------------------------
def test_pairs_become_padded_bos_eos_batches_with_eval_iters_times_batch_size_rows():
    data = open_data("digits:copy", "token pairs")
    tok = data.tokenizer
    b = batches_for(data, TrainConfig(batch_size=3, eval_iters=2))
    assert isinstance(b, PairBatches) and (b.batch_size, b.eval_rows, b.pad_id, b.device) == (3, 6, tok.pad_id, "cpu")
    for split in ("train", "val"):
        (s0, t0), (src, tgt) = data.encoded(split)[0], b.data[split]
        assert len(src) == len(data.encoded(split))
        assert src[0, : len(s0)].tolist() == list(s0) and tgt[0, : len(t0) + 2].tolist() == [
            tok.bos_id,
            *t0,
            tok.eos_id,
        ]
        assert (tgt[0, len(t0) + 2 :] == tok.pad_id).all()


def test_numbers_become_shuffled_tensor_batches_with_their_own_val_split():
    data = open_data("sine", "numbers")
    b = batches_for(data, TrainConfig(batch_size=5, eval_iters=3))
    assert isinstance(b, TensorBatches) and (b.batch_size, b.shuffle, b.eval_iters) == (5, True, 3)
    assert torch.equal(b.inputs, data.x_train) and torch.equal(b.targets, data.y_train)
    assert torch.equal(b.val[0], data.x_val) and torch.equal(b.val[1], data.y_val) and b.splits == ("train", "val")


def test_text_becomes_windows_of_the_configured_size(tmp_path):
    data = open_data("builtin:seed", "tokens", tmp_path)
    b = batches_for(data, TrainConfig(batch_size=4, seq_len=6, eval_iters=2))
    x, y = b.train_batch(torch.Generator().manual_seed(0))
    assert isinstance(b, TextWindows) and x.shape == y.shape == (4, 6) and torch.equal(x[:, 1:], y[:, :-1])
    assert len(list(b.eval_batches("val"))) == 2


# ---- a rank above 0 under torchrun ---------------------------------------------------------------
QUICK_RANKS = [
    "--max_steps=2",
    "--eval_interval=2",
    "--eval_iters=1",
    "--threads=1",
    "--batch_size=4",
    "--seq_len=3",
]


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
    run0 = seed_run(tmp, "run", QUICK_RANKS, text=WORDS)
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
    assert x.shape == (4, run0.trainer.cfg.seq_len)


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
    with said() as heard:
        nothing = files.kept()
    assert heard == [(heard[0][0], {})] and nothing == t(heard[0][0])  # a sentence with no step and no dir
    with speaking("zh"):
        assert files.kept() != nothing and re.search("[\u4e00-\u9fff]", files.kept())
    files.log({"kind": "log", "step": 9, "loss": 1.0})
    files.evaluation({"kind": "eval", "step": 9}, True, run0.trainer)
    assert files.saved_step == run0.trainer.step == 2
    files.saved_step = None
    files.checkpoint(run0.trainer)
    assert files.saved_step == 2 and files_of(run0.dir) == before
    with said() as heard:
        assert files.kept() == heard.worded(step=2, dir=run0.dir)[0] != nothing  # the step and where it is
    with speaking("zh"), said() as heard:
        assert files.kept() == heard.worded(step=2, dir=run0.dir)[0]
        assert re.search("[\u4e00-\u9fff]", files.kept())


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


def test_a_new_run_keeps_the_first_line_of_its_training_text_for_the_explorer(tmp_path):
    """Issue 27, item 2: a Chinese run opened the explorer on an empty box. config.json keeps an
    example of the run's own text (its longest line among the first EXAMPLE_TOKENS tokens)."""
    from glassformer.explore.server import open_run

    poems = tmp_path / "poems.txt"
    lines = ["春眠不觉晓", "处处闻啼鸟。夜来风雨声", "花落知多少。"]  # the training text, not glassformer's words
    poems.write_text("".join(line + "\n" for line in lines) * 40, encoding="utf-8")
    longest = max(lines, key=len)
    run = new_run(
        "seed000", QUICK, source=f"file:{poems}", out=tmp_path / "zh", cache_dir=tmp_path / "cache", progress=False
    )
    config = json.loads((run.dir / "config.json").read_text(encoding="utf-8"))
    assert config["example"] == longest == lines[1]
    train(run)  # 4 steps: weights for the explorer to open
    assert open_run(run.dir).info()["example"] == longest  # the page opens on it
    assert "example" not in json.loads(
        (new_run("sine", QUICK_ONE, source="sine", out=tmp_path / "s", progress=False).dir / "config.json").read_text()
    )  # numbers: no text to keep


# ---- the schedule of a resumed run (run.keep_horizon) ------------------------------------------------
COSINE = [*QUICK, "--lr_schedule=cosine", "--lr=0.01", "--min_lr=0.001"]


@pytest.mark.parametrize("stretch", [False, True])
def test_a_resumed_cosine_keeps_its_horizon_unless_stretched(tmp_path, capsys, stretch):
    """Resuming a 4-step cosine run to 8 steps: by default the cosine still ends at step 4 and steps
    5-8 train at min_lr; --stretch-schedule moves the end to step 8 (the lr rises again). Either way
    the lr of the last step and of the next one is printed."""
    run = make(tmp_path, COSINE)
    train(run)
    last = run.trainer.lr_at(3)
    del run
    with said() as heard:
        more = resume_run(
            tmp_path / "run",
            ["--max_steps=8"],
            cache_dir=tmp_path / "cache",
            progress=False,
            sample_chars=0,
            stretch=stretch,
        )
    out = capsys.readouterr().out
    cfg = more.trainer.cfg
    assert (cfg.max_steps, cfg.decay_steps) == ((8, 0) if stretch else (8, 4))
    saved = json.loads((tmp_path / "run" / "config.json").read_text())["train"]
    assert saved["decay_steps"] == cfg.decay_steps  # a later resume keeps the same horizon
    nxt = more.trainer.lr_at(4)
    assert nxt > last if stretch else nxt == pytest.approx(0.001)
    if not stretch:  # after the horizon the lr stays at min_lr
        assert [more.trainer.lr_at(s) for s in range(4, 8)] == pytest.approx([0.001] * 4)
    [end] = heard.worded(horizon=8 if stretch else 4, min_lr=0.001)  # where the cosine ends now
    [line] = heard.worded(before=last, after=nxt, step=4, next=5, end=end)
    assert line in out
    assert train(more).step == 8


def test_stretch_schedule_without_resume_is_refused_before_anything_is_made(tmp_path):
    from glassformer.cli import main

    code = main(["train", "--stretch-schedule", "--out", str(tmp_path / "r"), "--max_steps=2"])
    assert code == 2 and not (tmp_path / "r").exists()


# ---- the evaluation interval of a short run (config.eval_interval_for) --------------------------------
def test_a_short_run_evaluates_at_least_min_evals_times_unless_the_interval_is_given(tmp_path):
    from glassformer.config import MIN_EVALS, eval_interval_for

    assert get_preset("seed000").train.eval_interval == 100
    run = make(tmp_path, ["--max_steps=24", "--eval_iters=1", "--threads=1"])
    assert run.trainer.cfg.eval_interval == 24 // MIN_EVALS == 3
    assert json.loads((run.dir / "config.json").read_text())["train"]["eval_interval"] == 3
    train(run)
    evals = [
        r["step"] for r in map(json.loads, (run.dir / "metrics.jsonl").read_text().splitlines()) if r["kind"] == "eval"
    ]
    assert evals == list(range(0, 25, 3)) and len(evals) - 1 >= MIN_EVALS
    given = make(tmp_path, ["--max_steps=24", "--eval_interval=100", "--eval_iters=1", "--threads=1"], name="given")
    assert given.trainer.cfg.eval_interval == 100  # the user's own interval is kept
    baby = get_preset("baby").train
    assert eval_interval_for(baby.max_steps, baby.eval_interval) == baby.eval_interval == 250  # `make demo` unchanged
    assert eval_interval_for(300, 250) == 37 and eval_interval_for(5, 250) == 1 and eval_interval_for(10**6, 250) == 250


# ---- the run directory's lock ----------------------------------------------------------------


def test_the_lock_file_goes_with_the_last_of_several_holders(tmp_path):
    path = run_module.acquire(tmp_path)
    assert path.is_file()
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o644 & ~umask  # rw-r--r--: readable by all, never executable
    assert run_module.acquire(tmp_path) == path and run_module.acquire(tmp_path) == path  # three holders
    run_module.release(path)
    run_module.release(path)
    assert path.is_file()  # one holder left
    run_module.release(path)
    assert not path.exists() and str(path) not in run_module._held
    run_module.release(path)  # one release too many: nothing to let go of, no error
    assert run_module.acquire(tmp_path) == path and path.is_file()  # and the directory can be locked again
    run_module.release(path)
    assert not path.exists()


def test_a_holder_that_has_not_written_its_name_yet_is_reported_with_question_marks(tmp_path):
    """Another holder locked the file but wrote nothing yet (it is between open and write): the error
    still says what to do, with "?" for what is not known, never "None"."""
    fcntl = pytest.importorskip("fcntl")  # POSIX; on Windows the lock is msvcrt's
    path = tmp_path / run_module.LOCK_FILE
    other = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)  # a second open file: flock sees another holder
    fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
    try:
        key, fields = keyed(run_module.RunLocked, run_module.acquire, tmp_path)
        assert key == "lock.held" and Path(fields.pop("path")).resolve() == path.resolve()
        assert fields == {"dir": tmp_path, "pid": "?", "host": "?", "started": "?", "kill": "PID"}
    finally:
        os.close(other)


def test_a_lock_file_removed_after_it_was_opened_is_noticed(tmp_path):
    """The previous holder may remove the file between our open and our lock: the lock we got is on
    a file nobody else will open again, so acquire must notice (and lock the new file)."""
    path = tmp_path / run_module.LOCK_FILE
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        assert run_module._still_there(fd, path) is True
        path.unlink()
        assert run_module._still_there(fd, path) is (os.name != "posix")  # Windows cannot remove an open file
        path.touch()  # another file at the same path
        if os.name == "posix":
            assert run_module._still_there(fd, path) is False
    finally:
        os.close(fd)


def test_the_lock_file_says_who_holds_it_and_a_second_trainer_is_told_who(tmp_path, monkeypatch):
    """What the holder writes (pid, host, start time, one JSON line), and the refusal another process
    gets, in English and Chinese. The other process is played by forgetting this one's hold: a second
    open file of the lock is refused by flock like another process's."""
    pytest.importorskip("fcntl")
    path = run_module.acquire(tmp_path)
    try:
        text = path.read_text(encoding="utf-8")
        info = json.loads(text)
        assert text.endswith("}\n") and text.count("\n") == 1 and list(info) == ["pid", "host", "started"]
        assert info["pid"] == os.getpid() and info["host"] == socket.gethostname()
        started = datetime.datetime.strptime(info["started"], "%Y-%m-%d %H:%M:%S")
        assert abs((datetime.datetime.now() - started).total_seconds()) < 60
        held = run_module._held.pop(str(path))  # as another process sees it
        try:
            pid = info["pid"]
            holder = {"pid": pid, "host": info["host"], "started": info["started"], "kill": pid, "path": path}
            told = []
            for lang in ("en", "zh"):
                with speaking(lang), pytest.raises(run_module.RunLocked) as err:
                    run_module.acquire(tmp_path)
                assert (err.value.code, err.value.fields) == ("lock.held", {"dir": tmp_path.resolve(), **holder})
                told.append(str(err.value))
            assert all(str(path) in words and str(pid) in words for words in told)  # who holds it, what to delete
            assert told[0] != told[1] and re.search("[\u4e00-\u9fff]", told[1])
            assert str(path) not in run_module._held and path.read_text(encoding="utf-8") == text
        finally:
            run_module._held[str(path)] = held
    finally:
        run_module.release(path)
    assert not path.exists()


@pytest.mark.parametrize("content", ["", "{not json", "[1, 2]", "\xff"])
def test_a_lock_file_that_is_not_a_json_object_names_no_holder(tmp_path, content):
    path = tmp_path / run_module.LOCK_FILE
    path.write_bytes(content.encode("latin-1"))
    assert run_module._holder(path) == {}
    path.write_text('{"pid": 7}', encoding="utf-8")
    assert run_module._holder(path) == {"pid": 7}
    assert run_module._holder(tmp_path / "missing") == {}


def test_a_filesystem_without_locks_trains_unlocked_and_says_so(tmp_path, monkeypatch, capsys):
    def no_locks(fd):
        raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))

    monkeypatch.setattr(run_module, "_try_lock", no_locks)
    gc.collect()  # files an earlier test left to the collector close now, not during the count
    fds = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    for lang in ("en", "zh"):
        with speaking(lang), said() as heard:
            path = run_module.acquire(tmp_path)
            notes = heard.worded(path=path, reason=os.strerror(errno.ENOLCK))  # what, and why
        assert notes and capsys.readouterr() == ("", "".join(note + "\n" for note in notes))  # a note on stderr
        assert run_module._held[str(path)] == [None, 1] and path.read_bytes() == b""  # opened, nothing written
        run_module.release(path)
        assert not path.exists() and str(path) not in run_module._held
    if fds is not None:
        assert len(os.listdir("/proc/self/fd")) == fds  # the file it opened was closed


def test_a_lock_file_replaced_at_every_try_is_given_up_after_20(tmp_path, monkeypatch):
    tries = []
    monkeypatch.setattr(run_module, "_still_there", lambda fd, path: tries.append(fd) and False)
    fds = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    path = (tmp_path / run_module.LOCK_FILE).resolve()
    for lang in ("en", "zh"):
        tries.clear()
        with speaking(lang), pytest.raises(run_module.RunLocked) as err:
            run_module.acquire(tmp_path)
        assert (err.value.code, err.value.fields) == ("lock.replaced", {"path": path, "dir": path.parent})
        assert len(tries) == 20 and str(path) not in run_module._held
    if fds is not None:
        assert len(os.listdir("/proc/self/fd")) == fds  # each of the 20 files was closed


def test_on_windows_msvcrt_locks_one_byte_without_waiting(tmp_path, monkeypatch):
    """The Windows branch, played on any system with a fake msvcrt: LK_NBLCK (never wait) on 1 byte;
    PermissionError means another process holds it; an open file cannot be replaced there."""
    calls = []

    def locking(fd, mode, nbytes):
        calls.append((fd, mode, nbytes))
        if fd == 13:
            raise PermissionError(13, "Permission denied")

    monkeypatch.setitem(sys.modules, "msvcrt", SimpleNamespace(locking=locking, LK_NBLCK=2, LK_LOCK=1))
    monkeypatch.setattr(os, "name", "nt")
    try:
        free, taken = run_module._try_lock(12), run_module._try_lock(13)
        still = run_module._still_there(12, tmp_path / "gone")
    finally:
        monkeypatch.undo()
    assert (free, taken, still) == (True, False, True) and calls == [(12, 2, 1), (13, 2, 1)]


def test_a_lock_file_deleted_by_hand_is_released_without_error(tmp_path):
    path = run_module.acquire(tmp_path)
    path.unlink()  # a user cleaning up while the trainer runs
    run_module.release(path)
    assert not path.exists() and str(path) not in run_module._held


def test_without_a_preset_a_run_is_the_baby_preset(tmp_path):
    run = new_run(source="builtin:seed", out=tmp_path / "run", cache_dir=tmp_path / "cache", progress=False)
    config = json.loads((run.dir / "config.json").read_text())
    baby = get_preset("baby")
    assert config["preset"] == "baby"
    assert {k: config["model"][k] for k in ("d_model", "n_heads", "n_layers", "d_ff")} == {
        "d_model": baby.model.d_model, "n_heads": baby.model.n_heads, "n_layers": baby.model.n_layers,
        "d_ff": baby.model.d_ff,
    }  # fmt: skip
    assert config["train"]["max_steps"] == baby.train.max_steps and config["train"]["lr"] == baby.train.lr
