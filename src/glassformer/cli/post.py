"""The post-training verbs: `sft`, `dpo` and `grpo` take a base run to a new run (docs/post.md).
Thin: post/tune.py does the work.

glassformer sft BASE_RUN --data chats.jsonl --out runs/chat --max_steps=200
glassformer sft BASE_RUN --data builtin:arithmetic --lora-r 4 --lora-alpha 8
glassformer dpo runs/chat --data pairs.jsonl --beta 0.1
glassformer grpo runs/chat --data builtin:arithmetic --group 4
glassformer sft --resume runs/chat --max_steps=400
glassformer chat runs/chat                       (a line a turn; /reset, /quit)
glassformer diff runs/base runs/chat             (what the tuning changed inside)
"""

from __future__ import annotations

import argparse
import sys

from glassformer.cli.options import add_threads, count, positive, probability, runnable, seed, temperature, utf8_text
from glassformer.cli.sample import add_knobs, knobs
from glassformer.config import RUN_EXAMPLE
from glassformer.errors import Unsupported, UsageError
from glassformer.messages import N_, note, say, t

CHAT_FORMATS = ("chatml", "llama3")  # post/chat.py's CHAT_FORMATS (named here: --help imports no torch)
BUILTIN_DATA = "builtin:arithmetic"  # post/data.py's BUILTIN
LORA_TARGET = r".*attn.*"  # post/tune.py's DEFAULT_LORA_TARGET
EXIT_NONFINITE, EXIT_INTERRUPTED = 1, 130


# each method's help: its one line, its description, what --data takes, and --beta's (dpo, grpo)
METHOD_HELP = {
    "sft": {"help": N_("help.sft"), "about": N_("help.sft.about"), "data": N_("help.sft.data")},
    "dpo": {
        "help": N_("help.dpo"),
        "about": N_("help.dpo.about"),
        "data": N_("help.dpo.data"),
        "beta": N_("help.dpo.beta"),
    },
    "grpo": {
        "help": N_("help.grpo"),
        "about": N_("help.grpo.about"),
        "data": N_("help.grpo.data"),
        "beta": N_("help.grpo.beta"),
    },
}


def register(subparsers: argparse._SubParsersAction) -> None:
    for method, words in METHOD_HELP.items():
        p = subparsers.add_parser(method, allow_abbrev=False, help=t(words["help"]), description=t(words["about"]))
        p.add_argument("base", nargs="?", metavar="BASE_RUN", help=t("help.post.base", example=RUN_EXAMPLE))
        p.add_argument("--data", default=None, help=t(words["data"], builtin=BUILTIN_DATA))
        p.add_argument("--out", default=None, help=t("help.post.out"))
        p.add_argument("--resume", metavar="RUN", default=None, help=t("help.post.resume"))
        p.add_argument("--format", choices=CHAT_FORMATS, default="chatml", help=t("help.post.format"))
        p.add_argument("--lora-r", type=count, default=None, help=t("help.post.lora_r"))
        p.add_argument("--lora-alpha", type=positive, default=None, help=t("help.post.lora_alpha"))
        p.add_argument("--lora-target", default=LORA_TARGET, help=t("help.post.lora_target", default=LORA_TARGET))
        p.add_argument("--no-progress", action="store_true", help=t("help.train.no_progress"))
        if method == "sft":
            p.add_argument("--pack", action="store_true", help=t("help.sft.pack"))
        if method in ("dpo", "grpo"):
            p.add_argument("--beta", type=positive, default=None, help=t(words["beta"]))
        if method == "grpo":
            p.add_argument("--group", type=count, default=4, help=t("help.grpo.group", default=4))
            p.add_argument("--max-new-tokens", type=count, default=8, help=t("help.grpo.max_new_tokens", default=8))
            p.add_argument("--temperature", type=temperature, default=1.0, help=t("help.grpo.temperature", default=1.0))
        p.set_defaults(func=run_post, method=method, accepts_overrides=True)
    register_chat(subparsers)
    register_diff(subparsers)


CHAT_MAX_NEW_TOKENS = 64
CHAT_TEMPERATURE = 0.0  # greedy: a small model's best answer, the same every time
RESET, QUIT = "/reset", "/quit"
PROMPT_MARK = "> "


