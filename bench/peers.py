"""glassformer against its peers, in one process, contenders interleaved round-robin.

    python bench/peers.py                        # baby and small shapes on this machine's CPU, 1 thread
    python bench/peers.py --threads 2            # the same on two cores
    python bench/peers.py --compile              # add the torch.compile contenders (minutes to compile)
    python bench/peers.py --device cuda          # the same on a GPU
    python bench/peers.py --nanogpt DIR          # adds nanoGPT's model.py from a clone of karpathy/nanoGPT
    python bench/peers.py --dry-run              # every part once, tiny: checks the script (gpu_check.sh)
    python bench/peers.py --parts sampling,batched --no-memory   # only the decoding parts (seconds, not minutes)
    make bench

Training: forward + backward + optimizer step. Shapes: `baby` (4 layers, 4 heads, d_model 128, block
64, batch 12) and `small` (6 layers, 6 heads, d_model 384, block 256, batch 4: the preset's 64 would
make one step take seconds here), vocab 84. Each contender uses its library's default optimizer,
which is the same kernel for all: glassformer's build_optimizer and the HF Trainer's default
("adamw_torch_fused" since torch 2.8) are both torch.optim.AdamW(fused=True). HF is
transformers.GPT2LMHeadModel built from a config of the same shape (random weights, no download,
dropout 0 like ours). tokens/s is the median over the timed steps after warm-up; machine drift hits
everyone alike because each round runs one step of every contender, the order reversed every
other round.

Sampling (`baby` shape, max_len 512): 256 new tokens from a 16-token prompt, batch 1, greedy, with
no cache, with the KV cache through the model's own forward (the default), the same with a no-op
hook attached, and HF's generate. Batched sampling: `sample(..., num_samples=16)` (one batch, as `glassformer sample
--num-samples 16` runs) against 16 calls of `sample(..., num_samples=1)`, temperature 0.8.

Contenders "glass bf16" and "fused bf16" are the same models under autocast to bfloat16 (what
`--dtype=bfloat16` does). Achieved fraction of the machine (MFU): the fp32 and bf16 matmul rates
(1024² products, glassformer.devices.matmul_call) are timed as entries of the same rounds, so they
see the same drift as the steps; model FLOP/s = tokens/s × glassformer.devices.flops_per_token
(6·N + 12·n_layers·C·T, N the parameters in matrix products: Kaplan et al. 2020 / PaLM appendix B),
the same FLOPs per token for every contender, divided by the peak of the contender's dtype. Batch-1
decoding: the bytes a step must read (every weight once, the KV cache to its mean position) ×
tokens/s over the bandwidth of a 64 MiB copy timed in the same rounds.

Peak memory: each contender re-run alone in a child process; the rise of its peak resident set (CPU)
or torch.cuda.max_memory_allocated (GPU) over a baseline taken after imports.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from dataclasses import replace

import torch

from glassformer.config import get_preset
from glassformer.devices import DEFAULT_THREADS, copy_call, decode_bytes_per_token, matmul_call, model_flops_per_token
from glassformer.files import json_text
from glassformer.models import GPT
from glassformer.nn.loss import next_token_loss
from glassformer.sample import generate_ids, sample
from glassformer.text.tokenizers import CharTokenizer
from glassformer.train.loop import build_optimizer

VOCAB, PROMPT, NEW_TOKENS, SAMPLE_MAX_LEN, N_SAMPLES = 84, 16, 256, 512, 16
SHAPES = {"baby": 12, "small": 4}  # shape (a preset) -> training batch
PEAKS = {"float32": "fp32 matmul 1024²", "bfloat16": "bf16 matmul 1024²"}  # entries timed in the rounds
COPY = "64 MiB copy"
PARTS = ("training", "sampling", "batched")  # --parts: training per shape, batch-1 decoding, batched sampling


def model_config(shape: str, max_len: int, attention: str):
    return replace(get_preset(shape).model, vocab_size=VOCAB, max_len=max_len, attention=attention, dropout=0.0)


def hf_gpt2(shape: str, max_len: int, device: str):
    """transformers' GPT-2 with the shape of a preset, random weights, no download."""
    import logging

    from transformers import GPT2Config, GPT2LMHeadModel
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    logging.getLogger("transformers").setLevel(logging.ERROR)
    c = model_config(shape, max_len, "glass")
    cfg = GPT2Config(
        vocab_size=VOCAB,
        n_positions=max_len,
        n_embd=c.d_model,
        n_layer=c.n_layers,
        n_head=c.n_heads,
        n_inner=c.d_ff,
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        attn_pdrop=0.0,
        bos_token_id=0,
        eos_token_id=0,
        pad_token_id=0,
    )
    return GPT2LMHeadModel(cfg).to(device)


