"""Decoding side by side, in one process, contenders interleaved round-robin (medians).

    python bench/decode.py [--rounds 5] [--threads 1] [--cpu-time] [--json bench/runs/decode-one-forward_DATE_N.json]

--cpu-time times each call by this process's CPU seconds instead of the wall clock: on a CPU that
other processes share, their load stretches wall time unevenly between contenders, CPU time far
less (one thread, so CPU seconds are the work done).

`baby` shape (max_len 512, vocab 84, random weights), batch 1, greedy, 256 new tokens after a
16-token prompt:

    glassformer        the sampler's loop (glassformer.sample.generate_ids) with the KV cache,
                       as configured ("glass") and on the fused kernel ("fused")
    hf-generate        transformers' GPT2LMHeadModel of the same shape (built from a config, no
                       download), `generate(do_sample=False, use_cache=True)`
    nanoGPT-style      a minimal GPT written here after nanoGPT's description (GPT-2's blocks,
                       PyTorch's fused attention kernel) and its generate loop: no cache, the whole
                       context (cropped to the block size) through the model for every new token

Batched: `sample(..., num_samples=16)` (one batch, as `glassformer sample --num-samples 16` runs)
against 16 calls of `sample(..., num_samples=1)`, temperature 0.8. The ratios are of medians.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import statistics
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers import (  # noqa: E402  # noqa: E402
    NEW_TOKENS,
    PROMPT,
    SAMPLE_MAX_LEN,
    VOCAB,
    bench_batched_sampling,
    glass_model,
    hf_gpt2,
    model_config,
    round_robin,
)

from glassformer.sample import generate_ids  # noqa: E402


# ---- a nanoGPT-style model and generate loop, written from its description --------------------------
class _Attention(nn.Module):
    def __init__(self, C: int, H: int) -> None:
        super().__init__()
        self.H, self.qkv, self.proj = H, nn.Linear(C, 3 * C, bias=False), nn.Linear(C, C, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.shape
        q, k, v = (
            t.view(B, T, self.H, C // self.H).transpose(1, 2) for t in self.qkv(x).split(C, dim=2)
        )  # (B, H, T, D)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # (B, H, T, D)
        return self.proj(y.transpose(1, 2).reshape(B, T, C))  # (B, T, C)


class _Block(nn.Module):
    def __init__(self, C: int, H: int, F_: int) -> None:
        super().__init__()
        self.ln1, self.attn = nn.LayerNorm(C, bias=False), _Attention(C, H)
        self.ln2 = nn.LayerNorm(C, bias=False)
        self.mlp = nn.Sequential(nn.Linear(C, F_, bias=False), nn.GELU(), nn.Linear(F_, C, bias=False))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x))  # (B, T, C)
        return x + self.mlp(self.ln2(x))  # (B, T, C)


class NanoStyleGPT(nn.Module):
    """Token + learned position embedding, pre-norm blocks, final norm, tied head."""

    def __init__(self, V: int, L: int, C: int, H: int, F_: int, n_layers: int) -> None:
        super().__init__()
        self.block_size = L
        self.wte, self.wpe = nn.Embedding(V, C), nn.Embedding(L, C)
        self.blocks = nn.ModuleList(_Block(C, H, F_) for _ in range(n_layers))
        self.ln_f, self.head = nn.LayerNorm(C, bias=False), nn.Linear(C, V, bias=False)
        self.head.weight = self.wte.weight

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        T = idx.size(1)
        x = self.wte(idx) + self.wpe(torch.arange(T, device=idx.device))  # (B, T, C)
        for block in self.blocks:
            x = block(x)  # (B, T, C)
        return self.head(self.ln_f(x[:, [-1]]))  # (B, 1, V): only the last position at inference

    @torch.no_grad()
    def generate(self, idx: torch.Tensor, max_new_tokens: int) -> torch.Tensor:
        """Greedy: crop to the block size, run the model, take the last position's argmax, append."""
        for _ in range(max_new_tokens):
            cond = idx if idx.size(1) <= self.block_size else idx[:, -self.block_size :]  # (B, ≤L)
            logits = self(cond)[:, -1, :]  # (B, V)
            idx = torch.cat((idx, logits.argmax(dim=-1, keepdim=True)), dim=1)  # (B, T+1)
        return idx


