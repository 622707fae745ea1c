"""The seq2seq lesson's measurements: what each mask hides, what cross-attention reads, how greedy
and beam search differ. Everything reads the model through its outputs and named hook points
(`decoder.{i}.cross.weights`); every number printed is computed here at run time.
"""

from __future__ import annotations

import math
from pathlib import Path

import torch

from glassformer.lessons.common import save_png
from glassformer.text.chinese import UNITS, to_chinese
from glassformer.train.data import IGNORE, pad_pairs
from glassformer.translate import beam_search, greedy_decode, pad_rows


# ---- masks ----------------------------------------------------------------------------------------
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


# ---- cross-attention: which words does the decoder read while it writes a digit? ---------------
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


# ---- greedy and beam search ----------------------------------------------------------------------
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


# ---- figures ------------------------------------------------------------------------------------
def loss_png(records: list[dict], floor: float, path: Path) -> Path:
    """Train and validation loss at each evaluation, and the label-smoothing floor."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.4, 3.8), layout="constrained")
    ax = fig.subplots()
    steps = [r["step"] for r in records]
    for key, style in (("train_loss", "-o"), ("val_loss", "-s")):
        ax.plot(steps, [r[key] for r in records], style, label=key.replace("_", " "), markersize=3)
    ax.axhline(floor, color="0.4", linestyle="--", linewidth=1, label=f"label-smoothing floor {floor:.3f}")
    ax.set_xlabel("step")
    ax.set_ylabel("label-smoothed cross-entropy")
    ax.legend()
    return save_png(fig, path)
