"""The words of glassformer/causal (activation and attribution patching, direct logit attribution,
head detectors): the typed errors it raises and the lines of its reports."""

TEXT = {
    "error.causal.no_point": "No hook point named {point!r} or blocks.<i>.{point} in this model; "
    "model.hook_names() lists them (e.g. {example!r}).",
    "error.causal.no_batch_axis": "Hook point {name!r} has axes {axes!r}, without a batch axis B: each row of a "
    "batched patch needs its own copy; patch a point with B (e.g. resid_pre) instead.",
    "error.causal.bad_axis": "Cannot patch {name!r} by {by}: its axes are {axes!r}; choose from {choices}.",
    "error.causal.lengths": "The clean and corrupted inputs must have the same shape, got {clean} and {corrupt}; "
    "make the prompts the same number of tokens.",
    "causal.method.detectors": "the head detectors",
    "error.causal.no_hook": "This model has no hook point {name!r}, which {method} needs; {fix}",
    "error.causal.fused": "attention='fused' shows no attention weights; run model.set_attention('glass') first "
    "(same weights).",
    "error.causal.norm_post": "Direct logit attribution needs the residual stream to be a sum of its parts up to "
    "the final norm; norm={norm!r} normalises the stream inside every block. Use a pre-norm or no-norm model.",
    "error.causal.budget": "max_bytes={max_bytes} is below one patched row ({row} bytes); give at least {row}.",
    "error.causal.top_k": "top_k must be between 1 and the {n} cells of the grid, got {k}.",
    "error.causal.bad_kind": "No head detector {kind!r}; choose from {kinds}.",
    "causal.agreement": "attribution vs exact patching on {cells} cells: Spearman ρ = {rho:.3f}, "
    "top-{k} overlap {overlap}/{k}; missed: {missed}",
    "causal.method.dla": "direct logit attribution",
    "error.causal.no_head_parts": "This attribution has no per-head parts; call logit_attribution(..., heads=True).",
    "error.causal.bad_via": "Path patching goes into a receiver through {choices}; got {via}.",
    "error.causal.bad_receiver": "Receivers are (layer, head) pairs with 1 <= layer < {layers} (a sender must sit "
    "below) and 0 <= head < {heads}; got {receivers}.",
    "error.causal.bad_ablation": "No ablation {how!r}; choose from {choices}.",
    "causal.planted.row": "{method}: found {found}; precision {precision:.2f}, recall {recall:.2f}",
    "causal.planted.method.patching": "activation patching (attn.z by head)",
    "causal.planted.method.attribution": "attribution patching (attn.z by head)",
    "causal.planted.method.detectors": "head detectors (score >= threshold)",
    "causal.planted.method.checked": "head detectors + ablation check",
    "causal.planted.method.dla": "direct logit attribution (per head)",
    "causal.planted.method.path": "path patching into {head}'s keys (senders)",
    "causal.trained.truth": "ground truth: heads whose zero-ablation raises the repeated half's loss by at least "
    "{share} of the largest rise ({largest:.2f} nats): {heads}",
}
