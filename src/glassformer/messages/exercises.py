"""The exercises' words (glassformer exercise ...; src/glassformer/exercises): skeleton
docstrings, hints, case names and every message of the grader and the learner's verbs.

EN holds them in English, ZH in Chinese, with the same keys and the same {fields}. Per exercise NAME:
exercise.NAME.title, exercise.NAME.doc.FUNCTION (math + shapes), .todo, .hint.1-3, .wrong.VARIANT (the
targeted message for a known mistake), .case.* and .err.*. Shared: exercise.case.*, .forbid.*, .err.*,
.msg.*, .skel.*. Numbers are never typed in here: they come in as {fields}.
"""

EN = {
    # -------- case
    "exercise.case.basic": "a small ordinary input",
    "exercise.case.batch1": "a batch of 1",
    "exercise.case.t1": "T = 1 (a single position)",
    "exercise.case.one_head": "one head (H = 1)",
    "exercise.case.heads": "several heads (B, H, T, D)",
    "exercise.case.no_head_axis": "no head axis: (B, T, D) inputs, a (T, T) mask",
    "exercise.case.cross": "T_q ≠ T_k (queries and keys of different lengths)",
    "exercise.case.causal": "a causal mask",
    "exercise.case.padding": "a padding mask (B, 1, 1, T)",
    "exercise.case.dead_row": "a query row whose keys are all masked",
    "exercise.case.large": "large values (around {scale})",
    "exercise.case.masked_entries": "some entries already -inf",
    "exercise.case.noncontig": "non-contiguous inputs (transposed views)",
    "exercise.case.no_bias": "no biases (None)",
    "exercise.case.no_batch_axis": "a 2-D input (T, C)",
    "exercise.case.random": "random case #{i}",
    # -------- softmax
    "exercise.softmax.title": "a numerically stable softmax",
    "exercise.softmax.doc.softmax": (
        "Softmax along `dim`: turn scores into probabilities that sum to 1.\n"
        "\n"
        "    softmax(x)_i = exp(x_i - m) / Σ_j exp(x_j - m),   m = max_j x_j\n"
        "\n"
        "Subtracting m changes nothing mathematically but keeps exp from overflowing\n"
        "(exp of anything above ~709 is inf in float64). Entries equal to -inf get probability 0.\n"
        "\n"
        "Shapes: x any shape, dim any axis (negative counts from the end) -> same shape as x,\n"
        "summing to 1 along dim."
    ),
    "exercise.softmax.todo": "TODO: shift by the max along dim, exponentiate, divide by the sum along dim.",
    "exercise.softmax.hint.1": (
        "Work along `dim` only: every reduction (max, sum) takes dim=dim and keepdim=True, so the result broadcasts "
        "back against x."
    ),
    "exercise.softmax.hint.2": (
        "Subtract the max of each slice along dim (x.amax(dim=dim, keepdim=True)), not one max for the whole tensor: "
        "rows far below the global max would all underflow to 0."
    ),
    "exercise.softmax.hint.3": (
        "Nearly the answer: e = torch.exp(x - x.amax(dim=dim, keepdim=True)); return e / e.sum(dim=dim, keepdim=True)"
    ),
    "exercise.softmax.wrong.global_max": (
        "You shift by one max for the whole tensor. A row far below that max becomes exp(very negative) = 0 "
        "everywhere, and 0/0 = NaN. Shift each slice by its own max: x.amax(dim=dim, keepdim=True)."
    ),
    "exercise.softmax.wrong.no_shift": (
        "You exponentiate without subtracting the max first: exp overflows to inf for large logits (inf/inf = NaN) and "
        "underflows to 0 for very negative ones (0/0 = NaN). Subtract the max along dim first; the result is "
        "mathematically the same."
    ),
    "exercise.softmax.wrong.ignores_dim": (
        "Your softmax always runs over the last axis; it must run over `dim`. Pass dim=dim to every max and sum."
    ),
    "exercise.softmax.wrong.sum_other_axis": (
        "You normalise along the wrong axis: the sum in the denominator must be taken along `dim` (the same axis as "
        "the max), with keepdim=True."
    ),
    "exercise.softmax.case.one_element": "a softmax over a single entry (must give 1)",
    "exercise.softmax.case.rows_apart": "rows at very different scales (around +800, -800 and 0)",
    "exercise.softmax.case.dim": "softmax over dim = {dim}",
    # -------- attention_scores
    "exercise.attention_scores.title": "the attention scores Q·Kᵀ/√D",
    "exercise.attention_scores.doc.attention_scores": (
        "How well each query matches each key: a dot product per (query, key) pair, scaled.\n"
        "\n"
        "    scores = Q·Kᵀ / √D        (Vaswani et al. 2017, eq. 1)\n"
        "\n"
        "Dividing by √D keeps the scores' spread independent of the head width D, so the\n"
        "softmax that follows does not saturate.\n"
        "\n"
        "Shapes: q (..., T_q, D), k (..., T_k, D), any leading axes (B, or B and H)\n"
        "-> (..., T_q, T_k); row i holds query i against every key."
    ),
    "exercise.attention_scores.todo": "TODO: multiply q by the transpose of k's last two axes, divide by √D.",
    "exercise.attention_scores.hint.1": (
        "The result must be (..., T_q, T_k): rows are queries, columns are keys. Which matrix product of q (T_q, D) "
        "and k (T_k, D) gives that?"
    ),
    "exercise.attention_scores.hint.2": (
        "k.T reverses ALL axes of a batched tensor; to swap only the last two use k.transpose(-2, -1). D is q.size(-1)."
    ),
    "exercise.attention_scores.hint.3": "Nearly the answer: return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))",
    "exercise.attention_scores.wrong.scale_by_d": (
        "You divide by D; the scale is √D (math.sqrt(D)). Dividing by D shrinks the scores too much as heads get wider."
    ),
    "exercise.attention_scores.wrong.no_scale": "The scores are not scaled: divide Q·Kᵀ by √D.",
    "exercise.attention_scores.wrong.keys_first": (
        "Your scores are transposed: rows must be queries and columns keys, q @ kᵀ, not k @ qᵀ."
    ),
    "exercise.attention_scores.wrong.scale_by_t": (
        "You divide by √T (the sequence length); the scale is √D, the width of one query/key vector (q.size(-1))."
    ),
    "exercise.attention_scores.err.T": (
        "k.T on a 3-D or 4-D tensor reverses every axis, so the batch axes no longer line up. Use k.transpose(-2, -1) "
        "(or k.mT)."
    ),
    # -------- causal_mask
    "exercise.causal_mask.title": "the causal mask",
    "exercise.causal_mask.doc.causal_mask": (
        "Who may attend to whom in a decoder: position i may look at positions 0..i, never ahead.\n"
        "\n"
        "    mask[i, j] = True  if j <= i   (key j is in query i's past, or is i itself)\n"
        "                 False if j >  i   (the future)\n"
        "\n"
        "glassformer's convention: a BOOLEAN mask, True = may attend.\n"
        "\n"
        "Shapes: T int -> (T, T) bool."
    ),
    "exercise.causal_mask.todo": "TODO: build the (T, T) boolean matrix that is True on and below the diagonal.",
    "exercise.causal_mask.hint.1": (
        "Row = query position i, column = key position j. Which (i, j) are allowed? Draw it for T = 3."
    ),
    "exercise.causal_mask.hint.2": (
        "Compare a column of positions with a row of positions: torch.arange(T)[:, None] and torch.arange(T)[None, :] "
        "broadcast to (T, T)."
    ),
    "exercise.causal_mask.hint.3": (
        "Nearly the answer: i = torch.arange(T)[:, None]; j = torch.arange(T)[None, :]; return j <= i   (or "
        "torch.tril(torch.ones(T, T, dtype=torch.bool)))"
    ),
    "exercise.causal_mask.wrong.inverted": (
        "Your mask is inverted: True marks the future. In glassformer True means MAY attend: query i sees keys j <= i."
    ),
    "exercise.causal_mask.wrong.upper": (
        "Your mask lets each query see itself and the FUTURE (upper triangle). It must be the lower triangle: j <= i."
    ),
    "exercise.causal_mask.wrong.strict": (
        "Your mask hides the diagonal: a token may not see itself, and query 0 sees nothing at all (a fully masked "
        "row). Use j <= i, not j < i."
    ),
    "exercise.causal_mask.wrong.float_01": (
        "Your mask holds floats 1.0/0.0. glassformer's masks are boolean (True = may attend): build it with "
        "dtype=torch.bool, or compare positions (j <= i)."
    ),
    "exercise.causal_mask.wrong.additive": (
        "You built an additive mask (0 and -inf, added to the scores). That is another convention; here the mask is "
        "boolean, True = may attend, and attention turns False into -inf itself."
    ),
    "exercise.causal_mask.case.T": "T = {T}",
    # -------- padding_mask
    "exercise.padding_mask.title": "the padding mask",
    "exercise.padding_mask.doc.padding_mask": (
        "Hide <PAD> tokens from every query: a padding KEY must get no attention weight.\n"
        "\n"
        "    mask[b, 0, 0, j] = (ids[b, j] != pad_id)\n"
        "\n"
        "The two axes of size 1 broadcast over heads and queries, so the same keys are hidden for\n"
        "every head and every query of sequence b. (A padding QUERY still gets an output; the loss\n"
        "ignores it.)\n"
        "\n"
        "Shapes: ids (B, T) integers, pad_id int -> (B, 1, 1, T) bool, True = may attend."
    ),
    "exercise.padding_mask.todo": "TODO: compare ids with pad_id, then add the head and query axes.",
    "exercise.padding_mask.hint.1": "Which tokens may be looked at? The real ones: ids != pad_id, a (B, T) boolean.",
    "exercise.padding_mask.hint.2": (
        "Scores are (B, H, T_q, T_k). The mask's last axis must be the KEY axis, with size-1 axes for H and T_q: (B, "
        "1, 1, T)."
    ),
    "exercise.padding_mask.hint.3": "Nearly the answer: return (ids != pad_id)[:, None, None, :]",
    "exercise.padding_mask.wrong.inverted": (
        "Your mask is True on the padding. True must mean MAY attend: ids != pad_id."
    ),
    "exercise.padding_mask.wrong.flat": (
        "Your mask is (B, T). Against scores (B, H, T, T) it would broadcast the batch axis onto the query axis. Give "
        "it the shape (B, 1, 1, T)."
    ),
    "exercise.padding_mask.wrong.query_axis": (
        "Your mask is (B, 1, T, 1): it hides padding QUERIES, not padding KEYS. Put the token axis last: (B, 1, 1, T)."
    ),
    "exercise.padding_mask.wrong.pad_is_zero": (
        "You compare with 0 instead of pad_id. The padding id is an argument: use ids != pad_id."
    ),
    "exercise.padding_mask.case.pad_id": "pad_id = {pad_id} (not 0)",
    "exercise.padding_mask.case.no_padding": "no padding at all",
    "exercise.padding_mask.case.all_padding": "a sequence that is all padding",
    # -------- attention
    "exercise.attention.title": "scaled dot-product attention, NaN-free",
    "exercise.attention.doc.scaled_dot_product_attention": (
        "Attention(Q, K, V) = softmax(Q·Kᵀ/√D with hidden keys at -inf)·V     (Vaswani et al. 2017)\n"
        "\n"
        "mask: None, or bool broadcastable to (..., T_q, T_k), True = may attend.\n"
        "A query row whose keys are ALL hidden must give all-zero weights and a zero output,\n"
        "never NaN (softmax of a row of -inf is 0/0; one NaN spoils the whole batch's loss).\n"
        "\n"
        "Shapes: q (..., T_q, D), k and v (..., T_k, D) -> (output (..., T_q, D),\n"
        "weights (..., T_q, T_k)); each weights row sums to 1, or is all 0 when fully masked."
    ),
    "exercise.attention.todo": (
        "TODO: scores, hide masked keys, softmax over the keys (dead rows -> 0), weights @ v; return both."
    ),
    "exercise.attention.hint.1": (
        "Three steps: scores = q·kᵀ/√D; weights = softmax over the LAST axis (the keys); output = weights @ v. Masking "
        "happens to the scores, before the softmax."
    ),
    "exercise.attention.hint.2": (
        "Hidden keys: scores.masked_fill(~mask, float('-inf')). A row with every key hidden: find it with "
        "mask.any(dim=-1, keepdim=True), put 0 in its scores before the softmax and 0 in its weights after."
    ),
    "exercise.attention.hint.3": (
        "Nearly the answer: alive = mask.any(-1, keepdim=True); scores = scores.masked_fill(~mask, "
        "-inf).masked_fill(~alive, 0.0); weights = torch.softmax(scores, -1).masked_fill(~alive, 0.0); return weights "
        "@ v, weights"
    ),
    "exercise.attention.wrong.nan_dead_rows": (
        "A fully masked query row gives NaN: softmax of a row that is all -inf is 0/0. Detect such rows "
        "(mask.any(dim=-1, keepdim=True) is False), give them finite scores before the softmax and zero weights after "
        "it."
    ),
    "exercise.attention.wrong.minus_big": (
        "You hide keys with a large negative number (-1e9) instead of -inf. A fully masked row then spreads its weight "
        "evenly over the hidden keys, so padding leaks into the output. glassformer gives such rows zero weights: use "
        "-inf and handle the all-hidden rows explicitly."
    ),
    "exercise.attention.wrong.inverted_mask": (
        "Your mask is used the wrong way round: glassformer's True means MAY attend, so fill the scores where the mask "
        "is False: masked_fill(~mask, -inf)."
    ),
    "exercise.attention.wrong.softmax_over_queries": (
        "Your softmax runs over the queries (dim=-2): each COLUMN sums to 1. Each query's weights over the keys must "
        "sum to 1: softmax over dim=-1."
    ),
    "exercise.attention.wrong.scale_by_d": "You divide the scores by D; the scale is √D.",
    "exercise.attention.wrong.no_scale": (
        "The scores are not scaled: divide Q·Kᵀ by √D before the softmax. Without it their spread grows like √D and "
        "the softmax turns nearly one-hot."
    ),
    "exercise.attention.wrong.mask_after_softmax": (
        "You zero the masked weights after the softmax, so the rows no longer sum to 1. Mask the SCORES (with -inf) "
        "before the softmax; then the visible keys share all the weight."
    ),
    # -------- heads
    "exercise.heads.title": "split into heads and merge them back",
    "exercise.heads.doc.split_heads": (
        "Cut each token's C features into H heads of D = C / H features, head axis in front.\n"
        "\n"
        "    (B, T, C) -> (B, T, H, D) -> transpose(1, 2) -> (B, H, T, D)\n"
        "\n"
        "Features h·D .. (h+1)·D of a token belong to head h. After this each head is its own\n"
        "(T, D) matrix, so attention runs on all heads at once.\n"
        "\n"
        "Shapes: x (B, T, C), n_heads H dividing C -> (B, H, T, D)."
    ),
    "exercise.heads.doc.merge_heads": (
        "The inverse of split_heads: put the heads' outputs side by side again.\n"
        "\n"
        "    (B, H, T, D) -> transpose(1, 2) -> (B, T, H, D) -> reshape -> (B, T, H·D)\n"
        "\n"
        "Shapes: z (B, H, T, D) -> (B, T, C) with C = H·D."
    ),
    "exercise.heads.todo": "TODO: reshape to separate the heads, and transpose so the head axis sits where it should.",
    "exercise.heads.hint.1": (
        "A reshape never moves numbers, it only regroups them. (B, T, C) -> (B, T, H, D) is a pure regrouping; getting "
        "H in front of T needs a transpose."
    ),
    "exercise.heads.hint.2": (
        "After a transpose the tensor is not contiguous: .view() on it fails. Use .reshape() (or .contiguous().view())."
    ),
    "exercise.heads.hint.3": (
        "Nearly the answer: split: x.reshape(B, T, H, C // H).transpose(1, 2)   merge: z.transpose(1, 2).reshape(B, T, "
        "H * D)"
    ),
    "exercise.heads.wrong.split_no_transpose": (
        "You reshape (B, T, C) straight to (B, H, T, D): the shape is right but each 'head' now holds pieces of "
        "several tokens. Reshape to (B, T, H, D) first, then transpose(1, 2)."
    ),
    "exercise.heads.wrong.split_features_interleaved": (
        "Your heads take every H-th feature (reshape to (B, T, D, H)). Head h must get the contiguous block of "
        "features h·D .. (h+1)·D: reshape to (B, T, H, D)."
    ),
    "exercise.heads.wrong.merge_no_transpose": (
        "Heads merged without the transpose: reshaping (B, H, T, D) straight to (B, T, C) mixes tokens across heads. "
        "Transpose to (B, T, H, D) first, then reshape."
    ),
    "exercise.heads.wrong.merge_features_interleaved": (
        "Your merge interleaves the heads' features. Head h's D features must sit side by side at h·D .. (h+1)·D: "
        "z.transpose(1, 2).reshape(B, T, H·D)."
    ),
    "exercise.heads.case.d1": "one feature per head (D = 1)",
    # -------- multi_head_attention
    "exercise.multi_head_attention.title": "multi-head self-attention",
    "exercise.multi_head_attention.doc.multi_head_attention": (
        "Multi-head self-attention with one packed projection for Q, K and V (GPT-2's layout).\n"
        "\n"
        "    1) qkv = x·W_qkvᵀ + b_qkv; the rows of W_qkv are [all queries | all keys | all values]\n"
        "    2) split q, k, v into H heads; attend within each head (scale √D, D = C / H)\n"
        "    3) merge the heads; out = merged·W_outᵀ + b_out\n"
        "\n"
        "Weights use PyTorch's (out, in) layout. A bias may be None. mask as in attention:\n"
        "bool, True = may attend; fully masked rows give 0, never NaN.\n"
        "\n"
        "Shapes: x (B, T, C), w_qkv (3C, C), b_qkv (3C,), w_out (C, C), b_out (C,) -> (B, T, C)."
    ),
    "exercise.multi_head_attention.todo": "TODO: project, split into q, k, v and heads, attend, merge, project.",
    "exercise.multi_head_attention.hint.1": (
        "You have written every piece already: attention.py and heads.py. Import them (from attention import "
        "scaled_dot_product_attention) or copy them in."
    ),
    "exercise.multi_head_attention.hint.2": (
        "x @ w_qkv.T gives (B, T, 3C); .split(C, dim=-1) gives q, k, v (B, T, C) each; split each into heads. The "
        "scale is √D of one head, not √C."
    ),
    "exercise.multi_head_attention.hint.3": (
        "Nearly the answer: q, k, v = (split_heads(t, H) for t in (x @ w_qkv.T + b_qkv).split(C, -1)); z, _ = "
        "scaled_dot_product_attention(q, k, v, mask); return merge_heads(z) @ w_out.T + b_out"
    ),
    "exercise.multi_head_attention.wrong.merge_no_transpose": (
        "Heads merged without the transpose: z (B, H, T, D) reshaped straight to (B, T, C) mixes tokens across heads. "
        "Transpose to (B, T, H, D) first."
    ),
    "exercise.multi_head_attention.wrong.split_no_transpose": (
        "Heads split without the transpose: (B, T, C) reshaped straight to (B, H, T, D) cuts across tokens. Reshape to "
        "(B, T, H, D), then transpose(1, 2)."
    ),
    "exercise.multi_head_attention.wrong.scale_by_d_model": (
        "You scale by √C (d_model); each head's scores must be divided by √D, its own width D = C / H."
    ),
    "exercise.multi_head_attention.wrong.no_scale": (
        "The scores are not scaled: in each head divide Q·Kᵀ by √D, the head's width D = C / H, before the softmax."
    ),
    "exercise.multi_head_attention.wrong.no_out_proj": (
        "The output projection is missing: after merging the heads, multiply by w_out.T and add b_out. It is what "
        "mixes the heads' results."
    ),
    "exercise.multi_head_attention.wrong.qkv_per_head": (
        "You read w_qkv's rows as [q k v of head 0 | q k v of head 1 | ...]. glassformer's layout is [all queries | "
        "all keys | all values]: split the projection into three C-wide parts first, then into heads."
    ),
    # -------- sinusoidal
    "exercise.sinusoidal.title": "the sinusoidal position table",
    "exercise.sinusoidal.doc.sinusoidal_table": (
        "The fixed position table of 'Attention Is All You Need' (§3.5):\n"
        "\n"
        "    P[p, 2i]   = sin(p / 10000^(2i/C))\n"
        "    P[p, 2i+1] = cos(p / 10000^(2i/C))\n"
        "\n"
        "Each (sin, cos) pair turns at its own frequency; an odd C has one more sine column.\n"
        "Compute in float64.\n"
        "\n"
        "Shapes: max_len L, d_model C -> (L, C) float64; row p is position p (starting at 0)."
    ),
    "exercise.sinusoidal.todo": (
        "TODO: positions as a column, frequencies as a row, their product = the angles; sin on even features, cos on "
        "odd."
    ),
    "exercise.sinusoidal.hint.1": (
        "i counts PAIRS of features: features 2i and 2i+1 share the frequency 1/10000^(2i/C). torch.arange(0, C, 2) "
        "lists the 2i."
    ),
    "exercise.sinusoidal.hint.2": (
        "angles = positions (L, 1) / 10000 ** (two_i / C) (1, ceil(C/2)) by broadcasting; then table[:, 0::2] = "
        "sin(angles), table[:, 1::2] = cos(angles[:, :C // 2])."
    ),
    "exercise.sinusoidal.hint.3": (
        "Nearly the answer: p = torch.arange(L, dtype=torch.float64)[:, None]; a = p / 10000.0 ** (torch.arange(0, C, "
        "2, dtype=torch.float64) / C); t = torch.zeros(L, C, dtype=torch.float64); t[:, 0::2] = a.sin(); t[:, 1::2] = "
        "a[:, :C // 2].cos()"
    ),
    "exercise.sinusoidal.wrong.sin_cos_swapped": (
        "Sine and cosine are swapped: the paper puts sin on the EVEN features (2i) and cos on the odd ones (2i+1). Row "
        "0 must be [0, 1, 0, 1, ...]."
    ),
    "exercise.sinusoidal.wrong.halves": (
        "You put all sines in the first half and all cosines in the second. glassformer (and the paper) interleave "
        "them: sin at 2i, cos at 2i+1."
    ),
    "exercise.sinusoidal.wrong.column_frequency": (
        "Your frequency uses the column index j (10000^(j/C)); it must use the pair's even index 2i, so features 2i "
        "and 2i+1 share one frequency."
    ),
    "exercise.sinusoidal.wrong.starts_at_one": (
        "Your positions start at 1; the first position is 0 (row 0 must be [0, 1, 0, 1, ...])."
    ),
    "exercise.sinusoidal.case.size": "max_len = {L}, d_model = {C}",
    "exercise.sinusoidal.case.max_len1": "a single position (max_len = 1)",
    "exercise.sinusoidal.case.odd": "odd d_model = {C}",
    # -------- layer_norm
    "exercise.layer_norm.title": "LayerNorm",
    "exercise.layer_norm.doc.layer_norm": (
        "Normalise each token's features to mean 0, variance 1, then scale and shift:\n"
        "\n"
        "    LayerNorm(x) = γ · (x - mean) / √(var + ε) + β        (Ba, Kiros & Hinton 2016)\n"
        "\n"
        "mean and var over the LAST axis; var is the biased variance (divide by C, not C - 1):\n"
        "it describes these C numbers, it estimates nothing. ε goes inside the square root.\n"
        "\n"
        "Shapes: x (..., C), weight γ (C,), bias β (C,) or None, eps float -> (..., C)."
    ),
    "exercise.layer_norm.todo": "TODO: mean and variance over the last axis, normalise, then weight and bias.",
    "exercise.layer_norm.hint.1": (
        "Every statistic is per token: reduce over dim=-1 with keepdim=True, so it broadcasts back over the C features."
    ),
    "exercise.layer_norm.hint.2": (
        "var = ((x - mean) ** 2).mean(-1, keepdim=True), the biased variance. torch.var defaults to dividing by C - 1: "
        "pass unbiased=False if you use it. And ε goes under the root: √(var + ε)."
    ),
    "exercise.layer_norm.hint.3": (
        "Nearly the answer: mean = x.mean(-1, keepdim=True); var = ((x - mean) ** 2).mean(-1, keepdim=True); y = (x - "
        "mean) / torch.sqrt(var + eps) * weight; return y + bias if bias is not None else y"
    ),
    "exercise.layer_norm.wrong.bessel": (
        "Your variance divides by C - 1 (Bessel's correction, torch.var's default). LayerNorm uses the biased "
        "variance, dividing by C: torch.var(..., unbiased=False) or ((x - mean) ** 2).mean(-1)."
    ),
    "exercise.layer_norm.wrong.eps_outside": (
        "You add ε to the standard deviation; it belongs inside the square root: (x - mean) / √(var + ε). The "
        "difference shows when a token's features are nearly equal."
    ),
    "exercise.layer_norm.wrong.no_eps": (
        "ε is missing: divide by √(var + ε). Without it a token whose features are (nearly) equal divides by (nearly) "
        "zero."
    ),
    "exercise.layer_norm.wrong.wrong_axis": (
        "You normalise over the wrong axis (the tokens, dim=1). LayerNorm normalises each token over its own C "
        "features: dim=-1."
    ),
    "exercise.layer_norm.wrong.no_affine": (
        "The weight γ and bias β are not applied: multiply the normalised x by weight and add bias."
    ),
    "exercise.layer_norm.wrong.var_from_squares": (
        "You compute var as mean(x²) - mean². Far from zero (here around a million) the two terms are huge and nearly "
        "equal, and their difference loses most of its digits. Centre first: mean((x - mean)²)."
    ),
    "exercise.layer_norm.case.tiny_var": "features nearly equal (variance far below ε)",
    "exercise.layer_norm.case.offset": "features far from zero (around a million)",
    "exercise.layer_norm.case.eps": "eps = {eps} (not the default)",
    # -------- feed_forward
    "exercise.feed_forward.title": "the position-wise feed-forward network",
    "exercise.feed_forward.doc.feed_forward": (
        "The same two-layer MLP applied to every token on its own:\n"
        "\n"
        "    FFN(x) = act(x·W₁ᵀ + b₁)·W₂ᵀ + b₂          (Vaswani et al. 2017, §3.3)\n"
        "\n"
        "act: 'relu' max(h, 0) | 'gelu' h·Φ(h) = h·½(1 + erf(h/√2)) (exact) |\n"
        "'gelu_tanh' ½h(1 + tanh(√(2/π)(h + 0.044715h³))) (GPT-2's approximation).\n"
        "Weights use PyTorch's (out, in) layout; a bias may be None.\n"
        "\n"
        "Shapes: x (B, T, C), w1 (F, C), b1 (F,), w2 (C, F), b2 (C,) -> (B, T, C)."
    ),
    "exercise.feed_forward.todo": "TODO: first affine map, activation, second affine map.",
    "exercise.feed_forward.hint.1": (
        "W₁ is stored (out, in) = (F, C), so x (B, T, C) times W₁ᵀ (C, F) gives (B, T, F). Same for W₂."
    ),
    "exercise.feed_forward.hint.2": (
        "Write the three activations by hand: relu with torch.clamp(h, min=0), gelu with torch.erf, gelu_tanh with "
        "torch.tanh. 'gelu' is the exact one."
    ),
    "exercise.feed_forward.hint.3": (
        "Nearly the answer: h = x @ w1.T + b1; h = h * 0.5 * (1 + torch.erf(h / math.sqrt(2)))  (for 'gelu'); return h "
        "@ w2.T + b2"
    ),
    "exercise.feed_forward.wrong.no_activation": (
        "There is no activation between the two layers: two affine maps in a row are one affine map. Apply act() to "
        "the hidden layer."
    ),
    "exercise.feed_forward.wrong.relu_always": (
        "You always use ReLU; use the activation the argument names ('relu', 'gelu' or 'gelu_tanh')."
    ),
    "exercise.feed_forward.wrong.tanh_for_exact": (
        "For 'gelu' you use the tanh approximation. 'gelu' is the exact h·Φ(h) = h·½(1 + erf(h/√2)); the tanh formula "
        "is 'gelu_tanh' (GPT-2)."
    ),
    "exercise.feed_forward.wrong.exact_for_tanh": (
        "For 'gelu_tanh' you use the exact erf GELU. 'gelu_tanh' is GPT-2's approximation ½h(1 + tanh(√(2/π)(h + "
        "0.044715h³)))."
    ),
    "exercise.feed_forward.wrong.sigmoid_gelu": (
        "You use h·sigmoid(1.702h), another approximation of GELU. Write the exact h·½(1 + erf(h/√2)) for 'gelu' (and "
        "the tanh formula for 'gelu_tanh')."
    ),
    "exercise.feed_forward.wrong.act_on_output": (
        "You apply the activation to the output as well. Only the hidden layer is activated; the second affine map is "
        "the last step."
    ),
    "exercise.feed_forward.case.act": "activation = '{activation}'",
    "exercise.feed_forward.case.narrow": "a hidden layer narrower than the input (F < C)",
    # -------- block
    "exercise.block.title": "a pre-LN Transformer block",
    "exercise.block.doc.block": (
        "One block as GPT-2 arranges it (pre-LN): each half reads a normalised copy of the\n"
        "stream and adds its result back; the stream itself is never normalised.\n"
        "\n"
        "    x = x + MultiHeadAttention(LN₁(x), mask)\n"
        "    x = x + FFN(LN₂(x))\n"
        "\n"
        "params: the block's weights named as in a glassformer Block's state_dict:\n"
        "ln1.weight ln1.bias attn.qkv.weight attn.qkv.bias attn.proj.weight attn.proj.bias\n"
        "ln2.weight ln2.bias ffn.fc1.weight ffn.fc1.bias ffn.fc2.weight ffn.fc2.bias\n"
        "(without biases they are absent: use params.get(...)).\n"
        "\n"
        "Shapes: x (B, T, C) -> (B, T, C); mask as in attention; activation and eps as in\n"
        "feed_forward and layer_norm."
    ),
    "exercise.block.todo": "TODO: the attention half with its residual, then the FFN half with its residual.",
    "exercise.block.hint.1": (
        "Use your own layer_norm, multi_head_attention and feed_forward (import them from your files). The block only "
        "arranges them."
    ),
    "exercise.block.hint.2": (
        "Pre-LN: the LayerNorm is applied to what goes INTO each half, and the half's output is ADDED to the "
        "unnormalised x. Two different LayerNorms: ln1 before attention, ln2 before the FFN."
    ),
    "exercise.block.hint.3": (
        "Nearly the answer: x = x + multi_head_attention(layer_norm(x, p['ln1.weight'], p.get('ln1.bias'), eps), "
        "p['attn.qkv.weight'], ...); return x + feed_forward(layer_norm(x, p['ln2.weight'], ...), ...)"
    ),
    "exercise.block.wrong.post_ln": (
        "You normalise after the residual addition: that is the 2017 paper's post-LN block, x = LN(x + f(x)). This "
        "exercise is pre-LN: x = x + f(LN(x))."
    ),
    "exercise.block.wrong.no_residual": (
        "The residual connections are missing: add each half's output to its input (x = x + ...), otherwise the stream "
        "forgets what it carried."
    ),
    "exercise.block.wrong.ln_on_stream": (
        "You normalise the residual stream itself (x = LN(x), then x = x + f(x)). In a pre-LN block only the branch "
        "input is normalised: x = x + f(LN(x))."
    ),
    "exercise.block.wrong.same_ln": "You use ln1's weights for both halves; the FFN half has its own LayerNorm, ln2.",
    "exercise.block.wrong.parallel": (
        "Your FFN reads the block's input, in parallel with attention. It must read the stream AFTER the attention "
        "half was added: x = x + attn(...), then x = x + ffn(LN₂(x))."
    ),
    "exercise.block.wrong.mask_ignored": (
        "The mask does not reach the attention: pass it on to multi_head_attention, or every position sees the future."
    ),
    "exercise.block.case.gelu": "activation = 'gelu'",
    # -------- loss
    "exercise.loss.title": "next-token cross-entropy",
    "exercise.loss.doc.next_token_loss": (
        "The language-model loss: the mean negative log-probability of the right next token.\n"
        "\n"
        "    loss = -1/N Σ_{{b,t}} log softmax(logits[b, t])[targets[b, t]]\n"
        "\n"
        "over the N positions whose target is not ignore_index. targets[b, t] is ALREADY the\n"
        "token after position t (the batch was shifted when it was made): do not shift again.\n"
        "Compute log softmax stably: log Σ exp(z) = m + log Σ exp(z - m).\n"
        "\n"
        "Shapes: logits (B, T, V) float, targets (B, T) int -> a scalar (0-d tensor)."
    ),
    "exercise.loss.todo": (
        "TODO: flatten, drop ignored positions, log softmax, pick the targets' entries, average, negate."
    ),
    "exercise.loss.hint.1": (
        "Flatten: logits to (B·T, V), targets to (B·T,). Keep only the rows whose target != ignore_index (boolean "
        "indexing)."
    ),
    "exercise.loss.hint.2": (
        "log softmax = z - (m + log Σ exp(z - m)) with m the row max. Then pick row n's entry at column targets[n]: "
        "log_probs[torch.arange(N), targets]."
    ),
    "exercise.loss.hint.3": (
        "Nearly the answer: keep = t != ignore_index; z, t = z[keep], t[keep]; m = z.amax(-1, keepdim=True); lp = z - "
        "m - torch.log(torch.exp(z - m).sum(-1, keepdim=True)); return -lp[torch.arange(len(t)), t].mean()"
    ),
    "exercise.loss.wrong.sum_not_mean": (
        "You sum over the positions; the loss is the MEAN over the targets that count, so it does not grow with the "
        "batch."
    ),
    "exercise.loss.wrong.counts_ignored": (
        "You divide by every position, ignored ones included. Average over the N positions whose target is not "
        "ignore_index."
    ),
    "exercise.loss.wrong.unstable": (
        "You take log(exp(z) / Σ exp(z)) directly: exp overflows for large logits. Use the max shift: log softmax(z) = "
        "z - m - log Σ exp(z - m)."
    ),
    "exercise.loss.wrong.shifted_again": (
        "You shift the targets again (logits[:, :-1] against targets[:, 1:]). targets[b, t] already is the token after "
        "position t: compare logits[b, t] with targets[b, t]."
    ),
    "exercise.loss.wrong.sign_flipped": (
        "Your loss is negative: it is MINUS the mean log-probability (log-probabilities are ≤ 0, the loss ≥ 0)."
    ),
    "exercise.loss.wrong.softmax_over_time": (
        "Your softmax runs over the time axis. The distribution over the next token is over the vocabulary: the last "
        "axis, V."
    ),
    "exercise.loss.err.ignore": (
        "An index is out of range: the ignored targets (ignore_index) must be removed BEFORE you index the "
        "log-probabilities with the targets."
    ),
    "exercise.loss.case.ignored": "some targets ignored (ignore_index = -100)",
    "exercise.loss.case.ignore_index": "ignore_index = 0 (padding id as the ignored target)",
    "exercise.loss.case.v2": "a vocabulary of 2",
    # -------- sampling
    "exercise.sampling.title": "top-k and top-p filtering",
    "exercise.sampling.doc.top_k_filter": (
        "Keep the k largest logits of each row; every other logit becomes -inf, so after the\n"
        "softmax it has probability exactly 0.            (Fan et al. 2018)\n"
        "\n"
        "Logits tied with the k-th largest are all kept. k larger than V keeps everything.\n"
        "\n"
        "Shapes: logits (B, V), k int >= 1 -> (B, V)."
    ),
    "exercise.sampling.doc.top_p_filter": (
        "Nucleus filtering: keep the most likely tokens until their probability reaches p.\n"
        "                                                  (Holtzman et al. 2020)\n"
        "\n"
        "Sort by probability, descending. Token r (in that order) is kept when the tokens ranked\n"
        "above it hold less than p: the token that carries the total to p or beyond is KEPT, and\n"
        "the most likely token is always kept. p >= 1 keeps everything. Dropped logits -> -inf.\n"
        "\n"
        "Shapes: logits (B, V), p float in (0, 1] -> (B, V), in the original vocabulary order."
    ),
    "exercise.sampling.todo": "TODO: see the docstring; return logits with the filtered entries set to -inf.",
    "exercise.sampling.hint.1": (
        "top-k: torch.topk(logits, k).values[:, -1:] is the k-th largest per row, (B, 1). top-p: work in sorted order, "
        "then put the decision back in vocabulary order."
    ),
    "exercise.sampling.hint.2": (
        "top-p: probs = softmax of the sorted logits; mass_before = cumsum(probs) - probs is what the tokens ranked "
        "above hold. Drop where mass_before >= p. Undo the sort with scatter(-1, order, ...)."
    ),
    "exercise.sampling.hint.3": (
        "Nearly the answer: top-k: logits.masked_fill(logits < kth, -inf).  top-p: s, order = torch.sort(logits, -1, "
        "descending=True); pr = s.softmax(-1); drop = (pr.cumsum(-1) - pr) >= p; return "
        "logits.masked_fill(torch.zeros_like(drop).scatter(-1, order, drop), -inf)"
    ),
    "exercise.sampling.wrong.top_k_exactly_k": (
        "You keep exactly k tokens (by index), cutting ties with the k-th largest arbitrarily. Keep every logit >= the "
        "k-th largest value: logits < kth become -inf."
    ),
    "exercise.sampling.wrong.top_k_drops_kth": (
        "You drop the k-th largest itself (logits <= kth): only k - 1 survive. Drop strictly smaller logits: logits < "
        "kth."
    ),
    "exercise.sampling.wrong.top_p_drops_crossing": (
        "You drop the token that carries the total over p (cumsum > p), and when the top token alone exceeds p you "
        "drop everything. Keep a token when the mass ranked ABOVE it is still below p: (cumsum - probs) < p."
    ),
    "exercise.sampling.wrong.top_p_unsorted": (
        "Your cumulative sum runs in vocabulary order. Sort by probability first (descending), decide there, then "
        "scatter the decision back."
    ),
    "exercise.sampling.case.k": "k = {k}",
    "exercise.sampling.case.ties": "ties at the k-th largest (k = {k})",
    "exercise.sampling.case.k_large": "k = {k}, larger than the vocabulary",
    "exercise.sampling.case.p": "p = {p}",
    "exercise.sampling.case.peaked": "one token with nearly all the probability (p = {p})",
    # -------- kv_cache
    "exercise.kv_cache.title": "one decoding step with a KV cache",
    "exercise.kv_cache.doc.decode_step": (
        "Multi-head attention for ONE new token, reusing the keys and values of the L tokens\n"
        "before it instead of recomputing them (a causal model's past never changes).\n"
        "\n"
        "    q, k, v = heads of (x_new·W_qkvᵀ + b_qkv)          (B, H, 1, D) each\n"
        "    keys = [k_cache ; k], values = [v_cache ; v]       (B, H, L+1, D)\n"
        "    out  = merge(softmax(q·keysᵀ/√D)·values)·W_outᵀ + b_out\n"
        "\n"
        "No mask: every cached key lies in the new token's past. L may be 0.\n"
        "\n"
        "Shapes: x_new (B, 1, C), k_cache and v_cache (B, H, L, D), weights as in\n"
        "multi_head_attention -> (out (B, 1, C), keys (B, H, L+1, D), values (B, H, L+1, D))."
    ),
    "exercise.kv_cache.todo": (
        "TODO: project the new token, append its key and value to the caches, attend, merge, project."
    ),
    "exercise.kv_cache.hint.1": (
        "The only new work is for the new token: project x_new exactly as multi_head_attention projects x, giving q, "
        "k, v of shape (B, H, 1, D)."
    ),
    "exercise.kv_cache.hint.2": (
        "Append along the time axis, dim=2: torch.cat([k_cache, k], dim=2). The single query attends to all L+1 keys; "
        "a causal mask would hide nothing here."
    ),
    "exercise.kv_cache.hint.3": (
        "Nearly the answer: keys = torch.cat([k_cache, k], 2); values = torch.cat([v_cache, v], 2); z = "
        "torch.softmax(q @ keys.transpose(-2, -1) / math.sqrt(D), -1) @ values; out = z.transpose(1, 2).reshape(B, 1, "
        "C) @ w_out.T + b_out; return out, keys, values"
    ),
    "exercise.kv_cache.wrong.forgot_new_key": (
        "The new token attends only to the cached keys: append its own key and value BEFORE attending (a token always "
        "sees itself)."
    ),
    "exercise.kv_cache.wrong.only_new_token": (
        "The new token attends only to itself: the cache is never read. Attend to [cached keys ; new key]."
    ),
    "exercise.kv_cache.wrong.stale_cache": (
        "You return the caches without the new token. Return the keys and values with it appended, (B, H, L+1, D): the "
        "next step needs them."
    ),
    "exercise.kv_cache.wrong.causal_mask_on_step": (
        "You apply a causal mask to the single new query; built for length 1 it hides every key but the first. The "
        "newest token may see every cached key: no mask in a decoding step."
    ),
    "exercise.kv_cache.err.cat": (
        "torch.cat needs every axis but the joined one to match: append along the time axis, dim=2, of two (B, H, ·, "
        "D) tensors."
    ),
    "exercise.kv_cache.case.empty": "an empty cache (L = 0: the first token)",
    "exercise.kv_cache.case.one_cached": "one cached token (L = 1)",
    # -------- fruit
    "exercise.fruit.title": "lesson 1's fruit attention, by hand",
    "exercise.fruit.doc.fruit_attention": (
        "Lesson 1 (glassformer lesson fruit): apple, banana and orange, each a row of E\n"
        "(sweetness, sourness), and three hand-set projections. Row vectors throughout:\n"
        "\n"
        "    Q = E·W_Q   K = E·W_K   V = E·W_V\n"
        "    weights = softmax over each row of (Q·Kᵀ / √d_k)        output = weights·V\n"
        "\n"
        "Shapes: E (T, d_model), W_Q and W_K (d_model, d_k), W_V (d_model, d_v)\n"
        "-> (weights (T, T), output (T, d_v))."
    ),
    "exercise.fruit.todo": "TODO: project, score, scale, softmax each row, mix the value rows.",
    "exercise.fruit.hint.1": "A word is a ROW of E, so a projection is E @ W (not W @ x, the column-vector habit).",
    "exercise.fruit.hint.2": (
        "scores = Q @ K.T is (T, T): row i is word i's query against every key. Scale by √d_k, d_k = K's number of "
        "columns; softmax along each row (dim=-1)."
    ),
    "exercise.fruit.hint.3": (
        "Nearly the answer: Q, K, V = E @ W_Q, E @ W_K, E @ W_V; w = torch.softmax(Q @ K.T / math.sqrt(K.size(1)), "
        "dim=-1); return w, w @ V"
    ),
    "exercise.fruit.wrong.column_convention": (
        "You project with the transposed matrices (E·Wᵀ), the column-vector habit W·x applied to row vectors. With "
        "words as rows, Q = E·W_Q. (The tutorial behind lesson 1 printed some rows computed this way.)"
    ),
    "exercise.fruit.wrong.softmax_over_columns": (
        "Your softmax runs down the columns (dim=0). Each word's weights over the words it looks at form a ROW that "
        "sums to 1: dim=-1."
    ),
    "exercise.fruit.wrong.no_scale": "The scores are not scaled: divide Q·Kᵀ by √d_k.",
    "exercise.fruit.wrong.scale_by_d": "You divide by d_k; the scale is √d_k.",
    "exercise.fruit.wrong.weights_transposed": (
        "You mix the value rows with the transposed weights. Output row i = Σ_j weights[i, j]·V[j]: weights @ V."
    ),
    "exercise.fruit.case.fruit": "the lesson's apple, banana, orange",
    "exercise.fruit.case.reordered": "the same three words in another order",
    "exercise.fruit.case.one_word": "a single word",
    "exercise.fruit.case.shapes": "T = {T}, d_model = {d_model}, d_k = {d_k}, d_v = {d_v} (non-square projections)",
    # -------- forbid
    "exercise.forbid.softmax": "PyTorch's softmax: this exercise is to write it.",
    "exercise.forbid.attention": "PyTorch's built-in attention: this exercise is to write it.",
    "exercise.forbid.layer_norm": "a built-in normalisation: this exercise is to write it.",
    "exercise.forbid.linear": "a built-in linear layer: write x @ W.T + b.",
    "exercise.forbid.gelu": "PyTorch's GELU: write it with torch.erf (or torch.tanh for 'gelu_tanh').",
    "exercise.forbid.loss": "a built-in loss or log-softmax: this exercise is to write it.",
    "exercise.forbid.glassformer": "glassformer itself: it is what your code is graded against; write your own.",
    "exercise.forbid.dynamic": (
        "dynamic code (exec, eval, __import__, importlib) hides what your code calls: write plain calls."
    ),
    "exercise.forbid.star": (
        "a star import from a library hides which functions you call: import the module (import torch.nn.functional as "
        "F)."
    ),
    "exercise.forbid.internals": (
        "torch's internals (torch._C, torch.overrides) or a function's insides (__closure__, __code__): they reach the "
        "grader's own checks, which your code may not switch off."
    ),
    "exercise.forbid.guard": (
        "the grader's check of forbidden operations was switched off or changed while your code ran: it must stay on."
    ),
    # -------- err
    "exercise.err.view": (
        ".view() needs a contiguous tensor, and a transposed one is not. Use .reshape() (it copies when it must), or "
        ".contiguous().view()."
    ),
    "exercise.err.matmul": (
        "A matrix product's inner sizes disagree. Weights are stored (out, in): multiply by W.T (x @ W.T), and check "
        "each tensor's shape against the docstring."
    ),
    "exercise.err.inplace": (
        "You change an input in place (+=, x[...] = , an op ending in _). Inputs must stay untouched: build new "
        "tensors (x = x - m instead of x -= m)."
    ),
    "exercise.err.broadcast": (
        "Two tensors' shapes do not line up. Print the shapes of both operands and compare them with the shape "
        "contract in the docstring (keepdim=True keeps reduced axes for broadcasting)."
    ),
    "exercise.err.dtype": (
        "Tensors of different dtypes meet. The inputs are float64: make new tensors with dtype=x.dtype (and "
        "device=x.device)."
    ),
    "exercise.err.memory": (
        "Your code asked for more memory than a check allows (the cases are tiny): look for a tensor whose size grows "
        "with something it should not, e.g. a (V, V) or (T, T, T) intermediate."
    ),
    # -------- msg
    "exercise.msg.why.dtype": (
        "The dtype differs from the reference's. The inputs are float64: create new tensors with dtype=x.dtype "
        "(torch.zeros(..., dtype=x.dtype)); masks are bool."
    ),
    "exercise.msg.why.type": "Return torch tensors (not NumPy arrays, lists or Python numbers).",
    "exercise.msg.why.count": (
        "The function returns the wrong number of values; the docstring lists what to return, in order."
    ),
    "exercise.msg.why.grad_missing": (
        "No gradient flows back to an input. Did you use .detach(), .data, .item(), .tolist(), NumPy, or "
        "torch.tensor(...) on an input? Keep every step a torch operation on the inputs."
    ),
    "exercise.msg.why.twin_slope": (
        "Your outputs match, your gradients match glassformer's autograd, yet the NumPy twin's finite difference "
        "disagrees: this should not happen with plain torch operations. Look for custom autograd Functions or "
        ".detach() tricks."
    ),
    "exercise.msg.why.shape": (
        "The shape differs from the reference's: compare each step's shape with the docstring's shape contract."
    ),
    "exercise.msg.why.nan": (
        "Your output contains NaN where the reference has a number: look for 0/0, inf - inf or inf/inf (exp of large "
        "values, a row with nothing to normalise)."
    ),
    "exercise.msg.grad_note.no_graph": "your outputs are not connected to the inputs",
    "exercise.msg.grad_note.unused": "this input does not influence your outputs",
    "exercise.msg.grad_note.shape": "your outputs' shapes differ",
    "exercise.msg.grad_note.count": "wrong number of outputs",
    "exercise.msg.no_start": "The process that runs your code could not start: {stderr}",
    "exercise.msg.quota": "your code wrote more than {mib} MiB of files; it was stopped (the exercises need none).",
    "exercise.msg.protocol": (
        "{reason}: a submission may not answer for the grader (write a result, say it is done, or end its "
        "process with one of its own); write the functions and let the grader call them."
    ),
    "exercise.msg.not_graded": (
        "✗ Not graded: what came back from the process running your code is not what the grader asked for."
    ),
    "exercise.msg.header": "Exercise {n}/{total} · {name} — {title}",
    "exercise.msg.file": "file {path}",
    "exercise.msg.missing": "✗ {path} does not exist. Start it with:  glassformer exercise start {name}",
    "exercise.msg.syntax": "✗ Syntax error in {path}, line {line}, column {col}: {message}",
    "exercise.msg.forbidden": "✗ Refused: your code calls what this exercise asks you to write.",
    "exercise.msg.offence": "{path} line {line}: {name} — {why}",
    "exercise.msg.offence_file": "{path} (found after it ran): {name} — {why}",
    "exercise.msg.no_function": "✗ Your file defines no function {fns} (the name must match the skeleton's).",
    "exercise.msg.timeout": (
        "✗ Stopped after {seconds} s: your code did not finish (an endless loop? a huge tensor?). Nothing else was "
        "affected; fix it and run glassformer exercise check {name} again."
    ),
    "exercise.msg.died": (
        "✗ The process running your code died (exit code {code}) before it finished: a hard crash or an exit() call."
    ),
    "exercise.msg.import_failed": "✗ Your file could not be loaded:",
    "exercise.msg.todo": (
        "… Not finished yet: {fns} still raises NotImplementedError (the skeleton's TODO). Write it, then check again."
    ),
    "exercise.msg.passed.grads": "✓ Passed: all {n} cases, outputs and gradients.",
    "exercise.msg.passed.outputs": "✓ Passed: all {n} cases.",
    "exercise.msg.errors": (
        "largest error {ref} against glassformer.nn, {twin} against numpy_ref (tolerance {atol} · (1 + |reference|))"
    ),
    "exercise.msg.next": "Next: {command}",
    "exercise.msg.last": "That was the last of the {total} exercises: every part of the model, written by you.",
    "exercise.msg.failed": "✗ Failed: {passed} of {total} cases pass.",
    "exercise.msg.crashed": "✗ Your code raised an error: {passed} of {total} cases pass.",
    "exercise.msg.case": "first failing case: {label} (case {i} of {n}, {fn})",
    "exercise.msg.inputs": "inputs: {inputs}",
    "exercise.msg.problem.missing": "the function is not defined in your file",
    "exercise.msg.problem.count": "you return {yours} value(s), expected {ref}: {names}",
    "exercise.msg.problem.type": "output{where}: you return {yours}, expected a torch.Tensor",
    "exercise.msg.problem.shape": "output{where}: shape {yours}, expected {ref}",
    "exercise.msg.problem.dtype": "output{where}: dtype {yours}, expected {ref}",
    "exercise.msg.problem.value": "output{where}: first mismatch at index {index}: yours {yours}, reference {ref}",
    "exercise.msg.problem.nan": "output{where}: NaN first at index {index} (reference {ref})",
    "exercise.msg.problem.grad_shape": "gradient of {where}: shape {yours}, expected {ref}",
    "exercise.msg.problem.grad_dtype": "gradient of {where}: dtype {yours}, expected {ref}",
    "exercise.msg.problem.grad_value": (
        "gradient of {where}: first mismatch at index {index}: yours {yours}, reference {ref}"
    ),
    "exercise.msg.problem.grad_nan": "gradient of {where}: NaN first at index {index} (reference {ref})",
    "exercise.msg.problem.grad_missing": "no gradient for {where}: {note}",
    "exercise.msg.problem.twin_slope": (
        "gradients of {where} along a random direction: yours {yours}, the NumPy twin's finite difference {ref}"
    ),
    "exercise.msg.maxerr": (
        "largest error {ref} against glassformer.nn, {twin} against numpy_ref (tolerance {atol} · (1 + |reference|))"
    ),
    "exercise.msg.error": "your code raised {type} in {path} line {line}:  {code}\n    {message}",
    "exercise.msg.error_nowhere": "your code raised {type}: {message}",
    "exercise.msg.printed": "your code printed:",
    "exercise.msg.status.passed": "passing",
    "exercise.msg.status.failed": "failing",
    "exercise.msg.status.crashed": "failing (error)",
    "exercise.msg.status.timeout": "failing (time limit)",
    "exercise.msg.status.syntax": "failing (syntax error)",
    "exercise.msg.status.forbidden": "refused (forbidden call)",
    "exercise.msg.status.todo": "in progress (TODO left)",
    "exercise.msg.status.started": "started, not checked yet",
    "exercise.msg.status.not_started": "not started",
    "exercise.msg.status.missing": "missing",
    "exercise.msg.status.encoding": "refused (not UTF-8)",
    "exercise.msg.sandbox.on": "sandbox: on ({layers})",
    "exercise.msg.sandbox.off": "⚠ sandbox: OFF ({reason}): this code ran with your own rights, so it could read and "
    "change your files, use the network and start processes (not confined: {missing}). Grade files you did not "
    "write only where the sandbox is on (docs/exercises.md says where).",
    "exercise.msg.sandbox.unknown": "sandbox: no graded code was run",
    "exercise.msg.sandbox.part.files": "files",
    "exercise.msg.sandbox.part.network": "network",
    "exercise.msg.sandbox.part.processes": "processes",
    "error.exercise.encoding": "{path} is not UTF-8: line {line}, column {col} holds the byte {byte}, which UTF-8 "
    "does not allow (the file looks like {guess}). Save it as UTF-8 in your editor (VS Code: click the encoding in "
    "the status bar, then Save with Encoding, UTF-8), then check again.",
    "exercise.msg.status.changed": "edited since",
    "exercise.msg.list.folder": "Exercises, in data-flow order (your folder: {folder})",
    "exercise.msg.list.col.n": "#",
    "exercise.msg.list.col.name": "exercise",
    "exercise.msg.list.col.status": "status",
    "exercise.msg.list.col.title": "what you write",
    "exercise.msg.list.summary": "{passed} of {total} passing. Next: {command}",
    "exercise.msg.list.all_done": "All {total} passing: every component of the model written by hand.",
    "exercise.msg.start.wrote": "Wrote {path}. Fill in the TODO, then run:  glassformer exercise check {name}",
    "exercise.msg.start.exists": (
        "{path} already exists: nothing was written (your work is never overwritten). To start over, move it away "
        "first, e.g.  mv {path} {backup}  and run start again."
    ),
    "exercise.msg.hint": "Hint {k} of {n} for {name}:",
    "exercise.msg.hint.more": "(run  glassformer exercise hint {name}  again for the next one; --all shows all)",
    "exercise.msg.hint.none": (
        "No more hints for {name}: all three are shown (--all repeats them). The solution comes after a passing check, "
        "or with  glassformer exercise solution {name} --give-up."
    ),
    "exercise.msg.solution.refused": (
        "The solution of {name} is shown once your check passes (glassformer exercise check {name}). To see it now "
        "anyway: glassformer exercise solution {name} --give-up"
    ),
    "exercise.msg.solution.header": "# Reference solution of {name} (SOLUTION in glassformer/exercises/{path})",
    "exercise.msg.grade.title": "Exercise grades",
    "exercise.msg.grade.legend": "Legend: {marks}",
    "exercise.msg.grade.col.student": "student",
    "exercise.msg.grade.col.passed": "passed",
    "exercise.msg.grade.per_exercise": "Students passing each exercise",
    "exercise.msg.grade.mistakes": "Recognised mistakes, most frequent first",
    "exercise.msg.grade.wrote": "Graded {students} students × {exercises} exercises: {csv} and {md}",
    "exercise.msg.export.wrote": (
        "Wrote {n} files to {folder}: NAME.npz (arrays) and NAME.json (shapes, tolerance) per exercise, and "
        "manifest.json."
    ),
    # -------- skel
    "exercise.skel.header": (
        "Exercise {n}/{total} · {name} — {title}\n"
        "\n"
        "Write {fns} below, by hand. Check your work with\n"
        "    glassformer exercise check {name}\n"
        "and ask for hints, one at a time, with\n"
        "    glassformer exercise hint {name}"
    ),
    "exercise.skel.allowed": "Use:",
    "exercise.skel.forbidden": "Not allowed here:",
    "exercise.skel.never": "Never: importing glassformer (it is what you are graded against), exec/eval.",
    "exercise.skel.plugs": (
        "Once it passes (with {required}), `glassformer train --use-mine DIR` trains a model with your code in "
        "place of {target} (docs/exercises.md)."
    ),
    "exercise.skel.mirrors": "It computes what {target} computes in glassformer (docs/exercises.md).",
    # -------- errors the exercises raise
    "error.exercise.use_mine.missing": (
        "--use-mine {folder}: no {files} there. Write them with `glassformer exercise start NAME --dir {folder}` "
        "and make them pass first."
    ),
    "error.exercise.use_mine.failing": (
        "--use-mine {folder}: {failing} do not pass yet; run `glassformer exercise check {first} --dir {folder}` "
        "to see why."
    ),
    "error.exercise.use_mine.model": "--use-mine cannot compute this model: {problems}.",
    "error.exercise.use_mine.trial": (
        "--use-mine {folder}: your functions pass one by one but fail together in the model ({error}); nothing was "
        "written. Fix it and run the same command again."
    ),
    "exercise.use_mine.dropout": "dropout={dropout} (your functions have no dropout: pass --dropout=0)",
    "exercise.use_mine.mha_style": (
        "mha_style='{style}' (your multi-head attention reads one packed qkv matrix: pass --mha_style=packed)"
    ),
    "exercise.use_mine.norm": "norm='{norm}' (your block is pre-LN: pass --norm=pre)",
    "error.exercise.no_students": (
        "{folder} holds no student folders (one folder per student, each with that student's exercise files, "
        "e.g. alice/softmax.py)."
    ),
    "error.exercise.twin_disagrees": (
        "internal: glassformer and its NumPy twin disagree on {name} case {case}: the exercise is broken, "
        "not your code."
    ),
    "exercise.msg.value.list": "a list of {n} values",
    "exercise.msg.noncontiguous": "non-contiguous",
    "exercise.msg.tensors": "{{{n} tensors}}",
}


