"""Lesson 2 — the second tutorial's tiny word-level model, trained for real, and its missing mask.

Setup (seed 002): a hand-written vocabulary, a whitespace tokenizer with <UNK> for unknown
words, 100 copies of "hello world" as [<BOS>, hello, world, <EOS>, <PAD>], and a one-layer
model (d_model 128, 4 heads, d_ff 512, learned positions, no LayerNorm, no dropout, Xavier
init: the `seed002` preset) trained with cross-entropy (ignore <PAD>), Adam 1e-3, 200 epochs,
batch 16. The tutorial trains next-token prediction *without* a causal mask; this lesson trains
both ways side by side (--mask none|causal|both) and then shows the leak. The file reads:

    data       the tutorial's sentence, built-in greetings or the user's lines   load_data
    model      the seed002 architecture, trained as the tutorial does           build_model, train
    the leak   what the mask hides, shown by random tokens and by gradients     random_token_leak,
                                                                                embedding_jacobian_norms
    printing   loss tables, predictions, attention rows, gradient tables, PNGs
    run        the whole lesson

Run it:  glassformer lesson hello-world [--mask both] [--data tutorial|greetings|FILE]
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn.functional as F

from glassformer import messages
from glassformer.config import HELLO_EPOCHS, HELLO_FAST_EPOCHS, get_preset
from glassformer.devices import using_threads
from glassformer.errors import NotFound, UsageError
from glassformer.files import read_text
from glassformer.lessons.common import Narrator, fmt, n_batches, out_dir, save_png, train_epochs
from glassformer.messages import N_, in_language, pad, pad_left
from glassformer.models import Encoder
from glassformer.models import build_model as model_from_config
from glassformer.nn.loss import next_token_loss
from glassformer.text.tokenizers import WordTokenizer

# --- the tutorial's figures (seed 002), kept only to be compared with what the lesson computes
# Printed in seed 002 (one-layer word model), §4.2: the parameter count its print statement shows.
PUBLISHED_PARAM_COUNT = 183220

# seed 002, §4.1: its hand-written vocabulary, exactly as listed (note "you" appears twice).
TUTORIAL_VOCAB = (
    "<PAD>",
    "<UNK>",
    "<BOS>",
    "<EOS>",
    "hello",
    "world",
    "how",
    "are",
    "you",
    "today",
    "fine",
    "thank",
    "you",
    "very",
    "much",
    "good",
    "morning",
    "afternoon",
    "evening",
    "night",
)

PRESET = get_preset("seed002")  # the tutorial's model and optimiser settings (seed 002, §4)
BATCH_SIZE, LR = PRESET.train.batch_size, PRESET.train.lr
EPOCHS, REPORT_EVERY = HELLO_EPOCHS, 20  # the tutorial's loop: 200 epochs, a printout every 20
FAST_EPOCHS = HELLO_FAST_EPOCHS  # --fast: at most this many (what the tests run)
MASK_CHOICES = {"none": ("none",), "causal": ("causal",), "both": ("none", "causal")}


# --- data --------------------------------------------------------------------------------------------
# Every source becomes the same thing: a WordTokenizer and a (N, L) tensor of rows
# [<BOS>, w1, ..., wn, <EOS>, <PAD>, ...], all padded to one length L. The model then reads
# rows[:, :-1] and is trained to predict rows[:, 1:] (the same rows shifted by one).


TUTORIAL_SENTENCE, TUTORIAL_ROWS, TUTORIAL_LENGTH = "hello world", 100, 5  # seed 002, §4.1
MAX_WORDS, MAX_LINES = 24, 5000  # a lesson trains in seconds: longer data belongs to `glassformer train`

# Our own short greetings and replies, so the model has more than one sentence to learn.
GREETINGS = """\
hello world
hello there
hello how are you
hi how are you today
i am fine thank you
i am very well thank you
fine thank you and you
not bad thank you
good morning
good morning to you
good morning how did you sleep
i slept well thank you
good afternoon
good afternoon how is your day
my day is going well
good evening
good evening nice to see you
nice to see you too
good night
good night sleep well
see you tomorrow
see you later
see you soon
thank you very much
you are welcome
no problem at all
how is the weather today
the weather is nice today
it is raining today
what is your name
my name is tom
nice to meet you
nice to meet you too
where are you from
i am from the city
have a nice day
you too
goodbye
bye for now
take care
"""


@dataclass
class WordData:
    name: str
    tokenizer: WordTokenizer
    lines: list[str]
    rows: torch.Tensor  # (N, L) token ids, padded with <PAD>

    @property
    def inputs(self) -> torch.Tensor:
        return self.rows[:, :-1]  # (N, L-1)

    @property
    def targets(self) -> torch.Tensor:
        return self.rows[:, 1:]  # (N, L-1)


def encode_rows(tok: WordTokenizer, lines: list[str], length: int) -> torch.Tensor:
    rows = [tok.pad(tok.encode(line, add_bos=True, add_eos=True), length) for line in lines]
    return torch.tensor(rows, dtype=torch.long)  # (N, L)


def tutorial_data() -> WordData:
    """The tutorial's setup: its own word list, and "hello world" 100 times, padded to 5."""
    specials = len(WordTokenizer.SPECIALS)
    assert TUTORIAL_VOCAB[:specials] == WordTokenizer.SPECIALS, "the tutorial's specials come first"
    tok = WordTokenizer(words=TUTORIAL_VOCAB[specials:])  # a repeated word keeps its first id
    lines = [TUTORIAL_SENTENCE] * TUTORIAL_ROWS
    return WordData("tutorial", tok, lines, encode_rows(tok, lines, TUTORIAL_LENGTH))


