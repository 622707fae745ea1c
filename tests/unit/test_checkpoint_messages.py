"""train/checkpoint.py whole: each refusal word for word, the two files' contents field by field,
and which train_state.pt a checkpoint is read with. A tiny model keeps every test well under a second."""

from __future__ import annotations

import os

import pytest
import torch
from safetensors import safe_open
from safetensors.torch import save_file
from torch import nn

import glassformer.train.checkpoint as ckpt
from glassformer.errors import DamagedFile, NotFound
from glassformer.train.checkpoint import (
    has_checkpoint,
    load_checkpoint,
    load_weights,
    read_state,
    read_weights,
    save_checkpoint,
    save_weights,
    sha256_file,
    weights_sha256,
)


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
    assert refusal(NotFound, read_weights, path) == f"{path} does not exist: there are no weights to load there."
    path.mkdir()
    assert refusal(NotFound, read_weights, path) == (
        f"{path} does not exist (it is a directory): there are no weights to load there."
    )
    path.rmdir()
    path.write_bytes(b"not a safetensors file at all")
    msg = refusal(DamagedFile, read_weights, path)
    assert msg.startswith(f"{path} is damaged: it is not a readable safetensors file (")
    assert msg.endswith("). Its weights are lost; restore the file from a copy or train again.")
    assert "()" not in msg and "\n" not in msg
    model, _ = pair()
    tensors = ckpt.weights_dict(model)
    save_file(
        {k: v + 1 for k, v in tensors.items()},
        str(path),
        metadata={"step": "2", "weights_sha256": weights_sha256(tensors, 2)},
    )  # bytes changed since
    assert refusal(DamagedFile, read_weights, path) == (
        f"{path} is damaged: its weights differ from the sha256 recorded when it was written, so some bytes "
        "changed on disk. Restore it from a copy or train again."
    )
    save_file(tensors, str(path), metadata={"step": "2", "weights_sha256": weights_sha256(tensors, 3)})  # other step
    assert refusal(DamagedFile, read_weights, path).startswith(f"{path} is damaged: its weights differ")
    save_file(tensors, str(path))  # from elsewhere: no metadata at all
    assert read_weights(path)[1:] == ({}, -1)


def test_weights_with_other_names_list_what_is_missing_and_unexpected(tmp_path):
    model, _ = pair()
    tensors = ckpt.weights_dict(model)
    path = tmp_path / "w.safetensors"
    save_file({"emb.weight": tensors["emb.weight"], "extra.bias": torch.zeros(1), "another": torch.zeros(1)}, str(path))
    assert refusal(DamagedFile, load_weights, path, pair()[0]) == (
        f"{path} does not fit this model: missing ['head.weight'], unexpected ['another', 'extra.bias']. Was "
        "config.json edited, or the file copied from another run?"
    )
    tied = Tiny(tie=True)
    save_weights(path, tied, 1)
    assert set(read_weights(path)[0]) == {"emb.weight"}  # the tied head is saved once
    assert load_weights(path, Tiny(tie=True)) == 1  # and its missing name is no refusal
    assert refusal(DamagedFile, load_weights, path, Tiny()).startswith(
        f"{path} does not fit this model: missing ['head.weight'], unexpected []. "
    )


