"""Ground truth: models whose circuit is known, and each causal method scored on finding it. Two
models: one planted by hand (below), and one trained (its part further down).

The planted model.

`planted_induction_model` sets every weight by hand. Two layers, attention only (the FFNs are zero),
no norms, no biases; the residual stream of width 5·16 is cut into five 16-wide subspaces:

    TOK   the current token, one-hot (the embedding)      POS   the position, one-hot (learned table)
    PREV  the previous token, written by head 0.1          OUT   the answer, written by head 1.2, read by the head
    JUNK  written by every other head, read by nobody

- head 0.1, previous-token: query position i, key position j score α·[j = i − 1]; it copies TOK of
  j into PREV;
- head 1.2, induction: query TOK (token t at i), key PREV (token before j), score β·[t_{j−1} = t_i]
  (key 0, which sees only itself in layer 0, is held down); it copies TOK of j into OUT, so at
  i it predicts the token after the earlier copy of t_i;
- head 1.0 is a decoy: it attends like a previous-token head but writes only JUNK; the other heads
  have random queries, keys and values and write only JUNK. None of them can change the output.

On [r, r] (r a random sequence without repeats) the repeated half is predicted almost surely, the
first half not at all. `find_planted` runs each method (`score_methods`, shared with the trained
model) and scores the heads it finds against the planted ones ({0.1, 1.2}) with precision and
recall.

The trained model: a tiny attention-only GPT learns induction on random tokens.

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

from dataclasses import dataclass

import torch
import torch.nn.functional as F

from glassformer.causal.detectors import KINDS, ablation_check, head_scores
from glassformer.causal.logit_attribution import logit_attribution
from glassformer.causal.patching import activation_patching, attribution_patching, logit_diff, path_patching
from glassformer.config import ModelConfig
from glassformer.messages import t
from glassformer.models.kinds import build_model

W = 16  # width of each subspace: the vocabulary, the positions and each head's D
TOK, POS, PREV, OUT, JUNK = (slice(i * W, (i + 1) * W) for i in range(5))
PREVIOUS, INDUCTION, DECOY = (0, 1), (1, 2), (1, 0)
PLANTED = [PREVIOUS, INDUCTION]


def planted_induction_model(alpha: float = 40.0, gamma: float = 8.0, seed: int = 0):
    """The hand-set model above (float64, eval): vocabulary 16, 16 positions, 2 layers × 5 heads of 16."""
    cfg = ModelConfig(vocab_size=W, d_model=5 * W, n_heads=5, d_ff=4, n_layers=2, max_len=W, bias=False, norm="none")
    model = build_model(cfg).double().eval()
    g = torch.Generator().manual_seed(seed)
    eye, C = torch.eye(W, dtype=torch.float64), 5 * W  # (W, W)
    shift = torch.diag(torch.ones(W - 1, dtype=torch.float64), -1)  # (W, W): row d reads position d − 1
    with torch.no_grad():
        for p in model.parameters():
            p.zero_()
        model.tok_embed.table.weight[:, TOK] = eye  # (V, W)
        model.pos_embed.table.weight[:, POS] = eye  # (L, W)
        model.head.weight[:, OUT] = gamma * eye  # (V, W)
        for layer, block in enumerate(model.blocks):
            qkv, proj = block.attn.qkv.weight, block.attn.proj.weight  # (3C, C), (C, C)
            for h in range(5):
                q, k, v = (slice(part * C + h * W, part * C + (h + 1) * W) for part in range(3))
                cols = slice(h * W, (h + 1) * W)
                if (layer, h) in (PREVIOUS, DECOY):  # q·k = α when the key sits just before the query
                    qkv[q, POS], qkv[k, POS], qkv[v, TOK] = alpha * eye, shift, eye
                    proj[PREV if (layer, h) == PREVIOUS else JUNK, cols] = eye
                elif (layer, h) == INDUCTION:  # q·k = α when the key's previous token is the query's token
                    qkv[q, TOK], qkv[k, PREV], qkv[v, TOK] = alpha * eye, eye, eye
                    qkv[k, POS.start] = -2.0  # key 0 (its PREV holds its own token): held down
                    proj[OUT, cols] = eye
                else:  # a distractor: random everything, writing where nobody reads
                    qkv[q] = 0.3 * torch.randn(W, C, generator=g, dtype=torch.float64)
                    qkv[k] = 0.3 * torch.randn(W, C, generator=g, dtype=torch.float64)
                    qkv[v] = torch.randn(W, C, generator=g, dtype=torch.float64)
                    proj[JUNK, cols] = torch.randn(W, W, generator=g, dtype=torch.float64)
    return model


def planted_prompts(seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """clean [r, r] and corrupted [r', r] (1, 16): r and r' two halves of a random permutation of the
    16 tokens, so no token repeats within a half and the corrupted first half shares none with r."""
    perm = torch.randperm(W, generator=torch.Generator().manual_seed(seed))  # (W,)
    r, r2 = perm[: W // 2], perm[W // 2 :]  # (n,), (n,)
    return torch.cat([r, r])[None], torch.cat([r2, r])[None]  # (1, 2n), (1, 2n)


@dataclass
class Found:
    """The heads one method picks out, scored against the planted ones."""

    method: str
    found: list[tuple[int, int]]
    truth: list[tuple[int, int]]

    @property
    def precision(self) -> float:
        return len(set(self.found) & set(self.truth)) / len(self.found) if self.found else 0.0

    @property
    def recall(self) -> float:
        return len(set(self.found) & set(self.truth)) / len(self.truth)

    def words(self) -> str:
        found = ", ".join(f"{a}.{b}" for a, b in self.found) or "-"
        return t(
            "{method}: found {found}; precision {precision:.2f}, recall {recall:.2f}",
            method=self.method,
            found=found,
            precision=self.precision,
            recall=self.recall,
        )


def strongest(grid: torch.Tensor, share: float = 0.5) -> list[tuple[int, int]]:
    """The cells of an (L, H) grid whose |value| is at least `share` of the largest."""
    a = grid.abs()  # (L, H)
    return [(int(i), int(j)) for i, j in (a >= share * a.max()).nonzero().tolist()] if a.max() > 0 else []


def find_planted(model=None, seed: int = 0, threshold: float = 0.3) -> list[Found]:
    """Each method's heads on the planted model, scored against {0.1, 1.2} (`score_methods`), on
    clean [r, r], corrupted [r', r] and eight more [r, r] for the detectors."""
    model = model if model is not None else planted_induction_model()
    return score_methods(model, *method_prompts(seed), PLANTED, INDUCTION, [PREVIOUS], threshold)


def method_prompts(seed: int = 0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The prompts every method is run on: clean [r, r] and corrupted [r', r] (1, 2n) from
    `planted_prompts(seed)`, and eight more [r, r] (8, 2n) for the detectors (seeds seed+1..seed+8)."""
    clean, corrupt = planted_prompts(seed)  # (1, 2n), (1, 2n)
    repeated = torch.cat([planted_prompts(seed + 1 + i)[0] for i in range(8)])  # (8, 2n)
    return clean, corrupt, repeated


def score_methods(
    model,
    clean: torch.Tensor,
    corrupt: torch.Tensor,
    repeated: torch.Tensor,
    truth: list[tuple[int, int]],
    receiver: tuple[int, int],
    senders_truth: list[tuple[int, int]],
    threshold: float = 0.3,
) -> list[Found]:
    """Each method's heads, scored against `truth`. clean [r, r] and corrupted [r', r] (1, 2n), the
    metric logit(r[n−1]) − logit(r'[n−1]) at 2n−2. Grids (activation and attribution patching of
    attn.z by head, DLA per head) keep the heads with at least half the largest |effect|; detectors
    keep heads scoring ≥ `threshold` on any kind over `repeated` (B, 2n) (a share of attention, so an
    absolute bound); the causal check then keeps those whose zero-ablation raises the repeated half's
    loss; path patching into `receiver`'s keys is scored against `senders_truth`."""
    n = clean.shape[1] // 2
    metric = logit_diff(int(clean[0, -1]), int(corrupt[0, n - 1]), pos=-2)  # predict r[n−1] at 2n−2
    exact = activation_patching(model, clean, corrupt, metric, "attn.z", ("H",)).normalised()  # (L, H)
    approx = attribution_patching(model, clean, corrupt, metric, "attn.z", ("H",)).normalised()  # (L, H)
    scores = torch.stack([head_scores(model, repeated, kind) for kind in KINDS]).amax(0)  # (L, H)
    detected = [(int(i), int(j)) for i, j in (scores >= threshold).nonzero().tolist()]
    checked = ablation_check(model, repeated, detected).matters() if detected else []
    dla = logit_attribution(model, clean, int(clean[0, -1]), int(corrupt[0, n - 1]), pos=-2, heads=True).head_grid()
    senders = path_patching(model, clean, corrupt, metric, [receiver], "k").normalised()  # (receiver layer, H)
    head = f"{receiver[0]}.{receiver[1]}"
    return [
        Found(t("activation patching (attn.z by head)"), strongest(exact), truth),
        Found(t("attribution patching (attn.z by head)"), strongest(approx), truth),
        Found(t("head detectors (score >= threshold)"), detected, truth),
        Found(t("head detectors + ablation check"), checked, truth),
        Found(t("direct logit attribution (per head)"), strongest(dla), truth),
        Found(t("path patching into {head}'s keys (senders)", head=head), strongest(senders), senders_truth),
    ]


# ────────────────────────────────────────────────────────────────────────────────────────────────
# The trained model
# ────────────────────────────────────────────────────────────────────────────────────────────────

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
    """`python -m glassformer.causal.ground_truth`: train, print the ground truth and each method's row."""
    torch.set_num_threads(1)
    model = trained_induction_model()
    rise = ablation_rise(model)  # (L, H)
    truth, receiver, _ = trained_truth(model)
    heads = ", ".join(f"{i}.{j} (+{rise[i, j]:.2f})" for i, j in truth)
    print(
        t(
            "ground truth: heads whose zero-ablation raises the repeated "
            "half's loss by at least {share} of the largest rise "
            "({largest:.2f} nats): {heads}",
            share=SHARE,
            largest=float(rise.max()),
            heads=heads,
        )
    )
    for found in find_trained(model):
        print(found.words())


if __name__ == "__main__":
    main()