ZH = {
    # -------- case
    "exercise.case.basic": "一个普通的小输入",
    "exercise.case.batch1": "batch 为 1",
    "exercise.case.t1": "T = 1（只有一个位置）",
    "exercise.case.one_head": "只有一个头（H = 1）",
    "exercise.case.heads": "多个头 (B, H, T, D)",
    "exercise.case.no_head_axis": "没有头这一维：输入 (B, T, D)，掩码 (T, T)",
    "exercise.case.cross": "T_q ≠ T_k（query 与 key 长度不同）",
    "exercise.case.causal": "带因果掩码",
    "exercise.case.padding": "带 padding 掩码 (B, 1, 1, T)",
    "exercise.case.dead_row": "某个 query 行的所有 key 都被遮住",
    "exercise.case.large": "数值很大（约 {scale}）",
    "exercise.case.masked_entries": "部分元素已经是 -inf",
    "exercise.case.noncontig": "非连续输入（转置得到的视图）",
    "exercise.case.no_bias": "没有偏置（None）",
    "exercise.case.no_batch_axis": "二维输入 (T, C)",
    "exercise.case.random": "随机用例 #{i}",
    # -------- softmax
    "exercise.softmax.title": "数值稳定的 softmax",
    "exercise.softmax.doc.softmax": (
        "沿 `dim` 做 softmax：把分数变成加起来等于 1 的概率。\n"
        "\n"
        "    softmax(x)_i = exp(x_i - m) / Σ_j exp(x_j - m),   m = max_j x_j\n"
        "\n"
        "减去 m 在数学上不改变结果，却能防止 exp 溢出（float64 中 exp 超过约 709 就是 inf）。\n"
        "等于 -inf 的元素概率为 0。\n"
        "\n"
        "形状：x 任意形状，dim 任意一维（负数从末尾数起）-> 与 x 同形状，沿 dim 求和为 1。"
    ),
    "exercise.softmax.todo": "TODO：沿 dim 减去最大值，取指数，再除以沿 dim 的和。",
    "exercise.softmax.hint.1": (
        "只在 `dim` 这一维上操作：每次归约（max、sum）都传 dim=dim 和 keepdim=True，结果才能和 x 广播对齐。"
    ),
    "exercise.softmax.hint.2": (
        "减去的是沿 dim 每一片自己的最大值（x.amax(dim=dim, keepdim=True)），而不是整个张量的一个最大值："
        "远低于全局最大值的行会全部下溢成 0。"
    ),
    "exercise.softmax.hint.3": (
        "几乎就是答案：e = torch.exp(x - x.amax(dim=dim, keepdim=True)); return e / e.sum(dim=dim, keepdim=True)"
    ),
    "exercise.softmax.wrong.global_max": (
        "你用整个张量的一个最大值来平移。远低于它的行取指数后全是 0，0/0 = NaN。应当每一片减去自己的最大值："
        "x.amax(dim=dim, keepdim=True)。"
    ),
    "exercise.softmax.wrong.no_shift": (
        "你没有先减去最大值就取指数：logit 很大时 exp 溢出成 inf（inf/inf = NaN），很负时下溢成 0（0/0 = NaN）。先沿 "
        "dim 减去最大值，数学结果完全相同。"
    ),
    "exercise.softmax.wrong.ignores_dim": (
        "你的 softmax 总是在最后一维上做，而它应当在 `dim` 上做。每个 max 和 sum 都要传 dim=dim。"
    ),
    "exercise.softmax.wrong.sum_other_axis": (
        "你在错误的维度上归一化：分母的和必须沿 `dim`（与 max 同一维）求，并且 keepdim=True。"
    ),
    "exercise.softmax.case.one_element": "只有一个元素的 softmax（结果必须是 1）",
    "exercise.softmax.case.rows_apart": "各行尺度相差极大（约 +800、-800 和 0）",
    "exercise.softmax.case.dim": "在 dim = {dim} 上做 softmax",
    # -------- attention_scores
    "exercise.attention_scores.title": "注意力分数 Q·Kᵀ/√D",
    "exercise.attention_scores.doc.attention_scores": (
        "每个 query 与每个 key 有多匹配：每一对 (query, key) 做一次点积，再缩放。\n"
        "\n"
        "    scores = Q·Kᵀ / √D        （Vaswani 等 2017，公式 1）\n"
        "\n"
        "除以 √D 让分数的离散程度不随头宽 D 变化，后面的 softmax 就不会饱和。\n"
        "\n"
        "形状：q (..., T_q, D)，k (..., T_k, D)，前面可以有任意维（B，或 B 和 H）\n"
        "-> (..., T_q, T_k)；第 i 行是第 i 个 query 对所有 key 的分数。"
    ),
    "exercise.attention_scores.todo": "TODO：q 乘以 k 最后两维的转置，再除以 √D。",
    "exercise.attention_scores.hint.1": (
        "结果必须是 (..., T_q, T_k)：行是 query，列是 key。q (T_q, D) 和 k (T_k, D) 怎样相乘才得到它？"
    ),
    "exercise.attention_scores.hint.2": (
        "对带 batch 维的张量，k.T 会把所有维倒过来；只交换最后两维要用 k.transpose(-2, -1)。D 就是 q.size(-1)。"
    ),
    "exercise.attention_scores.hint.3": "几乎就是答案：return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))",
    "exercise.attention_scores.wrong.scale_by_d": (
        "你除以的是 D；缩放因子是 √D（math.sqrt(D)）。除以 D 会随头变宽把分数压得过小。"
    ),
    "exercise.attention_scores.wrong.no_scale": "分数没有缩放：要把 Q·Kᵀ 除以 √D。",
    "exercise.attention_scores.wrong.keys_first": (
        "你的分数矩阵转置了：行必须是 query、列必须是 key，是 q @ kᵀ，而不是 k @ qᵀ。"
    ),
    "exercise.attention_scores.wrong.scale_by_t": (
        "你除以的是 √T（序列长度）；缩放因子是 √D，即单个 query/key 向量的宽度（q.size(-1)）。"
    ),
    "exercise.attention_scores.err.T": (
        "对三维或四维张量用 k.T 会把所有维倒过来，batch 维就对不上了。请用 k.transpose(-2, -1)（或 k.mT）。"
    ),
    # -------- causal_mask
    "exercise.causal_mask.title": "因果掩码",
    "exercise.causal_mask.doc.causal_mask": (
        "解码器里谁可以看谁：位置 i 只能看位置 0..i，绝不能往后看。\n"
        "\n"
        "    mask[i, j] = True   当 j <= i（key j 在 query i 的过去，或就是 i 本身）\n"
        "                 False  当 j >  i（未来）\n"
        "\n"
        "glassformer 的约定：掩码是布尔型，True = 可以关注。\n"
        "\n"
        "形状：T 整数 -> (T, T) bool。"
    ),
    "exercise.causal_mask.todo": "TODO：构造 (T, T) 布尔矩阵，对角线及其下方为 True。",
    "exercise.causal_mask.hint.1": "行 = query 位置 i，列 = key 位置 j。哪些 (i, j) 是允许的？画出 T = 3 的情形。",
    "exercise.causal_mask.hint.2": (
        "把一列位置和一行位置比较：torch.arange(T)[:, None] 与 torch.arange(T)[None, :] 会广播成 (T, T)。"
    ),
    "exercise.causal_mask.hint.3": (
        "几乎就是答案：i = torch.arange(T)[:, None]; j = torch.arange(T)[None, :]; return j <= i   （或 "
        "torch.tril(torch.ones(T, T, dtype=torch.bool))）"
    ),
    "exercise.causal_mask.wrong.inverted": (
        "你的掩码反了：True 标在了未来。glassformer 里 True 表示可以关注：query i 能看见 j <= i 的 key。"
    ),
    "exercise.causal_mask.wrong.upper": "你的掩码让每个 query 看见自己和未来（上三角）。应当是下三角：j <= i。",
    "exercise.causal_mask.wrong.strict": (
        "你的掩码把对角线也遮住了：一个 token 看不见自己，query 0 什么都看不见（整行被遮）。用 j <= i，而不是 j < i。"
    ),
    "exercise.causal_mask.wrong.float_01": (
        "你的掩码是浮点 1.0/0.0。glassformer 的掩码是布尔型（True = 可以关注）：用 dtype=torch.bool 构造，"
        "或直接比较位置（j <= i）。"
    ),
    "exercise.causal_mask.wrong.additive": (
        "你构造的是加性掩码（0 和 -inf，加到分数上），那是另一种约定；这里的掩码是布尔型，True = 可以关注，"
        "注意力会自己把 False 变成 -inf。"
    ),
    "exercise.causal_mask.case.T": "T = {T}",
    # -------- padding_mask
    "exercise.padding_mask.title": "padding 掩码",
    "exercise.padding_mask.doc.padding_mask": (
        "对所有 query 隐藏 <PAD>：padding 的 KEY 不能得到任何注意力权重。\n"
        "\n"
        "    mask[b, 0, 0, j] = (ids[b, j] != pad_id)\n"
        "\n"
        "两个大小为 1 的维会在头和 query 上广播，所以序列 b 的每个头、每个 query 隐藏的都是同样的\n"
        "key。（padding 位置的 QUERY 仍然有输出；损失会忽略它。）\n"
        "\n"
        "形状：ids (B, T) 整数，pad_id 整数 -> (B, 1, 1, T) bool，True = 可以关注。"
    ),
    "exercise.padding_mask.todo": "TODO：把 ids 与 pad_id 比较，再加上头和 query 两个维度。",
    "exercise.padding_mask.hint.1": "哪些 token 可以被看？真实的那些：ids != pad_id，一个 (B, T) 的布尔张量。",
    "exercise.padding_mask.hint.2": (
        "分数是 (B, H, T_q, T_k)。掩码的最后一维必须是 KEY 维，H 和 T_q 对应大小为 1 的维：(B, 1, 1, T)。"
    ),
    "exercise.padding_mask.hint.3": "几乎就是答案：return (ids != pad_id)[:, None, None, :]",
    "exercise.padding_mask.wrong.inverted": "你的掩码在 padding 处为 True。True 必须表示可以关注：ids != pad_id。",
    "exercise.padding_mask.wrong.flat": (
        "你的掩码是 (B, T)。和分数 (B, H, T, T) 广播时，batch 维会被对到 query 维上。请给它 (B, 1, 1, T) 的形状。"
    ),
    "exercise.padding_mask.wrong.query_axis": (
        "你的掩码是 (B, 1, T, 1)：它遮住的是 padding 的 QUERY，而不是 padding 的 KEY。把 token 维放到最后：(B, 1, 1, "
        "T)。"
    ),
    "exercise.padding_mask.wrong.pad_is_zero": (
        "你和 0 比较，而不是和 pad_id 比较。padding 的 id 是参数：用 ids != pad_id。"
    ),
    "exercise.padding_mask.case.pad_id": "pad_id = {pad_id}（不是 0）",
    "exercise.padding_mask.case.no_padding": "完全没有 padding",
    "exercise.padding_mask.case.all_padding": "一条全是 padding 的序列",
    # -------- attention
    "exercise.attention.title": "缩放点积注意力，不出 NaN",
    "exercise.attention.doc.scaled_dot_product_attention": (
        "Attention(Q, K, V) = softmax(Q·Kᵀ/√D，被隐藏的 key 置为 -inf)·V     （Vaswani 等 2017）\n"
        "\n"
        "mask：None，或可广播到 (..., T_q, T_k) 的 bool，True = 可以关注。\n"
        "某个 query 行的 key 全被隐藏时，必须得到全零权重和零输出，绝不能是 NaN\n"
        "（对一行 -inf 做 softmax 是 0/0；一个 NaN 就会毁掉整个 batch 的损失）。\n"
        "\n"
        "形状：q (..., T_q, D)，k 和 v (..., T_k, D) -> (output (..., T_q, D),\n"
        "weights (..., T_q, T_k))；weights 每行和为 1，整行被遮时全为 0。"
    ),
    "exercise.attention.todo": (
        "TODO：算分数、遮住被隐藏的 key、对 key 做 softmax（整行被遮 -> 0）、weights @ v；两者都返回。"
    ),
    "exercise.attention.hint.1": (
        "三步：scores = q·kᵀ/√D；weights = 在最后一维（key）上做 softmax；output = weights @ v。掩码作用在分数上，"
        "发生在 softmax 之前。"
    ),
    "exercise.attention.hint.2": (
        "隐藏的 key：scores.masked_fill(~mask, float('-inf'))。所有 key 都被隐藏的行：用 mask.any(dim=-1, "
        "keepdim=True) 找出来，softmax 之前把它的分数置 0，之后把它的权重置 0。"
    ),
    "exercise.attention.hint.3": (
        "几乎就是答案：alive = mask.any(-1, keepdim=True); scores = scores.masked_fill(~mask, "
        "-inf).masked_fill(~alive, 0.0); weights = torch.softmax(scores, -1).masked_fill(~alive, 0.0); return weights "
        "@ v, weights"
    ),
    "exercise.attention.wrong.nan_dead_rows": (
        "整行被遮的 query 得到了 NaN：对全是 -inf 的一行做 softmax 就是 0/0。找出这样的行（mask.any(dim=-1, "
        "keepdim=True) 为 False），softmax 前给它有限的分数，softmax 后把它的权重置零。"
    ),
    "exercise.attention.wrong.minus_big": (
        "你用一个很大的负数（-1e9）而不是 -inf 来隐藏 key。这样整行被遮的行会把权重平均分给被隐藏的 key，padding "
        "就漏进了输出。glassformer 给这样的行零权重：用 -inf，并单独处理全被隐藏的行。"
    ),
    "exercise.attention.wrong.inverted_mask": (
        "你把掩码用反了：glassformer 的 True 表示可以关注，所以要在掩码为 False 的地方填分数：masked_fill(~mask, "
        "-inf)。"
    ),
    "exercise.attention.wrong.softmax_over_queries": (
        "你的 softmax 是在 query 维（dim=-2）上做的：每一列和为 1。应当是每个 query 对所有 key 的权重和为 1：在 dim=-1 "
        "上做 softmax。"
    ),
    "exercise.attention.wrong.scale_by_d": "你把分数除以了 D；缩放因子是 √D。",
    "exercise.attention.wrong.no_scale": (
        "分数没有缩放：softmax 之前要把 Q·Kᵀ 除以 √D。不缩放时分数的波动随 √D 增大，softmax 几乎变成 one-hot。"
    ),
    "exercise.attention.wrong.mask_after_softmax": (
        "你在 softmax 之后才把被遮的权重置零，各行的和就不再是 1。应当在 softmax 之前用 -inf 遮住分数，让可见的 key "
        "分掉全部权重。"
    ),
    # -------- heads
    "exercise.heads.title": "拆分成多个头，再合并回来",
    "exercise.heads.doc.split_heads": (
        "把每个 token 的 C 个特征切成 H 个头，每头 D = C / H 个特征，头这一维放到前面。\n"
        "\n"
        "    (B, T, C) -> (B, T, H, D) -> transpose(1, 2) -> (B, H, T, D)\n"
        "\n"
        "一个 token 的第 h·D .. (h+1)·D 个特征属于头 h。这样每个头都是独立的 (T, D) 矩阵，\n"
        "注意力可以一次对所有头计算。\n"
        "\n"
        "形状：x (B, T, C)，n_heads H 整除 C -> (B, H, T, D)。"
    ),
    "exercise.heads.doc.merge_heads": (
        "split_heads 的逆运算：把各头的输出重新并排放在一起。\n"
        "\n"
        "    (B, H, T, D) -> transpose(1, 2) -> (B, T, H, D) -> reshape -> (B, T, H·D)\n"
        "\n"
        "形状：z (B, H, T, D) -> (B, T, C)，C = H·D。"
    ),
    "exercise.heads.todo": "TODO：用 reshape 分出头，再用 transpose 把头这一维放到该在的位置。",
    "exercise.heads.hint.1": (
        "reshape 从不移动数字，只是重新分组。(B, T, C) -> (B, T, H, D) 是纯粹的重新分组；要让 H 排到 T 前面，需要 "
        "transpose。"
    ),
    "exercise.heads.hint.2": (
        "transpose 之后张量不再连续：对它调用 .view() 会失败。请用 .reshape()（或 .contiguous().view()）。"
    ),
    "exercise.heads.hint.3": (
        "几乎就是答案：拆分：x.reshape(B, T, H, C // H).transpose(1, 2)   合并：z.transpose(1, 2).reshape(B, T, H * D)"
    ),
    "exercise.heads.wrong.split_no_transpose": (
        "你把 (B, T, C) 直接 reshape 成 (B, H, T, D)：形状对了，但每个“头”里装的是好几个 token 的碎片。先 reshape 成 "
        "(B, T, H, D)，再 transpose(1, 2)。"
    ),
    "exercise.heads.wrong.split_features_interleaved": (
        "你的每个头取的是每隔 H 个的特征（reshape 成 (B, T, D, H)）。头 h 应当拿到连续的一块特征 h·D .. (h+1)·D："
        "reshape 成 (B, T, H, D)。"
    ),
    "exercise.heads.wrong.merge_no_transpose": (
        "合并头时漏了 transpose：把 (B, H, T, D) 直接 reshape 成 (B, T, C) 会把不同头的 token 混在一起。先转置成 (B, "
        "T, H, D)，再 reshape。"
    ),
    "exercise.heads.wrong.merge_features_interleaved": (
        "你的合并把各头的特征交错排列了。头 h 的 D 个特征必须并排放在 h·D .. (h+1)·D：z.transpose(1, 2).reshape(B, T, "
        "H·D)。"
    ),
    "exercise.heads.case.d1": "每个头只有一个特征（D = 1）",
    # -------- multi_head_attention
    "exercise.multi_head_attention.title": "多头自注意力",
    "exercise.multi_head_attention.doc.multi_head_attention": (
        "多头自注意力，Q、K、V 共用一个打包的投影（GPT-2 的布局）。\n"
        "\n"
        "    1) qkv = x·W_qkvᵀ + b_qkv；W_qkv 的行依次是 [全部 query | 全部 key | 全部 value]\n"
        "    2) 把 q、k、v 拆成 H 个头；每个头内部做注意力（缩放 √D，D = C / H）\n"
        "    3) 合并各头；out = merged·W_outᵀ + b_out\n"
        "\n"
        "权重采用 PyTorch 的 (out, in) 布局，偏置可以是 None。mask 与注意力练习相同：\n"
        "bool，True = 可以关注；整行被遮得到 0，不能是 NaN。\n"
        "\n"
        "形状：x (B, T, C)，w_qkv (3C, C)，b_qkv (3C,)，w_out (C, C)，b_out (C,) -> (B, T, C)。"
    ),
    "exercise.multi_head_attention.todo": "TODO：投影，拆成 q、k、v 和各个头，做注意力，合并，再投影。",
    "exercise.multi_head_attention.hint.1": (
        "每一块你都已经写过了：attention.py 和 heads.py。导入它们（from attention import scaled_dot_product_attention）"
        "或者把代码抄进来。"
    ),
    "exercise.multi_head_attention.hint.2": (
        "x @ w_qkv.T 得到 (B, T, 3C)；.split(C, dim=-1) 得到各为 (B, T, C) 的 q、k、v；再把它们各自拆成头。"
        "缩放用单个头的 √D，不是 √C。"
    ),
    "exercise.multi_head_attention.hint.3": (
        "几乎就是答案：q, k, v = (split_heads(t, H) for t in (x @ w_qkv.T + b_qkv).split(C, -1)); z, _ = "
        "scaled_dot_product_attention(q, k, v, mask); return merge_heads(z) @ w_out.T + b_out"
    ),
    "exercise.multi_head_attention.wrong.merge_no_transpose": (
        "合并头时漏了 transpose：把 z (B, H, T, D) 直接 reshape 成 (B, T, C) 会把不同头的 token 混在一起。先转置成 (B, "
        "T, H, D)。"
    ),
    "exercise.multi_head_attention.wrong.split_no_transpose": (
        "拆分头时漏了 transpose：把 (B, T, C) 直接 reshape 成 (B, H, T, D) 会切穿各个 token。先 reshape 成 (B, T, H, "
        "D)，再 transpose(1, 2)。"
    ),
    "exercise.multi_head_attention.wrong.scale_by_d_model": (
        "你用 √C（d_model）缩放；每个头的分数应当除以 √D，即它自己的宽度 D = C / H。"
    ),
    "exercise.multi_head_attention.wrong.no_scale": (
        "分数没有缩放：softmax 之前，每个头都要把 Q·Kᵀ 除以 √D，即该头的宽度 D = C / H。"
    ),
    "exercise.multi_head_attention.wrong.no_out_proj": (
        "缺少输出投影：合并各头之后要乘 w_out.T 再加 b_out，正是它把各头的结果混合起来。"
    ),
    "exercise.multi_head_attention.wrong.qkv_per_head": (
        "你把 w_qkv 的行当成了 [头 0 的 q k v | 头 1 的 q k v | ...]。glassformer 的布局是 [全部 query | 全部 key | "
        "全部 value]：先把投影切成三段各 C 宽，再拆成头。"
    ),
    # -------- sinusoidal
    "exercise.sinusoidal.title": "正弦位置编码表",
    "exercise.sinusoidal.doc.sinusoidal_table": (
        "《Attention Is All You Need》（§3.5）中固定的位置编码表：\n"
        "\n"
        "    P[p, 2i]   = sin(p / 10000^(2i/C))\n"
        "    P[p, 2i+1] = cos(p / 10000^(2i/C))\n"
        "\n"
        "每一对 (sin, cos) 以自己的频率旋转；C 为奇数时正弦列比余弦列多一列。\n"
        "用 float64 计算。\n"
        "\n"
        "形状：max_len L，d_model C -> (L, C) float64；第 p 行是位置 p（从 0 开始）。"
    ),
    "exercise.sinusoidal.todo": "TODO：位置排成一列，频率排成一行，相乘得到角度；偶数特征取 sin，奇数特征取 cos。",
    "exercise.sinusoidal.hint.1": (
        "i 数的是特征的“对”：特征 2i 和 2i+1 共用频率 1/10000^(2i/C)。torch.arange(0, C, 2) 列出所有的 2i。"
    ),
    "exercise.sinusoidal.hint.2": (
        "angles = 位置 (L, 1) / 10000 ** (two_i / C) (1, ceil(C/2))，靠广播得到；然后 table[:, 0::2] = sin(angles)，"
        "table[:, 1::2] = cos(angles[:, :C // 2])。"
    ),
    "exercise.sinusoidal.hint.3": (
        "几乎就是答案：p = torch.arange(L, dtype=torch.float64)[:, None]; a = p / 10000.0 ** (torch.arange(0, C, 2, "
        "dtype=torch.float64) / C); t = torch.zeros(L, C, dtype=torch.float64); t[:, 0::2] = a.sin(); t[:, 1::2] = "
        "a[:, :C // 2].cos()"
    ),
    "exercise.sinusoidal.wrong.sin_cos_swapped": (
        "正弦和余弦放反了：论文把 sin 放在偶数特征（2i），cos 放在奇数特征（2i+1）。第 0 行必须是 [0, 1, 0, 1, ...]。"
    ),
    "exercise.sinusoidal.wrong.halves": (
        "你把所有正弦放在前半、所有余弦放在后半。glassformer（和论文）是交错排列的：sin 在 2i，cos 在 2i+1。"
    ),
    "exercise.sinusoidal.wrong.column_frequency": (
        "你的频率用了列号 j（10000^(j/C)）；它应当用这一对的偶数下标 2i，让特征 2i 和 2i+1 共用同一个频率。"
    ),
    "exercise.sinusoidal.wrong.starts_at_one": "你的位置从 1 开始；第一个位置是 0（第 0 行必须是 [0, 1, 0, 1, ...]）。",
    "exercise.sinusoidal.case.size": "max_len = {L}，d_model = {C}",
    "exercise.sinusoidal.case.max_len1": "只有一个位置（max_len = 1）",
    "exercise.sinusoidal.case.odd": "d_model = {C} 为奇数",
    # -------- layer_norm
    "exercise.layer_norm.title": "LayerNorm 层归一化",
    "exercise.layer_norm.doc.layer_norm": (
        "把每个 token 的特征归一化到均值 0、方差 1，再缩放和平移：\n"
        "\n"
        "    LayerNorm(x) = γ · (x - mean) / √(var + ε) + β        （Ba、Kiros 与 Hinton 2016）\n"
        "\n"
        "mean 和 var 在最后一维上计算；var 是有偏方差（除以 C，不是 C - 1）：它描述的就是这 C 个数，\n"
        "不是在估计什么总体。ε 放在根号里面。\n"
        "\n"
        "形状：x (..., C)，weight γ (C,)，bias β (C,) 或 None，eps 浮点数 -> (..., C)。"
    ),
    "exercise.layer_norm.todo": "TODO：在最后一维上求均值和方差，归一化，再乘 weight、加 bias。",
    "exercise.layer_norm.hint.1": (
        "每个统计量都是按 token 算的：在 dim=-1 上归约并 keepdim=True，这样才能广播回 C 个特征。"
    ),
    "exercise.layer_norm.hint.2": (
        "var = ((x - mean) ** 2).mean(-1, keepdim=True)，即有偏方差。torch.var 默认除以 C - 1：若用它，要传 "
        "unbiased=False。另外 ε 在根号里：√(var + ε)。"
    ),
    "exercise.layer_norm.hint.3": (
        "几乎就是答案：mean = x.mean(-1, keepdim=True); var = ((x - mean) ** 2).mean(-1, keepdim=True); y = (x - mean) "
        "/ torch.sqrt(var + eps) * weight; return y + bias if bias is not None else y"
    ),
    "exercise.layer_norm.wrong.bessel": (
        "你的方差除以 C - 1（贝塞尔校正，torch.var 的默认行为）。LayerNorm 用的是有偏方差，除以 C：torch.var(..., "
        "unbiased=False) 或 ((x - mean) ** 2).mean(-1)。"
    ),
    "exercise.layer_norm.wrong.eps_outside": (
        "你把 ε 加在了标准差上；它应当在根号里：(x - mean) / √(var + ε)。当一个 token 的各特征几乎相等时，"
        "差别就显现出来了。"
    ),
    "exercise.layer_norm.wrong.no_eps": (
        "漏了 ε：要除以 √(var + ε)。没有它，特征（几乎）全相等的 token 就会除以（几乎）零。"
    ),
    "exercise.layer_norm.wrong.wrong_axis": (
        "你在错误的维度上归一化（token 维，dim=1）。LayerNorm 对每个 token 在它自己的 C 个特征上归一化：dim=-1。"
    ),
    "exercise.layer_norm.wrong.no_affine": "没有应用 weight γ 和 bias β：把归一化后的 x 乘以 weight、再加上 bias。",
    "exercise.layer_norm.wrong.var_from_squares": (
        "你用 mean(x²) - mean² 计算方差。数值远离零时（这里约一百万），两项都很大且几乎相等，"
        "相减后大部分有效数字都丢了。先中心化：mean((x - mean)²)。"
    ),
    "exercise.layer_norm.case.tiny_var": "各特征几乎相等（方差远小于 ε）",
    "exercise.layer_norm.case.offset": "各特征远离零（约一百万）",
    "exercise.layer_norm.case.eps": "eps = {eps}（不是默认值）",
    # -------- feed_forward
    "exercise.feed_forward.title": "逐位置前馈网络",
    "exercise.feed_forward.doc.feed_forward": (
        "对每个 token 单独套用同一个两层 MLP：\n"
        "\n"
        "    FFN(x) = act(x·W₁ᵀ + b₁)·W₂ᵀ + b₂          （Vaswani 等 2017，§3.3）\n"
        "\n"
        "act：'relu' 即 max(h, 0) | 'gelu' 即 h·Φ(h) = h·½(1 + erf(h/√2))（精确版）|\n"
        "'gelu_tanh' 即 ½h(1 + tanh(√(2/π)(h + 0.044715h³)))（GPT-2 的近似）。\n"
        "权重采用 PyTorch 的 (out, in) 布局；偏置可以是 None。\n"
        "\n"
        "形状：x (B, T, C)，w1 (F, C)，b1 (F,)，w2 (C, F)，b2 (C,) -> (B, T, C)。"
    ),
    "exercise.feed_forward.todo": "TODO：第一个仿射变换，激活函数，第二个仿射变换。",
    "exercise.feed_forward.hint.1": (
        "W₁ 按 (out, in) = (F, C) 存放，所以 x (B, T, C) 乘 W₁ᵀ (C, F) 得到 (B, T, F)。W₂ 同理。"
    ),
    "exercise.feed_forward.hint.2": (
        "三个激活函数都手写：relu 用 torch.clamp(h, min=0)，gelu 用 torch.erf，gelu_tanh 用 torch.tanh。'gelu' "
        "指精确版。"
    ),
    "exercise.feed_forward.hint.3": (
        "几乎就是答案：h = x @ w1.T + b1; h = h * 0.5 * (1 + torch.erf(h / math.sqrt(2)))（'gelu' 时）; return h @ "
        "w2.T + b2"
    ),
    "exercise.feed_forward.wrong.no_activation": (
        "两层之间没有激活函数：连续两个仿射变换等于一个仿射变换。要对隐藏层做 act()。"
    ),
    "exercise.feed_forward.wrong.relu_always": (
        "你总是用 ReLU；应当使用参数指定的激活函数（'relu'、'gelu' 或 'gelu_tanh'）。"
    ),
    "exercise.feed_forward.wrong.tanh_for_exact": (
        "'gelu' 时你用了 tanh 近似。'gelu' 是精确的 h·Φ(h) = h·½(1 + erf(h/√2))；tanh 公式对应的是 'gelu_tanh'（GPT-2）"
        "。"
    ),
    "exercise.feed_forward.wrong.exact_for_tanh": (
        "'gelu_tanh' 时你用了精确的 erf 版 GELU。'gelu_tanh' 是 GPT-2 的近似 ½h(1 + tanh(√(2/π)(h + 0.044715h³)))。"
    ),
    "exercise.feed_forward.wrong.sigmoid_gelu": (
        "你用的是 h·sigmoid(1.702h)，GELU 的另一种近似。'gelu' 请写精确的 h·½(1 + erf(h/√2))（'gelu_tanh' 写 tanh "
        "公式）。"
    ),
    "exercise.feed_forward.wrong.act_on_output": "你对输出也做了激活。只有隐藏层要激活；第二个仿射变换就是最后一步。",
    "exercise.feed_forward.case.act": "激活函数 = '{activation}'",
    "exercise.feed_forward.case.narrow": "隐藏层比输入窄（F < C）",
    # -------- block
    "exercise.block.title": "一个 Pre-LN Transformer 块",
    "exercise.block.doc.block": (
        "按 GPT-2 的方式（Pre-LN）排布的一个块：每一半读取残差流的归一化副本，再把结果加回去；\n"
        "残差流本身从不被归一化。\n"
        "\n"
        "    x = x + MultiHeadAttention(LN₁(x), mask)\n"
        "    x = x + FFN(LN₂(x))\n"
        "\n"
        "params：块的权重，名字与 glassformer Block 的 state_dict 一致：\n"
        "ln1.weight ln1.bias attn.qkv.weight attn.qkv.bias attn.proj.weight attn.proj.bias\n"
        "ln2.weight ln2.bias ffn.fc1.weight ffn.fc1.bias ffn.fc2.weight ffn.fc2.bias\n"
        "（没有偏置时这些键不存在：用 params.get(...)）。\n"
        "\n"
        "形状：x (B, T, C) -> (B, T, C)；mask 同注意力练习；activation 和 eps 同 feed_forward\n"
        "和 layer_norm 练习。"
    ),
    "exercise.block.todo": "TODO：注意力这一半及其残差，然后 FFN 这一半及其残差。",
    "exercise.block.hint.1": (
        "用你自己的 layer_norm、multi_head_attention 和 feed_forward（从你的文件导入）。块只负责把它们排好。"
    ),
    "exercise.block.hint.2": (
        "Pre-LN：LayerNorm 作用在进入每一半的输入上，这一半的输出加到未归一化的 x 上。两个不同的 LayerNorm：注意力前用 "
        "ln1，FFN 前用 ln2。"
    ),
    "exercise.block.hint.3": (
        "几乎就是答案：x = x + multi_head_attention(layer_norm(x, p['ln1.weight'], p.get('ln1.bias'), eps), "
        "p['attn.qkv.weight'], ...); return x + feed_forward(layer_norm(x, p['ln2.weight'], ...), ...)"
    ),
    "exercise.block.wrong.post_ln": (
        "你在残差相加之后才归一化：那是 2017 年论文的 Post-LN 块，x = LN(x + f(x))。本练习是 Pre-LN：x = x + f(LN(x))。"
    ),
    "exercise.block.wrong.no_residual": (
        "缺少残差连接：要把每一半的输出加到它的输入上（x = x + ...），否则残差流会忘掉它携带的信息。"
    ),
    "exercise.block.wrong.ln_on_stream": (
        "你把残差流本身归一化了（x = LN(x)，然后 x = x + f(x)）。Pre-LN 块只归一化分支的输入：x = x + f(LN(x))。"
    ),
    "exercise.block.wrong.same_ln": "两半都用了 ln1 的权重；FFN 那一半有自己的 LayerNorm：ln2。",
    "exercise.block.wrong.parallel": (
        "你的 FFN 读的是块的输入，与注意力并行。它必须读加上注意力之后的残差流：x = x + attn(...)，然后 x = x + "
        "ffn(LN₂(x))。"
    ),
    "exercise.block.wrong.mask_ignored": (
        "掩码没有传到注意力里：要把它传给 multi_head_attention，否则每个位置都能看见未来。"
    ),
    "exercise.block.case.gelu": "激活函数 = 'gelu'",
    # -------- loss
    "exercise.loss.title": "下一个 token 的交叉熵",
    "exercise.loss.doc.next_token_loss": (
        "语言模型的损失：正确的下一个 token 的负对数概率的平均值。\n"
        "\n"
        "    loss = -1/N Σ_{{b,t}} log softmax(logits[b, t])[targets[b, t]]\n"
        "\n"
        "只对 target 不等于 ignore_index 的 N 个位置求平均。targets[b, t] 已经是位置 t 之后的那个\n"
        "token（构造 batch 时就错开了一位）：不要再错位一次。\n"
        "稳定地计算 log softmax：log Σ exp(z) = m + log Σ exp(z - m)。\n"
        "\n"
        "形状：logits (B, T, V) 浮点，targets (B, T) 整数 -> 一个标量（0 维张量）。"
    ),
    "exercise.loss.todo": "TODO：展平，去掉被忽略的位置，log softmax，取出 target 对应的元素，求平均，取负。",
    "exercise.loss.hint.1": (
        "展平：logits 变成 (B·T, V)，targets 变成 (B·T,)。只保留 target != ignore_index 的行（布尔索引）。"
    ),
    "exercise.loss.hint.2": (
        "log softmax = z - (m + log Σ exp(z - m))，m 是每行的最大值。然后取第 n 行第 targets[n] 列的元素："
        "log_probs[torch.arange(N), targets]。"
    ),
    "exercise.loss.hint.3": (
        "几乎就是答案：keep = t != ignore_index; z, t = z[keep], t[keep]; m = z.amax(-1, keepdim=True); lp = z - m - "
        "torch.log(torch.exp(z - m).sum(-1, keepdim=True)); return -lp[torch.arange(len(t)), t].mean()"
    ),
    "exercise.loss.wrong.sum_not_mean": "你对各位置求了和；损失是有效 target 上的平均值，这样它才不会随 batch 变大。",
    "exercise.loss.wrong.counts_ignored": (
        "你除以了所有位置的个数，包括被忽略的。应当只对 target 不等于 ignore_index 的 N 个位置求平均。"
    ),
    "exercise.loss.wrong.unstable": (
        "你直接计算 log(exp(z) / Σ exp(z))：logit 很大时 exp 会溢出。请用减最大值的办法：log softmax(z) = z - m - log "
        "Σ exp(z - m)。"
    ),
    "exercise.loss.wrong.shifted_again": (
        "你又把 target 错位了一次（logits[:, :-1] 对 targets[:, 1:]）。targets[b, t] 已经是位置 t 之后的 token："
        "直接比较 logits[b, t] 和 targets[b, t]。"
    ),
    "exercise.loss.wrong.sign_flipped": "你的损失是负的：它应当是对数概率平均值的相反数（对数概率 ≤ 0，损失 ≥ 0）。",
    "exercise.loss.wrong.softmax_over_time": "你的 softmax 在时间维上做。下一个 token 的分布是在词表上的：最后一维 V。",
    "exercise.loss.err.ignore": "索引越界了：被忽略的 target（ignore_index）必须在你用 target 去索引对数概率之前去掉。",
    "exercise.loss.case.ignored": "部分 target 被忽略（ignore_index = -100）",
    "exercise.loss.case.ignore_index": "ignore_index = 0（用 padding 的 id 作为被忽略的 target）",
    "exercise.loss.case.v2": "词表大小为 2",
    # -------- sampling
    "exercise.sampling.title": "top-k 与 top-p 过滤",
    "exercise.sampling.doc.top_k_filter": (
        "每行只保留最大的 k 个 logit；其余全部变成 -inf，softmax 之后概率恰好为 0。\n"
        "                                                  （Fan 等 2018）\n"
        "\n"
        "与第 k 大的值相等的 logit 全部保留。k 大于 V 时全部保留。\n"
        "\n"
        "形状：logits (B, V)，k 整数 >= 1 -> (B, V)。"
    ),
    "exercise.sampling.doc.top_p_filter": (
        "核采样过滤：按概率从大到小保留 token，直到它们的概率之和达到 p。\n"
        "                                                  （Holtzman 等 2020）\n"
        "\n"
        "按概率降序排序。排在第 r 位的 token，如果排在它前面的 token 概率之和仍小于 p，就保留：\n"
        "把总和推到 p 或以上的那个 token 要保留，概率最大的 token 总会保留。p >= 1 时全部保留。\n"
        "被丢掉的 logit -> -inf。\n"
        "\n"
        "形状：logits (B, V)，p 为 (0, 1] 中的浮点数 -> (B, V)，保持原来的词表顺序。"
    ),
    "exercise.sampling.todo": "TODO：见文档字符串；返回被过滤的元素置为 -inf 的 logits。",
    "exercise.sampling.hint.1": (
        "top-k：torch.topk(logits, k).values[:, -1:] 就是每行第 k 大的值，(B, 1)。top-p：在排序后的顺序里做判断，"
        "再把结果放回词表顺序。"
    ),
    "exercise.sampling.hint.2": (
        "top-p：probs = 排序后 logits 的 softmax；mass_before = cumsum(probs) - probs 是排在前面的 token 的概率之和。"
        "在 mass_before >= p 处丢掉。用 scatter(-1, order, ...) 撤销排序。"
    ),
    "exercise.sampling.hint.3": (
        "几乎就是答案：top-k：logits.masked_fill(logits < kth, -inf)。  top-p：s, order = torch.sort(logits, -1, "
        "descending=True); pr = s.softmax(-1); drop = (pr.cumsum(-1) - pr) >= p; return "
        "logits.masked_fill(torch.zeros_like(drop).scatter(-1, order, drop), -inf)"
    ),
    "exercise.sampling.wrong.top_k_exactly_k": (
        "你按下标恰好保留 k 个 token，与第 k 大的值并列的那些被随意砍掉了。应保留所有 >= 第 k 大值的 logit：logits < "
        "kth 的才变成 -inf。"
    ),
    "exercise.sampling.wrong.top_k_drops_kth": (
        "你把第 k 大的那个也丢掉了（logits <= kth）：只剩 k - 1 个。只丢严格更小的：logits < kth。"
    ),
    "exercise.sampling.wrong.top_p_drops_crossing": (
        "你丢掉了把总和推过 p 的那个 token（cumsum > p），而当最大的 token 单独就超过 p 时会把所有 token 都丢掉。"
        "应当在排在它前面的概率和仍小于 p 时保留它：(cumsum - probs) < p。"
    ),
    "exercise.sampling.wrong.top_p_unsorted": (
        "你的累积和是按词表顺序算的。应当先按概率降序排序，在排序后的顺序里判断，再用 scatter 放回去。"
    ),
    "exercise.sampling.case.k": "k = {k}",
    "exercise.sampling.case.ties": "与第 k 大的值并列（k = {k}）",
    "exercise.sampling.case.k_large": "k = {k}，大于词表大小",
    "exercise.sampling.case.p": "p = {p}",
    "exercise.sampling.case.peaked": "一个 token 几乎占据全部概率（p = {p}）",
    # -------- kv_cache
    "exercise.kv_cache.title": "带 KV 缓存的一步解码",
    "exercise.kv_cache.doc.decode_step": (
        "只为一个新 token 做多头注意力，复用它之前 L 个 token 的 key 和 value，而不是重新计算\n"
        "（因果模型的过去永远不变）。\n"
        "\n"
        "    q, k, v = (x_new·W_qkvᵀ + b_qkv) 拆成的头           各为 (B, H, 1, D)\n"
        "    keys = [k_cache ; k]，values = [v_cache ; v]       (B, H, L+1, D)\n"
        "    out  = merge(softmax(q·keysᵀ/√D)·values)·W_outᵀ + b_out\n"
        "\n"
        "不需要掩码：每个缓存的 key 都在新 token 的过去。L 可以为 0。\n"
        "\n"
        "形状：x_new (B, 1, C)，k_cache 和 v_cache (B, H, L, D)，权重同 multi_head_attention\n"
        "-> (out (B, 1, C)，keys (B, H, L+1, D)，values (B, H, L+1, D))。"
    ),
    "exercise.kv_cache.todo": "TODO：投影新 token，把它的 key 和 value 接到缓存后面，做注意力，合并，投影。",
    "exercise.kv_cache.hint.1": (
        "新的计算只针对新 token：像 multi_head_attention 投影 x 那样投影 x_new，得到形状为 (B, H, 1, D) 的 q、k、v。"
    ),
    "exercise.kv_cache.hint.2": (
        "沿时间维 dim=2 拼接：torch.cat([k_cache, k], dim=2)。唯一的 query 关注全部 L+1 个 key；"
        "这里因果掩码什么也不用遮。"
    ),
    "exercise.kv_cache.hint.3": (
        "几乎就是答案：keys = torch.cat([k_cache, k], 2); values = torch.cat([v_cache, v], 2); z = torch.softmax(q @ "
        "keys.transpose(-2, -1) / math.sqrt(D), -1) @ values; out = z.transpose(1, 2).reshape(B, 1, C) @ w_out.T + "
        "b_out; return out, keys, values"
    ),
    "exercise.kv_cache.wrong.forgot_new_key": (
        "新 token 只关注了缓存里的 key：要在做注意力之前把它自己的 key 和 value 接上去（一个 token 总能看见自己）。"
    ),
    "exercise.kv_cache.wrong.only_new_token": (
        "新 token 只关注了它自己：缓存根本没被读取。应当关注 [缓存的 key ; 新的 key]。"
    ),
    "exercise.kv_cache.wrong.stale_cache": (
        "你返回的缓存里没有新 token。要返回接上新 token 之后的 key 和 value，(B, H, L+1, D)：下一步需要它们。"
    ),
    "exercise.kv_cache.wrong.causal_mask_on_step": (
        "你对唯一的新 query 用了因果掩码；按长度 1 构造的掩码会遮住除第一个以外的所有 key。最新的 token "
        "可以看见所有缓存的 key：解码的一步不需要掩码。"
    ),
    "exercise.kv_cache.err.cat": "torch.cat 要求除拼接维以外的各维都相同：沿时间维 dim=2 拼接两个 (B, H, ·, D) 张量。",
    "exercise.kv_cache.case.empty": "空缓存（L = 0：第一个 token）",
    "exercise.kv_cache.case.one_cached": "缓存里有一个 token（L = 1）",
    # -------- fruit
    "exercise.fruit.title": "第一课的水果注意力，手算",
    "exercise.fruit.doc.fruit_attention": (
        "第一课（glassformer lesson fruit）：苹果、香蕉和橙子，每个是 E 的一行（甜度，酸度），\n"
        "再加上三个手工设定的投影。全程使用行向量：\n"
        "\n"
        "    Q = E·W_Q   K = E·W_K   V = E·W_V\n"
        "    weights = 对 (Q·Kᵀ / √d_k) 的每一行做 softmax        output = weights·V\n"
        "\n"
        "形状：E (T, d_model)，W_Q 和 W_K (d_model, d_k)，W_V (d_model, d_v)\n"
        "-> (weights (T, T)，output (T, d_v))。"
    ),
    "exercise.fruit.todo": "TODO：投影，打分，缩放，每行做 softmax，加权混合 value 行。",
    "exercise.fruit.hint.1": "一个词是 E 的一行，所以投影是 E @ W（而不是列向量习惯的 W @ x）。",
    "exercise.fruit.hint.2": (
        "scores = Q @ K.T 是 (T, T)：第 i 行是词 i 的 query 对所有 key 的分数。用 √d_k 缩放（d_k 是 K 的列数）；"
        "沿每一行（dim=-1）做 softmax。"
    ),
    "exercise.fruit.hint.3": (
        "几乎就是答案：Q, K, V = E @ W_Q, E @ W_K, E @ W_V; w = torch.softmax(Q @ K.T / math.sqrt(K.size(1)), dim=-1); "
        "return w, w @ V"
    ),
    "exercise.fruit.wrong.column_convention": (
        "你用转置后的矩阵做投影（E·Wᵀ），这是把列向量习惯 W·x 用到了行向量上。词是行时，Q = E·W_Q。"
        "（第一课所依据的教程里，有几行就是这样算出来的。）"
    ),
    "exercise.fruit.wrong.softmax_over_columns": (
        "你的 softmax 是沿列（dim=0）做的。每个词对其他词的权重构成一行，这一行的和为 1：dim=-1。"
    ),
    "exercise.fruit.wrong.no_scale": "分数没有缩放：要把 Q·Kᵀ 除以 √d_k。",
    "exercise.fruit.wrong.scale_by_d": "你除以的是 d_k；缩放因子是 √d_k。",
    "exercise.fruit.wrong.weights_transposed": (
        "你用转置后的权重来混合 value 行。输出第 i 行 = Σ_j weights[i, j]·V[j]：weights @ V。"
    ),
    "exercise.fruit.case.fruit": "课程里的苹果、香蕉、橙子",
    "exercise.fruit.case.reordered": "同样三个词换一种顺序",
    "exercise.fruit.case.one_word": "只有一个词",
    "exercise.fruit.case.shapes": "T = {T}，d_model = {d_model}，d_k = {d_k}，d_v = {d_v}（非方阵投影）",
    # -------- forbid
    "exercise.forbid.softmax": "PyTorch 自带的 softmax：本练习就是要你自己写它。",
    "exercise.forbid.attention": "PyTorch 自带的注意力：本练习就是要你自己写它。",
    "exercise.forbid.layer_norm": "自带的归一化层：本练习就是要你自己写它。",
    "exercise.forbid.linear": "自带的线性层：请写 x @ W.T + b。",
    "exercise.forbid.gelu": "PyTorch 自带的 GELU：请用 torch.erf 写（'gelu_tanh' 用 torch.tanh）。",
    "exercise.forbid.loss": "自带的损失函数或 log-softmax：本练习就是要你自己写它。",
    "exercise.forbid.glassformer": "glassformer 本身：你的代码正是拿它来评分的，请自己写。",
    "exercise.forbid.dynamic": "动态代码（exec、eval、__import__、importlib）会隐藏你实际调用了什么：请直接写调用。",
    "exercise.forbid.star": "从库里 import * 会隐藏你调用的是哪个函数：请导入模块（import torch.nn.functional as F）。",
    "exercise.forbid.internals": (
        "torch 的内部（torch._C、torch.overrides）或函数的内部（__closure__、__code__）：它们能碰到评分器自己的检查，"
        "你的代码不可以关掉这些检查。"
    ),
    "exercise.forbid.guard": "你的代码运行时，评分器对禁用操作的检查被关掉或改动了：它必须一直开着。",
    # -------- err
    "exercise.err.view": (
        ".view() 需要连续的张量，而转置后的张量不是。请用 .reshape()（必要时它会复制），或 .contiguous().view()。"
    ),
    "exercise.err.matmul": (
        "矩阵乘法的内维对不上。权重按 (out, in) 存放：要乘 W.T（x @ W.T），并对照文档字符串检查每个张量的形状。"
    ),
    "exercise.err.inplace": (
        "你原地修改了输入（+=、x[...] = 、以 _ 结尾的操作）。输入必须保持不变：新建张量（用 x = x - m 代替 x -= m）。"
    ),
    "exercise.err.broadcast": (
        "两个张量的形状对不上。打印两个操作数的形状，与文档字符串里的形状约定对照（keepdim=True 会保留被归约的维，"
        "方便广播）。"
    ),
    "exercise.err.dtype": (
        "不同 dtype 的张量相遇了。输入是 float64：新建张量时用 dtype=x.dtype（以及 device=x.device）。"
    ),
    "exercise.err.memory": (
        "你的代码申请的内存超过了检查允许的上限（用例都很小）：找找大小随不该增长的量而增长的张量，比如 (V, V) 或 (T, "
        "T, T) 的中间结果。"
    ),
    # -------- msg
    "exercise.msg.why.dtype": (
        "dtype 与参考答案不同。输入是 float64：新建张量时用 dtype=x.dtype（torch.zeros(..., dtype=x.dtype)）；掩码是 "
        "bool。"
    ),
    "exercise.msg.why.type": "请返回 torch 张量（不是 NumPy 数组、列表或 Python 数字）。",
    "exercise.msg.why.count": "函数返回值的个数不对；文档字符串按顺序列出了要返回什么。",
    "exercise.msg.why.grad_missing": (
        "梯度没有传回某个输入。你是否用了 .detach()、.data、.item()、.tolist()、NumPy，或对输入调用了 "
        "torch.tensor(...)？每一步都应当是对输入做的 torch 运算。"
    ),
    "exercise.msg.why.twin_slope": (
        "你的输出一致，梯度也与 glassformer 的自动求导一致，但 NumPy 孪生实现的有限差分不一致：用普通的 torch "
        "运算不应出现这种情况。检查是否用了自定义 autograd Function 或 .detach() 之类的技巧。"
    ),
    "exercise.msg.why.shape": "形状与参考答案不同：把每一步的形状与文档字符串里的形状约定对照。",
    "exercise.msg.why.nan": (
        "你的输出在参考答案有数值的地方出现了 NaN：找找 0/0、inf - inf 或 inf/inf（大数取指数，"
        "或一行没有可归一化的东西）。"
    ),
    "exercise.msg.grad_note.no_graph": "你的输出与输入之间没有计算图相连",
    "exercise.msg.grad_note.unused": "这个输入没有影响你的输出",
    "exercise.msg.grad_note.shape": "你的输出形状不对",
    "exercise.msg.grad_note.count": "输出个数不对",
    "exercise.msg.no_start": "运行你代码的进程无法启动：{stderr}",
    "exercise.msg.quota": "你的代码写入的文件超过 {mib} MiB，已被停止（练习不需要写任何文件）。",
    "exercise.msg.protocol": (
        "{reason}：提交的代码不能替评分器作答（自己写结果、自称已完成，或带着自己的结果结束进程）；"
        "写好这些函数，让评分器来调用它们。"
    ),
    "exercise.msg.not_graded": "✗ 未评分：运行你代码的进程传回的不是评分器所要的内容。",
    "exercise.msg.header": "练习 {n}/{total} · {name} —— {title}",
    "exercise.msg.file": "文件 {path}",
    "exercise.msg.missing": "✗ {path} 不存在。用这条命令开始：  glassformer exercise start {name}",
    "exercise.msg.syntax": "✗ {path} 第 {line} 行第 {col} 列有语法错误：{message}",
    "exercise.msg.forbidden": "✗ 拒绝评分：你的代码调用了本练习要你亲手写的东西。",
    "exercise.msg.offence": "{path} 第 {line} 行：{name} —— {why}",
    "exercise.msg.offence_file": "{path}（运行之后查出）：{name} —— {why}",
    "exercise.msg.no_function": "✗ 你的文件里没有定义函数 {fns}（名字必须和骨架里的一致）。",
    "exercise.msg.timeout": (
        "✗ 运行 {seconds} 秒后被终止：你的代码没有结束（死循环？巨大的张量？）。其他一切都没有受影响；改好后再运行 "
        "glassformer exercise check {name}。"
    ),
    "exercise.msg.died": "✗ 运行你代码的进程在完成前退出了（退出码 {code}）：严重崩溃或调用了 exit()。",
    "exercise.msg.import_failed": "✗ 你的文件无法加载：",
    "exercise.msg.todo": "… 还没写完：{fns} 仍然抛出 NotImplementedError（骨架里的 TODO）。写好后再检查。",
    "exercise.msg.passed.grads": "✓ 通过：全部 {n} 个用例，输出和梯度都正确。",
    "exercise.msg.passed.outputs": "✓ 通过：全部 {n} 个用例。",
    "exercise.msg.errors": (
        "与 glassformer.nn 的最大误差 {ref}，与 numpy_ref 的最大误差 {twin}（容差 {atol} · (1 + |参考值|)）"
    ),
    "exercise.msg.next": "下一个：{command}",
    "exercise.msg.last": "这是 {total} 个练习中的最后一个：模型的每个部分都由你亲手写成。",
    "exercise.msg.failed": "✗ 未通过：{total} 个用例中通过 {passed} 个。",
    "exercise.msg.crashed": "✗ 你的代码抛出了错误：{total} 个用例中通过 {passed} 个。",
    "exercise.msg.case": "第一个失败的用例：{label}（第 {i} 个，共 {n} 个，{fn}）",
    "exercise.msg.inputs": "输入：{inputs}",
    "exercise.msg.problem.missing": "你的文件里没有定义这个函数",
    "exercise.msg.problem.count": "你返回了 {yours} 个值，应当是 {ref} 个：{names}",
    "exercise.msg.problem.type": "输出{where}：你返回的是 {yours}，应当是 torch.Tensor",
    "exercise.msg.problem.shape": "输出{where}：形状 {yours}，应当是 {ref}",
    "exercise.msg.problem.dtype": "输出{where}：dtype 为 {yours}，应当是 {ref}",
    "exercise.msg.problem.value": "输出{where}：第一个不一致的位置 {index}：你的 {yours}，参考 {ref}",
    "exercise.msg.problem.nan": "输出{where}：第一个 NaN 出现在 {index}（参考值 {ref}）",
    "exercise.msg.problem.grad_shape": "{where} 的梯度：形状 {yours}，应当是 {ref}",
    "exercise.msg.problem.grad_dtype": "{where} 的梯度：dtype 为 {yours}，应当是 {ref}",
    "exercise.msg.problem.grad_value": "{where} 的梯度：第一个不一致的位置 {index}：你的 {yours}，参考 {ref}",
    "exercise.msg.problem.grad_nan": "{where} 的梯度：第一个 NaN 出现在 {index}（参考值 {ref}）",
    "exercise.msg.problem.grad_missing": "{where} 没有梯度：{note}",
    "exercise.msg.problem.twin_slope": "{where} 的梯度沿一个随机方向：你的 {yours}，NumPy 孪生实现的有限差分 {ref}",
    "exercise.msg.maxerr": (
        "与 glassformer.nn 的最大误差 {ref}，与 numpy_ref 的最大误差 {twin}（容差 {atol} · (1 + |参考值|)）"
    ),
    "exercise.msg.error": "你的代码在 {path} 第 {line} 行抛出 {type}：  {code}\n    {message}",
    "exercise.msg.error_nowhere": "你的代码抛出 {type}：{message}",
    "exercise.msg.printed": "你的代码打印了：",
    "exercise.msg.status.passed": "已通过",
    "exercise.msg.status.failed": "未通过",
    "exercise.msg.status.crashed": "未通过（报错）",
    "exercise.msg.status.timeout": "未通过（超时）",
    "exercise.msg.status.syntax": "未通过（语法错误）",
    "exercise.msg.status.forbidden": "被拒绝（禁止的调用）",
    "exercise.msg.status.todo": "进行中（还有 TODO）",
    "exercise.msg.status.started": "已开始，尚未检查",
    "exercise.msg.status.not_started": "未开始",
    "exercise.msg.status.missing": "缺失",
    "exercise.msg.status.encoding": "拒收（不是 UTF-8）",
    "exercise.msg.sandbox.on": "沙箱：开启（{layers}）",
    "exercise.msg.sandbox.off": "⚠ 沙箱：关闭（{reason}）：这段代码以你自己的权限运行，可以读写你的文件、使用网络、"
    "启动进程（未隔离：{missing}）。不是你自己写的文件，只在沙箱开启的地方评分（见 docs/exercises.md）。",
    "exercise.msg.sandbox.unknown": "沙箱：没有运行被评分的代码",
    "exercise.msg.sandbox.part.files": "文件",
    "exercise.msg.sandbox.part.network": "网络",
    "exercise.msg.sandbox.part.processes": "进程",
    "error.exercise.encoding": "{path} 不是 UTF-8：第 {line} 行第 {col} 列是字节 {byte}，UTF-8 里不允许它出现"
    "（这个文件看起来是 {guess}）。在编辑器里把它另存为 UTF-8（VS Code：点状态栏里的编码，选“通过编码保存”，"
    "再选 UTF-8），然后再检查一次。",
    "exercise.msg.status.changed": "检查后有修改",
    "exercise.msg.list.folder": "练习列表，按数据流顺序（你的文件夹：{folder}）",
    "exercise.msg.list.col.n": "序号",
    "exercise.msg.list.col.name": "练习",
    "exercise.msg.list.col.status": "状态",
    "exercise.msg.list.col.title": "你要写的内容",
    "exercise.msg.list.summary": "已通过 {passed}/{total}。下一个：{command}",
    "exercise.msg.list.all_done": "全部 {total} 个都已通过：模型的每个组件都由你亲手写成。",
    "exercise.msg.start.wrote": "已写入 {path}。填好 TODO，然后运行：  glassformer exercise check {name}",
    "exercise.msg.start.exists": (
        "{path} 已经存在：什么都没有写（你的代码永远不会被覆盖）。如果想重新开始，先把它挪走，例如  mv {path} {backup} "
        " 再运行一次 start。"
    ),
    "exercise.msg.hint": "{name} 的提示 {k}/{n}：",
    "exercise.msg.hint.more": "（再运行一次  glassformer exercise hint {name}  看下一条；--all 显示全部）",
    "exercise.msg.hint.none": (
        "{name} 没有更多提示了：三条都已显示（--all 可再看一遍）。参考答案在检查通过后可看，或使用  glassformer "
        "exercise solution {name} --give-up。"
    ),
    "exercise.msg.solution.refused": (
        "{name} 的参考答案要在你的检查通过后才显示（glassformer exercise check {name}）。如果现在就想看：glassformer "
        "exercise solution {name} --give-up"
    ),
    "exercise.msg.solution.header": "# {name} 的参考答案（glassformer/exercises/{path} 中的 SOLUTION）",
    "exercise.msg.grade.title": "练习成绩",
    "exercise.msg.grade.legend": "图例：{marks}",
    "exercise.msg.grade.col.student": "学生",
    "exercise.msg.grade.col.passed": "通过数",
    "exercise.msg.grade.per_exercise": "每个练习的通过人数",
    "exercise.msg.grade.mistakes": "识别出的常见错误，按出现次数排序",
    "exercise.msg.grade.wrote": "已评分 {students} 名学生 × {exercises} 个练习：{csv} 和 {md}",
    "exercise.msg.export.wrote": (
        "已向 {folder} 写入 {n} 个文件：每个练习一个 NAME.npz（数组）和一个 NAME.json（形状、容差），另有 "
        "manifest.json。"
    ),
    # -------- skel
    "exercise.skel.header": (
        "练习 {n}/{total} · {name} —— {title}\n"
        "\n"
        "在下面亲手写出 {fns}。用这条命令检查：\n"
        "    glassformer exercise check {name}\n"
        "需要提示时，一次一条：\n"
        "    glassformer exercise hint {name}"
    ),
    "exercise.skel.allowed": "可以用：",
    "exercise.skel.forbidden": "这里不允许：",
    "exercise.skel.never": "任何时候都不行：导入 glassformer（你的代码正是拿它来评分的）、exec/eval。",
    "exercise.skel.plugs": (
        "它与 {required} 都通过检查后，`glassformer train --use-mine DIR` 会用你的代码代替 {target} 来训练"
        "（见 docs/exercises.md）。"
    ),
    "exercise.skel.mirrors": "它计算的正是 glassformer 中 {target} 所计算的（见 docs/exercises.md）。",
    # -------- errors the exercises raise
    "error.exercise.use_mine.missing": (
        "--use-mine {folder}：那里没有 {files}。先用 `glassformer exercise start NAME --dir {folder}` "
        "写好它们，并让它们通过检查。"
    ),
    "error.exercise.use_mine.failing": (
        "--use-mine {folder}：{failing} 还没有通过；运行 `glassformer exercise check {first} --dir {folder}` 看看原因。"
    ),
    "error.exercise.use_mine.model": "--use-mine 无法计算这个模型：{problems}。",
    "error.exercise.use_mine.trial": (
        "--use-mine {folder}：你的函数单独都通过了，但放进模型一起运行时出错（{error}）；"
        "什么也没有写入。改好后再运行同一条命令。"
    ),
    "exercise.use_mine.dropout": "dropout={dropout}（你的函数没有 dropout：请传 --dropout=0）",
    "exercise.use_mine.mha_style": (
        "mha_style='{style}'（你的多头注意力读的是一个合并的 qkv 矩阵：请传 --mha_style=packed）"
    ),
    "exercise.use_mine.norm": "norm='{norm}'（你的块是 pre-LN：请传 --norm=pre）",
    "error.exercise.no_students": (
        "{folder} 里没有学生文件夹（每个学生一个文件夹，里面是该学生的练习文件，例如 alice/softmax.py）。"
    ),
    "error.exercise.twin_disagrees": (
        "内部错误：glassformer 与它的 NumPy 孪生实现在 {name} 的第 {case} 个用例上不一致：坏的是练习本身，"
        "不是你的代码。"
    ),
    "exercise.msg.value.list": "一个含 {n} 个值的列表",
    "exercise.msg.noncontiguous": "非连续",
    "exercise.msg.tensors": "{{{n} 个张量}}",
}
