"""Where the time of batched sampling goes: one batch of 16 against 16 batches of 1.

    python bench/batched_profile.py [--threads 1] [--reps 3] [--variants 40]

The setup of bench/peers.py's batched part (`baby` with max_len 512, glass attention, 256 tokens
after the 21-character prompt, temperature 0.8, through `sample()`). Prints, per repetition, the
seconds of the whole `sample()` call and of the decode steps alone (a cache prefilled, then 255
one-token steps through the model's own forward) at batch 1 and at batch 16, on the clock and in this
thread's CPU time (which leaves out the time the scheduler gives other processes: on a loaded
machine a long batch-16 call is preempted more often than a short batch-1 one, so the clock's ratio
shrinks with the load), and the ratios 16 × batch 1 / batch 16; then one torch.profiler table of
each, ATen operations by self CPU time, so the share of every kind of call (products, attention
over the cache, writing the cache, GELU, norms, drawing) at batch 16 can be set against 16 × its
share at batch 1. Last, the attention kernel alone at the run's mean length: one call reading one
layer's cache again and again (it stays in the CPU's caches), and four calls over four layers'
caches, as the step makes them. With `--variants N`, the one-query attention written other ways,
side by side on the same four caches in N interleaved rounds (CPU time): the glass path's function
(q/√D·Kᵀ, softmax, ·V as batched products), the same as elementwise products and sums, the same
over a position-major (max_len, B, H, D) copy of the cache, and the floor: reading the live keys
and values once (a sum) in either layout.
"""

from __future__ import annotations

import argparse
import statistics
import time

import peers  # bench/: the same model, tokenizer, prompt and lengths
import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

from glassformer.nn.attention import scaled_dot_product_attention
from glassformer.nn.fused_attention import fused_attention
from glassformer.sample import sample
from glassformer.text.tokenizers import CharTokenizer

PROMPT = "ROMEO: O, SPEAK AGAIN"


def setup():
    torch.manual_seed(0)
    model = peers.glass_model("baby", peers.SAMPLE_MAX_LEN, "glass", "cpu").eval()
    tokenizer = CharTokenizer([chr(32 + i) for i in range(peers.VOCAB)])
    return model, tokenizer


def sample_call(model, tokenizer, B: int):
    return lambda: sample(model, tokenizer, PROMPT, peers.NEW_TOKENS, temperature=0.8, num_samples=B, seed=0)


def steps_call(model, tokenizer, B: int):
    """The decode steps alone: prefill, then NEW_TOKENS - 1 one-token steps (B rows)."""
    step = lambda ids, cache: model(ids, cache=cache)  # noqa: E731 - the sampler's one forward
    prompt = torch.tensor([tokenizer.encode(PROMPT)] * B)  # (B, T0)
    token = torch.zeros(B, 1, dtype=torch.long)  # (B, 1)

    def run():
        with torch.inference_mode():
            cache = model.new_cache(B)
            step(prompt, cache)
            for _ in range(peers.NEW_TOKENS - 1):
                step(token, cache)

    return run


def seconds(fn) -> tuple[float, float]:
    """(clock seconds, this thread's CPU seconds) of one call."""
    t0, c0 = time.perf_counter(), time.thread_time()
    fn()
    return time.perf_counter() - t0, time.thread_time() - c0


def table(fn, times: int, rows: int) -> str:
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(times):
            fn()
    return prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=rows)


