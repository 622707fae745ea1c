"""The evaluation card of a run (`glassformer eval RUN [--against RUN2]`): figures beyond the loss.

    bits per byte          on held-out text: the run's own validation split (train/run.py's
                           open_data, the same ids training evaluated on) or a file; every run of
                           a card is scored on the first run's text, so the bytes are the same
    loss by position       the mean loss at each position 0..T-1 of the context, over the windows
                           training's own evaluation reads (train/data.py's TextWindows, the run's
                           seq_len, batch_size, eval_iters and seed)
    calibration            the expected calibration error of the top-1 probability over those windows
    samples                n samples drawn with sample.py's generate_ids (as `glassformer sample
                           RUN --num-samples n --seed S` draws them), their distinct-n, seq-rep-n,
                           rep/l and the loops they end in (inspect/repetition.py)
    multiple choice        a JSONL of questions, scored the way lm-eval scores a choice
    --against              the runs side by side, the settings that differ, and the first step their
                           metrics.jsonl parts (evaluation.first_divergence)

The measures live in evaluation.py; this module loads runs, assembles the card and writes it: a
table (`card_table`, in the user's language), card.json (strict JSON: an undefined figure is null)
and card.png. docs/evaluation.md says what each figure means.
"""

from __future__ import annotations

import io
import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch

from glassformer.config import EvalConfig, TrainConfig
from glassformer.errors import DamagedFile, GlassformerError, UsageError
from glassformer.evaluation import (
    calibration,
    first_divergence,
    read_questions,
    score_choices,
    score_text,
    window_stats,
)
from glassformer.files import finite, read_text, write_bytes_atomic, write_json_atomic
from glassformer.inspect.repetition import NS, WINDOWS, distinct_n, measure_repetition
from glassformer.messages import NP_, columns, pad, pad_left, t
from glassformer.sample import generate_ids
from glassformer.train.checkpoint import load_model, train_config
from glassformer.train.data import TextWindows
from glassformer.train.record import MetricsLog

CARD = "glassformer eval"  # card.json's "card" field: how a card is told from a file of the user's
FORMAT = 1
CARD_FILE, PICTURE_FILE = "card.json", "card.png"
# Positions the terminal table shows (card.json and the picture hold all of them): the first few,
# where the model has least context, then doubling, and the last.
SHOWN_POSITIONS = (0, 1, 2, 3, 4, 8, 16, 32, 64, 128, 256, 512, 1024)


@dataclass
class EvalRun:
    dir: Path
    model: torch.nn.Module
    tokenizer: object
    config: dict
    train: TrainConfig


def load_run(run_dir, best: bool = False) -> EvalRun:
    """A run the card can read: a model that writes text (a GPT), with its tokenizer."""
    model, tokenizer, config = load_model(run_dir, best=best)
    if not getattr(model, "samples", False) or tokenizer is None:
        raise UsageError(
            "eval.cannot_sample",
            "{run} is a {kind} model, which does not write text: the "
            "card reads a model that predicts the next token (a gpt run, "
            "e.g. `glassformer train --preset baby`).",
            run=run_dir,
            kind=getattr(model, "kind", "?"),
        )
    return EvalRun(Path(run_dir), model, tokenizer, config, train_config(config, run_dir))


@dataclass
class HeldOut:
    text: str
    origin: str  # the file, or "val:<source>"
    owner: Path | None = None  # the run whose validation split it is
    ids: np.ndarray | None = field(default=None, repr=False)  # (N,) that run's own ids of it


