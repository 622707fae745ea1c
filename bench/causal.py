"""How fast is the full head × position activation-patching grid? glassformer.causal against
TransformerLens's own patching function, on the same weights and prompts, in one process.

    python bench/causal.py                       # baby's shape, T = 64, float32, 3 rounds, 1 thread
    python bench/causal.py --rounds 5 --dtype float64 --threads 2

The model is `baby`-shaped (4 layers, 4 heads, d_model 128, d_ff 512, no biases, GELU, tied
weights) with random weights and a 65-token vocabulary; a HookedTransformer holding the same
weights is built by the TransformerLens peer test's own `pair` (tests/causal/test_causal_transformer_lens.py;
nothing is folded or centred). The grid: every (layer, position, head) of attn.z / hook_z patched
from the clean run into the corrupted one, 4 × 64 × 4 = 1024 cells, the metric the logit
difference of two tokens at the last position.

    ours    activation_patching(model, clean, corrupt, metric, "attn.z", by=("T", "H"))
            (cells in batched forwards, rows chosen by the default memory bound)
    theirs  transformer_lens.patching.get_act_patch_attn_head_out_by_pos(...)   (a forward per cell)

Rounds interleave the two (A B, B A, ...); printed are each one's median seconds and the ratio of
the medians, after asserting the two grids equal (float64: 1e-8; float32: 1e-4 on the raw metric).
Then attribution patching of the same grid, as a ratio to one forward of the corrupted prompt
(medians over --rounds × 5 runs). Not a test: a busy machine changes the seconds, less the ratios.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import time
import warnings
from pathlib import Path

os.environ.setdefault("TQDM_DISABLE", "1")  # TransformerLens's progress bar (read when tqdm is imported)

import torch  # noqa: E402

from glassformer.causal import activation_patching, attribution_patching, logit_diff  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BABY = dict(vocab_size=65, d_model=128, n_heads=4, d_ff=512, n_layers=4, max_len=64, dropout=0.0, bias=False,
            activation="gelu", init="gpt2", tie_weights=True)  # fmt: skip


def peer_pair():
    """The TransformerLens peer test's `pair`: our model and a HookedTransformer with its weights."""
    path = ROOT / "tests" / "unit" / "test_causal_transformer_lens.py"
    spec = importlib.util.spec_from_file_location("tl_peer", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.pair


def timed(fn) -> tuple[float, object]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--dtype", choices=["float32", "float64"], default="float32")
    p.add_argument("--T", type=int, default=64)
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    from transformer_lens import patching

    dtype = getattr(torch, args.dtype)
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    ours, theirs = peer_pair()(**BABY)
    torch.set_default_dtype(dtype)  # TransformerLens fills its grid with the default dtype
    ours, theirs = ours.to(dtype).eval(), theirs.to(dtype).eval()
    theirs.cfg.dtype = dtype
    g = torch.Generator().manual_seed(0)
    clean = torch.randint(0, BABY["vocab_size"], (1, args.T), generator=g)  # (1, T)
    corrupt = clean.clone()
    corrupt[0, args.T // 2] = (clean[0, args.T // 2] + 1) % BABY["vocab_size"]  # one token changed
    metric = logit_diff(3, 7)

    def run_ours():
        with torch.no_grad():
            return activation_patching(ours, clean, corrupt, metric, "attn.z", by=("T", "H")).values

    def run_theirs():
        with torch.no_grad():
            _, cache = theirs.run_with_cache(clean)
            return patching.get_act_patch_attn_head_out_by_pos(theirs, corrupt, cache, lambda z: metric(z).mean())

    times = {"ours": [], "theirs": []}
    grids = {}
    for r in range(args.rounds):
        order = ("ours", "theirs") if r % 2 == 0 else ("theirs", "ours")
        for name in order:
            s, grids[name] = timed(run_ours if name == "ours" else run_theirs)
            times[name].append(s)
    tol = 1e-8 if dtype == torch.float64 else 1e-4
    worst = float((grids["ours"] - grids["theirs"].to(dtype)).abs().max())
    assert grids["ours"].shape == grids["theirs"].shape == (4, args.T, 4), grids["ours"].shape
    assert worst <= tol, f"the grids differ by {worst:.2e} > {tol:.0e}"
    med = {k: statistics.median(v) for k, v in times.items()}
    cells = grids["ours"].numel()
    print(f"baby-shaped model, T={args.T}, {args.dtype}, {args.threads} thread(s), {args.rounds} rounds interleaved")
    print(f"head x position grid, {cells} cells; max |ours - TransformerLens| = {worst:.2e} (asserted <= {tol:.0e})")
    print(f"  glassformer.causal.activation_patching          median {med['ours']:.3f} s")
    print(f"  transformer_lens get_act_patch_attn_head_out_by_pos  median {med['theirs']:.3f} s")
    print(f"  ratio TransformerLens / ours: {med['theirs'] / med['ours']:.1f}x")

    fwd, attr = [], []
    for _ in range(args.rounds * 5):
        with torch.no_grad():
            fwd.append(timed(lambda: ours(corrupt))[0])
        attr.append(timed(lambda: attribution_patching(ours, clean, corrupt, metric, "attn.z", by=("T", "H")))[0])
    f, a = statistics.median(fwd), statistics.median(attr)
    print(f"attribution patching of the same grid: median {a * 1e3:.1f} ms = {a / f:.1f} forwards "
          f"(one forward of the corrupted prompt: {f * 1e3:.2f} ms)")  # fmt: skip
    torch.set_default_dtype(before)


if __name__ == "__main__":
    main()
