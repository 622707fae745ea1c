"""Post-training runs: a base run taken through SFT, DPO or GRPO by the one trainer (train/loop.py).

    runs/<name>/config.json      {"post": {"method", "base", "base_weights_sha256", "data", "format",
                                 "lora", the method's settings}, "model": the base's, vocabulary grown,
                                 "train": the base's training settings with the command's overrides}
                tokenizer.json   the base's tokenizer plus the chat's control tokens (text/specials.py)
                model.safetensors · train_state.pt · best.safetensors · metrics.jsonl · loss.png
                lora.safetensors LoRA's A and B, written when a LoRA run finishes (then merged)

It is a run directory like any other: `sample`, the views and the explorer open it (its model is a
plain model of the base's kind), and `glassformer sft|dpo|grpo --resume RUN` continues it. The base
run is read, never written: config.json names it and records the sha256 of its weights, and a
resume refuses a base whose weights changed.

What each method gives the trainer is a loss that is a function of the model and a batch
(``Trainer(batch_loss=...)``); a reference model is a frozen copy the loss holds:

    sft    SFT(): the cross-entropy on the assistant's tokens of padded conversations (sft.py)
    dpo    DPO(reference, beta): the DPO loss of padded preference pairs (preference.py)
    grpo   GRPO(policy, reference, ...): G completions a prompt drawn with sample.py's
           ``generate_ids``, scored by ``exact_answer``, the GRPO loss (grpo.py)

The new ids of the control tokens need rows in the embedding and the head: ``grow_vocab`` builds the
model with the larger vocabulary and copies every base weight; each new row is the mean of the base's
rows (Hewitt 2021, "Initializing New Word Embeddings for Pretrained Language Models"): a new token's
logit starts at the mean logit, so the distribution over the old tokens moves little, and its
embedding starts inside the cloud the blocks were trained on, not at an arbitrary point.

DPO and GRPO turn dropout off in the policy (TRL's ``disable_dropout``, on by default for both): the
policy and the reference must agree at the start, where the DPO loss is ln 2 and the KL is 0.

LoRA (``lora=``): only A and B train; checkpoints hold them beside the frozen weights, so a stopped
run resumes exactly. When the run finishes, A and B are saved to lora.safetensors and merged into the
weights (``merge_and_unload``): model.safetensors is then a plain model every verb opens, and the
run is complete (a further stage starts from it as its base).
"""

from __future__ import annotations

import copy
import math
import time
import weakref
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Callable

import torch
from safetensors.torch import save_file
from torch import Tensor, nn

from glassformer.config import RUNS_DIR, ModelConfig, Preset, TrainConfig, apply_overrides, parse_overrides, to_dict
from glassformer.devices import using_threads
from glassformer.errors import DamagedFile, UsageError
from glassformer.files import atomic_write, write_json_atomic
from glassformer.messages import t
from glassformer.models import build_model
from glassformer.post import data as post_data
from glassformer.post.chat import (
    CHAT_FORMATS,
    END_OF_TURN,
    ChatTemplate,
    EncodedChat,
    Message,
    chat_tokenizer,
    encode_chat,
)
from glassformer.post.grpo import exact_answer, group_advantages, grpo_loss, score
from glassformer.post.lora import apply_lora, lora_layers, merge_and_unload
from glassformer.post.preference import PreferenceBatch, dpo_batch_loss
from glassformer.post.sft import (
    IGNORE,
    SFTBatch,
    encode_for_sft,
    pack_batch,
    pad_batch,
    pairs_of,
    sft_loss,
    token_logprobs,
)
from glassformer.sample import generate_ids
from glassformer.text.tokenizers import Tokenizer, load_tokenizer
from glassformer.train.checkpoint import (
    BEST_FILE,
    MODEL_FILE,
    STATE_FILE,
    load_model,
    load_weights,
    model_config,
    read_config,
    read_weights,
    save_weights,
    sha256_file,
    train_config,
)
from glassformer.train.loop import Trainer, TrainResult
from glassformer.train.run import acquire, release

