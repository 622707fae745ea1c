"""The verbs that look inside a model.

`glassformer trace | attention | grads | params`: look inside a model. Thin: each verb loads a
model (a preset, randomly initialised with --seed, or a trained run of any kind with --run) and
calls one function of glassformer.inspect, then says where its files went.

`glassformer patch | heads | attribute RUN`: the causal views of a trained run. Thin: each verb
loads the run, checks its inputs (inspect/causal_views.py refuses, in one line naming the fix,
before anything is written), computes one view and writes its PNG, offline HTML and JSON, printing
the table.

`glassformer experts RUN`: a mixture-of-experts run's routing (inspect/experts.py): the token ×
expert map of each layer for --text, each expert's load over the text or --corpus with its MaxVio
and routing entropy; PNG, offline HTML and JSON, the tables printed.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from glassformer.cli.options import add_threads, count, count_or_zero, index_within, positive, seed, utf8_text
from glassformer.config import TrainConfig, apply_overrides, get_preset
from glassformer.errors import UsageError
from glassformer.files import json_text
from glassformer.messages import N_, pad, pad_left, say, t

if TYPE_CHECKING:
    import torch

# torch, and the modules that import it, are imported inside the verbs that compute: building the
# parser (`glassformer --help`, `glassformer trace --help`) never loads it (cli/__init__.py)

DEFAULT_PROMPT = {"token": "hello world", "numbers": None, "pairs": "一千二百零五"}  # numbers: a sine wave
DEFAULT_PRESET = "seed000"


@dataclass
class Loaded:
    model: torch.nn.Module
    tokenizer: object | None
    train: TrainConfig
    source: str  # "preset seed000, random init, seed 0" or "run runs/x"
    example: str = ""  # the text read without --prompt: a run's own (as the explorer opens it), else the default


def _run_example(model, tokenizer, config: dict) -> str:
    """The text a run is inspected on without --prompt: the one the explorer opens it on (the run's
    own training text, kept in config.json, else a sentence its vocabulary reads)."""
    if model.inputs != "tokens" or tokenizer is None:
        return ""
    from glassformer.explore.panels import readable_text

    own = config.get("example")
    return readable_text(tokenizer, own if isinstance(own, str) else None)


def register(subparsers: argparse._SubParsersAction) -> None:
    register_inspect(subparsers)
    register_causal(subparsers)
    register_repeats(subparsers)
    register_experts(subparsers)


def register_inspect(subparsers: argparse._SubParsersAction) -> None:
    verbs = {  # verb: what runs it, its one line of help
        "trace": (run_trace, N_("shape trace table: every named tensor of one forward pass")),
        "attention": (run_attention, N_("attention maps: PNG grid, one head's PNG, interactive HTML")),
        "grads": (run_grads, N_("gradient flow of one forward/backward on the prompt")),
        "params": (run_params, N_("parameter breakdown, FLOPs per token, activation memory")),
    }
    for verb, (handler, about) in verbs.items():
        p = subparsers.add_parser(
            verb,
            help=t(about),
            description=t(
                "{verb}. Preset fields can be overridden with --key=value (e.g. --n_layers=3).", verb=t(about)
            ),
        )
        p.add_argument(
            "--preset", default=DEFAULT_PRESET, help=t("named preset (default: {default})", default=DEFAULT_PRESET)
        )
        p.add_argument("--run", default=None, help=t("a run directory with a checkpoint, instead of a preset"))
        p.add_argument(
            "--prompt",
            default=None,
            type=utf8_text,
            help=t(
                "input text (numbers for a regressor); default: for --run, "
                "the run's own training text (or a sentence its vocabulary "
                "reads), for a preset an English sentence"
            ),
        )
        p.add_argument("--seed", type=seed, default=0, help=t("seed of the random initialisation"))
        add_threads(p)  # --lang (every parser has it): also the language of stages and meanings
        p.add_argument(
            "--tokenizer",
            default="char",
            choices=["char", "word"],
            help=t("for a preset: built from the prompt plus a builtin text"),
        )
        p.add_argument("--out", default=None, help=t("output folder (default: out/{verb}/)", verb=verb))
        p.set_defaults(func=handler, accepts_overrides=True)
        if verb == "trace":
            p.add_argument("--collapse", action="store_true", help=t("one row per block after block 0"))
            p.add_argument(
                "--format",
                default="text",
                choices=["text", "markdown", "json"],
                help=t("what to print: text (default), markdown or json (all three are written)"),
            )
        if verb == "attention":
            p.add_argument("--layer", type=count_or_zero, default=0, help=t("layer of the single-head PNG"))
            p.add_argument("--head", type=count_or_zero, default=0, help=t("head of the single-head PNG"))
        if verb == "grads":
            p.add_argument("--vanish", type=positive, default=1e-8, help=t("flag gradient norms below this"))
            p.add_argument("--explode", type=positive, default=1e3, help=t("flag gradient norms above this"))
        if verb == "params":
            p.add_argument("--batch-size", type=count, default=None, help=t("B for activation memory"))
            p.add_argument("--seq-len", type=count, default=None, help=t("T for FLOPs and memory"))


def load(args, tokenizer: bool = True) -> Loaded:
    """The model to inspect. tokenizer=False keeps the preset's vocab_size (params needs no text).
    A preset's kind decides the model (override it with --kind=encoder, say)."""
    import torch

    from glassformer.models import build_model, model_class
    from glassformer.train.run import load_model, train_config

    if args.run:
        if args.overrides:
            raise UsageError(
                "inspect.run_overrides",
                "{overrides}: overrides change a --preset; the model of a "
                "--run is fixed by its checkpoint. Drop them, or drop --run.",
                overrides=" ".join(args.overrides),
            )
        model, tokenizer, config = load_model(args.run)
        train = train_config(config, args.run)
        source = t("run {run} ({kind})", run=args.run, kind=model.kind)
        return Loaded(model, tokenizer, train, source, _run_example(model, tokenizer, config))
    preset = apply_overrides(get_preset(args.preset), args.overrides or [])
    want_tokenizer, tokenizer = tokenizer, None
    if model_class(preset.model.kind).inputs == "token pairs":  # the pair tasks' one vocabulary
        from glassformer.train.data import pair_tokenizer

        tokenizer = pair_tokenizer()
        preset.model = replace(preset.model, vocab_size=tokenizer.vocab_size, pad_id=tokenizer.pad_id)
    elif model_class(preset.model.kind).inputs == "tokens" and want_tokenizer:
        from glassformer.text import SEED_TEXT, CharTokenizer, WordTokenizer

        text = SEED_TEXT + " " + (args.prompt or DEFAULT_PROMPT["token"])
        tokenizer = (CharTokenizer if args.tokenizer == "char" else WordTokenizer).from_text(text)
        preset.model = replace(preset.model, vocab_size=tokenizer.vocab_size)
    torch.manual_seed(args.seed)
    model = build_model(preset.model).eval()
    return Loaded(
        model,
        tokenizer,
        preset.train,
        t("preset {preset} ({kind}), random init, seed {seed}", preset=args.preset, kind=model.kind, seed=args.seed),
    )