def held_out(run: EvalRun, text_file: str | None = None, cache_dir: str | None = None) -> HeldOut:
    """The card's held-out text: `text_file`, else the run's validation split as training defines
    it (the same prepared ids, checked to be the data the run trained on)."""
    from glassformer.train.run import identity, open_data

    if text_file is not None:
        return HeldOut(read_text(text_file, t("Give a UTF-8 text file of held-out text.")), str(text_file))
    source = run.config.get("source")
    if not isinstance(source, str):  # an imported model: no data of its own
        raise UsageError(
            "eval.no_split",
            "{run} has no training data of its own (an imported model): give a held-out text with --text FILE.",
            run=run.dir,
        )
    try:
        data = open_data(source, "tokens", cache_dir, run.config.get("text"))
    except GlassformerError:
        raise
    except ValueError as e:
        raise DamagedFile(
            "eval.source_gone",
            "{run}'s config.json names the data source {source!r}, which "
            "cannot be read: {problem}. Give a held-out text with --text "
            "FILE.",
            run=run.dir,
            source=source,
            problem=e,
        ) from None
    for key, value in identity(data).items():
        if run.config.get(key) != value:
            raise UsageError(
                "eval.data_changed",
                "the data of {source!r} changed since {run} was trained "
                "({key} differs), so its validation split is not the one it "
                "was evaluated on: give a held-out text with --text FILE.",
                run=run.dir,
                source=source,
                key=key,
            )
    ids = np.asarray(data.val, dtype=np.int64)  # (N,)
    return HeldOut(run.tokenizer.decode(ids.tolist()), f"val:{source}", run.dir, ids)


def default_prompt(runs: list[EvalRun]) -> str:
    """A prompt every run of the card writes: a newline, else the first word of a run's own training
    text (config.json's example), else the first run's token 0."""
    firsts = [str(r.config.get("example") or "").split()[:1] for r in runs]
    for candidate in ["\n", *(words[0] + " " for words in firsts if words)]:
        if all(_reads(r.tokenizer, candidate) for r in runs):
            return candidate
    return runs[0].tokenizer.decode([0])


def _reads(tokenizer, text: str) -> bool:
    """Does the tokenizer turn `text` into tokens that spell it (whitespace aside)?"""
    try:
        ids = tokenizer.encode(text)
    except ValueError:
        return False
    return bool(ids) and tokenizer.decode(ids).split() == text.split()


def prompt_fits(run: EvalRun, prompt: str) -> list[int]:
    """The prompt's ids, refused when empty or when it leaves the model no room to write."""
    prompt_ids = run.tokenizer.encode(prompt)
    if not prompt_ids:
        raise UsageError("sample.empty_prompt", "the prompt is empty: give the model at least one token to continue")
    L = run.model.cfg.max_len
    if len(prompt_ids) >= L:
        raise UsageError(
            "eval.prompt_too_long",
            "the prompt has {n} tokens; the model reads at most "
            "{max_len} and must have room to write: shorten --prompt to "
            "{most} tokens or fewer.",
            n=len(prompt_ids),
            max_len=L,
            most=L - 1,
        )
    return prompt_ids


def draw_samples(run: EvalRun, prompt: str, s: EvalConfig) -> list[list[int]]:
    """s.samples continuations of `prompt` (ids, prompt excluded), drawn as `sample.sample` draws them:
    one batch, one torch.Generator seeded with s.seed."""
    model = run.model
    prompt_ids = prompt_fits(run, prompt)
    device = next(model.parameters()).device
    generator = torch.Generator(device=device).manual_seed(s.seed)
    ids = torch.tensor([prompt_ids] * s.samples, dtype=torch.long, device=device)  # (N, T0)
    rows: list[list[int]] = [[] for _ in range(s.samples)]
    for next_ids in generate_ids(model, ids, s.max_new_tokens, s.temperature, s.top_k, s.top_p, generator):
        for row, token in zip(rows, next_ids.tolist(), strict=True):  # (N,)
            row.append(token)
    return rows


def sample_figures(rows: list[list[int]], tokenizer) -> dict:
    """distinct-n over all the samples, the mean seq-rep-n and rep/l over them, and their loops."""
    measured = [measure_repetition(r, tokenizer) for r in rows]
    return {
        "distinct": {str(n): distinct_n(rows, n) for n in NS},
        "seq_rep": {str(n): _mean([m.seq_rep[n] for m in measured]) for n in NS},
        "rep": {str(w): _mean([m.rep[w] for m in measured]) for w in WINDOWS},
        "loops": [
            {"sample": i, **{k: v for k, v in asdict(m.loop).items() if k != "span"}}
            for i, m in enumerate(measured)
            if m.loop is not None
        ],
        "texts": [tokenizer.decode(r) for r in rows],
    }


