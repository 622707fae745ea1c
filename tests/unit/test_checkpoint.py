"""Checkpoints: atomic writes, weights_only loading, and never losing the last good one."""

from __future__ import annotations

import shutil

import pytest
import torch

import glassformer.train.checkpoint as ckpt
from glassformer.config import get_preset
from glassformer.models import GPT
from glassformer.train.checkpoint import load_checkpoint, load_weights, save_checkpoint, save_weights
from glassformer.train.optim import build_optimizer

pytestmark = pytest.mark.usefixtures("one_thread")  # fixture in tests/conftest.py


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

    def half_written(*args, **kwargs):
        with open(args[1], "wb") as f:  # save_file(tensors, path) and torch.save(obj, path) alike
            f.write(b"\x00" * 100)  # the temp file exists and holds garbage ...
        raise OSError("disk full")  # ... when the write dies

    if failing == "safetensors":
        monkeypatch.setattr(ckpt, "save_file", half_written)
    else:
        monkeypatch.setattr(ckpt.torch, "save", half_written)
    with pytest.raises(OSError, match="disk full"):
        save_checkpoint(tmp_path, model, opt, 20, gen, {"best_val": 1.0})
    monkeypatch.undo()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.safetensors", "train_state.pt"]
    fresh, _ = trained_pair(seed=3)
    state = load_checkpoint(tmp_path, fresh)
    assert state["step"] == 10 and state["best_val"] == 2.0
    assert all(torch.equal(good[n], p) for n, p in fresh.named_parameters())


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
    with pytest.raises(ValueError) as caught:
        load_checkpoint(tmp_path, model, other)
    message = str(caught.value)
    assert message.startswith(f"{tmp_path / 'train_state.pt'} does not fit this model and optimizer (")
    assert "()" not in message.split(". The weights")[0]  # the reason, from the error, is in the brackets


def test_mismatched_pair_is_refused(tmp_path):
    model, opt = trained_pair()
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    save_checkpoint(tmp_path / "a", model, opt, 4, torch.Generator(), {})
    save_checkpoint(tmp_path / "b", model, opt, 8, torch.Generator(), {})
    shutil.copy(tmp_path / "b" / "model.safetensors", tmp_path / "a" / "model.safetensors")
    with pytest.raises(ValueError) as caught:
        load_checkpoint(tmp_path / "a", model)
    assert str(caught.value).startswith(
        f"{tmp_path / 'a'}: model.safetensors is from step 8 but train_state.pt from step 4: they are not "
    )  # which run, which files, which steps


def test_missing_checkpoint_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="no model.safetensors"):
        load_checkpoint(tmp_path, trained_pair()[0])


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
    with pytest.raises(ValueError, match=r"old.pt is not a glassformer training state of format 1 \(found 0\)"):
        ckpt.read_state(tmp_path / "old.pt")
    torch.save([1, 2], tmp_path / "list.pt")
    with pytest.raises(ValueError, match=r"format 1 \(found 'list'\)"):
        ckpt.read_state(tmp_path / "list.pt")
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
    with pytest.raises(
        ValueError,
        match=r"model.safetensors is from step 5 but train_state.pt from step 3: "
        r"they are not one checkpoint",
    ):
        load_checkpoint(tmp_path, model, opt)


def test_weights_of_another_shape_are_refused_with_the_likely_cause(tmp_path):
    small, _ = trained_pair()
    save_weights(tmp_path / "w.safetensors", small, 1)
    other = GPT(get_preset("seed000").model.__class__(**{**vars(get_preset("seed000").model), "d_model": 32}))
    with pytest.raises(
        ValueError,
        match=r"w.safetensors does not fit this model \(.+\)\. The weights were saved "
        r"for another configuration: was config.json edited",
    ):
        load_weights(tmp_path / "w.safetensors", other)