METHODS = ("sft", "dpo", "grpo")
DEFAULT_STEPS = 100  # a post-training stage is short next to pretraining; --max_steps=N for more
DEFAULT_LORA_TARGET = r".*attn.*"  # every linear layer inside attention (the paper's choice: its projections)
LORA_FILE = "lora.safetensors"


@dataclass(frozen=True)
class LoRASettings:
    r: int
    alpha: float
    target: str = DEFAULT_LORA_TARGET
    dropout: float = 0.0


# ---- the model: the base's, with rows for the new tokens ---------------------------------------------------------
@torch.no_grad()
def grow_vocab(base: nn.Module, cfg: ModelConfig) -> nn.Module:
    """A model of ``cfg`` (the base's config with a larger vocab_size) holding every weight of ``base``;
    each new row of a vocabulary-sized tensor (embedding, head, head bias) is the mean of its base rows."""
    old = base.cfg.vocab_size
    grown = build_model(cfg)
    held = base.state_dict()
    for name, tensor in grown.state_dict().items():  # the tensors share the parameters' storage
        weight = held[name]
        if weight.shape == tensor.shape:
            tensor.copy_(weight)
        else:  # (V + k, ...) from (V, ...): the old rows, then k copies of their mean
            tensor[:old].copy_(weight)  # (V, ...)
            tensor[old:].copy_(weight.mean(dim=0))  # (k, ...)
    return grown


def frozen_copy(model: nn.Module) -> nn.Module:
    """The reference: a copy that never trains and never drops out."""
    return copy.deepcopy(model).requires_grad_(False).eval()


# ---- examples as ids ---------------------------------------------------------------------------------------------
def encode_response(tokenizer: Tokenizer, template: ChatTemplate, messages: list[Message]) -> EncodedChat:
    """``encode_for_sft`` with the mask kept on the last assistant turn only: the response a preference
    or a reward judges (earlier assistant turns are part of its prompt)."""
    encoded = encode_for_sft(tokenizer, template, messages)
    mask = encoded.assistant_mask
    end = max(i for i, m in enumerate(mask) if m) + 1
    start = end
    while start > 0 and mask[start - 1]:
        start -= 1
    return EncodedChat(encoded.text, encoded.ids, [int(start <= i < end) for i in range(len(mask))])


@dataclass(frozen=True)
class Prompt:
    """A GRPO prompt: its ids (ending with the assistant's header) and the answer the reward checks."""

    ids: list[int]
    answer: str


def encode_examples(method: str, tokenizer: Tokenizer, template: ChatTemplate, examples: list[Any]) -> list[Any]:
    """Every example as ids; an example the tokenizer or the template cannot take names itself (by
    its index from 0)."""
    out: list[Any] = []
    for i, example in enumerate(examples):
        try:
            if method == "sft":
                out.append(encode_for_sft(tokenizer, template, example))
            elif method == "dpo":
                chosen, rejected = example.conversations()
                out.append(
                    (encode_response(tokenizer, template, chosen), encode_response(tokenizer, template, rejected))
                )
            else:
                prompt = encode_chat(tokenizer, template, example.prompt, add_generation_prompt=True)
                out.append(Prompt(prompt.ids, example.answer))
        except UsageError as e:
            raise UsageError("post.example", "example {index}: {detail}", index=i, detail=e) from None
    return out


def longest(method: str, encoded: list[Any], max_new_tokens: int = 0) -> int:
    """The most positions one example takes: inputs ids[:-1], or a prompt and its completion."""
    if method == "sft":
        return max(len(e.ids) - 1 for e in encoded)
    if method == "dpo":
        return max(len(e.ids) - 1 for pair in encoded for e in pair)
    return max(len(p.ids) for p in encoded) + max_new_tokens - 1


# ---- batches -----------------------------------------------------------------------------------------------------
def _on(batch: SFTBatch, device: str) -> SFTBatch:
    return SFTBatch(*(getattr(batch, f.name).to(device) for f in fields(SFTBatch)))


