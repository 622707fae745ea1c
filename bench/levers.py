"""Each speed lever alone: a ratio against the step without it, measured side by side in one process.

    python bench/levers.py                          # baby shape, 1 thread, training + decoding
    python bench/levers.py --shape small --threads 2
    python bench/levers.py --compile                # adds torch.compile (minutes of compiling)
    python bench/levers.py --no-train --compile     # the decoding variants only, the compiled step too
    python bench/levers.py --dtype [--shape small] [--compile]   # the bfloat16 levers, each alone
    python bench/levers.py --auto [--rounds 15]     # every preset's own step, float32 vs bf16, and auto's pick
    python bench/levers.py --auto --widths 64,96    # the same for baby's layout at other widths

Training: one forward + backward + optimizer step of the fused-attention model on the shape's batch;
every variant starts from the same weights and sees the same batch. Variants run round-robin (one
step each per round, the order reversed every other round) so the machine's drift hits all alike;
printed are the median and the fastest ms per step and `before / variant` for each (> 1: it pays).

    before           what the code did before this round of work: for-each AdamW, causal check by value
    fused AdamW      torch.optim.AdamW(fused=True)                                     (kept)
    no causal check  SDPA told is_causal=True directly, no (T, T) mask compared per layer
    glass path       the written-out attention (hooks in place), with fused AdamW
    glass, scores before   the glass path with attention_scores as it was: Q Kᵀ / √D over the
                     (T_q, T_k) scores and an out-of-place masked copy (now: Q/√D first, mask in place)
    + compile        torch.compile of the model (fused / glass), with fused AdamW

--dtype: the bfloat16 levers against the float32 step (fused attention, fused AdamW): autocast as
`--dtype=bfloat16` does it; autocast with every weight cast to bf16 once per step (functional_call);
bf16 parameters with float32 master weights and AdamW state; the glass path under autocast (the
fused kernel's bf16 path is the autocast row); with --compile, torch.compile of float32 and autocast.

--auto: the rule behind --dtype=auto (devices.auto_dtype), checked on every preset: each preset's own
Trainer step (its data, batch, attention and optimizer, as `glassformer train` builds them) in
float32 and in bfloat16 autocast, round-robin, with B·T·C² and what auto picks on this machine.

Decoding (`baby` shape, max_len 512, batch 1 and 16, fused attention): ms per step of 200 one-token
steps after a 16-token prefill, through the model's own forward under no_grad and under
torch.inference_mode (as the sampler runs it), in bfloat16, and with --compile through the forward
compiled by torch.compile (dynamic shapes: one graph for every length).
Not a test: the figures go to docs/performance.md.
"""

from __future__ import annotations

import argparse
import copy
import math
import statistics
import time
from dataclasses import replace

import torch
import torch.nn.functional as F
from kv_cache import cached_steps, decoding_model  # bench/: the script's own folder

import glassformer.nn.attention as attention_module
from glassformer.config import get_preset
from glassformer.models import GPT
from glassformer.nn.attention import check_mask
from glassformer.nn.loss import next_token_loss

VOCAB = 84


