"""The planted report on a trained model: a tiny attention-only GPT learns induction on random tokens.

`trained_induction_model` trains 2 layers × 4 heads (d_model 32, the FFNs zeroed and frozen, so
attention only; learned positions, pre-LN) on sequences of 20 random tokens from 16, each
holding one stretch of 4..8 tokens repeated once; only induction can predict inside the second copy.
Seeded and on the CPU: the same seed gives the same weights.

Nobody planted its circuit, so the ground truth is defined by one measurement that none of the
scored methods makes on the same data: `trained_truth` zero-ablates every head alone on 32 held-out
[r, r] prompts (seeds 1000..1031, never seen by the methods) and keeps the heads whose ablation raises
the mean loss on the repeated half by at least `share` (0.1) of the largest rise. The receiver for
path patching is the layer-1 truth head with the largest rise; its senders' truth is the layer-0
truth heads. `find_trained` then runs each method exactly as `find_planted` does (`score_methods`).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from glassformer.causal.detectors import ablation_check
from glassformer.causal.planted import Found, method_prompts, planted_prompts, score_methods
from glassformer.config import ModelConfig
from glassformer.messages import t
from glassformer.models.kinds import build_model

VOCAB, LENGTH, HEADS = 16, 20, 4
TRUTH_SEEDS = range(1000, 1032)  # held-out [r, r] prompts for the ground truth only
SHARE = 0.1  # a truth head raises the repeated half's loss by at least this share of the largest rise


def repeat_batch(rows: int, g: torch.Generator) -> torch.Tensor:
    """(rows, LENGTH) random tokens, each row holding one stretch of 4..8 tokens repeated once right after itself."""
    x = torch.randint(0, VOCAB, (rows, LENGTH), generator=g)  # (B, T)
    for b in range(rows):
        k = int(torch.randint(4, 9, (1,), generator=g))
        start = int(torch.randint(0, LENGTH - 2 * k + 1, (1,), generator=g))
        x[b, start + k : start + 2 * k] = x[b, start : start + k]  # (k,)
    return x


def trained_induction_model(steps: int = 900, seed: int = 0, batch: int = 32, lr: float = 1e-2):
    """A 2-layer attention-only GPT trained `steps` AdamW steps on `repeat_batch` (eval mode on return)."""
    cfg = ModelConfig(vocab_size=VOCAB, d_model=32, n_heads=HEADS, d_ff=4, n_layers=2, max_len=LENGTH, dropout=0.0)
    with torch.random.fork_rng():  # the weights' seed leaves the caller's global generator alone
        torch.manual_seed(seed)
        model = build_model(cfg)
    for block in model.blocks:  # attention only: the FFNs write nothing and never learn
        for p in block.ffn.parameters():
            p.requires_grad_(False)
            p.data.zero_()
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=lr)
    g = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        x = repeat_batch(batch, g)  # (B, T)
        logits = model(x[:, :-1])  # (B, T−1, V)
        loss = F.cross_entropy(logits.reshape(-1, VOCAB), x[:, 1:].reshape(-1))  # ()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return model.eval()


def ablation_rise(model) -> torch.Tensor:
    """(L, H) how much zeroing each head alone raises the mean repeated-half loss on the held-out prompts."""
    tokens = torch.cat([planted_prompts(s)[0] for s in TRUTH_SEEDS])  # (32, 16)
    L, H = len(model.blocks), model.cfg.n_heads
    check = ablation_check(model, tokens, [(i, j) for i in range(L) for j in range(H)])
    return (check.repeated - check.base_repeated).view(L, H)  # (L, H)


def trained_truth(model, share: float = SHARE) -> tuple[list[tuple[int, int]], tuple[int, int], list[tuple[int, int]]]:
    """(truth heads, path-patching receiver, the receiver's senders' truth), from `ablation_rise`."""
    rise = ablation_rise(model)  # (L, H)
    truth = [(int(i), int(j)) for i, j in (rise >= share * rise.max()).nonzero().tolist()]
    receiver = (1, int(rise[1].argmax()))
    return truth, receiver, [h for h in truth if h[0] == 0]


def find_trained(model=None, seed: int = 0, threshold: float = 0.3) -> list[Found]:
    """Each method's heads on the trained model, scored against `trained_truth`, on the same prompts
    as `find_planted` (clean [r, r], corrupted [r', r], eight more [r, r] for the detectors)."""
    model = model if model is not None else trained_induction_model()
    truth, receiver, senders = trained_truth(model)
    return score_methods(model, *method_prompts(seed), truth, receiver, senders, threshold)


def main() -> None:
    """`python -m glassformer.causal.trained`: train, print the ground truth and each method's row."""
    torch.set_num_threads(1)
    model = trained_induction_model()
    rise = ablation_rise(model)  # (L, H)
    truth, receiver, _ = trained_truth(model)
    heads = ", ".join(f"{i}.{j} (+{rise[i, j]:.2f})" for i, j in truth)
    print(t("causal.trained.truth", share=SHARE, largest=float(rise.max()), heads=heads))
    for found in find_trained(model):
        print(found.words())


if __name__ == "__main__":
    main()