def _mean(values: list[float]) -> float:
    """The mean of the defined values (NaN, an undefined measure, is skipped); NaN if none is."""
    kept = [v for v in values if not math.isnan(v)]
    return sum(kept) / len(kept) if kept else math.nan


def position_windows(run: EvalRun, ids: np.ndarray, origin: str, cfg: TrainConfig):
    """The windows training's evaluation reads from a split: TextWindows with `cfg`'s seq_len,
    batch_size, eval_iters and seed (the card's first run's, so two runs of one tokenizer read the
    same windows), at most the model's max_len long."""
    T = min(cfg.seq_len, run.model.cfg.max_len)
    if len(ids) < T + 1:
        raise UsageError(
            "eval.windows_short",
            "{origin} has {n} tokens, fewer than one window of "
            "seq_len={seq_len} + 1 = {need}: give a longer text with "
            "--text FILE.",
            origin=origin,
            n=len(ids),
            need=T + 1,
            seq_len=T,
        )
    device = next(run.model.parameters()).device
    windows = TextWindows(ids, ids, cfg.batch_size, T, cfg.eval_iters, cfg.seed, str(device))
    return windows.eval_batches("val")


def run_card(run: EvalRun, text: HeldOut, prompt: str, s: EvalConfig, windows: TrainConfig, questions=None) -> dict:
    """Every figure of one run on the card's held-out text; `windows`: the training settings whose
    evaluation windows the loss by position and the calibration read (position_windows)."""
    model, tok = run.model, run.tokenizer
    was_training = model.training
    model.eval()
    try:
        scored_text = text.text[: s.max_chars]
        score = score_text(model, tok, scored_text)
        ids = text.ids if text.owner == run.dir and text.ids is not None else np.asarray(tok.encode(text.text))
        stats = window_stats(model, position_windows(run, ids, text.origin, windows))
        calib = calibration(stats.confidence, stats.correct, s.bins)
        rows = draw_samples(run, prompt, s)
        choices = score_choices(model, tok, questions, s.questions or "") if questions else None
    finally:
        model.train(was_training)
    return {
        "run": str(run.dir),
        "kind": model.kind,
        "tokenizer": getattr(tok, "kind", type(tok).__name__),
        "vocab_size": tok.vocab_size,
        "max_len": model.cfg.max_len,
        "weights": "best" if s.best else "latest",
        "bits_per_byte": {
            "value": score.bits_per_byte,
            "nll_nats": score.nll,
            "tokens": score.tokens,
            "bytes": score.bytes,
            "context_chars": score.context,
            "exact": score.exact,
            "unknown": score.unknown,
        },
        "loss_by_position": {
            "windows": stats.windows,
            "seq_len": len(stats.position_nll),
            "mean": stats.mean_nll,
            "nll": stats.position_nll,
        },
        "calibration": {
            "ece": calib.ece,
            "bins": s.bins,
            "tokens": calib.tokens,
            "accuracy": calib.accuracy,
            "confidence": calib.confidence,
            "table": [asdict(b) for b in calib.bins],
        },
        "samples": {
            "n": s.samples,
            "prompt": prompt,
            "max_new_tokens": s.max_new_tokens,
            "temperature": s.temperature,
            "top_k": s.top_k,
            "top_p": s.top_p,
            "seed": s.seed,
            **sample_figures(rows, tok),
        },
        "choices": None
        if choices is None
        else {
            "file": str(s.questions),
            "questions": len(choices.items),
            "acc": choices.acc,
            "acc_norm": choices.acc_norm,
            "cut": choices.cut,
            "items": [asdict(i) for i in choices.items],
        },
    }