def inputs(args, loaded: Loaded):
    """The prompt as a batch of one: ids (1, T) or numbers (1, T, 1), cropped to max_len; for an
    encoder-decoder, (source (1, S), [<BOS>] + its greedy translation + [<EOS>] (1, T))."""
    import torch

    max_len = loaded.model.cfg.max_len
    if loaded.model.inputs == "token pairs":
        return _source_and_translation(args.prompt or DEFAULT_PROMPT["pairs"], loaded)
    if loaded.model.inputs == "numbers":
        if args.prompt:
            try:
                values = [float(v) for v in args.prompt.replace(",", " ").split()]
            except ValueError:
                raise UsageError(
                    "inspect.numbers_prompt",
                    "this model reads numbers: give --prompt like {example!r}, not {prompt!r}.",
                    example="0 0.5 1 0.5",
                    prompt=args.prompt,
                ) from None
        else:  # one period of a sine wave, 16 steps
            values = [math.sin(2 * math.pi * t / 16) for t in range(16)]
        x = torch.tensor(values[-max_len:]).reshape(1, -1, 1)  # (1, T, 1)
    else:
        ids = _encode(loaded.tokenizer, args.prompt or loaded.example or DEFAULT_PROMPT["token"])
        if len(ids) > max_len:
            say(
                "note: the prompt has {tokens} tokens; kept its last {max_len} (max_len)",
                tokens=len(ids),
                max_len=max_len,
            )
        x = torch.tensor([ids[-max_len:]])  # (1, T)
    if x.size(1) == 0:
        raise UsageError("inspect.empty_prompt", "the prompt is empty after tokenizing; give --prompt some text.")
    return x


