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
    p = subparsers.add_parser("sample", help=t("help.sample"), description=t("help.sample.about"))
    p.add_argument("run", help=t("help.sample.run", example=RUN_EXAMPLE))
    p.add_argument("--prompt", default="\n", type=utf8_text, help=t("help.sample.prompt"))
    p.add_argument(
        "--max-new-tokens",
        type=count,
        default=MAX_NEW_TOKENS,
        help=t("help.sample.max_new_tokens", default=MAX_NEW_TOKENS),
    )
    p.add_argument(
        "--temperature", type=temperature, default=TEMPERATURE, help=t("help.sample.temperature", default=TEMPERATURE)
    )
    p.add_argument("--top-k", type=count, default=None, help=t("help.sample.top_k"))
    p.add_argument("--top-p", type=probability, default=None, help=t("help.sample.top_p"))
    add_knobs(p)
    p.add_argument("--num-samples", type=count, default=1, help=t("help.sample.num_samples", default=1))
    p.add_argument("--seed", type=seed, default=None, help=t("help.sample.seed"))
    p.add_argument("--stop", default=None, type=utf8_text, help=t("help.sample.stop"))
    p.add_argument("--best", action="store_true", help=t("help.sample.best"))
    p.add_argument("--attention", choices=["glass", "fused"], default=None, help=t("help.sample.attention"))
    p.add_argument("--no-cache", dest="use_cache", action="store_false", help=t("help.sample.no_cache"))
    p.add_argument("--debug-shapes", action="store_true", help=t("help.sample.debug_shapes"))
    p.add_argument("--device", default="cpu", help=t("help.sample.device"))
    add_threads(p)
    p.set_defaults(func=run_sample)


def add_knobs(p: argparse.ArgumentParser) -> None:
    """The repetition knobs (logits_processors.Knobs), each off unless given; `knobs(args)` reads them."""
    p.add_argument("--repetition-penalty", type=positive, default=None, help=t("help.sample.repetition_penalty"))
    p.add_argument("--frequency-penalty", type=finite, default=None, help=t("help.sample.frequency_penalty"))
    p.add_argument("--presence-penalty", type=finite, default=None, help=t("help.sample.presence_penalty"))
    p.add_argument("--no-repeat-ngram", type=count, default=None, help=t("help.sample.no_repeat_ngram"))
    p.add_argument("--min-p", type=probability, default=None, help=t("help.sample.min_p"))
    p.add_argument("--typical-p", type=probability, default=None, help=t("help.sample.typical_p"))


KNOBS = ("repetition_penalty", "frequency_penalty", "presence_penalty", "no_repeat_ngram", "min_p", "typical_p")


def knobs(args: argparse.Namespace):
    """The Knobs the flags of `add_knobs` ask for, or None when none was given (sampling as before)."""
    from glassformer.logits_processors import Knobs

    given = {name: getattr(args, name) for name in KNOBS if getattr(args, name) is not None}
    return Knobs(**given) if given else None


def run_sample(args: argparse.Namespace) -> int:
    import torch  # here, not above: `sample --help` never loads it (cli/__init__.py)

    from glassformer.sample import check_stop, past_max_len, sample
    from glassformer.train.run import load_model

    model, tokenizer, _ = load_model(args.run, best=args.best, device=args.device)
    if not model.samples:
        raise UsageError("sample.no_text", run=args.run, kind=model.kind)
    if args.attention:
        model.set_attention(args.attention)
    prompt, stop = _unescape(args.prompt), _unescape(args.stop) if args.stop else None
    prompt_ids = tokenizer.encode(prompt)  # a prompt the tokenizer cannot read fails here, first
    if not prompt_ids:
        raise UsageError("error.sample.empty_prompt")
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
    )
    if stream:
        print()
    else:
        for i, text in enumerate(texts):
            say("sample.header", i=i + 1, n=len(texts))
            print(prompt + text)
    return 0


def _unescape(text: str) -> str:
    """Let a shell user type \\n and \\t for newline and tab (other text, Chinese included, is kept)."""
    return text.replace("\\n", "\n").replace("\\t", "\t")