def attention_alone(B: int, L: int, layers: int, calls: int = 200) -> float:
    """µs per SDPA call, one query per row over the first L positions of (B, H, max_len, D)
    buffers, as the decode step calls it; `layers` separate caches read in turn."""
    H, D, L_max = 4, 32, peers.SAMPLE_MAX_LEN  # the baby shape's heads and head width
    q = torch.randn(B, H, 1, D)  # (B, H, 1, D)
    caches = [(torch.randn(B, H, L_max, D), torch.randn(B, H, L_max, D)) for _ in range(layers)]
    runs = []
    with torch.inference_mode():
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(calls // layers):
                for k, v in caches:
                    F.scaled_dot_product_attention(q, k[:, :, :L], v[:, :, :L])  # (B, H, 1, D)
            runs.append((time.perf_counter() - t0) / (calls // layers * layers) * 1e6)
    return statistics.median(runs)


def elementwise(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """One query per row without a product: q (B, H, 1, D), k and v (B, H, L, D) -> (B, H, 1, D)."""
    s = (k * (q / q.size(-1) ** 0.5)).sum(-1)  # (B, H, L)
    return (s.softmax(-1).unsqueeze(-1) * v).sum(-2, keepdim=True)  # (B, H, 1, D)


def position_major(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """The same over keys and values stored position first: k and v (L, B, H, D) -> (B, H, 1, D)."""
    s = (k * (q / q.size(-1) ** 0.5).squeeze(2)).sum(-1)  # (L, B, H)
    return (s.softmax(0).unsqueeze(-1) * v).sum(0).unsqueeze(2)  # (B, H, 1, D)


def attention_variants(B: int, L: int, rounds: int) -> dict[str, float]:
    """µs of CPU time per one-query attention over four layers' (B, H, max_len, D) caches, the
    first L positions read, each way of writing it in turn (and the floor: one read of k and v)."""
    H, D, L_max = 4, 32, peers.SAMPLE_MAX_LEN
    q = torch.randn(B, 3, H, 1, D).unbind(1)[0]  # (B, H, 1, D): a view, as the step's
    caches = [(torch.randn(B, H, L_max, D), torch.randn(B, H, L_max, D)) for _ in range(4)]
    pm = [
        (k.permute(2, 0, 1, 3).contiguous(), v.permute(2, 0, 1, 3).contiguous()) for k, v in caches
    ]  # (L_max, B, H, D)
    ways = {
        "SDPA (the step's)": lambda i: fused_attention(q, caches[i][0][:, :, :L], caches[i][1][:, :, :L]),
        "glass path (products)": lambda i: scaled_dot_product_attention(
            q, caches[i][0][:, :, :L], caches[i][1][:, :, :L]
        ),
        "elementwise": lambda i: elementwise(q, caches[i][0][:, :, :L], caches[i][1][:, :, :L]),
        "elementwise, position-major": lambda i: position_major(q, pm[i][0][:L], pm[i][1][:L]),
        "floor: read k, v": lambda i: caches[i][0][:, :, :L].sum() + caches[i][1][:, :, :L].sum(),
        "floor: read k, v, position-major": lambda i: pm[i][0][:L].sum() + pm[i][1][:L].sum(),
    }
    names, got = list(ways), {name: [] for name in ways}  # type: dict[str, list[float]]
    with torch.inference_mode():
        for r in range(rounds):
            for name in names[r % len(names) :] + names[: r % len(names)]:  # each first in turn
                c0 = time.thread_time()
                for i in range(4):
                    ways[name](i)
                got[name].append((time.thread_time() - c0) / 4 * 1e6)
    return {name: statistics.median(ts) for name, ts in got.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--rows", type=int, default=18)
    ap.add_argument("--variants", type=int, default=0, metavar="N", help="N rounds of attention written other ways")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    model, tokenizer = setup()
    calls = {
        "sample, 1 row": sample_call(model, tokenizer, 1),
        "sample, 16 rows": sample_call(model, tokenizer, 16),
        "steps, 1 row": steps_call(model, tokenizer, 1),
        "steps, 16 rows": steps_call(model, tokenizer, 16),
    }
    for fn in calls.values():
        fn()  # warm-up
    got: dict[str, list[tuple[float, float]]] = {name: [] for name in calls}
    for r in range(args.reps):
        for name, fn in calls.items() if r % 2 == 0 else reversed(calls.items()):
            got[name].append(seconds(fn))
    per_step = 1e3 / peers.NEW_TOKENS
    for clock, j in (("clock", 0), ("CPU time", 1)):
        med = {name: statistics.median(t[j] for t in ts) for name, ts in got.items()}
        print(f"{clock}:")
        for name, ts in got.items():
            lo, hi = min(t[j] for t in ts), max(t[j] for t in ts)
            print(f"  {name:<16} {med[name]:.3f} s ({lo:.3f}–{hi:.3f}), {med[name] * per_step:.3f} ms a token")
        for what in ("sample", "steps"):
            one, many = med[f"{what}, 1 row"], med[f"{what}, 16 rows"]
            print(f"  {what}: 16 × 1 row / 16 rows = {16 * one / many:.2f}×; batch 16 costs {many / one:.2f}× batch 1")
    print("\nsample, 16 rows, profiled once:")
    print(table(calls["sample, 16 rows"], 1, args.rows))
    print("sample, 1 row, profiled 16 times (what one by one runs):")
    print(table(calls["sample, 1 row"], 16, args.rows))
    L = len(PROMPT) + peers.NEW_TOKENS // 2  # the mean number of cached positions
    for B in (1, 16):
        one, four = attention_alone(B, L, 1), attention_alone(B, L, 4)
        print(f"attention alone, batch {B}, {L} positions: one cache {one:.0f} µs a call, four caches {four:.0f} µs")
    if args.variants:
        for B in (1, 16):
            print(f"\none-query attention, batch {B}, {L} positions, four caches, µs of CPU time a call:")
            for name, us in attention_variants(B, L, args.variants).items():
                print(f"  {name:<34} {us:6.0f}")


if __name__ == "__main__":
    main()
