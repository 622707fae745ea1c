"""Checkpoints and saved runs read back (train/checkpoint.py): atomic writes, weights_only loading, never
losing the last good one; each refusal, the two files' contents field by field, and which
train_state.pt a checkpoint is read with; the checksums written out independently; what a finished run
gives back (the weights asked for, latest or best) and every refusal of a run directory read back, with
what each reader keeps, drops or translates.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest
import torch
from helpers import said
from safetensors import safe_open
from safetensors.torch import load_file, save_file
from seed_runs import seed_run
from torch import nn

import glassformer.train.checkpoint as ckpt
from glassformer.config import ModelConfig, TrainConfig, get_preset, to_dict
from glassformer.errors import DamagedFile, GlassformerError, NotFound, UsageError
from glassformer.messages import t
from glassformer.models import GPT, build_model
from glassformer.text.tokenizers import CharTokenizer
from glassformer.train.checkpoint import (
    build_saved,
    check_vocab,
    has_checkpoint,
    load_checkpoint,
    load_model,
    load_weights,
    model_config,
    read_config,
    read_state,
    read_weights,
    save_checkpoint,
    save_weights,
    sha256_file,
    train_config,
    weights_sha256,
)
from glassformer.train.loop import build_optimizer
from glassformer.train.run import resume_run, train

pytestmark = pytest.mark.usefixtures("one_thread")  # fixture in tests/conftest.py


# ---- atomic writes, weights_only loading, the last good checkpoint kept --------------------------
def trained_pair(seed=0, preset="seed000"):
    """A model and optimizer after one real step (so the optimizer has moments to save)."""
    p = get_preset(preset)
    torch.manual_seed(seed)
    model = GPT(p.model)
    opt = build_optimizer(model, p.train)
    ids = torch.randint(0, p.model.vocab_size, (2, 9))
    model(ids[:, :-1]).logsumexp(-1).mean().backward()
    opt.step()
    return model, opt


def params(model):
    return {n: p.detach().clone() for n, p in model.named_parameters()}


def test_round_trip_restores_weights_optimizer_and_rng(tmp_path):
    model, opt = trained_pair()
    gen = torch.Generator().manual_seed(5)
    gen_state = gen.get_state()
    save_checkpoint(tmp_path, model, opt, 7, gen, {"best_val": 1.5})
    expected_draw = torch.rand(3, generator=gen)
    other, other_opt = trained_pair(seed=1)
    other_gen = torch.Generator().manual_seed(99)
    state = load_checkpoint(tmp_path, other, other_opt, other_gen)
    assert state["step"] == 7 and state["best_val"] == 1.5
    assert all(torch.equal(a, b) for a, b in zip(params(model).values(), params(other).values(), strict=False))
    assert torch.equal(other_gen.get_state(), gen_state)
    assert torch.equal(torch.rand(3, generator=other_gen), expected_draw)
    exp_avg = [s["exp_avg"] for s in opt.state.values()]
    got = [s["exp_avg"] for s in other_opt.state.values()]
    assert all(torch.equal(a, b) for a, b in zip(exp_avg, got, strict=False))
    torch.load(tmp_path / "train_state.pt", weights_only=True)  # plain tensors and types only


def test_tied_weights_are_saved_once_and_stay_tied(tmp_path):
    model, _ = trained_pair(preset="baby")  # baby ties head and embedding
    save_weights(tmp_path / "w.safetensors", model, 3)
    fresh = GPT(get_preset("baby").model)
    assert load_weights(tmp_path / "w.safetensors", fresh) == 3
    assert fresh.head.weight is fresh.tok_embed.table.weight
    assert torch.equal(fresh.head.weight, model.head.weight)


@pytest.mark.parametrize("failing", ["safetensors", "torch.save"])
def test_a_write_that_dies_midway_keeps_the_previous_checkpoint(tmp_path, monkeypatch, failing):
    model, opt = trained_pair()
    gen = torch.Generator().manual_seed(0)
    save_checkpoint(tmp_path, model, opt, 10, gen, {"best_val": 2.0})
    good = params(model)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(1.0)  # the model moves on

    full = OSError(errno.ENOSPC, "disk full")

    def half_written(*args, **kwargs):
        with open(args[1], "wb") as f:  # save_file(tensors, path) and torch.save(obj, path) alike
            f.write(b"\x00" * 100)  # the temp file exists and holds garbage ...
        raise full  # ... when the write dies

    if failing == "safetensors":
        monkeypatch.setattr(ckpt, "save_file", half_written)
    else:
        monkeypatch.setattr(ckpt.torch, "save", half_written)
    with pytest.raises(OSError) as e:
        save_checkpoint(tmp_path, model, opt, 20, gen, {"best_val": 1.0})
    assert e.value is full  # the write's own error, passed on as it was
    monkeypatch.undo()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.safetensors", "train_state.pt"]
    fresh, _ = trained_pair(seed=3)
    state = load_checkpoint(tmp_path, fresh)
    assert state["step"] == 10 and state["best_val"] == 2.0
    assert all(torch.equal(good[n], p) for n, p in fresh.named_parameters())


@pytest.mark.parametrize("free, code", [(0, errno.ENOSPC), (1 << 30, errno.EIO)])
def test_a_short_write_inside_torch_save_is_the_oserror_it_is(tmp_path, monkeypatch, free, code):
    """torch.save reports a full disk as RuntimeError("... unexpected pos A vs B"): with under 1 MiB free it
    is ENOSPC (DiskFull for the trainer), else EIO: a failed write either way, never an internal error."""
    model, opt = trained_pair()
    gen = torch.Generator().manual_seed(0)
    save_checkpoint(tmp_path, model, opt, 10, gen, {"best_val": 2.0})

    def short_write(obj, path):
        Path(path).write_bytes(b"PK\x03\x04")
        raise RuntimeError("[enforce fail at inline_container.cc:626] . unexpected pos 4544 vs 4441")

    monkeypatch.setattr(ckpt.torch, "save", short_write)
    monkeypatch.setattr(ckpt.shutil, "disk_usage", lambda path: shutil._ntuple_diskusage(1 << 40, 1 << 40, free))
    with pytest.raises(OSError) as e:
        save_checkpoint(tmp_path, model, opt, 20, gen, {"best_val": 1.0})
    assert e.value.errno == code and isinstance(e.value.__cause__, RuntimeError)
    monkeypatch.undo()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.safetensors", "train_state.pt"]
    assert load_checkpoint(tmp_path, trained_pair(seed=3)[0])["step"] == 10  # the old pair, intact


def test_stray_temp_files_are_never_loaded(tmp_path):
    model, opt = trained_pair()
    save_checkpoint(tmp_path, model, opt, 4, torch.Generator(), {"best_val": 2.0})
    (tmp_path / ".model.safetensors.abc123.tmp").write_bytes(b"junk from a killed process")
    (tmp_path / ".train_state.pt.def456.tmp").write_bytes(b"junk")
    assert load_checkpoint(tmp_path, trained_pair(seed=2)[0])["step"] == 4


@pytest.mark.parametrize("repair", [True, False])
def test_a_crash_between_the_two_renames_is_finished_or_read_from_the_temp_file(tmp_path, repair):
    """A save renames the state into place, then the weights; a crash between them leaves the new
    state in its temp file, which the new weights name by hash. Loading finds it among stray temp
    files (repair: renamed into place; else read as is, for a reader that must not write)."""
    model, opt = trained_pair()
    save_checkpoint(tmp_path, model, opt, 6, torch.Generator(), {"best_val": 1.0})
    (tmp_path / ".train_state.pt.aaa.tmp").write_bytes(b"junk from another crash")
    (tmp_path / "train_state.pt").rename(tmp_path / ".train_state.pt.bbb.tmp")
    state = load_checkpoint(tmp_path, trained_pair(seed=2)[0], repair=repair)
    assert state["step"] == 6 and state["best_val"] == 1.0
    assert (tmp_path / "train_state.pt").is_file() == repair
    assert (tmp_path / ".train_state.pt.bbb.tmp").is_file() != repair


def test_a_state_that_does_not_fit_the_optimizer_is_named_with_the_reason(tmp_path):
    model, opt = trained_pair()
    save_checkpoint(tmp_path, model, opt, 3, torch.Generator(), {})
    other = trained_pair(preset="baby")[1]  # another model's optimizer: other parameter groups
    key, fields = keyed(ValueError, load_checkpoint, tmp_path, model, other)
    assert (key, fields["path"]) == ("checkpoint.state_fit", tmp_path / "train_state.pt")
    assert set(fields) == {"path", "detail"} and fields["detail"]  # the reason, from the error, is named


def test_mismatched_pair_is_refused(tmp_path):
    model, opt = trained_pair()
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    save_checkpoint(tmp_path / "a", model, opt, 4, torch.Generator(), {})
    save_checkpoint(tmp_path / "b", model, opt, 8, torch.Generator(), {})
    shutil.copy(tmp_path / "b" / "model.safetensors", tmp_path / "a" / "model.safetensors")
    assert keyed(ValueError, load_checkpoint, tmp_path / "a", model) == (
        "checkpoint.mixed",
        {"dir": tmp_path / "a", "weights": "model.safetensors", "step": 8, "state": "train_state.pt", "other": 4},
    )  # which run, which files, which steps


def test_missing_checkpoint_is_a_clear_error(tmp_path):
    assert keyed(FileNotFoundError, load_checkpoint, tmp_path, trained_pair()[0]) == (
        "checkpoint.none",
        {"dir": tmp_path, "weights": "model.safetensors"},
    )


def test_is_tied_finds_only_real_ties():
    tied = GPT(get_preset("baby").model)  # head.weight is tok_embed.table.weight
    untied = GPT(get_preset("seed000").model)
    assert ckpt._is_tied(tied, "head.weight") and ckpt._is_tied(tied, "tok_embed.table.weight")
    assert not ckpt._is_tied(untied, "head.weight") and not ckpt._is_tied(untied, "tok_embed.table.weight")
    assert not ckpt._is_tied(tied, "no.such.weight")


def test_a_train_state_of_another_format_is_refused_by_name(tmp_path):
    """A state of another format (or not a dict) is refused with both formats named, never half-read.
    (load_checkpoint checks the state's sha256 first: a rewritten file is refused as damaged there.)"""
    model, opt = trained_pair()
    save_checkpoint(tmp_path, model, opt, 3, torch.Generator(), {})
    state = torch.load(tmp_path / "train_state.pt", weights_only=True)
    torch.save({**state, "format": 0}, tmp_path / "old.pt")
    assert keyed(ValueError, ckpt.read_state, tmp_path / "old.pt") == (
        "checkpoint.state_format",
        {"path": tmp_path / "old.pt", "format": 1, "found": 0},
    )
    torch.save([1, 2], tmp_path / "list.pt")
    assert keyed(ValueError, ckpt.read_state, tmp_path / "list.pt") == (
        "checkpoint.state_format",
        {"path": tmp_path / "list.pt", "format": 1, "found": "list"},
    )
    assert ckpt.read_state(tmp_path / "train_state.pt")["step"] == 3


def test_weights_from_elsewhere_load_with_step_minus_one(tmp_path):
    """A safetensors file written by another tool has no "step" in its metadata: -1 says unknown."""
    from safetensors.torch import save_file

    model, _ = trained_pair()
    save_file(ckpt.weights_dict(model), str(tmp_path / "plain.safetensors"))  # no metadata at all
    fresh = GPT(get_preset("seed000").model)
    assert load_weights(tmp_path / "plain.safetensors", fresh) == -1
    assert all(torch.equal(p, q) for p, q in zip(fresh.parameters(), model.parameters(), strict=False))


def test_weights_and_state_of_different_steps_are_refused_naming_both(tmp_path):
    """A checkpoint from before the sha256s (weights without state_sha256) is matched by step only:
    weights of step 5 beside a state of step 3 are two checkpoints, and the error says both steps."""
    model, opt = trained_pair()
    save_checkpoint(tmp_path, model, opt, 3, torch.Generator(), {})
    save_weights(tmp_path / "model.safetensors", model, 5)  # no state_sha256 in its metadata
    assert keyed(ValueError, load_checkpoint, tmp_path, model, opt) == (
        "checkpoint.mixed",
        {"dir": tmp_path, "weights": "model.safetensors", "step": 5, "state": "train_state.pt", "other": 3},
    )


def test_weights_of_another_shape_are_refused_with_the_likely_cause(tmp_path):
    small, _ = trained_pair()
    save_weights(tmp_path / "w.safetensors", small, 1)
    other = GPT(get_preset("seed000").model.__class__(**{**vars(get_preset("seed000").model), "d_model": 32}))
    key, fields = keyed(ValueError, load_weights, tmp_path / "w.safetensors", other)
    assert (key, fields["path"]) == ("checkpoint.shape", tmp_path / "w.safetensors")
    assert set(fields) == {"path", "detail"} and fields["detail"]  # torch's reason, named


# ---- each refusal, and the two files' contents field by field ------------------------------------
class Tiny(nn.Module):
    def __init__(self, tie=False):
        super().__init__()
        self.emb = nn.Embedding(3, 2)
        self.head = nn.Linear(2, 3, bias=False)
        if tie:
            self.head.weight = self.emb.weight


def pair(seed=0):
    torch.manual_seed(seed)
    model = Tiny()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model.head(model.emb(torch.tensor([0, 1]))).sum().backward()
    opt.step()
    return model, opt


def refusal(kind, call, *args, **kw) -> str:
    with pytest.raises(kind) as e:
        call(*args, **kw)
    return str(e.value)


def keyed(kind, call, *args, **kw) -> tuple[str, dict]:
    """The key and fields of the error `call` raises: what a test pins (the words are the catalogue's).
    A field holding an error (a config's problem) is given as its own (key, fields)."""
    with pytest.raises(kind) as e:
        call(*args, **kw)
    fields = {k: (v.key, v.fields) if isinstance(v, GlassformerError) else v for k, v in e.value.fields.items()}
    return e.value.key, fields


def test_has_checkpoint_sees_either_file(tmp_path):
    assert not has_checkpoint(tmp_path)
    (tmp_path / "train_state.pt").write_bytes(b"")
    assert has_checkpoint(str(tmp_path))
    (tmp_path / "train_state.pt").unlink()
    (tmp_path / "model.safetensors").write_bytes(b"")
    assert has_checkpoint(tmp_path)


def test_saved_weights_carry_their_step_and_sha256_and_load_back(tmp_path):
    model, _ = pair()
    save_weights(tmp_path / "w.safetensors", model, 5)
    tensors, metadata, step = read_weights(str(tmp_path / "w.safetensors"))
    assert step == 5 and set(tensors) == {"emb.weight", "head.weight"}
    assert metadata == {"step": "5", "weights_sha256": weights_sha256(tensors, 5)}
    fresh = pair(seed=1)[0]
    assert load_weights(tmp_path / "w.safetensors", fresh) == 5
    assert torch.equal(fresh.emb.weight, model.emb.weight) and torch.equal(fresh.head.weight, model.head.weight)


def test_each_unreadable_weights_file_is_named_with_what_to_do(tmp_path):
    path = tmp_path / "w.safetensors"
    assert keyed(NotFound, read_weights, path) == ("checkpoint.no_weights", {"path": path})
    path.mkdir()
    assert keyed(NotFound, read_weights, path) == ("checkpoint.weights_dir", {"path": path})
    path.rmdir()
    path.write_bytes(b"not a safetensors file at all")
    key, fields = keyed(DamagedFile, read_weights, path)
    assert (key, fields["path"]) == ("checkpoint.weights_damaged", path) and set(fields) == {"path", "detail"}
    assert fields["detail"] and "\n" not in fields["detail"]  # the library's reason, on one line
    model, _ = pair()
    tensors = ckpt.weights_dict(model)
    save_file(
        {k: v + 1 for k, v in tensors.items()},
        str(path),
        metadata={"step": "2", "weights_sha256": weights_sha256(tensors, 2)},
    )  # bytes changed since
    assert keyed(DamagedFile, read_weights, path) == ("checkpoint.weights_sha", {"path": path})
    save_file(tensors, str(path), metadata={"step": "2", "weights_sha256": weights_sha256(tensors, 3)})  # other step
    assert keyed(DamagedFile, read_weights, path) == ("checkpoint.weights_sha", {"path": path})
    save_file(tensors, str(path))  # from elsewhere: no metadata at all
    assert read_weights(path)[1:] == ({}, -1)


def test_weights_with_other_names_list_what_is_missing_and_unexpected(tmp_path):
    model, _ = pair()
    tensors = ckpt.weights_dict(model)
    path = tmp_path / "w.safetensors"
    save_file({"emb.weight": tensors["emb.weight"], "extra.bias": torch.zeros(1), "another": torch.zeros(1)}, str(path))
    assert keyed(DamagedFile, load_weights, path, pair()[0]) == (
        "checkpoint.names",
        {"path": path, "missing": ["head.weight"], "unexpected": ["another", "extra.bias"]},
    )
    tied = Tiny(tie=True)
    save_weights(path, tied, 1)
    assert set(read_weights(path)[0]) == {"emb.weight"}  # the tied head is saved once
    assert load_weights(path, Tiny(tie=True)) == 1  # and its missing name is no refusal
    assert keyed(DamagedFile, load_weights, path, Tiny()) == (
        "checkpoint.names",
        {"path": path, "missing": ["head.weight"], "unexpected": []},
    )


def test_a_state_file_that_is_not_a_plain_state_is_named(tmp_path):
    path = tmp_path / "train_state.pt"
    torch.save({"format": 1, "step": 2, "thing": nn.Linear(1, 1)}, path)  # a module: a pickle weights_only refuses
    assert keyed(DamagedFile, read_state, path) == ("checkpoint.pickle", {"path": path})
    path.write_bytes(b"PK\x03\x04 cut")
    key, fields = keyed(DamagedFile, read_state, path)
    assert (key, fields["path"]) == ("checkpoint.state_damaged", path) and set(fields) == {"path", "detail"}
    assert fields["detail"]  # torch's reason, named
    torch.save({"format": 1}, path)
    assert keyed(DamagedFile, read_state, path) == (
        "checkpoint.state_format",
        {"path": path, "format": 1, "found": 1},
    )
    torch.save({"format": 1, "step": 0}, path)
    assert read_state(path) == {"format": 1, "step": 0}


def test_a_saved_pair_holds_every_field_and_names_its_state_by_sha256(tmp_path):
    model, opt = pair()
    gen = torch.Generator().manual_seed(4)
    torch.manual_seed(123)
    rng = torch.get_rng_state()
    save_checkpoint(str(tmp_path), model, opt, 9, gen, {"best_val": 0.5, "note": "x"})
    assert sorted(os.listdir(tmp_path)) == ["model.safetensors", "train_state.pt"]  # no temp file left
    state = read_state(tmp_path / "train_state.pt")
    assert list(state) == ["format", "step", "optimizer", "rng", "best_val", "note"]
    assert state["format"] == 1 and state["step"] == 9 and state["best_val"] == 0.5 and state["note"] == "x"
    assert set(state["rng"]) == {"torch", "batches"} | ({"cuda"} if torch.cuda.is_available() else set())
    assert torch.equal(state["rng"]["torch"], rng) and torch.equal(state["rng"]["batches"], gen.get_state())
    assert state["optimizer"]["param_groups"][0]["momentum"] == 0.9
    with safe_open(str(tmp_path / "model.safetensors"), framework="pt") as f:
        metadata = f.metadata()
    assert set(metadata) == {"step", "weights_sha256", "state_sha256"} and metadata["step"] == "9"
    assert metadata["state_sha256"] == sha256_file(tmp_path / "train_state.pt")
    for name in ("model.safetensors", "train_state.pt"):
        assert oct(os.stat(tmp_path / name).st_mode & 0o777) == "0o644"
    # loading restores weights, optimizer moments and both random streams
    other, other_opt = pair(seed=7)
    gen2 = torch.Generator().manual_seed(99)
    torch.manual_seed(0)
    loaded = load_checkpoint(tmp_path, other, other_opt, gen2)
    assert loaded["step"] == 9 and torch.equal(other.emb.weight, model.emb.weight)
    assert torch.equal(gen2.get_state(), gen.get_state()) and torch.equal(torch.get_rng_state(), rng)
    assert torch.equal(
        other_opt.state_dict()["state"][0]["momentum_buffer"], opt.state_dict()["state"][0]["momentum_buffer"]
    )
    before = torch.get_rng_state()
    load_checkpoint(tmp_path, other)  # weights only: the streams are left alone
    assert torch.equal(torch.get_rng_state(), before)


def test_a_failed_weights_write_removes_the_states_temp_file_too(tmp_path, monkeypatch):
    model, opt = pair()

    full = OSError(errno.ENOSPC, "disk full")

    def full_disk(*args, **kw):
        raise full

    monkeypatch.setattr(ckpt, "save_file", full_disk)
    with pytest.raises(OSError) as e:
        save_checkpoint(tmp_path, model, opt, 1, torch.Generator(), {})
    assert e.value is full
    assert os.listdir(tmp_path) == []


def test_which_state_file_a_checkpoint_is_read_with(tmp_path):
    model, opt = pair()
    assert keyed(NotFound, load_checkpoint, tmp_path, model) == (
        "checkpoint.none",
        {"dir": tmp_path, "weights": "model.safetensors"},
    )
    save_checkpoint(tmp_path, model, opt, 4, torch.Generator(), {})
    state_bytes = (tmp_path / "train_state.pt").read_bytes()
    torch.save({"format": 1, "step": 4, "optimizer": opt.state_dict(), "rng": {}}, tmp_path / "train_state.pt")
    state_sha = (
        "checkpoint.state_sha",
        {"path": tmp_path / "train_state.pt", "weights": "model.safetensors", "step": 4, "dir": tmp_path},
    )
    assert keyed(DamagedFile, load_checkpoint, tmp_path, model) == state_sha
    (tmp_path / "train_state.pt").write_bytes(b"junk")  # unreadable and not the named one: the same refusal
    assert keyed(DamagedFile, load_checkpoint, tmp_path, model) == state_sha
    (tmp_path / "train_state.pt").unlink()
    assert keyed(DamagedFile, load_checkpoint, tmp_path, model) == (
        "checkpoint.no_state",
        {"dir": tmp_path, "weights": "model.safetensors", "state": "train_state.pt"},
    )
    (tmp_path / ".train_state.pt.zz.tmp").write_bytes(state_bytes)  # the named state, left in its temp file
    assert load_checkpoint(tmp_path, model)["step"] == 4 and (tmp_path / "train_state.pt").read_bytes() == state_bytes
    assert not (tmp_path / ".train_state.pt.zz.tmp").exists()
    torch.save({"format": 1, "step": 7}, tmp_path / "train_state.pt")
    assert keyed(DamagedFile, load_checkpoint, tmp_path, model) == (
        "checkpoint.mixed",
        {"dir": tmp_path, "weights": "model.safetensors", "step": 4, "state": "train_state.pt", "other": 7},
    )


def test_an_old_checkpoint_without_sha256s_is_checked_by_its_steps(tmp_path):
    model, opt = pair()
    save_file(ckpt.weights_dict(model), str(tmp_path / "model.safetensors"), metadata={"step": "3"})
    torch.save(
        {
            "format": 1,
            "step": 3,
            "optimizer": opt.state_dict(),
            "rng": {"torch": torch.get_rng_state(), "batches": torch.Generator().get_state()},
        },
        tmp_path / "train_state.pt",
    )
    assert load_checkpoint(tmp_path, pair(seed=2)[0], repair=False)["step"] == 3
    torch.save({"format": 1, "step": 2}, tmp_path / "train_state.pt")
    assert keyed(DamagedFile, load_checkpoint, tmp_path, model) == (
        "checkpoint.mixed",
        {"dir": tmp_path, "weights": "model.safetensors", "step": 3, "state": "train_state.pt", "other": 2},
    )


def test_a_state_missing_its_random_streams_is_named_with_the_key(tmp_path):
    model, opt = pair()
    save_checkpoint(tmp_path, model, opt, 2, torch.Generator(), {})
    state = read_state(tmp_path / "train_state.pt")
    del state["rng"]["batches"]
    torch.save(state, tmp_path / "train_state.pt")
    save_file(ckpt.weights_dict(model), str(tmp_path / "model.safetensors"), metadata={"step": "2"})
    assert keyed(DamagedFile, load_checkpoint, tmp_path, model, opt, torch.Generator()) == (
        "checkpoint.state_fit",
        {"path": tmp_path / "train_state.pt", "detail": "'batches'"},
    )


def test_first_line_keeps_the_first_sentence_of_the_first_line_at_most_200_characters():
    assert ckpt._first_line(ValueError("  header 42. x 1.\ny 2")) == "header 42"  # not cut at a space
    assert ckpt._first_line(ValueError("")) == "ValueError" and ckpt._first_line(KeyError()) == "KeyError"
    assert ckpt._first_line(ValueError("x" * 300)) == "x" * 200
    assert ckpt._first_line(ValueError("a.b. c")) == "a.b"


def test_a_file_without_the_tied_weight_is_refused_not_loaded_as_nothing(tmp_path):
    """Bug found in this sweep: both names of a tied pair were excused as "tied" when missing, so a
    file lacking the embedding (here: an empty one) loaded into a tied model silently, leaving its
    random initial weights."""
    path = tmp_path / "w.safetensors"
    save_file({}, str(path), metadata={"step": "3"})
    assert keyed(DamagedFile, load_weights, path, Tiny(tie=True)) == (
        "checkpoint.names",
        {"path": path, "missing": ["emb.weight", "head.weight"], "unexpected": []},
    )
    save_file({"head.weight": torch.ones(3, 2)}, str(path))  # either name of the pair restores both
    model = Tiny(tie=True)
    assert load_weights(path, model) == -1 and torch.equal(model.emb.weight, torch.ones(3, 2))
    save_file({"head.weight": torch.ones(3, 2), "extra": torch.zeros(1)}, str(path))
    assert keyed(DamagedFile, load_weights, path, Tiny(tie=True)) == (
        "checkpoint.names",
        {"path": path, "missing": [], "unexpected": ["extra"]},
    )  # the tied twin is not missing


# ---- the checksums, written out independently ----------------------------------------------------
def test_weights_sha256_covers_step_names_dtypes_shapes_and_bytes_in_name_order():
    a, b = torch.arange(6, dtype=torch.float32).reshape(2, 3), torch.tensor([1, 2], dtype=torch.int64)
    h = hashlib.sha256(b"step=7\n")
    for name, tensor in (("a", a), ("b", b)):
        h.update(f"{name}|{tensor.dtype}|{tuple(tensor.shape)}\n".encode())
        h.update(tensor.numpy().tobytes())
    assert weights_sha256({"b": b, "a": a}, 7) == h.hexdigest()
    assert weights_sha256({"a": a.t(), "b": b}, 7) == weights_sha256({"a": a.t().contiguous(), "b": b}, 7)
    assert weights_sha256({"a": a, "b": b}, 8) != h.hexdigest()
    assert weights_sha256({"a": a.reshape(3, 2), "b": b}, 7) != h.hexdigest()  # same bytes, other shape


def test_sha256_file_reads_in_blocks_the_whole_file(tmp_path):
    data = bytes(range(256)) * 10
    (tmp_path / "f").write_bytes(data)
    assert sha256_file(tmp_path / "f", block=7) == sha256_file(str(tmp_path / "f")) == hashlib.sha256(data).hexdigest()
    (tmp_path / "e").write_bytes(b"")
    assert sha256_file(tmp_path / "e") == hashlib.sha256(b"").hexdigest()


# ---- what a finished run gives back --------------------------------------------------------------
@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A run of 2 steps of a one-layer model (about 2 s), copied by each test that changes it."""
    tmp = tmp_path_factory.mktemp("saved")
    run = seed_run(tmp, "run", ["--max_steps=2", "--eval_interval=2", "--eval_iters=1", "--d_model=16", "--n_layers=1"])
    train(run)
    assert not (run.dir / "samples.txt").exists()  # sample_chars=0: no text sampled at evaluations
    return run.dir


def copy_of(run_dir, tmp_path):
    return shutil.copytree(run_dir, tmp_path / "run")


def test_best_loads_best_safetensors_and_the_default_loads_the_latest(finished, tmp_path):
    """Bug guarded: `best=True` ignored, so --best silently samples the latest weights."""
    run = copy_of(finished, tmp_path)
    latest = load_file(run / "model.safetensors")
    best = {name: tensor + 1.0 for name, tensor in latest.items()}  # unmistakably other weights
    save_file(best, run / "best.safetensors")
    for wanted, flag in ((best, True), (latest, False)):
        model, tokenizer, _ = load_model(run, best=flag)
        state = model.state_dict()
        assert all(torch.equal(state[name], wanted[name]) for name in wanted)
        assert tokenizer is not None and tokenizer.vocab_size == model.cfg.vocab_size


def test_missing_weights_name_the_file_and_what_to_do(finished, tmp_path):
    run = copy_of(finished, tmp_path)
    (run / "best.safetensors").unlink()
    assert keyed(NotFound, load_model, run, best=True) == ("run.no_best", {"path": run / "best.safetensors"})
    load_model(run)  # the latest weights are still there
    (run / "model.safetensors").unlink()
    assert keyed(NotFound, load_model, run) == ("run.no_weights", {"path": run / "model.safetensors"})


def test_an_unknown_model_kind_names_the_config_file(finished):
    """Bug guarded: the error path built wrongly (a TypeError instead of the message). Without a run
    directory the file is named as it would be read: config.json in the current folder."""
    config = json.loads((finished / "config.json").read_text(encoding="utf-8"))
    config["model"]["kind"] = "nope"
    for run_dir, shown in ((finished, finished / "config.json"), (None, "config.json")):
        assert keyed(DamagedFile, model_config, config, run_dir) == (
            "run.invalid_config",
            {
                "path": Path(shown),
                "problem": KIND_NOPE,
                "fix": t(FIX),
            },
        )


@pytest.mark.parametrize(
    "imported, origin", [({"from": "gpt2 (Hugging Face)"}, "gpt2 (Hugging Face)"), ({}, "elsewhere")]
)
def test_resuming_an_imported_model_says_where_it_came_from(finished, tmp_path, imported, origin):
    """An imported model (a config with `imported` and no `source`) has no optimizer state to resume;
    the refusal names where it came from, or "elsewhere" when the config does not say."""
    run = copy_of(finished, tmp_path)
    config = json.loads((run / "config.json").read_text(encoding="utf-8"))
    del config["source"]
    config["imported"] = imported
    (run / "config.json").write_text(json.dumps(config), encoding="utf-8")
    origin = t("elsewhere") if origin == "elsewhere" else origin  # worded when raised
    assert keyed(UsageError, resume_run, run, [], cache_dir=tmp_path / "cache", progress=False) == (
        "run.imported",
        {"dir": run, "format": "gpt2", "origin": origin},  # gpt2: the format of the way to train it further
    )


def test_a_tokenizer_of_another_size_is_refused_naming_both(finished):
    """tokenizer.json and config.json from different runs: the ids would index the wrong rows."""
    from dataclasses import replace

    from glassformer.text.tokenizers import load_tokenizer
    from glassformer.train.checkpoint import check_vocab

    config = json.loads((finished / "config.json").read_text(encoding="utf-8"))
    cfg, tokenizer = model_config(config, finished), load_tokenizer(finished / "tokenizer.json")
    check_vocab(finished, tokenizer, cfg)  # the run's own pair agrees
    assert keyed(DamagedFile, check_vocab, finished, tokenizer, replace(cfg, vocab_size=cfg.vocab_size + 3)) == (
        "run.vocab",
        {"path": finished / "tokenizer.json", "tokens": cfg.vocab_size, "vocab_size": cfg.vocab_size + 3},
    )


# ---- a run directory read back, whole (written by hand: no training) -----------------------------
FIX = ckpt.CONFIG_FIX  # the sentence a config refusal ends with: where config.json comes from, what to do


def runs_hint(heard) -> list[dict]:
    """The fields of each hint heard that lists the runs beside a missing one (by its fields)."""
    return [dict(f) for f in heard.carrying() if f.keys() == {"parent", "n", "runs"}]


KINDS = ["encoder", "gpt", "regressor", "seq2seq"]
KIND_NOPE = ("model.kind", {"kind": "nope", "kinds": KINDS, "hint": ""})


def invalid(path, problem) -> tuple[str, dict]:
    return ("run.invalid_config", {"path": path, "problem": problem, "fix": t(FIX)})


TINY = ModelConfig(kind="regressor", d_model=8, n_heads=2, d_ff=16, n_layers=1, max_len=8, causal=False)


def write_run(run_dir, model_cfg=TINY, weights=True, **extra):
    run_dir.mkdir(parents=True, exist_ok=True)
    config = {"source": "sine", "model": to_dict(model_cfg), "train": to_dict(TrainConfig(max_steps=3)), **extra}
    (run_dir / "config.json").write_text(json.dumps(config))
    torch.manual_seed(0)
    model = build_model(model_cfg)
    if weights:
        save_weights(run_dir / "model.safetensors", model, 2)
    return model


def test_a_path_that_is_not_a_run_directory_names_the_runs_that_exist_beside_it(tmp_path):
    """Was "e.g. runs/baby-20250101-120000", a made-up name: now the runs in the same folder, nearest by
    name first, then the newest, or that there is none and how to make one."""
    (tmp_path / "f").write_text("x")
    with said() as heard:
        refusal(NotFound, read_config, tmp_path / "f")
    [none] = [t(m, **f) for m, f in heard if f == {"parent": tmp_path}]  # no run beside it: how to make one
    assert keyed(NotFound, read_config, tmp_path / "f") == ("run.is_file", {"dir": tmp_path / "f", "hint": none})
    assert keyed(NotFound, read_config, str(tmp_path / "none")) == (
        "run.missing",
        {"dir": tmp_path / "none", "hint": none},
    )
    assert keyed(NotFound, read_config, tmp_path / "sub") == (
        "run.missing",
        {"dir": tmp_path / "sub", "hint": none},
    )
    for i, name in enumerate(["zh-poems", "baby-1", "baby-2", "sine", "seq", "old", "tiny"]):
        (tmp_path / name).mkdir()
        (tmp_path / name / "config.json").write_text("{}")
        os.utime(tmp_path / name, (1e9 + i, 1e9 + i))  # "tiny" is the newest, "zh-poems" the oldest
    (tmp_path / "empty").mkdir()  # no config.json: not a run
    with said() as heard:
        read_config_refused = refusal(NotFound, read_config, tmp_path / "babyy")
    [hint] = runs_hint(heard)
    near, newest = [tmp_path / "baby-1", tmp_path / "baby-2"], [tmp_path / n for n in ("tiny", "old", "seq")]
    shown = hint.pop("runs").split(", ")
    assert hint == {"parent": tmp_path, "n": 7}
    assert set(shown[:2]) == {str(p) for p in near} and shown[2:] == [str(p) for p in newest]
    assert "baby-20250101" not in read_config_refused
    with said() as heard:
        refusal(NotFound, read_config, tmp_path / "不存在")  # nothing near by name: the five newest
    assert runs_hint(heard)[0]["runs"].split(", ")[:2] == [str(tmp_path / "tiny"), str(tmp_path / "old")]
    with said() as heard:
        refusal(NotFound, read_config, tmp_path / "empty")
    assert runs_hint(heard) and heard.of("run.no_config")[0]["dir"] == tmp_path / "empty"


@pytest.mark.parametrize(
    "config",
    [
        [1],
        {"model": {}},
        {"train": {}},
        {"model": [], "train": {}},
        {"model": {}, "train": 3},
        {"model": {}, "train": {}, "source": 5},
    ],
)
def test_a_config_of_the_wrong_shape_is_damaged(tmp_path, config):
    (tmp_path / "config.json").write_text(json.dumps(config))
    assert keyed(DamagedFile, read_config, tmp_path) == (
        "run.config_shape",
        {"path": tmp_path / "config.json", "fix": t(FIX)},
    )


@pytest.mark.parametrize("text", [[], {"tokenizer": 5}, {"vocab_size": "64"}, {"vocab_size": True}, {"cut": "char"}])
def test_a_config_whose_text_options_are_not_preparations_is_damaged(tmp_path, text):
    (tmp_path / "config.json").write_text(json.dumps({"model": {}, "train": {}, "text": text}))
    code, fields = keyed(DamagedFile, read_config, tmp_path)
    assert (code, fields.pop("options").split(", ")) == (
        "run.config_text",
        ["tokenizer", "vocab_size", "segment", "backend"],
    )
    assert fields == {"path": tmp_path / "config.json", "fix": t(FIX)}
    (tmp_path / "config.json").write_text(json.dumps({"model": {}, "train": {}, "text": {"vocab_size": 64}}))
    assert read_config(tmp_path)["text"] == {"vocab_size": 64}


def test_a_config_that_is_not_json_names_the_file_and_the_fix(tmp_path):
    (tmp_path / "config.json").write_text("{not json")
    msg = refusal(DamagedFile, read_config, tmp_path)
    assert "config.json" in msg and msg.endswith(t(FIX))


def test_a_minimal_config_reads_back_as_written(tmp_path):
    (tmp_path / "config.json").write_text('{"model": {}, "train": {}}')
    assert read_config(tmp_path) == {"model": {}, "train": {}}


def test_model_config_keeps_its_fields_drops_others_and_translates_old_spellings():
    saved = {**to_dict(TINY), "mha_style": "fused", "retired_field": 1, "lr": "not a model field"}
    cfg = model_config({"model": saved})
    assert cfg == ModelConfig(**{**to_dict(TINY), "mha_style": "packed"})
    assert model_config({"model": {}}).kind == "gpt"  # runs saved before `kind` were all GPTs


def test_a_bad_model_or_train_value_names_the_config_file(tmp_path):
    wide = ("config.type", {"key": "d_model", "value": "wide", "type": "int"})
    assert keyed(DamagedFile, model_config, {"model": {"d_model": "wide"}}, tmp_path) == invalid(
        tmp_path / "config.json", wide
    )
    assert keyed(DamagedFile, model_config, {"model": {"d_model": "wide"}}) == invalid("config.json", wide)
    assert keyed(DamagedFile, model_config, {"model": {"kind": "nope"}}, tmp_path) == invalid(
        tmp_path / "config.json", KIND_NOPE
    )
    assert keyed(DamagedFile, model_config, {"model": {"kind": "nope"}}) == invalid(Path("config.json"), KIND_NOPE)
    assert keyed(DamagedFile, train_config, {"train": {"lr": "fast"}}, tmp_path) == invalid(
        tmp_path / "config.json", ("config.type", {"key": "lr", "value": "fast", "type": "float"})
    )
    cfg = train_config({"train": {"max_steps": 7, "retired": True, "d_model": "not a train field"}})
    assert cfg == TrainConfig(max_steps=7)


def test_build_saved_names_the_config_of_a_model_that_cannot_be_built(tmp_path, monkeypatch):
    import glassformer.train.checkpoint as saved

    err = ValueError("position='alibi2' is not a position scheme.")

    def gone(cfg):
        raise err

    monkeypatch.setattr(saved, "build_model", gone)
    key, fields = keyed(DamagedFile, build_saved, TINY, tmp_path)
    assert (key, fields["path"], fields["fix"]) == ("run.invalid_config", tmp_path / "config.json", t(FIX))
    assert fields["problem"] is err  # the builder's own error, as is


def test_check_vocab_names_both_sizes(tmp_path):
    tok = CharTokenizer.from_text("abc")
    check_vocab(tmp_path, tok, ModelConfig(vocab_size=3))
    assert keyed(DamagedFile, check_vocab, str(tmp_path), tok, ModelConfig(vocab_size=4)) == (
        "run.vocab",
        {"path": tmp_path / "tokenizer.json", "tokens": 3, "vocab_size": 4},
    )


def test_load_model_reads_the_latest_or_the_best_weights_in_eval_mode(tmp_path):
    model = write_run(tmp_path / "run")
    loaded, tokenizer, config = load_model(str(tmp_path / "run"))
    assert tokenizer is None and config == json.loads((tmp_path / "run" / "config.json").read_text())
    assert not loaded.training and loaded.cfg == TINY
    assert all(
        torch.equal(a, b) for a, b in zip(loaded.state_dict().values(), model.state_dict().values(), strict=False)
    )
    assert next(loaded.parameters()).device.type == "cpu"
    best = tmp_path / "run" / "best.safetensors"
    assert keyed(NotFound, load_model, tmp_path / "run", best=True) == ("run.no_best", {"path": best})
    torch.manual_seed(5)
    save_weights(best, build_model(TINY), 1)
    best_model = load_model(tmp_path / "run", best=True)[0]
    assert not torch.equal(next(best_model.parameters()), next(loaded.parameters()))
    write_run(tmp_path / "empty", weights=False)
    assert keyed(NotFound, load_model, tmp_path / "empty") == (
        "run.no_weights",
        {"path": tmp_path / "empty" / "model.safetensors"},
    )
    with pytest.raises(Exception, match="cuda:99"):
        load_model(tmp_path / "run", device="cuda:99")


def test_a_token_models_tokenizer_is_loaded_and_checked(tmp_path):
    tok = CharTokenizer.from_text("abcd")
    cfg = ModelConfig(vocab_size=4, d_model=8, n_heads=2, d_ff=16, n_layers=1, max_len=8)
    write_run(tmp_path / "run", cfg)
    tok.save(tmp_path / "run" / "tokenizer.json")
    assert load_model(tmp_path / "run")[1].vocab_size == 4
    CharTokenizer.from_text("abc").save(tmp_path / "run" / "tokenizer.json")
    assert keyed(DamagedFile, load_model, tmp_path / "run") == (
        "run.vocab",
        {"path": tmp_path / "run" / "tokenizer.json", "tokens": 3, "vocab_size": 4},
    )


def test_a_pair_models_tokenizer_is_loaded_too(tmp_path):
    from glassformer.train.data import pair_tokenizer

    tok = pair_tokenizer()
    cfg = ModelConfig(
        kind="seq2seq",
        vocab_size=tok.vocab_size,
        d_model=8,
        n_heads=2,
        d_ff=16,
        n_layers=1,
        max_len=8,
        norm="post",
        final_norm=False,
        position="sinusoidal",
        pad_id=tok.pad_id,
    )
    write_run(tmp_path / "run", cfg)
    tok.save(tmp_path / "run" / "tokenizer.json")
    assert load_model(tmp_path / "run")[1].vocab_size == tok.vocab_size