def _encode(tokenizer, text: str, shown: str | None = None) -> list[int]:
    """The prompt's ids; text the vocabulary cannot read is refused naming --prompt (the text may be a
    default the user never typed)."""
    try:
        return tokenizer.encode(text)
    except ValueError as e:  # the tokenizer's own sentence (UsageError) says which characters
        raise UsageError(
            "inspect.prompt_unreadable",
            "this model cannot read the prompt {prompt!r}: {reason} Give "
            "--prompt a text in its vocabulary (without --prompt, a run "
            "starts from its own training text).",
            prompt=text if shown is None else shown,
            reason=e,
        ) from None


def _source_and_translation(prompt: str, loaded: Loaded):
    import torch

    from glassformer.translate import greedy_decode

    tok, model = loaded.tokenizer, loaded.model
    src = torch.tensor([_encode(tok, " ".join(prompt.replace(" ", "")), shown=prompt)[: model.cfg.max_len]])  # (1, S)
    written = greedy_decode(model, src, tok.bos_id, tok.eos_id, model.cfg.max_len - 1).ids[0].tolist()
    written = written[: written.index(tok.eos_id)] if tok.eos_id in written else written
    return src, torch.tensor([[tok.bos_id, *written, tok.eos_id]])  # (1, S), (1, T)


def _next_token_pair(x):
    """(input, target) = (x[:, :-1], x[:, 1:]): predict each next token (or number); for an
    encoder-decoder, ((src, tgt[:, :-1]), tgt[:, 1:])."""
    if isinstance(x, tuple):
        src, tgt = x
        return (src, tgt[:, :-1]), tgt[:, 1:]
    if x.size(1) < 2:
        raise UsageError(
            "inspect.short_prompt", "need a prompt of at least {least} tokens to form next-token targets.", least=2
        )
    return x[:, :-1], x[:, 1:]


def _out(args, verb: str) -> Path:
    out = Path(args.out or Path("out") / verb)
    out.mkdir(parents=True, exist_ok=True)
    return out


def run_trace(args) -> int:
    from glassformer.inspect.trace import trace

    loaded = load(args)
    x, y = _next_token_pair(inputs(args, loaded))
    table = trace(loaded.model, x, loaded.tokenizer, targets=y, collapse=args.collapse, lang=args.lang)
    what = (
        t("source = the prompt, target = [<BOS>] + the model's own greedy translation, read teacher-forced")
        if isinstance(x, tuple)
        else t("input = the prompt without its last token, targets = the next tokens")
    )
    say("# {source}; {what}", source=loaded.source, what=what)
    print({"text": table.to_text, "markdown": table.to_markdown, "json": table.to_json}[args.format]())
    out = _out(args, "trace")
    for name, text in (
        ("trace.txt", table.to_text()),
        ("trace.md", table.to_markdown()),
        ("trace.json", table.to_json()),
    ):
        (out / name).write_text(text + "\n", encoding="utf-8")
    print()
    say("wrote {files}", files=", ".join(str(out / name) for name in ("trace.txt", "trace.md", "trace.json")))
    return 0


