"""Lesson — from a language model to an assistant, on the CPU: pretraining, SFT, LoRA, DPO and GRPO,
each stage measured on questions it never trained on, and what each changed inside the model.

The task is two-digit addition ("37+45=" → "82"): its answers can be checked, so every stage has an
accuracy and GRPO a reward that nothing can flatter. Every stage is the library's own:

    0. pretraining   a seed000 GPT trained on a text of sums (post/data.py's arithmetic_text), by
                     the one trainer (train/run.py's new_run): a model that continues text
    1. SFT           `glassformer sft BASE --data builtin:arithmetic` (post/tune.py): the chat
                     template's turns, the loss on the assistant's tokens only
    2. LoRA          the same SFT from the same base with only A and B trained (--lora-r/--lora-alpha,
                     on attention and the head), then merged; its update's rank from lora.safetensors
    3. DPO           `glassformer dpo SFT --data PAIRS --beta 2`: on-policy pairs (onpolicy_pairs:
                     tune.own_mistakes), the right sum preferred to the SFT model's own wrong answer
                     to it (greedy, or else sampled) on builtin:arithmetic's sums, against the frozen
                     SFT model as the reference
    4. GRPO          `glassformer grpo DPO --data builtin:arithmetic`: groups of sampled answers,
                     rewarded 1 when the last integer is the sum (grpo.py's exact_answer)

The accuracy of a model is the fraction of held-out sums its greedy answer gets right: post/tune.py's
GRPO.measure (greedy completion until the end-of-turn token, scored by exact_answer), the figure a GRPO
run logs as val_accuracy. The held-out sums are drawn with their own seed and none of them is in the
pretraining text or the post-training data. Before SFT the base is read as the stage reads it: its
vocabulary grown by the chat's control tokens (tune.grow_vocab) and the question in the chat template;
the base's accuracy on the plain text "37+45=" (until the newline) says what it knew already. Beside
it, DPO's own task: the share of held-out pairs (the right sum, post/data.py's off_by wrong one) whose
right answer the model gives the higher log π(y|x) (preference.py's sequence_logprobs).

After each stage, post/diff.py compares the stage's run with the run it started from: the layer and
the attention head whose weights moved most (‖ΔW‖ / ‖W‖), and for LoRA the rank of its update.

Run it:  glassformer lesson post-training [--fast] [--seed N] [--threads N] [--lang zh] [--explain]
Measured figures (three seeds, the machine): docs/lessons/post-training.md.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from pathlib import Path

import torch

from glassformer.config import POST_LESSON, POST_LESSON_FAST
from glassformer.errors import UsageError
from glassformer.inspect.causal_views import grid_png
from glassformer.lessons.common import Narrator, out_dir, save_png
from glassformer.messages import N_, NP_, in_language, pad, pad_left
from glassformer.post import diff, tune
from glassformer.post.chat import CHAT_FORMATS, END_OF_TURN, chat_tokenizer
from glassformer.post.data import (
    BUILTIN,
    BUILTIN_SEED,
    BUILTIN_SIZE,
    Preference,
    arithmetic_questions,
    arithmetic_text,
    off_by,
    write_preferences,
)
from glassformer.post.grpo import addition_prompts
from glassformer.post.preference import sequence_logprobs
from glassformer.train.checkpoint import load_model
from glassformer.train.record import MetricsLog

FORMAT = "chatml"  # the chat template of every stage
PRETRAIN_SEED = 1  # the sums of the pretraining text (post/data.py's chats are BUILTIN_SEED's)
HELD_OUT_SEED = 2  # the sums the accuracy is measured on; any also trained on are dropped
MAX_NEW_TOKENS = 6  # an answer: at most three digits and the end-of-turn token
GROUP = 4  # GRPO's completions a prompt
PAIR_SAMPLES = 4  # DPO's pairs: answers sampled for a training sum whose greedy answer is right
# DPO's β: TRL's 0.1 kept pushing the pairs apart for all 100 steps and lowered the greedy accuracy of
# every seed; with β = 2 a pair's loss flattens once its margin is a few nats (docs/lessons/post-training.md)
DPO_BETA = 2.0
# LoRA on attention and on the head: the end-of-turn token is new, its head row the mean of the others, so
# its logit is never the largest until that row moves (on attention alone, LoRA never learns to stop)
LORA = tune.LoRASettings(r=8, alpha=16.0, target=r".*attn.*|head")
TUNINGS = ("sft", "lora", "dpo", "grpo")  # the lesson's tuning stages, in order (no hook's stage)
PAIRS_FILE = "dpo_pairs.jsonl"  # in runs/: DPO's on-policy pairs, the data its run names


@dataclass(frozen=True)
class Budget:
    """The steps of each stage, the sums of the pretraining text, and the held-out questions."""

    pretrain: int
    sums: int
    sft: int
    lora: int
    dpo: int
    grpo: int
    held_out: int
    batch: int  # conversations (or pairs, or prompts) a step, in every stage


FULL = Budget(**POST_LESSON)
FAST = Budget(**POST_LESSON_FAST)  # what the tests run
LR = {"pretrain": 3e-3, "sft": 3e-3, "lora": 1e-2, "dpo": 5e-5, "grpo": 3e-4}  # each stage's AdamW rate
NAMES = {
    "base": N_("pretrained base"),
    "sft": N_("after SFT"),
    "lora": N_("after SFT with LoRA"),
    "dpo": N_("after DPO"),
    "grpo": N_("after GRPO"),
}


# ---- the questions and the scorer --------------------------------------------------------------------------------
def held_out(n: int, pretrain_sums: int) -> list:
    """``n`` sums drawn with HELD_OUT_SEED, none of them in the pretraining text or the post-training data."""
    seen = {q for q, _ in addition_prompts(pretrain_sums, PRETRAIN_SEED)}
    seen |= {q for q, _ in addition_prompts(BUILTIN_SIZE, BUILTIN_SEED)}
    questions = [q for q in arithmetic_questions(4 * n + 100, HELD_OUT_SEED) if q.prompt[0]["content"] not in seen]
    return questions[:n]


def accuracy(model, tokenizer, questions: list) -> float:
    """The fraction of ``questions`` the model's greedy answer in the chat template gets right:
    tune.GRPO's own evaluation (GRPO.measure), on ids encoded as a GRPO run encodes its prompts."""
    fmt = CHAT_FORMATS[FORMAT]
    prompts = tune.encode_examples("grpo", tokenizer, fmt.template(), questions)
    end_id = tokenizer.encode(END_OF_TURN[FORMAT])[0]
    return _measure(model, tokenizer, end_id, prompts)


