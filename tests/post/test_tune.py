"""Post-training runs through the one trainer (post/tune.py): a tiny base run, pretrained for a few
steps on post/data.py's arithmetic text, taken through SFT, DPO and GRPO for a few steps each.

Each test asserts what the stage claims: the assistant-token loss goes down, the DPO loss starts at
ln 2 whatever β and its reward margin rises, GRPO's KL starts at 0 and its figures are finite, the
new tokens' rows are the means of the base's, and the base run's files are byte for byte what they
were. Bad input is refused by key and fields before any directory is made."""

from __future__ import annotations

import json
import math
import re
from dataclasses import replace

import pytest
import torch
from helpers import arithmetic_base
from safetensors.torch import load_file

from glassformer.errors import DamagedFile, NotFound, UsageError
from glassformer.models import build_model
from glassformer.post import tune
from glassformer.post.chat import CHATML, END_OF_TURN, write_conversations
from glassformer.post.data import BUILTIN, Question, arithmetic_chats, arithmetic_questions
from glassformer.post.grpo import exact_answer
from glassformer.post.preference import PreferenceBatch
from glassformer.post.sft import IGNORE
from glassformer.text.specials import SpecialTokens
from glassformer.train.checkpoint import load_model
from glassformer.train.record import MetricsLog

INTEGER = re.compile(r"-?\d+")  # what exact_answer reads: the last integer of an answer
TINY = ["--max_steps=12", "--eval_interval=6", "--eval_iters=2", "--batch_size=8", "--lr=3e-3", "--threads=1"]


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """A seed000 GPT pretrained 20 steps on sums written out (its characters cover the chats')."""
    return arithmetic_base(tmp_path_factory.mktemp("post"), steps=20, n_sums=300)


def snapshot(run_dir):
    return {p.name: p.read_bytes() for p in sorted(run_dir.iterdir()) if p.is_file() and p.name != "train.lock"}


def evals(run_dir):
    return [r for r in MetricsLog(run_dir / "metrics.jsonl").read() if r["kind"] == "eval"]


# ---- the vocabulary grown ----------------------------------------------------------------------------------------
def test_grow_vocab_keeps_every_base_weight_and_starts_new_rows_at_the_mean(base):
    model, tokenizer, _ = load_model(base)
    V = tokenizer.vocab_size
    grown = tune.grow_vocab(model, replace(model.cfg, vocab_size=V + 2)).eval()
    table = grown.tok_embed.table.weight
    assert torch.equal(table[:V], model.tok_embed.table.weight)
    assert torch.equal(table[V], model.tok_embed.table.weight.mean(0))
    assert torch.equal(grown.head.bias[V:], model.head.bias.mean().expand(2))
    ids = torch.tensor([tokenizer.encode("12+34=46\n")])  # (1, T) old ids read as before
    assert torch.equal(grown(ids)[..., :V], model(ids))


# ---- SFT ---------------------------------------------------------------------------------------------------------
def test_sft_lowers_the_assistant_loss_and_leaves_the_base_untouched(base, tmp_path):
    before = snapshot(base)
    data = tmp_path / "chats.jsonl"
    write_conversations(data, arithmetic_chats(64))
    run = tune.start("sft", base, str(data), out=tmp_path / "sft", overrides=TINY, progress=False)
    result = tune.train(run)
    assert result.status == "done" and result.step == 12
    records = evals(tmp_path / "sft")
    assert [r["step"] for r in records] == [0, 6, 12]
    assert records[-1]["train_loss"] < records[0]["train_loss"] - 0.3
    assert records[-1]["val_loss"] < records[0]["val_loss"]
    assert snapshot(base) == before  # not a byte of the base run changed
    config = json.loads((tmp_path / "sft" / "config.json").read_text())
    assert config["post"]["method"] == "sft" and config["post"]["base"] == str(base.resolve())
    assert config["post"]["data_sha256"] and config["post"]["lora"] is None
    # a run every verb opens: its model and its tokenizer, the base's ids unchanged
    model, tokenizer, _ = load_model(tmp_path / "sft")
    _, base_tokenizer, _ = load_model(base)
    assert isinstance(tokenizer, SpecialTokens) and tokenizer.tokens == list(CHATML.specials)
    assert tokenizer.encode("12+34=") == base_tokenizer.encode("12+34=")
    assert model.cfg.vocab_size == base_tokenizer.vocab_size + len(CHATML.specials)


