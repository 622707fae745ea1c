"""Lesson 4 — the original Transformer: an encoder, a decoder, and the attention between them.

Task (train/data.py, made on the fly): Chinese number words to Arabic numerals,
一千二百零五 → 1205 (--task zh2num), or back (--task num2zh), for the numbers 0 … 9999, of which
10% are held out and never trained on. Model: the `seq2seq` preset, the 2017 paper's arrangement
at a small size (post-LN, sinusoidal positions, one matrix for both embeddings and the head),
trained through glassformer's one trainer with teacher forcing and label smoothing (ε = 0.1).
--fast: d_model 32, one layer a side, no dropout, 300 steps (what the tests run).

    1 the task and its held-out split       5 greedy against beam search, on held-out numbers
    2 the model and its parameters          6 what cross-attention reads while a digit is written
    3 which mask each attention needs       7 the decoder without its mask: it reads the answer
    4 teacher forcing and label smoothing

The file reads: the model and its training, the measurements (what each mask hides, what
cross-attention reads, greedy against beam search: everything through the model's outputs and its
named hook points, `decoder.{i}.cross.weights`), then the lesson's steps in order, and `run`.

Run it:  glassformer lesson seq2seq [--task zh2num|num2zh] [--steps N] [--beam 4] [--alpha 0.6]
"""

from __future__ import annotations

import math
import time
import unicodedata
from dataclasses import replace
from pathlib import Path

import torch

from glassformer.config import SEQ2SEQ_FAST_STEPS, TrainConfig, get_preset
from glassformer.devices import using_threads
from glassformer.errors import UsageError
from glassformer.inspect.attention_maps import attention_grid_png, attention_head_png
from glassformer.inspect.params import param_table
from glassformer.lessons.common import Narrator, fmt, out_dir, save_png
from glassformer.messages import N_, NP_, in_language, pad, pad_left
from glassformer.models import build_model
from glassformer.text.chinese import UNITS, to_chinese
from glassformer.train.data import IGNORE, PairBatches, pad_pairs, pair_source
from glassformer.train.loop import Trainer
from glassformer.translate import beam_search, exact_match, greedy_decode, pad_rows

PRESET = get_preset("seq2seq")
TASKS = ("zh2num", "num2zh")
TASK_WORDS = {
    "zh2num": N_("Chinese number words → Arabic numerals"),
    "num2zh": N_("Arabic numerals → Chinese number words"),
}  # what each asks
CROSS_WHY = {  # what each task's cross-attention should line up
    "zh2num": N_(
        "For every non-zero digit of the held-out numbers: the share "
        "of a head's weight on the words that say that digit (its "
        "digit word and unit, like 二百 for the 2 of 1205)."
    ),
    "num2zh": N_(
        "For every word that says a non-zero digit of the held-out "
        "numbers: the share of a head's weight on that digit of the "
        "source."
    ),
}
EPS = 0.1  # label smoothing (the kind's loss default; the paper's ε_ls)
FAST = dict(d_model=32, d_ff=64, n_layers=1, dropout=0.0)  # --fast: a smaller model, trained less
STEPS, FAST_STEPS, LR, FAST_LR = PRESET.train.max_steps, SEQ2SEQ_FAST_STEPS, PRESET.train.lr, 3e-3
LEAK_STEPS = {False: 400, True: 200}  # the unmasked decoder learns to copy quickly
BATCH = PRESET.train.batch_size
ALIGNED = 0.5  # a head aligns when half its weight is on the source words of the symbol being written


# --- the model and its training ----------------------------------------------------------------------
def build(data, seed: int, fast: bool, causal: bool = True):
    torch.manual_seed(seed)
    tok = data.tokenizer
    cfg = replace(PRESET.model, vocab_size=tok.vocab_size, pad_id=tok.pad_id, causal=causal, **(FAST if fast else {}))
    return build_model(cfg)


