"""glassformer against its peers, in one process, contenders interleaved round-robin.

    python bench/peers.py                 # the `baby` shape on this machine's CPU
    python bench/peers.py --device cuda   # the same on a GPU
    make bench

Training: forward + backward + AdamW step on the `baby` shape (4 layers, 4 heads, d_model 128,
block 64, batch 12, vocab 84), every contender with the same plain torch.optim.AdamW, tokens/s
as the median over the timed steps after warm-up. Machine drift hits everyone alike because
each round runs one step of every contender.

Sampling: 256 new tokens from a 16-token prompt, batch 1, greedy, with n_positions / max_len 512.

Peak memory: each contender's training (and sampling) is re-run in a child process and the rise
of its peak resident set (CPU) or torch.cuda.max_memory_allocated (GPU) over a baseline taken
after imports is reported; one process per contender is the only way to separate peaks.

Achieved fraction of the machine: the sustained fp32 matmul rate is measured in the same run,
and each training contender's model FLOP/s = tokens/s × (6·N + 12·n_layers·C·T) (Kaplan et al.
2020 / PaLM appendix B: 6 FLOPs per parameter per token for forward + backward, plus attention).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import replace

import torch

from glassformer.config import get_preset
from glassformer.models import GPT
from glassformer.nn.loss import next_token_loss

VOCAB, PROMPT, NEW_TOKENS, SAMPLE_MAX_LEN = 84, 16, 256, 512


def model_config(max_len: int, attention: str):
    return replace(get_preset("baby").model, vocab_size=VOCAB, max_len=max_len, attention=attention)


def hf_gpt2(max_len: int, device: str):
    """transformers' GPT-2 with the baby shape, random weights, no download."""
    import logging

    from transformers import GPT2Config, GPT2LMHeadModel
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    logging.getLogger("transformers").setLevel(logging.ERROR)
    shape = model_config(max_len, "glass")
    cfg = GPT2Config(vocab_size=VOCAB, n_positions=max_len, n_embd=shape.d_model, n_layer=shape.n_layers,
                     n_head=shape.n_heads, n_inner=shape.d_ff, resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
                     bos_token_id=0, eos_token_id=0, pad_token_id=0)
    return GPT2LMHeadModel(cfg).to(device)


def training_contenders(device: str, block: int, compile_too: bool) -> dict:
    """name -> (model, logits_fn). All share one recipe: plain AdamW, the same batch."""
    out = {}
    for name, attention in (("glass", "glass"), ("fused", "fused")):
        m = GPT(model_config(block, attention)).to(device)
        out[name] = (m, m)
    if compile_too:
        m = GPT(model_config(block, "fused")).to(device)
        try:
            compiled = torch.compile(m)
            x = torch.randint(0, VOCAB, (2, block), device=device)
            next_token_loss(compiled(x), x).backward()  # compile now, not inside the timing
            out["fused+compile"] = (m, compiled)
        except Exception as e:  # noqa: BLE001 - any compiler failure means "skip", said out loud
            print(f"[skip] fused+compile: torch.compile does not work here ({type(e).__name__}: "
                  f"{str(e).splitlines()[0][:120]})")
    hf = hf_gpt2(block, device)
    out["hf-gpt2"] = (hf, lambda x: hf(x).logits)
    return out


def sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def bench_training(device: str, steps: int, warmup: int, compile_too: bool) -> dict:
    train = get_preset("baby").train
    B, T = train.batch_size, train.block_size
    contenders = training_contenders(device, T, compile_too)
    opts = {n: torch.optim.AdamW(m.parameters(), lr=1e-3) for n, (m, _) in contenders.items()}
    g = torch.Generator().manual_seed(0)
    x = torch.randint(0, VOCAB, (B, T), generator=g).to(device)  # (B, T)
    y = torch.randint(0, VOCAB, (B, T), generator=g).to(device)  # (B, T)
    times = {n: [] for n in contenders}
    for step in range(warmup + steps):
        for name, (model, fn) in contenders.items():  # round-robin: drift hits all alike
            sync(device)
            t0 = time.perf_counter()
            loss = next_token_loss(fn(x), y)
            opts[name].zero_grad(set_to_none=True)
            loss.backward()
            opts[name].step()
            sync(device)
            if step >= warmup:
                times[name].append(time.perf_counter() - t0)
    rows = {}
    for name, (model, _) in contenders.items():
        n_params = sum(p.numel() for p in model.parameters())
        ms = statistics.median(times[name]) * 1000
        cfg = model_config(T, "glass")  # every contender has the baby shape
        flops_per_token = 6 * n_params + 12 * cfg.n_layers * cfg.d_model * T
        rows[name] = {"ms_per_step": ms, "tokens_per_s": B * T / (ms / 1000), "params": n_params,
                      "flops_per_token": flops_per_token}
    return rows