def test_sft_batches_learn_only_the_assistant_tokens(base, tmp_path):
    run = tune.start("sft", base, BUILTIN, out=tmp_path / "sft", overrides=TINY, progress=False)
    batch = run.trainer.batches.train_batch(torch.Generator().manual_seed(0))
    tokenizer = run.tokenizer
    for row_ids, row_labels in zip(batch.ids.tolist(), batch.labels.tolist(), strict=True):
        said = tokenizer.decode([y for y in row_labels if y != IGNORE])
        assert said.endswith("<|im_end|>") and said[:-10].isdigit()  # the answer and its end, nothing else
        assert "<|im_start|>user" in tokenizer.decode(row_ids)


def test_sft_resumes_exactly(base, tmp_path):
    whole = tune.start("sft", base, BUILTIN, out=tmp_path / "whole", overrides=TINY, progress=False)
    tune.train(whole)
    half = tune.start("sft", base, BUILTIN, out=tmp_path / "half", overrides=[*TINY, "--max_steps=6"], progress=False)
    tune.train(half)
    del half
    resumed = tune.resume(tmp_path / "half", ["--max_steps=12"], progress=False)
    assert resumed.trainer.step == 6
    tune.train(resumed)
    a, b = load_file(tmp_path / "whole" / "model.safetensors"), load_file(tmp_path / "half" / "model.safetensors")
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_sft_with_lora_trains_only_a_and_b_then_merges(base, tmp_path):
    lora = tune.LoRASettings(r=2, alpha=4.0)
    run = tune.start("sft", base, BUILTIN, out=tmp_path / "lora", overrides=TINY, lora=lora, progress=False)
    trained = {n for n, p in run.model.named_parameters() if p.requires_grad}
    assert trained and all(n.endswith((".A", ".B")) and ".attn." in n for n in trained)
    assert tune.train(run).status == "done"
    out = tmp_path / "lora"
    assert not (out / "train_state.pt").exists() and (out / "lora.safetensors").exists()
    assert json.loads((out / "config.json").read_text())["post"]["lora"]["merged"] is True
    merged, _, _ = load_model(out)  # a plain model of the base's kind
    model, _, _ = load_model(base)
    grown = tune.grow_vocab(model, merged.cfg)
    new, old = merged.state_dict(), grown.state_dict()
    changed = {k for k in new if not torch.equal(new[k], old[k])}
    assert changed and all(".attn." in k for k in changed)  # only the projections LoRA reached moved
    with pytest.raises(UsageError) as e:
        tune.resume(out, ["--max_steps=20"], progress=False)
    assert e.value.code == "post.merged"


# ---- DPO ---------------------------------------------------------------------------------------------------------
def test_dpo_starts_at_ln2_whatever_beta_and_its_margin_rises(base, tmp_path):
    before = snapshot(base)
    run = tune.start("dpo", base, BUILTIN, out=tmp_path / "dpo", overrides=TINY, progress=False)
    batch = run.trainer.batches.train_batch(torch.Generator().manual_seed(0))
    assert isinstance(batch, PreferenceBatch)
    for beta in (0.1, 0.5, 2.0):  # policy = reference: every reward is 0
        loss = tune.DPO(run.loss.reference, beta)(run.model, batch)
        assert loss.item() == pytest.approx(math.log(2), abs=1e-6)
    assert tune.train(run).status == "done"
    records = evals(tmp_path / "dpo")
    assert records[0]["train_loss"] == pytest.approx(math.log(2), abs=1e-6)
    assert records[0]["train_reward_margin"] == 0.0
    assert records[-1]["train_reward_margin"] > 0.02
    assert records[-1]["train_loss"] < math.log(2)
    assert snapshot(base) == before


# ---- GRPO --------------------------------------------------------------------------------------------------------
def test_grpo_samples_groups_and_starts_with_zero_kl(base, tmp_path):
    overrides = ["--max_steps=3", "--eval_interval=3", "--eval_iters=1", "--batch_size=2", "--threads=1"]
    run = tune.start("grpo", base, BUILTIN, out=tmp_path / "grpo", overrides=overrides, group=4, progress=False)
    assert tune.train(run).status == "done"
    records = MetricsLog(tmp_path / "grpo" / "metrics.jsonl").read()
    steps = [r for r in records if r["kind"] == "grpo"]
    assert [r["step"] for r in steps] == [1, 2, 3]
    assert steps[0]["kl"] == 0.0  # the policy is its reference before the first update
    assert all(math.isfinite(r[k]) for r in steps for k in ("reward", "kl", "clip_ratio", "length"))
    assert all(1 <= r["length"] <= 8 for r in steps)
    assert all(math.isfinite(r["loss"]) for r in records if r["kind"] == "log")
    assert [r["step"] for r in records if r["kind"] == "eval"] == [0, 3]