def compare(a: EvalRun, b: EvalRun, rtol: float | None = None) -> dict:
    """The settings two runs differ in, and where their metrics.jsonl part (first_divergence)."""
    records = [MetricsLog(r.dir / "metrics.jsonl").read() for r in (a, b)]
    found = first_divergence(records[0], records[1], rtol)
    parted = [d for d in found if d.step is not None]
    first = min(parted, key=lambda d: d.step) if parted else None  # type: ignore[arg-type, return-value]
    return {
        "settings": differing_settings(a.config, b.config),
        "records": [len(r) for r in records],
        "divergence": [asdict(d) for d in found],
        "first": None if first is None else {"quantity": first.quantity, "step": first.step},
        "curves": [_loss_curve(r) for r in records],
    }


def differing_settings(a: dict, b: dict) -> list[dict]:
    """[{"key": "train.seed", "a": 1337, "b": 7}, ...]: the model and training settings and the data
    source of two runs' config.json that are not the same."""
    flat = [_flatten({k: c.get(k) for k in ("source", "text", "model", "train")}) for c in (a, b)]
    keys = sorted(set(flat[0]) | set(flat[1]))
    return [{"key": k, "a": flat[0].get(k), "b": flat[1].get(k)} for k in keys if flat[0].get(k) != flat[1].get(k)]