def scores_before(q, k, mask=None, bias=None):
    """attention_scores as it was: Q Kᵀ, then / √D over the (T_q, T_k) scores, then a masked copy."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))  # (..., T_q, T_k)
    if bias is not None:
        scores = scores + bias
    if mask is not None:
        scores = scores.masked_fill(~check_mask(mask, scores), float("-inf"))  # (..., T_q, T_k)
    return scores


def training_variants(shape: str, batch: int | None, compile_too: bool) -> tuple[dict, int]:
    preset = get_preset(shape)
    B, T = batch or preset.train.batch_size, preset.train.seq_len
    torch.manual_seed(0)
    base = GPT(replace(preset.model, vocab_size=VOCAB, dropout=0.0, attention="fused"))
    g = torch.Generator().manual_seed(0)
    x = torch.randint(0, VOCAB, (B, T), generator=g)  # (B, T)
    y = torch.randint(0, VOCAB, (B, T), generator=g)  # (B, T)

    def variant(attention="fused", fused_adamw=True, compiled=False, causal_by_shape=False, old_scores=False):
        model = copy.deepcopy(base)
        model.set_attention(attention)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=fused_adamw, foreach=not fused_adamw)
        forward = torch.compile(model) if compiled else model

        def step():
            original = attention_module.fused_attention, attention_module.attention_scores
            if causal_by_shape:  # the kernel told directly: what a structural "causal" flag would give
                attention_module.fused_attention = lambda q, k, v, mask, drop, bias: F.scaled_dot_product_attention(
                    q, k, v, dropout_p=drop, is_causal=True
                )
            if old_scores:
                attention_module.attention_scores = scores_before
            try:
                loss = next_token_loss(forward(x), y)
            finally:
                attention_module.fused_attention, attention_module.attention_scores = original
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()

        return step

    variants = {
        "before": variant(fused_adamw=False),
        "fused AdamW": variant(),
        "no causal check": variant(causal_by_shape=True),
        "glass path": variant("glass"),
        "glass, scores before": variant("glass", old_scores=True),
    }
    if compile_too:
        for attention in ("fused", "glass"):
            step = variant(attention, compiled=True)
            t0 = time.perf_counter()
            step()  # compile now, not inside the timing
            print(f"compiling the {attention} model took {time.perf_counter() - t0:.0f} s")
            variants[f"{attention} + compile"] = step
    return variants, B * T


def dtype_variants(shape: str, batch: int | None, compile_too: bool) -> tuple[dict, int]:
    """The bfloat16 levers, each alone against the float32 step (fused attention, fused AdamW)."""
    preset = get_preset(shape)
    B, T = batch or preset.train.batch_size, preset.train.seq_len
    torch.manual_seed(0)
    base = GPT(replace(preset.model, vocab_size=VOCAB, dropout=0.0, attention="fused"))
    g = torch.Generator().manual_seed(0)
    x = torch.randint(0, VOCAB, (B, T), generator=g)  # (B, T)
    y = torch.randint(0, VOCAB, (B, T), generator=g)  # (B, T)
    bf16 = torch.bfloat16

    def autocast_step(attention="fused", compiled=False, weights_once=False):
        model = copy.deepcopy(base)
        model.set_attention(attention)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
        forward = torch.compile(model) if compiled else model
        names = [n for n, _ in model.named_parameters()]

        def step():
            with torch.autocast("cpu", dtype=bf16):
                if weights_once:  # every weight cast to bf16 once here; autocast then has nothing to cast
                    params = {n: p.to(bf16) for n, p in model.named_parameters()}
                    logits = torch.func.functional_call(model, params, (x,))  # (B, T, V)
                else:
                    logits = forward(x)  # (B, T, V)
            loss = next_token_loss(logits.float(), y)  # ()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()

        del names
        return step

    def master_step():
        """bf16 parameters for the arithmetic, float32 master weights and AdamW state."""
        master = copy.deepcopy(base)
        model = copy.deepcopy(base).to(bf16)
        opt = torch.optim.AdamW(master.parameters(), lr=1e-3, fused=True)
        pairs = list(zip(master.parameters(), model.parameters(), strict=True))

        def step():
            loss = next_token_loss(model(x).float(), y)  # ()
            for _, p in pairs:
                p.grad = None
            loss.backward()
            for m, p in pairs:
                m.grad = p.grad.float()
            opt.step()
            with torch.no_grad():
                torch._foreach_copy_([p for _, p in pairs], [m for m, _ in pairs])

        return step

    variants = {
        "float32": variant_float32(base, x, y),
        "autocast": autocast_step(),
        "autocast, weights once": autocast_step(weights_once=True),
        "bf16 params + fp32 master": master_step(),
        "glass + autocast": autocast_step("glass"),
    }
    if compile_too:
        for name, step in (
            ("float32 + compile", variant_float32(base, x, y, compiled=True)),
            ("autocast + compile", autocast_step(compiled=True)),
        ):
            t0 = time.perf_counter()
            step()  # compile now, not inside the timing
            print(f"compiling {name} took {time.perf_counter() - t0:.0f} s")
            variants[name] = step
    return variants, B * T


def variant_float32(base: GPT, x: torch.Tensor, y: torch.Tensor, compiled: bool = False):
    model = copy.deepcopy(base)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
    forward = torch.compile(model) if compiled else model

    def step():
        loss = next_token_loss(forward(x), y)  # ()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    return step


def round_robin(variants: dict, rounds: int, warmup: int) -> dict[str, list[float]]:
    names, times = list(variants), {n: [] for n in variants}
    for r in range(warmup + rounds):
        for name in names if r % 2 == 0 else names[::-1]:
            t0 = time.perf_counter()
            variants[name]()
            if r >= warmup:
                times[name].append(time.perf_counter() - t0)
    return times


def report(times: dict[str, list[float]], unit: str, scale: float) -> None:
    """Median and fastest time of each; `before / this` for both (the fastest run is the one other
    processes disturbed least: on a shared machine the two ratios bracket the lever's effect)."""
    first = times[next(iter(times))]
    for name, ts in times.items():
        med, low = statistics.median(ts), min(ts)
        print(
            f"  {name:<22}{med * scale:>9.3f} {unit} (min {low * scale:8.3f})   before / this: "
            f"median {statistics.median(first) / med:5.2f}×, min {min(first) / low:5.2f}×"
        )


def decoding_variants(steps: int, batch: int, compile_too: bool) -> dict:
    model, prompt, token = decoding_model(VOCAB)
    prompt, token = prompt.expand(batch, -1), token.expand(batch, -1)  # (B, 16), (B, 1)

    def loop(one_token):
        return cached_steps(model, prompt, token, steps, one_token)

    def inference(m):
        def one_token(ids, cache):
            with torch.inference_mode():
                return m(ids, cache=cache)  # (B, 1, V)

        return one_token

    out = {
        "model forward, no_grad": loop(lambda ids, cache: model(ids, cache=cache)),
        "model forward, inference_mode": loop(inference(model)),
    }
    half = copy.deepcopy(model).to(torch.bfloat16)  # the model and its cache in bfloat16, the same forward
    out["model forward, bf16 weights"] = cached_steps(half, prompt, token, steps, inference(half))
    if compile_too:  # the model's own forward, compiled once for every cache length
        compiled = torch.compile(model, dynamic=True)
        t0 = time.perf_counter()
        loop(inference(compiled))()  # compile now, not while timed
        print(f"compiled the model forward in {time.perf_counter() - t0:.0f} s")
        out["model forward, compiled"] = loop(inference(compiled))
    return out


def auto_presets(rounds: int, threads: int, widths: list[int]) -> None:
    """Each preset's Trainer step in float32 against bf16 autocast, and what --dtype=auto picks;
    with `widths`, `baby`'s layout at those d_model (d_ff 4·d_model) instead of the presets."""
    import tempfile

    from glassformer.config import PRESETS
    from glassformer.devices import BF16_MIN_WORK, auto_dtype
    from glassformer.train.run import new_run

    print(f"every preset's training step, float32 / bf16 autocast ({threads} thread(s), median of {rounds})")
    with tempfile.TemporaryDirectory() as tmp:
        cases = [(f"baby@{c}", "baby", {"d_model": c, "d_ff": 4 * c}) for c in widths] or [(n, n, {}) for n in PRESETS]
        for name, preset, sizes in cases:
            runs = {
                dtype: new_run(
                    preset, {**sizes, "dtype": dtype, "threads": threads}, out=f"{tmp}/{name}-{dtype}", progress=False
                )
                for dtype in ("float32", "bfloat16")
            }
            cfg, model = runs["float32"].trainer.cfg, runs["float32"].model.cfg
            times = round_robin({d: r.trainer.train_step for d, r in runs.items()}, rounds, warmup=3)
            fp32, bf16 = (statistics.median(times[d]) for d in ("float32", "bfloat16"))
            work = cfg.batch_size * cfg.seq_len * model.d_model**2
            pick = auto_dtype(cfg.device, model, cfg)[0]
            print(
                f"  {name:<9} {model.attention:<6} B·T·C² {work / 1e6:6.2f}M ({work / BF16_MIN_WORK:5.2f}× the least)  "
                f"float32 {fp32 * 1e3:7.2f} ms, bf16 {bf16 * 1e3:7.2f} ms: float32 / bf16 {fp32 / bf16:5.2f}×   "
                f"auto picks {pick}"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shape", default="baby", choices=["baby", "small"])
    ap.add_argument("--batch", type=int, default=None, help="default: baby 12, small 4")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--compile", action="store_true", help="add the torch.compile variants (slow to build)")
    ap.add_argument("--no-decode", action="store_true")
    ap.add_argument("--no-train", action="store_true")
    ap.add_argument("--dtype", action="store_true", help="the bfloat16 levers (against the float32 step)")
    ap.add_argument("--auto", action="store_true", help="every preset's step, float32 vs bf16, and auto's pick")
    ap.add_argument("--widths", default="", help="with --auto: baby's layout at these d_model, e.g. 64,96")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    if args.auto:
        return auto_presets(args.rounds, args.threads, [int(c) for c in args.widths.split(",") if c])
    batch = args.batch or (4 if args.shape == "small" else None)
    if args.dtype:
        variants, tokens = dtype_variants(args.shape, batch, args.compile)
        print(f"bfloat16 training levers, {args.shape} shape, {tokens} tokens a step, {args.threads} thread(s)")
        report(round_robin(variants, args.rounds, warmup=3), "ms/step", 1e3)
        return
    if not args.no_train:
        variants, tokens = training_variants(args.shape, batch, args.compile)
        print(
            f"training, {args.shape} shape, {tokens} tokens a step, {args.threads} thread(s), "
            f"median of {args.rounds} rounds"
        )
        report(round_robin(variants, args.rounds, warmup=3), "ms/step", 1e3)
    if not args.no_decode:
        steps = 200
        for batch in (1, 16):
            print(f"decoding, baby shape, batch {batch}, {steps} one-token steps after a 16-token prefill")
            report(
                round_robin(decoding_variants(steps, batch, args.compile), max(args.rounds // 2, 5), warmup=1),
                "ms/step",
                1e3 / steps,
            )


if __name__ == "__main__":
    main()
