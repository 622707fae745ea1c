"""How the loss exercise is graded. What the learner reads (its title, the math and the shapes,
the hints, the note on each known mistake) is written once, in EXERCISE's words below.

Reference: glassformer.nn.loss.next_token_loss (F.cross_entropy on the flattened logits) and a
NumPy version written here, log-softmax by the max shift. Shifting the targets again is one of
the known mistakes.
"""

from __future__ import annotations

import numpy as np
import torch

from glassformer.exercises.catalog import LOSS, Case, Exercise, Function, Variant, noncontiguous, numpy_twin, randn
from glassformer.messages import N_
from glassformer.nn.loss import next_token_loss

# ------------------------------------------------------------------ the reference solution
# A learner's file, exactly: only torch and math, no glassformer, nothing shared with another
# exercise. `glassformer exercise solution NAME` prints it; the tests grade it with the grader
# the learner meets, in the same separate process.

SOLUTION = r'''"""Solution: next-token cross-entropy, averaged over the targets that count."""

import torch


def next_token_loss(logits, targets, ignore_index=-100):
    V = logits.size(-1)
    flat = logits.reshape(-1, V)  # (B·T, V)
    tgt = targets.reshape(-1)  # (B·T,)
    keep = tgt != ignore_index  # (B·T,) bool
    flat, tgt = flat[keep], tgt[keep]  # (N, V), (N,)
    # log softmax without overflow: log Σ exp(z) = m + log Σ exp(z - m)
    m = flat.amax(dim=-1, keepdim=True)  # (N, 1)
    log_norm = m + torch.log(torch.exp(flat - m).sum(dim=-1, keepdim=True))  # (N, 1)
    log_probs = flat - log_norm  # (N, V)
    picked = log_probs[torch.arange(tgt.numel()), tgt]  # (N,): log p(correct next token)
    return -picked.mean()  # ()
'''


def reference(logits, targets, ignore_index=-100):
    return (next_token_loss(logits, targets, ignore_index),)  # ()


def twin(logits, targets, ignore_index=-100):
    V = logits.shape[-1]
    z, t = logits.reshape(-1, V), targets.reshape(-1)  # (B·T, V), (B·T,)
    keep = t != ignore_index
    z, t = z[keep], t[keep]  # (N, V), (N,)
    m = z.max(axis=-1, keepdims=True)  # (N, 1)
    log_probs = z - (m + np.log(np.exp(z - m).sum(axis=-1, keepdims=True)))  # (N, V)
    return np.asarray(-log_probs[np.arange(len(t)), t].mean())  # ()


# ------------------------------------------------------------------ known-wrong variants


def _log_probs(z):
    m = z.amax(dim=-1, keepdim=True)
    return z - (m + torch.log(torch.exp(z - m).sum(dim=-1, keepdim=True)))


def _picked(logits, targets, ignore_index):
    V = logits.size(-1)
    z, t = logits.reshape(-1, V), targets.reshape(-1)
    keep = t != ignore_index
    return _log_probs(z[keep])[torch.arange(int(keep.sum())), t[keep]], keep


def sum_not_mean(logits, targets, ignore_index=-100):
    picked, _ = _picked(logits, targets, ignore_index)
    return -picked.sum()


def counts_ignored(logits, targets, ignore_index=-100):
    picked, keep = _picked(logits, targets, ignore_index)
    return -picked.sum() / keep.numel()  # ignored positions still in the denominator


def unstable(logits, targets, ignore_index=-100):
    V = logits.size(-1)
    z, t = logits.reshape(-1, V), targets.reshape(-1)
    keep = t != ignore_index
    probs = torch.exp(z[keep]) / torch.exp(z[keep]).sum(dim=-1, keepdim=True)  # exp(1000) = inf
    return -torch.log(probs[torch.arange(int(keep.sum())), t[keep]]).mean()


def shifted_again(logits, targets, ignore_index=-100):
    picked, _ = _picked(logits[:, :-1], targets[:, 1:], ignore_index)  # the targets were already shifted
    return -picked.mean()


def sign_flipped(logits, targets, ignore_index=-100):
    picked, _ = _picked(logits, targets, ignore_index)
    return picked.mean()  # log p, not -log p


def softmax_over_time(logits, targets, ignore_index=-100):
    m = logits.amax(dim=1, keepdim=True)
    log_probs = logits - (m + torch.log(torch.exp(logits - m).sum(dim=1, keepdim=True)))  # over T, not V
    V = logits.size(-1)
    z, t = log_probs.reshape(-1, V), targets.reshape(-1)
    keep = t != ignore_index
    return -z[keep][torch.arange(int(keep.sum())), t[keep]].mean()


# -------------------------------------------------------------------------------- cases


def _targets(rng, B, T, V, ignored=0.0, ignore_index=-100):
    t = torch.from_numpy(rng.integers(0, V, size=(B, T)))
    hide = torch.from_numpy(rng.random((B, T)) < ignored)
    hide.view(-1)[0] = False  # at least one target counts
    return t.masked_fill(hide, ignore_index)