def plain_accuracy(model, tokenizer, questions: list) -> float:
    """The same scorer on the pretraining text's own form: "37+45=" continued until the newline."""
    end_id = tokenizer.encode("\n")[0]
    prompts = [tune.Prompt(tokenizer.encode(q.prompt[0]["content"]), q.answer) for q in questions]
    return _measure(model, tokenizer, end_id, prompts)


def _measure(model, tokenizer, end_id: int, prompts: list) -> float:
    scorer = tune.GRPO(model, model, tokenizer, end_id, GROUP, MAX_NEW_TOKENS, beta=0.0, temperature=0.0)
    with torch.no_grad():
        return float(scorer.measure(model, prompts)["accuracy"])


def preference_accuracy(model, tokenizer, questions: list) -> float:
    """The fraction of held-out pairs (the right sum against post/data.py's ``off_by`` wrong one) whose
    right answer the model gives the higher log π(y|x): preference.py's sequence_logprobs on the
    batches a DPO run reads (tune.collate_for). DPO's own task, scored without a reference model."""
    pairs = [Preference(q.prompt, q.answer, off_by(int(q.answer))) for q in questions]
    encoded = tune.encode_examples("dpo", tokenizer, CHAT_FORMATS[FORMAT].template(), pairs)
    batch = tune.collate_for("dpo", "cpu")(encoded)
    with torch.no_grad():
        chosen = sequence_logprobs(model(batch.chosen_ids), batch.chosen_labels)  # (P,)
        rejected = sequence_logprobs(model(batch.rejected_ids), batch.rejected_labels)  # (P,)
    return float((chosen > rejected).double().mean())


