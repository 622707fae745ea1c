"""The lab's words (glassformer lab ...; src/glassformer/lab): one entry per sentence.

EN holds them in English, ZH in Chinese, with the same keys and the same {fields} (a test checks). Per
experiment NAME: lab.NAME.title, lab.NAME.setup; per claim: lab.CLAIM.claim (the tutorial's claim, in
our words), lab.CLAIM.rule (the verdict rule the code applies, fixed before the run: its thresholds are
fields filled from the experiment's constants) and lab.CLAIM.finding (what was measured); each key is
written out where its experiment is defined (Experiment(title=N_(...)), Claim(claim=N_(...)) in
lab/NAME.py). Shared: lab.level.* (the three verdicts) and lab.report.* (the reports' headings). No
figure is typed in.

实验室的文字：中文在 ZH，与 EN 键相同、{字段} 相同；测得的数字与判定规则的阈值一律通过字段传入。
"""

EN = {
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
    # its offline page (attention_steps.html) with a step slider
    "pictures.lab.attention-steps.page.title": "glassformer attention across training",
    "pictures.lab.attention-steps.page.heading": "Attention across training",
    "pictures.lab.attention-steps.page.note": (
        "Move the slider to see one head's map at each recorded step (rows = query, columns = key, grey = masked). "
        "Normalised entropy 1 = weight spread evenly, 0 = all on one key."
    ),
    "pictures.lab.attention-steps.page.slider": "step",
    "pictures.lab.attention-steps.page.entropy": "mean normalised entropy {value}",
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
        "addition: not in the parts of the paper read for this entry (the passages quoted here)."
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
        "billion tokens”. Head-by-head step counts: not in the parts of the paper read for this entry (the passages "
        "quoted here)."
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
        "attention-only models. The per-head ablation numbers are in the Model Analysis Table's plots: not in the "
        "parts of the paper read for this entry (the passages quoted here)."
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
        "Olsson et al. (transformer-circuits.pub, 8 March 2022): the page's opening, the only part of the paper read "
        "for this entry, names the prior work's “small (1 and 2 layer attention-only) models”. Argument 1's "
        "own words on models trained on natural text, the width of its window and its numbers: not in the page's "
        "opening, the only part read for this entry (the induction entry quotes Argument 1)."
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
        "Olsson et al., Argument 1, on models with MLPs: its text, and any number for them: not in the page's "
        "opening, the only part of the paper read for this entry, which is about the prior work's "
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
        "behind Figure 1 (the appendix's Tables 2 and 3): not in the parts of the paper read for this entry (the "
        "passages quoted here)."
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
        "ALiBi, Rotary and APE (the figure that shows them): not in the parts of the paper read for this entry (the "
        "passages quoted here)."
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
        "gradient-based measures of feature importance”. Their per-dataset Kendall tau figures: not in the parts of "
        "the paper read for this entry (the passages quoted here)."
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
        "measured in either paper: not in the parts of the paper read for this entry (the passages quoted here)."
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
        "Their per-dataset scores with frozen uniform weights: not in the parts of the paper read for this entry (the "
        "passages quoted here)."
    ),
    "lab.attention-explanation.uniform.ours": (
        "bag: {bag_learned} learned, {bag_uniform} uniform; keyed: {keyed_learned} learned, {keyed_uniform} uniform"
    ),
    "lab.ledger.title": "The reproduction ledger: published small-Transformer results re-run on a CPU",
    "lab.ledger.intro": (
        "One row per claim of a published result, scaled down to a laptop CPU: the paper's number (and where it is "
        "printed) beside ours, and a verdict from a rule written as code before the run. Where the paper's number "
        "is not in the parts of the paper read for the entry, the row says so instead of quoting one."
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


ZH = {
    "lab.level.holds": "成立",
    "lab.level.half-true": "半对",
    "lab.level.fails": "不成立",
    "lab.report.lang": "中文",
    "lab.report.index_title": "glassformer 实验室：逐条检验教程中的说法",
    "lab.report.index_intro": (
        "每个实验都在 CPU 上训练或计算说法所涉及的小模型，并套用一条在运行之前就以代码写定的判定规则。数字、规则和图见"
        "各实验的报告。"
    ),
    "lab.report.commit": "代码：git 提交 {commit}。",
    "lab.report.commit_dirty": "代码：git 提交 {commit}，但受跟踪的文件有未提交的改动：运行的代码与该提交不同。",
    "lab.report.no_commit": "代码：不是在 git 检出目录里运行的，所以没有记录提交。",
    "lab.report.setup": "设置",
    "lab.report.claims": "说法与结论",
    "lab.report.claim": "说法",
    "lab.report.tutorial": "教程 {tutorial} {where}",
    "lab.report.rule": "判定规则（代码，运行前写定）",
    "lab.report.measured": "测得",
    "lab.report.numbers": "数字",
    "lab.report.figures": "图",
    "lab.report.reproduce": "复现",
    "lab.report.took": (
        "墙钟用时 {seconds} 秒，CPU 用时 {cpu_seconds} 秒，机器 {cpu}（{cores} 核，{threads} 个线程，torch {torch}；开"
        "始时平均负载 {load}：机器是多人共用的，CPU 用时更可靠）。"
    ),
    "lab.report.fast": "快速模式：冒烟测试的规模。这些数字只说明代码能跑、测的是什么，不代表完整运行的结论。",
    "lab.report.seeds": "随机种子数：{seeds}；多个种子时，数字为均值 ± 各种子的半极差。",
    # ------------------------------------------------------------------ mask-fill
    "lab.mask-fill.title": "掩码填充值：-inf、-1e9 还是该数据类型的最小值",
    "lab.mask-fill.setup": (
        "随机的查询和键（{keys} 个键，宽 {width}，{rows} 行查询），注意力行分两种：遮住一半键（部分遮挡）或全部遮住（全"
        "遮挡），分别在 float32、bfloat16 和 float16 下计算。比较教程的做法（先填充被遮的分数，再 softmax）与 "
        "glassformer 按掩码处理的 softmax；参考答案是 float64 下只对可见键做的 softmax，看不到任何键的行取全零。"
    ),
    "lab.mask-fill.1e9.claim": (
        "被遮挡的分数应填 -1e9 而不是 -inf：float32 下 exp(-1e9) 已经是 0，而 -inf 可能产生 NaN，所以业界用 -1e9。"
    ),
    "lab.mask-fill.1e9.rule": (
        "四条全部为真才算成立：部分遮挡的行上，-1e9 与按掩码处理的 softmax 权重相同（float32 和 bfloat16）；全遮挡的行"
        "用 -1e9 不出现 NaN（float32 和 bfloat16）；该行不给被遮的键任何权重；float16 可以用 -1e9 且不出 NaN。全为假："
        "不成立；否则半对。"
    ),
    "lab.mask-fill.1e9.finding": (
        "float32 下 exp(-1e9) = {exp}。用 -inf 时，全遮挡行的 {cells} 个权重中有 {nan_inf} 个是 NaN。float32 和 "
        "bfloat16 下用 -1e9：NaN 为 {nan_1e9} 个，而全遮挡的行会把最多 {hidden} 的权重放在本不该看到的键上（平均分配）"
        "。float16 配 -1e9：masked_fill 的回答是“{fp16_refused}”；先强制转换的话，-1e9 变成 {fp16_fill}，得到 "
        "{fp16_nan} 个 NaN。glassformer 按掩码处理的 softmax：任何数据类型下 {ours_nan} 个 NaN，被遮键上的权重为 "
        "{ours_hidden}。"
    ),
    "lab.mask-fill.inf.claim": "分数为 -inf 时，被遮位置的 softmax 权重趋近于 0。",
    "lab.mask-fill.inf.rule": (
        "在 float32、bfloat16 和 float16 下，部分遮挡的行中每个被遮权重都恰好为 0 且没有 NaN，则成立。"
    ),
    "lab.mask-fill.inf.finding": (
        "部分遮挡的行用 -inf，三种数据类型合计：不恰好为 0 的被遮权重 {nonzero} 个，NaN {nan_partly} 个。全遮挡的行用普"
        "通做法：{cells} 个权重中 {nan_inf} 个 NaN；glassformer 的 softmax 会检查掩码，让这种行取全零。"
    ),
    # 图上的文字
    "pictures.lab.mask-fill.nan_title": "整行被遮住时的 NaN 权重（占比）",
    "pictures.lab.mask-fill.hidden_title": "整行被遮住时落在被遮键上的权重（各行最大值）",
    "pictures.lab.mask-fill.ours": "本库",
    # ------------------------------------------------------------------ attention-steps
    "lab.attention-steps.title": "训练过程中的注意力：一开始均匀，之后变尖锐？",
    "lab.attention-steps.setup": (
        "字符模型（baby 预设：{layers} 层、{heads} 个头、d_model {d_model}）在莎士比亚文本上训练；用 glassformer train "
        "--attention-every 所用的同一个训练回调，在选定的步数记录每个头对一段固定的 {probe} 个字符验证文本的注意力图。"
        "尖锐程度：每个查询行的熵除以它能看到的键数的对数（1 = 平均分布，0 = 全部集中在一个键上），再对该行的查询取平均"
        "。"
    ),
    "lab.attention-steps.sharpen.claim": (
        "训练刚开始时注意力权重是均匀分布的；随着训练进行，权重会集中到少数几个位置上。"
    ),
    "lab.attention-steps.sharpen.rule": (
        "两部分：第 0 步时每个头的平均归一化熵都不低于 {even}（接近均匀）；最后一步各头的平均值比第 0 步至少低 "
        "{sharper}。两条都满足：成立；满足一条：半对；都不满足：不成立。"
    ),
    "lab.attention-steps.sharpen.finding": (
        "第 0 步时 {n} 个头的归一化熵平均为 {first_mean}（最低 {first_min}）；训练 {step} 步后平均为 {last_mean}（最低 "
        "{last_min}）。"
    ),
    # 图上的文字
    "pictures.lab.attention-steps.step": "第 {step} 步",
    "pictures.lab.attention-steps.head": "第 {layer} 层 · 头 {head}",
    "pictures.lab.attention-steps.title": "注意力权重（行 = 查询，列 = 键；白色 = 被遮住）",
    # 带步数滑块的离线页面（attention_steps.html）
    "pictures.lab.attention-steps.page.title": "glassformer 训练过程中的注意力",
    "pictures.lab.attention-steps.page.heading": "训练过程中的注意力",
    "pictures.lab.attention-steps.page.note": (
        "拖动滑块，查看一个头在每个记录步的注意力图（行 = 查询，列 = 键，灰色 = 被遮住）。"
        "归一化熵 1 = 权重均匀分布，0 = 全部落在一个键上。"
    ),
    "pictures.lab.attention-steps.page.slider": "步数",
    "pictures.lab.attention-steps.page.entropy": "平均归一化熵 {value}",
    # ------------------------------------------------------------------ length
    "lab.length.title": "超出训练长度的位置",
    "lab.length.setup": (
        "字符模型（第一篇教程的 TinyTransformer，去掉 dropout）用每个已注册的位置方案在 {T} 个字符的窗口上训练，然后读 "
        "{T_eval} 个字符的窗口：报告位置 1..{T_eval} 上各自的验证损失。可学习位置表按两种方式构建：max_len 为 {T}（通常"
        "的做法）；以及 {T_eval} 行、但只有前 {T} 行被训练过。第一篇教程对正弦位置也有同样的说法（seed 000 第 4.2 节）"
        "。"
    ),
    "lab.length.sinusoidal.claim": (
        "正弦位置编码让模型能泛化到训练时没见过的序列长度，因为相对位置关系被编码进了正弦波里。"
    ),
    "lab.length.sinusoidal.rule": (
        "两部分：正弦模型在位置 T+1..2T、以及 2T+1..{T_eval} 上的平均损失，都不比它在位置 T/2+1..T（训练过、上下文已较"
        "长）上的损失高出 {tol} nats 以上。两条都满足：成立；一条：半对；都不满足：不成立。"
    ),
    "lab.length.sinusoidal.finding": (
        "正弦：位置 {half} 到 {T} 为 {in} nats，到位置 {T2} 为 {near}，从那里到 {T_eval} 为 {far}。{T2} 之后最好的方案"
        "：{best}（{best_far}）。"
    ),
    "lab.length.learned.claim": "可学习的位置表（max_len 行的嵌入）遇到比训练时更长的序列时必然崩溃。",
    "lab.length.learned.rule": (
        "两部分：按训练长度构建的可学习位置表根本无法处理更长的输入；有富余行的表（{T_eval} 行，只训练前 {T} 行）在位置"
        " 2T+1..{T_eval} 上的损失比在 T/2+1..T 上至少高 {collapse} nats。两条都满足：成立；一条：半对；都不满足：不成立"
        "。"
    ),
    "lab.length.learned.finding": (
        "按 max_len = {max_len} 构建时，可学习位置模型在要读的 {T_eval} 个位置中只有 1 到 {reach}：其余位置如实报告，不"
        "运行。有富余行时，从未训练过的那些行让损失从 {in} 变成 {far} nats（只靠字符频率：{unigram}）。"
    ),
    # ------------------------------------------------------------------ order
    "lab.order.title": "没有位置信息时的顺序",
    "lab.order.setup": (
        "先用 float64 下的随机权重：对 {T} 个词元做随机置换，比较 f(打乱后的输入) 与打乱后的 f(输入) 相差多少，分别针对"
        "没有位置的编码器、有可学习位置的编码器，以及没有位置的因果解码器。然后训练有位置和没有位置的因果字符模型：比较"
        "验证损失，以及把最后一个位置之前的词元打乱后（最后一个词元及其目标不动），最后位置的损失上升了多少。"
    ),
    "lab.order.set.claim": "自注意力是集合运算：没有位置信息时，打乱输入只会让输出同样被打乱，模型分辨不出词序。",
    "lab.order.set.rule": (
        "两部分：没有位置的编码器是置换等变的（最大差不超过 {equivariant}）；训练后的无位置因果解码器对顺序无感（打乱前"
        "缀后，最后位置的损失上升不超过 {blind} nats）。两条都满足：成立；一条：半对；都不满足：不成立。"
    ),
    "lab.order.set.finding": (
        "f(x[π]) − f(x)[π] 的最大差：没有位置的编码器 {enc}；有可学习位置 {enc_learned}；没有位置的因果解码器 {dec}（因"
        "果掩码本身就告诉每个词元它前面有几个词元）。训练后：打乱前缀使无位置解码器最后位置的损失变化 {penalty} nats（"
        "有可学习位置时：{penalty_learned}）。"
    ),
    "lab.order.stuck.claim": "去掉位置嵌入后，模型学不会语法：损失停在起点不动。",
    "lab.order.stuck.rule": (
        "如果没有位置的因果模型最终损失比“只知道字符频率”的损失低不到 {stuck} nats，则成立；否则不成立。"
    ),
    "lab.order.stuck.finding": (
        "训练 {steps} 步后，没有位置的因果模型达到 {none} nats；有可学习位置时为 {learned}，只看当前字符的二元统计表（"
        "哪个字符后面跟哪个）为 {bigram}，只靠字符频率为 {unigram}。"
    ),
    # 图上的文字
    "pictures.lab.order.gap_title": "|f(x[π]) − f(x)[π]| 的最大值，float64",
    "pictures.lab.order.case.encoder.none": "编码器\n无位置",
    "pictures.lab.order.case.encoder.learned": "编码器\n学习的位置",
    "pictures.lab.order.case.gpt.none": "因果解码器\n无位置",
    "pictures.lab.order.val_loss": "验证损失",
    "pictures.lab.order.shuffled": "打乱前缀后损失的上升",
    "pictures.lab.order.unigram": "只用字符频率",
    "pictures.lab.order.bigram": "二元表（只看当前字符）",
    "pictures.lab.order.scheme": "因果掩码，position={position}",
    # ------------------------------------------------------------------ scaling
    "lab.scaling.title": "注意力中的 1/√D：为了数值，还是为了梯度？",
    "lab.scaling.setup": (
        "查询和键的每个分量独立服从标准正态分布，每行 {keys} 个键，D 从 {D_min} 到 {D_max}，分数分别除以和不除以 √D：比"
        "较分数的方差、softmax 的归一化熵、饱和行的比例（最大权重超过 {saturated}）、float32 下是否出现非有限的权重，以"
        "及固定的随机梯度反向穿过 softmax 后到达查询的梯度（中位数，以及梯度几乎消失的行所占比例）。然后用一个头（D = "
        "{D_one}）和四个头（D = {D_four}）的字符模型分别按两种方式训练；不缩放的版本是一个包装器，用钩子把注意力分数乘"
        "以 √D，模型自身的代码不变。"
    ),
    "lab.scaling.variance.claim": (
        "不除以 √D 时，点积随 D 增大，softmax 进入饱和区，梯度变得非常小；除以 √D 让分数方差保持稳定，对训练稳定性影响"
        "很大。"
    ),
    "lab.scaling.variance.rule": (
        "四部分：在每个 D 上，不缩放时分数方差为 D（在 {var_low} 到 {var_high} 倍之间），缩放时为 1；在最大的 D 上，不"
        "缩放时至少一半的行饱和，缩放时至多 {saturated_scaled}；在最大的 D 上，不缩放时至少 {vanished_share} 的行梯度低"
        "于 {vanished}，且不缩放的梯度中位数不到缩放时的一半；训练中，最大 D 的模型不缩放时每个种子的结果都比缩放时的每"
        "个种子差。全部满足：成立；都不满足：不成立；否则半对。"
    ),
    "lab.scaling.variance.finding": (
        "D = {D} 时：分数方差除以 √D 为 {var_scaled}，不除为 {var_unscaled}；饱和行分别为 {sat_scaled} 和 "
        "{sat_unscaled}；查询梯度低于 {vanished} 的行分别为 {van_scaled} 和 {van_unscaled}。"
        "D = {D_train} 的字符模型：验证损失缩放时 {loss_scaled}，不缩放时 {loss_unscaled}；发散的运行：{diverged}。"
    ),
    "lab.scaling.gradients.claim": "缩放不是为了数值稳定，而是为了控制梯度。",
    "lab.scaling.gradients.rule": (
        "两部分：无论是否缩放，任何 D 下 float32 的 softmax 权重都没有非有限值（数值本身是安全的）；随着 D 变化，缩放时"
        "查询梯度的中位数变化不超过 {steady} 倍，不缩放时变化 {moves} 倍以上。两条都满足：成立；一条：半对；都不满足："
        "不成立。"
    ),
    "lab.scaling.gradients.finding": (
        "float32 下非有限的权重：{nonfinite} 个。从 D = {small} 到 D = {big}，查询梯度的中位数在除以 √D 时变化 "
        "{span_scaled} 倍，不除时变化 {span_unscaled} 倍。D = {big} 不缩放时：均值 {mean_unscaled}，中位数 "
        "{median_unscaled}（缩放时中位数 {median_scaled}）。"
    ),
    # 图上的文字
    "pictures.lab.scaling.variance_title": "分数的方差",
    "pictures.lab.scaling.grad_title": "‖∂L/∂q‖ 的中位数（虚线：小于 {vanished} 的行的占比）",
    "pictures.lab.scaling.scaled": "缩放",
    "pictures.lab.scaling.unscaled": "不缩放",
    "pictures.lab.scaling.d_axis": "D（每个头的维度 d_head）",
    "pictures.lab.scaling.run": "D={D}，{way}",
    "pictures.lab.scaling.train_title": "字符模型，有无 1/√D 缩放",
    # ------------------------------------------------------------------ heads
    "lab.heads.title": "多个窄头还是少数宽头",
    "lab.heads.setup": (
        "d_model 为 {d_model} 的字符模型，分别用 1、2、4、8、16 个头（每个头的宽度 D 从 {D_max} 降到 {D_min}；参数量不"
        "随头数变化）。测量：验证损失、验证减训练损失（过拟合程度），以及每个头在固定验证窗口上、从注意力权重钩子读出的"
        "行平均归一化熵和查询给自己的平均权重。自身权重超过 {diagonal} 的头记为“对角”头，熵超过 {uniform} 的头记为“接近"
        "均匀”。"
    ),
    "lab.heads.many.claim": (
        "头太多有害：小模型用 16 个头比 4 个头效果更差，因为每个头的宽度太小；超过一半的头只关注自身位置，其余的头几乎"
        "均匀分布。每个头的宽度应至少为 64。"
    ),
    "lab.heads.many.rule": (
        "三部分：头数最多的模型每个种子的损失都高于 4 头模型的每个种子；头数最多的模型中，对角头加接近均匀的头超过一半"
        "；宽度 64 的单头模型平均表现不差于 4 头。全部满足：成立；都不满足：不成立；否则半对。"
    ),
    "lab.heads.many.finding": (
        "验证损失：{few} 个头（D = {D_few}）为 {loss_few}，{mid} 个头为 {loss_mid}，{most} 个头为 {loss_most}。在 "
        "{most} 个头中：对角头占 {diag}，接近均匀的占 {uniform}。"
    ),
    "lab.heads.sharp.claim": (
        "用 8 个头时注意力分数过于尖锐，模型容易过拟合训练数据；2 个头又太弱，无法同时捕捉多种关系；4 个头正好。"
    ),
    "lab.heads.sharp.rule": (
        "三部分：8 个头的平均熵低于 4 个头（更尖锐）；8 个头的“验证减训练”差距比 4 个头大 {overfit} nats 以上（过拟合）"
        "；2 个头每个种子的损失都高于 4 个头的每个种子。全部满足：成立；都不满足：不成立；否则半对。"
    ),
    "lab.heads.sharp.finding": (
        "平均归一化熵：{eight} 个头为 {ent_eight}，{mid} 个头为 {ent_mid}。验证减训练损失：{eight} 个头为 {gap_eight}，"
        "{mid} 个头为 {gap_mid}。{two} 个头的验证损失：{loss_two}；{mid} 个头：{loss_mid}。"
    ),
    # ------------------------------------------------------------------ ffn-width
    "lab.ffn-width.title": "前馈网络要多宽，能不能去掉",
    "lab.ffn-width.setup": (
        "字符模型（d_model C = {C}）分别取 d_ff = 0（没有前馈网络）、C、2C、4C 和 8C；验证损失对参数量作图。d_ff = 0 的"
        "做法：照常构建模型，再把每个块的前馈网络换成一个什么都不加的模块（并把只给前馈网络供数的第二个 LayerNorm 换成"
        "恒等映射），因此核心代码不需要为此加开关。另外直接计算：宽度为 C 的前馈网络是否是线性映射，看 f(x + y) − f(x) "
        "− f(y) + f(0)，它对所有 x、y 都为零当且仅当映射是线性的。"
    ),
    "lab.ffn-width.equal.claim": "d_ff 等于 d_model 时，前馈网络退化为单个线性映射，模型完全不收敛。",
    "lab.ffn-width.equal.rule": (
        "两部分：d_ff = C 的模型最终损失比“只知道字符频率”低不到 {stuck} nats（没有收敛）；宽度为 C 的前馈网络是线性的"
        "（相对残差小于 {linear}）。两条都满足：成立；一条：半对；都不满足：不成立。"
    ),
    "lab.ffn-width.equal.finding": (
        "d_ff = {C}：验证损失 {loss_eq}（只靠字符频率：{unigram}；d_ff = 4C：{loss_wide}）。宽度 C 的前馈网络偏离线性的"
        "相对残差：{nonlin}。"
    ),
    "lab.ffn-width.removed.claim": (
        "去掉前馈网络后，损失卡在远高于完整模型的位置：前馈网络才是 Transformer 能“思考”的基础。"
    ),
    "lab.ffn-width.removed.rule": (
        "两部分：没有前馈网络时每个种子的损失都高于 d_ff = 4C 的每个种子；没有前馈网络时损失与“只知道字符频率”相差不到 "
        "{stuck} nats（卡住）。两条都满足：成立；一条：半对；都不满足：不成立。"
    ),
    "lab.ffn-width.removed.finding": (
        "没有前馈网络：{loss_none}（{params_none} 个参数）；d_ff = 4C：{loss_wide}（{params_wide} 个参数）；只靠字符频"
        "率：{unigram}。"
    ),
    # ------------------------------------------------------------------ init
    "lab.init.title": "初始化：Xavier、PyTorch 默认、GPT-2 的，以及一个过大的",
    "lab.init.setup": (
        "字符模型（pre-LN）以及去掉所有 LayerNorm 的同一模型（第二篇教程的块），各用四种方式初始化：PyTorch 默认、"
        "Xavier 均匀分布（教程的做法）、GPT-2 的 N(0, 0.02) 加缩放的残差投影，以及所有矩阵取自 N(0, 1)（故意过大；在构"
        "建后施加）。测量固定步数时的训练损失、最终验证损失、崩溃的运行，以及在初始化时用一个固定批次测得的各部分梯度范"
        "数和注意力分数的离散程度。"
    ),
    "lab.init.xavier.claim": (
        "Xavier 初始化是模型能训练起来的关键：权重初始过大会让 Q·Kᵀ 爆炸、softmax 得到 NaN；初始过小会让梯度消失、损失"
        "纹丝不动。"
    ),
    "lab.init.xavier.rule": (
        "三部分：过大的初始化产生 NaN（训练中损失变为非有限值，或初始化时 logits 非有限）；GPT-2 的小初始化在两种结构上"
        "最终都与“只知道字符频率”相差不到 {stuck} nats（卡住）；在两种结构上，Xavier 的每个种子都低于 PyTorch 默认和 "
        "GPT-2 初始化的每个种子。全部满足：成立；都不满足：不成立；否则半对。"
    ),
    "lab.init.xavier.finding": (
        "训练 {steps} 步后的验证损失，pre-LN：PyTorch {preLN_torch}，Xavier {preLN_xavier}，GPT-2 {preLN_gpt2}，N(0, 1)"
        " {preLN_large}；没有 LayerNorm：{noLN_torch}、{noLN_xavier}、{noLN_gpt2}、{noLN_large}。损失变成 NaN 的运行："
        "{nan_runs}。没有 LayerNorm 时初始化时的注意力分数标准差：N(0, 1) 为 {std_large}，Xavier 为 {std_xavier}。只靠"
        "字符频率：{unigram}。"
    ),
    # 图上的文字
    "pictures.lab.init.arch.pre": "前置 LN",
    "pictures.lab.init.arch.none": "无 LN",
    "pictures.lab.init.loss_title": "{arch}：训练损失（各种子的平均）",
    "pictures.lab.init.run": "{arch} / {init}",
    "pictures.lab.init.grad_title": "初始化时每个块的梯度范数",
    # ------------------------------------------------------------------ layernorm
    "lab.layernorm.title": "Pre-LN 还是 Post-LN，以及预热（warmup）的作用",
    "lab.layernorm.setup": (
        "小型字符模型（d_model {d_model}，{n_heads} 个头，d_ff {d_ff}，窗口 {seq_len}）在深度 2、6、12 下，LayerNorm"
        " 放在每个子层之前（Pre-LN）或每次残差相加之后（Post-LN，无最终归一化），扫描一组学习率，分别带和不带线性预热（"
        "其余时间学习率恒定），用同一个训练器训练相同步数。损失变成非有限值，或最终不比“只知道字符频率”更好，即记为失败"
        "。另外：最深模型在初始化时、一个固定批次上各块的梯度范数。"
    ),
    "lab.layernorm.post_unstable.claim": "Post-LN 对学习率更敏感，稍不注意就发散；Pre-LN 训练更稳定。",
    "lab.layernorm.post_unstable.rule": (
        "两部分（不预热）：Post-LN 失败的（深度，学习率）组合比 Pre-LN 多；并且在每个深度上，Pre-LN 能训练的最大学习率"
        "不低于 Post-LN。两条都满足：成立；一条：半对；都不满足：不成立。"
    ),
    "lab.layernorm.post_unstable.finding": (
        "不预热时，{cells} 个组合中失败的：Pre-LN {fails_pre} 个，Post-LN {fails_post} 个。深度 {depths} 下能训练的最大"
        "学习率：Pre-LN {stable_pre}；Post-LN {stable_post}。"
    ),
    "lab.layernorm.post_must.claim": (
        "LayerNorm 必须放在残差相加之后（Post-LN）：先归一化再相加，相加会破坏归一化的效果，所以顺序不可颠倒。"
    ),
    "lab.layernorm.post_must.rule": (
        "每个深度一条：在各自表现最好的学习率下（不预热），Post-LN 的每个种子都低于 Pre-LN 的每个种子。所有深度都满足："
        "成立；都不满足：不成立；否则半对。"
    ),
    "lab.layernorm.post_must.finding": (
        "深度 {depths} 下各学习率中最好的验证损失：Pre-LN {best_pre}；Post-LN {best_post}。"
    ),
    "lab.layernorm.warmup.claim": (
        "预热是必须的：不预热时损失会剧烈震荡甚至发散，因为 LayerNorm 和注意力让早期的梯度很不稳定。"
    ),
    "lab.layernorm.warmup.rule": (
        "两部分：对 Pre-LN，存在不预热失败、预热后能训练的组合；对 Post-LN 同样。两条都满足：成立；一条：半对；都不满足"
        "：不成立。"
    ),
    "lab.layernorm.warmup.finding": (
        "{warmup} 步预热挽救的组合：Pre-LN {rescued_pre} 个，Post-LN {rescued_post} 个。不预热和预热时失败的组合："
        "Pre-LN {fails_pre} 和 {fails_pre_w} 个；Post-LN {fails_post} 和 {fails_post_w} 个。"
    ),
    # 图上的文字
    "pictures.lab.layernorm.lr_axis": "学习率",
    "pictures.lab.layernorm.run": "{norm}-LN，预热 {warmup} 步",
    "pictures.lab.layernorm.depth_title": "深度 {depth}：验证损失（× = 失败）",
    "pictures.lab.layernorm.norm": "{norm}-LN",
    "pictures.lab.layernorm.grad_title": "初始化时每个块的 ‖梯度‖，深度 {depth}",
    # ------------------------------------------------------------------ causal-leak
    "lab.causal-leak.title": "因果泄漏：没有掩码时，下一个词元预测模型会偷看答案",
    "lab.causal-leak.setup": (
        "与 hello-world 课程共用同一套测量代码：第二篇教程的单层模型在相互独立的随机词元上分别带和不带因果掩码训练（诚"
        "实的模型最好只能达到随机水平 ln S），以及每个位置的预测对后续词元的依赖程度。然后是带因果掩码和不带掩码的字符"
        "模型（后者是用同样的下一个词元目标训练的编码器）：整个窗口都可见时（与训练时相同）的验证损失，以及位置 t 只能"
        "看到 0..t 时（与生成时相同）的验证损失。"
    ),
    "lab.causal-leak.cheat.claim": "解码器训练时必须遮住未来的词元；没有因果掩码，它会学会作弊，直接读取答案。",
    "lab.causal-leak.cheat.rule": (
        "三部分：在随机词元上，无掩码模型的留出损失低于随机水平的一半，而因果模型保持在随机水平的 {chance_share} 以内；"
        "在文本上，无掩码模型在看得到整个窗口时比因果模型好 {margin} nats 以上，只看得到过去时比因果模型差 {margin} "
        "nats 以上；它的预测依赖后续词元（梯度非零），而因果模型的依赖恰好为 0。全部满足：成立；都不满足：不成立；否则"
        "半对。"
    ),
    "lab.causal-leak.cheat.finding": (
        "随机词元（{S} 个符号，随机水平 {chance}）：留出损失无掩码 {none_rt}，有掩码 {causal_rt}。文本，整个窗口可见："
        "无掩码 {forced_none}，有掩码 {forced_causal}；只看得到过去：无掩码 {honest_none}，有掩码 {honest_causal}。对后"
        "续词元的最大依赖：无掩码 {grad_none}，有掩码 {grad_causal}。"
    ),
    # 图上的文字
    "pictures.lab.causal-leak.position_axis": "位置",
    "pictures.lab.causal-leak.random_loss": "留出数据上的损失，随机词元",
    "pictures.lab.causal-leak.whole": "整个窗口都可见",
    "pictures.lab.causal-leak.prefix": "只有词元 0..t 可见",
    "pictures.lab.causal-leak.text_loss": "验证损失，字符模型（奈特）",
    # ------------------------------------------------------------------ 复现账本（重跑已发表的结果）
    "lab.report.paper": "{who}，{where}（论文：{paper}）",
    "lab.report.paper_says": "论文",
    "lab.report.ours": "我们",
    # 句中逐个种子的步数：某一步，或在预算步数内没有发生
    "lab.report.step": "第 {step} 步",
    "lab.report.never": "{within} 步内未出现",
    "lab.report.sep": "、",
    # ------------------------------------------------------------------ grokking
    "lab.grokking.title": "模加法上的顿悟（grokking）（账本：Power 等 2022；Nanda 等 2023）",
    "lab.grokking.setup": (
        "a + b mod {p}，输入为三个词元 [a, b, =]，只有 = 处的答案是目标；{fraction}% 的数对用于训练，其余用于测试。"
        "模型仿照 Nanda 等的单层 Transformer 并按 CPU 预算缩小：4 个头，d_model {d_model}，ReLU MLP 宽 4·d_model，"
        "无 LayerNorm，可学习位置，Xavier 均匀初始化（试跑中 torch 默认的 N(0, 1) 嵌入在 2250 步后"
        "测试准确率仍只有 0.011；Xavier 在第 4500 步已超过 0.86）。全批量 AdamW（lr 1e-3，betas 0.9 和 0.98，"
        "预热 10 步）训练 {steps} 步，所有权重"
        "的权重衰减为 {wd}，另跑一次权重衰减为 0 的对照（一个种子）。Nanda 等 §3 用 p = 113、宽度 d = 128、30% 的数对，"
        "全批量 AdamW，学习率 0.001，权重衰减 1，训练 40,000 个 epoch；这里 p、宽度、训练比例和训练长度"
        "都不同，以便放进 CPU：试跑中 p = 53、30% 在 6000 步内没有跃升，更长的运行放不进预算。"
    ),
    "lab.grokking.delay.claim": (
        "只用加法表的一部分训练时，模型很早就拟合了训练数对，要到很久以后它在留出数对上的准确率才突然跃升（顿悟）。"
    ),
    "lab.grokking.delay.rule": (
        "有权重衰减时，对每个种子：训练准确率首次 ≥ {fit} 的记录步数，以及测试准确率首次 ≥ {jump} 的步数。每个种子"
        "的测试跃升都至少比训练拟合晚 {delay} 倍：成立；有种子跃升但并非每个都这么晚：半对；预算内没有种子跃升：不成立"
        "。"
    ),
    "lab.grokking.delay.finding": (
        "p = {p}，{seeds} 个种子：训练准确率达到 {fit}：{fit_steps}；测试准确率达到 {jump}：{jump_steps}"
        "（预算 {steps} 步）。"
    ),
    "lab.grokking.delay.paper": (
        "Power 等，图 1（模 97 除法，50% 的数对用于训练）：“Training accuracy "
        "becomes close to perfect at <10^3 optimization steps"
        ", but it takes close to 10^6 steps for validation ac"
        "curacy to reach that level”（训练准确率在不到 10^3 步时接近完美，验证准"
        "确率要近 10^6 步才达到同样水平）；“Generalization beyond overfitti"
        "ng”一节：验证准确率要在比训练准确率接近最优多 1000 倍的优化步数之后才开始高于随机水平。Nand"
        "a 等，§3（p = 113，30% 的数对，全批量 AdamW 训练 40,000 个 epoch）："
        "大约 10,000 个 epoch 后网络泛化，测试准确率升到接近 100%。"
    ),
    "lab.grokking.delay.ours": "训练拟合：{fit_steps}；测试跃升：{jump_steps}（p = {p}）",
    "lab.grokking.decay.claim": "没有权重衰减就不会跃升：在同样的预算内模型始终只是在死记硬背。",
    "lab.grokking.decay.rule": (
        "两部分，权重衰减为 0、步数相同：每个种子都拟合了训练数对（准确率 ≥ {fit}）；每个种子的最终测试准确率都低于 "
        "{no_jump}。两者都满足：成立；满足其一：半对；都不满足：不成立。"
    ),
    "lab.grokking.decay.finding": "权重衰减为 0：{steps} 步后最终测试准确率为 {final}。",
    "lab.grokking.decay.paper": (
        "Power 等，“Ablations and Tricks”一节（在 S5 置换上测得，图 2 左，不是"
        "加法）：加入权重衰减对数据效率影响非常大，与大多数其他干预相比，所需样本量减少一半以上。模加法上权重衰减"
        "为 0 的运行：为本条目读过的论文部分（即这里引用的段落）中没有。"
    ),
    "lab.grokking.decay.ours": "无权重衰减时最终测试准确率 {final}",
    "lab.grokking.fourier.claim": "训练后的嵌入在余数的傅里叶基下是稀疏的：少数几个关键频率撑起了它。",
    "lab.grokking.fourier.rule": (
        "嵌入在每个频率上的非常数傅里叶能量占比；关键频率的占比至少是均匀分布时的 {key_share} 倍。两部分，有权重衰减的"
        "每个种子：关键频率至多 {few} 个；它们合起来至少占能量的 {concentrated}。两者都满足：成立；满足其一：半对；都"
        "不满足：不成立。"
    ),
    "lab.grokking.fourier.finding": (
        "有权重衰减：{K} 个频率中有 {counts} 个关键频率（k = {keys}），占能量的 {share}。无权重衰减：{control} 个关键"
        "频率；"
        "初始化时：{init} 个。"
    ),
    "lab.grokking.fourier.paper": (
        "Nanda 等，§4.1 与图 3（p = 113：56 个频率）：嵌入矩阵 W_E 在傅里叶基下是稀疏"
        "的，只在 6 个频率上有不可忽略的范数；其中 5 个，k ∈ {{14, 35, 41, 42, 52}}，"
        "在模型后面的部分被用到（关键频率）；附录 C.2.1：其他种子各有 3 或 4 个关键频率。"
    ),
    "lab.grokking.fourier.ours": "{K} 个频率中有 {counts} 个关键频率，占能量的 {share}",
    # ------------------------------------------------------------------ induction
    "lab.induction.title": "归纳头与上下文学习的相变（账本：Olsson 等 2022）",
    "lab.induction.setup": (
        "只有注意力的模型（实验室的块去掉 FFN），一层和两层，{heads} 个头，d_model {d_model}，在长 {L} 个词元（词表 {V}"
        "）"
        "的序列上训练 {steps} 步；每条序列是一段随机片段接着它自己，每个批次重新抽取。ICL 分数：第 {late} 个词元的损失"
        "减去第 {early} 个词元的损失，即论文在 512 词元上下文中的第 500 和第 50 个词元按 {L} 缩放。训练过程中用 "
        "glassformer 的因果检测器在固定的重复序列上给每个头"
        "打归纳分和前一词元分。检测器分数按同一批序列上完美头的得分来读："
        "完美的归纳头在那里得 {perfect_induction}（前面没有副本的"
        "行没有可看的格子），完美的前一词元头得 {perfect_previous}。"
        "ICL 分数保留论文的符号（后减前：上下文有帮助时为负）；论文的“不到 0.15”和“大约 0.4 nats”是这个负分数的大小。"
        "消融：通过钩子点把第二层的归纳头的输出一起置零。"
        "每个种子发生变化的步数不同：在一次 {trial_steps} 步的试跑中，两层的种子 0 在第 {from} 到第 {to} 步之间完成变化"
        "（ICL {before} → {after} nats，最终 {final}；把它的三个归纳头一起敲除后为 {without}），"
        "晚于本条目最初运行的 {first_steps} 步；之后预算提高到 {steps} 步，规则不变。"
        "模型比论文的小模型小（Model Details：1 到 6 层，d_model 768，每层 12 个头，在自然文本上训练 "
        "10,000 步），以便放进 CPU 预算。"
    ),
    "lab.induction.phase.claim": "两层只有注意力的模型在训练中会突然获得上下文学习能力，一层模型不会。",
    "lab.induction.phase.rule": (
        "两部分：每个两层种子的最终 ICL 分数不高于 {learned} nats，且其总变化至少 {half} 落在 {window}% 的训练步数之内"
        "；"
        "每个一层种子的最终分数高于 {none} nats。两者都满足：成立；满足其一：半对；都不满足：不成立。"
    ),
    "lab.induction.phase.finding": (
        "两层：最终 ICL 分数 {two} nats，一个窗口内的变化占比 {share}"
        "，完成一半变化：{half}。一层：{one} nats，一个窗口内"
        "占比 {one_share}（{steps} 步）。一个只知道上下"
        "文里有哪些词元、不知道它们接下来在哪里出现的预测器（不需要归纳头："
        "一层就学得会），在这些序列上得分 {bag} nats（规则要求一层模型保持在 {none} 之上）。"
    ),
    "lab.induction.phase.paper": (
        "Olsson 等，论据 1：上下文学习在训练早期的一个窄窗口内（大约 25 亿到 50 亿个词元）突然形"
        "成；窗口之前不到 0.15 nats，之后大约 0.4 nats，各种模型规模都一样，“except f"
        "or the one layer model where not much in-context lea"
        "rning ever forms”（一层模型除外，它始终没有形成多少上下文学习）。分数的定义（Key C"
        "oncepts）：上下文中第 500 个词元的损失减去第 50 个词元的平均损失。"
    ),
    "lab.induction.phase.ours": (
        "两层：{two} nats（一个窗口内占比 {share}）；一层：{one}"
        " nats；只知道上下文里有哪些词元：{bag} nats。后减前，与论文"
        "同号：论文的“大约 {paper} nats”在这里是 {paper_signed}"
    ),
    "lab.induction.heads.claim": "归纳头（以及它们读取的前一词元头）与上下文学习的变化同时形成。",
    "lab.induction.heads.rule": (
        "每个两层种子中：第二层最佳头的归纳分首次达到同一批序列上完美头得分的 {induction} 的步数，以及第一层最佳头的前"
        "一词元分首次达到该比例的步"
        "数，"
        "都在 ICL 分数完成一半变化的步数前后 {together}% 训练步数之内。所有种子都满足：成立；部分满足，或头形成了但时"
        "间不对："
        "半对；没有归纳头：不成立。"
    ),
    "lab.induction.heads.finding": (
        "ICL 完成一半变化：{half}；归纳头：{induction}（最终分数为完美头得分 {perfect_induction} 的 {ind_score}）；"
        "前一词元头：{previous}（最终为 {perfect_previous} 的 {prev_score}）。"
    ),
    "lab.induction.heads.paper": (
        "Olsson 等，论据 1：归纳头恰好在上下文学习形成的同一窗口内突然形成；例外是一层模型，归纳头从未形"
        "成；最终上下文学习的 75% 以上在这个窗口内形成。Model Details：小模型训练 10,000"
        " 步（约 100 亿个词元），相变出现在大约 10 亿到 30 亿个词元处。逐个头的步数：为本条目读过的"
        "论文部分（即这里引用的段落）中没有。"
    ),
    "lab.induction.heads.ours": "ICL 完成一半变化：{half}；归纳头：{induction}；前一词元头：{previous}",
    "lab.induction.ablation.claim": "（在小的只有注意力的模型中）敲除这些归纳头，上下文学习能力就没了。",
    "lab.induction.ablation.rule": (
        "两部分，每个两层种子：把最强归纳头所在层的归纳头（归纳分达到完"
        "美头得分 {induction} 的每个头；一个都没有时只取最强"
        "的那个）的输出一起置零，至少去掉 {collapse}% 的 ICL "
        "分数；把该层其余头中最弱的一个置零，至多去掉 {control}%。两者"
        "都满足：成立；满足其一：半对；都不满足：不成立。"
    ),
    "lab.induction.ablation.finding": (
        "头 {heads}：完好时 ICL 分数 {icl} nats，去掉它们后 {without}"
        "，去掉同层其余头中最弱的一个后 {control}；只去掉最强"
        "的一个：{single}。"
    ),
    "lab.induction.ablation.paper": (
        "Olsson 等，论据 3：小的只有注意力的模型中，几乎所有上下文学习似乎都来自这些归纳头，从相变开始时"
        "起一直到训练结束都是如此；对小的只有注意力的模型，这一证据被评为“Strong, Causal”（强，因"
        "果）。逐个头的消融数字在 Model Analysis Table 的图中：为本条目读过的论文部分（即这里引用的段落）中没有。"
    ),
    "lab.induction.ablation.ours": (
        "ICL {icl} → 去掉归纳头 {heads} 后 {without} nats（没有头达到完美头得分的 {induction} 时只取最强的一个；"
        "去掉其余头中最弱的一个后 {control}）"
    ),
    # ------------------------------------------------------------------ induction-text
    "lab.induction-text.title": "自然文本上的上下文学习变化与归纳头，有无 FFN（账本：Olsson 等 2022）",
    "lab.induction-text.setup": (
        "两个两层模型，{heads} 个头，d_model {d_model}：带 FFN（d_ff {d_ff}）的实验室字符模型，以及去掉 FFN "
        "的同一模型（只有注意力，同 ffn-width），各在实验室已在用的莎士比亚文本（--fast 时是实验室自己的玩具"
        "文本）的 {L} 个字符的窗口上训练 {steps} 步，批大小 {batch}。ICL 分数与 induction 条目相同：第 {late}"
        " 个字符的损失减去第 {early} 个字符的损失，在该文本 {windows} 个固定验证窗口上计算。每个头的归纳分和"
        "前一词元分来自 glassformer 的因果检测器，在字符词表的固定重复随机序列上测量，按同一批序列上完美头得"
        "分的比例来读。从论文的小模型缩小到能在 CPU 上运行。"
    ),
    "lab.induction-text.attention.claim": (
        "在自然文本上，两层只有注意力的模型的 ICL 分数在训练中的一个窄窗口内突然变化，同时形成归纳头。"
    ),
    "lab.induction-text.attention.rule": (
        "两部分，每个种子：ICL 分数总变化的至少 {half} 落在 {window}% 的训练步数之内（突然）；第二层最佳头的"
        "归纳分首次达到完美头得分 {induction} 的步数，以及第一层最佳头的前一词元分首次达到该比例的步数，都在 "
        "ICL 分数完成一半变化的步数前后 {together}% 训练步数之内（同时）。两者都满足：成立；满足其一：半对；"
        "都不满足：不成立。"
    ),
    "lab.induction-text.attention.finding": (
        "只有注意力：最终 ICL 分数 {icl} nats，一个窗口内的变化占比 {share}，完成一半变化：{half}；归纳头："
        "{induction}（最终分数为完美头得分的 {ind_score}）；前一词元头：{previous}（最终 {prev_score}）；共 "
        "{steps} 步。"
    ),
    "lab.induction-text.attention.paper": (
        "Olsson 等（transformer-circuits.pub，2022 年 3 月 8 日）：为本条目读过的论文只有页面开头，其中"
        "提到先前工作的“small (1 and 2 layer attention-only) models”。论据 1 关于自然文本上训练的模型的原话、"
        "窗口宽度和数字：为本条目读过的页面开头中没有（induction 条目引用了论据 1）。"
    ),
    "lab.induction-text.attention.ours": (
        "ICL {icl} nats，一个窗口内占比 {share}；完成一半变化：{half}；归纳头：{induction}"
    ),
    "lab.induction-text.ffn.claim": (
        "带前馈层时也一样：在自然文本上，两层带 FFN 的模型的 ICL 分数在一个窄窗口内突然变化，同时形成归纳头。"
    ),
    "lab.induction-text.ffn.rule": (
        "把只有注意力那条主张的规则用于带 FFN 的模型：每个种子，ICL 分数变化的至少 {half} 落在 {window}% 的步"
        "数之内，且其归纳头（第二层，完美头得分的 {induction}）和前一词元头（第一层）都在完成一半变化的步数前"
        "后 {together}% 步数之内达到。两者都满足：成立；满足其一：半对；都不满足：不成立。"
    ),
    "lab.induction-text.ffn.finding": (
        "带 FFN：最终 ICL 分数 {icl} nats，一个窗口内的变化占比 {share}，完成一半变化：{half}；归纳头："
        "{induction}（最终分数为完美头得分的 {ind_score}）；前一词元头：{previous}（最终 {prev_score}）；共 {steps}"
        " 步。"
    ),
    "lab.induction-text.ffn.paper": (
        "Olsson 等，论据 1，关于带 MLP 的模型：其原文及相关数字：为本条目读过的只有页面开头，其中没有这些，"
        "它讲的是先前工作中只有注意力的模型。"
    ),
    "lab.induction-text.ffn.ours": (
        "ICL {icl} nats，一个窗口内占比 {share}；完成一半变化：{half}；归纳头：{induction}"
    ),
    # ------------------------------------------------------------------ extrapolation
    "lab.extrapolation.title": "各位置方案的长度泛化（账本：Press 等 2022；Kazemnejad 等 2023）",
    "lab.extrapolation.setup": (
        "两部分。字符模型：沿用 length 实验的设置，只取 ALiBi "
        "说法比较的两种方案：实验室的字符模型用 ALiBi 或正弦位置，在 "
        "{T} 个字符的窗口上训练 {lm_steps} 步，再读 {T_eval} "
        "个字符的窗口，记录每个位置的验证损失。复制任务：[BOS] a_1..a_n "
        "[SEP] a_1..a_n，符号取自 {V} 个，只有复制的那一半是目"
        "标；实验室字符模型的块配上每种已注册的位置方案，在 {rows} 行固定"
        "数据（n = 1..{L}）上训练 {steps} 步，在 n = 1..{L2}"
        " 上测试。每个复制模型的 max_len 都是 {max_len}，即最长的测试行："
        "可学习位置表中 {trained} 之后的行存在，但从未训练。排名依"
        "据：超出训练长度时复制的逐词元准确率（Kazemnejad 等统计的是"
        "完全匹配）。为适应 CPU，从 Press 等的 WikiText-103 模型和"
        " Kazemnejad 等的解码器缩小而来；Kazemnejad 等比较的方案之一 "
        "T5 相对偏置，这里没有注册。"
    ),
    "lab.extrapolation.alibi.claim": (
        "用 ALiBi 在短输入上训练的语言模型，在比训练时更长的输入上保持其损失，而正弦位置会变差（短训长测）。"
    ),
    "lab.extrapolation.alibi.rule": (
        "两部分，字符模型：ALiBi 在位置 T+1..2T 的平均损失至多比它在 T/2"
        "+1..T 的损失高 {tol} nats；并且在 T+1..2T 上，ALiBi "
        "的每个种子都低于正弦位置的每个种子。两者都满足：成立；满足一个：部分成立；都不满足：不成立。"
    ),
    "lab.extrapolation.alibi.finding": (
        "ALiBi：位置 {half} 到 {T} 为 {in} nats，到位置 {T2} 为"
        " {near}，从那里到 {T_eval} 为 {far}。正弦位置：位置 {half} 到 "
        "{T} 为 {sin_in}，到位置 {T2} 为 {sin_near}（{seeds} 个种子）。"
    ),
    "lab.extrapolation.alibi.paper": (
        "Press 等，摘要：在长度 1024 的输入序列上训练的 13 亿参数模型“extrapolates to input sequences of length 2048, "
        "achieving the same perplexity as a sinusoidal position embedding model trained on inputs of length 2048”（外推"
        "到长度 2048 的输入序列，困惑度与在长度 2048 上训练的正弦位置模型相同）；图 1（WikiText-103，L = 512 和 L = "
        "1,024）：随着（验证集的）输入序列变长，现有的位置方法（正"
        "弦、旋转和 T5）困惑度变差，而他们的方法（§3）不会（这段图注读自第三方网页上的转录，"
        "论文 PDF 本身在这里读不到）。图 1 "
        "背后的困惑度（附录的表 2 和表 3）：为本条目读过的论文部分（即这里引用的段落）中没有。"
    ),
    "lab.extrapolation.alibi.ours": (
        "字符模型，超出训练长度后 ALiBi {in} → {near} nats（{T} → {T2}）；正弦位置 {sin_in} → {sin_near}"
    ),
    "lab.extrapolation.nope.claim": (
        "在短的复制序列上训练、在长达两倍的复制序列上测试，完全没有位置编码的解码器（NoPE）比显式的位置方案泛化得更好。"
    ),
    "lab.extrapolation.nope.rule": (
        "每个种子在超出训练长度时复制的逐词元准确率。对其他每种已注"
        "册的方案：NoPE 的每个种子是否都高于该方案的每个种子？"
        "全部是：成立；部分是：部分成立；都不是：不成立。"
    ),
    "lab.extrapolation.nope.finding": (
        "n = {L1}..{L2} 时的逐词元准确率（{seeds} 个种子），从好到差：{ranking}。NoPE（{none} ± {none_spread}）排第 "
        "{place}，共 {n} 种；明显高于：{beaten}。"
    ),
    "lab.extrapolation.nope.paper": (
        "Kazemnejad 等，摘要：最常用的位置编码方法，如 ALiBi、Rotary 和 APE，不太适合下游任务中的长度泛化；更重要的是，"
        "NoPE 胜过其他显式的位置编码方法。§4：NoPE 模型“performs on par with or even better than the best-performing "
        "explicit PE, T5's Relative Bias”（与表现最好的"
        "显式位置编码 T5 相对偏置相当甚至更好；读自第三方网页上的引文，论文 PDF 本身在这里读不到）。"
        "论文给出的排名：NoPE 和 T5 "
        "相对偏置在前，ALiBi、Rotary 和 APE 在后。每种方案在各任务"
        "上的准确率，以及 ALiBi、Rotary 和 APE 之间的顺序（展示它们"
        "的那张图）：为本条目读过的论文部分（即这里引用的段落）中没有。"
    ),
    "lab.extrapolation.nope.ours": "复制，n = {L1}..{L2} 时的逐词元准确率：{ranking}",
    # ------------------------------------------------------------------ 注意力是不是解释
    "lab.attention-explanation.title": "注意力是不是解释？（账本：Jain & Wallace 2019；Wiegreffe & Pinter 2019）",
    "lab.attention-explanation.setup": (
        "在一门合成的“情感”语言上训练分类器；论文用的是带加性注意力的 BiLSTM 做文本分类，这里缩小规模"
        "，让多个种子能在 CPU 上跑完，并且知道哪个词元决定类别：双向的 glassformer "
        "Encoder，两个块、每块一个头，d_model {d_model}，读入 [CLS] 和 {T} 个词元，在 [CLS] "
        "位置把类别当作词元来预测；{train} 个训练样例，用 glassformer 的 Trainer 训练 {steps} "
        "步。键控任务：标记词后面紧跟的情感词决定类别，另外 {distractors} 个情感词是干扰（要看相邻"
        "的两个词元：词袋解决不了）。词袋任务：1 个或 3 个情感词的多数决定类别。研究的注意力是最后一块的 "
        "[CLS] 行（它的键是带上下文的状态，就像 BiLSTM 的隐藏状态）。在 {probe} 个固定的键控样例上：这一"
        "行与每个词元重要性之间的 Kendall tau-b（梯度：把词元嵌入朝中性词做归因修补；"
        "留一：把该词元换成中性词做激活修补）；用 {search} 步 Adam 找到的对抗行，在 p(正面) 的变化不超过 "
        "{eps} 的前提下最大化与学到的行之间的 Jensen-Shannon 散度；不同种子在同一批样"
        "例上的散度；以及通过钩子点把每个注意力层的权重冻结为均匀分布，在两个任务上训练。"
    ),
    "lab.attention-explanation.tau.claim": "学到的注意力权重与基于梯度的和留一法的词元重要性只有很弱的相关。",
    "lab.attention-explanation.tau.rule": (
        "每个种子，在探针样例上对注意力行与每种重要性之间的 Kendall tau-b 取平均。两部分：每个种子"
        "与梯度重要性的平均 tau 低于 {weak}；每个种子与留一重要性的平均 tau 低于 {weak}。都满足：成"
        "立；满足一个：半对；都不满足：不成立。"
    ),
    "lab.attention-explanation.tau.finding": (
        "{seeds} 个种子，测试准确率 {accuracy}：注意力与梯度的平均 tau 为 {grad}，与留一为 "
        "{loo}；两种重要性彼此之间为 {grad_loo}。"
    ),
    "lab.attention-explanation.tau.paper": (
        "Jain & Wallace，摘要：“learned attention weights are frequently uncorrelated with gradient-based "
        "measures of feature importance”（学到的注意力权重常常与基于梯度的特征重要性不相关）。各数据集的 "
        "Kendall tau 数字：为本条目读过的论文部分（即这里引用的段落）中没有。"
    ),
    "lab.attention-explanation.tau.ours": "平均 tau：注意力对梯度 {grad}，对留一 {loo}",
    "lab.attention-explanation.adversarial.claim": (
        "一个很不一样的注意力分布能给出同样的预测——而且“很不一样”超过了不同种子训练出的两个模型之间的差别。"
    ),
    "lab.attention-explanation.adversarial.rule": (
        "每个种子、每个探针样例：在 p(正面) 的变化不超过 {eps} 的对抗行中，与学到的行之间最大的 "
        "Jensen-Shannon 散度。两部分：每个种子中至少 {most} 的样例达到 {far} 或更大的散度；每个种子的"
        "散度中位数都高于任意两个种子的行之间散度的中位数。都满足：成立；满足一个：半对；都不满足：不成立。"
    ),
    "lab.attention-explanation.adversarial.finding": (
        "对抗散度达到 {far} 或更大的样例占比：{share}；对抗散度中位数 {median}；种子之间散度的中位数 "
        "{seed_jsd}。学到的注意力在决定类别的词上的权重：{deciding}。"
    ),
    "lab.attention-explanation.adversarial.paper": (
        "Jain & Wallace，摘要：“one can identify very different attention distributions that nonetheless "
        "yield equivalent predictions”（能找到很不一样却给出等价预测的注意力分布）。Wiegreffe & "
        "Pinter，摘要：他们的检验之一是“a variance calibration based on multiple random seed "
        "runs”（用多个随机种子的运行校准方差），并且“even when reliable adversarial distributions can be "
        "found, they don't perform well on the simple diagnostic”。两篇论文中测得的散度数字"
        "：为本条目读过的论文部分（即这里引用的段落）中没有。"
    ),
    "lab.attention-explanation.adversarial.ours": (
        "{share} 的样例达到散度 {far}；中位数 {median}，种子之间为 {seed_jsd}"
    ),
    "lab.attention-explanation.uniform.claim": (
        "均匀权重基线能把任务分开：由词袋决定类别时，冻结为均匀的注意力和学到的注意力分类得一样好；由词元"
        "顺序决定时则不然。"
    ),
    "lab.attention-explanation.uniform.rule": (
        "用学到的注意力和均匀注意力训练的分类器在留出集上的准确率，每个种子。两部分：词袋任务上均匀的平均"
        "值最多比学到的平均值低 {tie}；键控任务上学到的最差种子比均匀的最好种子至少高 {gap}。都满足：成立"
        "；满足一个：半对；都不满足：不成立。"
    ),
    "lab.attention-explanation.uniform.finding": (
        "词袋任务：学到的 {bag_learned}，均匀 {bag_uniform}。键控任务：学到的 {keyed_learned}，均匀 {keyed_uniform}。"
    ),
    "lab.attention-explanation.uniform.paper": (
        "Wiegreffe & Pinter，摘要：他们的第一个检验是“a simple uniform-weights baseline”（一个"
        "简单的均匀权重基线）。各数据集冻结为均匀权重时的分数：为本条目读过的论文部分（即这里引用的段落）中没有。"
    ),
    "lab.attention-explanation.uniform.ours": (
        "词袋：学到的 {bag_learned}，均匀 {bag_uniform}；键控：学到的 {keyed_learned}，均匀 {keyed_uniform}"
    ),
    "lab.ledger.title": "复现账本：在 CPU 上重跑已发表的小 Transformer 结果",
    "lab.ledger.intro": (
        "每行是一个已发表结果中的一条说法，按笔记本 CPU 缩小规模：论文的数字（及其出处）和我们的数字并列，判定来自一条"
        "在运行"
        "之前就以代码写定的规则。为条目读过的论文部分中找不到论文数字时，该行如实说明，而不是引用一个数。"
    ),
    "lab.ledger.col.entry": "条目",
    "lab.ledger.col.source": "论文",
    "lab.ledger.col.claim": "说法",
    "lab.ledger.col.paper": "论文的数字",
    "lab.ledger.col.ours": "我们的数字",
    "lab.ledger.col.verdict": "判定",
    "lab.ledger.col.cpu": "CPU 时间",
    "lab.ledger.took": "CPU {cpu} 秒（墙钟 {wall} 秒）",
}