def make_cases(rng: np.random.Generator) -> list[Case]:
    f, g = "next_token_loss", (0,)
    cases = [
        Case(N_("a small ordinary input"), f, (randn(rng, 2, 5, 7), _targets(rng, 2, 5, 7), -100), g),
        Case(
            N_("some targets ignored (ignore_index = -100)"),
            f,
            (randn(rng, 3, 6, 5), _targets(rng, 3, 6, 5, 0.4), -100),
            g,
        ),
        Case(
            N_("ignore_index = 0 (padding id as the ignored target)"),
            f,
            (randn(rng, 2, 4, 6), _targets(rng, 2, 4, 6, 0.3, ignore_index=0), 0),
            g,
        ),
        Case(N_("T = 1 (a single position)"), f, (randn(rng, 2, 1, 5), _targets(rng, 2, 1, 5), -100), g),
        Case(N_("a batch of 1"), f, (randn(rng, 1, 4, 6), _targets(rng, 1, 4, 6), -100), g),
        Case(
            N_("large values (around {scale})"),
            f,
            (randn(rng, 2, 3, 8, scale=1000.0), _targets(rng, 2, 3, 8), -100),
            g,
            {"scale": 1000},
        ),
        Case(N_("a vocabulary of 2"), f, (randn(rng, 2, 4, 2), _targets(rng, 2, 4, 2), -100), g),
        Case(
            N_("non-contiguous inputs (transposed views)"),
            f,
            (noncontiguous(randn(rng, 2, 6, 6)), _targets(rng, 2, 6, 6, 0.2), -100),
            g,
        ),
    ]
    for i in range(2):
        B, T, V = (int(n) for n in rng.integers(1, 9, size=3))
        cases.append(
            Case(
                N_("random case #{i}"),
                f,
                (randn(rng, B, T, V, scale=3.0), _targets(rng, B, T, V, 0.2), -100),
                g,
                {"i": i + 1},
            )
        )
    return cases


EXERCISE = Exercise(
    name="loss",
    title=N_("next-token cross-entropy"),
    todo=N_("TODO: flatten, drop ignored positions, log softmax, pick the targets' entries, average, negate."),
    hints=(
        N_(
            "Flatten: logits to (B·T, V), targets to (B·T,). Keep only "
            "the rows whose target != ignore_index (boolean indexing)."
        ),
        N_(
            "log softmax = z - (m + log Σ exp(z - m)) with m the row "
            "max. Then pick row n's entry at column targets[n]: "
            "log_probs[torch.arange(N), targets]."
        ),
        N_(
            "Nearly the answer: keep = t != ignore_index; z, t = "
            "z[keep], t[keep]; m = z.amax(-1, keepdim=True); lp = z - m "
            "- torch.log(torch.exp(z - m).sum(-1, keepdim=True)); return "
            "-lp[torch.arange(len(t)), t].mean()"
        ),
    ),
    solution=SOLUTION,
    functions=(
        Function(
            "next_token_loss",
            "(logits, targets, ignore_index=-100)",
            ("logits", "targets", "ignore_index"),
            ("loss",),
            doc=N_(
                "The language-model loss: the mean negative log-probability "
                "of the right next token.\n\n    loss = -1/N Σ_{{b,t}} log "
                "softmax(logits[b, t])[targets[b, t]]\n\nover the N positions "
                "whose target is not ignore_index. targets[b, t] is ALREADY "
                "the\ntoken after position t (the batch was shifted when it "
                "was made): do not shift again.\nCompute log softmax stably: "
                "log Σ exp(z) = m + log Σ exp(z - m).\n\nShapes: logits (B, T, "
                "V) float, targets (B, T) int -> a scalar (0-d tensor)."
            ),
        ),
    ),
    make_cases=make_cases,
    reference={"next_token_loss": reference},
    numpy_reference={"next_token_loss": numpy_twin(twin)},
    variants=(
        Variant(
            "sum_not_mean",
            "next_token_loss",
            sum_not_mean,
            N_(
                "You sum over the positions; the loss is the MEAN over the "
                "targets that count, so it does not grow with the batch."
            ),
        ),
        Variant(
            "counts_ignored",
            "next_token_loss",
            counts_ignored,
            N_(
                "You divide by every position, ignored ones included. "
                "Average over the N positions whose target is not "
                "ignore_index."
            ),
        ),
        Variant(
            "unstable",
            "next_token_loss",
            unstable,
            N_(
                "You take log(exp(z) / Σ exp(z)) directly: exp overflows for "
                "large logits. Use the max shift: log softmax(z) = z - m - "
                "log Σ exp(z - m)."
            ),
        ),
        Variant(
            "shifted_again",
            "next_token_loss",
            shifted_again,
            N_(
                "You shift the targets again (logits[:, :-1] against "
                "targets[:, 1:]). targets[b, t] already is the token after "
                "position t: compare logits[b, t] with targets[b, t]."
            ),
        ),
        Variant(
            "sign_flipped",
            "next_token_loss",
            sign_flipped,
            N_(
                "Your loss is negative: it is MINUS the mean log-probability (log-probabilities are ≤ 0, the loss ≥ 0)."
            ),
        ),
        Variant(
            "softmax_over_time",
            "next_token_loss",
            softmax_over_time,
            N_(
                "Your softmax runs over the time axis. The distribution over "
                "the next token is over the vocabulary: the last axis, V."
            ),
        ),
    ),
    forbidden=(LOSS,),
    allowed=(
        "Tensor.reshape",
        "z[keep]",
        "Tensor.amax",
        "torch.exp",
        "torch.log",
        "torch.logsumexp",
        "log_probs[torch.arange(N), targets]",
        "Tensor.gather",
    ),
    error_hints=(
        (
            r"out of bounds|index -?\d+ is out|Target -?\d+ is out",
            N_(
                "An index is out of range: the ignored targets "
                "(ignore_index) must be removed BEFORE you index the "
                "log-probabilities with the targets."
            ),
        ),
    ),
    header="import torch\n",
    seed=112,
    plugs_into="glassformer.nn.loss.next_token_loss",
)