@torch.no_grad()
def greedy_glass(model, prompt: torch.Tensor, n: int, use_cache: bool) -> torch.Tensor:
    """The sampler's own greedy loop (glassformer.sample), with or without its KV cache."""
    from glassformer.sample import generate_ids

    new = generate_ids(model, prompt, n, temperature=0.0, use_cache=use_cache)
    return torch.cat([prompt] + [t[:, None] for t in new], dim=1)  # (1, T0 + n)


def bench_sampling(device: str, rounds: int) -> dict:
    torch.manual_seed(0)
    glass = GPT(model_config(SAMPLE_MAX_LEN, "fused")).to(device).eval()
    hf = hf_gpt2(SAMPLE_MAX_LEN, device).eval()
    prompt = torch.randint(0, VOCAB, (1, PROMPT), generator=torch.Generator().manual_seed(1)).to(device)
    contenders = {
        "glass-no-cache": lambda: greedy_glass(glass, prompt, NEW_TOKENS, use_cache=False),
        "glass-kv-cache": lambda: greedy_glass(glass, prompt, NEW_TOKENS, use_cache=True),
        "hf-generate": lambda: hf.generate(prompt, max_new_tokens=NEW_TOKENS, min_new_tokens=NEW_TOKENS,
                                           do_sample=False, use_cache=True, pad_token_id=0),
    }
    times = {n: [] for n in contenders}
    for r in range(rounds + 1):
        for name, fn in contenders.items():
            sync(device)
            t0 = time.perf_counter()
            out = fn()
            sync(device)
            assert out.shape[1] == PROMPT + NEW_TOKENS, (name, out.shape)
            if r:  # round 0 is warm-up
                times[name].append(time.perf_counter() - t0)
    return {n: {"s_per_256": statistics.median(t), "tokens_per_s": NEW_TOKENS / statistics.median(t)}
            for n, t in times.items()}


def matmul_gflops(device: str, n: int = 1024, reps: int = 20) -> float:
    """Sustained fp32 matmul rate: median of `reps` n×n products."""
    a, b = torch.randn(n, n, device=device), torch.randn(n, n, device=device)
    for _ in range(3):
        a @ b
    ts = []
    for _ in range(reps):
        sync(device)
        t0 = time.perf_counter()
        a @ b
        sync(device)
        ts.append(time.perf_counter() - t0)
    return 2 * n ** 3 / statistics.median(ts) / 1e9


def peak_memory_child(kind: str, name: str, device: str) -> float:
    """Run one contender alone in a child process; return its peak memory rise in MiB."""
    code = (
        "import sys, resource, torch, json; sys.path.insert(0, 'bench'); import peers;"
        f"print(json.dumps(peers._peak_in_this_process({kind!r}, {name!r}, {device!r})))"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.path.dirname(__file__)] + sys.path)}
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if res.returncode != 0:
        return float("nan")
    return float(res.stdout.strip().splitlines()[-1])


def _rss_mib() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):  # peak resident set so far
                return int(line.split()[1]) / 1024
    return float("nan")