def read_lines(path: Path) -> list[str]:
    """The non-empty lines of a UTF-8 text file, or a typed error saying what is wrong with it."""
    if not path.exists():
        raise NotFound(
            "lesson.data_missing",
            "--data {path}: no such file (give 'tutorial', 'greetings' or a text file).",
            path=path,
        )
    if path.is_dir():
        raise UsageError(
            "lesson.data_dir", "--data {path} is a directory; give a text file with one sentence per line.", path=path
        )
    text = read_text(path, messages.t("Give a UTF-8 text file with one sentence per line."), allow_empty=True)
    lines = [" ".join(line.split()) for line in text.splitlines()]
    lines = [line for line in lines if line]
    if not lines:
        raise UsageError(
            "lesson.data_empty", "--data {path} has no non-empty lines; put one sentence per line.", path=path
        )
    if len(lines) > MAX_LINES:
        raise UsageError(
            "lesson.data_lines",
            "--data {path} has {lines} lines; this lesson trains on at "
            "most {most}. For larger text use `glassformer train`.",
            path=path,
            lines=len(lines),
            most=MAX_LINES,
        )
    for i, line in enumerate(lines, 1):
        if len(line.split()) > MAX_WORDS:
            raise UsageError(
                "lesson.data_words",
                "--data {path}: line {line} has {words} words; the lesson's "
                "model reads at most {most} per line. Split it into shorter "
                "lines.",
                path=path,
                line=i,
                words=len(line.split()),
                most=MAX_WORDS,
            )
    return lines


def load_data(source: str) -> WordData:
    """'tutorial', 'greetings', or the path of a text file with one sentence per line."""
    if source == "tutorial":
        return tutorial_data()
    lines = GREETINGS.splitlines() if source == "greetings" else read_lines(Path(source))
    tok = WordTokenizer.from_text("\n".join(lines))
    length = max(len(line.split()) for line in lines) + 2  # + <BOS> and <EOS>
    return WordData(source, tok, lines, encode_rows(tok, lines, length))


# --- the model and its training ----------------------------------------------------------------------
def build_model(data: WordData, mask: str, seed: int) -> Encoder:
    """The seed002 architecture sized to the data's vocabulary and row length."""
    torch.manual_seed(seed)
    cfg = dataclasses.replace(
        PRESET.model, vocab_size=data.tokenizer.vocab_size, max_len=data.rows.size(1), causal=(mask == "causal")
    )
    return model_from_config(cfg)


def train(model: Encoder, data: WordData, epochs: int):
    """The tutorial's loop: batches in order (no shuffling), <PAD> targets ignored."""
    pad = data.tokenizer.pad_id
    return train_epochs(
        model,
        data.inputs,
        data.targets,
        lambda logits, y: next_token_loss(logits, y, ignore_index=pad),
        torch.optim.Adam(model.parameters(), lr=LR),
        epochs,
        BATCH_SIZE,
    )