def run_attention(args) -> int:
    from glassformer.inspect import attention_grid_png, attention_head_png, attention_html, token_labels
    from glassformer.inspect.attention_maps import attention_hooks

    loaded = load(args)
    n_maps = len(attention_hooks(loaded.model))  # attention layers of every kind (an encoder-decoder has 3 per pair)
    index_within(
        "--layer",
        args.layer,
        n_maps,
        "arg.index.layers",
        N_("{flag} {value}: this model has {size} attention layers, attention layers 0..{last}."),
    )
    index_within(
        "--head",
        args.head,
        loaded.model.cfg.n_heads,
        "arg.index.heads",
        N_("{flag} {value}: this model has {size} heads, heads 0..{last}."),
    )
    x = inputs(args, loaded)
    out = _out(args, "attention")
    if isinstance(x, tuple):  # source and target: maps of three shapes, each axis its own tokens
        x, _ = _next_token_pair(x)
        labels = {"S": token_labels(x[0][0], loaded.tokenizer), "T": token_labels(x[1][0], loaded.tokenizer)}
        shown = t("source {source} · target {target}", source=" ".join(labels["S"]), target=" ".join(labels["T"]))
    elif loaded.model.inputs == "numbers":  # label each step with its first value
        labels = [f"{v:.2g}" for v in x[0, :, 0].tolist()]
        shown = t("{n} steps: {labels}", n=x.size(1), labels=" ".join(labels))
    else:
        labels = token_labels(x[0], loaded.tokenizer)
        shown = t("{n} tokens: {labels}", n=x.size(1), labels=" ".join(labels))
    files = [
        attention_grid_png(loaded.model, x, labels, out / "attention_grid.png"),
        attention_head_png(
            loaded.model, x, labels, args.layer, args.head, out / f"attention_L{args.layer}_H{args.head}.png"
        ),
    ]
    if isinstance(labels, list):  # the HTML viewer draws square maps only
        files.append(attention_html(loaded.model, x, labels, out / "attention.html"))
    say("# {source}; {what}", source=loaded.source, what=shown)
    for f in files:
        say("wrote {files}", files=f)
    return 0


def run_grads(args) -> int:
    import torch

    from glassformer.inspect.gradflow import GradientMonitor
    from glassformer.nn.loss import LOSSES

    loaded = load(args)
    model = loaded.model.train()
    x, y = _next_token_pair(inputs(args, loaded))
    out = model(*x) if isinstance(x, tuple) else model(x)  # (1, T, V) or (1, T, d_out)
    loss = LOSSES[model.loss](out, y)  # ()
    loss.backward()
    monitor = GradientMonitor(model, vanish=args.vanish, explode=args.explode)
    monitor.check(step=0)
    optimizer = torch.optim.Adam(model.parameters(), lr=loaded.train.lr)
    monitor.before_step()
    optimizer.step()  # one real step, so the update/weight ratio is measured, not guessed
    monitor.after_step()
    say(
        "# {source}; loss {loss:.4f}; upd/w after one Adam step at lr {lr:g}",
        source=loaded.source,
        loss=loss.item(),
        lr=loaded.train.lr,
    )
    print(monitor.table())
    dest = _out(args, "grads")
    png = monitor.plot(dest / "grads.png")
    jsonl = monitor.append_jsonl(dest / "grads.jsonl", step=0)
    print()
    say("per-layer gradient norm: {norms}", norms=", ".join(f"{k} {v:.2e}" for k, v in monitor.layer_norms().items()))
    say("wrote {files}", files=png)
    say("wrote {files}", files=jsonl)
    return 0


