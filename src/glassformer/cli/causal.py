"""`glassformer patch | heads | attribute RUN`: the causal views of a trained run. Thin: each verb
loads the run, checks its inputs (inspect/causal_views.py refuses, in one line naming the fix,
before anything is written), computes one view and writes its PNG, offline HTML and JSON, printing
the table."""

from __future__ import annotations

import argparse
from pathlib import Path

from glassformer.cli.options import add_threads, count, seed, utf8_text
from glassformer.messages import say, t

HEADS_N, HEADS_BATCH = 20, 8


def register(subparsers: argparse._SubParsersAction) -> None:
    verbs = {"patch": run_patch, "heads": run_heads, "attribute": run_attribute}
    for verb, handler in verbs.items():
        p = subparsers.add_parser(
            verb, help=t(f"help.{verb}"), description=t("help.causal.about", verb=t(f"help.{verb}"))
        )
        p.add_argument("run", help=t("help.causal.run"))
        if verb == "patch":
            p.add_argument("--clean", required=True, type=utf8_text, help=t("help.causal.clean"))
            p.add_argument("--corrupt", required=True, type=utf8_text, help=t("help.causal.corrupt"))
            p.add_argument("--answer", required=True, type=utf8_text, help=t("help.causal.answer"))
            p.add_argument("--wrong", required=True, type=utf8_text, help=t("help.causal.wrong"))
            p.add_argument("--by", default="position", choices=["position", "layer", "head"], help=t("help.causal.by"))
        if verb == "attribute":
            p.add_argument("--prompt", required=True, type=utf8_text, help=t("help.causal.prompt"))
            p.add_argument("--answer", required=True, type=utf8_text, help=t("help.causal.answer"))
            p.add_argument("--wrong", default=None, type=utf8_text, help=t("help.causal.wrong_optional"))
        if verb == "heads":
            p.add_argument("--n", type=count, default=HEADS_N, help=t("help.heads.n", default=HEADS_N))
            p.add_argument("--batch", type=count, default=HEADS_BATCH, help=t("help.heads.batch", default=HEADS_BATCH))
            p.add_argument("--seed", type=seed, default=0, help=t("help.heads.seed", default=0))
        p.add_argument("--out", default=None, help=t("help.causal.out", verb=verb))
        add_threads(p)
        p.set_defaults(func=handler)


def _load(args, verb: str):
    from glassformer.inspect.causal_views import check_model
    from glassformer.train.run import load_model

    model, tokenizer, _ = load_model(args.run)
    check_model(model, verb)
    return model, tokenizer


def _finish(grid, args, verb: str) -> int:
    from glassformer.inspect.causal_views import text_table, write_all

    print(text_table(grid))
    print()
    for f in write_all(grid, Path(args.out or Path("out") / verb), verb):
        say("inspect.wrote", files=f)
    return 0


def run_patch(args) -> int:
    from glassformer.inspect.causal_views import one_token, patch_view, prompt_pair

    model, tok = _load(args, "patch")
    clean, corrupt = prompt_pair(tok, args.clean, args.corrupt, model.cfg.max_len)
    answer, wrong = one_token(tok, args.answer, "--answer"), one_token(tok, args.wrong, "--wrong")
    grid = patch_view(model, tok, clean, corrupt, answer, wrong, args.by)
    say("cview.header", run=args.run, kind=model.kind, answer=args.answer, wrong=args.wrong)
    return _finish(grid, args, "patch")


def run_heads(args) -> int:
    from glassformer.inspect.causal_views import heads_view

    model, _ = _load(args, "heads")
    grid = heads_view(model, args.n, args.batch, args.seed)
    say("cview.heads.header", run=args.run, kind=model.kind)
    return _finish(grid, args, "heads")


def run_attribute(args) -> int:
    import torch

    from glassformer.inspect.causal_views import attribution_view, encode, one_token

    model, tok = _load(args, "attribute")
    ids = torch.tensor([encode(tok, args.prompt, "--prompt", model.cfg.max_len)])  # (1, T)
    answer = one_token(tok, args.answer, "--answer")
    wrong = one_token(tok, args.wrong, "--wrong") if args.wrong is not None else None
    grid = attribution_view(model, tok, ids, answer, wrong)
    say("cview.header", run=args.run, kind=model.kind, answer=args.answer, wrong=tok.decode([grid.extra["wrong"]]))
    return _finish(grid, args, "attribute")
