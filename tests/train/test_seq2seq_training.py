"""Training an encoder-decoder through the one trainer: label smoothing, tuple inputs, and a task
learnt for real in seconds."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from helpers import keyed, said

from glassformer.config import ModelConfig, TrainConfig
from glassformer.errors import UsageError
from glassformer.messages import t
from glassformer.models import build_model
from glassformer.nn.loss import LOSSES, label_smoothed_loss, next_token_loss
from glassformer.train.data import IGNORE, PairBatches, pair_source
from glassformer.train.loop import Trainer
from glassformer.translate import exact_match

pytestmark = pytest.mark.usefixtures("one_thread")  # tiny models: one thread is fastest


@pytest.mark.parametrize("eps", [0.0, 0.1, 0.3])
def test_label_smoothing_equals_pytorchs(eps):
    logits = torch.randn(3, 5, 11, dtype=torch.float64, requires_grad=True)
    targets = torch.randint(0, 11, (3, 5))
    targets[1, 3:] = IGNORE
    ours = label_smoothed_loss(logits, targets, eps)
    theirs = F.cross_entropy(logits.reshape(-1, 11), targets.reshape(-1), ignore_index=IGNORE, label_smoothing=eps)
    assert abs(ours.item() - theirs.item()) <= 1e-12
    (g_ours,) = torch.autograd.grad(ours, logits)
    (g_theirs,) = torch.autograd.grad(theirs, logits)
    assert (g_ours - g_theirs).abs().max() <= 1e-12
    if eps == 0.0:
        assert abs(ours.item() - next_token_loss(logits, targets).item()) <= 1e-12


def test_label_smoothing_keeps_a_floor_and_checks_its_inputs():
    """With ε > 0 even a perfect one-hot prediction is penalised: the target itself is spread."""
    confident = torch.full((1, 1, 4), -1e4)
    confident[0, 0, 2] = 1e4
    assert label_smoothed_loss(confident, torch.tensor([[2]]), 0.0).item() == 0.0
    assert label_smoothed_loss(confident, torch.tensor([[2]]), 0.1).item() > 100
    assert LOSSES["label_smoothed"] is label_smoothed_loss
    assert keyed(UsageError, label_smoothed_loss, confident, torch.tensor([[2]]), 1.0) == (
        "loss.smoothing",
        {"smoothing": 1.0},
    )  # in [0, 1)
    assert keyed(UsageError, label_smoothed_loss, confident, torch.tensor([2])) == (
        "loss.shapes",
        {"logits": (1, 1, 4), "targets": (1,)},
    )


def tiny(vocab_size: int) -> torch.nn.Module:
    torch.manual_seed(0)
    return build_model(
        ModelConfig(
            kind="seq2seq",
            vocab_size=vocab_size,
            d_model=32,
            n_heads=4,
            d_ff=64,
            n_layers=1,
            max_len=12,
            pad_id=0,
            norm="post",
            position="sinusoidal",
            share_embeddings=True,
            tie_weights=True,
            init="xavier",
        )
    )


def test_the_trainer_passes_a_tuple_input_as_separate_arguments():
    data = pair_source("digits:reverse", n_pairs=400, max_digits=4)
    tok = data.tokenizer
    batches = PairBatches(
        data.encoded("train"), data.encoded("val"), 16, tok.bos_id, tok.eos_id, tok.pad_id, eval_rows=64
    )
    model = tiny(tok.vocab_size)
    seen = []
    model.register_forward_pre_hook(lambda module, args: seen.append(len(args)))
    cfg = TrainConfig(batch_size=16, max_steps=20, lr=3e-3, eval_interval=20, log_interval=10, threads=1)
    trainer = Trainer(model, cfg, batches, progress="silent")
    before = trainer.evaluate_loss()
    result = trainer.fit()
    assert result.status == "done" and set(seen) == {2}  # every call was model(src, tgt_in)
    assert result.val_loss < before["val_loss"] and result.train_loss < before["train_loss"]


def test_copy_task_reaches_99_percent_exact_match_on_held_out_strings():
    data = pair_source("digits:copy", n_pairs=3000, max_digits=5)
    tok = data.tokenizer
    batches = PairBatches(data.encoded("train"), data.encoded("val"), 64, tok.bos_id, tok.eos_id, tok.pad_id)
    model = tiny(tok.vocab_size)
    cfg = TrainConfig(
        batch_size=64,
        max_steps=300,
        lr=3e-3,
        min_lr=1e-4,
        lr_schedule="cosine",
        warmup_steps=30,
        weight_decay=0.0,
        eval_interval=300,
        log_interval=100,
        threads=1,
    )
    Trainer(model, cfg, batches, evaluate=None, progress="silent").fit()
    assert exact_match(model, data, data.test) >= 0.99  # 300 strings never seen in training


def test_a_seq2seq_run_shows_and_keeps_its_translations_at_each_evaluation(tmp_path, capsys):
    """At each evaluation a pair run translates the first validation sources (greedy) and shows
    them, marking each wrong one with what was expected; samples.txt keeps the very same lines
    (bug guarded: the screen block lost, or different from the file)."""
    from glassformer.train.run import new_run, train
    from glassformer.translate import translate

    run = new_run(
        "seq2seq",
        ["--max_steps=2", "--eval_interval=2", "--eval_iters=1", "--d_model=16", "--batch_size=8", "--n_layers=1"],
        source="digits:reverse",
        out=tmp_path / "r",
        cache_dir=tmp_path / "c",
        progress=False,
        sample_chars=0,
    )
    with said() as heard:
        train(run)
    pairs = run.data.val[:4]
    outputs = translate(run.model, run.data, [s for s, _ in pairs])  # the final model: step 2's lines
    notes = {f["target"]: t(m, **f) for m, f in heard if f.keys() == {"target"}}  # "expected ..." per wrong one
    lines = [
        f"{s} → {o or '∅'}" + ("" if o == want else notes[want]) for (s, want), o in zip(pairs, outputs, strict=False)
    ]
    kept = (tmp_path / "r" / "samples.txt").read_text(encoding="utf-8")
    assert kept.count("=== step ") == 2 and kept.endswith("=== step 2 ===\n" + "\n".join(lines) + "\n\n")
    shown = capsys.readouterr().out
    translations = [(m, f) for m, f in heard if f.keys() == {"step", "lines"}]  # one block at each eval: steps 0, 2
    assert [f["step"] for _, f in translations] == [0, 2] and translations[-1][1]["lines"] == "\n".join(lines)
    assert all(t(m, **f) in shown for m, f in translations)
