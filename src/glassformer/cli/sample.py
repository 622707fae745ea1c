"""`glassformer sample RUN --prompt "ROMEO:"`: let a trained run write, streamed as it goes."""

from __future__ import annotations

import argparse
import sys

import torch

from glassformer.cli.options import add_threads, count, probability, seed, temperature, utf8_text
from glassformer.sample import past_max_len, sample
from glassformer.train.run import load_model


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("sample", help="generate text from a trained run",
                              description="Generate text from the weights in a run directory.")
    p.add_argument("run", help="run directory (e.g. runs/baby-20250101-120000)")
    p.add_argument("--prompt", default="\n", type=utf8_text,
                   help="text to continue (default: a newline); \\n and \\t are newline and tab")
    p.add_argument("--max-new-tokens", type=count, default=300, help="tokens to write (default 300)")
    p.add_argument("--temperature", type=temperature, default=0.8,
                   help="0 = greedy; <1 sharper, >1 flatter (default 0.8)")
    p.add_argument("--top-k", type=count, default=None,
                   help="keep the k most likely tokens")
    p.add_argument("--top-p", type=probability, default=None,
                   help="keep the most likely tokens up to probability p (nucleus)")
    p.add_argument("--num-samples", type=count, default=1)
    p.add_argument("--seed", type=seed, default=None, help="same seed, same text")
    p.add_argument("--stop", default=None, type=utf8_text, help="end a sample before this string (e.g. '\\n\\n')")
    p.add_argument("--best", action="store_true", help="use best.safetensors (lowest val loss)")
    p.add_argument("--attention", choices=["glass", "fused"], default=None,
                   help="attention path (default: the run's own; both compute the same)")
    p.add_argument("--no-cache", dest="use_cache", action="store_false",
                   help="recompute every token's keys and values at each step (no KV cache)")
    p.add_argument("--debug-shapes", action="store_true",
                   help="print the shape of every named tensor of one forward pass on the prompt first")
    p.add_argument("--device", default="cpu", help="cpu (default), cuda, cuda:N or mps")
    add_threads(p)
    p.set_defaults(func=run_sample)


def run_sample(args: argparse.Namespace) -> int:
    model, tokenizer, _ = load_model(args.run, best=args.best, device=args.device)
    if not model.samples:
        raise ValueError(f"{args.run} holds a {model.kind} model, which reads numbers and writes no text; "
                         f"look inside it with `glassformer trace --run {args.run}` or `attention --run`.")
    if args.attention:
        model.set_attention(args.attention)
    prompt, stop = _unescape(args.prompt), _unescape(args.stop) if args.stop else None
    prompt_ids = tokenizer.encode(prompt)  # a prompt the tokenizer cannot read fails here, first
    if not prompt_ids:
        raise ValueError("the prompt is empty: give the model at least one token to continue")
    if args.debug_shapes:
        from glassformer.inspect.trace import print_shapes_once

        ids = torch.tensor([prompt_ids[-model.cfg.max_len:]], device=args.device)  # (1, T)
        print_shapes_once(model, ids, tokenizer)
    if len(prompt_ids) + args.max_new_tokens > model.cfg.max_len:
        print(past_max_len(model), file=sys.stderr)  # the text will outgrow max_len: say what happens
    stream = args.num_samples == 1

    def on_text(i: int, piece: str) -> None:
        sys.stdout.write(piece)
        sys.stdout.flush()

    if stream:
        sys.stdout.write(prompt)
    texts = sample(model, tokenizer, prompt, args.max_new_tokens, args.temperature, args.top_k,
                   args.top_p, args.num_samples, args.seed, stop, on_text if stream else None,
                   use_cache=args.use_cache)
    if stream:
        print()
    else:
        for i, text in enumerate(texts):
            print(f"--- sample {i + 1} of {len(texts)} ---\n{prompt}{text}")
    return 0


def _unescape(text: str) -> str:
    """Let a shell user type \\n and \\t for newline and tab (other text, Chinese included, is kept)."""
    return text.replace("\\n", "\n").replace("\\t", "\t")