def run_accuracy(run_dir: Path, questions: list) -> float:
    """The accuracy of a post-training run (its weights as written: the last step's)."""
    model, tokenizer, _ = load_model(run_dir)
    return accuracy(model.eval(), tokenizer, questions)


def run_preference(run_dir: Path, questions: list) -> float:
    """The preference accuracy of a post-training run on the held-out pairs."""
    model, tokenizer, _ = load_model(run_dir)
    return preference_accuracy(model.eval(), tokenizer, questions)


def base_accuracy(base_dir: Path, questions: list) -> dict:
    """The base read as SFT starts it (vocabulary grown, chat template), and on plain text."""
    model, tokenizer, _ = load_model(base_dir)
    model.eval()
    chat = chat_tokenizer(tokenizer, CHAT_FORMATS[FORMAT])
    grown = tune.grow_vocab(model, replace(model.cfg, vocab_size=chat.vocab_size)).eval()
    return {
        "chat": accuracy(grown, chat, questions),
        "plain": plain_accuracy(model, tokenizer, questions),
        "preference": preference_accuracy(grown, chat, questions),
    }


# ---- what a stage changed inside ---------------------------------------------------------------------------------
def changes(before: Path, after: Path) -> dict:
    """post/diff.py's views of ``after`` against ``before``: the layer and the head (a row of the heads
    view: a layer's q, k, v or o, and a head) that moved most by ‖ΔW‖ / ‖W‖, and LoRA's ranks."""
    pair = diff.open_pair(before, after)
    layers, _ = diff.weight_views(pair)
    heads = diff.head_view(pair)
    assert heads is not None  # a GPT's attention: diff's MultiHeadAttention
    i = max(range(len(layers.rows)), key=lambda k: layers.values[k][0])
    cells = [(v, r, h) for r, row in enumerate(heads.values) for h, v in enumerate(row)]
    value, r, h = max(cells)
    out = {
        "layer": layers.rows[i],
        "layer_change": layers.values[i][0],
        "head_row": heads.rows[r],
        "head": h,
        "head_change": value,
        "heads": heads,
    }
    lora = diff.lora_view(pair, after)
    if lora is not None:
        out["lora_ranks"] = sorted({int(v[1]) for v in lora.values})
        out["lora_layers"] = len(lora.rows)
    return out


# ---- the stages --------------------------------------------------------------------------------------------------
def pretrain(nar: Narrator, folder: Path, budget: Budget, seed: int, threads: int) -> Path:
    from glassformer.train.run import new_run, train

    nar.title(N_("0. A language model of sums: {steps} steps on {sums} written-out sums"), steps=budget.pretrain,
              sums=budget.sums)  # fmt: skip
    corpus = folder / "sums.txt"
    corpus.write_text(arithmetic_text(budget.sums, seed=PRETRAIN_SEED), encoding="utf-8")
    overrides = {
        "max_steps": budget.pretrain,
        "eval_interval": budget.pretrain,
        "eval_iters": 2,
        "seq_len": 32,
        "batch_size": budget.batch,
        "lr": LR["pretrain"],
        "dropout": 0.0,
        "seed": seed,
        "threads": threads,
    }
    start = time.perf_counter()
    run = new_run(
        "seed000",
        overrides,
        source=f"file:{corpus}",
        out=folder / "base",
        cache_dir=folder / "cache",
        progress=False,
        sample_chars=0,
    )
    run.trainer.progress_mode = "silent"
    train(run)
    nar.say("Pretrained in {seconds} s: a model that continues text, one sum a line.",
            seconds=f"{time.perf_counter() - start:.1f}")  # fmt: skip
    return folder / "base"


