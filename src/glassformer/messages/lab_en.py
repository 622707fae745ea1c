"""The lab's words in English (glassformer lab ...; src/glassformer/lab): one entry per sentence.

lab_zh.py holds the same keys with the same {fields} (a test checks). Per experiment NAME:
lab.NAME.title, lab.NAME.setup; per claim: lab.CLAIM.claim (the tutorial's claim, in our words),
lab.CLAIM.rule (the verdict rule the code applies, fixed before the run: its thresholds are fields
filled from the experiment's constants) and lab.CLAIM.finding (what was measured). Shared:
lab.level.* (the three verdicts) and lab.report.* (the reports' headings). No figure is typed in.
"""

TEXT = {
    "lab.level.holds": "holds",
    "lab.level.half-true": "half-true",
    "lab.level.fails": "fails",
    "lab.report.lang": "English",
    "lab.report.index_title": "glassformer lab: the tutorials' claims, tested",
    "lab.report.index_intro": (
        "Each experiment trains or computes the small thing a claim is about, on a CPU, and applies a verdict rule "
        "that was written as code before the run. Numbers, rules and figures are in each experiment's report."
    ),
    "lab.report.commit": "Code: git commit {commit}.",
    "lab.report.commit_dirty": (
        "Code: git commit {commit}, with uncommitted changes to tracked files: the code that ran differs from that "
        "commit."
    ),
    "lab.report.no_commit": "Code: not run from a git checkout, so no commit was recorded.",
    "lab.report.setup": "Setup",
    "lab.report.claims": "Claims and verdicts",
    "lab.report.claim": "Claim",
    "lab.report.tutorial": "tutorial {tutorial} {where}",
    "lab.report.rule": "Rule (code, fixed before the run)",
    "lab.report.measured": "Measured",
    "lab.report.verdict": "Verdict",
    "lab.report.numbers": "Numbers",
    "lab.report.figures": "Figures",
    "lab.report.reproduce": "Reproduce",
    "lab.report.took": (
        "Took {seconds} s of wall time and {cpu_seconds} s of CPU time on {cpu} ({cores} cores, {threads} thread(s), "
        "torch {torch}; load average {load} at the start: the machine was shared, so the CPU time is the steadier "
        "figure)."
    ),
    "lab.report.fast": (
        "Fast mode: smoke-test sizes. The numbers show that the code runs and what it measures, not what the full run "
        "finds."
    ),
    "lab.report.seeds": "Seeds: {seeds}; where several, figures are mean ± half the range over seeds.",
    "lab.report.experiment": "Experiment",
    # ------------------------------------------------------------------ mask-fill
    "lab.mask-fill.title": "Mask fill value: -inf, -1e9 or the dtype's minimum",
    "lab.mask-fill.setup": (
        "Random queries and keys ({keys} keys, width {width}, {rows} query rows), attention rows with half the keys "
        "hidden (partly masked) or all of them (fully masked), in float32, bfloat16 and float16. The tutorials' recipe "
        "(fill the hidden scores, then softmax) against glassformer's mask-aware softmax; the reference is a float64 "
        "softmax over the visible keys, and zeros for a row that sees nothing."
    ),
    "lab.mask-fill.1e9.claim": (
        "Masked scores should be filled with -1e9 rather than -inf: exp(-1e9) is already 0 in float32, and -inf can "
        "produce NaN, which is why practitioners use -1e9."
    ),
    "lab.mask-fill.1e9.rule": (
        "Holds only if all four are true: on partly masked rows -1e9 gives the same weights as the mask-aware softmax "
        "(float32 and bfloat16); a fully masked row gives no NaN with -1e9 (float32 and bfloat16); that row puts no "
        "weight on hidden keys; float16 can use -1e9 without NaN. All false: fails; otherwise half-true."
    ),
    "lab.mask-fill.1e9.finding": (
        "exp(-1e9) in float32 = {exp}. With -inf, {nan_inf} of {cells} weights of the fully masked rows are NaN. With "
        "-1e9 in float32 and bfloat16: {nan_1e9} NaN, and a fully masked row puts up to {hidden} of its weight on keys "
        "it must not see (an even spread). float16 and -1e9: masked_fill answers “{fp16_refused}”; cast first, -1e9 "
        "becomes {fp16_fill} and gives {fp16_nan} NaN. glassformer's mask-aware softmax: {ours_nan} NaN in any dtype, "
        "{ours_hidden} weight on hidden keys."
    ),
    "lab.mask-fill.inf.claim": "A -inf score makes the softmax weight of a masked position approach 0.",
    "lab.mask-fill.inf.rule": (
        "Holds if, on partly masked rows, every hidden weight is exactly 0 and no weight is NaN, in float32, bfloat16 "
        "and float16."
    ),
    "lab.mask-fill.inf.finding": (
        "Partly masked rows with -inf, all three dtypes: {nonzero} hidden weights that are not exactly 0, {nan_partly} "
        "NaN. Fully masked rows with the plain recipe: {nan_inf} NaN out of {cells}; glassformer's softmax checks the "
        "mask and gives such a row zeros."
    ),
    # its chart's words
    "pictures.lab.mask-fill.nan_title": "NaN weights in a fully masked row (fraction)",
    "pictures.lab.mask-fill.hidden_title": "weight on hidden keys, fully masked row (max over rows)",
    "pictures.lab.mask-fill.ours": "ours",
    # ------------------------------------------------------------------ attention-steps
    "lab.attention-steps.title": "Attention across training: uniform at first, sharper later?",
    "lab.attention-steps.setup": (
        "The char model (preset baby: {layers} layers, {heads} heads, d_model {d_model}) trained on Shakespeare; every "
        "head's attention map for one fixed {probe}-character stretch of validation text recorded at chosen steps with "
        "the trainer callback that glassformer train --attention-every uses. Sharpness: each query row's entropy "
        "divided by the log of the number of keys it may see (1 = even spread, 0 = one key), averaged over the row's "
        "queries."
    ),
    "lab.attention-steps.sharpen.claim": (
        "At the start of training the attention weights are spread evenly; as training goes on they gather on a few "
        "positions."
    ),
    "lab.attention-steps.sharpen.rule": (
        "Two parts: at step 0 every head's mean normalised entropy is at least {even} (near even); at the last step "
        "the mean over heads is at least {sharper} lower than at step 0. Both: holds; one: half-true; neither: fails."
    ),
    "lab.attention-steps.sharpen.finding": (
        "At step 0 the {n} heads' normalised entropy is {first_mean} on average (lowest {first_min}); after {step} "
        "steps it is {last_mean} on average (lowest {last_min})."
    ),
    # its chart's words
    "pictures.lab.attention-steps.step": "step {step}",
    "pictures.lab.attention-steps.head": "layer {layer} · head {head}",
    "pictures.lab.attention-steps.title": "attention weights (rows = query, columns = key; white = masked)",
    # ------------------------------------------------------------------ length
    "lab.length.title": "Positions past the training length",
    "lab.length.setup": (
        "Char models (the first tutorial's TinyTransformer without dropout) trained on windows of {T} characters with "
        "every registered position scheme, then asked to read windows of {T_eval}: the validation loss at each "
        "position 1..{T_eval}. A learned table is built two ways: with max_len {T} (as one would), and with {T_eval} "
        "rows of which only the first {T} are ever trained. The first tutorial makes the same point about sinusoidal "
        "positions (seed 000, section 4.2)."
    ),
    "lab.length.sinusoidal.claim": (
        "Sinusoidal positions let a model generalise to sequence lengths it never saw in training, because the "
        "encoding of relative positions is built into the sine waves."
    ),
    "lab.length.sinusoidal.rule": (
        "Two parts: the sinusoidal model's mean loss at positions T+1..2T, and at 2T+1..{T_eval}, is at most {tol} "
        "nats above its loss at positions T/2+1..T (already trained, long context). Both: holds; one: half-true; "
        "neither: fails."
    ),
    "lab.length.sinusoidal.finding": (
        "Sinusoidal: {in} nats at positions {half} to {T}, {near} up to position {T2}, {far} from there to {T_eval}. "
        "Best scheme beyond {T2}: {best} ({best_far})."
    ),
    "lab.length.learned.claim": (
        "A learned position table (an embedding of max_len rows) must collapse when it meets sequences longer than it "
        "was trained on."
    ),
    "lab.length.learned.rule": (
        "Two parts: a learned table built for the training length cannot address longer inputs at all; and a table "
        "with rows to spare ({T_eval}, only the first {T} trained) loses at least {collapse} nats at positions "
        "2T+1..{T_eval} against T/2+1..T. Both: holds; one: half-true; neither: fails."
    ),
    "lab.length.learned.finding": (
        "Built with max_len = {max_len}, the learned model has positions 1 to {reach} of the {T_eval} it is asked to "
        "read: the rest is reported, not run. With spare rows, the never-trained rows take the loss from {in} to {far} "
        "nats (character frequencies alone: {unigram})."
    ),
    # ------------------------------------------------------------------ order
    "lab.order.title": "Order without positions",
    "lab.order.setup": (
        "First with random weights in float64: for a random permutation of {T} tokens, how far f(shuffled input) is "
        "from the shuffled f(input), for an encoder without positions, an encoder with learned positions, and a causal "
        "decoder without positions. Then causal char models trained with and without positions: their validation loss, "
        "and how much the loss at the last position rises when the tokens before it are shuffled (the last token and "
        "its target stay)."
    ),
    "lab.order.set.claim": (
        "Self-attention is a set operation: without position information, shuffling the input only shuffles the "
        "output, so the model cannot tell word order."
    ),
    "lab.order.set.rule": (
        "Two parts: the encoder without positions is permutation-equivariant (largest difference at most {equivariant}"
        "); and a trained causal decoder without positions is blind to order (shuffling its prefix raises the last "
        "position's loss by at most {blind} nats). Both: holds; one: half-true; neither: fails."
    ),
    "lab.order.set.finding": (
        "Largest difference f(x[π]) − f(x)[π]: encoder without positions {enc}; with learned positions {enc_learned}; "
        "causal decoder without positions {dec} (a causal mask tells each token how many tokens came before it). "
        "Trained: shuffling the prefix changes the no-position decoder's last-position loss by {penalty} nats (with "
        "learned positions: {penalty_learned})."
    ),
    "lab.order.stuck.claim": (
        "Remove the position embedding and the model cannot learn grammar: its loss stays where it started."
    ),
    "lab.order.stuck.rule": (
        "Holds if the causal model without positions ends no more than {stuck} nats below the loss of knowing only "
        "character frequencies; fails otherwise."
    ),
    "lab.order.stuck.finding": (
        "After {steps} steps the causal model without positions reaches {none} nats, against {learned} with learned "
        "positions, {bigram} for a table of which character follows which (no context beyond the current character) "
        "and {unigram} for character frequencies alone."
    ),
    # its chart's words
    "pictures.lab.order.gap_title": "max |f(x[π]) − f(x)[π]|, float64",
    "pictures.lab.order.case.encoder.none": "encoder\nno positions",
    "pictures.lab.order.case.encoder.learned": "encoder\nlearned positions",
    "pictures.lab.order.case.gpt.none": "causal decoder\nno positions",
    "pictures.lab.order.val_loss": "validation loss",
    "pictures.lab.order.shuffled": "loss rise when the prefix is shuffled",
    "pictures.lab.order.unigram": "character frequencies only",
    "pictures.lab.order.bigram": "bigram table (current character only)",
    "pictures.lab.order.scheme": "causal, position={position}",
    # ------------------------------------------------------------------ scaling
    "lab.scaling.title": "The 1/√D in attention: numbers or gradients?",
    "lab.scaling.setup": (
        "Queries and keys with independent standard-normal entries, {keys} keys per row, D from {D_min} to {D_max}, "
        "scores with and without the division by √D: their variance, the softmax's normalised entropy, the share of "
        "saturated rows (largest weight above {saturated}), any non-finite weight in float32, and the gradient that "
        "reaches the query when a fixed random gradient flows back through the softmax (its median, and the share of "
        "rows where it has all but vanished). Then the char model with one head (D = {D_one}) and four heads (D = "
        "{D_four}) trained both ways; the unscaled variant is a wrapper that hooks the attention scores and multiplies "
        "them by √D, so the model's own code is unchanged."
    ),
    "lab.scaling.variance.claim": (
        "Without dividing by √D, dot products grow with D, the softmax saturates and gradients become tiny; the "
        "division keeps the score variance stable, and it matters a lot for training stability."
    ),
    "lab.scaling.variance.rule": (
        "Four parts: the score variance is D (within a factor {var_low} to {var_high}) without scaling and 1 with it, "
        "at every D; at the largest D at least half of the unscaled rows saturate and at most {saturated_scaled} of "
        "the scaled ones; at the largest D at least {vanished_share} of the unscaled rows get a gradient below "
        "{vanished} and the unscaled median gradient is under half the scaled one; in training, every seed of the "
        "largest-D model without scaling ends above every seed with it. All: holds; none: fails; otherwise half-true."
    ),
    "lab.scaling.variance.finding": (
        "At D = {D}: score variance {var_scaled} with 1/√D and {var_unscaled} without; saturated rows {sat_scaled} and "
        "{sat_unscaled}; rows whose query gradient is below {vanished}: {van_scaled} and {van_unscaled}. "
        "Char model with D = {D_train}: validation loss {loss_scaled} scaled, {loss_unscaled} unscaled; "
        "runs that diverged: {diverged}."
    ),
    "lab.scaling.gradients.claim": (
        "The scaling is not for numerical stability; it is for keeping the gradients under control."
    ),
    "lab.scaling.gradients.rule": (
        "Two parts: no float32 softmax weight is non-finite at any D, scaled or not (the numbers themselves are safe); "
        "and across D the median query gradient stays within a factor {steady} with scaling but moves by a factor "
        "{moves} or more without it. Both: holds; one: half-true; neither: fails."
    ),
    "lab.scaling.gradients.finding": (
        "Non-finite weights in float32: {nonfinite}. From D = {small} to D = {big} the median query gradient moves by "
        "a factor {span_scaled} with 1/√D and {span_unscaled} without. At D = {big} without scaling: mean "
        "{mean_unscaled}, median {median_unscaled} (with scaling, median {median_scaled})."
    ),
    # its chart's words
    "pictures.lab.scaling.variance_title": "variance of the scores",
    "pictures.lab.scaling.grad_title": "median ‖∂L/∂q‖ (dashed: share of rows < {vanished})",
    "pictures.lab.scaling.scaled": "scaled",
    "pictures.lab.scaling.unscaled": "unscaled",
    "pictures.lab.scaling.d_axis": "D (d_head)",
    "pictures.lab.scaling.run": "D={D} {way}",
    "pictures.lab.scaling.train_title": "char model, with and without 1/√D",
    # ------------------------------------------------------------------ heads
    "lab.heads.title": "Many narrow heads or a few wide ones",
    "lab.heads.setup": (
        "The char model at d_model {d_model} with 1, 2, 4, 8 and 16 heads (head width D = {D_max} down to {D_min}; the "
        "parameter count does not change with the number of heads). Measured: validation loss, validation minus "
        "training loss (overfitting), and per head, read from the attention-weight hook points on fixed validation "
        "windows, the mean normalised entropy of its rows and the mean weight a query gives itself. A head is counted "
        "as diagonal when that self weight is above {diagonal}, as near-uniform when its entropy is above {uniform}."
    ),
    "lab.heads.many.claim": (
        "Too many heads hurt: with 16 heads a small model did worse than with 4, because each head's width became too "
        "small; more than half the heads only attend to their own position and the others spread evenly. Keep each "
        "head at least 64 wide."
    ),
    "lab.heads.many.rule": (
        "Three parts: every seed of the most-heads model ends above every seed of the 4-head model; in the most-heads "
        "model, diagonal plus near-uniform heads make up more than half; the model with one head of width 64 does at "
        "least as well as 4 heads on average. All: holds; none: fails; otherwise half-true."
    ),
    "lab.heads.many.finding": (
        "Validation loss: {loss_few} with {few} head (D = {D_few}), {loss_mid} with {mid}, {loss_most} with {most}. "
        "Among the {most} heads: {diag} diagonal, {uniform} near-uniform."
    ),
    "lab.heads.sharp.claim": (
        "With 8 heads the attention scores become too sharp and the model overfits its training data; with 2 heads it "
        "is too weak to capture several relations at once; 4 is the sweet spot."
    ),
    "lab.heads.sharp.rule": (
        "Three parts: 8 heads have a lower mean entropy than 4 (sharper); 8 heads' validation-minus-training gap "
        "exceeds 4 heads' by more than {overfit} nats (overfitting); every seed with 2 heads ends above every seed "
        "with 4. All: holds; none: fails; otherwise half-true."
    ),
    "lab.heads.sharp.finding": (
        "Mean normalised entropy: {ent_eight} with {eight} heads, {ent_mid} with {mid}. Validation minus training "
        "loss: {gap_eight} with {eight}, {gap_mid} with {mid}. Validation loss with {two} heads: {loss_two}; with {mid}"
        ": {loss_mid}."
    ),
    # ------------------------------------------------------------------ ffn-width
    "lab.ffn-width.title": "How wide must the feed-forward network be, and can it go?",
    "lab.ffn-width.setup": (
        "The char model (d_model C = {C}) with d_ff = 0 (no FFN), C, 2C, 4C and 8C; validation loss against the number "
        "of parameters. For d_ff = 0 the model is built normally and each block's FFN is then replaced by a module "
        "that adds nothing (and the second LayerNorm, which in a pre-LN block only feeds the FFN, by an identity), so "
        "the core needs no switch for it. Also computed: whether an FFN of width C is a linear map, from f(x + y) − "
        "f(x) − f(y) + f(0), which is zero for every x and y exactly when it is."
    ),
    "lab.ffn-width.equal.claim": (
        "With d_ff equal to d_model the FFN degenerates into a single linear map and the model does not converge at "
        "all."
    ),
    "lab.ffn-width.equal.rule": (
        "Two parts: the model with d_ff = C ends no more than {stuck} nats below the loss of knowing only character "
        "frequencies (it did not converge); and the FFN of width C is linear (relative residual below {linear}). Both: "
        "holds; one: half-true; neither: fails."
    ),
    "lab.ffn-width.equal.finding": (
        "d_ff = {C}: validation loss {loss_eq} (character frequencies alone: {unigram}; d_ff = 4C: {loss_wide}). The "
        "width-C FFN's relative residual from linearity: {nonlin}."
    ),
    "lab.ffn-width.removed.claim": (
        "Remove the FFN and the loss stays stuck far above the full model's: the FFN is what lets a Transformer think."
    ),
    "lab.ffn-width.removed.rule": (
        "Two parts: every seed without an FFN ends above every seed with d_ff = 4C; and without an FFN the loss stays "
        "within {stuck} nats of character frequencies alone (stuck). Both: holds; one: half-true; neither: fails."
    ),
    "lab.ffn-width.removed.finding": (
        "Without an FFN: {loss_none} ({params_none} parameters); with d_ff = 4C: {loss_wide} ({params_wide} "
        "parameters); character frequencies alone: {unigram}."
    ),
    # ------------------------------------------------------------------ init
    "lab.init.title": "Initialisation: Xavier, PyTorch's default, GPT-2's, and a too-large one",
    "lab.init.setup": (
        "The char model (pre-LN) and the same model without any LayerNorm (the second tutorial's block), each started "
        "four ways: PyTorch's defaults, Xavier-uniform (the tutorial's), GPT-2's N(0, 0.02) with scaled residual "
        "projections, and every matrix drawn from N(0, 1) (deliberately too large; applied after building). Training "
        "loss at fixed steps, final validation loss, runs that blew up, and at initialisation on one fixed batch: the "
        "gradient norm of each part and the spread of the attention scores."
    ),
    "lab.init.xavier.claim": (
        "Xavier initialisation is what makes the model train: weights that start too large make Q·Kᵀ explode and the "
        "softmax give NaN, weights that start too small make the gradients vanish and the loss stay put."
    ),
    "lab.init.xavier.rule": (
        "Three parts: the too-large start produces a NaN (a non-finite loss in training, or non-finite logits at "
        "initialisation); GPT-2's small start ends within {stuck} nats of character frequencies alone on both "
        "architectures (stuck); and every Xavier seed ends below every seed of both PyTorch's default and GPT-2's, on "
        "both architectures. All: holds; none: fails; otherwise half-true."
    ),
    "lab.init.xavier.finding": (
        "Validation loss after {steps} steps, pre-LN: PyTorch {preLN_torch}, Xavier {preLN_xavier}, GPT-2 {preLN_gpt2}"
        ", N(0, 1) {preLN_large}; without LayerNorm: {noLN_torch}, {noLN_xavier}, {noLN_gpt2}, {noLN_large}. Runs "
        "whose loss turned NaN: {nan_runs}. Attention-score spread at initialisation without LayerNorm: {std_large} "
        "with N(0, 1), {std_xavier} with Xavier. Character frequencies alone: {unigram}."
    ),
    # its chart's words
    "pictures.lab.init.arch.pre": "pre-LN",
    "pictures.lab.init.arch.none": "no LN",
    "pictures.lab.init.loss_title": "{arch}: training loss (mean over seeds)",
    "pictures.lab.init.run": "{arch} / {init}",
    "pictures.lab.init.grad_title": "gradient norm per block at initialisation",
    # ------------------------------------------------------------------ layernorm
    "lab.layernorm.title": "Pre-LN or Post-LN, and what warmup buys",
    "lab.layernorm.setup": (
        "Small char models (d_model {d_model}, {n_heads} heads, d_ff {d_ff}, windows of {seq_len}) at depths 2, 6 "
        "and 12, with the LayerNorm before each sublayer (Pre-LN) or after each residual addition (Post-LN, no final "
        "norm), over a sweep of learning rates, with and without a linear warmup (constant learning rate otherwise), "
        "trained through the same trainer for the same number of steps. A run fails when its loss turns non-finite or "
        "it ends no better than knowing the character frequencies. Also: the gradient norm of each block at "
        "initialisation, deepest model, one fixed batch."
    ),
    "lab.layernorm.post_unstable.claim": (
        "Post-LN is more sensitive to the learning rate and diverges easily; Pre-LN trains more stably."
    ),
    "lab.layernorm.post_unstable.rule": (
        "Two parts, without warmup: Post-LN fails in more (depth, learning rate) settings than Pre-LN; and at every "
        "depth the largest learning rate at which Pre-LN trains is at least Post-LN's. Both: holds; one: half-true; "
        "neither: fails."
    ),
    "lab.layernorm.post_unstable.finding": (
        "Without warmup, failed settings out of {cells}: Pre-LN {fails_pre}, Post-LN {fails_post}. Largest learning "
        "rate that trains at depths {depths}: Pre-LN {stable_pre}; Post-LN {stable_post}."
    ),
    "lab.layernorm.post_must.claim": (
        "The LayerNorm must come after the residual addition (Post-LN): normalising before adding lets the addition "
        "undo the normalisation, so the order cannot be reversed."
    ),
    "lab.layernorm.post_must.rule": (
        "One part per depth: at the learning rate where each order does best (no warmup), every Post-LN seed ends "
        "below every Pre-LN seed. All depths: holds; none: fails; otherwise half-true."
    ),
    "lab.layernorm.post_must.finding": (
        "Best validation loss over the learning rates at depths {depths}: Pre-LN {best_pre}; Post-LN {best_post}."
    ),
    "lab.layernorm.warmup.claim": (
        "Warmup is required: without it the loss oscillates and diverges, because LayerNorm and attention make early "
        "gradients unstable."
    ),
    "lab.layernorm.warmup.rule": (
        "Two parts: some setting fails without warmup and trains with it, for Pre-LN; and the same for Post-LN. Both: "
        "holds; one: half-true; neither: fails."
    ),
    "lab.layernorm.warmup.finding": (
        "Settings a {warmup}-step warmup rescues: Pre-LN {rescued_pre}, Post-LN {rescued_post}. Failed settings "
        "without and with warmup: Pre-LN {fails_pre} and {fails_pre_w}; Post-LN {fails_post} and {fails_post_w}."
    ),
    # its chart's words
    "pictures.lab.layernorm.lr_axis": "learning rate",
    "pictures.lab.layernorm.run": "{norm}-LN, warmup {warmup}",
    "pictures.lab.layernorm.depth_title": "depth {depth}: validation loss (× = failed)",
    "pictures.lab.layernorm.norm": "{norm}-LN",
    "pictures.lab.layernorm.grad_title": "‖gradient‖ per block at init, depth {depth}",
    # ------------------------------------------------------------------ causal-leak
    "lab.causal-leak.title": "The causal leak: without a mask, a next-token model reads its answers",
    "lab.causal-leak.setup": (
        "The hello-world lesson's measurements, shared with it: the second tutorial's one-layer model trained on "
        "independent random tokens with and without a causal mask (chance = ln S is the best an honest model can do), "
        "and the dependence of each position's prediction on later tokens. Then char models with a causal mask and "
        "without one (an encoder trained on the same next-token targets): validation loss with the whole window "
        "visible, as in training, and with only tokens 0..t visible at position t, as in generation."
    ),
    "lab.causal-leak.cheat.claim": (
        "A decoder must hide future tokens during training; without the causal mask it learns to cheat by reading them."
    ),
    "lab.causal-leak.cheat.rule": (
        "Three parts: on random tokens the unmasked model's held-out loss is below half of chance while the causal one "
        "stays within {chance_share} of chance; on text the unmasked model beats the causal one by more than {margin} "
        "nats when it sees the whole window and loses to it by more than {margin} nats when it sees only the past; and "
        "its predictions depend on later tokens (a non-zero gradient) while the causal model's dependence is exactly "
        "0. All: holds; none: fails; otherwise half-true."
    ),
    "lab.causal-leak.cheat.finding": (
        "Random tokens ({S} symbols, chance {chance}): held-out loss {none_rt} without a mask, {causal_rt} with one. "
        "Text, whole window visible: {forced_none} without, {forced_causal} with; only the past visible: {honest_none} "
        "without, {honest_causal} with. Largest dependence on a later token: {grad_none} without, {grad_causal} with."
    ),
    # its chart's words
    "pictures.lab.causal-leak.position_axis": "position",
    "pictures.lab.causal-leak.random_loss": "held-out loss, random tokens",
    "pictures.lab.causal-leak.whole": "whole window visible",
    "pictures.lab.causal-leak.prefix": "only tokens 0..t visible",
    "pictures.lab.causal-leak.text_loss": "validation loss, char model (nats)",
    # ------------------------------------------------------------------ the ledger (published results re-run)
    "lab.report.paper": "{who}, {where} ({paper})",
    "lab.report.paper_says": "The paper",
    "lab.report.ours": "Ours",
    "lab.report.not_found": "not found in the paper text available to this run",
    # per-seed steps in a sentence (lab/report.py: steps): a step, or the budget it did not happen within
    "lab.report.step": "step {step}",
    "lab.report.never": "not within {within} steps",
    "lab.report.sep": ", ",
    # ------------------------------------------------------------------ grokking
    "lab.grokking.title": "Grokking on modular addition (ledger: Power et al. 2022; Nanda et al. 2023)",
    "lab.grokking.setup": (
        "a + b mod {p} as three tokens [a, b, =], only the answer at = is a target; {fraction}% of the pairs train, "
        "the rest test. A one-layer transformer after Nanda et al., scaled down to fit a CPU: 4 heads, d_model "
        "{d_model}, ReLU MLP of 4·d_model, no LayerNorm, learned positions, Xavier-uniform initialisation (torch's "
        "N(0, 1) embedding was still at test accuracy 0.011 after 2250 steps in a trial run; Xavier passed 0.86 by "
        "step 4500). Full-batch AdamW (lr 1e-3, betas 0.9 and "
        "0.98, 10 warmup steps) for {steps} steps, weight decay {wd} on every weight, and the same run with weight "
        "decay 0 (one seed). Nanda et al. §3 train p = 113 at width d = 128 on 30% of the pairs, full-batch AdamW "
        "with learning rate 0.001 and weight decay 1, for 40,000 epochs; p, the width, the training fraction and the "
        "length differ here to fit a CPU: at p = 53, 30% did not jump within 6000 steps in a trial run, and longer "
        "runs do not fit the budget."
    ),
    "lab.grokking.delay.claim": (
        "Trained on a fraction of the addition table, the model fits its training pairs early and only much later "
        "does its accuracy on the held-out pairs jump (grokking)."
    ),
    "lab.grokking.delay.rule": (
        "With weight decay, per seed: the first recorded step with training accuracy ≥ {fit} and the first with test "
        "accuracy ≥ {jump}. Holds if every seed reaches the test jump at least {delay} times later than the training "
        "fit; half-true if some seed jumps, but not that late in every seed; fails if none jumps within the budget."
    ),
    "lab.grokking.delay.finding": (
        "p = {p}, {seeds} seed(s): training accuracy ≥ {fit}: {fit_steps}; test accuracy ≥ {jump}: {jump_steps} "
        "(budget {steps} steps)."
    ),
    "lab.grokking.delay.paper": (
        "Power et al., Figure 1 (division mod 97, 50% of the pairs train): “Training accuracy becomes close "
        "to perfect at <10^3 optimization steps, but it takes close to 10^6 steps for validation accuracy to "
        "reach that level”; section “Generalization beyond overfitting”: validation accuracy rises above "
        "chance “only after 1000 times more optimization steps” than training accuracy needs. Nanda et al., "
        "§3 (p = 113, 30% of the pairs, 40,000 epochs of full-batch AdamW): “After around 10,000 epochs, the "
        "network generalizes and test accuracy increases to near 100%”."
    ),
    "lab.grokking.delay.ours": "train fit: {fit_steps}; test jump: {jump_steps} (p = {p})",
    "lab.grokking.decay.claim": (
        "Without weight decay the jump does not come: the model stays a memoriser within the same budget."
    ),
    "lab.grokking.decay.rule": (
        "Two parts, weight decay 0, same steps: every seed fits its training pairs (accuracy ≥ {fit}); and every "
        "seed's final test accuracy stays below {no_jump}. Both: holds; one: half-true; neither: fails."
    ),
    "lab.grokking.decay.finding": "Weight decay 0: final test accuracy {final} after {steps} steps.",
    "lab.grokking.decay.paper": (
        "Power et al., section “Ablations and Tricks” (measured on permutations of S5, Figure 2 left, not on "
        "addition): “adding weight decay has a very large effect on data efficiency, more than halving the "
        "amount of samples needed compared to most other interventions”. A run with weight decay 0 on modular "
        "addition: not found in the paper text available to this run."
    ),
    "lab.grokking.decay.ours": "final test accuracy {final} without weight decay",
    "lab.grokking.fourier.claim": (
        "The trained embedding is sparse in the Fourier basis over the residues: a few key frequencies carry it."
    ),
    "lab.grokking.fourier.rule": (
        "The embedding's non-constant Fourier energy per frequency, as a share; a key frequency holds at least "
        "{key_share} times an even share. Two parts, every seed with weight decay: at most {few} key frequencies; "
        "together at least {concentrated} of the energy. Both: holds; one: half-true; neither: fails."
    ),
    "lab.grokking.fourier.finding": (
        "Weight decay: {counts} key frequencies of {K} (k = {keys}), holding {share} of the energy. Without weight "
        "decay: {control} key frequencies; at initialisation: {init}."
    ),
    "lab.grokking.fourier.paper": (
        "Nanda et al., §4.1 and Figure 3 (p = 113: 56 frequencies): “The embedding matrix W_E is sparse in "
        "the Fourier basis–it only has significant nonnegligible norm at 6 frequencies”, of which 5, k ∈ {{14, "
        "35, 41, 42, 52}}, are used in later parts of the model (the key frequencies); Appendix C.2.1: 3 or 4 "
        "key frequencies in each of the other seeds."
    ),
    "lab.grokking.fourier.ours": "{counts} key frequencies of {K}, holding {share} of the energy",
    # ------------------------------------------------------------------ induction
    "lab.induction.title": "Induction heads and the in-context-learning phase change (ledger: Olsson et al. 2022)",
    "lab.induction.setup": (
        "Attention-only models (the lab's block without its FFN) of one and two layers, {heads} heads, d_model "
        "{d_model}, trained for {steps} steps on sequences of {L} tokens (vocabulary {V}) that are a random segment "
        "followed by itself, a fresh draw every batch. ICL score: the loss of token {late} minus the loss of token "
        "{early}, the paper's tokens 500 and 50 of a 512-token context scaled to {L}. Induction and previous-token "
        "scores of every head from glassformer's causal detectors, on fixed repeated sequences, as training goes. "
        "Detector scores are read as a share of a perfect head's on the same sequences: a perfect induction head "
        "scores {perfect_induction} there (rows with no earlier copy have no cell to attend to), a perfect "
        "previous-token head {perfect_previous}. ICL scores keep the paper's sign (late − early: negative when the "
        "context helps); the paper's “less than 0.15” and “roughly 0.4 nats” are sizes of this negative score. "
        "Ablation: the outputs of the second layer's induction heads set to zero together through their hook point. "
        "The change comes at a different step in each seed: in a trial of {trial_steps} steps the two-layer seed 0 "
        "made it between steps {from} and {to} (ICL {before} → {after} nats, {final} at the end; {without} with its "
        "three induction heads knocked out together), after the {first_steps} steps this entry first ran for; the "
        "budget was then raised to {steps} steps, the rules unchanged. "
        "Scaled down from the "
        "paper's small models (Model Details: 1 to 6 layers, d_model 768, 12 heads per layer, 10,000 steps on natural "
        "text) to fit a CPU."
    ),
    "lab.induction.phase.claim": (
        "In-context learning appears abruptly during training in attention-only models of two layers, and not in "
        "models of one layer."
    ),
    "lab.induction.phase.rule": (
        "Two parts: every two-layer seed ends with an ICL score at or below {learned} nats, at least {half} of its "
        "total change falling within {window}% of the training steps; every one-layer seed ends above {none} nats. "
        "Both: holds; one: half-true; neither: fails."
    ),
    "lab.induction.phase.finding": (
        "Two layers: final ICL score {two} nats, share of the change within one window {share}, half the change: "
        "{half}. One layer: {one} nats, share within one window {one_share} ({steps} steps). A predictor that knows "
        "only which tokens its context holds, not where they come next (no induction head needed: one layer can "
        "learn it), scores {bag} nats on these sequences (the rule asks one layer to stay above {none})."
    ),
    "lab.induction.phase.paper": (
        "Olsson et al., Argument 1: in-context learning “develops abruptly in a narrow window early in "
        "training (roughly 2.5 to 5 billion tokens)”; “Before this window there is less than 0.15 nats of "
        "in-context learning, after it there is roughly 0.4 nats”, the same across model sizes “except for "
        "the one layer model where not much in-context learning ever forms”. The score (Key Concepts): “the "
        "loss of the 500th token in the context minus the average loss of the 50th token in the context”."
    ),
    "lab.induction.phase.ours": (
        "2 layers: {two} nats (share in one window {share}); 1 layer: {one} nats; knowing only which tokens the "
        "context holds: {bag} nats. Late − early, the paper's sign: its “roughly {paper} nats” is {paper_signed} here"
    ),
    "lab.induction.heads.claim": (
        "The induction heads (and the previous-token heads they read from) form at the same time as the "
        "in-context-learning change."
    ),
    "lab.induction.heads.rule": (
        "In every two-layer seed: the step where the best second-layer head's induction score first reaches "
        "{induction} of a perfect head's on the same sequences, and the step where the best first-layer head's "
        "previous-token score does, both lie within "
        "{together}% of the training steps of the step where the ICL score has made half its change. All seeds: "
        "holds; some, or heads formed but not at that time: half-true; no induction head: fails."
    ),
    "lab.induction.heads.finding": (
        "Half the ICL change: {half}; induction head: {induction} (final score {ind_score} of a perfect head's "
        "{perfect_induction}); previous-token head: {previous} (final {prev_score} of {perfect_previous})."
    ),
    "lab.induction.heads.paper": (
        "Olsson et al., Argument 1: “induction heads form abruptly during exactly the same window where "
        "in-context learning develops”, “The exception is the one-layer model, where induction heads never "
        "form”; “over 75% of final in-context learning forms in this window”. Model Details: the small models "
        "train for 10,000 steps (about 10 billion tokens) and the phase change “appears at approximately 1-3 "
        "billion tokens”. Head-by-head step counts: not found in the paper text available to this run."
    ),
    "lab.induction.heads.ours": (
        "ICL half-change: {half}; induction head: {induction}; previous-token head: {previous}"
    ),
    "lab.induction.ablation.claim": (
        "Knocking out the induction heads takes the in-context learning away (in small attention-only models)."
    ),
    "lab.induction.ablation.rule": (
        "Two parts, every two-layer seed: zeroing the outputs of the induction heads of the strongest one's layer "
        "together (each head at or above {induction} of a perfect head's induction score; the strongest alone where "
        "none is) removes at least {collapse}% of the ICL score; zeroing the weakest other head of that layer "
        "removes at most {control}%. Both: holds; one: half-true; neither: fails."
    ),
    "lab.induction.ablation.finding": (
        "Heads {heads}: ICL score {icl} nats intact, {without} without them, {control} without the weakest other "
        "head of their layer; the strongest one alone: {single}."
    ),
    "lab.induction.ablation.paper": (
        "Olsson et al., Argument 3: “almost all the in-context learning in small attention-only models "
        "appears to come from these induction heads! This begins at the start of the phase change, and "
        "remains true through the end of training”; the evidence is rated “Strong, Causal” for small "
        "attention-only models. The per-head ablation numbers are in the Model Analysis Table's plots: not "
        "found in the paper text available to this run."
    ),
    "lab.induction.ablation.ours": (
        "ICL {icl} → {without} nats without the induction heads {heads} (the strongest head alone where none reaches "
        "{induction} of a perfect head's score; {control} without the weakest other head)"
    ),
    # ------------------------------------------------------------------ induction-text
    "lab.induction-text.title": (
        "The in-context-learning change and induction heads on natural text, with and without FFN (ledger: "
        "Olsson et al. 2022)"
    ),
    "lab.induction-text.setup": (
        "Two models of two layers, {heads} heads, d_model {d_model}: the lab's char model with its FFN (d_ff {d_ff}) "
        "and the same model with its FFN removed (attention only, as in ffn-width), each trained for {steps} steps, "
        "batches of {batch}, on windows of {L} characters of the Shakespeare text the lab already uses (the lab's "
        "own toy text in --fast). ICL score as in the induction entry: the loss of character {late} minus the loss "
        "of character {early}, on {windows} fixed validation windows of the text. Induction and previous-token "
        "scores of every head from glassformer's causal detectors, on fixed repeated random sequences of the "
        "character vocabulary, read as a share of a perfect head's score on the same sequences. Scaled down from "
        "the paper's small models to fit a CPU."
    ),
    "lab.induction-text.attention.claim": (
        "On natural text, the ICL score of a two-layer attention-only model changes abruptly, in a narrow window of "
        "training, at the same time as an induction head forms."
    ),
    "lab.induction-text.attention.rule": (
        "Two parts, every seed: at least {half} of the ICL score's total change falls within {window}% of the "
        "training steps (abrupt); and the step where the best second-layer head's induction score first reaches "
        "{induction} of a perfect head's, and the step where the best first-layer head's previous-token score does, "
        "both lie within {together}% of the training steps of the step where the ICL score has made half its "
        "change (at the same time). Both: holds; one: half-true; neither: fails."
    ),
    "lab.induction-text.attention.finding": (
        "Attention only: final ICL score {icl} nats, share of the change within one window {share}, half the "
        "change: {half}; induction head: {induction} (final score {ind_score} of a perfect head's); previous-token "
        "head: {previous} (final {prev_score}); {steps} steps."
    ),
    "lab.induction-text.attention.paper": (
        "Olsson et al. (transformer-circuits.pub, 8 March 2022): the page's opening, the part of the paper text "
        "available to this run, names the prior work's “small (1 and 2 layer attention-only) models”. Argument 1's "
        "own words on models trained on natural text, the width of its window and its numbers: not found in the "
        "paper text available to this run (the induction entry quotes it)."
    ),
    "lab.induction-text.attention.ours": (
        "ICL {icl} nats, share in one window {share}; half the change: {half}; induction head: {induction}"
    ),
    "lab.induction-text.ffn.claim": (
        "The same holds with feed-forward layers: on natural text, the ICL score of a two-layer model with FFN "
        "changes abruptly, in a narrow window, at the same time as an induction head forms."
    ),
    "lab.induction-text.ffn.rule": (
        "The rule of the attention-only claim, applied to the model with FFN: every seed, at least {half} of the ICL "
        "score's change within {window}% of the steps, and its induction head (second layer, {induction} of a "
        "perfect head's score) and previous-token head (first layer) reached within {together}% of the steps of "
        "its half-change step. Both: holds; one: half-true; neither: fails."
    ),
    "lab.induction-text.ffn.finding": (
        "With FFN: final ICL score {icl} nats, share of the change within one window {share}, half the change: "
        "{half}; induction head: {induction} (final score {ind_score} of a perfect head's); previous-token head: "
        "{previous} (final {prev_score}); {steps} steps."
    ),
    "lab.induction-text.ffn.paper": (
        "Olsson et al., Argument 1, on models with MLPs: its text, and any number for them, not found in the paper "
        "text available to this run; the page's opening, which this run could read, is about the prior work's "
        "attention-only models."
    ),
    "lab.induction-text.ffn.ours": (
        "ICL {icl} nats, share in one window {share}; half the change: {half}; induction head: {induction}"
    ),
    # ------------------------------------------------------------------ extrapolation
    "lab.extrapolation.title": (
        "Length generalisation by position scheme (ledger: Press et al. 2022; Kazemnejad et al. 2023)"
    ),
    "lab.extrapolation.setup": (
        "Two parts. Char model, the length experiment's setup for the two schemes the ALiBi claim compares: the lab's "
        "char model trained for {lm_steps} steps on windows of {T} characters with ALiBi or sinusoidal positions, then "
        "read on windows of {T_eval}, the validation loss at each position. Copy task: [BOS] a_1..a_n [SEP] a_1..a_n, "
        "the symbols drawn from {V}, only the copied half a target; the lab's char-model block with every registered "
        "position scheme, trained for {steps} steps on {rows} fixed rows with n = 1..{L}, tested on n = 1..{L2}. Every "
        "copy model has max_len {max_len}, the longest test row: a learned table's rows past {trained} exist but are "
        "never trained. The ranking: token accuracy of the copy beyond the training length (Kazemnejad et al. count "
        "exact matches). Scaled down to fit a CPU from Press et al.'s WikiText-103 models and Kazemnejad et al.'s "
        "decoders; T5's relative bias, one of Kazemnejad et al.'s schemes, is not registered here."
    ),
    "lab.extrapolation.alibi.claim": (
        "A language model trained with ALiBi on short inputs keeps its loss on inputs longer than any it was trained "
        "on, where sinusoidal positions degrade (train short, test long)."
    ),
    "lab.extrapolation.alibi.rule": (
        "Two parts, char model: ALiBi's mean loss at positions T+1..2T is at most {tol} nats above its loss at "
        "T/2+1..T; and at T+1..2T every ALiBi seed is below every sinusoidal seed. Both: holds; one: half-true; "
        "neither: fails."
    ),
    "lab.extrapolation.alibi.finding": (
        "ALiBi: {in} nats at positions {half} to {T}, {near} up to position {T2}, {far} from there to {T_eval}. "
        "Sinusoidal: {sin_in} at positions {half} to {T}, {sin_near} up to position {T2} ({seeds} seeds)."
    ),
    "lab.extrapolation.alibi.paper": (
        "Press et al., abstract: a 1.3 billion parameter model trained on input sequences of length 1024 "
        "“extrapolates to input sequences of length 2048, achieving the same perplexity as a sinusoidal position "
        "embedding model trained on inputs of length 2048”; Figure 1 (WikiText-103, L = 512 and L = 1,024): “as the "
        "(validation-set’s) input sequence gets longer (x-axis), current position methods (sinusoidal, rotary, and "
        "T5) show degraded perplexity (y-axis, lower is better), but our method (§3) does not” (the caption as copied "
        "on a third-party page; the paper's own PDF was not readable here). The perplexities "
        "behind Figure 1 (the appendix's Tables 2 and 3): not found in the paper text available to this run."
    ),
    "lab.extrapolation.alibi.ours": (
        "char model, ALiBi {in} → {near} nats past the training length ({T} → {T2}); sinusoidal {sin_in} → {sin_near}"
    ),
    "lab.extrapolation.nope.claim": (
        "Trained on short copies and tested on copies up to twice as long, a decoder without any position encoding "
        "(NoPE) generalises better than the explicit schemes."
    ),
    "lab.extrapolation.nope.rule": (
        "The copy's token accuracy beyond the training length, per seed. For each other registered scheme: is every "
        "NoPE seed above every seed of that scheme? All: holds; some: half-true; none: fails."
    ),
    "lab.extrapolation.nope.finding": (
        "Token accuracy at n = {L1}..{L2} ({seeds} seeds), best first: {ranking}. NoPE ({none} ± {none_spread}) "
        "ranks {place} of {n}; clearly above: {beaten}."
    ),
    "lab.extrapolation.nope.paper": (
        "Kazemnejad et al., abstract: “the most commonly used positional encoding methods, such as ALiBi, Rotary, and "
        "APE, are not well suited for length generalization in downstream tasks. More importantly, NoPE outperforms "
        "other explicit positional encoding methods”; §4: the NoPE model “performs on par with or even better than "
        "the best-performing explicit PE, T5's Relative Bias” (as quoted on a third-party page; the paper's own PDF "
        "was not readable here). The ranking as the paper prints it: NoPE and T5's "
        "relative bias first, ALiBi, Rotary and APE behind. Each scheme's accuracy per task and the order among "
        "ALiBi, Rotary and APE (the figure that shows them): not found in the paper text available to this run."
    ),
    "lab.extrapolation.nope.ours": "copy, token accuracy at n = {L1}..{L2}: {ranking}",
    # ------------------------------------------------------------------ attention as explanation
    "lab.attention-explanation.title": (
        "Is attention explanation? (ledger: Jain & Wallace 2019; Wiegreffe & Pinter 2019)"
    ),
    "lab.attention-explanation.setup": (
        "A classifier on a synthetic sentiment language, scaled down from the papers' BiLSTM with additive "
        "attention on text classification so that seeds fit a CPU and the deciding token is known: a "
        "bidirectional glassformer Encoder, two blocks of one head, d_model {d_model}, reads [CLS] and {T} "
        "tokens and predicts the class as a token at [CLS]; {train} training examples, {steps} steps "
        "through glassformer's Trainer. Keyed task: the sentiment word right after a marker decides, "
        "{distractors} other sentiment words are noise (two tokens in a row: a bag of words cannot solve "
        "it). Bag task: the majority of 1 or 3 sentiment words decides. The studied attention is the [CLS] "
        "row of the last block (its keys are contextual states, as the BiLSTM's hidden states are). On "
        "{probe} fixed keyed examples: Kendall tau-b between that row and each token's importance "
        "(gradient: attribution patching of the token embedding towards the neutral word; leave-one-out: "
        "activation patching of the token by the neutral word); an adversarial row found by {search} Adam "
        "steps that maximise the Jensen-Shannon divergence from the learned row while p(positive) stays "
        "within {eps}; the divergence between seeds on the same examples; and every attention layer frozen "
        "to uniform weights through the hook points, trained on both tasks."
    ),
    "lab.attention-explanation.tau.claim": (
        "Learned attention weights correlate only weakly with gradient-based and leave-one-out measures of "
        "how much each token matters."
    ),
    "lab.attention-explanation.tau.rule": (
        "Per seed, the mean over the probe examples of Kendall tau-b between the attention row and each "
        "importance. Two parts: every seed's mean tau with the gradient importance is below {weak}; every "
        "seed's mean tau with the leave-one-out importance is below {weak}. Both: holds; one: half-true; "
        "neither: fails."
    ),
    "lab.attention-explanation.tau.finding": (
        "{seeds} seed(s), test accuracy {accuracy}: mean tau of attention with the gradient {grad}, with "
        "leave-one-out {loo}; the two importances with each other {grad_loo}."
    ),
    "lab.attention-explanation.tau.paper": (
        "Jain & Wallace, Abstract: “learned attention weights are frequently uncorrelated with "
        "gradient-based measures of feature importance”. Their per-dataset Kendall tau figures: not found "
        "in the paper text available to this run."
    ),
    "lab.attention-explanation.tau.ours": "mean tau: attention vs gradient {grad}, vs leave-one-out {loo}",
    "lab.attention-explanation.adversarial.claim": (
        "A very different attention distribution gives the same prediction — and “very different” is more "
        "than two models trained from different seeds differ."
    ),
    "lab.attention-explanation.adversarial.rule": (
        "Per seed, per probe example, the largest Jensen-Shannon divergence from the learned row of an "
        "adversarial row that keeps p(positive) within {eps}. Two parts: in every seed at least {most} of "
        "the examples reach a divergence of {far} or more; every seed's median divergence is above the "
        "median divergence between the rows of any two seeds. Both: holds; one: half-true; neither: fails."
    ),
    "lab.attention-explanation.adversarial.finding": (
        "Share of examples with an adversary at divergence {far} or more: {share}; median adversarial "
        "divergence {median}; median divergence between seeds {seed_jsd}. Learned weight on the deciding "
        "word: {deciding}."
    ),
    "lab.attention-explanation.adversarial.paper": (
        "Jain & Wallace, Abstract: “one can identify very different attention distributions that "
        "nonetheless yield equivalent predictions”. Wiegreffe & Pinter, Abstract: one of their tests is “a "
        "variance calibration based on multiple random seed runs”, and “even when reliable adversarial "
        "distributions can be found, they don't perform well on the simple diagnostic”. The divergences "
        "measured in either paper: not found in the paper text available to this run."
    ),
    "lab.attention-explanation.adversarial.ours": (
        "{share} of examples reach divergence {far}; median {median} against {seed_jsd} between seeds"
    ),
    "lab.attention-explanation.uniform.claim": (
        "The uniform-weights baseline separates the tasks: where a bag of words decides, attention frozen "
        "to uniform classifies as well as learned attention; where the order of tokens decides, it does "
        "not."
    ),
    "lab.attention-explanation.uniform.rule": (
        "Held-out accuracy of the classifier trained with learned and with uniform attention, every seed. "
        "Two parts: on the bag task the uniform mean is at most {tie} below the learned mean; on the keyed "
        "task the worst learned seed beats the best uniform seed by at least {gap}. Both: holds; one: "
        "half-true; neither: fails."
    ),
    "lab.attention-explanation.uniform.finding": (
        "Bag task: learned {bag_learned}, uniform {bag_uniform}. Keyed task: learned {keyed_learned}, "
        "uniform {keyed_uniform}."
    ),
    "lab.attention-explanation.uniform.paper": (
        "Wiegreffe & Pinter, Abstract: the first of their tests is “a simple uniform-weights baseline”. "
        "Their per-dataset scores with frozen uniform weights: not found in the paper text available to "
        "this run."
    ),
    "lab.attention-explanation.uniform.ours": (
        "bag: {bag_learned} learned, {bag_uniform} uniform; keyed: {keyed_learned} learned, {keyed_uniform} uniform"
    ),
    "lab.ledger.title": "The reproduction ledger: published small-Transformer results re-run on a CPU",
    "lab.ledger.intro": (
        "One row per claim of a published result, scaled down to a laptop CPU: the paper's number (and where it is "
        "printed) beside ours, and a verdict from a rule written as code before the run. Where the paper's number "
        "could not be found in the paper text available, the row says so instead of quoting one."
    ),
    "lab.ledger.col.entry": "entry",
    "lab.ledger.col.source": "paper",
    "lab.ledger.col.claim": "claim",
    "lab.ledger.col.paper": "the paper's number",
    "lab.ledger.col.ours": "ours",
    "lab.ledger.col.verdict": "verdict",
    "lab.ledger.col.cpu": "CPU time",
    "lab.ledger.took": "{cpu} s CPU ({wall} s wall)",
}