class Examples:
    """A batch source for the trainer: a random batch of examples to train on, fixed batches of each
    split to evaluate on (the last tenth of the examples is the val split, when there are ten or more)."""

    def __init__(self, items: list[Any], collate: Callable[[list[Any]], Any], batch_size: int, eval_iters: int):
        n_val = len(items) // 10
        self.parts = {"train": items[: len(items) - n_val], "val": items[len(items) - n_val :]}
        self.splits = ("train", "val") if n_val else ("train",)
        self.collate, self.batch_size, self.eval_iters = collate, batch_size, eval_iters

    def train_batch(self, generator: torch.Generator) -> Any:
        train = self.parts["train"]
        picks = torch.randint(len(train), (self.batch_size,), generator=generator).tolist()
        return self.collate([train[i] for i in picks])

    def eval_batches(self, split: str):
        items, B = self.parts[split], self.batch_size
        for k in range(min(self.eval_iters, math.ceil(len(items) / B))):
            yield self.collate(items[k * B : (k + 1) * B])


def collate_for(method: str, device: str, pack: int | None = None) -> Callable[[list[Any]], Any]:
    """How a list of examples becomes what the method's loss reads; ``pack``: SFT's conversations
    packed into rows of that many positions (sft.py's pack_batch) instead of one a row, padded."""
    if method == "sft" and pack is not None:
        return lambda items: _on(pack_batch(items, pack, pad_id=0), device)
    if method == "sft":
        return lambda items: _on(pad_batch(items, pad_id=0), device)
    if method == "dpo":

        def pairs(items: list[tuple[EncodedChat, EncodedChat]]) -> PreferenceBatch:
            chosen = _on(pad_batch([c for c, _ in items], pad_id=0), device)
            rejected = _on(pad_batch([r for _, r in items], pad_id=0), device)
            return PreferenceBatch(chosen.ids, chosen.labels, rejected.ids, rejected.labels)

        return pairs
    return lambda items: items  # GRPO: the prompts themselves; the loss samples


# ---- the losses: functions of the model and a batch --------------------------------------------------------------
class SFT:
    """Cross-entropy on the assistant's tokens (sft.py's sft_loss)."""

    def __call__(self, model: Callable[[Tensor], Tensor], batch: SFTBatch) -> Tensor:
        return sft_loss(model, batch)  # ()

    def measure(self, model: Callable[[Tensor], Tensor], batch: SFTBatch) -> dict[str, Tensor]:
        return {"loss": self(model, batch)}


class DPO:
    """The DPO loss against a frozen reference (preference.py's dpo_batch_loss)."""

    def __init__(self, reference: nn.Module, beta: float) -> None:
        self.reference, self.beta = reference, beta

    def __call__(self, model: Callable[[Tensor], Tensor], batch: PreferenceBatch) -> Tensor:
        return dpo_batch_loss(model, self.reference, batch, self.beta).loss  # ()

    def measure(self, model: Callable[[Tensor], Tensor], batch: PreferenceBatch) -> dict[str, Tensor]:
        """The loss, the mean reward margin r(x, y_w) − r(x, y_l), and the fraction of pairs it ranks right."""
        result = dpo_batch_loss(model, self.reference, batch, self.beta)
        accuracy = (result.chosen_rewards > result.rejected_rewards).float().mean()  # ()
        return {"loss": result.loss, "reward_margin": result.margins.mean(), "reward_accuracy": accuracy}


