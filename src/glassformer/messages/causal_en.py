"""The words of glassformer/causal (activation, attribution and path patching, direct logit attribution,
head detectors): the typed errors it raises and the lines of its reports; then the causal views:
`glassformer patch | heads | attribute` (cli/inspect.py, the views in inspect/causal_views.py) and the
explorer's patching panel (explore/explorer.py)."""

TEXT = {
    # ==== causal ====================================================================================
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
    # ==== causal_views ==============================================================================
    # ---- command line help
    "help.patch": "activation patching: which layer, position or head brings the clean answer back",
    "help.heads": "head detectors (previous-token, duplicate-token, induction) with an ablation check",
    "help.attribute": "direct logit attribution: which parts of the model write the answer",
    "help.causal.about": "{verb}. Reads a trained run of a kind that predicts tokens (gpt, encoder).",
    "help.causal.run": "the run directory (as written by glassformer train)",
    "help.causal.clean": "the clean prompt, whose answer is right",
    "help.causal.corrupt": "the corrupted prompt: the same number of tokens, one detail changed",
    "help.causal.prompt": "the prompt whose next token is attributed",
    "help.causal.answer": "the right next token (exactly one token)",
    "help.causal.wrong": "the wrong next token to compare with (exactly one token)",
    "help.causal.wrong_optional": "the wrong next token (default: the model's likeliest other token)",
    "help.causal.by": "what to patch: position (layer × position), layer (attention, FFN), head (layer × head)",
    "help.causal.out": "output folder (default: out/{verb}/)",
    "help.heads.n": "length of the random half of each repeated sequence (default: {default})",
    "help.heads.batch": "how many repeated sequences (default: {default})",
    "help.heads.seed": "seed of the random sequences (default: {default})",
    # ---- refusals: one line, naming the fix
    "cview.kind": "glassformer {verb} reads a model that predicts tokens from tokens, with Transformer "
    "blocks' hook points; this run is kind {kind!r} (it reads {inputs}). Give a run of kind gpt or encoder.",
    "cview.post_norm": "Direct logit attribution needs a pre-norm or norm-free model; this run has "
    "norm={norm!r}, which normalises the stream inside every block. Use glassformer patch instead.",
    "cview.empty": "{flag} is empty after tokenizing; give it some text.",
    "cview.too_long": "{flag} has {n} tokens, more than the model's max_len of {max_len}; shorten it.",
    "cview.not_one_token": "{flag} {text!r} is {n} tokens ({tokens}), not one; give a single token of the "
    "run's vocabulary.",
    "cview.lengths": "--clean has {clean} tokens ({clean_tokens}) and --corrupt has {corrupt} "
    "({corrupt_tokens}); patching copies position by position, so make them the same number of tokens.",
    # ---- what the views show
    "cview.header": "# run {run} ({kind}); answer {answer!r} against {wrong!r}",
    "cview.heads.header": "# run {run} ({kind})",
    "cview.part.attn": "attention",
    "cview.part.ffn": "feed-forward",
    "cview.patch.title.position": "patching the residual stream, by layer and position (clean = 1, corrupted = 0)",
    "cview.patch.title.layer": "patching a whole attention or FFN output (clean = 1, corrupted = 0)",
    "cview.patch.title.head": "patching one head's output at every position (clean = 1, corrupted = 0)",
    "cview.patch.scale": "logit difference: clean {clean:.4f}, corrupted {corrupt:.4f}",
    "cview.heads.title": "head detectors and the ablation check",
    "cview.heads.col.previous_token": "previous",
    "cview.heads.col.duplicate_token": "duplicate",
    "cview.heads.col.induction": "induction",
    "cview.heads.col.ablation": "ablation Δloss",
    "cview.heads.data": "read from {batch} random sequences of {n} tokens each repeated once (seed {seed}); "
    "a score is the share of the head's attention on the cells that kind looks at.",
    "cview.heads.check": "causal check: zero-ablating {head} (induction score {score:.3f}) raises the loss on "
    "the repeated half by {rise:.4f} (from {base:.4f}); the median other head: {median:.4f}.",
    "cview.attr.title": "direct logit attribution of {answer!r} against {wrong!r}",
    "cview.attr.col": "share",
    "cview.attr.bias": "bias (norm β, head bias)",
    "cview.attr.sum": "the parts and bias sum to {total:.6f}; the model's logit difference {answer!r} − "
    "{wrong!r} is {diff:.6f} (final norm's scale frozen at {scale:.4f}).",
    # ---- the explorer's causal panel (explore/explorer.py, static/causal.js)
    "error.explore.causal.lengths": "The corrupted text has {corrupt} tokens and the text {clean}; patching "
    "copies position by position, so make them the same number of tokens.",
    "error.explore.causal.no_corrupt": "Type a corrupted text first: a patch copies from the text into it.",
    "explore.page.causal.title": "What matters: activation patching",
    "explore.page.causal.help": "Type a corrupted text of the same number of tokens (change one detail). Each "
    "cell copies one activation from the text's run into the corrupted run: 1 = the answer comes back, "
    "0 = nothing changes. Click a cell to see the next-token bars with that one patch.",
    "explore.page.causal.corrupt": "corrupted text",
    "explore.page.causal.positions": "layer × position (the residual stream after each block)",
    "explore.page.causal.heads": "layer × head (each head's output at every position)",
    "explore.page.causal.status": "answer {a} (the text's top token) against {w} (the corrupted run's); "
    "logit difference: text {clean}, corrupted {corrupt}",
    "explore.page.causal.none": "No corrupted text: under each head, how much zeroing it changes the "
    "log-probability of {a}.",
    "explore.page.causal.patched": "patched {what}: logit difference {d} (text {clean}, corrupted {corrupt}); "
    "grey marks: the corrupted run",
    "explore.page.causal.what.position": "layer {l} at position {i} ({tok})",
    "explore.page.causal.what.head": "layer {l}, head {h}",
    "explore.page.causal.thumb.patch": "patch {v}",
    "explore.page.causal.thumb.ablation": "zeroed Δlog p {v}",
}