def nanogpt_model(path: str, shape: str, max_len: int, device: str):
    """nanoGPT's model.py (a clone of github.com/karpathy/nanoGPT named by --nanogpt), the preset's
    shape, its own init; returned with its own optimizer (configure_optimizers: on a CPU the for-each
    AdamW of its CPU recipe). Imported from the clone at run time, never copied here."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("nanogpt_model", os.path.join(path, "model.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    c = model_config(shape, max_len, "fused")
    cfg = module.GPTConfig(
        block_size=max_len,
        vocab_size=VOCAB,
        n_layer=c.n_layers,
        n_head=c.n_heads,
        n_embd=c.d_model,
        dropout=0.0,
        bias=c.bias,
    )
    model = module.GPT(cfg).to(device)
    train = get_preset(shape).train
    opt = model.configure_optimizers(train.weight_decay, 1e-3, (train.beta1, train.beta2), torch.device(device).type)
    return model, opt


def glass_model(shape: str, max_len: int, attention: str, device: str) -> GPT:
    return GPT(model_config(shape, max_len, attention)).to(device)


def our_optimizer(model: GPT, shape: str, device: str) -> torch.optim.Optimizer:
    return build_optimizer(model, replace(get_preset(shape).train, device=device))


def hf_optimizer(model, device: str) -> torch.optim.Optimizer:
    return torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)  # HF Trainer's default


def bf16(fn, device: str):
    """fn under autocast to bfloat16 (what `--dtype=bfloat16` does in train/loop.py); logits in float32."""

    def run(x):
        with torch.autocast(torch.device(device).type, dtype=torch.bfloat16):
            return fn(x).float()  # (B, T, V)

    return run


def training_contenders(shape: str, device: str, compile_too: bool, nanogpt: str | None = None) -> dict:
    """name -> (model, logits_fn, optimizer, dtype)."""
    T = get_preset(shape).train.seq_len
    out = {}
    for attention in ("glass", "fused"):
        m = glass_model(shape, T, attention, device)
        out[attention] = (m, m, our_optimizer(m, shape, device), "float32")
    for attention in ("glass", "fused"):
        m = glass_model(shape, T, attention, device)
        out[f"{attention} bf16"] = (m, bf16(m, device), our_optimizer(m, shape, device), "bfloat16")
    if compile_too:
        for attention in ("fused", "glass"):
            m = glass_model(shape, T, attention, device)
            try:
                compiled = torch.compile(m)
                x = torch.randint(0, VOCAB, (2, T), device=device)
                t0 = time.perf_counter()
                next_token_loss(compiled(x), x).backward()  # compile now, not inside the timing
                print(f"[{shape}] compiled the {attention} model in {time.perf_counter() - t0:.0f} s")
                out[f"{attention}+compile"] = (m, compiled, our_optimizer(m, shape, device), "float32")
            except Exception as e:  # noqa: BLE001 - any compiler failure means "skip", said out loud
                print(
                    f"[skip] {attention}+compile: torch.compile does not work here ({type(e).__name__}: "
                    f"{str(e).splitlines()[0][:120]})"
                )
    if nanogpt:
        ng, ng_opt = nanogpt_model(nanogpt, shape, T, device)
        out["nanogpt"] = (ng, lambda x: ng(x, x)[0], ng_opt, "float32")  # with targets: logits at every position
    hf = hf_gpt2(shape, T, device)
    out["hf-gpt2"] = (hf, lambda x: hf(x).logits, hf_optimizer(hf, device), "float32")
    return out


def sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def round_robin(
    contenders: dict, rounds: int, warmup: int, device: str, clock=time.perf_counter
) -> dict[str, list[float]]:
    """Seconds per call of each contender, one call each per round, order reversed every other round.
    `clock`: wall time, or time.process_time for this process's CPU seconds (one thread on a shared CPU)."""
    names, times = list(contenders), {n: [] for n in contenders}
    for r in range(warmup + rounds):
        for name in names if r % 2 == 0 else names[::-1]:
            sync(device)
            t0 = clock()
            contenders[name]()
            sync(device)
            if r >= warmup:
                times[name].append(clock() - t0)
    return times


