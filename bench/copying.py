"""Does a run copy in context? Two probes of each run given (issue 49: `glassformer repeats` can name
induction heads only in a model that has them):

- the detector of `glassformer heads` (8 random sequences of 20 tokens, each repeated, seed 0): the
  best induction score against its chance and bar (`CLEARS` of the way to a perfect head), and the
  best previous-token score (an induction head reads a previous-token head's output);
- held-out text given twice: 8 windows of the run's validation split (32 tokens, or half the context),
  each followed by itself. A model that copies predicts the second copy far better than the first;
  the mean next-token loss on each copy, and the best induction score on this text against its bar.

    PYTHONPATH=src python bench/copying.py runs/baby-bpe128 runs/snap/baby-bpe128-1000 ...
"""

import json
import sys

import torch

from glassformer.causal.detectors import head_scores, reference_scores, repeated_tokens
from glassformer.eval_card import held_out, load_run
from glassformer.inspect.causal_views import CLEARS

torch.set_num_threads(1)
WINDOWS, MOST = 8, 32


def best(model, x: torch.Tensor, kind: str = "induction") -> dict:
    s = head_scores(model, x, kind)  # (L, H)
    chance, perfect = reference_scores(x, kind)
    i = int(s.flatten().argmax())
    return {"best": round(float(s.flatten()[i]), 3), "head": f"L{i // s.shape[1]}H{i % s.shape[1]}",
            "chance": round(chance, 3), "bar": round(chance + CLEARS * (perfect - chance), 3)}  # fmt: skip


def copy_losses(model, x: torch.Tensor) -> tuple[float, float]:
    """x (B, 2m) of windows given twice -> mean next-token loss on the first copy and on the second."""
    m = x.shape[1] // 2
    with torch.no_grad():
        lp = model(x).float().log_softmax(-1)  # (B, 2m, V)
    nll = -lp[:, :-1].gather(-1, x[:, 1:, None])[..., 0]  # (B, 2m − 1)
    return round(nll[:, : m - 1].mean().item(), 3), round(nll[:, m:].mean().item(), 3)


for path in sys.argv[1:]:
    run = load_run(path)
    model, tok = run.model, run.tokenizer
    evals = [json.loads(line) for line in (run.dir / "metrics.jsonl").read_text().splitlines() if '"eval"' in line]
    state = run.dir / "train_state.pt"  # a run stopped between evaluations saved its step here
    step = torch.load(state, weights_only=False, map_location="cpu")["step"] if state.exists() else evals[-1]["step"]
    n = max(2, min(20, model.cfg.max_len // 2))
    r = repeated_tokens(model.cfg.vocab_size, n, 8, 0)  # (8, 2n)
    ids = tok.encode(held_out(run).text)
    m = min(MOST, model.cfg.max_len // 2)
    gap = (len(ids) - m) // WINDOWS
    w = torch.tensor([ids[k * gap : k * gap + m] for k in range(WINDOWS)])  # (8, m)
    x = torch.cat([w, w], 1)  # (8, 2m)
    first, second = copy_losses(model, x)
    row = {"run": path, "step": step, "last_eval": evals[-1]["step"], "val": round(evals[-1]["val_loss"], 3),
           "random": best(model, r), "previous": best(model, r, "previous_token")["best"],
           "text": best(model, x), "loss_first": first, "loss_second": second}  # fmt: skip
    print(json.dumps(row), flush=True)
