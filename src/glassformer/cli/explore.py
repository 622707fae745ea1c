"""The verbs that open something to look around in, in your browser: a page of your own model
(`explore`) and the notebooks (`notebooks`).

`glassformer explore [RUN]`: a local web page where you type text and watch your model think.

Thin: picks the model (RUN, else the newest run under runs/, or --preset with random weights),
then serves glassformer.explore on 127.0.0.1 until Ctrl-C.

`glassformer notebooks [--dir DIR] [--no-open]`: the notebooks (English and Chinese) in a
folder of your own, opened in JupyterLab.

The notebooks ship inside the package (glassformer/notebooks, package data), so a pip user has
them too. They are copied into DIR (default ./glassformer-notebooks); a notebook already there is
kept as it is (your edits are never overwritten). Then `python -m jupyterlab DIR` starts, when
JupyterLab is installed (the optional extra: pip install "glassformer[notebooks]", or make
notebooks in a checkout); without it the verb says that one line and exits 1.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

from glassformer.cli.options import MAX_PORT, add_threads, port, seed
from glassformer.errors import NotFound, UsageError
from glassformer.messages import say, t


def register(subparsers: argparse._SubParsersAction) -> None:
    register_explore(subparsers)
    register_notebooks(subparsers)


# ---- explore -----------------------------------------------------------------------------------
DEFAULT_PORT = 8321
LOCAL = "127.0.0.1"  # this machine only


def register_explore(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "explore",
        help=t("a local web page: type text, see tokens, attention, the logit lens, next tokens"),
        description=t(
            "Serve a page on {local} that shows your model at work on "
            "the text you type: tokens and the shape trace, every head's "
            "attention, the residual stream and logit lens, the "
            "next-token distribution with temperature/top-k/top-p, "
            "generation step by step, and head ablation. Works offline: "
            "nothing is loaded from the network. Preset fields can be "
            "overridden with --key=value (with --preset).",
            local=LOCAL,
        ),
    )
    p.add_argument("run", nargs="?", default=None, help=t("a run directory (default: the newest run under runs/)"))
    p.add_argument("--preset", default=None, help=t("explore this preset with random weights instead of a run"))
    p.add_argument(
        "--against",
        metavar="TUNED",
        default=None,
        help=t("a run tuned from RUN: a diff view shows what tuning changed inside (as glassformer diff RUN TUNED)"),
    )
    p.add_argument(
        "--seed", type=seed, default=0, help=t("seed of the preset's random weights (default {default})", default=0)
    )
    p.add_argument(
        "--port",
        type=port,
        default=DEFAULT_PORT,
        help=t("port (default {default}; 0 = any free port)", default=DEFAULT_PORT),
    )
    p.add_argument(
        "--host", default=LOCAL, help=t("address to listen on (default {default}: this machine only)", default=LOCAL)
    )
    p.add_argument(
        "--allow-remote",
        action="store_true",
        help=t("required with a --host other than {local}/localhost: other machines can then reach it", local=LOCAL),
    )
    add_threads(p)
    p.set_defaults(func=run_explore, accepts_overrides=True)


def run_explore(args: argparse.Namespace) -> int:
    from glassformer.explore.server import check_host, latest_run, open_preset, open_run, serve

    if args.run and args.preset:
        raise UsageError("explore.run_and_preset", "give a RUN or --preset NAME, not both.")
    if args.overrides and not args.preset:
        raise UsageError(
            "explore.overrides",
            "overrides {overrides} apply to a --preset; a run's model is fixed by its checkpoint.",
            overrides=args.overrides,
        )
    if not 0 <= args.port <= MAX_PORT:
        raise UsageError(
            "explore.port", "--port must be between 0 and {most}, got {port}.", most=MAX_PORT, port=args.port
        )
    if args.against and not args.run:
        raise UsageError(
            "explore.against_needs_run",
            "--against {tuned} compares a base run with a run tuned from "
            "it: name the base too, as glassformer explore BASE --against "
            "{tuned}.",
            tuned=args.against,
        )
    check_host(args.host, args.allow_remote)  # refuse before loading anything
    if args.preset:
        explorer = open_preset(args.preset, args.seed, args.overrides)
    else:
        explorer = open_run(args.run or latest_run(), args.against)
    serve(explorer, args.host, args.port, args.allow_remote)
    return 0


# ---- notebooks ---------------------------------------------------------------------------------
DEFAULT_DIR = "glassformer-notebooks"
INSTALL = 'pip install "glassformer[notebooks]"'  # the optional extra that brings JupyterLab


def register_notebooks(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "notebooks",
        help=t("copy the notebooks (English and Chinese) into a folder and open them in JupyterLab"),
        description=t(
            "Copies the notebooks the package ships (each in English and "
            "Chinese) into --dir, keeping any already there, then opens "
            "the folder in JupyterLab (the optional extra: pip install "
            '"glassformer[notebooks]"). Options this command does not '
            "know go on to JupyterLab (e.g. --no-browser)."
        ),
    )
    p.add_argument(
        "--dir", default=DEFAULT_DIR, help=t("the folder to copy them into (default: {default})", default=DEFAULT_DIR)
    )
    p.add_argument("--no-open", dest="open", action="store_false", help=t("only copy them; do not start JupyterLab"))
    # JupyterLab's own options come after `--`, so a mistyped option of ours is still refused before
    # anything is copied: glassformer notebooks -- --port 8899
    p.add_argument(
        "jupyter",
        nargs="*",
        metavar="-- JUPYTERLAB_OPTION",
        help=t("JupyterLab's own options, after -- (e.g. {example})", example="-- --port 8899"),
    )
    p.set_defaults(func=run_notebooks)


def shipped() -> list:
    """The notebooks the package carries (and their README), by name."""
    folder = files("glassformer") / "notebooks"
    found = sorted((f for f in folder.iterdir() if f.name.endswith((".ipynb", "README.md"))), key=lambda f: f.name)
    if not found:
        raise NotFound(
            "notebooks.none_shipped",
            "this installation has no notebooks in {folder}: reinstall glassformer",
            folder=str(folder),
        )
    return found


def copy_notebooks(dest: Path) -> tuple[list[Path], list[Path]]:
    """Copy every shipped notebook into dest: (copied, kept because already there)."""
    dest.mkdir(parents=True, exist_ok=True)
    copied, kept = [], []
    for source in shipped():
        target = dest / source.name
        if target.exists():
            kept.append(target)
            continue
        with source.open("rb") as src, open(target, "wb") as out:
            shutil.copyfileobj(src, out)
        copied.append(target)
    return copied, kept


def has_jupyterlab() -> bool:
    return importlib.util.find_spec("jupyterlab") is not None


def run_notebooks(args: argparse.Namespace) -> int:
    dest = Path(args.dir)
    copied, kept = copy_notebooks(dest)
    say(
        "notebooks in {dir}: {copied} copied, {kept} already there (kept as they are)",
        copied=len(copied),
        kept=len(kept),
        dir=dest,
    )
    if not args.open:
        return 0
    if not has_jupyterlab():
        say(
            "JupyterLab is not installed: {install} (or `make notebooks` "
            "in a checkout), then run this again; the notebooks are in "
            "{dir}",
            file=sys.stderr,
            install=INSTALL,
            dir=dest,
        )
        return 1
    say("opening {dir} in JupyterLab (Ctrl-C stops it)", dir=dest)
    return subprocess.call([sys.executable, "-m", "jupyterlab", str(dest), *jupyter_options(args.jupyter)])


ALLOW_ROOT = "--allow-root"


def jupyter_options(given: list[str]) -> list[str]:
    """JupyterLab's options from the command line, with --allow-root added (and said) when this
    process runs as root, as in most containers: without it JupyterLab refuses to start."""
    options = list(given or [])
    if hasattr(os, "geteuid") and os.geteuid() == 0 and ALLOW_ROOT not in options:
        say("running as root: JupyterLab is started with {flag} (it refuses root without it)", flag=ALLOW_ROOT)
        options.append(ALLOW_ROOT)
    return options