def run_params(args) -> int:
    from glassformer.inspect.params import (
        PREFILL,
        activation_memory,
        flops_per_token,
        kv_cache_per_token,
        kv_cache_table,
        param_table,
    )

    loaded = load(args, tokenizer=False)
    model = loaded.model
    B = args.batch_size or loaded.train.batch_size
    T = min(args.seq_len or loaded.train.seq_len, model.cfg.max_len)
    table = param_table(model)
    true_total = sum(p.numel() for p in model.parameters())
    print(f"# {loaded.source}")
    print(table.to_text())
    print()
    say("parameters: {total:,} (sum of numel over model.parameters())", total=true_total)
    fl = flops_per_token(model, T) if hasattr(model, "blocks") else None
    print()
    if fl is None:
        say(
            "FLOPs per token: Kaplan's formula counts one stack of "
            "blocks; a {kind} model has an encoder and a decoder, so "
            "none is printed.",
            kind=model.kind,
        )
    else:
        say(
            "FLOPs per token at T={T} (Kaplan et al. 2020, Table 1; N = {n:,} non-embedding parameters):",
            T=T,
            n=fl.non_embedding_params,
        )
        attn = t(N_("2·n_layers·T·C (causal)") if model.cfg.causal else N_("4·n_layers·T·C (bidirectional)"))
        for what, value in (
            ("2·N", fl.params_term),
            (t("attention {formula}", formula=attn), fl.attention_term),
            (t("head 2·C·V (Kaplan leaves it out)"), fl.head_term),
            (t("forward"), fl.forward),
            (t("training ≈ 3 × forward"), fl.training),
        ):
            print(f"  {pad(what, 44)} {value:>14,}")
    mem = activation_memory(model, B, T)
    print()
    say(
        "activations held at the hook points for B={B}, T={T}: {values:,} values = {mib:.2f} MiB in float32",
        B=B,
        T=T,
        values=mem["total_values"],
        mib=mem["total_bytes"] / 2**20,
    )
    kv = kv_cache_per_token(model.cfg) if model.kind == "gpt" else None  # a decoder that caches as it writes
    if kv is not None and model.cfg.mla_kv_rank:  # no H_kv to name: the cache holds the latent
        say(
            "KV cache per token in float32, {n_layers} layers: this model keeps "
            "its latent (R_kv={kv_rank}) and its rotary key (D_r={d_rope}), "
            "{mine:,} B; at its width MHA (H={H}, D={D}) would keep {mha:,} B, MQA {mqa:,} B",
            **vars(kv),
            kv_rank=model.cfg.mla_kv_rank,
            d_rope=model.cfg.mla_d_rope,
        )
    elif kv is not None and kv.gqa_heads:
        say(
            "KV cache per token in float32, {n_layers} layers of D={D}: "
            "MHA (H={H}) {mha:,} B, GQA (H_kv={gqa_heads}) {gqa:,} B, "
            "MQA {mqa:,} B; this model (H_kv={H_kv}) keeps {mine:,} B",
            **vars(kv),
        )
    elif kv is not None:
        say(
            "KV cache per token in float32, {n_layers} layers of D={D}: "
            "MHA (H={H}) {mha:,} B, MQA {mqa:,} B; this model "
            "(H_kv={H_kv}) keeps {mine:,} B",
            **vars(kv),
        )
    measured = kv_cache_table(model.cfg) if model.kind == "gpt" else []
    if measured:
        say(
            "KV cache bytes per token, measured from a real cache "
            "(float32, a prefill of {T} tokens), beside the formula:",
            T=min(PREFILL, model.cfg.max_len),
        )
        print(f"  {'':<5} {pad(t('sizes'), 36)} {pad_left(t('measured'), 12)} {pad_left(t('formula'), 12)}")
        for row in measured:
            sizes = ", ".join(f"{k}={v}" for k, v in row.sizes.items())
            print(f"  {row.kind.upper():<5} {pad(sizes, 36)} {row.measured:>12,} {row.formula:>12,}")
    out = _out(args, "params")
    data = {
        "rows": [vars(r) for r in table.rows],
        "total": true_total,
        "flops": vars(fl) if fl else None,
        "activation_memory": {"B": B, "T": T, **mem},
        "kv_cache_per_token": vars(kv) if kv is not None else None,
        "kv_cache_measured": [vars(row) for row in measured],
    }
    (out / "params.json").write_text(json_text(data, indent=1) + "\n", encoding="utf-8")
    say("wrote {files}", files=out / "params.json")
    return 0


# ---- the causal views: patch, heads, attribute -------------------------------------------------
HEADS_N, HEADS_BATCH = 20, 8
PATCH_BY = "position"


