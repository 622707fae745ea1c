"""The lab: experiments that test the tutorials' claims by training the small models they are about.

Each experiment is one file with the claim in our own words (and which tutorial makes it), its
setup, a run that trains seeded models through glassformer's one trainer, and a verdict rule written
as code before the run. `glassformer lab run NAME` writes report.md, PNG figures and results.json;
`glassformer lab report` gathers every verdict into one index (Markdown and offline HTML).

    length           positions past the training length: learned, sinusoidal, none (+ any scheme
                     registered in nn/position.py)                               seeds 000, 004
    layernorm        Pre-LN vs Post-LN over learning rates, depths and warmup        000, 004
    scaling          the 1/√d in attention: score variance, saturation, training     000, 004
    heads            1 to 16 heads at a fixed d_model                                 002, 004
    ffn-width        d_ff from 0 (no FFN) to 8·d_model, loss against parameters       002, 004
    mask-fill        -inf vs -1e9 vs the dtype's minimum, partly and fully masked rows 000, 004
    causal-leak      a next-token model without a mask reads its answers              000
    init             Xavier vs PyTorch's default vs GPT-2's (and a too-large one)      002
    order            no positions: an encoder is permutation-equivariant, a decoder is not  000, 002
    attention-steps  attention maps of the char model across training               002

The ledger: published small-Transformer results re-run on a CPU, the paper's number beside ours.

    grokking         a + b mod p: the late jump, weight decay, the embedding's Fourier spectrum
                     (Power et al. 2022; Nanda et al. 2023)
    induction        attention-only models of 1 and 2 layers: the ICL score's jump, the induction
                     and previous-token heads, the score without the induction head (Olsson et al. 2022)
    induction-text   two layers with and without FFN on Shakespeare: the ICL score's change and when
                     the induction and previous-token heads form (Olsson et al. 2022, Argument 1)
    extrapolation    positions past the training length: ALiBi against sinusoidal on the char model
                     (Press et al. 2022), and every registered scheme on a copy task trained short and
                     tested twice as long (Kazemnejad et al. 2023)
    attention-explanation  attention vs gradient and leave-one-out importance (Kendall τ), adversarial
                     attention against the seeds' spread, the uniform-attention baseline (Jain & Wallace
                     2019; Wiegreffe & Pinter 2019)
    glu              ReLU and GELU FFNs against SwiGLU and GeGLU at equal parameters (Shazeer 2020)
    gqa              8 query heads sharing 8, 4, 2 or 1 key-value heads: loss against KV-cache bytes
                     per token (Ainslie et al. 2023)
    yarn             RoPE trained short and read 4 times longer: plain, linear, NTK-aware (dynamic)
                     and YaRN scaling (Peng et al. 2023)
    moe              baby-moe against baby-llama at equal active parameters per token: the loss per
                     step and per second of CPU time (Shazeer et al. 2017; Fedus et al. 2022; nanochat)
    balance          baby-moe's router without the balance loss, with it, and with DeepSeek-V3's
                     moving selection bias: each expert's load, MaxVio, entropy (Fedus et al. 2022)
    mla              multi-head latent attention against GQA and MHA at equal parameters: the loss, and
                     the cache's bytes per token measured from real caches (DeepSeek-V2)
    degeneration     greedy, beam search, nucleus and pure sampling from held-out prompts: seq-rep-4 and
                     loops; a phrase's probability copy after copy (Holtzman et al. 2020)
"""

from __future__ import annotations

import difflib
import importlib

from glassformer.errors import UsageError
from glassformer.messages import t

MODULES = (
    "length",
    "layernorm",
    "scaling",
    "heads",
    "ffn_width",
    "mask_fill",
    "causal_leak",
    "initialisation",
    "order",
    "attention_steps",
    "grokking",
    "induction",
    "induction_text",
    "extrapolation",
    "attention_explanation",
    "glu",
    "gqa",
    "yarn",
    "moe",
    "balance",
    "mla",
    "degeneration",
)


def experiments() -> dict:
    """name -> Experiment, in the order above (each module defines EXPERIMENT)."""
    out = {}
    for module in MODULES:
        exp = importlib.import_module(f"glassformer.lab.{module}").EXPERIMENT
        out[exp.name] = exp
    return out


def get_experiment(name: str):
    known = experiments()
    if name not in known:
        near = difflib.get_close_matches(name, known, n=1)
        hint = t(" Did you mean {name!r}?", name=near[0]) if near else ""
        raise UsageError(
            "lab.unknown",
            "unknown experiment {name!r}; `glassformer lab list` shows them all: {known}.{hint}",
            name=name,
            known=", ".join(known),
            hint=hint,
        )
    return known[name]