class GRPO:
    """One GRPO step: for each prompt, ``group`` completions drawn from the policy (sample.py's
    generate_ids, until the end-of-turn token or max_new_tokens), rewarded 1 when their last integer
    is the answer (grpo.py's exact_answer), the loss of grpo.py with the KL to the frozen reference.
    One update per sampling, so the sampling policy is the policy itself (π_old = π_θ, detached).
    ``last`` keeps the step's mean reward, KL, clipped fraction and completion length."""

    def __init__(
        self,
        policy: nn.Module,
        reference: nn.Module,
        tokenizer: Tokenizer,
        end_id: int,
        group: int,
        max_new_tokens: int,
        beta: float,
        temperature: float,
    ) -> None:
        self.policy, self.reference, self.tokenizer, self.end_id = policy, reference, tokenizer, end_id
        self.group, self.max_new_tokens, self.beta, self.temperature = group, max_new_tokens, beta, temperature
        self.last: dict[str, float] = {}

    def complete(self, prompt: Prompt, n: int, temperature: float) -> list[list[int]]:
        """``n`` completions of one prompt, each cut after its end-of-turn token."""
        device = next(self.policy.parameters()).device
        ids = torch.tensor([prompt.ids] * n, dtype=torch.long, device=device)  # (n, T0)
        seed = int(torch.randint(0, 2**31 - 1, (1,)))  # from the global stream a checkpoint saves
        generator = torch.Generator(device=device).manual_seed(seed)
        # cached decoding runs the model's own forward, so a LoRA layer is read like any Linear
        steps = list(generate_ids(self.policy, ids, self.max_new_tokens, temperature, generator=generator))
        rows = torch.stack(steps, dim=1).tolist()  # (n, max_new_tokens)
        return [row[: row.index(self.end_id) + 1] if self.end_id in row else row for row in rows]

    def text(self, completion: list[int]) -> str:
        return self.tokenizer.decode([i for i in completion if i != self.end_id])

    def __call__(self, model: Callable[[Tensor], Tensor], batch: list[Prompt]) -> Tensor:
        completions = [c for p in batch for c in self.complete(p, self.group, self.temperature)]
        answers = [p.answer for p in batch for _ in range(self.group)]
        rewards = score(exact_answer, [self.text(c) for c in completions], answers)  # (N,)
        advantages = group_advantages(rewards, self.group)  # (N,)
        prompts = [p.ids for p in batch for _ in range(self.group)]
        rows = [EncodedChat("", p + c, [0] * len(p) + [1] * len(c)) for p, c in zip(prompts, completions, strict=True)]
        device = next(self.policy.parameters()).device
        ids = _on(pad_batch(rows, pad_id=0), device)
        logps = token_logprobs(model(ids.ids), ids.labels)  # (N, T)
        with torch.no_grad():
            ref_logps = token_logprobs(self.reference(ids.ids), ids.labels)  # (N, T)
        mask = ids.labels != IGNORE  # (N, T)
        result = grpo_loss(logps, logps.detach(), ref_logps, advantages.to(logps), mask, beta=self.beta)
        self.last = {
            "reward": float(rewards.mean()),
            "kl": result.kl,
            "clip_ratio": result.clip_ratio,
            "length": sum(map(len, completions)) / len(completions),
        }
        return result.loss  # ()

    def greedy(self, prompts: list[Prompt]) -> list[list[int]]:
        """The greedy completion (temperature 0) of every prompt, each cut after its end-of-turn
        token; prompts of one length are decoded together, a row each (no padding to mask)."""
        device = next(self.policy.parameters()).device
        by_length: dict[int, list[int]] = {}
        for i, p in enumerate(prompts):
            by_length.setdefault(len(p.ids), []).append(i)
        out: list[list[int]] = [[] for _ in prompts]
        for rows in by_length.values():
            ids = torch.tensor([prompts[i].ids for i in rows], dtype=torch.long, device=device)  # (n, T0)
            steps = list(generate_ids(self.policy, ids, self.max_new_tokens, 0.0))
            made = torch.stack(steps, dim=1).tolist()  # (n, max_new_tokens)
            for i, row in zip(rows, made, strict=True):
                out[i] = row[: row.index(self.end_id) + 1] if self.end_id in row else row
        return out

    def measure(self, model: Callable[[Tensor], Tensor], batch: list[Prompt]) -> dict[str, Tensor]:
        """The fraction of prompts answered right by the greedy completion (temperature 0)."""
        right = [exact_answer(self.text(c), p.answer) for c, p in zip(self.greedy(batch), batch, strict=True)]
        return {"accuracy": torch.tensor(sum(right) / len(right))}