def _flatten(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(_flatten(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def _loss_curve(records: list[dict]) -> list[list[float]]:
    return [[r["step"], r["loss"]] for r in records if r.get("kind") == "log" and isinstance(r.get("loss"), float)]


def evaluate(run_dir, s: EvalConfig, against=None) -> dict:
    """The whole card: every run scored on the first run's held-out text (or s.text), its evaluation
    windows, the same prompt and seeds; with `against`, the comparison of the two runs' logs."""
    runs = [load_run(run_dir, s.best)] + ([load_run(against, s.best)] if against is not None else [])
    questions = read_questions(s.questions) if s.questions else None  # refused before any model runs
    text = held_out(runs[0], s.text, s.cache_dir)
    prompt = s.prompt if s.prompt is not None else default_prompt(runs)
    for run in runs:
        prompt_fits(run, prompt)  # before any figure is computed
    scored = text.text[: s.max_chars]
    card = {
        "card": CARD,
        "format": FORMAT,
        "text": {
            "origin": text.origin,
            "chars": len(text.text),
            "scored_chars": len(scored),
            "max_chars": s.max_chars,
        },
        "runs": [run_card(r, text, prompt, s, runs[0].train, questions) for r in runs],
        "against": compare(runs[0], runs[1], s.rtol) if against is not None else None,
    }
    return finite(card)  # every NaN or infinity as None, as card.json holds it (files.json_text)


# ---- the card, written -------------------------------------------------------------------------------
def check_out(out: Path) -> list[Path]:
    """Refuse, before anything is computed, to write over files that are not an earlier card; return
    the files an earlier card left that will be replaced (the caller says so)."""
    if out.exists() and not out.is_dir():
        raise UsageError(
            "eval.out_is_file", "--out {out} is a file: give a folder for card.json and card.png.", out=out
        )
    card, picture = out / CARD_FILE, out / PICTURE_FILE
    present = [p for p in (card, picture) if p.exists()]
    if present and not _is_card(card):
        raise UsageError(
            "eval.not_a_card",
            "{path} is not an earlier evaluation card, and the card "
            "would replace it: move it, or give another folder with "
            "--out (now {out}).",
            path=present[0],
            out=out,
        )
    return present


def _is_card(path: Path) -> bool:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(value, dict) and value.get("card") == CARD


def write_card(card: dict, out: Path) -> list[Path]:
    """card.json and card.png under `out`, each written atomically; returns their paths."""
    out.mkdir(parents=True, exist_ok=True)
    write_json_atomic(out / CARD_FILE, card, indent=1, ensure_ascii=False)
    buf = io.BytesIO()
    card_figure(card).savefig(buf, format="png")
    write_bytes_atomic(out / PICTURE_FILE, buf.getvalue())
    return [out / CARD_FILE, out / PICTURE_FILE]


def _names(card: dict) -> list[str]:
    return [Path(r["run"]).name or r["run"] for r in card["runs"]]


def card_figure(card: dict):
    """Loss by position, the reliability diagram and, with two runs, their loss curves: one Figure."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from glassformer.inspect.fonts import label_font

    names = _names(card)
    words = {
        "position": t("loss by position in the context"),
        "position_x": t("position"),
        "nll_y": t("mean loss (nats)"),
        "reliability": t("reliability of the top-1 probability"),
        "conf_x": t("top-1 probability"),
        "acc_y": t("accuracy"),
        "ideal": t("calibrated"),
        "curves": t("training loss"),
        "step_x": t(NP_("card.picture.step_x", "step")),
        "loss_y": t("loss"),
        "parts": t("first parting"),
    }
    font, _ = label_font([*words.values(), *names])
    against = card["against"]
    fig = Figure(figsize=(15 if against else 10, 4.2), dpi=100)
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, 3 if against else 2)
    for name, r in zip(names, card["runs"], strict=True):
        nll = r["loss_by_position"]["nll"]
        axes[0].plot(range(len(nll)), [math.nan if v is None else v for v in nll], "o-", ms=2, label=name)
        table = [b for b in r["calibration"]["table"] if b["count"]]
        axes[1].plot([b["confidence"] for b in table], [b["accuracy"] for b in table], "o-", ms=3, label=name)
    axes[0].set(title=words["position"])
    axes[0].set_xlabel(words["position_x"], fontproperties=font)
    axes[0].set_ylabel(words["nll_y"], fontproperties=font)
    axes[1].plot([0, 1], [0, 1], "--", color="grey", lw=1, label=words["ideal"])
    axes[1].set_xlabel(words["conf_x"], fontproperties=font)
    axes[1].set_ylabel(words["acc_y"], fontproperties=font)
    axes[1].set_xlim(0, 1)
    axes[1].set_ylim(0, 1)
    if against:
        for name, curve in zip(names, against["curves"], strict=True):
            if curve:
                axes[2].plot(*zip(*curve, strict=True), lw=1, label=name)
        if against["first"] is not None:
            axes[2].axvline(against["first"]["step"], color="red", lw=1, ls=":", label=words["parts"])
        axes[2].set_xlabel(words["step_x"], fontproperties=font)
        axes[2].set_ylabel(words["loss_y"], fontproperties=font)
    for ax, key in zip(axes, ("position", "reliability", "curves"), strict=False):
        ax.set_title(words[key], fontproperties=font)
        ax.grid(alpha=0.3)
        ax.legend(prop=font)
    fig.tight_layout()
    return fig


def _f(value, spec: str = ".4f") -> str:
    return "—" if value is None else format(value, spec)


def card_table(card: dict) -> str:
    """The card as aligned text in the user's language (Chinese counted as two columns)."""
    names, runs = _names(card), card["runs"]
    width = max([columns(n) for n in names] + [12]) + 2

    def row(label: str, cells: list[str]) -> str:
        return pad(label, 34) + "".join(pad_left(c, width) for c in cells)

    text = card["text"]
    lines = [
        t("evaluation card: {runs}", runs=" | ".join(r["run"] for r in runs)),
        t(
            "held-out text: {origin}; {chars} of its {total} characters "
            "scored for bits per byte (its first word is context)",
            origin=text["origin"],
            chars=text["scored_chars"],
            total=text["chars"],
        ),
        "",
        row("", names),
    ]
    bpb = [r["bits_per_byte"] for r in runs]
    lines += [
        row(t("bits per byte"), [_f(b["value"]) for b in bpb]),
        row(t("  bytes scored"), [str(b["bytes"]) for b in bpb]),
        row(t("  tokens scored"), [str(b["tokens"]) for b in bpb]),
        row(t("  tokenizer writes the text back"), [t("yes") if b["exact"] else t("no") for b in bpb]),
        row(t("  unknown tokens"), [str(b["unknown"]) for b in bpb]),
        row(t("loss, mean over positions"), [_f(r["loss_by_position"]["mean"]) for r in runs]),
        row(
            t("calibration error (ECE, {bins} bins)", bins=runs[0]["calibration"]["bins"]),
            [_f(r["calibration"]["ece"]) for r in runs],
        ),
        row(t("top-1 accuracy"), [_f(r["calibration"]["accuracy"]) for r in runs]),
        row(t("mean top-1 probability"), [_f(r["calibration"]["confidence"]) for r in runs]),
    ]
    lines += [
        t(
            "{run}: its tokenizer does not write the scored text back (a "
            "word tokenizer drops line breaks and reads an unseen word "
            "as <UNK>), so its bits per byte is not comparable with the "
            "others'.",
            run=name,
        )
        for name, b in zip(names, bpb, strict=True)
        if not b["exact"]
    ]
    for n in NS:
        lines.append(row(t("distinct-{n} of the samples", n=n), [_f(r["samples"]["distinct"][str(n)]) for r in runs]))
    for n in NS:
        lines.append(row(t("seq-rep-{n}, mean", n=n), [_f(r["samples"]["seq_rep"][str(n)]) for r in runs]))
    for w in WINDOWS:
        lines.append(row(t("rep/{l}, mean", l=w), [_f(r["samples"]["rep"][str(w)]) for r in runs]))
    lines.append(
        row(
            t("samples ending in a loop"),
            [t("{k} of {n}", k=len(r["samples"]["loops"]), n=r["samples"]["n"]) for r in runs],
        )
    )
    if runs[0]["choices"] is not None:
        lines.append(row(t("multiple choice: acc"), [_f(r["choices"]["acc"]) for r in runs]))
        lines.append(row(t("multiple choice: acc_norm"), [_f(r["choices"]["acc_norm"]) for r in runs]))
    s = runs[0]["samples"]
    lines += [
        "",
        t(
            "samples: {n} of {tokens} tokens, temperature {temperature}, seed {seed}",
            n=s["n"],
            tokens=s["max_new_tokens"],
            temperature=s["temperature"],
            seed=s["seed"],
        ),
    ]
    for name, r in zip(names, runs, strict=True):
        for loop in r["samples"]["loops"]:
            lines.append(
                t(
                    "  {run}, sample {sample}: a loop of period {period} from token {start}: {text!r}",
                    run=name,
                    **{k: loop[k] for k in ("sample", "start", "period")},
                    text=loop["text"],
                )
            )
    lines += [
        "",
        t("loss at each position of the context (all of them in card.json and card.png):"),
        row(t("position"), names),
    ]
    T = max(r["loss_by_position"]["seq_len"] for r in runs)
    for p in sorted({q for q in SHOWN_POSITIONS if q < T} | {T - 1}):
        nll = [r["loss_by_position"]["nll"] for r in runs]
        lines.append(row(str(p), [_f(v[p]) if p < len(v) else "" for v in nll]))
    lines += [
        "",
        t("reliability: tokens in each bin of the top-1 probability, their mean probability / accuracy:"),
        row(t("top-1 probability"), [c for n in names for c in (n, "")]),
    ]
    for i, b in enumerate(runs[0]["calibration"]["table"]):
        cells = []
        for r in runs:
            rb = r["calibration"]["table"][i]
            cells += [t("{n} tok", n=rb["count"]), f"{_f(rb['confidence'], '.3f')}/{_f(rb['accuracy'], '.3f')}"]
        if any(r["calibration"]["table"][i]["count"] for r in runs):
            lines.append(row(f"({b['low']:.2f}, {b['high']:.2f}]", cells))
    against = card["against"]
    if against:
        lines += ["", t("settings that differ:")]
        lines += [t("  {key}: {a!r} vs {b!r}", key=d["key"], a=d["a"], b=d["b"]) for d in against["settings"]] or [
            t("  none")
        ]
        lines += [
            "",
            t("where the two logs part (metrics.jsonl, steps both recorded):"),
            row(t("quantity"), [t("first step"), *names, "rtol", t("steps")]),
        ]
        for d in against["divergence"]:
            step = t("never") if d["step"] is None else str(d["step"])
            lines.append(
                row(d["quantity"], [step, _f(d["a"], ".6g"), _f(d["b"], ".6g"), f"{d['rtol']:g}", str(d["common"])])
            )
        first = against["first"]
        lines.append(
            t("they part first at step {step}, in {quantity}", **first)
            if first
            else t("they do not part within the tolerances")
        )
    return "\n".join(lines)
