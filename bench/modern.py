"""The small Qwen3-style model (preset `baby-qwen3`) trained and decoded side by side, in one process,
contenders interleaved round-robin (medians; issue 46, item 8).

    python bench/modern.py [--rounds 5] [--threads 1] [--cpu-time] [--json bench/runs/modern_DATE_N.json]
    python bench/modern.py --batch 4 --seq-len 32 --new-tokens 64    # smaller, on a slow or busy machine

--cpu-time times each call by this process's CPU seconds instead of the wall clock (as bench/decode.py):
on a CPU that other processes share, their load stretches wall time unevenly between contenders, CPU
time far less (one thread, so CPU seconds are the work done).

The contenders, all of `baby-qwen3`'s shape (4 layers, d_model 128, 4 query heads of 64 sharing 2
key-value heads, SwiGLU d_ff 352, RoPE θ = 1e6, QK-norm, tied head; vocab 84, random weights), every
one holding the SAME weights (copied from ours), so each race is one computation:

    glassformer        GPT of the preset, as configured ("glass") and on the fused kernel ("fused")
    hf-qwen3           transformers' Qwen3ForCausalLM built from the config our exporter writes
                       (glassformer.models.llama.hf_config, no download), weights through its weight map
                       (state_dict_to_hf), attn_implementation "eager" and "sdpa"
    from-scratch       ScratchQwen3 below: a minimal readable Qwen3 in the style of LLMs-from-scratch,
                       written from its published description (RMSNorm, RoPE, GQA by repeat_interleave,
                       QK-norm, SwiGLU, tied head), with its own KV cache (keys and values concatenated)

Before any timing, all of them must give equal logits (float32, ≤ 1e-5) and the same greedy tokens.

Training: forward + backward + AdamW step, the preset's batch and seq_len unless told smaller. Every
contender steps with the same optimizer, torch.optim.AdamW(fused=True) (what glassformer's
build_optimizer and the HF Trainer's default are), so the race is of the models only.

Decoding: batch 1, greedy, NEW_TOKENS after a PROMPT-token prompt, with the KV cache: ours through
glassformer.sample.generate_ids, transformers' generate(do_sample=False, use_cache=True), the
from-scratch model's own cached loop. The ratios are of medians.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers import round_robin  # noqa: E402

from glassformer.config import ModelConfig, get_preset  # noqa: E402
from glassformer.models import GPT  # noqa: E402
from glassformer.models.llama import hf_config, state_dict_to_hf  # noqa: E402
from glassformer.nn.loss import next_token_loss  # noqa: E402
from glassformer.sample import generate_ids  # noqa: E402
from glassformer.train.loop import build_optimizer  # noqa: E402

PRESET, VOCAB, PROMPT, NEW_TOKENS, MAX_LEN = "baby-qwen3", 84, 16, 256, 512
HF_ATTENTION = ("eager", "sdpa")
ATOL = 1e-5  # float32 logits: every contender against ours
# (what, bar): ours / theirs, higher is better (issue 46, item 8)
TARGETS = (
    ("training vs Qwen3ForCausalLM", 1.3),
    ("cached decoding vs generate, batch 1", 2.5),
    ("training vs from-scratch", 1.0),
    ("cached decoding vs from-scratch", 1.0),
)


# ---- a from-scratch Qwen3 in the style of LLMs-from-scratch, written from its description -------------
class RMSNorm(nn.Module):
    """x / sqrt(mean(x²) + eps) · gain, over the last axis."""

    def __init__(self, C: int, eps: float) -> None:
        super().__init__()
        self.eps, self.scale = eps, nn.Parameter(torch.ones(C))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps) * self.scale  # (..., C)


def rope_tables(D: int, base: float, n: int) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin of position · base^(-2i/D), each angle written twice (the half-split layout)."""
    inv_freq = 1.0 / base ** (torch.arange(0, D, 2, dtype=torch.float32) / D)  # (D/2,)
    angles = torch.arange(n, dtype=torch.float32)[:, None] * inv_freq[None, :]  # (n, D/2)
    angles = torch.cat([angles, angles], dim=-1)  # (n, D)
    return angles.cos(), angles.sin()