def onpolicy_pairs(runs: Path, seed: int) -> tuple[Path, list[Preference]]:
    """DPO's data: the SFT run's own wrong answers to builtin:arithmetic's sums (the ones SFT trained
    on; none is held out), each against the right sum (tune.own_mistakes), written to runs/PAIRS_FILE."""
    pairs = tune.own_mistakes(runs / "sft", arithmetic_questions(), PAIR_SAMPLES, MAX_NEW_TOKENS, seed=seed)
    write_preferences(runs / PAIRS_FILE, pairs)
    return runs / PAIRS_FILE, pairs


def post_stage(
    method: str,
    base: Path,
    out: Path,
    steps: int,
    lr: float,
    seed: int,
    threads: int,
    batch: int,
    source: str = BUILTIN,
    **options,
) -> float:
    """One post-training stage through post/tune.py, as `glassformer sft|dpo|grpo` runs it; its seconds."""
    overrides = {
        "max_steps": steps,
        "eval_interval": steps,
        "eval_iters": 1,
        "batch_size": batch,
        "lr": lr,
        "seed": seed,
        "threads": threads,
    }
    start = time.perf_counter()
    run = tune.start(method, base, source, out=out, overrides=overrides, chat_format=FORMAT, progress=False, **options)
    run.trainer.progress_mode = "silent"
    tune.train(run)
    return time.perf_counter() - start


def evals(run_dir: Path) -> list[dict]:
    return [r for r in MetricsLog(run_dir / "metrics.jsonl").read() if r["kind"] == "eval"]


def report_stage(nar: Narrator, stage: dict) -> None:
    nar.say(
        "Held-out accuracy {before} → {after} ({change:+.1f} points), trained in {seconds} s.",
        before=f"{stage['before']:.1%}",
        after=f"{stage['after']:.1%}",
        change=100 * (stage["after"] - stage["before"]),
        seconds=f"{stage['seconds']:.1f}",
    )
    nar.say(
        "Held-out pairs whose right sum is the more likely: {before} → {after}.",
        before=f"{stage['preference_before']:.1%}",
        after=f"{stage['preference_after']:.1%}",
    )
    change = stage["diff"]
    nar.say(
        "Moved most: layer {layer} (‖ΔW‖/‖W‖ = {layer_change}), and head {head} of {row} ({head_change}).",
        layer=change["layer"],
        layer_change=f"{change['layer_change']:.3f}",
        head=change["head"],
        row=change["head_row"],
        head_change=f"{change['head_change']:.3f}",
    )


def run(
    lang: str | None = None,
    explain: bool = False,
    out: str | Path | None = None,
    echo=print,
    fast: bool = False,
    seed: int = 0,
    threads: int = 1,
) -> dict:
    """Print the whole lesson; return what it computed (tests read it). ``out``'s runs/ must not hold an
    earlier lesson's runs: a run is never written over."""
    nar = Narrator(lang, explain, echo)
    folder = out_dir("post-training", out)
    runs = folder / "runs"
    if runs.exists():
        raise UsageError(
            "lesson.runs_exist",
            "{dir} holds the runs of an earlier post-training lesson, which "
            "this one never writes over: remove that folder, or give "
            "another --out.",
            dir=runs,
        )
    runs.mkdir(parents=True)
    return _lesson(nar, folder, runs, FAST if fast else FULL, seed, threads)


