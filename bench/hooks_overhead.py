"""What do idle hook points cost? Forward time of the `baby` model with its hook points as they
are (nothing attached) against the same model with the hook machinery removed.

    python bench/hooks_overhead.py                # baby's training shape (B=12, T=64) and B=1, T=16
    python bench/hooks_overhead.py --rounds 500 --threads 2

"Removed" = a copy of the model whose hook points are re-classed to `BareHookPoint`, whose
`__call__` is `lambda self, x: x`, the cheapest identity Python has; so the difference is exactly
the idle check (`self.forward(x) if self.fns else x`) at every hook point (12 per block + 5
outside). Two models rather than patching HookPoint.__call__ back and forth: changing a class
attribute between runs resets CPython's specialised call sites and adds noise of its own.

The two run interleaved, one forward each per round, alternating which goes first (A B, B A, ...)
so neither profits from running second, and drift of the machine hits both alike. Printed:
median(hooked) / median(bare), the same for the fastest run of each (the least disturbed by other
processes; timeit's advice), and a direct estimate immune to that noise: the measured cost of one
idle hook call minus one identity call, times the hook points, over the bare forward time.
One torch thread by default: the hook cost is Python-side and the same for any thread count,
while multi-threaded timings on a busy machine vary by ±20% from run to run. Not a test.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time

import torch

from glassformer.config import get_preset
from glassformer.models import GPT
from glassformer.nn.hooks import HookPoint

VOCAB = 65  # a character vocabulary of about Shakespeare's size


def time_forward(model, ids) -> float:
    start = time.perf_counter()
    model(ids)
    return time.perf_counter() - start


class BareHookPoint(HookPoint):
    """A hook point with the machinery removed: a plain identity."""

    __call__ = lambda self, x: x  # noqa: E731


def without_hooks(model):
    """A copy of `model` (same weights) whose hook points are plain identities."""
    bare = copy.deepcopy(model)
    for module in bare.modules():
        if isinstance(module, HookPoint):
            module.__class__ = BareHookPoint
    return bare


def measure(model, bare, ids, rounds: int):
    """((median hooked, median bare), (fastest hooked, fastest bare)) in seconds."""
    hooked_t, bare_t = [], []
    with torch.no_grad():
        assert torch.equal(model(ids), bare(ids))  # the same function
        for _ in range(10):  # warm-up
            model(ids), bare(ids)
        for r in range(rounds):
            if r % 2 == 0:
                hooked_t.append(time_forward(model, ids))
                bare_t.append(time_forward(bare, ids))
            else:
                bare_t.append(time_forward(bare, ids))
                hooked_t.append(time_forward(model, ids))
    return (statistics.median(hooked_t), statistics.median(bare_t)), (min(hooked_t), min(bare_t))


def per_call_ns(fn, x, calls: int = 200_000) -> float:
    """Median over 5 repeats of the time of one call, in nanoseconds."""
    runs = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(calls):
            fn(x)
        runs.append((time.perf_counter() - start) / calls * 1e9)
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    cfg = get_preset("baby").model
    cfg.vocab_size = VOCAB
    model = GPT(cfg).eval()
    bare_model = without_hooks(model)
    n_hooks = len(model.hook_names())
    print(
        f"baby: {cfg.n_layers} layers, d_model {cfg.d_model}, {n_hooks} hook points, "
        f"torch {torch.__version__}, threads={torch.get_num_threads()}, {args.rounds} rounds"
    )
    # The cost measured directly, immune to the noise of a busy machine: one idle hook call
    # against one identity call, times the hook points a forward passes through.
    point, x = HookPoint(), torch.zeros(1)
    idle, identity = per_call_ns(point, x), per_call_ns(lambda t: t, x)
    extra_ms = (idle - identity) * n_hooks / 1e6
    print(
        f"direct: idle hook call {idle:.0f} ns, identity call {identity:.0f} ns; "
        f"× {n_hooks} hook points = {extra_ms * 1e3:.1f} µs per forward"
    )
    train = get_preset("baby").train
    for B, T in ((train.batch_size, train.seq_len), (1, 16)):
        ids = torch.randint(0, VOCAB, (B, T))
        (hooked, bare), (fast_hooked, fast_bare) = measure(model, bare_model, ids, args.rounds)
        print(
            f"B={B:<3} T={T:<3} median: hooked {hooked * 1e3:8.3f} ms  bare {bare * 1e3:8.3f} ms  "
            f"ratio {hooked / bare:.4f}   fastest: ratio {fast_hooked / fast_bare:.4f}   "
            f"direct estimate {1 + extra_ms / (fast_bare * 1e3):.4f}"
        )


if __name__ == "__main__":
    main()
