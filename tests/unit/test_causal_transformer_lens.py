"""glassformer/causal against TransformerLens on the same weights (float64 ≤ 1e-8).

TransformerLens is a test-only peer: without it these tests are skipped. A HookedTransformer is
built from a config matching the glassformer GPT (no download) and our weights are copied in; its
weights are not folded or centred (fold_ln etc. are off when a model is built from a config).
Learned positions only for now: TransformerLens's rotary convention (which dimensions pair up)
is not checked here yet.
"""

import pytest
import torch

from glassformer.causal import activation_patching, logit_diff
from glassformer.causal.detectors import head_scores, repeated_tokens
from glassformer.config import ModelConfig
from glassformer.models.kinds import build_model

tl = pytest.importorskip("transformer_lens", reason="transformer-lens is not installed (a test-only peer)")
from transformer_lens import HookedTransformer, HookedTransformerConfig, head_detector, patching  # noqa: E402

# TransformerLens 3.x says HookedTransformer moves to TransformerBridge in 4.0 (it did: 4.x has no
# HookedTransformer, so the peer is pinned below 4).
pytestmark = pytest.mark.filterwarnings("ignore:HookedTransformer is deprecated:DeprecationWarning")
TOL = 1e-8


@pytest.fixture(autouse=True)
def float64_results():
    """TransformerLens's patching fills its result grid with torch.zeros(...): the default dtype.
    In float32 that grid alone rounds at ~3e-8 relative, so the comparison runs with float64 there."""
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(before)


def pair(**kw):
    """A random glassformer GPT (float64) and a HookedTransformer holding the same weights."""
    torch.manual_seed(0)
    cfg = ModelConfig(**{**dict(vocab_size=13, d_model=16, n_heads=4, d_ff=32, n_layers=2, max_len=24), **kw})
    ours = build_model(cfg).double().eval()
    C, H, D = cfg.d_model, cfg.n_heads, cfg.d_head
    tcfg = HookedTransformerConfig(
        n_layers=cfg.n_layers, d_model=C, n_ctx=cfg.max_len, d_head=D, n_heads=H, d_mlp=cfg.d_ff,
        d_vocab=cfg.vocab_size, act_fn=cfg.activation, normalization_type="LN", eps=cfg.ln_eps,
        positional_embedding_type="standard", dtype=torch.float64, default_prepend_bos=False,
    )  # fmt: skip
    theirs = HookedTransformer(tcfg).eval()

    def bias_of(module, n):
        return module.bias if module.bias is not None else torch.zeros(n, dtype=torch.float64)

    with torch.no_grad():
        theirs.embed.W_E.copy_(ours.tok_embed.table.weight)  # (V, C)
        theirs.pos_embed.W_pos.copy_(ours.pos_embed.table.weight)  # (L, C)
        for ob, tb in zip(ours.blocks, theirs.blocks, strict=True):
            for o, t in ((ob.ln1, tb.ln1), (ob.ln2, tb.ln2)):
                t.w.copy_(o.weight)  # (C,)
                t.b.copy_(bias_of(o, C))  # (C,)
            W, b = ob.attn.qkv.weight, bias_of(ob.attn.qkv, 3 * C)  # (3C, C), (3C,)
            for i, (tw, tbias) in enumerate(
                ((tb.attn.W_Q, tb.attn.b_Q), (tb.attn.W_K, tb.attn.b_K), (tb.attn.W_V, tb.attn.b_V))
            ):
                tw.copy_(W[i * C : (i + 1) * C].view(H, D, C).transpose(1, 2))  # (H, C, D)
                tbias.copy_(b[i * C : (i + 1) * C].view(H, D))  # (H, D)
            tb.attn.W_O.copy_(ob.attn.proj.weight.T.reshape(H, D, C))  # (H, D, C)
            tb.attn.b_O.copy_(bias_of(ob.attn.proj, C))  # (C,)
            tb.mlp.W_in.copy_(ob.ffn.fc1.weight.T)  # (C, F)
            tb.mlp.b_in.copy_(bias_of(ob.ffn.fc1, cfg.d_ff))  # (F,)
            tb.mlp.W_out.copy_(ob.ffn.fc2.weight.T)  # (F, C)
            tb.mlp.b_out.copy_(bias_of(ob.ffn.fc2, C))  # (C,)
        theirs.ln_final.w.copy_(ours.ln_final.weight)  # (C,)
        theirs.ln_final.b.copy_(bias_of(ours.ln_final, C))  # (C,)
        theirs.unembed.W_U.copy_(ours.head.weight.T)  # (C, V)
        theirs.unembed.b_U.copy_(bias_of(ours.head, cfg.vocab_size))  # (V,)
    return ours, theirs


CLEAN = torch.tensor([[1, 2, 3, 4, 5, 6, 7]])  # (1, T)
CORRUPT = torch.tensor([[1, 9, 3, 4, 10, 6, 7]])  # (1, T)

SHAPES = [{}, {"bias": False}, {"activation": "gelu", "n_layers": 3, "n_heads": 2}]


@pytest.mark.parametrize("kw", SHAPES)
def test_same_logits(kw):
    ours, theirs = pair(**kw)
    torch.testing.assert_close(theirs(CLEAN), ours(CLEAN), rtol=0, atol=TOL)


@pytest.mark.parametrize("kw", SHAPES)
@pytest.mark.parametrize(
    "point,by,theirs_fn",
    [
        ("resid_mid", ("T",), "get_act_patch_resid_mid"),
        ("attn.out", ("T",), "get_act_patch_attn_out"),
        ("attn.z", ("T", "H"), "get_act_patch_attn_head_out_by_pos"),
        ("attn.z", ("H",), "get_act_patch_attn_head_out_all_pos"),
    ],
)
def test_activation_patching_grids_equal_transformer_lens(kw, point, by, theirs_fn):
    ours, theirs = pair(**kw)
    metric = logit_diff(2, 11)
    grid = activation_patching(ours, CLEAN, CORRUPT, metric, point, by)
    _, clean_cache = theirs.run_with_cache(CLEAN)
    peer = getattr(patching, theirs_fn)(theirs, CORRUPT, clean_cache, lambda logits: metric(logits).mean())
    torch.testing.assert_close(grid.values, peer.to(torch.float64), rtol=0, atol=TOL)


@pytest.mark.parametrize("kw", SHAPES)
@pytest.mark.parametrize("kind", ["previous_token", "duplicate_token", "induction"])
def test_head_detector_scores_equal_transformer_lens(kw, kind):
    ours, theirs = pair(**kw)
    tokens = repeated_tokens(13, 8)  # (1, 16)
    mine = head_scores(ours, tokens, kind)  # (L, H)
    detect = getattr(head_detector, f"get_{kind}_head_detection_pattern")(tokens)  # (T, T)
    _, cache = theirs.run_with_cache(tokens, remove_batch_dim=True)
    peer = torch.tensor(
        [
            [
                head_detector.compute_head_attention_similarity_score(
                    cache["pattern", layer][h], detect.double(), exclude_bos=False, exclude_current_token=False,
                    error_measure="mul",
                )
                for h in range(ours.cfg.n_heads)
            ]
            for layer in range(ours.cfg.n_layers)
        ],
        dtype=torch.float64,
    )  # fmt: skip
    torch.testing.assert_close(mine, peer, rtol=0, atol=TOL)