def flops_per_token(shape: str) -> int:
    """Model FLOPs per training token, the same for every contender: glassformer.devices.flops_per_token
    (6·N + 12·L·C·T) of the preset's model."""
    T = get_preset(shape).train.seq_len
    return model_flops_per_token(GPT(model_config(shape, T, "glass")), T)


def bench_training(
    shape: str, device: str, steps: int, warmup: int, compile_too: bool, nanogpt: str | None = None
) -> dict:
    B, T = SHAPES[shape], get_preset(shape).train.seq_len
    contenders = training_contenders(shape, device, compile_too, nanogpt)
    g = torch.Generator().manual_seed(0)
    x = torch.randint(0, VOCAB, (B, T), generator=g).to(device)  # (B, T)
    y = torch.randint(0, VOCAB, (B, T), generator=g).to(device)  # (B, T)

    def step_of(fn, opt):
        def step():
            loss = next_token_loss(fn(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()

        return step

    runs = {n: step_of(fn, opt) for n, (_, fn, opt, _) in contenders.items()}
    flops = {}
    for dtype, entry in PEAKS.items():  # the machine's rates, timed in the same rounds (same drift)
        runs[entry], flops[entry] = matmul_call(getattr(torch, dtype), device)
    times = round_robin(runs, steps, warmup, device)
    rows = {entry: {"gflops": flops[entry] / statistics.median(times.pop(entry)) / 1e9} for entry in PEAKS.values()}
    for name, ts in times.items():
        ms = statistics.median(ts) * 1000
        rows[name] = {
            "ms_per_step": ms,
            "tokens_per_s": B * T / (ms / 1000),
            "ms_min": min(ts) * 1000,
            "ms_max": max(ts) * 1000,
            "dtype": contenders[name][3],
        }
    return rows


def greedy(model, prompt: torch.Tensor, n: int, use_cache: bool, model_step: bool = False) -> torch.Tensor:
    """The sampler's own greedy loop (glassformer.sample). model_step: a no-op hook is attached (what
    watching the model while it writes costs)."""
    hook = model.hook_points()["logits"]
    if model_step:
        hook.fns.append(lambda t, name: None)
    try:
        new = list(generate_ids(model, prompt, n, temperature=0.0, use_cache=use_cache))
    finally:
        if model_step:
            hook.fns.pop()
    return torch.cat([prompt] + [t[:, None] for t in new], dim=1)  # (1, T0 + n)


def bench_sampling(device: str, rounds: int) -> dict:
    torch.manual_seed(0)
    glass = glass_model("baby", SAMPLE_MAX_LEN, "fused", device).eval()
    hf = hf_gpt2("baby", SAMPLE_MAX_LEN, device).eval()
    prompt = torch.randint(0, VOCAB, (1, PROMPT), generator=torch.Generator().manual_seed(1)).to(device)

    def check(name, fn):
        def run():
            out = fn()
            assert out.shape[1] == PROMPT + NEW_TOKENS, (name, out.shape)

        return run

    contenders = {
        "no-cache": lambda: greedy(glass, prompt, NEW_TOKENS, use_cache=False),
        "kv-cache, a hook attached": lambda: greedy(glass, prompt, NEW_TOKENS, use_cache=True, model_step=True),
        "kv-cache": lambda: greedy(glass, prompt, NEW_TOKENS, use_cache=True),
        "hf-generate": lambda: hf.generate(
            prompt,
            max_new_tokens=NEW_TOKENS,
            min_new_tokens=NEW_TOKENS,
            do_sample=False,
            use_cache=True,
            pad_token_id=0,
        ),
    }
    runs = {n: check(n, fn) for n, fn in contenders.items()}
    runs[COPY], moved = copy_call(device)  # the memory bandwidth, timed in the same rounds
    times = round_robin(runs, rounds, 1, device)
    bandwidth = moved / statistics.median(times.pop(COPY))  # bytes/s
    # bytes a batch-1 step must read: every weight once, and the KV cache up to its position (K and V,
    # every layer, the average position of the generation), all float32
    c = glass.cfg
    kv = 2 * c.n_layers * c.d_model * 4 * (PROMPT + NEW_TOKENS / 2)
    per_token = decode_bytes_per_token(glass) + kv
    out = {
        n: {
            "s_per_256": statistics.median(t),
            "ms_per_token": 1000 * statistics.median(t) / NEW_TOKENS,
            "tokens_per_s": NEW_TOKENS / statistics.median(t),
            "s_min": min(t),
            "s_max": max(t),
            "bandwidth_utilisation": per_token * NEW_TOKENS / statistics.median(t) / bandwidth,
        }
        for n, t in times.items()
    }
    out["memory"] = {"bandwidth_gbs": bandwidth / 1e9, "bytes_per_token": per_token}
    return out


def bench_batched_sampling(device: str, rounds: int) -> dict:
    """16 samples in one batch vs one by one, through sample() as the CLI calls it."""
    torch.manual_seed(0)
    model = glass_model("baby", SAMPLE_MAX_LEN, "glass", device).eval()
    tokenizer = CharTokenizer([chr(32 + i) for i in range(VOCAB)])  # 84 printable characters
    prompt = "ROMEO: O, SPEAK AGAIN"  # every character within the 84 (codes 32..115)

    def batched():
        texts = sample(model, tokenizer, prompt, NEW_TOKENS, temperature=0.8, num_samples=N_SAMPLES, seed=0)
        assert len(texts) == N_SAMPLES and all(len(t) == NEW_TOKENS for t in texts)

    def one_by_one():
        for i in range(N_SAMPLES):
            (text,) = sample(model, tokenizer, prompt, NEW_TOKENS, temperature=0.8, num_samples=1, seed=i)
            assert len(text) == NEW_TOKENS

    times = round_robin({"16 in one batch": batched, "16 one by one": one_by_one}, rounds, 1, device)
    tokens = N_SAMPLES * NEW_TOKENS
    return {
        n: {"s": statistics.median(t), "tokens_per_s": tokens / statistics.median(t), "s_min": min(t), "s_max": max(t)}
        for n, t in times.items()
    }


# ---- peak memory, one contender per child process ----------------------------------------------
def peak_memory_child(kind: str, name: str, shape: str, device: str, threads: int) -> float:
    """Run one contender alone in a child process; return its peak memory rise in MiB."""
    code = (
        "import sys, json, torch; sys.path.insert(0, 'bench'); import peers;"
        f"torch.set_num_threads({threads or torch.get_num_threads()});"
        f"print(json.dumps(peers._peak_in_this_process({kind!r}, {name!r}, {shape!r}, {device!r})))"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.path.dirname(__file__)] + sys.path)}
    res = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
    )
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