# --- the leak made visible ---------------------------------------------------------------------------
# The tutorial trains "predict token t+1 at position t" with bidirectional attention, so position t
# can simply read token t+1 from its input. On its own data (one sentence, 100 times) the loss
# reaches ~0 with or without a mask, so the leak cannot be seen there. Two measurements show it:
#
# 1. Random tokens. When every token is drawn independently and uniformly from S symbols, no
#    model can predict the next one: the best held-out loss is ln S ("chance"). A causal model
#    stays there. Without the mask, positions 0..T-2 copy their target from the input and the
#    last position (whose target is not in the input) stays at chance, so the held-out loss
#    falls to about ln(S) / T.
# 2. Gradients. ∂logits[t] / ∂embedding[j] for j > t (the future) is non-zero without the mask
#    and exactly zero with it: masked scores are -inf, their softmax weight is exactly 0, and
#    nothing flows back through a zero weight.


def embedding_jacobian_norms(model: Encoder, ids: torch.Tensor) -> torch.Tensor:
    """(T, T): entry [t, j] = ‖∂ logits[0, t] / ∂ embedding[0, j]‖ for one sequence ids (1, T).

    The `embed` hook point swaps the looked-up embeddings for a tensor we own, so autograd can
    differentiate the logits with respect to it (an integer id has no gradient)."""
    model.eval()
    with torch.no_grad():
        _, cache = model.run_with_cache(ids, names=["embed"])

    def logits_of(emb: torch.Tensor) -> torch.Tensor:
        return model.run_with_hooks(ids, hooks={"embed": lambda t, name: emb})  # (1, T, V)

    J = torch.autograd.functional.jacobian(logits_of, cache["embed"])  # (1, T, V, 1, T, C)
    return J[0, :, :, 0].pow(2).sum(dim=(1, 3)).sqrt()  # (T_out, T_in)


@dataclasses.dataclass
class LeakResult:
    symbols: int
    length: int  # T, tokens the model reads
    chance: float  # ln S: the best possible held-out loss for independent uniform tokens
    leak_floor: float  # ln(S) / T: what a perfect copier of the visible next tokens reaches
    held_out: dict  # mask name -> mean held-out loss
    per_position: dict  # mask name -> [held-out loss at t for t in 0..T-1]


def per_position_loss(model: Encoder, seqs: torch.Tensor) -> torch.Tensor:
    logits = model(seqs[:, :-1])  # (N, T, S)
    return F.cross_entropy(logits.transpose(1, 2), seqs[:, 1:], reduction="none").mean(0)  # (T,)


def random_token_leak(
    symbols: int = 16,
    length: int = 4,
    n_train: int = 2000,
    n_val: int = 500,
    epochs: int = 3,
    batch_size: int = 32,
    seed: int = 0,
) -> LeakResult:
    """Train the seed002 architecture on independent uniform tokens, unmasked and causal."""
    g = torch.Generator().manual_seed(seed)
    rows = torch.randint(0, symbols, (n_train, length + 1), generator=g)  # (N, T+1)
    val = torch.randint(0, symbols, (n_val, length + 1), generator=g)  # (M, T+1)
    held_out, per_pos = {}, {}
    for mask in ("none", "causal"):
        torch.manual_seed(seed)
        cfg = dataclasses.replace(
            get_preset("seed002").model, vocab_size=symbols, max_len=length, causal=(mask == "causal")
        )
        model = model_from_config(cfg)
        train_epochs(
            model,
            rows[:, :-1],
            rows[:, 1:],
            next_token_loss,
            torch.optim.Adam(model.parameters(), lr=1e-3),
            epochs,
            batch_size,
            shuffle_seed=seed,
        )
        with torch.no_grad():
            losses = per_position_loss(model, val)  # (T,)
        held_out[mask], per_pos[mask] = losses.mean().item(), losses.tolist()
    chance = math.log(symbols)
    return LeakResult(symbols, length, chance, chance / length, held_out, per_pos)


# --- printing ----------------------------------------------------------------------------------------
# Everything here reads trained models through their outputs and named hook points
# (`blocks.0.attn.weights`); nothing is computed that the lesson does not print.


