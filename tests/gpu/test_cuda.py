"""The model, the fused path, bf16, the KV cache, sampling and training on a CUDA GPU.

Marked `cuda` (pyproject.toml) and skipped where torch sees no GPU, which is every machine this
project has been tested on so far; bench/gpu_check.sh runs them first when a GPU is lent. Each test
compares the GPU with the CPU (or with itself), so a figure is never taken on trust.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace

import pytest
import torch

from glassformer.cli import main
from glassformer.config import get_preset
from glassformer.models import GPT
from glassformer.nn.loss import next_token_loss
from glassformer.sample import generate_ids, sample
from glassformer.text.tokenizers import CharTokenizer

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU here (torch.cuda.is_available() is False)"),
]
GPU = "cuda"
V = 40


def baby(attention: str = "glass", **changes) -> GPT:
    torch.manual_seed(0)
    cfg = replace(get_preset("baby").model, vocab_size=V, dropout=0.0, attention=attention, **changes)
    return GPT(cfg)


def batch(B: int = 4, T: int = 64) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(1)
    return torch.randint(0, V, (B, T), generator=g), torch.randint(0, V, (B, T), generator=g)  # (B, T) each


def loss_and_grads(model: GPT, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, dict]:
    model.zero_grad(set_to_none=True)
    loss = next_token_loss(model(x), y)  # ()
    loss.backward()
    return loss.detach(), {n: p.grad for n, p in model.named_parameters()}


@pytest.mark.parametrize("attention", ["glass", "fused"])
def test_forward_and_backward_on_the_gpu_match_the_cpu(attention):
    torch.backends.cuda.matmul.allow_tf32 = False  # float32 products as float32 (TF32 keeps 10 bits)
    torch.backends.cudnn.allow_tf32 = False
    x, y = batch()
    cpu = baby(attention).double()
    gpu = baby(attention).to(GPU)
    cpu_loss, cpu_grads = loss_and_grads(cpu, x, y)
    gpu_loss, gpu_grads = loss_and_grads(gpu, x.to(GPU), y.to(GPU))
    assert abs(gpu_loss.item() - cpu_loss.item()) <= 1e-4
    for name, g in cpu_grads.items():
        assert (gpu_grads[name].double().cpu() - g).abs().max().item() <= 1e-4, name


def test_the_fused_path_matches_the_glass_path_on_the_gpu():
    torch.backends.cuda.matmul.allow_tf32 = False
    x, _ = batch()
    glass, fused = baby("glass").to(GPU), baby("fused").to(GPU)
    with torch.no_grad():
        assert (glass(x.to(GPU)) - fused(x.to(GPU))).abs().max().item() <= 1e-4


@pytest.mark.parametrize("attention", ["glass", "fused"])
def test_bf16_autocast_on_the_gpu_is_close_to_float32(attention):
    x, y = batch()
    model = baby(attention).to(GPU)
    full, _ = loss_and_grads(model, x.to(GPU), y.to(GPU))
    with torch.autocast("cuda", dtype=torch.bfloat16):
        logits = model(x.to(GPU))  # (B, T, V)
    assert logits.dtype == torch.bfloat16
    half = next_token_loss(logits.float(), y.to(GPU))  # ()
    half.backward()
    assert abs(half.item() - full.item()) <= 0.02 * full.item()
    assert all(p.grad is not None and torch.isfinite(p.grad).all() for p in model.parameters())
    assert all(p.dtype == torch.float32 for p in model.parameters())  # weights (and checkpoints) stay float32


def test_cached_decoding_on_the_gpu_matches_the_uncached_model():
    model = baby("fused", max_len=128).to(GPU).eval()
    prompt = batch(2, 8)[0].to(GPU)  # (2, 8)
    cached, uncached = (
        torch.stack(list(generate_ids(model, prompt, 40, temperature=0.0, use_cache=flag)), dim=1)
        for flag in (True, False)
    )
    assert torch.equal(cached, uncached)
    ids = batch(2, 32)[0].to(GPU)
    with torch.inference_mode():  # as the sampler runs it
        full, cache = model(ids), model.new_cache(2)  # (2, 32, V)
        pieces = [model(ids[:, :3], cache=cache)] + [model(ids[:, t : t + 1], cache=cache) for t in range(3, 32)]
        assert (torch.cat(pieces, dim=1) - full).abs().max().item() <= 1e-4


def test_seeded_sampling_on_the_gpu_repeats_and_batches():
    model = baby(max_len=128).to(GPU).eval()
    tokenizer = CharTokenizer([chr(32 + i) for i in range(V)])
    one = sample(model, tokenizer, "ABC", 50, temperature=0.8, num_samples=4, seed=7)
    again = sample(model, tokenizer, "ABC", 50, temperature=0.8, num_samples=4, seed=7)
    assert one == again and len(one) == 4 and all(len(text) == 50 for text in one)


def train_cli(tmp_path, *extra: str) -> int:
    argv = ["train", "--preset", "seed000", "--data", "builtin:seed", "--cache-dir", str(tmp_path / "cache")]
    return main([*argv, "--no-progress", "--device=cuda", "--eval_interval=10", "--eval_iters=2", *extra])


def test_a_short_gpu_run_resumes_exactly(tmp_path, monkeypatch):
    """20 steps straight and 10 + a resume to 20 end with the same losses and the same weights, bit for
    bit (deterministic kernels asked for: CUBLAS_WORKSPACE_CONFIG and use_deterministic_algorithms)."""
    from safetensors.torch import load_file

    monkeypatch.setenv("CUBLAS_WORKSPACE_CONFIG", os.environ.get("CUBLAS_WORKSPACE_CONFIG", ":4096:8"))
    torch.use_deterministic_algorithms(True)
    try:
        assert train_cli(tmp_path, "--out", str(tmp_path / "straight"), "--max_steps=20") == 0
        assert train_cli(tmp_path, "--out", str(tmp_path / "halves"), "--max_steps=10") == 0
        argv = ["train", "--resume", str(tmp_path / "halves"), "--cache-dir", str(tmp_path / "cache")]
        assert main([*argv, "--no-progress", "--max_steps=20"]) == 0
    finally:
        torch.use_deterministic_algorithms(False)

    def evals(run: str) -> list:
        lines = (tmp_path / run / "metrics.jsonl").read_text().splitlines()
        return [(r["step"], r["val_loss"]) for r in map(json.loads, lines) if r["kind"] == "eval"]

    assert evals("straight")[-1][0] == 20 and evals("straight")[-1] == evals("halves")[-1]
    a, b = (load_file(tmp_path / run / "model.safetensors") for run in ("straight", "halves"))
    assert a.keys() == b.keys()
    for name in a:
        assert a[name].dtype == torch.float32, name  # checkpoints stay float32
        assert torch.equal(a[name], b[name]), (name, (a[name] - b[name]).abs().max().item())