def fit(model, batches, steps: int, lr: float, seed: int, on_eval=None):
    """The one trainer, on teacher-forcing batches; `on_eval(step, losses)` after each evaluation."""
    cfg = TrainConfig(
        batch_size=BATCH,
        max_steps=steps,
        lr=lr,
        min_lr=lr / 10,
        lr_schedule="cosine",
        warmup_steps=max(1, steps // 15),
        weight_decay=0.0,
        eval_interval=max(1, steps // 5),
        log_interval=max(1, steps // 5),
        seed=seed,
    )
    callbacks = [lambda event, t: on_eval(t.step, t.last_eval) if event == "eval" else None] if on_eval else []
    trainer = Trainer(
        model, cfg, batches, evaluate="default" if on_eval else None, callbacks=callbacks, progress="silent"
    )
    if on_eval:
        on_eval(0, trainer.evaluate_loss())
    result = trainer.fit()
    if result.status != "done":
        raise FloatingPointError(result.message)
    return model.eval()


# --- measurements ------------------------------------------------------------------------------------
@torch.no_grad()
def mask_effects(model, src: torch.Tensor, tgt_in: torch.Tensor, j: int) -> dict[str, float]:
    """Change source token -1 and target token j (one new id each); how much moves, and where.

    encoder:  |Δ memory| at source position 0 (it may read the whole source)
    decoder:  |Δ logits| at target positions < j (they must not read token j) and at j
    """
    model.eval()
    vocab = model.cfg.vocab_size
    other = lambda t: torch.where(t + 1 < vocab, t + 1, torch.full_like(t, 4))  # noqa: E731 another real id
    src2, tgt2 = src.clone(), tgt_in.clone()
    src2[:, -1], tgt2[:, j] = other(src[:, -1]), other(tgt_in[:, j])
    memory_moved = (model.encode(src)[:, 0] - model.encode(src2)[:, 0]).abs().max()
    before, after = model(src, tgt_in), model(src, tgt2)  # (B, T, V) each
    return {
        "encoder_first": float(memory_moved),
        "decoder_before": float((before[:, :j] - after[:, :j]).abs().max()),
        "decoder_at": float((before[:, j] - after[:, j]).abs().max()),
    }


@torch.no_grad()
def teacher_forced_accuracy(model, batches, split: str = "val") -> float:
    """The share of target tokens predicted right when the decoder reads the true previous ones."""
    model.eval()
    right = total = 0
    for (src, tgt_in), tgt_out in batches.eval_batches(split):
        guess = model(src, tgt_in).argmax(-1)  # (B, T)
        keep = tgt_out != IGNORE
        right += int((guess == tgt_out)[keep].sum())
        total += int(keep.sum())
    return right / total


def smoothing_floor(eps: float, V: int) -> float:
    """The least label-smoothed loss any model can reach: the entropy of the smoothed target
    q = (1-ε)·one-hot + ε/V, reached only by predicting q itself."""
    top, rest = 1 - eps + eps / V, eps / V
    return -(top * math.log(top) + (V - 1) * rest * math.log(rest)) if eps > 0 else 0.0


# cross-attention: which words does the decoder read while it writes a digit?
def digit_spans(n: int) -> dict[int, list[int]]:
    """For n < 10 000: digit index in str(n) -> the indices of the words of to_chinese(n) that say
    it (digit word and unit: 二百; a leading 十 alone says the tens' 1). Zeros are not said."""
    words, digits, spans, i = to_chinese(n), str(n), {}, 0
    while i < len(words):
        if words[i] == "零":
            i += 1
            continue
        if words[i] in UNITS:  # 十 at the start: one ten
            power, span = UNITS[words[i]], [i]
        elif i + 1 < len(words) and words[i + 1] in UNITS:
            power, span = UNITS[words[i + 1]], [i, i + 1]
        else:
            power, span = 1, [i]
        spans[len(digits) - 1 - round(math.log10(power))] = span
        i += len(span)
    return spans


@torch.no_grad()
def cross_alignment(model, data, pairs, task: str) -> dict:
    """Mean cross-attention weight on the source words of the symbol being written, per (layer,
    head), over every non-zero digit of the pairs; and what uniform attention would give."""
    model.eval()
    tok = data.tokenizer
    encoded = [(data.ids(s), data.ids(t)) for s, t in pairs]
    src, tgt = pad_pairs(encoded, tok.bos_id, tok.eos_id, tok.pad_id)  # (N, S), (N, T+2)
    names = [n for n in model.hook_names() if n.endswith("cross.weights")]
    _, cache = model.run_with_cache(src, tgt[:, :-1], names=names)
    mass = torch.zeros(len(names), model.cfg.n_heads)  # (layers, H)
    uniform, count = 0.0, 0
    for b, (s, t) in enumerate(pairs):
        number = int(t) if task == "zh2num" else int(s)
        if number >= 10_000:  # digit_spans knows one group of four digits
            continue
        for digit, words in digit_spans(number).items():
            rows_cols = [(digit, words)] if task == "zh2num" else [(w, [digit]) for w in words]
            for row, cols in rows_cols:  # row t of the map is where symbol t of the target is written
                for layer, name in enumerate(names):
                    mass[layer] += cache[name][b, :, row, cols].sum(-1)  # (H,)
                uniform += len(cols) / len(s)
                count += 1
    mass /= count
    best = divmod(int(mass.argmax()), model.cfg.n_heads)
    return {"mass": mass, "uniform": uniform / count, "best": best, "names": names, "count": count}


# greedy and beam search
@torch.no_grad()
def searches(model, data, pairs, beam: int, alphas: list[float]) -> dict:
    """Exact match of greedy search and of beam search at each α, and the pairs where they differ."""
    tok = data.tokenizer
    src = pad_rows([data.ids(s) for s, _ in pairs], tok.pad_id)  # (N, S)

    def texts(found):
        return [data.text(row[: row.index(tok.eos_id)] if tok.eos_id in row else row) for row in found.ids.tolist()]

    greedy = greedy_decode(model, src, tok.bos_id, tok.eos_id)
    out = {"greedy": texts(greedy), "greedy_found": greedy, "beam": {}, "beam_found": {}}
    for alpha in alphas:
        found = beam_search(model, src, tok.bos_id, tok.eos_id, beam, alpha)
        out["beam"][alpha], out["beam_found"][alpha] = texts(found), found
    answers = [t for _, t in pairs]
    out["accuracy"] = {
        "greedy": _share(out["greedy"], answers),
        **{f"beam α={a:g}": _share(out["beam"][a], answers) for a in alphas},
    }
    main = out["beam"][alphas[0]]
    out["differ"] = [i for i, (g, b) in enumerate(zip(out["greedy"], main, strict=False)) if g != b]
    return out


def _share(outputs: list[str], answers: list[str]) -> float:
    return sum(o == a for o, a in zip(outputs, answers, strict=False)) / len(answers)


# figures
def loss_png(nar: Narrator, records: list[dict], floor: float, path: Path) -> Path:
    """Train and validation loss at each evaluation, and the label-smoothing floor."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.4, 3.8), layout="constrained")
    ax = fig.subplots()
    steps = [r["step"] for r in records]
    for key, style, label in (
        ("train_loss", "-o", N_("train loss")),
        ("val_loss", "-s", N_("val loss")),
    ):
        ax.plot(steps, [r[key] for r in records], style, label=nar.text(label), markersize=3)
    floor_words = nar.text(N_("label-smoothing floor {floor}"), floor=f"{floor:.3f}")
    ax.axhline(floor, color="0.4", linestyle="--", linewidth=1, label=floor_words)
    ax.set_xlabel(nar.text(NP_("lesson.common.step", "step")))
    ax.set_ylabel(nar.text(N_("label-smoothed cross-entropy")))
    ax.legend()
    return save_png(fig, path)


# --- the lesson's steps ------------------------------------------------------------------------------
def explain_task(nar: Narrator, data, task: str) -> dict:
    nar.title(N_("1. The task: {what}, made on the fly"), what=nar.text(TASK_WORDS[task]))
    train_sources = {s for s, _ in data.train}
    shared = sum(s in train_sources for s, _ in data.test)
    n = len(data.train) + len(data.val) + len(data.test)
    nar.say(
        "The {n} numbers 0 … {last}: {train} to train on, {val} to "
        "validate, {test} held out. Held-out sources that also "
        "appear in training: {shared}.",
        n=n,
        last=n - 1,
        train=len(data.train),
        val=len(data.val),
        test=len(data.test),
        shared=shared,
    )
    nar.why(N_("Held-out numbers test the rules, not memory: the model never saw their words and digits as a pair."))
    for s, t in data.test[:4]:
        nar.show(f"  {s} → {t}")
    tok = data.tokenizer
    nar.say(
        "One vocabulary for both sides, {V} tokens: <PAD> <UNK> <BOS> <EOS> and one per character, {chars}.",
        V=tok.vocab_size,
        chars="".join(tok.decode([i]) for i in range(4, tok.vocab_size)),
    )
    return {"train": len(data.train), "val": len(data.val), "test": len(data.test), "shared": shared}


def explain_model(nar: Narrator, model, fast: bool) -> dict:
    cfg = model.cfg
    nar.title(
        N_("2. The model: an encoder and a decoder of {layers} layer(s) each, d_model {C}, {H} heads{fast}"),
        layers=cfg.n_layers,
        C=cfg.d_model,
        H=cfg.n_heads,
        fast=nar.text(N_(" (--fast: a smaller model)")) if fast else "",
    )
    groups: dict[str, int] = {}
    for row in param_table(model).rows:  # the modules' own formulas, checked against numel
        parts = row.module.split(".")
        group = f"{parts[0]} · {parts[2]}" if parts[0] in ("encoder", "decoder") else parts[0]
        groups[group] = groups.get(group, 0) + row.count
    for group, n in groups.items():
        if n:  # shared matrices and sin/cos positions own no parameters of their own
            nar.show(f"  {group:<22} {n:>8,}")
    total = model.num_params()
    cross = sum(n for g, n in groups.items() if g.endswith("cross"))
    nar.show(f"  {pad(nar.text(N_('total')), 22)} {total:>8,}")
    nar.say(
        "The source embedding, the target embedding and the output "
        "head are one (V, C) matrix: {n} parameters, counted once. "
        "Cross-attention holds {cross} of the {total} parameters.",
        n=f"{model.src_embed.weight.numel():,}",
        cross=f"{cross:,}",
        total=f"{total:,}",
    )
    nar.why(
        N_(
            "Cross-attention is the only road from the source to the "
            "output: its queries come from the decoder, its keys and "
            "values from the encoder's output."
        )
    )
    return {"groups": groups, "total": total, "cross": cross}


def explain_masks(nar: Narrator, model, data) -> dict:
    nar.title(N_("3. Who may look at whom: the encoder sees everything, the decoder only its past"))
    tok = data.tokenizer
    longest = max(len(s) for s, _ in data.val), max(len(t) for _, t in data.val)
    pairs = [(s, t) for s, t in data.val if (len(s), len(t)) == longest][:8]  # no padding anywhere
    src, tgt = pad_pairs([(data.ids(s), data.ids(t)) for s, t in pairs], tok.bos_id, tok.eos_id, tok.pad_id)
    tgt = tgt[:, :-1]  # (8, T): what the decoder reads, [<BOS>, y₁ …]
    j = min(3, tgt.size(1) - 1)
    effects = mask_effects(model, src, tgt, j)
    nar.say(
        "Change the last source token: the encoder's output at the "
        "first source position moves by {moved}. The encoder has no "
        "causal mask and needs none: the whole source is given "
        "before translation starts.",
        moved=fmt(effects["encoder_first"], 4),
    )
    nar.say(
        "Change target token {j}: the logits at positions 0 … "
        "{before} move by {zero}, those at position {j} by {moved}. "
        "In training the decoder is handed the whole target; its "
        "causal mask keeps position t to the tokens before it, which "
        "is all it will have when it writes for real.",
        j=j,
        before=j - 1,
        zero=fmt(effects["decoder_before"], 4),
        moved=fmt(effects["decoder_at"], 4),
    )
    nar.say("Cross-attention hides only source padding: every target position may read every source token.")
    return effects


def compare_searches(nar: Narrator, model, data, beam: int, alphas: list[float]) -> dict:
    tok = data.tokenizer
    nar.title(N_("5. Exact match on the {n} held-out numbers: greedy and beam search"), n=len(data.test))
    nar.why(
        N_(
            "Greedy search writes the most likely token at each step. "
            "Beam search keeps the {k} best partial outputs and ranks "
            "them by log P / lp, with lp = ((5 + length) / 6)^α."
        ),
        k=beam,
    )
    found = searches(model, data, data.test, beam, alphas)
    for name, acc in found["accuracy"].items():
        label = name if name == "greedy" else f"beam k={beam} {name.removeprefix('beam ')}"
        nar.show(f"  {label:<20} {acc:.1%}")
    alpha = alphas[0]
    answers = [t for _, t in data.test]
    differ = found["differ"]
    if differ:
        beam_right = sum(found["beam"][alpha][i] == answers[i] for i in differ)
        greedy_right = sum(found["greedy"][i] == answers[i] for i in differ)
        nar.say(
            "Greedy search and beam search (α = {alpha}) disagree on {n} "
            "of the {total} numbers; beam search is right on "
            "{beam_right} of those, greedy search on {greedy_right}.",
            alpha=alpha,
            n=len(differ),
            total=len(answers),
            beam_right=beam_right,
            greedy_right=greedy_right,
        )
        i = differ[0]
        g, b = found["greedy_found"], found["beam_found"][alpha]
        nar.say(
            "  For example {src}: greedy writes {greedy} (log P {g_lp}), "
            "beam {beam} (log P {b_lp}, score {b_score}); the answer is "
            "{answer}.",
            src=data.test[i][0],
            greedy=found["greedy"][i],
            g_lp=fmt(g.log_prob[i], 3),
            beam=found["beam"][alpha][i],
            b_lp=fmt(b.log_prob[i], 3),
            b_score=fmt(b.score[i], 3),
            answer=answers[i],
        )
    else:
        nar.say(
            "Greedy search and beam search (α = {alpha}) agree on all "
            "{total} numbers: at each step the model's best token is so "
            "far ahead that looking further changes nothing.",
            alpha=alpha,
            total=len(answers),
        )
    b = found["beam_found"][alpha]  # what the k beams of one number hold at the end
    nar.say(
        "The {k} beams kept for {src}, best first by score (a finished beam was extended by <PAD> at no cost):",
        src=data.test[0][0],
        k=beam,
    )
    for j in range(b.beams.size(1)):
        ids = b.beams[0, j].tolist()
        text = data.text(ids[: ids.index(tok.eos_id)] if tok.eos_id in ids else ids)
        log_p, score = float(b.beam_log_probs[0, j]), float(b.beam_scores[0, j])
        text = text or "∅"
        pad = 12 - sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)  # CJK is 2 wide
        nar.show(f"    {text}{' ' * pad} log P {log_p:>9.4f}   score {score:>9.4f}")
    wrong = [i for i, o in enumerate(found["greedy"]) if o != answers[i]]
    if wrong:
        nar.say(
            "Greedy search gets {n} wrong, for example: {examples}",
            n=len(wrong),
            examples="; ".join(f"{data.test[i][0]} → {found['greedy'][i] or '∅'} ({answers[i]})" for i in wrong[:4]),
        )
    return {"accuracy": found["accuracy"], "differ": len(differ), "wrong": len(wrong)}


def explain_cross(nar: Narrator, model, data, task: str) -> dict:
    nar.title(N_("6. What cross-attention reads while a symbol is written"))
    nar.why(CROSS_WHY[task])
    found = cross_alignment(model, data, data.test, task)
    H = model.cfg.n_heads
    nar.show(f"  {'':<26}" + "".join(pad_left(nar.text(N_("head {h}"), h=h), 9) for h in range(H)))
    for name, row in zip(found["names"], found["mass"], strict=False):
        nar.show(f"  {name:<26}" + "".join(f"{float(m):>9.3f}" for m in row))
    layer, head = found["best"]
    mass = float(found["mass"][layer, head])
    key = (
        N_(
            "Head {head} of {name} puts {mass} of its weight on the "
            "source words of the symbol being written, where uniform "
            "attention would put {uniform} ({n} symbols): it aligns "
            "digits with their words. The heatmap shows it on one "
            "held-out number."
        )
        if mass >= ALIGNED
        else N_(
            "No head puts half its weight on the source words of the "
            "symbol being written: the best, head {head} of {name}, puts "
            "{mass}, against {uniform} for uniform attention ({n} "
            "symbols). The heatmap shows it on one held-out number."
        )
    )
    nar.say(
        key,
        head=head,
        name=found["names"][layer],
        mass=fmt(mass, 3),
        uniform=fmt(found["uniform"], 3),
        n=found["count"],
    )
    return {**found, "best_mass": mass}


def cross_figures(model, data, cross: dict, folder: Path, grid: bool) -> list[Path]:
    """The best head's cross-attention on one held-out number, and (grid) every map of that number."""
    tok = data.tokenizer
    s, t = next(((s, t) for s, t in data.test if len(max(s, t, key=len)) >= 6), data.test[0])
    src = torch.tensor([data.ids(s)])  # (1, S)
    tgt_in = torch.tensor([[tok.bos_id] + data.ids(t)])  # (1, T)
    writes = {"S": list(s), "T": [f"→{c}" for c in t] + ["→<EOS>"]}  # cross-attention row t writes symbol t
    reads = {"S": list(s), "T": ["<BOS>", *t]}  # self-attention's keys are the tokens the decoder reads
    layer, head = cross["best"]
    maps = [n for n in model.hook_names() if n.endswith(".weights")]
    index = maps.index(cross["names"][layer])
    files = [attention_head_png(model, (src, tgt_in), writes, index, head, folder / "cross_attention.png")]
    if grid:
        files.append(attention_grid_png(model, (src, tgt_in), reads, folder / "attention_maps.png"))
    return files


def without_the_mask(nar: Narrator, masked, data, batches, fast: bool, seed: int) -> dict:
    steps = LEAK_STEPS[fast]
    nar.title(N_("7. The same model without the decoder's mask ({steps} steps)"), steps=steps)
    nar.why(N_("With causal=False the decoder sees the whole target in training, the token it must predict included."))
    unmasked = fit(build(data, seed, fast, causal=False), batches, steps, FAST_LR if fast else LR, seed)
    out = {}
    for mask, model in (("causal", masked), ("none", unmasked)):
        out[mask] = {
            "teacher_forced": teacher_forced_accuracy(model, batches),
            "exact": exact_match(model, data, data.test),
        }
        nar.say(
            "  mask={mask}: next-token accuracy when shown the true "
            "target {tf}; held-out exact match when writing alone {exact}",
            mask=mask,
            tf=f"{out[mask]['teacher_forced']:.1%}",
            exact=f"{out[mask]['exact']:.1%}",
        )
    nar.say(
        "Without its mask the decoder scores {tf} while the answer "
        "is in its input and {exact} when it has to write the answer "
        "itself: in training it could copy the next token from its "
        "input, and translation never hands it that token.",
        tf=f"{out['none']['teacher_forced']:.1%}",
        exact=f"{out['none']['exact']:.1%}",
    )
    return out


# --- the lesson --------------------------------------------------------------------------------------
def run(
    lang: str | None = None,
    explain: bool = False,
    out: str | Path | None = None,
    echo=print,
    task: str = "zh2num",
    steps: int | None = None,
    beam: int = 4,
    alpha: float = 0.6,
    fast: bool = False,
    seed: int = 0,
    threads: int = 1,
) -> dict:
    """Print the whole lesson; return what it computed (tests read it)."""
    if task not in TASKS:
        raise UsageError(
            "lesson.choice",
            "--{option} {value!r} is not one of {choices}.",
            option="task",
            value=task,
            choices=list(TASKS),
        )
    if steps is not None and steps < 1:
        raise UsageError(
            "lesson.at_least", "--{option} must be at least {least}, got {value}.", option="steps", least=1, value=steps
        )
    if beam < 1 or alpha < 0:
        raise UsageError(
            "lesson.beam",
            "--beam must be at least {least_beam} and --alpha at least {least_alpha}, got {beam} and {alpha}.",
            least_beam=1,
            least_alpha=0,
            beam=beam,
            alpha=alpha,
        )
    with using_threads(threads):
        return _lesson(Narrator(lang, explain, echo), out, task, steps, beam, alpha, fast, seed)


def _lesson(nar: Narrator, out, task, steps, beam, alpha, fast, seed) -> dict:
    data = pair_source(f"numbers:{task}", seed=seed)
    folder = out_dir("seq2seq", out)
    tok = data.tokenizer
    batches = PairBatches(data.encoded("train"), data.encoded("val"), BATCH, tok.bos_id, tok.eos_id, tok.pad_id)
    result = {"split": explain_task(nar, data, task)}

    model = build(data, seed, fast)
    result["params"] = explain_model(nar, model, fast)
    result["masks"] = explain_masks(nar, model, data)

    steps = steps or (FAST_STEPS if fast else STEPS)
    nar.title(N_("4. Teacher forcing and label smoothing: {steps} steps, batch {batch}"), steps=steps, batch=BATCH)
    nar.why(
        N_(
            "Teacher forcing: the decoder reads the true target shifted "
            "right, [<BOS>, y₁, …], and is graded on every next token at "
            "once, so one forward pass trains every position:"
        )
    )
    (src, tgt_in), tgt_out = batches.batch("train", torch.tensor([0]))
    for name, ids in (("src", src), ("tgt_in", tgt_in), ("tgt_out", tgt_out)):
        nar.show(f"  {name:<8} {tok.decode(ids[0])}")
    floor = smoothing_floor(EPS, tok.vocab_size)
    nar.say(
        "Label smoothing with ε = {eps} spreads that much of each "
        "target's probability over all {V} tokens, so no model can "
        "get the loss below {floor}, the entropy of the smoothed "
        "target.",
        eps=EPS,
        V=tok.vocab_size,
        floor=fmt(floor, 4),
    )
    records = []
    words = (NP_("lesson.common.step", "step"), N_("train loss"), N_("val loss"))
    nar.show("  " + "  ".join(pad_left(nar.text(key), width) for key, width in zip(words, (6, 10, 10), strict=True)))

    def on_eval(step, losses):
        records.append({"step": step, **losses})
        nar.show(f"  {step:>6}  {losses['train_loss']:>10.4f}  {losses['val_loss']:>10.4f}")

    start = time.perf_counter()
    fit(model, batches, steps, FAST_LR if fast else LR, seed, on_eval)
    seconds = time.perf_counter() - start
    nar.say(
        "Trained in {seconds} s. Last validation loss {val}, {above} above that floor.",
        seconds=f"{seconds:.1f}",
        val=fmt(records[-1]["val_loss"], 4),
        above=fmt(records[-1]["val_loss"] - floor, 4),
    )
    result.update(records=records, floor=floor, seconds=seconds)

    alphas = [alpha] + ([] if fast else [a for a in (0.0, 2.0) if a != alpha])  # the chosen α first
    result["search"] = compare_searches(nar, model, data, beam, alphas)
    result["cross"] = explain_cross(nar, model, data, task)
    result["leak"] = without_the_mask(nar, model, data, batches, fast, seed)

    with in_language(nar.lang):  # the attention maps' words in the lesson's language
        cross = cross_figures(model, data, result["cross"], folder, grid=not fast)
    files = [loss_png(nar, records, floor, folder / "loss.png"), *cross]
    nar.title(N_("Files written"))
    for f in files:
        nar.show(f"  {f}")
    result["files"] = files
    return result
