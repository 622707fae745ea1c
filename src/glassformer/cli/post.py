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
from glassformer.errors import UsageError
from glassformer.messages import N_, note, say, t

CHAT_FORMATS = ("chatml", "llama3")  # post/chat.py's CHAT_FORMATS (named here: --help imports no torch)
BUILTIN_DATA = "builtin:arithmetic"  # post/data.py's BUILTIN
LORA_TARGET = r".*attn.*"  # post/tune.py's DEFAULT_LORA_TARGET
EXIT_NONFINITE, EXIT_INTERRUPTED = 1, 130


# each method's help: its one line, its description, what --data takes, and --beta's (dpo, grpo)
METHOD_HELP = {
    "sft": {
        "help": N_("supervised fine-tuning of a base run on conversations (a new run)"),
        "about": N_(
            "Fine-tune a base run on conversations, learning only the "
            "assistant's tokens, through the one trainer. The chat's "
            "control tokens are added to the base's tokenizer (its ids "
            "unchanged) and the embedding and head grow for them. "
            "Conversations are padded, one a row. The base run is never "
            "modified. Training settings as --key=value (--max_steps=200 "
            "--lr=3e-4 --batch_size=8)."
        ),
        "data": N_('conversations, one JSON object a line: {{"messages": [...]}}; or {builtin}'),
    },
    "dpo": {
        "help": N_("direct preference optimization of a run on preference pairs (a new run)"),
        "about": N_(
            "Train a run to prefer the chosen answer of each pair to the "
            "rejected one (DPO), against a frozen copy of the run as the "
            "reference, through the one trainer. The base run is never "
            "modified."
        ),
        "data": N_(
            "preference pairs, one JSON object a line: "
            '{{"prompt": [...], "chosen": [...], "rejected": [...]}}; or '
            "{builtin}"
        ),
        "beta": N_("how strongly the policy is held to the reference (default: 0.1)"),
    },
    "grpo": {
        "help": N_("group relative policy optimization of a run on questions with checkable answers (a new run)"),
        "about": N_(
            "Sample several answers to each question, reward those whose "
            "last number is the answer, and train on the group-relative "
            "advantages with a KL penalty to a frozen copy of the run "
            "(GRPO), through the one trainer. The base run is never "
            "modified."
        ),
        "data": N_('questions, one JSON object a line: {{"prompt": [...], "answer": "82"}}; or {builtin}'),
        "beta": N_("the weight of the KL penalty to the reference (default: 0.04)"),
    },
}


# what a run is started with, and their defaults: a resumed run keeps its own (run_post refuses them there)
START_ONLY = {
    "format": "chatml",
    "lora_r": None,
    "lora_alpha": None,
    "lora_target": LORA_TARGET,
    "pack": False,
    "beta": None,
    "group": 4,
    "max_new_tokens": 8,
    "temperature": 1.0,
}


def register(subparsers: argparse._SubParsersAction) -> None:
    for method, words in METHOD_HELP.items():
        p = subparsers.add_parser(method, allow_abbrev=False, help=t(words["help"]), description=t(words["about"]))
        p.add_argument(
            "base",
            nargs="?",
            metavar="BASE_RUN",
            help=t("the run to start from (as {example}); it is read, never written", example=RUN_EXAMPLE),
        )
        p.add_argument("--data", default=None, help=t(words["data"], builtin=BUILTIN_DATA))
        p.add_argument(
            "--out",
            default=None,
            help=t("the new run's directory (default: runs/<base>-<method>-<time>); it must not exist"),
        )
        p.add_argument(
            "--resume", metavar="RUN", default=None, help=t("continue the post-training run in this directory")
        )
        p.add_argument(
            "--format",
            choices=CHAT_FORMATS,
            default=START_ONLY["format"],
            help=t("the chat template (default: {default})", default=START_ONLY["format"]),
        )
        p.add_argument(
            "--lora-r",
            type=count,
            default=None,
            help=t("train a LoRA of this rank instead of every weight (merged into the weights at the end)"),
        )
        p.add_argument(
            "--lora-alpha", type=positive, default=None, help=t("LoRA's alpha: the update is scaled by alpha / r")
        )
        p.add_argument(
            "--lora-target",
            default=START_ONLY["lora_target"],
            help=t(
                "a regular expression the full names of LoRA's linear layers match (default: {default})",
                default=START_ONLY["lora_target"],
            ),
        )
        p.add_argument("--no-progress", action="store_true", help=t("no progress bar (log lines still print)"))
        if method == "sft":
            p.add_argument(
                "--pack",
                action="store_true",
                help=t(
                    "pack several conversations into each row of seq_len, each attending only to itself "
                    "(default: one conversation a row, padded)"
                ),
            )
        if method in ("dpo", "grpo"):
            p.add_argument("--beta", type=positive, default=None, help=t(words["beta"]))
        if method == "grpo":
            p.add_argument(
                "--group",
                type=count,
                default=START_ONLY["group"],
                help=t("answers sampled per question (default: {default})", default=START_ONLY["group"]),
            )
            p.add_argument(
                "--max-new-tokens",
                type=count,
                default=START_ONLY["max_new_tokens"],
                help=t(
                    "the longest answer sampled, in tokens (default: {default})", default=START_ONLY["max_new_tokens"]
                ),
            )
            p.add_argument(
                "--temperature",
                type=temperature,
                default=START_ONLY["temperature"],
                help=t(
                    "the sampling temperature of the answers (default: {default})", default=START_ONLY["temperature"]
                ),
            )
        p.set_defaults(func=run_post, method=method, accepts_overrides=True)
    register_chat(subparsers)
    register_diff(subparsers)