def _lesson(nar: Narrator, folder: Path, runs: Path, budget: Budget, seed: int, threads: int) -> dict:
    questions = held_out(budget.held_out, budget.sums)
    nar.why(
        N_(
            "Two-digit addition has one right answer a question, so every "
            "stage can be scored by a program: no judge model, nothing to "
            "flatter."
        )
    )
    base = pretrain(nar, runs, budget, seed, threads)
    acc = base_accuracy(base, questions)
    nar.say(
        "On {n} held-out sums (seed {seed}, none trained on): {plain} right "
        "as plain text (37+45= and on), {chat} right when asked in the "
        "chat template, which it has never seen.",
        n=len(questions),
        seed=HELD_OUT_SEED,
        plain=f"{acc['plain']:.1%}",
        chat=f"{acc['chat']:.1%}",
    )
    accuracies = {"base_plain": acc["plain"], "base": acc["chat"]}
    preferences = {"base": acc["preference"]}
    stages: dict[str, dict] = {}

    def stage(name: str, method: str, start_from: str, steps: int, source: str = BUILTIN, **options) -> Path:
        run_dir = runs / name
        seconds = post_stage(
            method, runs / start_from, run_dir, steps, LR[name], seed, threads, budget.batch, source, **options
        )
        accuracies[name] = run_accuracy(run_dir, questions)
        preferences[name] = run_preference(run_dir, questions)
        with in_language(nar.lang):  # diff's grids: titles and labels in the lesson's language
            change = changes(runs / start_from, run_dir)
        stages[name] = {
            "from": start_from,
            "before": accuracies[start_from],
            "after": accuracies[name],
            "preference_before": preferences[start_from],
            "preference_after": preferences[name],
            "seconds": seconds,
            "steps": steps,
            "diff": change,
        }
        report_stage(nar, stages[name])
        return run_dir

    nar.title(N_("1. SFT: {steps} steps on chats of sums, the loss on the assistant's tokens"), steps=budget.sft)
    nar.why(N_("SFT teaches the turns: where the answer goes and that it ends with the end-of-turn token."))
    stage("sft", "sft", "base", budget.sft)

    nar.title(N_("2. LoRA: the same SFT from the same base, only A and B trained (r = {r}, α = {alpha})"), r=LORA.r,
              alpha=LORA.alpha)  # fmt: skip
    stage("lora", "sft", "base", budget.lora, lora=LORA)
    change = stages["lora"]["diff"]
    nar.say(
        "LoRA wrapped {layers} layers; the rank of each update is {ranks}, never more than r = {r}.",
        layers=change["lora_layers"],
        ranks=", ".join(map(str, change["lora_ranks"])),
        r=LORA.r,
    )

    nar.title(N_("3. DPO: {steps} steps on pairs, the right sum preferred to the SFT model's own wrong answer"),
              steps=budget.dpo)  # fmt: skip
    pairs_file, pairs = onpolicy_pairs(runs, seed)
    nar.say(
        "The SFT model answers {n} of the {total} training sums wrong (greedy, or in {samples} samples): "
        "each wrong answer is the rejected one of a pair, the right sum the chosen.",
        n=len(pairs),
        total=BUILTIN_SIZE,
        samples=PAIR_SAMPLES,
    )
    dpo = stage("dpo", "dpo", "sft", budget.dpo, str(pairs_file), beta=DPO_BETA)
    stages["dpo"]["pairs"] = len(pairs)
    last = evals(dpo)[-1]
    nar.say(
        "On its own validation pairs the implicit reward ranks the right answer first in {share} of them.",
        share=f"{last['val_reward_accuracy']:.1%}",
    )
    stages["dpo"]["reward_accuracy"] = last["val_reward_accuracy"]
    nar.why(
        N_(
            "DPO asks only that the right answer gain on the wrong one against "
            "the reference; nothing keeps the right answer the most likely, "
            "so the pairs can be ranked right while the greedy answers get "
            "worse."
        )
    )

    nar.title(N_("4. GRPO: {steps} steps, {group} sampled answers a sum, reward 1 when it is right"),
              steps=budget.grpo, group=GROUP)  # fmt: skip
    grpo = stage("grpo", "grpo", "dpo", budget.grpo, group=GROUP, max_new_tokens=MAX_NEW_TOKENS)
    curve = [r for r in MetricsLog(grpo / "metrics.jsonl").read() if r["kind"] == "grpo"]
    rewards = [r["reward"] for r in curve]
    nar.say(
        "Mean reward of the sampled answers: {first} at the first step, {last} at the last.",
        first=f"{rewards[0]:.3f}",
        last=f"{rewards[-1]:.3f}",
    )
    stages["grpo"]["rewards"] = rewards
    nar.why(
        N_(
            "A group whose answers all get the same reward has no advantage "
            "to follow: GRPO learns from the sums the model sometimes gets "
            "right."
        )
    )
    stages["grpo"]["kl"] = [r["kl"] for r in curve]

    nar.title(N_("5. Held-out accuracy after each stage"))
    nar.show("  " + pad("", 24) + pad_left(nar.text(N_("answers")), 10) + pad_left(nar.text(N_("pairs")), 10))
    for key in ("base", *TUNINGS):
        nar.show(f"  {pad(nar.text(NAMES[key]), 24)}{accuracies[key]:>10.1%}{preferences[key]:>10.1%}")
    nar.why(
        N_(
            "answers: the greedy answer is the sum; pairs: the right sum has "
            "a higher log-probability than a wrong one off by 1 to 9."
        )
    )

    files = [
        accuracy_png(nar, accuracies, folder / "accuracy.png"),
        reward_png(nar, curve, folder / "grpo_reward.png"),
    ]
    files += [grid_png(stages[name]["diff"]["heads"], folder / f"diff_heads_{name}.png") for name in TUNINGS]
    nar.title(N_("Files written"))
    for f in files:
        nar.show(f"  {f}")
    for entry in stages.values():
        entry["diff"] = {k: v for k, v in entry["diff"].items() if k != "heads"}
    return {
        "seed": seed,
        "held_out_seed": HELD_OUT_SEED,
        "questions": [q.prompt[0]["content"] for q in questions],
        "accuracy": accuracies,
        "preference": preferences,
        "stages": stages,
        "runs": {name: runs / name for name in ("base", *TUNINGS)},
        "files": files,
    }