def explain_vocabulary(nar: Narrator, data: WordData) -> dict:
    tok = data.tokenizer
    nar.title(N_("1. Vocabulary and tokenizer (whitespace split, unknown words → <UNK>)"))
    nar.show("  " + "  ".join(f"{i}:{tok.decode([i])}" for i in range(tok.vocab_size)))
    info = {"vocab_size": tok.vocab_size}
    if data.name == "tutorial":
        dups = sorted({w for w in TUTORIAL_VOCAB if TUTORIAL_VOCAB.count(w) > 1})
        their_stoi = {w: i for i, w in enumerate(TUTORIAL_VOCAB)}  # the tutorial's own dict: last id wins
        for w in dups:
            ids = [i for i, v in enumerate(TUTORIAL_VOCAB) if v == w]
            nar.say(
                'The tutorial\'s list has {n} entries with "{word}" at ids '
                '{ids}. Its dict {{word: i}} keeps the last, so "{word}" '
                "encodes as {theirs} and id {unused} is a row no input or "
                "target ever uses (it still gets an embedding, a head row "
                "and probability mass). glassformer's WordTokenizer keeps "
                'the first: "{word}" = {ours}, and the vocabulary has {size} '
                "entries.",
                word=w,
                ids=ids,
                n=len(TUTORIAL_VOCAB),
                theirs=their_stoi[w],
                unused=", ".join(str(i) for i in ids if i != their_stoi[w]),
                ours=tok.encode(w)[0],
                size=tok.vocab_size,
            )
        info.update(tutorial_size=len(TUTORIAL_VOCAB), duplicates=dups)
    example = data.lines[0] + " " + "zebra"
    work = tok.show_work(example, add_bos=True, add_eos=True)
    nar.why(N_("A sentence is split on spaces, each word looked up (unknown → <UNK>), and wrapped in <BOS> … <EOS>:"))
    nar.show(f"  {example!r} → {work['tokens']} → {work['ids']}")
    return info


def count_parameters(nar: Narrator, model: Encoder, data: WordData) -> dict:
    nar.title(N_("3. Parameters, counted from the model"))
    groups: dict[str, int] = {}
    for name, p in model.named_parameters():
        module = name.rsplit(".", 1)[0]  # e.g. blocks.0.attn.qkv
        group = module.rsplit(".", 1)[0] if "." in module else module  # e.g. blocks.0.attn
        groups[group] = groups.get(group, 0) + p.numel()
    for group in sorted(groups, key=lambda g: g != "tok_embed"):  # data-flow order: token table first
        n = groups[group]
        nar.show(f"  {group:<14} {n:>8,}")
    ours = model.num_params()
    nar.show(f"  {pad(nar.text(N_('total')), 14)} {ours:>8,}")
    counts = {"ours": ours, "groups": groups}
    if data.name == "tutorial":
        tut_cfg = dataclasses.replace(model.cfg, vocab_size=len(TUTORIAL_VOCAB))
        theirs = model_from_config(tut_cfg).num_params()  # the tutorial's model, with its 20-row vocabulary
        nar.say(
            "With the tutorial's {V}-entry vocabulary the same model has "
            "{theirs} parameters; the tutorial prints {published} (off "
            "by {diff}). With our {v_ours}-entry vocabulary: {ours}.",
            V=len(TUTORIAL_VOCAB),
            theirs=f"{theirs:,}",
            published=f"{PUBLISHED_PARAM_COUNT:,}",
            diff=f"{theirs - PUBLISHED_PARAM_COUNT:+,}",
            v_ours=model.cfg.vocab_size,
            ours=f"{ours:,}",
        )
        counts.update(tutorial=theirs, published=PUBLISHED_PARAM_COUNT)
    return counts


def loss_table(nar: Narrator, fits: dict, every: int) -> None:
    masks = list(fits)
    epochs = len(next(iter(fits.values())).train)
    shown = sorted(set(range(0, epochs, every)) | {epochs - 1})
    nar.show(f"  {pad_left(nar.text(N_('epoch')), 6)}  " + "  ".join(f"{'mask=' + m:>12}" for m in masks))
    for e in shown:
        nar.show(f"  {e:>6}  " + "  ".join(f"{fits[m].train[e]:>12.6f}" for m in masks))


def _top(probs: torch.Tensor, tok, k: int = 3) -> list[tuple[str, float]]:
    p, i = probs.topk(k)
    return [(tok.decode([int(j)]), float(q)) for q, j in zip(p, i, strict=False)]