def _reset_peak() -> None:
    try:  # Linux: writing 5 to clear_refs resets VmHWM to the current RSS
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def _peak_in_this_process(kind: str, name: str, device: str) -> float:
    import transformers  # noqa: F401 - same baseline for every contender

    torch.manual_seed(0)
    if device == "cuda":
        torch.cuda.reset_peak_memory_stats()
    _reset_peak()
    base = _rss_mib()
    if kind == "train":
        train = get_preset("baby").train
        B, T = train.batch_size, train.block_size
        if name == "hf-gpt2":
            m = hf_gpt2(T, device)
            fn = lambda x: m(x).logits  # noqa: E731
        else:
            m = GPT(model_config(T, "glass" if name == "glass" else "fused")).to(device)
            fn = torch.compile(m) if name == "fused+compile" else m
        opt = torch.optim.AdamW(m.parameters(), lr=1e-3)
        x = torch.randint(0, VOCAB, (B, T), device=device)
        for _ in range(3):
            loss = next_token_loss(fn(x), x)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
    else:
        prompt = torch.randint(0, VOCAB, (1, PROMPT), device=device)
        if name == "hf-generate":
            m = hf_gpt2(SAMPLE_MAX_LEN, device).eval()
            m.generate(prompt, max_new_tokens=NEW_TOKENS, do_sample=False, use_cache=True, pad_token_id=0)
        else:
            m = GPT(model_config(SAMPLE_MAX_LEN, "fused")).to(device).eval()
            greedy_glass(m, prompt, NEW_TOKENS, use_cache=(name == "glass-kv-cache"))
    if device == "cuda":
        return torch.cuda.max_memory_allocated() / 2 ** 20
    return _rss_mib() - base


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--steps", type=int, default=30, help="timed training steps per contender")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--sample-rounds", type=int, default=3)
    ap.add_argument("--no-compile", action="store_true", help="skip the torch.compile contender")
    ap.add_argument("--no-memory", action="store_true", help="skip the per-contender memory runs")
    ap.add_argument("--json", default="bench/peers.json")
    args = ap.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        print("--device cuda: no CUDA device here.", file=sys.stderr)
        return 2

    gflops = matmul_gflops(args.device)
    train = bench_training(args.device, args.steps, args.warmup, not args.no_compile)
    sample = bench_sampling(args.device, args.sample_rounds)
    gflops = (gflops + matmul_gflops(args.device)) / 2  # before and after, averaged
    if not args.no_memory:
        for name in train:
            train[name]["peak_mib"] = peak_memory_child("train", name, args.device)
        for name in sample:
            sample[name]["peak_mib"] = peak_memory_child("sample", name, args.device)

    hf_t, hf_s = train["hf-gpt2"]["tokens_per_s"], sample["hf-generate"]["tokens_per_s"]
    print(f"\nmachine: {args.device}, torch {torch.__version__}, {torch.get_num_threads()} threads, "
          f"fp32 matmul {gflops:.1f} GFLOP/s (1024×1024, median)")
    print(f"\ntraining, baby shape, B={get_preset('baby').train.batch_size} T={get_preset('baby').train.block_size}")
    print(f"{'contender':<16}{'ms/step':>9}{'tokens/s':>11}{'vs HF':>8}{'% of matmul peak':>18}{'peak MiB':>10}")
    for name, r in train.items():
        r["vs_hf"] = r["tokens_per_s"] / hf_t
        r["fraction_of_peak"] = r["tokens_per_s"] * r["flops_per_token"] / (gflops * 1e9)
        print(f"{name:<16}{r['ms_per_step']:>9.1f}{r['tokens_per_s']:>11.0f}{r['vs_hf']:>7.2f}×"
              f"{100 * r['fraction_of_peak']:>17.1f}%{r.get('peak_mib', float('nan')):>10.1f}")
    print(f"\nsampling, {NEW_TOKENS} new tokens from a {PROMPT}-token prompt, batch 1, greedy, max_len {SAMPLE_MAX_LEN}")
    print(f"{'contender':<16}{'s':>9}{'tokens/s':>11}{'vs HF':>8}{'peak MiB':>10}")
    for name, r in sample.items():
        r["vs_hf"] = r["tokens_per_s"] / hf_s
        print(f"{name:<16}{r['s_per_256']:>9.3f}{r['tokens_per_s']:>11.0f}{r['vs_hf']:>7.2f}×"
              f"{r.get('peak_mib', float('nan')):>10.1f}")
    cache_speedup = sample["glass-kv-cache"]["tokens_per_s"] / sample["glass-no-cache"]["tokens_per_s"]
    print(f"\nKV cache vs no cache: {cache_speedup:.2f}×")
    result = {"device": args.device, "torch": torch.__version__, "threads": torch.get_num_threads(),
              "matmul_gflops": gflops, "training": train, "sampling": sample,
              "kv_cache_speedup": cache_speedup}
    with open(args.json, "w") as f:
        json.dump(result, f, indent=2)
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