class Evaluation:
    """The trainer's evaluate: each split's eval batches, every figure the loss measures, averaged
    ({split}_loss, {split}_reward_margin ...), under the trainer's autocast."""

    def __init__(self, loss: Any, batches: Examples) -> None:
        self.loss, self.batches = loss, batches
        self.trainer: Trainer | None = None  # set once the trainer exists

    def __call__(self) -> dict[str, float]:
        trainer = self.trainer
        assert trainer is not None
        out: dict[str, float] = {}
        for split in self.batches.splits:
            sums: dict[str, float] = {}
            n = 0
            for batch in self.batches.eval_batches(split):
                with trainer.autocast():
                    for key, value in self.loss.measure(trainer.run_model, batch).items():
                        sums[key] = sums.get(key, 0.0) + float(value)
                n += 1
            out.update({f"{split}_{key}": value / n for key, value in sums.items()})
        return out


def grpo_log(loss: GRPO):
    """A callback writing each GRPO step's reward, KL, clipped fraction and length to metrics.jsonl."""

    def on_event(event: str, trainer: Trainer) -> None:
        if event == "step" and trainer.files is not None:
            trainer.files.log({"kind": "grpo", "step": trainer.step, **loss.last})

    return on_event


# ---- the run directory -------------------------------------------------------------------------------------------
@dataclass
class PostRun:
    dir: Path
    config: dict
    model: nn.Module
    tokenizer: Tokenizer
    trainer: Trainer
    loss: Any
    lock: Path | None = None


def _train_overrides(overrides: Any, allowed_model: tuple[str, ...] = ()) -> dict:
    """The command's --key=value settings: training fields (and, where allowed, dropout); a field that
    would change the model's weights is refused: they are the base's."""
    given = overrides if isinstance(overrides, dict) else parse_overrides(overrides)
    model_keys = {f.name for f in fields(ModelConfig)} - set(allowed_model)
    fixed = sorted(k for k in given if k.replace("-", "_") in model_keys)
    if fixed:
        raise UsageError(
            "post.model_field",
            "{keys} would change the base model's weights, which "
            "post-training keeps: set only training settings (max_steps, "
            "lr, batch_size ...) and dropout.",
            keys=", ".join(fixed),
        )
    return given