def register_chat(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("chat", allow_abbrev=False, help=t("help.chat"), description=t("help.chat.about"))
    p.add_argument("run", metavar="RUN", help=t("help.chat.run", example=RUN_EXAMPLE))
    p.add_argument("--system", default=None, type=utf8_text, help=t("help.chat.system"))
    p.add_argument(
        "--max-new-tokens",
        type=count,
        default=CHAT_MAX_NEW_TOKENS,
        help=t("help.sample.max_new_tokens", default=CHAT_MAX_NEW_TOKENS),
    )
    p.add_argument(
        "--temperature",
        type=temperature,
        default=CHAT_TEMPERATURE,
        help=t("help.sample.temperature", default=CHAT_TEMPERATURE),
    )
    p.add_argument("--top-k", type=count, default=None, help=t("help.sample.top_k"))
    p.add_argument("--top-p", type=probability, default=None, help=t("help.sample.top_p"))
    add_knobs(p)
    p.add_argument("--seed", type=seed, default=None, help=t("help.sample.seed"))
    p.add_argument("--best", action="store_true", help=t("help.sample.best"))
    add_threads(p)
    p.set_defaults(func=run_chat)


def run_chat(args: argparse.Namespace) -> int:
    """A line of stdin a user turn; each answer streamed to stdout and ended by a newline."""
    from glassformer.errors import GlassformerError
    from glassformer.post.talk import ChatSession, chat_format_of
    from glassformer.train.run import load_model

    model, tokenizer, config = load_model(args.run, best=args.best)
    session = ChatSession(
        model,
        tokenizer,
        chat_format_of(config, args.run),
        system=args.system,
        max_new_tokens=args.max_new_tokens,
        temperature=args.temperature,
        top_k=args.top_k,
        top_p=args.top_p,
        seed=args.seed,
        knobs=knobs(args),
    )
    say("chat.ready", run=args.run, format=chat_format_of(config, args.run), reset=RESET, quit=QUIT)

    def on_text(i: int, piece: str) -> None:
        sys.stdout.write(piece)
        sys.stdout.flush()

    interactive = sys.stdin.isatty()
    while True:
        if interactive:  # a person types: show where; piped input gets answers only
            sys.stdout.write(PROMPT_MARK)
            sys.stdout.flush()
        line = sys.stdin.readline()
        if not line:  # the end of the input
            break
        text = line.rstrip("\r\n")
        if text.strip() == QUIT:
            break
        if text.strip() == RESET:
            session.reset()
            say("chat.was_reset")
            continue
        if not text.strip():
            continue
        try:
            turn = session.ask(text, on_text)
        except GlassformerError as e:  # a message too long for the context: say so, keep talking
            note(str(e))
            continue
        print(flush=True)
        if turn.dropped:
            note(t("chat.dropped", n=turn.dropped))
    return 0


def run_post(args: argparse.Namespace) -> int:
    from glassformer.post import tune

    if getattr(args, "pack", False):
        raise Unsupported("error.sft.packed_needs_mask")
    if args.resume:
        if args.base or args.data or args.out:
            raise UsageError("post.resume_alone", method=args.method)
        run = tune.resume(args.resume, args.overrides, progress=not args.no_progress)
        say("train.resuming", dir=run.dir, step=run.trainer.step)
    else:
        if not args.base or not args.data:
            raise UsageError("post.need_base_data", method=args.method, builtin=BUILTIN_DATA)
        if (args.lora_r is None) != (args.lora_alpha is None):
            raise UsageError("post.lora_both")
        lora = tune.LoRASettings(args.lora_r, args.lora_alpha, args.lora_target) if args.lora_r else None
        run = tune.start(
            args.method,
            args.base,
            args.data,
            out=args.out,
            overrides=args.overrides,
            chat_format=args.format,
            lora=lora,
            beta=getattr(args, "beta", None),
            group=getattr(args, "group", 4),
            max_new_tokens=getattr(args, "max_new_tokens", 8),
            temperature=getattr(args, "temperature", 1.0),
            progress=not args.no_progress,
        )
        post = run.config["post"]
        trained = sum(p.numel() for p in run.model.parameters() if p.requires_grad)
        say("post.started", method=args.method, dir=run.dir, base=post["base"], data=post["data"])
        say("post.model", vocab=run.tokenizer.vocab_size, trained=trained, total=run.model.num_params())
    result = tune.train(run)
    if result.status == "nonfinite":
        say("train.stopped", file=sys.stderr, message=result.message)
        return EXIT_NONFINITE
    if result.status == "interrupted":
        print(result.message)
        say("post.resume_with", method=run.config["post"]["method"], dir=run.dir, glassformer=runnable())
        return 128 + result.signal if result.signal else EXIT_INTERRUPTED
    say("post.done", steps=result.step, figures="  ".join(f"{k} {v:.4f}" for k, v in run.trainer.last_eval.items()))
    if run.config["post"].get("lora"):
        say("post.merged", dir=run.dir)
    say("train.sample_it", dir=run.dir, glassformer=runnable())
    return 0


def register_diff(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("diff", allow_abbrev=False, help=t("help.diff"), description=t("help.diff.about"))
    p.add_argument("base", metavar="BASE", help=t("help.diff.base", example=RUN_EXAMPLE))
    p.add_argument("tuned", metavar="TUNED", help=t("help.diff.tuned"))
    p.add_argument("--prompt", action="append", type=utf8_text, default=None, help=t("help.diff.prompt"))
    p.add_argument("--out", default=None, help=t("help.diff.out"))
    add_threads(p)
    p.set_defaults(func=run_diff)


def run_diff(args: argparse.Namespace) -> int:
    """Each view a table on stdout, and PNG, HTML and JSON under --out (causal_views' writers)."""
    from pathlib import Path

    from glassformer.inspect.causal_views import text_table, write_all
    from glassformer.post import diff

    pair = diff.open_pair(args.base, args.tuned)
    if args.prompt:
        prompts = [pair.tokenizer.encode(p) for p in args.prompt]
        if not all(prompts):
            raise UsageError("error.sample.empty_prompt")
    else:
        prompts = diff.prompts_of_run(pair)
    layers, weights = diff.weight_views(pair)
    views = {"diff_layers": layers, "diff_weights": weights}
    views["diff_heads"] = diff.head_view(pair)
    views["diff_lora"] = diff.lora_view(pair, args.tuned)
    views["diff_tokens"] = diff.token_view(pair, prompts)
    out = Path(args.out or Path("out") / "diff")
    for stem, grid in views.items():
        if grid is None:
            continue
        print(text_table(grid))
        print()
        for f in write_all(grid, out, stem):
            say("inspect.wrote", files=f)
    return 0