def test_grpo_accuracy_is_the_greedy_answer_of_each_prompt_decoded_alone(base, tmp_path):
    """GRPO's evaluation decodes prompts of one length together: each row's answer is the one that
    prompt gets decoded alone (sample.py's greedy), and the accuracy is exact_answer's share of them."""
    run = tune.start("grpo", base, BUILTIN, out=tmp_path / "g", overrides=["--threads=1"], group=2, progress=False)
    prompts = run.trainer.batches.parts["val"][:6]
    prompts = [*prompts, tune.Prompt(prompts[0].ids[1:], prompts[0].answer)]  # a second length
    alone = [run.loss.complete(p, 1, 0.0)[0] for p in prompts]
    assert run.loss.greedy(prompts) == alone
    right = [exact_answer(run.loss.text(c), p.answer) for c, p in zip(alone, prompts, strict=True)]
    assert float(run.loss.measure(run.model, prompts)["accuracy"]) == pytest.approx(sum(right) / len(prompts))


def test_grpo_advantages_are_finite_when_every_answer_scores_the_same(base, tmp_path):
    run = tune.start("grpo", base, BUILTIN, out=tmp_path / "g", overrides=["--threads=1"], group=3, progress=False)
    run.loss.max_new_tokens = 2
    loss = run.loss(run.model, run.trainer.batches.parts["train"][:2])
    assert math.isfinite(loss.item()) and run.loss.last["kl"] == 0.0


# ---- bad input: one clear error each, nothing made or touched ----------------------------------------------------
def test_a_file_with_no_assistant_turn_names_its_line(base, tmp_path):
    data = tmp_path / "chats.jsonl"
    data.write_text(
        json.dumps({"messages": [{"role": "user", "content": "1+2="}, {"role": "assistant", "content": "3"}]})
        + "\n"
        + json.dumps({"messages": [{"role": "user", "content": "1+2="}]})
        + "\n",
        encoding="utf-8",
    )
    with pytest.raises(DamagedFile) as e:
        tune.start("sft", base, str(data), out=tmp_path / "out", progress=False)
    assert e.value.code == "chat.line" and e.value.fields["line"] == 2
    assert e.value.fields["detail"].code == "chat.no_assistant"
    assert not (tmp_path / "out").exists()


def test_sft_packed_trains_on_packed_rows_and_resumes_packed(base, tmp_path):
    """--pack: the run's config says so, its batches hold several conversations a row (the same
    targets as padding the same picks), the loss falls, and a resumed run packs as well. (The
    built-in sums are all about 26 positions long, so here padding wastes little: the made-up set in
    test_sft.py shows what packing saves.)"""
    overrides = [*TINY, "--max_steps=6", "--seq_len=64"]
    run = tune.start("sft", base, BUILTIN, out=tmp_path / "packed", overrides=overrides, progress=False, pack=True)
    assert run.config["post"]["pack"] is True
    batch = run.trainer.batches.train_batch(torch.Generator().manual_seed(0))
    assert batch.is_packed() and batch.ids.size(1) == 64
    assert batch.ids.size(0) == 4  # eight conversations of 26 to 29 positions, two a row
    padded = tune.Examples(run.trainer.batches.parts["train"], tune.collate_for("sft", "cpu"), 8, 2)
    same = padded.train_batch(torch.Generator().manual_seed(0))
    assert int((batch.labels != IGNORE).sum()) == int((same.labels != IGNORE).sum())  # the same targets
    tune.train(run)
    records = evals(tmp_path / "packed")
    assert records[-1]["train_loss"] < records[0]["train_loss"]
    del run
    resumed = tune.resume(tmp_path / "packed", ["--max_steps=8"], progress=False)
    assert resumed.trainer.batches.train_batch(torch.Generator().manual_seed(0)).is_packed()
    assert (
        tune.start("sft", base, BUILTIN, out=tmp_path / "padded", overrides=TINY, progress=False).config["post"]["pack"]
        is False
    )  # the default is today's padding