def predict_next(nar: Narrator, models: dict, data) -> dict:
    """The tutorial's test: the next word after "<BOS> hello world", with its probability."""
    tok = data.tokenizer
    ids = torch.tensor([tok.encode(data.lines[0], add_bos=True)])  # (1, T)
    nar.title(N_('5. Next word after "{prompt}"'), prompt=tok.decode(ids[0]))
    out = {}
    for mask, model in models.items():
        with torch.no_grad():
            probs = torch.softmax(model(ids)[0, -1], dim=-1)  # (V,)
        out[mask] = _top(probs, tok)
        best, p = out[mask][0]
        nar.say(
            '  mask={mask}: "{word}" with probability {p}   (next: {others})',
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
    nar.title(N_("5. Greedy continuations"))
    nar.why(
        N_(
            "Generation feeds the model its own prefix only, so a model "
            "that learned to read the next token from its input has "
            "nothing to read."
        )
    )
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
    nar.title(N_('6. Attention of the last query ("{query}") in each head: blocks.0.attn.weights'), query=labels[-1])
    out = {}
    for mask, model in models.items():
        with torch.no_grad():
            _, cache = model.run_with_cache(ids, names=["blocks.0.attn.weights"])
        w = cache["blocks.0.attn.weights"][0, :, -1, :]  # (H, T): last query, every head
        out[mask] = w
        nar.show(f"  mask={mask}")
        for h, row in enumerate(w):
            nar.show(
                f"    {nar.text(N_('head {h}'), h=h)}: "
                + "  ".join(f"{lab} {fmt(x, 3)}" for lab, x in zip(labels, row, strict=False))
            )
    return out


def gradient_table(nar: Narrator, jac: dict, labels: list[str]) -> dict:
    """Print ‖∂logits[t]/∂emb[j]‖; return the largest entry with j > t (the future) per mask."""
    future = {}
    T = len(labels)
    above = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)  # (T, T): j > t
    for mask, J in jac.items():
        nar.show(f"  mask={mask}   " + nar.text(N_("rows: logits at position t, columns: embedding of token j")))
        nar.show("    " + " " * 8 + "".join(f"{lab:>12}" for lab in labels))
        for t in range(T):
            nar.show(f"    {labels[t]:>8}" + "".join(f"{float(J[t, j]):>12.3e}" for j in range(T)))
        future[mask] = float(J[above].max())
        nar.say("  mask={mask}: largest dependence on a later token = {value}", mask=mask, value=f"{future[mask]:.6g}")
    return future


def leak_table(nar: Narrator, leak) -> None:
    nar.why(
        N_(
            "On independent random tokens nothing about the next token "
            "can be learned from the past, so any held-out loss below "
            "chance is information from the future."
        )
    )
    nar.say(
        "{S} symbols, {T} input tokens per row. Chance = ln {S} = "
        "{chance}. A model that copies every visible next token (all "
        "but the last position) reaches ln({S}) / {T} = {floor}.",
        S=leak.symbols,
        T=leak.length,
        chance=fmt(leak.chance, 4),
        floor=fmt(leak.leak_floor, 4),
    )
    for mask, loss in leak.held_out.items():
        per = ", ".join(fmt(x, 3) for x in leak.per_position[mask])
        nar.say(
            "  mask={mask}: held-out loss {loss} ({ratio} of chance); per position: [{per}]",
            mask=mask,
            loss=fmt(loss, 4),
            ratio=f"{loss / leak.chance:.0%}",
            per=per,
        )


def save_figures(nar: Narrator, folder: Path, fits: dict, models: dict, data, leak) -> list[Path]:
    from matplotlib.figure import Figure

    from glassformer.inspect import attention_grid_png

    fig = Figure(figsize=(6, 3.6), layout="constrained")
    ax = fig.subplots()
    for mask, f in fits.items():
        ax.semilogy(range(len(f.train)), f.train, label=f"mask={mask}")
    ax.set_xlabel(nar.text(N_("epoch")))
    ax.set_ylabel(nar.text(N_("training loss (log scale)")))
    ax.legend()
    files = [save_png(fig, folder / "loss.png")]

    fig = Figure(figsize=(6, 3.6), layout="constrained")
    ax = fig.subplots()
    T = leak.length
    for k, (mask, per) in enumerate(leak.per_position.items()):
        ax.bar([t + 0.4 * k - 0.2 for t in range(T)], per, width=0.4, label=f"mask={mask}")
    ax.axhline(
        leak.chance, color="black", linestyle="--", label=nar.text(N_("chance ln {symbols}"), symbols=leak.symbols)
    )
    ax.set_xlabel(nar.text(N_("position t")))
    ax.set_ylabel(nar.text(N_("held-out loss on random tokens")))
    ax.legend()
    files.append(save_png(fig, folder / "random_token_leak.png"))

    ids = data.inputs[:1]  # (1, T)
    labels = data.tokenizer.decode(ids[0]).split()
    for mask, model in models.items():
        with in_language(nar.lang):  # the grid's words in the lesson's language
            files.append(attention_grid_png(model, ids, labels, folder / f"attention_mask_{mask}.png"))
    return files