def register_causal(subparsers: argparse._SubParsersAction) -> None:
    verbs = {  # verb: what runs it, its one line of help, its example
        "patch": (
            run_patch,
            N_("activation patching: which layer, position or head brings the clean answer back"),
            N_(
                'example: glassformer patch runs/baby-<time> --clean "ROMEO: '
                'the cat" --corrupt "ROMEO: the mat" --answer " " --wrong s '
                "--by head (the two prompts the same number of tokens; "
                "--answer and --wrong one token each)"
            ),
        ),
        "heads": (
            run_heads,
            N_("head detectors (previous-token, duplicate-token, induction) with an ablation check"),
            N_("example: glassformer heads runs/baby-<time> --n 20 --batch 8"),
        ),
        "attribute": (
            run_attribute,
            N_("direct logit attribution: which parts of the model write the answer"),
            N_('example: glassformer attribute runs/baby-<time> --prompt "ROMEO: the cat" --answer " "'),
        ),
    }
    for verb, (handler, about, example) in verbs.items():
        p = subparsers.add_parser(
            verb,
            help=t(about),
            description=t("{verb}. Reads a trained run of a kind that predicts tokens (gpt, encoder).", verb=t(about)),
            epilog=t(example),
        )
        p.add_argument("run", help=t("the run directory (as written by glassformer train)"))
        if verb == "patch":
            p.add_argument("--clean", required=True, type=utf8_text, help=t("the clean prompt, whose answer is right"))
            p.add_argument(
                "--corrupt",
                required=True,
                type=utf8_text,
                help=t("the corrupted prompt: the same number of tokens, one detail changed"),
            )
            p.add_argument(
                "--answer", required=True, type=utf8_text, help=t("the right next token (exactly one token)")
            )
            p.add_argument(
                "--wrong",
                required=True,
                type=utf8_text,
                help=t("the wrong next token to compare with (exactly one token)"),
            )
            p.add_argument(
                "--by",
                default=PATCH_BY,
                choices=["position", "layer", "head"],
                help=t(
                    "what to patch: position (layer × position), layer "
                    "(attention, FFN), head (layer × head) (default: {default})",
                    default=PATCH_BY,
                ),
            )
        if verb == "attribute":
            p.add_argument(
                "--prompt", required=True, type=utf8_text, help=t("the prompt whose next token is attributed")
            )
            p.add_argument(
                "--answer", required=True, type=utf8_text, help=t("the right next token (exactly one token)")
            )
            p.add_argument(
                "--wrong",
                default=None,
                type=utf8_text,
                help=t("the wrong next token (default: the model's likeliest other token)"),
            )
        if verb == "heads":
            p.add_argument(
                "--n",
                type=count,
                default=HEADS_N,
                help=t("length of the random half of each repeated sequence (default: {default})", default=HEADS_N),
            )
            p.add_argument(
                "--batch",
                type=count,
                default=HEADS_BATCH,
                help=t("how many repeated sequences (default: {default})", default=HEADS_BATCH),
            )
            p.add_argument(
                "--seed", type=seed, default=0, help=t("seed of the random sequences (default: {default})", default=0)
            )
        p.add_argument("--out", default=None, help=t("output folder (default: out/{verb}/)", verb=verb))
        add_threads(p)
        p.set_defaults(func=handler)


def _load_for_causal(args, verb: str):
    from glassformer.inspect.causal_views import check_model
    from glassformer.train.run import load_model

    model, tokenizer, _ = load_model(args.run)
    check_model(model, verb)
    return model, tokenizer


def _write_causal(grid, args, verb: str) -> int:
    from glassformer.inspect.causal_views import text_table, write_all

    print(text_table(grid))
    print()
    for f in write_all(grid, Path(args.out or Path("out") / verb), verb):
        say("wrote {files}", files=f)
    return 0


def run_patch(args) -> int:
    from glassformer.inspect.causal_views import answer_and_wrong, patch_view, prompt_pair

    model, tok = _load_for_causal(args, "patch")
    clean, corrupt = prompt_pair(tok, args.clean, args.corrupt, model.cfg.max_len)
    answer, wrong = answer_and_wrong(tok, args.answer, args.wrong)
    grid = patch_view(model, tok, clean, corrupt, answer, wrong, args.by)
    say(
        "# run {run} ({kind}); answer {answer!r} against {wrong!r}",
        run=args.run,
        kind=model.kind,
        answer=args.answer,
        wrong=args.wrong,
    )
    return _write_causal(grid, args, "patch")


def run_heads(args) -> int:
    from glassformer.inspect.causal_views import heads_view

    model, _ = _load_for_causal(args, "heads")
    grid = heads_view(model, args.n, args.batch, args.seed)
    say("# run {run} ({kind})", run=args.run, kind=model.kind)
    return _write_causal(grid, args, "heads")


