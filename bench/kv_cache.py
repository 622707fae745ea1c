"""The KV cache on its own: cached decoding vs the uncached loop, without other contenders.

    python bench/kv_cache.py [--reps 3]

`baby` shape with max_len 512, fused attention, batch 1, greedy, 256 new tokens after a 16-token
prompt. Prints, per repetition: one cached forward step alone, the cached sampling loop and the
uncached one (ms per token), and their ratio.
"""

import argparse
import time
from dataclasses import replace

import torch

from glassformer.config import get_preset
from glassformer.models import GPT
from glassformer.sample import generate_ids

NEW = 256


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    torch.manual_seed(0)
    model = GPT(replace(get_preset("baby").model, vocab_size=84, max_len=512, attention="fused")).eval()
    prompt = torch.randint(0, 84, (1, 16))  # (1, 16)
    list(generate_ids(model, prompt, 20, temperature=0))  # warm-up
    for _ in range(args.reps):
        with torch.no_grad():
            cache = model.new_cache(1)
            model(prompt, cache=cache)
            token = torch.zeros(1, 1, dtype=torch.long)  # (1, 1)
            t0 = time.perf_counter()
            for _ in range(NEW):
                model(token, cache=cache)
            step = time.perf_counter() - t0
        t0 = time.perf_counter()
        list(generate_ids(model, prompt, NEW, temperature=0, use_cache=True))
        cached = time.perf_counter() - t0
        t0 = time.perf_counter()
        list(generate_ids(model, prompt, NEW, temperature=0, use_cache=False))
        uncached = time.perf_counter() - t0
        print(f"cached forward {step * 1e3 / NEW:.3f} ms/token   cached loop {cached * 1e3 / NEW:.3f}   "
              f"uncached loop {uncached * 1e3 / NEW:.3f}   ratio {uncached / cached:.2f}×")


if __name__ == "__main__":
    main()