def apply_rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """x: (B, H, T, D); cos, sin: (T, D). Rotate each pair (x_i, x_{i+D/2}) by its angle."""
    x1, x2 = x.chunk(2, dim=-1)  # 2 × (B, H, T, D/2)
    return x * cos + torch.cat([-x2, x1], dim=-1) * sin  # (B, H, T, D)


class GroupedQueryAttention(nn.Module):
    def __init__(self, C: int, H: int, H_kv: int, D: int, eps: float) -> None:
        super().__init__()
        self.H, self.H_kv, self.D = H, H_kv, D
        self.W_query = nn.Linear(C, H * D, bias=False)
        self.W_key = nn.Linear(C, H_kv * D, bias=False)
        self.W_value = nn.Linear(C, H_kv * D, bias=False)
        self.out_proj = nn.Linear(H * D, C, bias=False)
        self.q_norm, self.k_norm = RMSNorm(D, eps), RMSNorm(D, eps)

    def forward(self, x, cos, sin, cache=None):
        B, T, _ = x.shape
        q = self.W_query(x).view(B, T, self.H, self.D).transpose(1, 2)  # (B, H, T, D)
        k = self.W_key(x).view(B, T, self.H_kv, self.D).transpose(1, 2)  # (B, H_kv, T, D)
        v = self.W_value(x).view(B, T, self.H_kv, self.D).transpose(1, 2)  # (B, H_kv, T, D)
        q, k = apply_rope(self.q_norm(q), cos, sin), apply_rope(self.k_norm(k), cos, sin)  # QK-norm, then RoPE
        if cache is not None:  # the keys and values so far, the new ones appended
            if cache:
                k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)  # (B, H_kv, S, D)
            cache[:] = [k, v]
        group = self.H // self.H_kv
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)  # (B, H, S, D)
        scores = q @ k.transpose(2, 3) / math.sqrt(self.D)  # (B, H, T, S)
        S = k.size(2)
        mask = torch.ones(T, S, dtype=torch.bool, device=x.device).triu(S - T + 1)  # (T, S) the future
        weights = scores.masked_fill(mask, float("-inf")).softmax(dim=-1)  # (B, H, T, S)
        return self.out_proj((weights @ v).transpose(1, 2).reshape(B, T, self.H * self.D))  # (B, T, C)


