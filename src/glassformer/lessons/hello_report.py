"""Lesson 2's printing and figures: loss tables, predictions, attention rows, gradient tables.

Everything here reads trained models through their outputs and named hook points
(`blocks.0.attn.weights`); nothing is computed that the lesson does not print.
"""

from __future__ import annotations

from pathlib import Path

import torch

from glassformer.lessons.common import Narrator, fmt, save_png


def loss_table(nar: Narrator, fits: dict, every: int) -> None:
    masks = list(fits)
    epochs = len(next(iter(fits.values())).train)
    shown = sorted(set(range(0, epochs, every)) | {epochs - 1})
    nar.show(f"  {nar.text('common.epoch'):>6}  " + "  ".join(f"{'mask=' + m:>12}" for m in masks))
    for e in shown:
        nar.show(f"  {e:>6}  " + "  ".join(f"{fits[m].train[e]:>12.6f}" for m in masks))


def _top(probs: torch.Tensor, tok, k: int = 3) -> list[tuple[str, float]]:
    p, i = probs.topk(k)
    return [(tok.decode([int(j)]), float(q)) for q, j in zip(p, i, strict=False)]


def predict_next(nar: Narrator, models: dict, data) -> dict:
    """The tutorial's test: the next word after "<BOS> hello world", with its probability."""
    tok = data.tokenizer
    ids = torch.tensor([tok.encode(data.lines[0], add_bos=True)])  # (1, T)
    nar.title("hello.title.predict", prompt=tok.decode(ids[0]))
    out = {}
    for mask, model in models.items():
        with torch.no_grad():
            probs = torch.softmax(model(ids)[0, -1], dim=-1)  # (V,)
        out[mask] = _top(probs, tok)
        best, p = out[mask][0]
        nar.say(
            "hello.say.predict",
            mask=mask,
            word=best,
            p=fmt(p, 4),
            others=", ".join(f"{w} {fmt(q, 4)}" for w, q in out[mask][1:]),
        )
    return out


def greedy(model, tok, ids: list[int], max_len: int) -> list[int]:
    """Append the most likely next id until <EOS> or the model's max_len."""
    ids = list(ids)
    with torch.no_grad():
        while len(ids) < max_len and ids[-1] != tok.eos_id:
            ids.append(int(model(torch.tensor([ids]))[0, -1].argmax()))  # logits (1, T, V) -> id
    return ids


def continue_prompts(nar: Narrator, models: dict, data, n_prompts: int = 5) -> dict:
    """Greedy continuations of the first word of a few lines, one column per mask."""
    tok = data.tokenizer
    firsts = list(dict.fromkeys(line.split()[0] for line in data.lines))[:n_prompts]
    nar.title("hello.title.generate")
    nar.why("hello.why.generate")
    out = {}
    for word in firsts:
        start = tok.encode(word, add_bos=True)
        out[word] = {m: tok.decode(greedy(mdl, tok, start, mdl.cfg.max_len)[1:]) for m, mdl in models.items()}
        nar.show(f"  <BOS> {word} →  " + "   |   ".join(f"{m}: {t}" for m, t in out[word].items()))
    return out


def last_query_attention(nar: Narrator, models: dict, data) -> dict:
    """Attention weights of the last query in each head, read from blocks.0.attn.weights."""
    tok = data.tokenizer
    ids = torch.tensor([tok.encode(data.lines[0], add_bos=True)])  # (1, T)
    labels = tok.decode(ids[0]).split()
    nar.title("hello.title.attention", query=labels[-1])
    out = {}
    for mask, model in models.items():
        with torch.no_grad():
            _, cache = model.run_with_cache(ids, names=["blocks.0.attn.weights"])
        w = cache["blocks.0.attn.weights"][0, :, -1, :]  # (H, T): last query, every head
        out[mask] = w
        nar.show(f"  mask={mask}")
        for h, row in enumerate(w):
            nar.show(f"    head {h}: " + "  ".join(f"{lab} {fmt(x, 3)}" for lab, x in zip(labels, row, strict=False)))
    return out


def gradient_table(nar: Narrator, jac: dict, labels: list[str]) -> dict:
    """Print ‖∂logits[t]/∂emb[j]‖; return the largest entry with j > t (the future) per mask."""
    future = {}
    T = len(labels)
    above = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)  # (T, T): j > t
    for mask, J in jac.items():
        nar.show(f"  mask={mask}   " + nar.text("hello.show.grad_axes"))
        nar.show("    " + " " * 8 + "".join(f"{lab:>12}" for lab in labels))
        for t in range(T):
            nar.show(f"    {labels[t]:>8}" + "".join(f"{float(J[t, j]):>12.3e}" for j in range(T)))
        future[mask] = float(J[above].max())
        nar.say("hello.say.future_grad", mask=mask, value=f"{future[mask]:.6g}")
    return future


def leak_table(nar: Narrator, leak) -> None:
    nar.why("hello.why.random")
    nar.say(
        "hello.say.random_setup",
        S=leak.symbols,
        T=leak.length,
        chance=fmt(leak.chance, 4),
        floor=fmt(leak.leak_floor, 4),
    )
    for mask, loss in leak.held_out.items():
        per = ", ".join(fmt(x, 3) for x in leak.per_position[mask])
        nar.say("hello.say.random_result", mask=mask, loss=fmt(loss, 4), ratio=f"{loss / leak.chance:.0%}", per=per)


def save_figures(folder: Path, fits: dict, models: dict, data, leak) -> list[Path]:
    from matplotlib.figure import Figure

    from glassformer.inspect import attention_grid_png

    fig = Figure(figsize=(6, 3.6), layout="constrained")
    ax = fig.subplots()
    for mask, f in fits.items():
        ax.semilogy(range(len(f.train)), f.train, label=f"mask={mask}")
    ax.set_xlabel("epoch")
    ax.set_ylabel("training loss (log scale)")
    ax.legend()
    files = [save_png(fig, folder / "loss.png")]

    fig = Figure(figsize=(6, 3.6), layout="constrained")
    ax = fig.subplots()
    T = leak.length
    for k, (mask, per) in enumerate(leak.per_position.items()):
        ax.bar([t + 0.4 * k - 0.2 for t in range(T)], per, width=0.4, label=f"mask={mask}")
    ax.axhline(leak.chance, color="black", linestyle="--", label=f"chance ln {leak.symbols}")
    ax.set_xlabel("position t")
    ax.set_ylabel("held-out loss on random tokens")
    ax.legend()
    files.append(save_png(fig, folder / "random_token_leak.png"))

    ids = data.inputs[:1]  # (1, T)
    labels = data.tokenizer.decode(ids[0]).split()
    for mask, model in models.items():
        files.append(attention_grid_png(model, ids, labels, folder / f"attention_mask_{mask}.png"))
    return files