def _peak_in_this_process(kind: str, name: str, shape: str, device: str) -> float:
    import transformers  # noqa: F401 - same baseline for every contender

    torch.manual_seed(0)
    if device == "cuda":
        torch.cuda.reset_peak_memory_stats()
    _reset_peak()
    base = _rss_mib()
    if kind == "train":
        B, T = SHAPES[shape], get_preset(shape).train.seq_len
        if name == "hf-gpt2":
            m = hf_gpt2(shape, T, device)
            fn, opt = (lambda x: m(x).logits), hf_optimizer(m, device)
        else:
            m = glass_model(shape, T, name.split("+")[0], device)
            fn, opt = (torch.compile(m) if name.endswith("+compile") else m), our_optimizer(m, shape, device)
        x = torch.randint(0, VOCAB, (B, T), device=device)
        for _ in range(3):
            loss = next_token_loss(fn(x), x)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
    else:
        prompt = torch.randint(0, VOCAB, (1, PROMPT), device=device)
        if name == "hf-generate":
            m = hf_gpt2("baby", SAMPLE_MAX_LEN, device).eval()
            m.generate(prompt, max_new_tokens=NEW_TOKENS, do_sample=False, use_cache=True, pad_token_id=0)
        else:
            m = glass_model("baby", SAMPLE_MAX_LEN, "fused", device).eval()
            greedy(m, prompt, NEW_TOKENS, use_cache=name != "no-cache", model_step=name.endswith("model step"))
    if device == "cuda":
        return torch.cuda.max_memory_allocated() / 2**20
    return _rss_mib() - base


# ---- report ----------------------------------------------------------------------------------------
def _train(shape: str, name: str, key: str):
    return lambda r: r["shapes"][shape]["training"][name][key]