def test_a_state_file_that_is_not_a_plain_state_is_named(tmp_path):
    path = tmp_path / "train_state.pt"
    torch.save({"format": 1, "step": 2, "thing": nn.Linear(1, 1)}, path)  # a module: a pickle weights_only refuses
    assert refusal(DamagedFile, read_state, path) == (
        f"{path} was refused: it holds objects other than tensors and plain values, which glassformer never "
        "unpickles (they could run code). glassformer did not write it; delete it, and start a new run to train "
        "further."
    )
    path.write_bytes(b"PK\x03\x04 cut")
    msg = refusal(DamagedFile, read_state, path)
    assert msg.startswith(f"{path} is damaged (") and msg.endswith(
        "). The weights still sample; to train further, start a new run."
    )
    torch.save({"format": 1}, path)
    assert refusal(DamagedFile, read_state, path) == (
        f"{path} is not a glassformer training state of format 1 (found 1). The weights still sample; to train "
        "further, start a new run."
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

    def full_disk(*args, **kw):
        raise OSError("disk full")

    monkeypatch.setattr(ckpt, "save_file", full_disk)
    with pytest.raises(OSError, match="disk full"):
        save_checkpoint(tmp_path, model, opt, 1, torch.Generator(), {})
    assert os.listdir(tmp_path) == []


def test_which_state_file_a_checkpoint_is_read_with(tmp_path):
    model, opt = pair()
    assert refusal(NotFound, load_checkpoint, tmp_path, model) == (
        f"{tmp_path} has no model.safetensors: no checkpoint was saved there yet (training saves one at every "
        "evaluation). Start the run again, without --resume."
    )
    save_checkpoint(tmp_path, model, opt, 4, torch.Generator(), {})
    state_bytes = (tmp_path / "train_state.pt").read_bytes()
    torch.save({"format": 1, "step": 4, "optimizer": opt.state_dict(), "rng": {}}, tmp_path / "train_state.pt")
    assert refusal(DamagedFile, load_checkpoint, tmp_path, model) == (
        f"{tmp_path / 'train_state.pt'} is damaged: its sha256 differs from the one model.safetensors (step 4) "
        f"recorded for it. The weights still sample: glassformer sample {tmp_path}. To train further, start a new run."
    )
    (tmp_path / "train_state.pt").write_bytes(b"junk")  # unreadable and not the named one: the same refusal
    assert "its sha256 differs from the one model.safetensors (step 4)" in refusal(
        DamagedFile, load_checkpoint, tmp_path, model
    )
    (tmp_path / "train_state.pt").unlink()
    assert refusal(DamagedFile, load_checkpoint, tmp_path, model) == (
        f"{tmp_path} has model.safetensors but no train_state.pt file (the optimizer and random streams), so "
        f"training cannot continue exactly. The weights still sample: glassformer sample {tmp_path}. To train "
        "further, start a new run."
    )
    (tmp_path / ".train_state.pt.zz.tmp").write_bytes(state_bytes)  # the named state, left in its temp file
    assert load_checkpoint(tmp_path, model)["step"] == 4 and (tmp_path / "train_state.pt").read_bytes() == state_bytes
    assert not (tmp_path / ".train_state.pt.zz.tmp").exists()
    torch.save({"format": 1, "step": 7}, tmp_path / "train_state.pt")
    assert refusal(DamagedFile, load_checkpoint, tmp_path, model) == (
        f"{tmp_path}: model.safetensors is from step 4 but train_state.pt from step 7: they are not one checkpoint. "
        "The weights alone still sample; to train on, start a new run."
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
    assert "model.safetensors is from step 3 but train_state.pt from step 2" in refusal(
        DamagedFile, load_checkpoint, tmp_path, model
    )


def test_a_state_missing_its_random_streams_is_named_with_the_key(tmp_path):
    model, opt = pair()
    save_checkpoint(tmp_path, model, opt, 2, torch.Generator(), {})
    state = read_state(tmp_path / "train_state.pt")
    del state["rng"]["batches"]
    torch.save(state, tmp_path / "train_state.pt")
    save_file(ckpt.weights_dict(model), str(tmp_path / "model.safetensors"), metadata={"step": "2"})
    assert refusal(DamagedFile, load_checkpoint, tmp_path, model, opt, torch.Generator()) == (
        f"{tmp_path / 'train_state.pt'} does not fit this model and optimizer ('batches'). The weights still "
        "sample; to train further, start a new run."
    )


def test_first_line_keeps_the_first_sentence_of_the_first_line_at_most_200_characters():
    assert ckpt._first_line(ValueError("  bad header. More detail here.\nsecond line")) == "bad header"
    assert ckpt._first_line(ValueError("")) == "ValueError" and ckpt._first_line(KeyError()) == "KeyError"
    assert ckpt._first_line(ValueError("x" * 300)) == "x" * 200
    assert ckpt._first_line(ValueError("a.b. c")) == "a.b"


def test_a_file_without_the_tied_weight_is_refused_not_loaded_as_nothing(tmp_path):
    """Bug found in this sweep: both names of a tied pair were excused as "tied" when missing, so a
    file lacking the embedding (here: an empty one) loaded into a tied model silently, leaving its
    random initial weights."""
    path = tmp_path / "w.safetensors"
    save_file({}, str(path), metadata={"step": "3"})
    assert refusal(DamagedFile, load_weights, path, Tiny(tie=True)) == (
        f"{path} does not fit this model: missing ['emb.weight', 'head.weight'], unexpected []. Was config.json "
        "edited, or the file copied from another run?"
    )
    save_file({"head.weight": torch.ones(3, 2)}, str(path))  # either name of the pair restores both
    model = Tiny(tie=True)
    assert load_weights(path, model) == -1 and torch.equal(model.emb.weight, torch.ones(3, 2))
    save_file({"head.weight": torch.ones(3, 2), "extra": torch.zeros(1)}, str(path))
    assert refusal(DamagedFile, load_weights, path, Tiny(tie=True)).startswith(
        f"{path} does not fit this model: missing [], unexpected ['extra']. "
    )  # the tied twin is not missing