def start(
    method: str,
    base: str | Path,
    source: str,
    out: str | Path | None = None,
    overrides: Any = (),
    chat_format: str = "chatml",
    lora: LoRASettings | None = None,
    beta: float | None = None,
    group: int = 4,
    max_new_tokens: int = 8,
    temperature: float = 1.0,
    progress: bool = True,
    pack: bool = False,
) -> PostRun:
    """A new post-training run of ``base`` on ``source``: everything is read and checked (the base, the
    data, the settings, LoRA's rank) before the new directory is made; ``out`` must not exist.
    ``pack``: SFT's batches pack conversations into rows of seq_len (default: padding, one a row)."""
    if method not in METHODS:
        raise UsageError(
            "post.method",
            "post-training method {method!r} is not one of {names}.",
            method=method,
            names=", ".join(METHODS),
        )
    if pack and method != "sft":
        raise UsageError(
            "post.pack_method",
            "packing lays several conversations into one row, which only "
            "sft's batches do: leave out pack for {method}.",
            method=method,
        )
    base_dir = Path(base)
    base_model, base_tokenizer, base_config = load_model(base_dir)  # a missing or damaged base names itself
    if base_tokenizer is None or base_model.inputs != "tokens":
        raise UsageError(
            "post.base_kind",
            "{dir} holds a {kind} model, which does not write text: "
            "post-training needs a base run of a model that reads and "
            "writes tokens.",
            dir=base_dir,
            kind=base_model.kind,
        )
    out = Path(out) if out else RUNS_DIR / f"{base_dir.name}-{method}-{time.strftime('%Y%m%d-%H%M%S')}"
    if out.exists():
        raise UsageError(
            "post.out_exists",
            "{dir} exists already, and a post-training run never writes "
            "into a directory it did not make: choose a new --out, or "
            "continue that run with --resume.",
            dir=out,
        )
    given = _train_overrides(overrides, ("dropout",))
    fmt = CHAT_FORMATS[chat_format]
    tokenizer = chat_tokenizer(base_tokenizer, fmt)
    examples, identity = post_data.load(method, source)
    encoded = encode_examples(method, tokenizer, fmt.template(), examples)
    need = longest(method, encoded, max_new_tokens)
    dropout = {} if method == "sft" else {"dropout": 0.0}  # the policy agrees with its reference at the start
    model_cfg = replace(base_model.cfg, vocab_size=tokenizer.vocab_size, **dropout)
    defaults = {"max_steps": DEFAULT_STEPS, "seq_len": min(need, model_cfg.max_len)}
    p = apply_overrides(Preset(model_cfg, train_config(base_config, base_dir)), {**defaults, **given})
    if need > p.model.max_len:
        raise UsageError(
            "post.too_long",
            "the longest example takes {n} positions, more than the base "
            "model's max_len={max_len} ({base}): shorten the examples "
            "(or, for grpo, --max-new-tokens).",
            n=need,
            max_len=p.model.max_len,
            base=base_dir,
        )
    check_pack(pack, encoded, p.train.seq_len)
    settings = {
        "sft": {"pack": pack},
        "dpo": {"beta": 0.1 if beta is None else beta},
        "grpo": {
            "beta": 0.04 if beta is None else beta,
            "group": group,
            "max_new_tokens": max_new_tokens,
            "temperature": temperature,
        },
    }.get(method, {})
    post = {
        "method": method,
        "base": str(base_dir.resolve()),
        "base_weights_sha256": sha256_file(base_dir / MODEL_FILE),
        **identity,
        "format": chat_format,
        "lora": {**vars(lora), "merged": False} if lora else None,
        **settings,
    }
    torch.manual_seed(p.train.seed)  # the new rows are means; the seed fixes LoRA's A and, later, dropout
    model = grow_vocab(base_model, p.model)
    reference = frozen_copy(model) if method != "sft" else None
    if lora:
        apply_lora(model, lora.target, lora.r, lora.alpha, lora.dropout)  # a rank too large: refused here
    config = {
        "about": t("{method} of {base}", method=method, base=base_dir),
        "post": post,
        "model": to_dict(p.model),
        "train": to_dict(p.train),
    }
    out.mkdir(parents=True)
    held = acquire(out)
    try:
        write_json_atomic(out / "config.json", config, indent=2)
        tokenizer.save(out / "tokenizer.json")
        return _assemble(out, config, model, reference, tokenizer, encoded, p.train, progress, held)
    except BaseException:
        release(held)
        raise