def run_attribute(args) -> int:
    import torch

    from glassformer.inspect.causal_views import answer_and_wrong, attribution_view, encode

    model, tok = _load_for_causal(args, "attribute")
    ids = torch.tensor([encode(tok, args.prompt, "--prompt", model.cfg.max_len)])  # (1, T)
    answer, wrong = answer_and_wrong(tok, args.answer, args.wrong)
    grid = attribution_view(model, tok, ids, answer, wrong)
    say(
        "# run {run} ({kind}); answer {answer!r} against {wrong!r}",
        run=args.run,
        kind=model.kind,
        answer=args.answer,
        wrong=tok.decode([grid.extra["wrong"]]),
    )
    return _write_causal(grid, args, "attribute")


# ---- repeats: why does my model repeat itself? -------------------------------------------------
SWEEP_SAMPLES, SWEEP_TEMPERATURE = 8, 1.0  # --sweep: the model's own distribution, a small batch


def register_repeats(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "repeats",
        help=t(
            "why does my model repeat itself? the loop greedy decoding "
            "falls into, the heads that copy it, the logit lens there, "
            "and those heads ablated"
        ),
        description=t(
            "Write greedily from --prompt, find the loop the text ends "
            "in, and look at it: each head's induction and copy scores "
            "on the text, the probability of continuing the loop with "
            "each head zeroed, the logit lens where the loop first "
            "repeats, and a control prompt. Reads a trained run that "
            "writes text."
        ),
        epilog=t('example: glassformer repeats runs/baby-<time> --prompt "ROMEO:" --control "JULIET:"'),
    )
    p.add_argument("run", help=t("the run directory (as written by glassformer train)"))
    p.add_argument(
        "--prompt",
        required=True,
        type=utf8_text,
        help=t("the prompt greedy decoding continues (\\n and \\t are newline and tab)"),
    )
    p.add_argument(
        "--control",
        default=None,
        type=utf8_text,
        help=t("a control prompt, written and measured the same way (one that does not loop)"),
    )
    p.add_argument(
        "--max-new-tokens", type=count, default=None, help=t("tokens to write (default: the rest of the context)")
    )
    p.add_argument(
        "--sweep",
        action="store_true",
        help=t(
            "instead: sample with each repetition knob at a few values "
            "and chart seq-rep-4 and distinct-2 against each (the same "
            "seeds for every setting)"
        ),
    )
    p.add_argument(
        "--samples",
        type=count,
        default=SWEEP_SAMPLES,
        help=t("samples per setting of --sweep (default: {default})", default=SWEEP_SAMPLES),
    )
    p.add_argument(
        "--temperature",
        type=positive,
        default=SWEEP_TEMPERATURE,
        help=t("temperature of --sweep's samples (default: {default})", default=SWEEP_TEMPERATURE),
    )
    p.add_argument(
        "--seed",
        type=seed,
        default=0,
        help=t("seed of --sweep's samples, the same for every setting (default: {default})", default=0),
    )
    p.add_argument("--out", default=None, help=t("output folder (default: out/{verb}/)", verb="repeats"))
    add_threads(p)
    p.set_defaults(func=run_repeats)


def run_repeats(args) -> int:
    """The loop greedy decoding falls into and the mechanism at it (explore/repeats.py): two tables
    printed, each written as PNG, offline HTML and JSON."""
    from glassformer.cli.sample import _unescape
    from glassformer.explore.repeats import repeats_view
    from glassformer.inspect.causal_views import text_table, write_all
    from glassformer.train.run import load_model

    model, tokenizer, _ = load_model(args.run)
    if not model.samples:
        raise UsageError(
            "sample.no_text",
            "{run} holds a {kind} model, which reads numbers and writes "
            "no text; look inside it with `glassformer trace --run "
            "{run}` or `attention --run`.",
            run=args.run,
            kind=model.kind,
        )
    prompt = _unescape(args.prompt)
    control = _unescape(args.control) if args.control is not None else None
    out = Path(args.out or Path("out") / "repeats")
    if args.sweep:
        from glassformer.explore.repeats import sweep_png, sweep_view

        grid = sweep_view(model, tokenizer, prompt, args.samples, args.max_new_tokens, args.temperature, args.seed)
        say("# run {run} ({kind}), sampling from {prompt!r}", run=args.run, kind=model.kind, prompt=prompt)
        print(text_table(grid))
        print()
        for f in [*write_all(grid, out, "repeats_sweep"), sweep_png(grid, out / "repeats_sweep_chart.png")]:
            say("wrote {files}", files=f)
        return 0
    heads, lens = repeats_view(model, tokenizer, prompt, control, args.max_new_tokens)
    say("# run {run} ({kind}), greedy decoding from {prompt!r}", run=args.run, kind=model.kind, prompt=prompt)
    for grid, stem in ((heads, "repeats"), (lens, "repeats_lens")):
        print(text_table(grid))
        print()
        for f in write_all(grid, out, stem):
            say("wrote {files}", files=f)
    return 0


