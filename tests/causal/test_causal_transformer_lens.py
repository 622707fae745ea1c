"""glassformer/causal against TransformerLens on the same weights: float64 ≤ 1e-8, float32 ≤ 1e-5.

TransformerLens is a test-only peer: without it these tests are skipped. A HookedTransformer is
built from a config matching the glassformer GPT (no download) and our weights are copied in, in
the model's own dtype; its weights are not folded or centred (fold_ln etc. are off when a model is
built from a config), except for direct logit attribution, which compares in TransformerLens's
fold_ln=True mode (see there). Learned and rotary positions (TransformerLens's
rotary_adjacent_pairs=True is the paper's pairing, ours), with and without biases, two widths.
"""

import pytest
import torch

from glassformer.causal import activation_patching, logit_attribution, logit_diff, path_patching
from glassformer.causal.detectors import head_scores, repeated_tokens
from glassformer.config import ModelConfig
from glassformer.models.kinds import build_model

tl = pytest.importorskip("transformer_lens", reason="transformer-lens is not installed (a test-only peer)")
from transformer_lens import HookedTransformer, HookedTransformerConfig, head_detector, patching  # noqa: E402

# TransformerLens 3.x says HookedTransformer moves to TransformerBridge in 4.0 (it did: 4.x has no
# HookedTransformer, so the peer is pinned below 4).
pytestmark = pytest.mark.filterwarnings("ignore:HookedTransformer is deprecated:DeprecationWarning")


@pytest.fixture(autouse=True)
def float64_results():
    """TransformerLens's patching fills its result grid with torch.zeros(...): the default dtype.
    In float32 that grid alone rounds at ~3e-8 relative, so the comparison runs with float64 there."""
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(before)


DTYPES = {torch.float64: 1e-8, torch.float32: 1e-5}


def pair(dtype=torch.float64, **kw):
    """A random glassformer GPT and a HookedTransformer holding the same weights, both in `dtype`."""
    torch.manual_seed(0)
    cfg = ModelConfig(**{**dict(vocab_size=13, d_model=16, n_heads=4, d_ff=32, n_layers=2, max_len=24), **kw})
    ours = build_model(cfg).to(dtype).eval()
    C, H, D = cfg.d_model, cfg.n_heads, cfg.d_head
    rotary = cfg.position == "rotary"
    tcfg = HookedTransformerConfig(
        n_layers=cfg.n_layers, d_model=C, n_ctx=cfg.max_len, d_head=D, n_heads=H, d_mlp=cfg.d_ff,
        d_vocab=cfg.vocab_size, act_fn=cfg.activation, normalization_type="LN", eps=cfg.ln_eps,
        positional_embedding_type="rotary" if rotary else "standard", dtype=dtype, default_prepend_bos=False,
        use_attn_result=True, **(dict(rotary_dim=D, rotary_adjacent_pairs=True, rotary_base=10000) if rotary else {}),
    )  # fmt: skip
    theirs = HookedTransformer(tcfg).eval()

    def bias_of(module, n):
        return module.bias if module.bias is not None else torch.zeros(n, dtype=dtype)

    with torch.no_grad():
        theirs.embed.W_E.copy_(ours.tok_embed.table.weight)  # (V, C)
        if not rotary:
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

SHAPES = [
    {},
    {"bias": False},
    {"activation": "gelu", "n_layers": 3, "n_heads": 2},
    {"position": "rotary"},
    {"position": "rotary", "bias": False, "n_layers": 3},
]
DTYPE = pytest.mark.parametrize("dtype", list(DTYPES), ids=["float64", "float32"])


@DTYPE
@pytest.mark.parametrize("kw", SHAPES)
def test_same_logits_and_head_results(dtype, kw):
    ours, theirs = pair(dtype, **kw)
    logits, cache = ours.run_with_cache(CLEAN)
    peer_logits, peer = theirs.run_with_cache(CLEAN)
    torch.testing.assert_close(peer_logits, logits, rtol=0, atol=DTYPES[dtype])
    for i in range(ours.cfg.n_layers):  # hook_result (B, T, H, C) is TransformerLens's per-head result
        torch.testing.assert_close(
            peer[f"blocks.{i}.attn.hook_result"], cache[f"blocks.{i}.attn.result"], rtol=0, atol=DTYPES[dtype]
        )
        torch.testing.assert_close(
            peer[f"blocks.{i}.hook_mlp_out"], cache[f"blocks.{i}.ffn.out"], rtol=0, atol=DTYPES[dtype]
        )


@DTYPE
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
def test_activation_patching_grids_equal_transformer_lens(dtype, kw, point, by, theirs_fn):
    ours, theirs = pair(dtype, **kw)
    metric = logit_diff(2, 11)
    grid = activation_patching(ours, CLEAN, CORRUPT, metric, point, by)
    _, clean_cache = theirs.run_with_cache(CLEAN)
    peer = getattr(patching, theirs_fn)(theirs, CORRUPT, clean_cache, lambda logits: metric(logits).mean())
    torch.testing.assert_close(grid.values.double(), peer.double(), rtol=0, atol=DTYPES[dtype])