def test_packing_is_refused_for_a_conversation_longer_than_seq_len_and_for_dpo(base, tmp_path):
    with pytest.raises(UsageError) as e:
        tune.start("sft", base, BUILTIN, out=tmp_path / "out", overrides=["--seq_len=8"], progress=False, pack=True)
    assert e.value.code == "sft.too_long" and e.value.fields["seq_len"] == 8 and e.value.fields["n"] > 8
    with pytest.raises(UsageError) as e:
        tune.start("dpo", base, BUILTIN, out=tmp_path / "out", progress=False, pack=True)
    assert e.value.code == "post.pack_method" and e.value.fields["method"] == "dpo"
    assert not (tmp_path / "out").exists()


def test_a_base_run_that_does_not_exist(tmp_path):
    with pytest.raises(NotFound) as e:
        tune.start("sft", tmp_path / "nowhere", BUILTIN, out=tmp_path / "out", progress=False)
    assert e.value.code == "run.missing"
    assert not (tmp_path / "out").exists()


def test_an_existing_directory_is_never_written(base, tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    notes = "keep me"  # the user's own file
    (out / "notes.txt").write_text(notes)
    with pytest.raises(UsageError) as e:
        tune.start("sft", base, BUILTIN, out=out, progress=False)
    assert e.value.code == "post.out_exists" and e.value.fields["dir"] == out
    assert [p.name for p in out.iterdir()] == ["notes.txt"] and (out / "notes.txt").read_text() == notes


def test_a_lora_rank_larger_than_the_layer(base, tmp_path):
    with pytest.raises(UsageError) as e:
        tune.start("sft", base, BUILTIN, out=tmp_path / "out", lora=tune.LoRASettings(65, 8.0), progress=False)
    assert e.value.code == "lora.rank" and e.value.fields["r"] == 65 and e.value.fields["most"] == 64
    assert not (tmp_path / "out").exists()


def test_a_model_field_override_is_refused(base, tmp_path):
    with pytest.raises(UsageError) as e:
        tune.start("sft", base, BUILTIN, out=tmp_path / "out", overrides=["--d_model=32"], progress=False)
    assert e.value.code == "post.model_field" and e.value.fields["keys"] == "d_model"


def test_characters_the_base_cannot_write_name_the_example(base, tmp_path):
    data = tmp_path / "chats.jsonl"
    write_conversations(data, [[{"role": "user", "content": "1+2="}, {"role": "assistant", "content": "three"}]])
    with pytest.raises(UsageError) as e:
        tune.start("sft", base, str(data), out=tmp_path / "out", progress=False)
    assert e.value.code == "post.example" and e.value.fields["index"] == 0
    assert e.value.fields["detail"].code == "tokenizer.unseen"


def test_build_model_is_the_one_way_the_grown_model_is_made(base):
    model, _, _ = load_model(base)
    grown = tune.grow_vocab(model, model.cfg)  # the same size: a copy
    assert type(grown) is type(build_model(model.cfg))
    assert all(torch.equal(a, b) for a, b in zip(grown.state_dict().values(), model.state_dict().values(), strict=True))


def test_sft_in_bfloat16_through_the_trainers_autocast(base, tmp_path):
    overrides = [*TINY, "--max_steps=4", "--eval_interval=4", "--dtype=bfloat16"]
    run = tune.start("sft", base, BUILTIN, out=tmp_path / "bf16", overrides=overrides, progress=False)
    with run.trainer.autocast():
        batch = run.trainer.batches.train_batch(torch.Generator().manual_seed(0))
        assert run.model(batch.ids).dtype == torch.bfloat16  # (B, T, V) the forward ran in bf16
    assert tune.train(run).status == "done"
    records = evals(tmp_path / "bf16")
    assert json.loads((tmp_path / "bf16" / "config.json").read_text())["train"]["dtype"] == "bfloat16"
    assert all(math.isfinite(r["train_loss"]) for r in records) and records[-1]["train_loss"] < records[0]["train_loss"]


# ---- on-policy pairs: the model's own mistakes -------------------------------------------------------------------
@pytest.fixture(scope="module")
def sft(base, tmp_path_factory):
    """A few steps of SFT: a chat run whose answers are mostly wrong, each with an integer in it."""
    out = tmp_path_factory.mktemp("own") / "sft"
    assert tune.train(tune.start("sft", base, BUILTIN, out=out, overrides=TINY, progress=False)).status == "done"
    return out


def test_own_mistakes_reject_the_models_own_wrong_answers(sft):
    """Each pair's rejected answer is the model's greedy answer (decoded here prompt by prompt) where
    that is wrong, else the first wrong one of its samples (drawn here again from the same seed); half
    the questions are given the model's own greedy answer as the right one, so their pairs come from
    the samples, and a question answered right every time gives no pair."""
    model, tokenizer, config = load_model(sft)
    decoder = tune.GRPO(model.eval(), model, tokenizer, tokenizer.encode(END_OF_TURN["chatml"])[0], 3, 6, 0.0, 1.0)
    questions = arithmetic_questions(10, seed=5)
    prompts = tune.encode_examples("grpo", tokenizer, CHATML.template(), questions)
    greedy = [decoder.text(decoder.complete(p, 1, 0.0)[0]) for p in prompts]
    own = [INTEGER.findall(g)[-1] for g in greedy]  # the tiny model writes a number, though a wrong one
    asked = [Question(q.prompt, own[i] if i % 2 else q.answer) for i, q in enumerate(questions)]
    pairs = tune.own_mistakes(sft, asked, samples=3, max_new_tokens=6, seed=7)
    expected = []
    with torch.no_grad():
        torch.manual_seed(7)
        for question, prompt, answer in zip(asked, prompts, greedy, strict=True):
            answers = [answer]
            if exact_answer(answer, question.answer):
                answers += [decoder.text(c) for c in decoder.complete(prompt, 3, 1.0)]
            wrong = [a for a in answers if a.strip() and not exact_answer(a, question.answer)]
            if wrong:
                expected.append((question.prompt, question.answer, wrong[0]))
    assert [(p.prompt, p.chosen, p.rejected) for p in pairs] == expected
    rejected = {p.prompt[0]["content"]: p.rejected for p in pairs}
    wrong_greedy = [i for i in range(0, 10, 2) if not exact_answer(greedy[i], questions[i].answer)]
    assert wrong_greedy and all(rejected[questions[i].prompt[0]["content"]] == greedy[i] for i in wrong_greedy)
    assert any(p.chosen == own[i] for p in pairs for i in range(1, 10, 2))  # some pairs come from the samples
    assert all(not exact_answer(p.rejected, p.chosen) for p in pairs)


def test_own_mistakes_leaves_the_callers_random_stream_as_it_was(sft):
    torch.manual_seed(11)
    expected = torch.rand(3)
    torch.manual_seed(11)
    tune.own_mistakes(sft, arithmetic_questions(4, seed=5), samples=2, max_new_tokens=6)
    assert torch.equal(torch.rand(3), expected)


def test_own_mistakes_refuses_bad_input(base, sft):
    questions = arithmetic_questions(3, seed=5)
    with pytest.raises(UsageError) as e:
        tune.own_mistakes(base, questions)  # a pretrained run: no chat template to ask in
    assert e.value.code == "post.not_post" and e.value.fields == {"dir": base}
    with pytest.raises(UsageError) as e:
        tune.own_mistakes(sft, [])
    assert e.value.code == "post.no_questions"
    for samples in (-1, 1.5, True):
        with pytest.raises(UsageError) as e:
            tune.own_mistakes(sft, questions, samples=samples)
        assert e.value.code == "post.samples" and e.value.fields == {"samples": samples}
    model, tokenizer, _ = load_model(sft)
    decoder = tune.GRPO(model.eval(), model, tokenizer, tokenizer.encode(END_OF_TURN["chatml"])[0], 1, 6, 0.0, 0.0)
    prompts = tune.encode_examples("grpo", tokenizer, CHATML.template(), questions)
    right = [
        Question(q.prompt, INTEGER.findall(decoder.text(g))[-1])
        for q, g in zip(questions, decoder.greedy(prompts), strict=True)
    ]
    with pytest.raises(UsageError) as e:  # the greedy answer is right every time, and nothing is sampled
        tune.own_mistakes(sft, right, samples=0, max_new_tokens=6)
    assert e.value.code == "post.no_mistakes" and e.value.fields == {"dir": sft, "n": 3, "samples": 0}