CHAT_MAX_NEW_TOKENS = 64
CHAT_TEMPERATURE = 0.0  # greedy: a small model's best answer, the same every time
RESET, QUIT = "/reset", "/quit"
PROMPT_MARK = "> "


def register_chat(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "chat",
        allow_abbrev=False,
        help=t("talk with a post-trained run in the terminal, turn by turn"),
        description=t(
            "Read a user turn per line of standard input, render the "
            "history with the run's chat template, and stream the "
            "answer, written by the one sampling path, until the "
            "end-of-turn token. The oldest turns are dropped when the "
            "history outgrows the model's context. /reset forgets the "
            "history; /quit or the end of input leaves."
        ),
    )
    p.add_argument(
        "run",
        metavar="RUN",
        help=t("the post-trained run to talk with (made by sft, dpo or grpo, e.g. {example})", example=RUN_EXAMPLE),
    )
    p.add_argument("--system", default=None, type=utf8_text, help=t("a system message put before every conversation"))
    p.add_argument(
        "--max-new-tokens",
        type=count,
        default=CHAT_MAX_NEW_TOKENS,
        help=t("tokens to write (default {default})", default=CHAT_MAX_NEW_TOKENS),
    )
    p.add_argument(
        "--temperature",
        type=temperature,
        default=CHAT_TEMPERATURE,
        help=t("0 = greedy; <1 sharper, >1 flatter (default {default})", default=CHAT_TEMPERATURE),
    )
    p.add_argument("--top-k", type=count, default=None, help=t("keep the k most likely tokens"))
    p.add_argument(
        "--top-p", type=probability, default=None, help=t("keep the most likely tokens up to probability p (nucleus)")
    )
    add_knobs(p)
    p.add_argument("--seed", type=seed, default=None, help=t("same seed, same text"))
    p.add_argument("--best", action="store_true", help=t("use best.safetensors (lowest val loss)"))
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
    say(
        "chatting with {run} ({format} template): a line is a turn; "
        "{reset} forgets the history, {quit} (or end of input) "
        "leaves.",
        run=args.run,
        format=chat_format_of(config, args.run),
        reset=RESET,
        quit=QUIT,
    )

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
            say("the history is forgotten; a new conversation starts.")
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
            note(t("(the {n} oldest turns were dropped so the conversation fits the model's context)", n=turn.dropped))
    return 0