@DTYPE
@pytest.mark.parametrize("kw", SHAPES)
@pytest.mark.parametrize("kind", ["previous_token", "duplicate_token", "induction"])
def test_head_detector_scores_equal_transformer_lens(dtype, kw, kind):
    ours, theirs = pair(dtype, **kw)
    tokens = repeated_tokens(13, 8)  # (1, 16)
    mine = head_scores(ours, tokens, kind)  # (L, H)
    detect = getattr(head_detector, f"get_{kind}_head_detection_pattern")(tokens)  # (T, T)
    _, cache = theirs.run_with_cache(tokens, remove_batch_dim=True)
    peer = torch.tensor(
        [
            [
                head_detector.compute_head_attention_similarity_score(
                    cache["pattern", layer][h], detect.to(dtype), exclude_bos=False, exclude_current_token=False,
                    error_measure="mul",
                )
                for h in range(ours.cfg.n_heads)
            ]
            for layer in range(ours.cfg.n_layers)
        ],
        dtype=torch.float64,
    )  # fmt: skip
    torch.testing.assert_close(mine.double(), peer, rtol=0, atol=DTYPES[dtype])


@DTYPE
@pytest.mark.parametrize("kw", SHAPES)
def test_logit_attribution_equals_transformer_lens_apply_ln_to_stack(dtype, kw):
    """The matching mode: TransformerLens's apply_ln_to_stack centres each part and divides it by
    the final norm's scale cached from the run (ln_final.hook_scale), as ours does, and leaves γ to
    be folded into W_U (its logit_attrs assumes fold_ln). So the peer's stacks (stack_head_results,
    decompose_resid), normed by its apply_ln_to_stack, are projected onto γ ⊙ (W_U[a] − W_U[w]) here.
    (Folding for real, load_and_process_state_dict(fold_ln=True), moved W_E and W_pos by ~1e-7 in
    float64 in TransformerLens 3.9, so it cannot be the float64 reference.)"""
    ours, theirs = pair(dtype, **kw)
    answer, wrong, tol = 2, 11, DTYPES[dtype]
    _, cache = theirs.run_with_cache(CLEAN)
    direction = (theirs.W_U[:, answer] - theirs.W_U[:, wrong]) * theirs.ln_final.w  # (C,)
    for pos in (-1, 3):
        heads = logit_attribution(ours, CLEAN, answer, wrong, pos, heads=True)
        stack = cache.stack_head_results(layer=-1, pos_slice=pos, apply_ln=True)  # (L·H, B, C)
        torch.testing.assert_close(heads.head_grid().flatten(), (stack[:, 0] @ direction).double(), rtol=0, atol=tol)
        layers = logit_attribution(ours, CLEAN, answer, wrong, pos)
        stack, labels = cache.decompose_resid(apply_ln=True, pos_slice=pos, return_labels=True)  # (P, B, C)
        assert len(labels) == len(layers.parts)  # embed, [pos_embed], then attn, mlp per layer
        mine = torch.tensor(list(layers.parts.values()), dtype=torch.float64)  # (P,)
        torch.testing.assert_close(mine, (stack[:, 0] @ direction).double(), rtol=0, atol=tol)


def peer_path_patching(theirs, metric, sender, receivers, via, freeze_ffn):
    """Path patching written by hand on TransformerLens's hooks, one sender per forward: every
    head's z frozen at the corrupted run except the sender's, taken from the clean one (and the MLP
    outputs frozen too when asked); the receivers' q/k/v kept; then only those patched."""
    _, cc = theirs.run_with_cache(CLEAN)
    _, cx = theirs.run_with_cache(CORRUPT)
    top = max(layer for layer, _ in receivers)
    kept = {}

    def freeze(z, hook):  # (B, T, H, D)
        z = cx[hook.name].clone()
        if hook.layer() == sender[0]:
            z[:, :, sender[1]] = cc[hook.name][:, :, sender[1]]
        return z

    def keep(t, hook):
        kept[hook.name] = t.clone()

    hooks = [(f"blocks.{layer}.attn.hook_z", freeze) for layer in range(top)]
    if freeze_ffn:
        hooks += [(f"blocks.{layer}.hook_mlp_out", lambda t, hook: cx[hook.name]) for layer in range(top)]
    hooks += [(f"blocks.{layer}.attn.hook_{v}", keep) for layer in sorted({r for r, _ in receivers}) for v in via]
    theirs.run_with_hooks(CORRUPT, fwd_hooks=hooks)

    def put(t, hook):  # (B, T, H, D)
        t = t.clone()
        for layer, h in receivers:
            if layer == hook.layer():
                t[:, :, h] = kept[hook.name][:, :, h]
        return t

    return metric(theirs.run_with_hooks(CORRUPT, fwd_hooks=[(n, put) for n in kept])).mean().item()


@DTYPE
@pytest.mark.parametrize("kw", [{}, {"position": "rotary", "bias": False, "n_layers": 3}])
@pytest.mark.parametrize("receivers,via,freeze_ffn", [([(1, 2)], ("k",), False), ([(1, 0), (1, 3)], ("q", "v"), True)])
def test_path_patching_equals_a_hand_written_transformer_lens_version(dtype, kw, receivers, via, freeze_ffn):
    """TransformerLens has no path-patching function (its issue #111), so the peer is written on its
    hooks above: it freezes and patches z where ours uses attn.result, an independent route."""
    ours, theirs = pair(dtype, **kw)
    metric = logit_diff(2, 11)
    if kw.get("n_layers") == 3:
        receivers = [(2, h) for _, h in receivers]
    grid = path_patching(ours, CLEAN, CORRUPT, metric, receivers, via, freeze_ffn)
    peer = torch.tensor(
        [[peer_path_patching(theirs, metric, (s, h), receivers, via, freeze_ffn) for h in range(4)]
         for s in range(grid.values.shape[0])], dtype=torch.float64,
    )  # fmt: skip
    torch.testing.assert_close(grid.values.double(), peer, rtol=0, atol=DTYPES[dtype])
    assert (grid.values - grid.corrupt).abs().max() > 10 * DTYPES[dtype]  # some path carries more than the tolerance