# ---- experts: where a mixture of experts sends each token ----------------------------------------


def register_experts(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "experts",
        help=t("routing of a mixture of experts: token × expert map per layer, each expert's load, MaxVio, entropy"),
        description=t(
            "Read a mixture-of-experts run's routers from their hook points: which experts each "
            "token of --text goes to and with what weight (one map per layer), and each expert's "
            "share of the token slots over the text or over --corpus, with the balance figure "
            "MaxVio and the routing entropy."
        ),
        epilog=t('example: glassformer experts runs/moe-<time> --text "ROMEO: the cat" --corpus input.txt'),
    )
    p.add_argument("run", help=t("the run directory (as written by glassformer train)"))
    p.add_argument(
        "--text",
        default=None,
        type=utf8_text,
        help=t("the text whose tokens are mapped (default: the run's own training text)"),
    )
    p.add_argument(
        "--corpus", default=None, help=t("a UTF-8 text file: the load over it, read in windows of max_len tokens")
    )
    p.add_argument("--out", default=None, help=t("output folder (default: out/{verb}/)", verb="experts"))
    add_threads(p)
    p.set_defaults(func=run_experts)


def run_experts(args) -> int:
    import torch

    from glassformer.inspect.causal_views import text_table
    from glassformer.inspect.experts import load_grid, map_grid, router_points, routing_view, write_routing
    from glassformer.train.run import load_model

    model, tokenizer, config = load_model(args.run)
    router_points(model)  # a model without experts refused before any text is read
    if model.inputs != "tokens" or tokenizer is None:
        raise UsageError(
            "experts.kind",
            "glassformer experts reads a model that reads tokens; {run} holds a {kind} model, which reads {inputs}.",
            run=args.run,
            kind=model.kind,
            inputs=model.inputs,
        )
    text = args.text if args.text is not None else _run_example(model, tokenizer, config)
    ids = _encode(tokenizer, text)
    if not ids:
        raise UsageError("inspect.empty_prompt", "the prompt is empty after tokenizing; give --prompt some text.")
    max_len = model.cfg.max_len
    if len(ids) > max_len:
        say("note: the prompt has {tokens} tokens; kept its last {max_len} (max_len)", tokens=len(ids), max_len=max_len)
    corpus, over = None, t("the text ({tokens} tokens)", tokens=min(len(ids), max_len))
    if args.corpus is not None:
        corpus = _encode(tokenizer, _read_corpus(args.corpus), shown=args.corpus)
        over = t("{path} ({tokens} tokens)", path=args.corpus, tokens=len(corpus))
    view = routing_view(model, torch.tensor([ids[-max_len:]]), tokenizer, corpus)
    say("# run {run} ({kind})", run=args.run, kind=model.kind)
    print(text_table(load_grid(view, over)))
    for i in range(len(view.layers)):
        print()
        print(text_table(map_grid(view, i)))
    print()
    for f in write_routing(view, over, Path(args.out or Path("out") / "experts")):
        say("wrote {files}", files=f)
    return 0


def _read_corpus(path: str) -> str:
    """--corpus's text, refused in one line when it cannot be read as UTF-8 text or holds none."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(
            "experts.corpus",
            "--corpus {path}: cannot read it as UTF-8 text ({reason}); give a text file.",
            path=path,
            reason=type(e).__name__,
        ) from None
    if not text:
        raise UsageError("experts.corpus_empty", "--corpus {path} is empty; give a file with some text.", path=path)
    return text
