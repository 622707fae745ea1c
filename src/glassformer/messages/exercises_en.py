"""The exercises' words in English (glassformer exercise ...; src/glassformer/exercises): skeleton
docstrings, hints, case names and every message of the grader and the learner's verbs.

exercises_zh.py holds the same keys with the same {fields}. Per exercise NAME: exercise.NAME.title,
exercise.NAME.doc.FUNCTION (math + shapes), .todo, .hint.1-3, .wrong.VARIANT (the targeted message
for a known mistake), .case.* and .err.*. Shared: exercise.case.*, .forbid.*, .err.*, .msg.*, .skel.*.
Numbers are never typed in here: they come in as {fields}.
"""

TEXT = {
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
    "exercise.msg.header": "Exercise {n}/{total} · {name} — {title}",
    "exercise.msg.file": "file {path}",
    "exercise.msg.missing": "✗ {path} does not exist. Start it with:  glassformer exercise start {name}",
    "exercise.msg.syntax": "✗ Syntax error in {path}, line {line}, column {col}: {message}",
    "exercise.msg.forbidden": "✗ Refused: your code calls what this exercise asks you to write.",
    "exercise.msg.offence": "{path} line {line}: {name} — {why}",
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
    "exercise.msg.problem.grad_type": "gradient of {where}: {yours}",
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