class FeedForward(nn.Module):
    """SwiGLU: fc3(silu(fc1 x) · fc2 x)."""

    def __init__(self, C: int, F_: int) -> None:
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(C, F_, bias=False), nn.Linear(C, F_, bias=False)
        self.fc3 = nn.Linear(F_, C, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc3(F.silu(self.fc1(x)) * self.fc2(x))  # (B, T, C)


class TransformerBlock(nn.Module):
    def __init__(self, c: ModelConfig) -> None:
        super().__init__()
        self.norm1, self.norm2 = RMSNorm(c.d_model, c.ln_eps), RMSNorm(c.d_model, c.ln_eps)
        self.att = GroupedQueryAttention(c.d_model, c.n_heads, c.kv_heads, c.d_head, c.ln_eps)
        self.ff = FeedForward(c.d_model, c.d_ff)

    def forward(self, x, cos, sin, cache=None):
        x = x + self.att(self.norm1(x), cos, sin, cache)  # (B, T, C)
        return x + self.ff(self.norm2(x))  # (B, T, C)


class ScratchQwen3(nn.Module):
    """Token embedding, pre-norm blocks, final RMSNorm, head tied to the embedding."""

    def __init__(self, c: ModelConfig) -> None:
        super().__init__()
        self.tok_emb = nn.Embedding(c.vocab_size, c.d_model)
        self.trf_blocks = nn.ModuleList(TransformerBlock(c) for _ in range(c.n_layers))
        self.final_norm = RMSNorm(c.d_model, c.ln_eps)
        self.out_head = nn.Linear(c.d_model, c.vocab_size, bias=False)
        self.out_head.weight = self.tok_emb.weight
        cos, sin = rope_tables(c.d_head, c.rope_base, c.max_len)
        self.register_buffer("cos", cos, persistent=False)  # (L, D)
        self.register_buffer("sin", sin, persistent=False)  # (L, D)

    def forward(self, idx: torch.Tensor, caches: list | None = None, pos: int = 0) -> torch.Tensor:
        T = idx.size(1)
        cos, sin = self.cos[pos : pos + T], self.sin[pos : pos + T]  # (T, D)
        x = self.tok_emb(idx)  # (B, T, C)
        for i, block in enumerate(self.trf_blocks):
            x = block(x, cos, sin, None if caches is None else caches[i])  # (B, T, C)
        return self.out_head(self.final_norm(x))  # (B, T, V)

    @torch.no_grad()
    def generate(self, idx: torch.Tensor, max_new_tokens: int) -> torch.Tensor:
        """Greedy with a KV cache: the prompt once, then one token at a time."""
        caches: list = [[] for _ in self.trf_blocks]
        logits = self(idx, caches)[:, -1]  # (B, V)
        for i in range(max_new_tokens):
            nxt = logits.argmax(dim=-1, keepdim=True)  # (B, 1)
            idx = torch.cat([idx, nxt], dim=1)  # (B, T+1)
            if i + 1 < max_new_tokens:  # the last token needs no forward
                logits = self(nxt, caches, pos=idx.size(1) - 1)[:, -1]  # (B, V)
        return idx


# ---- the contenders, one set of weights -------------------------------------------------------------
def model_config(attention: str = "glass", max_len: int = MAX_LEN) -> ModelConfig:
    return replace(get_preset(PRESET).model, vocab_size=VOCAB, max_len=max_len, attention=attention, dropout=0.0)


def hf_qwen3(ours: GPT, attn: str):
    """transformers' Qwen3ForCausalLM of our model's config (as `glassformer export` writes it), our weights."""
    import logging

    from transformers import AutoConfig, AutoModelForCausalLM
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    logging.getLogger("transformers").setLevel(logging.ERROR)
    config = AutoConfig.for_model(**hf_config(ours.cfg), attn_implementation=attn)
    model = AutoModelForCausalLM.from_config(config)
    assert type(model).__name__ == "Qwen3ForCausalLM", type(model).__name__
    missing, unexpected = model.load_state_dict(state_dict_to_hf(ours.state_dict(), ours.cfg), strict=False)
    assert not unexpected and set(missing) <= {"lm_head.weight"}, (missing, unexpected)
    assert model.lm_head.weight.data_ptr() == model.model.embed_tokens.weight.data_ptr()  # tied
    return model


def scratch_qwen3(ours: GPT) -> ScratchQwen3:
    """ScratchQwen3 of our model's shape, our weights (the packed q|k|v rows cut apart)."""
    c, s = ours.cfg, ours.state_dict()
    model = ScratchQwen3(c)
    widths = (c.n_heads * c.d_head, c.kv_heads * c.d_head, c.kv_heads * c.d_head)  # q, k, v rows
    state = {"tok_emb.weight": s["tok_embed.table.weight"], "final_norm.scale": s["ln_final.weight"]}
    for i in range(c.n_layers):
        b, m = f"blocks.{i}.", f"trf_blocks.{i}."
        q, k, v = s[b + "attn.qkv.weight"].split(widths)  # (H·D, C), (H_kv·D, C), (H_kv·D, C)
        state |= {m + "att.W_query.weight": q, m + "att.W_key.weight": k, m + "att.W_value.weight": v}
        state[m + "att.out_proj.weight"] = s[b + "attn.proj.weight"]
        state[m + "att.q_norm.scale"] = s[b + "attn.qk_norm.q_norm.weight"]
        state[m + "att.k_norm.scale"] = s[b + "attn.qk_norm.k_norm.weight"]
        state[m + "norm1.scale"], state[m + "norm2.scale"] = s[b + "ln1.weight"], s[b + "ln2.weight"]
        for ours_name, theirs in (("gate", "fc1"), ("up", "fc2"), ("down", "fc3")):
            state[f"{m}ff.{theirs}.weight"] = s[f"{b}ffn.{ours_name}.weight"]
    missing, unexpected = model.load_state_dict({k: v.clone() for k, v in state.items()}, strict=False)
    assert not unexpected and set(missing) <= {"out_head.weight"}, (missing, unexpected)
    return model


def contenders(max_len: int = MAX_LEN, seed: int = 0) -> dict[str, nn.Module]:
    """name -> model, every one with the weights of a seeded glassformer GPT (norm gains moved off 1, so
    a gain read from the wrong place would show in the logits)."""
    torch.manual_seed(seed)
    glass = GPT(model_config("glass", max_len))
    with torch.no_grad():
        for p in glass.parameters():
            if p.dim() == 1:
                p.add_(torch.randn_like(p) * 0.1)  # (C,) or (D,): gains off 1
    fused = GPT(model_config("fused", max_len))
    fused.load_state_dict(glass.state_dict())
    models: dict[str, nn.Module] = {"glassformer (glass)": glass, "glassformer (fused)": fused}
    models |= {f"hf-qwen3 ({a})": hf_qwen3(glass, a) for a in HF_ATTENTION}
    models["from-scratch"] = scratch_qwen3(glass)
    return models


def logits_of(name: str, model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    out = model(x)
    return out.logits if name.startswith("hf-") else out  # (B, T, V)


def largest_differences(models: dict[str, nn.Module], x: torch.Tensor) -> dict[str, float]:
    """max |logits - ours| of every contender on x, in eval mode, float32."""
    with torch.no_grad():
        ref = logits_of("glassformer (glass)", models["glassformer (glass)"].eval(), x)  # (B, T, V)
        return {n: (logits_of(n, m.eval(), x) - ref).abs().max().item() for n, m in models.items()}


def decoder(name: str, model: nn.Module, prompt: torch.Tensor, n: int):
    """A call that writes n greedy tokens after prompt with the KV cache: (1, T0 + n) ids."""
    if name.startswith("glassformer"):

        def ours() -> torch.Tensor:
            new = list(generate_ids(model, prompt, n, temperature=0.0, use_cache=True))
            return torch.cat([prompt] + [t[:, None] for t in new], dim=1)  # (1, T0 + n)

        return ours
    if name.startswith("hf-"):
        return lambda: model.generate(
            prompt, max_new_tokens=n, min_new_tokens=n, do_sample=False, use_cache=True, pad_token_id=0
        )
    return lambda: model.generate(prompt, n)


def trainer(name: str, model: nn.Module, x: torch.Tensor, y: torch.Tensor):
    """One training step (forward, loss, backward, AdamW step) of the model, as a call."""
    model.train()
    if name.startswith("glassformer"):
        opt = build_optimizer(model, replace(get_preset(PRESET).train, device="cpu"))
    else:
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.1, fused=True)

    def step() -> None:
        loss = next_token_loss(logits_of(name, model, x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    return step


def cpu_model() -> str:
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return platform.processor()
    return next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("model name")), platform.processor())


def ratios(times: dict[str, float], against: str) -> dict[str, float]:
    return {n: times[against] / times[n] for n in times if n.startswith("glassformer")}


def main(argv: list[str] | None = None) -> int:
    preset = get_preset(PRESET).train
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--batch", type=int, default=preset.batch_size, help="training batch (the preset's)")
    ap.add_argument("--seq-len", type=int, default=preset.seq_len, help="training length (the preset's)")
    ap.add_argument("--new-tokens", type=int, default=NEW_TOKENS, help="decoded tokens per call")
    ap.add_argument("--cpu-time", action="store_true", help="time by this process's CPU seconds (a shared CPU)")
    ap.add_argument("--json", help="also write the figures to this file (bench/runs/ keeps them)")
    args = ap.parse_args(argv)
    if min(args.rounds, args.threads, args.batch, args.seq_len, args.new_tokens) < 1:
        print("--rounds, --threads, --batch, --seq-len and --new-tokens must be at least 1", file=sys.stderr)
        return 2
    if PROMPT + args.new_tokens > MAX_LEN or args.seq_len > MAX_LEN:
        print(f"--seq-len and {PROMPT} + --new-tokens must fit in {MAX_LEN}", file=sys.stderr)
        return 2
    torch.set_num_threads(args.threads)
    clock = time.process_time if args.cpu_time else time.perf_counter
    load_before = os.getloadavg()

    # 1) the same computation: equal logits, the same greedy tokens
    models = contenders()
    g = torch.Generator().manual_seed(1)
    check = torch.randint(0, VOCAB, (2, 64), generator=g)  # (2, 64)
    diffs = largest_differences(models, check)
    assert max(diffs.values()) <= ATOL, diffs
    prompt = torch.randint(0, VOCAB, (1, PROMPT), generator=g)  # (1, 16)
    decode = {n: decoder(n, m.eval(), prompt, args.new_tokens) for n, m in models.items()}
    outs = {n: fn() for n, fn in decode.items()}
    assert all(torch.equal(o, outs["glassformer (glass)"]) for o in outs.values()), "greedy tokens differ"

    # 2) decoding, batch 1, cached
    dec = {n: statistics.median(t) for n, t in round_robin(decode, args.rounds, 1, "cpu", clock).items()}

    # 3) training: fresh copies of the same weights
    models = contenders(max_len=max(args.seq_len, 64))
    x = torch.randint(0, VOCAB, (args.batch, args.seq_len), generator=g)  # (B, T)
    y = torch.randint(0, VOCAB, (args.batch, args.seq_len), generator=g)  # (B, T)
    steps = {n: trainer(n, m, x, y) for n, m in models.items()}
    train = {n: statistics.median(t) for n, t in round_robin(steps, args.rounds, 1, "cpu", clock).items()}
    load_after = os.getloadavg()

    best_hf_train = min((n for n in train if n.startswith("hf-")), key=train.get)
    best_hf_dec = min((n for n in dec if n.startswith("hf-")), key=dec.get)
    figures = {
        "training vs Qwen3ForCausalLM": ratios(train, best_hf_train),
        "cached decoding vs generate, batch 1": ratios(dec, best_hf_dec),
        "training vs from-scratch": ratios(train, "from-scratch"),
        "cached decoding vs from-scratch": ratios(dec, "from-scratch"),
    }
    clock_name = "CPU time" if args.cpu_time else "wall time"
    print(f"{cpu_model()}, torch {torch.__version__}, {args.threads} thread(s), median of {args.rounds} rounds")
    print(f"({clock_name}); load average {load_before[0]:.2f} before, {load_after[0]:.2f} after")
    print(f"logits: largest difference from ours {max(diffs.values()):.2e} (≤ {ATOL:g}); greedy tokens equal")
    print(f"{PRESET}, training batch {args.batch} × seq_len {args.seq_len}, forward + backward + AdamW:")
    for n, s in train.items():
        print(f"  {n:<22} {1000 * s:8.2f} ms/step {1 / s:8.2f} steps/s")
    print(f"{PRESET}, batch 1, greedy, KV cache, {args.new_tokens} new tokens after {PROMPT}:")
    for n, s in dec.items():
        print(f"  {n:<22} {1000 * s / args.new_tokens:8.3f} ms/token")
    print(f"against the faster transformers: {best_hf_train} (training), {best_hf_dec} (decoding)")
    met = {}
    for what, bar in TARGETS:
        for n, r in figures[what].items():
            met[f"{n}: {what}"] = r >= bar
            print(f"  {n}: {what} {r:.2f}× (goal ≥ {bar}×: {'met' if r >= bar else 'MISSED'})")
    if args.json:
        result = {
            "cpu": cpu_model(),
            "torch": torch.__version__,
            "threads": args.threads,
            "rounds": args.rounds,
            "clock": "cpu" if args.cpu_time else "wall",
            "load_average_1min": {"before": load_before[0], "after": load_after[0]},
            "training": {"batch": args.batch, "seq_len": args.seq_len, "ms_per_step": {}},
            "decoding": {"prompt": PROMPT, "new_tokens": args.new_tokens, "ms_per_token": {}},
            "logits_max_difference": diffs,
            "ratios": figures,
            "against": {"training": best_hf_train, "decoding": best_hf_dec},
            "goals": {what: bar for what, bar in TARGETS},
            "met": met,
        }
        result["training"]["ms_per_step"] = {n: 1000 * s for n, s in train.items()}
        result["decoding"]["ms_per_token"] = {n: 1000 * s / args.new_tokens for n, s in dec.items()}
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
