"""The KV cache on its own: cached decoding through the model's one forward vs the uncached loop.

    python bench/kv_cache.py [--reps 3] [--threads 1]

`baby` shape with max_len 512, fused attention, batch 1, greedy, 256 new tokens after a 16-token
prompt. Prints, per repetition, in ms per token: one cached step alone through the model's forward,
the same on a model 8 wide (the same calls with almost no arithmetic: what dispatching them costs),
then the sampler's loops — cached, cached with a no-op hook attached, uncached — and the uncached /
cached ratio.
"""

import argparse
import time
from dataclasses import replace

import torch

from glassformer.config import get_preset
from glassformer.models import GPT
from glassformer.sample import generate_ids

NEW = 256


def decoding_model(vocab: int, **shape) -> tuple[GPT, torch.Tensor, torch.Tensor]:
    """The benchmarks' decoding setup: `baby` with max_len 512, fused attention, a seeded 16-token
    prompt (1, 16) and one token id (1, 1) to feed back. `shape`: other model fields (d_model=8, ...)."""
    torch.manual_seed(0)
    cfg = replace(get_preset("baby").model, vocab_size=vocab, max_len=512, attention="fused", **shape)
    model = GPT(cfg).eval()
    prompt = torch.randint(0, vocab, (1, 16))  # (1, 16)
    return model, prompt, torch.zeros(1, 1, dtype=torch.long)  # (1, 1)


def cached_steps(model: GPT, prompt: torch.Tensor, token: torch.Tensor, n: int, one_token):
    """A function that prefills the cache with the prompt (B, T0), then runs `one_token(ids, cache)` n
    times with ids (B, 1)."""

    def run():
        with torch.no_grad():
            cache = model.new_cache(prompt.size(0))
            model(prompt, cache=cache)
            for _ in range(n):
                one_token(token, cache)

    return run


def per_token(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1e3 / NEW


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    model, prompt, token = decoding_model(84)
    hook = model.hook_points()["logits"]

    def steps(one_token):
        return cached_steps(model, prompt, token, NEW, one_token)

    def loop(use_cache, model_step=False):
        def run():
            if model_step:
                hook.fns.append(lambda t, name: None)
            try:
                list(generate_ids(model, prompt, NEW, temperature=0, use_cache=use_cache))
            finally:
                hook.fns.clear()

        return run

    list(generate_ids(model, prompt, 20, temperature=0))  # warm-up
    # the dispatch floor: the same calls on a model 8 wide (1 head, d_ff 8), almost no arithmetic
    narrow, _, _ = decoding_model(84, d_model=8, n_heads=1, d_ff=8)
    for _ in range(args.reps):
        model_alone = per_token(steps(lambda ids, cache: model(ids, cache=cache)))
        floor = per_token(cached_steps(narrow, prompt, token, NEW, lambda ids, cache: narrow(ids, cache=cache)))
        cached = per_token(loop(True))
        hooked = per_token(loop(True, model_step=True))
        uncached = per_token(loop(False))
        print(
            f"step alone: model {model_alone:.3f} (8 wide: {floor:.3f})   loops: cached {cached:.3f}, "
            f"cached with a hook attached {hooked:.3f}, uncached {uncached:.3f}   "
            f"uncached / cached {uncached / cached:.2f}×"
        )


if __name__ == "__main__":
    main()
