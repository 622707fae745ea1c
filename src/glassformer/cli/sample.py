"""`glassformer sample RUN --prompt "ROMEO:"`: let a trained run write, streamed as it goes."""

from __future__ import annotations

import argparse
import sys

from glassformer.cli.options import add_threads, count, finite, positive, probability, seed, temperature, utf8_text
from glassformer.config import RUN_EXAMPLE
from glassformer.errors import UsageError
from glassformer.messages import note, say, t

MAX_NEW_TOKENS = 300
TEMPERATURE = 0.8  # a little sharper than the model's own distribution


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "sample",
        help=t("generate text from a trained run"),
        description=t("Generate text from the weights in a run directory."),
    )
    p.add_argument("run", help=t("run directory (e.g. {example})", example=RUN_EXAMPLE))
    p.add_argument(
        "--prompt",
        default="\n",
        type=utf8_text,
        help=t("text to continue (default: a newline); \\n and \\t are newline and tab"),
    )
    p.add_argument(
        "--max-new-tokens",
        type=count,
        default=MAX_NEW_TOKENS,
        help=t("tokens to write (default {default})", default=MAX_NEW_TOKENS),
    )
    p.add_argument(
        "--temperature",
        type=temperature,
        default=TEMPERATURE,
        help=t("0 = greedy; <1 sharper, >1 flatter (default {default})", default=TEMPERATURE),
    )
    p.add_argument("--top-k", type=count, default=None, help=t("keep the k most likely tokens"))
    p.add_argument(
        "--top-p", type=probability, default=None, help=t("keep the most likely tokens up to probability p (nucleus)")
    )
    add_knobs(p)
    p.add_argument(
        "--num-samples",
        type=count,
        default=1,
        help=t("how many texts to write from the one prompt (default {default})", default=1),
    )
    p.add_argument("--seed", type=seed, default=None, help=t("same seed, same text"))
    p.add_argument("--stop", default=None, type=utf8_text, help=t("end a sample before this string (e.g. '\\n\\n')"))
    p.add_argument("--best", action="store_true", help=t("use best.safetensors (lowest val loss)"))
    p.add_argument(
        "--attention",
        choices=["glass", "fused"],
        default=None,
        help=t("attention path (default: the run's own; both compute the same)"),
    )
    p.add_argument(
        "--no-cache",
        dest="use_cache",
        action="store_false",
        help=t("recompute every token's keys and values at each step (no KV cache)"),
    )
    p.add_argument(
        "--debug-shapes",
        action="store_true",
        help=t("print the shape of every named tensor of one forward pass on the prompt first"),
    )
    p.add_argument("--device", default="cpu", help=t("cpu (default), cuda, cuda:N or mps"))
    add_threads(p)
    p.set_defaults(func=run_sample)


def add_knobs(p: argparse.ArgumentParser) -> None:
    """The repetition knobs (logits_processors.Knobs), each off unless given; `knobs(args)` reads them."""
    p.add_argument(
        "--repetition-penalty",
        type=positive,
        default=None,
        help=t("divide the logit of every token already written by this (CTRL; 1 = off, above 1 discourages repeats)"),
    )
    p.add_argument(
        "--frequency-penalty",
        type=finite,
        default=None,
        help=t("subtract this times the number of times a token was written (0 = off)"),
    )
    p.add_argument(
        "--presence-penalty",
        type=finite,
        default=None,
        help=t("subtract this from every token already written, once (0 = off)"),
    )
    p.add_argument(
        "--no-repeat-ngram", type=count, default=None, help=t("never write an n-gram of this many tokens a second time")
    )
    p.add_argument(
        "--min-p",
        type=probability,
        default=None,
        help=t("keep the tokens at least min_p times as likely as the most likely one"),
    )
    p.add_argument(
        "--typical-p",
        type=probability,
        default=None,
        help=t("locally typical sampling: keep the most typical tokens up to this probability"),
    )


KNOBS = ("repetition_penalty", "frequency_penalty", "presence_penalty", "no_repeat_ngram", "min_p", "typical_p")


def knobs(args: argparse.Namespace):
    """The Knobs the flags of `add_knobs` ask for, or None when none was given (sampling as before)."""
    from glassformer.logits_processors import Knobs

    given = {name: getattr(args, name) for name in KNOBS if getattr(args, name) is not None}
    return Knobs(**given) if given else None


def run_sample(args: argparse.Namespace) -> int:
    import torch  # here, not above: `sample --help` never loads it (cli/__init__.py)

    from glassformer.models.gpt2 import end_ids
    from glassformer.sample import check_stop, past_max_len, sample
    from glassformer.train.run import load_model

    model, tokenizer, config = load_model(args.run, best=args.best, device=args.device)
    if not model.samples:
        raise UsageError(
            "sample.no_text",
            "{run} holds a {kind} model, which reads numbers and writes "
            "no text; look inside it with `glassformer trace --run "
            "{run}` or `attention --run`.",
            run=args.run,
            kind=model.kind,
        )
    if args.attention:
        model.set_attention(args.attention)
    prompt, stop = _unescape(args.prompt), _unescape(args.stop) if args.stop else None
    prompt_ids = tokenizer.encode(prompt)  # a prompt the tokenizer cannot read fails here, first
    if not prompt_ids:
        raise UsageError("sample.empty_prompt", "the prompt is empty: give the model at least one token to continue")
    check_stop(tokenizer, stop)  # before the prompt is written out
    if args.debug_shapes:
        from glassformer.inspect.trace import print_shapes_once

        ids = torch.tensor([prompt_ids[-model.cfg.max_len :]], device=args.device)  # (1, T)
        print_shapes_once(model, ids, tokenizer)
    if len(prompt_ids) + args.max_new_tokens > model.cfg.max_len:
        note(past_max_len(model))  # the text will outgrow max_len: say what happens
    stream = args.num_samples == 1

    def on_text(i: int, piece: str) -> None:
        sys.stdout.write(piece)
        sys.stdout.flush()

    if stream:
        sys.stdout.write(prompt)
    texts = sample(
        model,
        tokenizer,
        prompt,
        args.max_new_tokens,
        args.temperature,
        args.top_k,
        args.top_p,
        args.num_samples,
        args.seed,
        stop,
        on_text if stream else None,
        use_cache=args.use_cache,
        knobs=knobs(args),
        end_ids=end_ids(config),  # an imported model ends where its generation_config.json says
    )
    if stream:
        print()
    else:
        for i, text in enumerate(texts):
            say("--- sample {i} of {n} ---", i=i + 1, n=len(texts))
            print(prompt + text)
    return 0


def _unescape(text: str) -> str:
    """Let a shell user type \\n and \\t for newline and tab (other text, Chinese included, is kept)."""
    return text.replace("\\n", "\n").replace("\\t", "\t")