# ---- the charts --------------------------------------------------------------------------------------------------
def accuracy_png(nar: Narrator, accuracies: dict, path: Path) -> Path:
    from matplotlib.figure import Figure

    keys = ["base", *TUNINGS]
    fig = Figure(figsize=(6.4, 3.6), layout="constrained")
    ax = fig.subplots()
    ax.bar(range(len(keys)), [100 * accuracies[k] for k in keys], color="tab:blue")
    ax.set_xticks(range(len(keys)), [nar.text(NAMES[k]) for k in keys], fontsize=8)
    ax.set_ylabel(nar.text(N_("held-out accuracy (%)")))
    ax.set_ylim(0, 100)
    return save_png(fig, path)


def reward_png(nar: Narrator, curve: list[dict], path: Path) -> Path:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.4, 3.6), layout="constrained")
    ax = fig.subplots()
    steps = [r["step"] for r in curve]
    ax.plot(steps, [r["reward"] for r in curve], lw=1.0, label=nar.text(N_("mean reward")))
    ax.set_xlabel(nar.text(NP_("lesson.common.step", "step")))
    ax.set_ylabel(nar.text(N_("mean reward of the sampled answers")))
    ax.set_ylim(-0.02, 1.02)
    twin = ax.twinx()
    twin.plot(steps, [r["kl"] for r in curve], lw=0.8, color="tab:orange", label=nar.text(N_("KL to the reference")))
    twin.set_ylabel(nar.text(N_("KL to the reference")))
    (h1, l1), (h2, l2) = ax.get_legend_handles_labels(), twin.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, loc="lower right", fontsize=8)
    return save_png(fig, path)