def resume(run_dir: str | Path, overrides: Any = (), progress: bool = True) -> PostRun:
    """Continue a post-training run from its checkpoint (--max_steps=N to go further). Its base and its
    data must be the ones it started from (their sha256s)."""
    run_dir = Path(run_dir)
    config = read_config(run_dir)
    post = post_section(config, run_dir)
    method = post["method"]
    if post.get("lora") and post["lora"].get("merged"):
        raise UsageError(
            "post.merged",
            "{dir} is finished and its LoRA merged into its weights: to "
            "train it further, start a new stage with it as the base "
            "(glassformer {method} {dir} --data FILE).",
            dir=run_dir,
            method=method,
        )
    base_dir = Path(post["base"])
    if sha256_file(base_dir / MODEL_FILE) != post["base_weights_sha256"]:
        raise DamagedFile(
            "post.base_changed",
            "the base run {base} of {dir} has other weights than when "
            "{dir} began (their sha256 differs): its reference model "
            "would not be the one it started from. Restore the base run.",
            dir=run_dir,
            base=base_dir,
        )
    examples, identity = post_data.load(method, post["data"])
    if identity.get("data_sha256") != post.get("data_sha256"):
        raise DamagedFile(
            "post.data_changed",
            "{data}, the data of {dir}, has changed since the run began "
            "(its sha256 differs): restore it, or start a new run on the "
            "new data.",
            dir=run_dir,
            data=post["data"],
        )
    tokenizer = load_tokenizer(run_dir / "tokenizer.json")
    encoded = encode_examples(method, tokenizer, CHAT_FORMATS[post["format"]].template(), examples)
    saved = Preset(model_config(config, run_dir), train_config(config, run_dir))
    p = apply_overrides(saved, _train_overrides(overrides))
    check_pack(bool(post.get("pack")), encoded, p.train.seq_len)  # a smaller --seq_len: refused before writing
    held = acquire(run_dir)
    try:
        if p.train != saved.train:
            config = {**config, "train": to_dict(p.train)}
            write_json_atomic(run_dir / "config.json", config, indent=2)
        torch.manual_seed(p.train.seed)  # the checkpoint overwrites the weights and the streams
        reference = None
        if method != "sft":
            base_model, _, _ = load_model(base_dir)
            reference = frozen_copy(grow_vocab(base_model, p.model))  # the same as at the start: means of rows
        model = build_model(p.model)
        if post.get("lora"):
            lora = post["lora"]
            apply_lora(model, lora["target"], lora["r"], lora["alpha"], lora["dropout"])
        run = _assemble(run_dir, config, model, reference, tokenizer, encoded, p.train, progress, held)
        run.trainer.resume()
        return run
    except BaseException:
        release(held)
        raise


def post_section(config: dict, run_dir: Path) -> dict:
    """The post section of a run's config.json: its method, base, data and chat format."""
    post = config.get("post")
    if not isinstance(post, dict) or post.get("method") not in METHODS:
        raise UsageError(
            "post.not_post",
            "{dir} is not a post-training run (its config.json has no "
            "post section): start one with glassformer sft BASE_RUN "
            "--data FILE.",
            dir=run_dir,
        )
    return post


def check_pack(pack: bool, encoded: list[Any], seq_len: int) -> None:
    """A packed run's every conversation must fit one row of seq_len (``sft.too_long`` names the first
    that does not): checked before anything is written, not at the batch that would meet it."""
    if pack:
        pairs_of(encoded, seq_len)


def _assemble(run_dir, config, model, reference, tokenizer, encoded, train_cfg: TrainConfig, progress, held) -> PostRun:
    post = config["post"]
    method = post["method"]
    if reference is not None:
        reference.to(train_cfg.device)
    loss: Any
    if method == "sft":
        loss = SFT()
    elif method == "dpo":
        loss = DPO(reference, post["beta"])
    else:
        end_id = tokenizer.encode(END_OF_TURN[post["format"]])[0]
        loss = GRPO(
            model,
            reference,
            tokenizer,
            end_id,
            post["group"],
            post["max_new_tokens"],
            post["beta"],
            post["temperature"],
        )
    collate = collate_for(method, train_cfg.device, train_cfg.seq_len if post.get("pack") else None)
    batches = Examples(encoded, collate, train_cfg.batch_size, train_cfg.eval_iters)
    evaluation = Evaluation(loss, batches)
    trainer = Trainer(
        model,
        train_cfg,
        batches,
        run_dir,
        batch_loss=loss,
        evaluate=evaluation,
        callbacks=[grpo_log(loss)] if isinstance(loss, GRPO) else [],
        progress="bar" if progress else "lines",
    )
    evaluation.trainer = trainer
    run = PostRun(run_dir, config, model, tokenizer, trainer, loss, held)
    if held is not None:
        weakref.finalize(run, release, held)
    return run


def train(run: PostRun) -> TrainResult:
    """Train to max_steps with the run's thread count; a finished LoRA run is then merged."""
    held = acquire(run.dir)
    try:
        with using_threads(run.trainer.cfg.threads):
            result = run.trainer.fit()
        if result.status == "done" and lora_layers(run.model):
            merge_run(run)
        return result
    finally:
        release(held)