def nano_model() -> NanoStyleGPT:
    c = model_config("baby", SAMPLE_MAX_LEN, "fused")
    return NanoStyleGPT(VOCAB, SAMPLE_MAX_LEN, c.d_model, c.n_heads, c.d_ff, c.n_layers).eval()


def ours(model, prompt: torch.Tensor) -> torch.Tensor:
    new = list(generate_ids(model, prompt, NEW_TOKENS, temperature=0.0))
    return torch.cat([prompt] + [t[:, None] for t in new], dim=1)  # (1, T0 + n)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--cpu-time", action="store_true", help="time by this process's CPU seconds (a shared CPU)")
    ap.add_argument("--json", help="also write the figures to this file (bench/runs/ keeps them)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    glass = glass_model("baby", SAMPLE_MAX_LEN, "glass", "cpu").eval()
    fused = glass_model("baby", SAMPLE_MAX_LEN, "fused", "cpu").eval()
    fused.load_state_dict(glass.state_dict())
    hf, nano = hf_gpt2("baby", SAMPLE_MAX_LEN, "cpu").eval(), nano_model()
    prompt = torch.randint(0, VOCAB, (1, PROMPT), generator=torch.Generator().manual_seed(1))  # (1, 16)
    assert torch.equal(ours(glass, prompt), ours(fused, prompt))  # the same tokens on either attention
    runs = {
        "glassformer (glass)": lambda: ours(glass, prompt),
        "glassformer (fused)": lambda: ours(fused, prompt),
        "hf-generate": lambda: hf.generate(
            prompt,
            max_new_tokens=NEW_TOKENS,
            min_new_tokens=NEW_TOKENS,
            do_sample=False,
            use_cache=True,
            pad_token_id=0,
        ),
        "nanoGPT-style": lambda: nano.generate(prompt, NEW_TOKENS),
    }
    clock = time.process_time if args.cpu_time else time.perf_counter
    times = {n: statistics.median(t) for n, t in round_robin(runs, args.rounds, 1, "cpu", clock).items()}
    cpu = next(
        (
            ln.split(":", 1)[1].strip()
            for ln in Path("/proc/cpuinfo").read_text().splitlines()
            if ln.startswith("model name")
        ),
        platform.processor(),
    )
    clock_name = "CPU time" if args.cpu_time else "wall time"
    print(f"{cpu}, torch {torch.__version__}, {args.threads} thread(s), median of {args.rounds} rounds ({clock_name})")
    print(f"baby, batch 1, greedy, {NEW_TOKENS} new tokens after {PROMPT}:")
    for n, s in times.items():
        print(f"  {n:<22} {1000 * s / NEW_TOKENS:7.3f} ms/token")
    for n in ("glassformer (glass)", "glassformer (fused)"):
        hf_x, nano_x = times["hf-generate"] / times[n], times["nanoGPT-style"] / times[n]
        print(f"  {n}: {hf_x:.2f}× hf-generate, {nano_x:.2f}× nanoGPT-style")
    batched = bench_batched_sampling("cpu", args.rounds)
    one, many = batched["16 one by one"]["s"], batched["16 in one batch"]["s"]
    print(f"16 prompts: one batch {many:.3f} s, one by one {one:.3f} s: {one / many:.2f}×")
    if args.json:
        result = {
            "cpu": cpu,
            "torch": torch.__version__,
            "threads": args.threads,
            "rounds": args.rounds,
            "clock": "cpu" if args.cpu_time else "wall",
            "ms_per_token": {n: 1000 * s / NEW_TOKENS for n, s in times.items()},
            "vs_hf": {n: times["hf-generate"] / times[n] for n in ("glassformer (glass)", "glassformer (fused)")},
            "vs_nanogpt": {
                n: times["nanoGPT-style"] / times[n] for n in ("glassformer (glass)", "glassformer (fused)")
            },
            "batched": {"16 in one batch s": many, "16 one by one s": one, "ratio": one / many},
        }
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
    return 0 if math.isfinite(one) else 1


if __name__ == "__main__":
    sys.exit(main())