def run_post(args: argparse.Namespace) -> int:
    from glassformer.post import tune

    if args.resume:
        if args.base or args.data or args.out:
            raise UsageError(
                "post.resume_alone",
                "--resume continues a run with its own base, data and "
                "output: leave out BASE_RUN, --data and --out (glassformer "
                "{method} --resume RUN).",
                method=args.method,
            )
        given = [
            f"--{k.replace('_', '-')}" for k, default in START_ONLY.items() if getattr(args, k, default) != default
        ]
        if given:  # each would be silently the run's own: say so instead
            raise UsageError(
                "post.resume_settings",
                "{options} are chosen when a run starts, and {dir} keeps its "
                "own: leave them out with --resume (or start a new run with "
                "them).",
                options=", ".join(given),
                dir=args.resume,
            )
        run = tune.resume(args.resume, args.overrides, progress=not args.no_progress)
        say("resuming {dir} from step {step}", dir=run.dir, step=run.trainer.step)
    else:
        if not args.base or not args.data:
            raise UsageError(
                "post.need_base_data",
                "glassformer {method} needs a base run and its data: "
                "glassformer {method} BASE_RUN --data FILE.jsonl (or --data "
                "{builtin}).",
                method=args.method,
                builtin=BUILTIN_DATA,
            )
        if (args.lora_r is None) != (args.lora_alpha is None):
            raise UsageError(
                "post.lora_both", "LoRA needs both --lora-r and --lora-alpha (the update is scaled by alpha / r)."
            )
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
            group=getattr(args, "group", START_ONLY["group"]),
            max_new_tokens=getattr(args, "max_new_tokens", START_ONLY["max_new_tokens"]),
            temperature=getattr(args, "temperature", START_ONLY["temperature"]),
            progress=not args.no_progress,
            pack=getattr(args, "pack", START_ONLY["pack"]),
        )
        post = run.config["post"]
        trained = sum(p.numel() for p in run.model.parameters() if p.requires_grad)
        say(
            "{method}: {dir}, from the base run {base}, on {data}",
            method=args.method,
            dir=run.dir,
            base=post["base"],
            data=post["data"],
        )
        say(
            "vocabulary {vocab} tokens with the chat's control tokens; {trained:,} of {total:,} parameters train",
            vocab=run.tokenizer.vocab_size,
            trained=trained,
            total=run.model.num_params(),
        )
    result = tune.train(run)
    if result.status == "nonfinite":
        say("glassformer train: stopped: {message}", file=sys.stderr, message=result.message)
        return EXIT_NONFINITE
    if result.status == "interrupted":
        print(result.message)
        say(
            "continue with: {glassformer} {method} --resume {dir}",
            method=run.config["post"]["method"],
            dir=run.dir,
            glassformer=runnable(),
        )
        return 128 + result.signal if result.signal else EXIT_INTERRUPTED
    say(
        "done after {steps} steps: {figures}",
        steps=result.step,
        figures="  ".join(f"{k} {v:.4f}" for k, v in run.trainer.last_eval.items()),
    )
    if run.config["post"].get("lora"):
        say("LoRA merged into {dir}/model.safetensors; its A and B are in {dir}/lora.safetensors", dir=run.dir)
    say('sample it:     {glassformer} sample {dir} --prompt "..."', dir=run.dir, glassformer=runnable())
    return 0


def register_diff(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "diff",
        allow_abbrev=False,
        help=t(
            "show what tuning changed inside a model: weights by layer, "
            "parameter and head, LoRA's update, and the next tokens that "
            "moved most"
        ),
        description=t(
            "Compare a base run with a run tuned from it: the relative "
            "weight change of every layer, parameter and attention head, "
            "a LoRA run's low-rank update and its rank; on a few prompts "
            "(given with --prompt, or the tuned run's own data) how far "
            "each head's attention and causal effect moved, and the next "
            "tokens whose probability moved most. Each view is printed "
            "as a table and written as PNG, HTML and JSON."
        ),
    )
    p.add_argument("base", metavar="BASE", help=t("the run before tuning (e.g. {example})", example=RUN_EXAMPLE))
    p.add_argument("tuned", metavar="TUNED", help=t("the run tuned from it (sft, dpo, grpo ...)"))
    p.add_argument(
        "--prompt",
        action="append",
        type=utf8_text,
        default=None,
        help=t("a prompt for the tokens view (repeat it for several); default: the tuned run's own data"),
    )
    p.add_argument("--out", default=None, help=t("the folder for the PNG, HTML and JSON files (default: out/diff)"))
    add_threads(p)
    p.set_defaults(func=run_diff)


def run_diff(args: argparse.Namespace) -> int:
    """Each view a table on stdout, and PNG, HTML and JSON under --out (causal_views' writers)."""
    from pathlib import Path

    from glassformer.inspect.causal_views import text_table, write_all
    from glassformer.post import diff

    pair = diff.open_pair(args.base, args.tuned)
    prompts = diff.prompt_ids(pair, args.prompt)
    out = Path(args.out or Path("out") / "diff")
    for stem, grid in diff.views(pair, args.tuned, prompts).items():
        if grid is None:
            continue
        print(text_table(grid))
        print()
        for f in write_all(grid, out, stem):
            say("wrote {files}", files=f)
    return 0