def merge_run(run: PostRun) -> None:
    """LoRA's A and B to lora.safetensors, then the weights (latest and best) merged into plain
    layers; the optimizer state, which only fits A and B, goes; config.json says merged."""
    adapters = {n: p.detach().cpu().contiguous() for n, p in run.model.state_dict().items() if n.endswith((".A", ".B"))}
    atomic_write(run.dir / LORA_FILE, lambda tmp: save_file(adapters, tmp))
    best = run.dir / BEST_FILE
    if best.exists():
        wrapped = copy.deepcopy(run.model)
        step = load_weights(best, wrapped)
        save_weights(best, merge_and_unload(wrapped), step)
    _, _, step = read_weights(run.dir / MODEL_FILE)
    save_weights(run.dir / MODEL_FILE, merge_and_unload(run.model), step)
    (run.dir / STATE_FILE).unlink(missing_ok=True)
    post = {**run.config["post"], "lora": {**run.config["post"]["lora"], "merged": True}}
    run.config = {**run.config, "post": post}
    write_json_atomic(run.dir / "config.json", run.config, indent=2)


# ---- on-policy preference pairs: the model's own mistakes --------------------------------------------------------
def own_mistakes(
    run_dir: str | Path,
    questions: list[post_data.Question],
    samples: int = 4,
    max_new_tokens: int = 8,
    temperature: float = 1.0,
    seed: int = 0,
) -> list[post_data.Preference]:
    """DPO pairs made on-policy from a post-training run: for each question, its right answer against
    a wrong one the run's model gives itself, in the run's chat template. The wrong answer is the
    greedy one (GRPO.greedy) when that is wrong; else the first wrong one of ``samples`` answers
    sampled at ``temperature`` (GRPO.complete, its stream seeded by ``seed``, the caller's left as it
    was); a question the model never answers wrong (or answers with nothing) gives no pair. DPO on
    these pairs pushes down exactly the mistakes the model makes."""
    with torch.random.fork_rng(devices=[]):  # building the model and sampling draw from the global stream
        return _own_mistakes(Path(run_dir), questions, samples, max_new_tokens, temperature, seed)


def _own_mistakes(
    run_dir: Path,
    questions: list[post_data.Question],
    samples: int,
    max_new_tokens: int,
    temperature: float,
    seed: int,
) -> list[post_data.Preference]:
    model, tokenizer, config = load_model(run_dir)
    post = post_section(config, run_dir)
    if not questions:
        raise UsageError(
            "post.no_questions",
            "no questions to answer: the pairs are made of the model's own answers to questions, so give at least one.",
        )
    if type(samples) is not int or samples < 0:
        raise UsageError(
            "post.samples",
            "samples={samples} must be a whole number, 0 or more: the answers drawn for a question whose "
            "greedy answer is right.",
            samples=samples,
        )
    fmt = post["format"]
    prompts = encode_examples("grpo", tokenizer, CHAT_FORMATS[fmt].template(), questions)
    end_id = tokenizer.encode(END_OF_TURN[fmt])[0]
    decoder = GRPO(model.eval(), model, tokenizer, end_id, max(samples, 1), max_new_tokens, 0.0, temperature)
    pairs = []
    torch.manual_seed(seed)
    with torch.no_grad():
        for question, prompt, greedy in zip(questions, prompts, decoder.greedy(prompts), strict=True):
            answers = [decoder.text(greedy)]
            if exact_answer(answers[0], question.answer) and samples:
                answers += [decoder.text(c) for c in decoder.complete(prompt, samples, temperature)]
            wrong = [a for a in answers if a.strip() and not exact_answer(a, question.answer)]
            if wrong:
                pairs.append(post_data.Preference(question.prompt, question.answer, wrong[0]))
    if not pairs:
        raise UsageError(
            "post.no_mistakes",
            "{dir} answers all {n} questions right (greedy, and in {samples} samples each): there is no "
            "mistake of its own to prefer the right answer to. Give harder questions, or more samples.",
            dir=run_dir,
            n=len(questions),
            samples=samples,
        )
    return pairs