# --- the lesson --------------------------------------------------------------------------------------
def run(
    lang: str | None = None,
    explain: bool = False,
    out: str | Path | None = None,
    echo=print,
    mask: str = "both",
    data: str = "tutorial",
    epochs: int = EPOCHS,
    fast: bool = False,
    seed: int = 0,
    threads: int = 1,
) -> dict:
    """Print the whole lesson; return what it computed (tests read it).

    fast: at most 40 epochs and a smaller random-token experiment (what the tests run)."""
    if mask not in MASK_CHOICES:
        raise UsageError(
            "lesson.choice",
            "--{option} {value!r} is not one of {choices}.",
            option="mask",
            value=mask,
            choices=list(MASK_CHOICES),
        )
    if epochs < 1:
        raise UsageError(
            "lesson.at_least",
            "--{option} must be at least {least}, got {value}.",
            option="epochs",
            least=1,
            value=epochs,
        )
    with using_threads(threads):
        return _lesson(Narrator(lang, explain, echo), out, mask, data, epochs, fast, seed)


def _lesson(nar: Narrator, out, mask: str, data: str, epochs: int, fast: bool, seed: int) -> dict:
    if fast:
        epochs = min(epochs, FAST_EPOCHS)
    words = load_data(data)  # first, so a bad --data fails before anything is written
    folder = out_dir("hello-world", out)
    vocab = explain_vocabulary(nar, words)
    nar.title(N_("2. Training rows"))
    nar.show(f"  rows {tuple(words.rows.shape)}: {words.tokenizer.decode(words.rows[0])}")
    nar.show(f"  inputs  rows[:, :-1] {tuple(words.inputs.shape)}: {words.tokenizer.decode(words.inputs[0])}")
    nar.show(f"  targets rows[:, 1:]  {tuple(words.targets.shape)}: {words.tokenizer.decode(words.targets[0])}")
    nar.why(
        N_(
            "The targets are the inputs shifted left by one: at each "
            "position the model must name the next token; <PAD> targets "
            "are ignored by the loss."
        )
    )

    masks = MASK_CHOICES[mask]
    models = {m: build_model(words, m, seed) for m in masks}
    params = count_parameters(nar, models[masks[0]], words)
    nar.title(
        N_("4. Training: {epochs} epochs, batch {batch}, Adam, mean loss per epoch"), epochs=epochs, batch=BATCH_SIZE
    )
    nar.why(
        N_(
            "mask=none is the tutorial's model (every position sees the "
            "whole row); mask=causal lets position t see only tokens "
            "0..t."
        )
    )
    fits = {m: train(models[m], words, epochs) for m in masks}
    loss_table(nar, fits, REPORT_EVERY)
    if words.name == "tutorial":
        N = len(words.rows)
        nar.say(
            "(The tutorial's printed average divides the sum of its "
            "{batches} batch losses by {n} // {b} = {div}; the table "
            "above is the true mean over all rows.)",
            batches=n_batches(N, BATCH_SIZE),
            n=N,
            b=BATCH_SIZE,
            div=N // BATCH_SIZE,
        )
        predictions = predict_next(nar, models, words)
    else:
        predictions = continue_prompts(nar, models, words)
    attention = last_query_attention(nar, models, words)

    nar.title(N_("7. Does position t depend on later tokens? ‖∂logits[t] / ∂embedding[j]‖"))
    nar.why(
        N_(
            "Entries right of the diagonal (j > t) measure how much "
            "position t's prediction depends on tokens it should not "
            "have seen yet."
        )
    )
    ids = words.inputs[:1]  # (1, T): the first training row
    jac = {m: embedding_jacobian_norms(models[m], ids) for m in masks}
    future = gradient_table(nar, jac, words.tokenizer.decode(ids[0]).split())

    nar.title(N_("8. The leak made visible: random tokens"))
    leak = random_token_leak(
        n_train=1000 if fast else 2000, n_val=300 if fast else 500, epochs=2 if fast else 3, seed=seed
    )
    leak_table(nar, leak)

    files = save_figures(nar, folder, fits, models, words, leak)
    nar.title(N_("Files written"))
    for f in files:
        nar.show(f"  {f}")
    return {
        "vocab": vocab,
        "params": params,
        "fits": fits,
        "predictions": predictions,
        "attention": attention,
        "jacobian": jac,
        "future_gradient": future,
        "leak": leak,
        "files": files,
    }