TARGETS = [  # (what, value from the results, bar, higher is better?)
    ("fused bf16 training vs nanoGPT fp32, baby", _train("baby", "fused bf16", "vs_nanogpt"), 1.15, True),
    ("fused bf16 training vs nanoGPT fp32, small", _train("small", "fused bf16", "vs_nanogpt"), 2.0, True),
    ("fused bf16 MFU (of the bf16 peak), small", _train("small", "fused bf16", "fraction_of_peak"), 0.5, True),
    ("glass bf16 training vs nanoGPT fp32, baby", _train("baby", "glass bf16", "vs_nanogpt"), 1.15, True),
    ("glass bf16 training vs nanoGPT fp32, small", _train("small", "glass bf16", "vs_nanogpt"), 2.0, True),
    ("glass bf16 MFU (of the bf16 peak), small", _train("small", "glass bf16", "fraction_of_peak"), 0.5, True),
    ("fused training vs HF, baby", _train("baby", "fused", "vs_hf"), 1.4, True),
    ("fused training vs HF, small", _train("small", "fused", "vs_hf"), 1.25, True),
    ("fused model FLOP/s of matmul peak, baby", _train("baby", "fused", "fraction_of_peak"), 0.8, True),
    ("fused model FLOP/s of matmul peak, small", _train("small", "fused", "fraction_of_peak"), 0.8, True),
    ("glass / fused training, baby", _train("baby", "glass", "vs_fused"), 0.85, True),
    ("glass / fused training, small", _train("small", "glass", "vs_fused"), 0.85, True),
    ("cached decoding ms per token, batch 1", lambda r: r["sampling"]["kv-cache"]["ms_per_token"], 0.4, False),
    ("cached decoding vs HF generate", lambda r: r["sampling"]["kv-cache"]["vs_hf"], 2.5, True),
    (
        "16 samples in one batch vs one by one",
        lambda r: r["batched_sampling"]["16 in one batch"]["vs_one_by_one"],
        8.0,
        True,
    ),
]


def print_training(shape: str, res: dict) -> None:
    B, T = SHAPES[shape], get_preset(shape).train.seq_len
    print(
        f"\ntraining, {shape} shape, B={B} T={T}, {res['flops_per_token']:,} FLOPs/token; matmul peak: fp32 "
        f"{res['matmul_gflops']:.1f}, bf16 {res['bf16_matmul_gflops']:.1f} GFLOP/s"
    )
    print(
        f"{'contender':<16}{'ms/step':>9}{'tokens/s':>11}{'vs HF':>8}{'vs nanoGPT':>11}{'GFLOP/s':>9}"
        f"{'MFU':>7} {'of':<9}{'peak MiB':>9}"
    )
    for name, r in res["training"].items():
        print(
            f"{name:<16}{r['ms_per_step']:>9.1f}{r['tokens_per_s']:>11.0f}{r['vs_hf']:>7.2f}×"
            f"{r.get('vs_nanogpt', float('nan')):>10.2f}×{r['model_gflops']:>9.1f}"
            f"{100 * r['fraction_of_peak']:>6.1f}% {r['dtype']:<9}{r.get('peak_mib', float('nan')):>9.1f}"
        )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument(
        "--threads",
        type=int,
        default=DEFAULT_THREADS,
        help=f"torch threads on a CPU (default {DEFAULT_THREADS} like the CLI, glassformer/devices.py; "
        "0 = torch's choice)",
    )
    ap.add_argument("--shapes", default="baby,small", help="comma-separated: baby, small")
    ap.add_argument(
        "--parts",
        default=",".join(PARTS),
        help=f"comma-separated, which parts to run: {', '.join(PARTS)} (default all)",
    )
    ap.add_argument("--steps", type=int, default=30, help="timed training steps per contender")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--sample-rounds", type=int, default=3)
    ap.add_argument("--compile", action="store_true", help="add the torch.compile contenders")
    ap.add_argument("--no-memory", action="store_true", help="skip the per-contender memory runs")
    ap.add_argument("--json", default="bench/peers.json")
    ap.add_argument("--nanogpt", default=None, metavar="DIR", help="a clone of karpathy/nanoGPT: adds its model.py")
    ap.add_argument(
        "--dry-run",
        action="store_true",
        help="every part once, tiny (1 step, 8 tokens, baby): checks the script, not the speed",
    )
    args = ap.parse_args()
    if args.dry_run:
        global NEW_TOKENS
        NEW_TOKENS, args.steps, args.warmup, args.sample_rounds, args.no_memory = 8, 1, 0, 1, True
    if args.device == "cuda" and not torch.cuda.is_available():
        print(
            "--device cuda: torch sees no CUDA device here (torch.cuda.is_available() is False; this "
            f"torch is {torch.__version__}). Run on a machine with a GPU and a CUDA build of torch, "
            "or drop --device cuda.",
            file=sys.stderr,
        )
        return 2
    shapes = [s.strip() for s in args.shapes.split(",") if s.strip()]
    unknown = [s for s in shapes if s not in SHAPES]
    if unknown:
        print(f"--shapes: unknown {unknown}; choose from {list(SHAPES)}", file=sys.stderr)
        return 2
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    if [p for p in parts if p not in PARTS]:
        print(f"--parts: unknown {[p for p in parts if p not in PARTS]}; choose from {list(PARTS)}", file=sys.stderr)
        return 2
    if "training" not in parts:
        shapes = []
    if args.threads:  # 0: torch's own choice (every core)
        torch.set_num_threads(args.threads)

    result = {
        "device": args.device,
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "cpu": platform.processor() or platform.machine(),
        "shapes": {},
    }
    if args.device == "cuda":
        result["gpu"] = torch.cuda.get_device_name()
    for shape in shapes:
        train = bench_training(shape, args.device, args.steps, args.warmup, args.compile, args.nanogpt)
        peaks = {dtype: train.pop(entry)["gflops"] for dtype, entry in PEAKS.items()}
        fpt = flops_per_token(shape)
        for name, r in train.items():
            r["vs_hf"] = r["tokens_per_s"] / train["hf-gpt2"]["tokens_per_s"]
            r["vs_fused"] = r["tokens_per_s"] / train["fused"]["tokens_per_s"]
            if "nanogpt" in train:
                r["vs_nanogpt"] = r["tokens_per_s"] / train["nanogpt"]["tokens_per_s"]
            r["model_gflops"] = r["tokens_per_s"] * fpt / 1e9
            r["fraction_of_peak"] = r["model_gflops"] / peaks[r["dtype"]]  # MFU against the matching peak
            if not args.no_memory and name in ("glass", "fused", "glass+compile", "fused+compile", "hf-gpt2"):
                r["peak_mib"] = peak_memory_child("train", name, shape, args.device, args.threads)
        result["shapes"][shape] = {
            "batch": SHAPES[shape],
            "block": get_preset(shape).train.seq_len,
            "matmul_gflops": peaks["float32"],
            "bf16_matmul_gflops": peaks["bfloat16"],
            "flops_per_token": fpt,
            "training": train,
        }
        print_training(shape, result["shapes"][shape])

    if "sampling" in parts:
        samp = bench_sampling(args.device, args.sample_rounds)
        memory = samp.pop("memory")
        for name, r in samp.items():
            r["vs_hf"] = r["tokens_per_s"] / samp["hf-generate"]["tokens_per_s"]
            if not args.no_memory:
                r["peak_mib"] = peak_memory_child("sample", name, "baby", args.device, args.threads)
        result["sampling"], result["decode_memory"] = samp, memory
        print(
            f"\nsampling, baby shape, {NEW_TOKENS} new tokens from a {PROMPT}-token prompt, batch 1, greedy, "
            f"max_len {SAMPLE_MAX_LEN}; memory bandwidth {memory['bandwidth_gbs']:.1f} GB/s, "
            f"{memory['bytes_per_token'] / 2**20:.2f} MiB read per token at least"
        )
        print(f"{'contender':<24}{'ms/token':>9}{'tokens/s':>11}{'vs HF':>8}{'of bandwidth':>13}{'peak MiB':>10}")
        for name, r in samp.items():
            print(
                f"{name:<24}{r['ms_per_token']:>9.3f}{r['tokens_per_s']:>11.0f}{r['vs_hf']:>7.2f}×"
                f"{100 * r['bandwidth_utilisation']:>12.1f}%{r.get('peak_mib', float('nan')):>10.1f}"
            )

    if "batched" in parts:
        batched = bench_batched_sampling(args.device, args.sample_rounds)
        for r in batched.values():
            r["vs_one_by_one"] = r["tokens_per_s"] / batched["16 one by one"]["tokens_per_s"]
        result["batched_sampling"] = batched
        print(f"\nbatched sampling, {N_SAMPLES} samples × {NEW_TOKENS} tokens, temperature 0.8, through sample()")
        for name, r in batched.items():
            print(f"{name:<24}{r['s']:>8.2f} s{r['tokens_per_s']:>11.0f} tokens/s{r['vs_one_by_one']:>7.2f}×")

    print("\ntargets")
    result["targets"] = {}
    for what, get, bar, higher in TARGETS:
        try:
            value = get(result)
        except KeyError:
            continue  # that shape or contender was not run
        met = value >= bar if higher else value <= bar
        result["targets"][what] = {"value": value, "bar": bar, "met": met}
        print(f"  {what:<44}{value:>8.3f}  {'≥' if higher else '≤'} {bar:<5} {'met' if met else 'MISSED'}")
    with open(args.json, "w") as f:
        f.write(json_text(result, indent=2) + "\n")
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
