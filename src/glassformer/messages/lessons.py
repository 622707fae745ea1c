"""The lessons' words (glassformer lesson ...; src/glassformer/lessons): one entry per
sentence, keys `lesson.<lesson>.*`, and the errors the lessons raise (`error.lesson.*`).

EN holds them in English, ZH in Chinese, with the same keys and the same {fields} (a test checks).
Only words live here: every number is computed by the lesson and formatted in as a {field}.

课程讲解与课程报错：中文版在 ZH，与 EN 键名相同、{字段} 相同；数字全部由课程在运行时算出后填入。
"""

EN = {
    "lesson.common.title.files": "Files written",
    "lesson.common.shape": "shape",
    "lesson.common.total": "total",
    "lesson.common.step": "step",
    "lesson.common.head": "head {h}",
    "lesson.common.train_loss": "train loss",
    "lesson.common.val_loss": "val loss",
    "lesson.common.train_mse": "train MSE",
    "lesson.common.val_mse": "val MSE",
    "lesson.common.lr": "lr",
    "lesson.fruit.say.projections": "The three projections (hand-picked, 2 × 2), to redo every step below by hand:",
    "lesson.fruit.show.weights": "weights = exp / row sum",
    "lesson.fruit.show.output": "output = weights·V   (3, 3)·(3, 2) →",
    "lesson.fruit.show.dots": "PE[p]·PE[p+k]   rows p, columns k",
    "lesson.fruit.show.rotation": "R_{k} for ω_0 = {omega} (the first 2×2 block)",
    "lesson.fruit.shape.input": "input x",
    "lesson.fruit.shape.q_proj": "x·W_Q (one Linear for all heads)",
    "lesson.fruit.shape.scores": "scores Q·Kᵀ/√d_k",
    "lesson.fruit.shape.weights": "softmax weights",
    "lesson.fruit.shape.z": "weights·V (z)",
    "lesson.fruit.shape.out": "output projection",
    "lesson.tiny.say.step_loss": "  step {step}: loss {loss}",
    "lesson.common.epoch": "epoch",
    # ---------------------------------------------------------------- fruit
    "lesson.fruit.title.by_hand": "1. Attention by hand (NumPy, row vectors: x·W)",
    "lesson.fruit.why.embed": "Each word is a row of two numbers, sweetness and sourness: the embedding matrix E.",
    "lesson.fruit.why.Q": "Queries say what each word is looking for: Q = E·W_Q.",
    "lesson.fruit.why.K": "Keys say what each word offers to be found by: K = E·W_K.",
    "lesson.fruit.why.V": "Values are what each word hands over once it is attended to: V = E·W_V.",
    "lesson.fruit.why.scores": "Row i of Q·Kᵀ scores word i's query against every key (a dot product per pair).",
    "lesson.fruit.why.scale": (
        "Dividing by √d_k = √{d_k} ≈ {root} keeps the scores from growing with the width of the keys."
    ),
    "lesson.fruit.why.softmax": (
        "Softmax per row: exponentiate, then divide by the row sum, so each row becomes weights that sum to 1."
    ),
    "lesson.fruit.say.shift": (
        "Subtracting each row's maximum before exp (what real code does to avoid overflow) gives the same weights: max "
        "difference {diff}."
    ),
    "lesson.fruit.why.output": "Each output row is a weighted average of the value rows, with that row's weights.",
    "lesson.fruit.say.attends": "{word} gives its largest weight to {other} ({weight}).",
    "lesson.fruit.title.library": "2. The same numbers from glassformer",
    "lesson.fruit.say.maxdiff": "  largest difference from the hand computation: {diff}",
    "lesson.fruit.title.published": "3. The tutorial's printed figures (seed 004) against the computed ones",
    "lesson.fruit.why.published": (
        "A published row counts as agreeing when every entry is within half a unit of the last digit printed."
    ),
    "lesson.fruit.pub.agrees": "{name}: agrees with the computation (largest difference {diff}).",
    "lesson.fruit.pub.row": "{name}[{word}]: the tutorial prints {published}; the computation gives {true}.",
    "lesson.fruit.pub.transposed": (
        "  why: x·W_{name}ᵀ gives exactly {value}: for {word} the tutorial multiplied by the transposed matrix (the "
        "column-vector habit W·x)."
    ),
    "lesson.fruit.pub.slip": (
        "  why: neither x·W_{name} nor x·W_{name}ᵀ gives the printed row (x·W_{name}ᵀ = {value}): an arithmetic slip."
    ),
    "lesson.fruit.pub.inherited": (
        "  why: recomputing {name} from the tutorial's own {inputs} reproduces it, so the error comes from an earlier "
        "step."
    ),
    "lesson.fruit.pub.new_slip": (
        "  why: even from the tutorial's own {inputs}, {name} comes out differently, so this step adds an error of its "
        "own:"
    ),
    "lesson.fruit.pub.own_label": "  {name} recomputed from the tutorial's own {inputs}",
    "lesson.fruit.pub.summary": "{ok} of {total} printed steps agree with the computation.",
    "lesson.fruit.pub.favourite": (
        "The tutorial has {word} attending mostly to {published}; the computed weights put most on {true}."
    ),
    "lesson.fruit.title.heads": "4. Multi-head reshapes: d_model = {d_model}, {heads} heads, d_k = {d_k}",
    "lesson.fruit.why.heads": (
        "One Linear makes every head's queries at once; view and transpose only relabel those numbers so each head "
        "gets its own (T, d_k) block."
    ),
    "lesson.fruit.say.heads_rows": "{heads} heads × {T} queries, each row of weights sums to 1: {sums}",
    "lesson.fruit.title.positions": "5. Sinusoidal positions: {n} positions × {d} features",
    "lesson.fruit.say.omegas": "Frequencies ω_i read back from row p = 1 of the table: {omegas}",
    "lesson.fruit.why.dots": (
        "Each (sin, cos) pair is a point on a circle at angle p·ω_i, so a dot product only sees the angle between two "
        "positions."
    ),
    "lesson.fruit.say.dot_spread": (
        "Down every column the dot product is the same (largest spread {spread}); Σ_i cos(k·ω_i) predicts {theory}."
    ),
    "lesson.fruit.why.rotation": (
        "Moving k positions along turns every circle by k·ω_i: one fixed rotation matrix, whatever the start p."
    ),
    "lesson.fruit.say.rotation": "PE[p]·R_{k} equals PE[p+{k}] for all {n} starting positions (largest error {err}).",
    "lesson.fruit.why.claim": (
        "The tutorial says the difference of two positions depends only on their distance; here are two pairs 5 apart."
    ),
    "lesson.fruit.say.claim": (
        "The two differences are {gap} apart, {ratio} of their length ({len1} and {len2}): they have equal length but "
        "point in different directions. What holds is that PE[2] − PE[7] = (PE[0] − PE[5])·R_2 (largest error {err})."
    ),
    # its chart's words
    "lesson.fruit.chart.key": "key",
    "lesson.fruit.chart.query": "query",
    "lesson.fruit.chart.weights": "softmax(Q·Kᵀ/√{d})",
    "lesson.fruit.chart.feature": "feature (even: sin, odd: cos)",
    "lesson.fruit.chart.position": "position p",
    "lesson.fruit.chart.pe_title": "sinusoidal PE, {positions} positions × {features} features",
    # ---------------------------------------------------------------- hello-world
    "lesson.hello.title.tokenizer": "1. Vocabulary and tokenizer (whitespace split, unknown words → <UNK>)",
    "lesson.hello.say.duplicate": (
        'The tutorial\'s list has {n} entries with "{word}" at ids {ids}. Its dict {{word: i}} keeps the last, so '
        '"{word}" encodes as {theirs} and id {unused} is a row no input or target ever uses (it still gets an '
        'embedding, a head row and probability mass). glassformer\'s WordTokenizer keeps the first: "{word}" = {ours}'
        ", and the vocabulary has {size} entries."
    ),
    "lesson.hello.why.tokenize": (
        "A sentence is split on spaces, each word looked up (unknown → <UNK>), and wrapped in <BOS> … <EOS>:"
    ),
    "lesson.hello.title.data": "2. Training rows",
    "lesson.hello.why.shift": (
        "The targets are the inputs shifted left by one: at each position the model must name the next token; <PAD> "
        "targets are ignored by the loss."
    ),
    "lesson.hello.title.params": "3. Parameters, counted from the model",
    "lesson.hello.say.params": (
        "With the tutorial's {V}-entry vocabulary the same model has {theirs} parameters; the tutorial prints "
        "{published} (off by {diff}). With our {v_ours}-entry vocabulary: {ours}."
    ),
    "lesson.hello.title.train": "4. Training: {epochs} epochs, batch {batch}, Adam, mean loss per epoch",
    "lesson.hello.why.mask": (
        "mask=none is the tutorial's model (every position sees the whole row); mask=causal lets position t see only "
        "tokens 0..t."
    ),
    "lesson.hello.say.divisor": (
        "(The tutorial's printed average divides the sum of its {batches} batch losses by {n} // {b} = {div}; the "
        "table above is the true mean over all rows.)"
    ),
    "lesson.hello.title.predict": '5. Next word after "{prompt}"',
    "lesson.hello.say.predict": '  mask={mask}: "{word}" with probability {p}   (next: {others})',
    "lesson.hello.title.generate": "5. Greedy continuations",
    "lesson.hello.why.generate": (
        "Generation feeds the model its own prefix only, so a model that learned to read the next token from its input "
        "has nothing to read."
    ),
    "lesson.hello.title.attention": '6. Attention of the last query ("{query}") in each head: blocks.0.attn.weights',
    "lesson.hello.title.gradient": "7. Does position t depend on later tokens? ‖∂logits[t] / ∂embedding[j]‖",
    "lesson.hello.why.gradient": (
        "Entries right of the diagonal (j > t) measure how much position t's prediction depends on tokens it should "
        "not have seen yet."
    ),
    "lesson.hello.show.grad_axes": "rows: logits at position t, columns: embedding of token j",
    "lesson.hello.say.future_grad": "  mask={mask}: largest dependence on a later token = {value}",
    "lesson.hello.title.random": "8. The leak made visible: random tokens",
    "lesson.hello.why.random": (
        "On independent random tokens nothing about the next token can be learned from the past, so any held-out loss "
        "below chance is information from the future."
    ),
    "lesson.hello.say.random_setup": (
        "{S} symbols, {T} input tokens per row. Chance = ln {S} = {chance}. A model that copies every visible next "
        "token (all but the last position) reaches ln({S}) / {T} = {floor}."
    ),
    "lesson.hello.say.random_result": "  mask={mask}: held-out loss {loss} ({ratio} of chance); per position: [{per}]",
    # its chart's words
    "lesson.hello.chart.loss": "training loss (log scale)",
    "lesson.hello.chart.position": "position t",
    "lesson.hello.chart.random_loss": "held-out loss on random tokens",
    # ---------------------------------------------------------------- sine
    "lesson.sine.title.data": "1. Data: noisy sine waves, random start and frequency",
    "lesson.sine.say.data": (
        "{n_train} training and {n_val} validation sequences of {T} points; a period spans {lo} to {hi} samples "
        "depending on the frequency."
    ),
    "lesson.sine.title.lr": "2. Learning-rate schedules over this run's {total} steps",
    "lesson.sine.say.lr_peak": "  {name}: peaks at {peak} (step {step})",
    "lesson.sine.say.lr_tutorial": (
        "The tutorial's LambdaLR multiplies base lr {base} by a Noam factor without its 1/√d_model factor, so its "
        "learning rate only reaches {peak}, after {warm} steps. The paper's formula on its own (d_model = {d}) is "
        "already a learning rate: {formula} at that step. This run uses: {chosen}."
    ),
    "lesson.sine.title.forecast": "3. Forecasting: read {seen} values, predict the next {horizon}",
    "lesson.sine.why.forecast": (
        "Direct multi-step forecasting with a causal mask: position t sees y[0..t] and outputs y[t+1..t+{horizon}], so "
        "every prefix is a training example and the forecast is one forward pass."
    ),
    "lesson.sine.say.baseline": '  baseline "{name}" on the validation forecasts: MSE {value}',
    "lesson.sine.say.val_is_forecast": (
        "(train MSE: over all {seen} prefixes, with dropout on; val MSE: the {horizon} values predicted from the first "
        "{seen}.)"
    ),
    "lesson.sine.say.forecast_result": (
        "Best validation MSE {mse} at epoch {epoch}: {zero} of the zero baseline, {last} of the last-value baseline. "
        "{stopped}"
    ),
    "lesson.sine.say.stopped": "Stopped early: validation had stopped improving; the best epoch's weights are kept.",
    "lesson.sine.say.ran_all": "Ran all epochs; the best epoch's weights are kept.",
    "lesson.sine.title.attention": (
        "4. Where does the forecast look? Validation sequence #{i}: one period = {period} samples, so one period "
        "before position {q} is {back}"
    ),
    "lesson.sine.say.head": (
        "  layer {layer} head {head}: strongest key {top}; weight within ±{window} of one period back {near}; on the "
        "last {recent} values {last5}"
    ),
    "lesson.sine.say.period_verdict": (
        "Heads whose strongest key is within {window} samples of one period back: {heads} (uniform attention would put "
        "{uniform} in such a window). The heatmap shows head {best}."
    ),
    "lesson.sine.say.period_no": (
        "No head's strongest key is within {window} samples of one period back; the most weight any head puts there is "
        "{mass} (head {best}), against {uniform} for uniform attention. Nothing forces it to look there: a noiseless "
        "sine is determined by three consecutive samples (y[t+1] = 2·cos(ω)·y[t] − y[t−1]). The heatmap shows head "
        "{best}."
    ),
    "lesson.sine.title.tutorial": "3. The tutorial's task: read x, predict y = sin(freq·x)",
    "lesson.sine.why.tutorial": (
        "The model only sees the {T} x values; they fix the start, not the frequency, which is random and never given. "
        "So no model can do better than E[y | x] = E_freq[sin(freq·x)]."
    ),
    "lesson.sine.say.floor": (
        "Bayes floor σ² + E[Var_freq sin(freq·x)]: {floor} ± {se} (Monte-Carlo). On this validation set the best "
        "predictor E[y | x] ({k} sampled frequencies) scores {bayes}; always predicting 0 scores {zero}."
    ),
    "lesson.sine.say.tutorial_result": (
        "The trained model's validation MSE is {mse}: {ratio} × the best possible ({bayes}), and nowhere near 0. "
        "Predicting 0 would score {zero}."
    ),
    # its chart's words
    "lesson.sine.chart.this_run": "{name} (this run)",
    "lesson.sine.chart.optimizer_step": "optimizer step",
    "lesson.sine.chart.lr": "learning rate (log scale)",
    "lesson.sine.chart.train": "train MSE (all prefixes)",
    "lesson.sine.chart.val": "val MSE (forecast from {observed})",
    "lesson.sine.chart.baseline.zero": "baseline: zero",
    "lesson.sine.chart.baseline.last_value": "baseline: last value",
    "lesson.sine.chart.kept": "kept (best val)",
    "lesson.sine.chart.mse": "MSE (log scale)",
    "lesson.sine.chart.observed": "observed",
    "lesson.sine.chart.truth": "truth",
    "lesson.sine.chart.forecast": "forecast",
    "lesson.sine.chart.last_value": "last value",
    "lesson.sine.chart.val_title": "val #{k}: freq {freq}",
    "lesson.sine.chart.truth_freq": "truth (freq {freq})",
    "lesson.sine.chart.model": "model",
    "lesson.sine.chart.best": "E[y | x] (best possible)",
    # ---------------------------------------------------------------- tiny (seed 000)
    "lesson.tiny.title.tokenizer": "1. Characters, ids and vocab_size",
    "lesson.tiny.why.chars": (
        "The vocabulary is the sorted set of the text's characters; a character's id is its place in that list."
    ),
    "lesson.tiny.say.text": "The whole corpus is one sentence of {n} characters, {V} of them distinct.",
    "lesson.tiny.title.batches": "2. Windows of {T} characters, targets shifted by one",
    "lesson.tiny.why.shift": (
        "At every position the target is the next character: one window gives as many examples as it is long."
    ),
    "lesson.tiny.say.bound": (
        "The tutorial draws start offsets with randint(0, len(ids) - seq_len - 1): {starts} possible starts, so the "
        "last character that is ever a target sits at index {last} of 0..{n_last}, and the final character {char!r} is "
        "never predicted. glassformer's get_batch draws from {ours} starts; its last target is index {last_ours}."
    ),
    "lesson.tiny.title.params": "3. Parameters, counted from the model (formula beside each part)",
    "lesson.tiny.say.params": (
        "The model has {ours} parameters; the tutorial speaks of a model of about {published}. Ratio: {ratio}."
    ),
    "lesson.tiny.say.positions": (
        "The position table has {rows} rows, but training reads positions 0..{train_last} and the tutorial's "
        "generation at most 0..{gen_last}, so {idle} rows are never read or trained: {share} of all parameters."
    ),
    "lesson.tiny.title.train": "4. Training as the tutorial does: {steps} steps, batch {batch}, AdamW at {lr}",
    "lesson.tiny.say.loss": (
        "The loss of the first batch is {first} (a uniform guess over the vocabulary: {uniform}); the mean over the "
        "last {n} steps is {last}."
    ),
    "lesson.tiny.why.printed": (
        "Like the tutorial, each printed line is the loss of one batch at that step, with dropout on: it jumps from "
        "batch to batch."
    ),
    "lesson.tiny.title.generate": '5. Sampling after "{prompt}": {n} characters at temperature {temperature}',
    "lesson.tiny.say.words": (
        "{found} of the {total} space-separated pieces are words of the training sentence: {words}"
    ),
    "lesson.tiny.say.crop": (
        "The tutorial's generate() feeds only the last {crop} characters although the model has {max_len} positions, "
        "so its last {cropped} steps see a cropped context; glassformer's sampler keeps up to max_len."
    ),
    "lesson.tiny.title.claims": "6. The tutorial's claims, and the lab experiment that tests each",
    "lesson.tiny.link.scaling": (
        "Dividing by √d_head keeps the score variance stable and matters a lot for training stability."
    ),
    "lesson.tiny.link.mask": "Without a causal mask a decoder learns to cheat by reading the future.",
    "lesson.tiny.link.inf": "A -inf score makes the masked softmax weight approach 0.",
    "lesson.tiny.link.set": "Self-attention is a set operation: without positions, word order is lost.",
    "lesson.tiny.link.sinusoidal": "Sinusoidal positions extrapolate to longer sequences better than a learned table.",
    "lesson.tiny.link.heads": "Several heads each learn their own kind of relation.",
    "lesson.tiny.link.preln": "Post-LN is sensitive to the learning rate and diverges easily; Pre-LN is stable.",
    "lesson.tiny.link.ffn": "The FFN is not optional; d_ff is usually two to four times d_model.",
    "lesson.tiny.why.finding": "measured: {finding}",
    "lesson.tiny.say.no_lab": (
        "No lab results found in {lab}: run `glassformer lab run NAME --out {lab}` (or pass --lab DIR) to see the "
        "verdicts here."
    ),
    # its chart's words
    "lesson.tiny.chart.loss": "training loss of the batch (nats)",
    # ---------------------------------------------------------------- seq2seq
    "lesson.s2s.task.zh2num": "Chinese number words → Arabic numerals",
    "lesson.s2s.task.num2zh": "Arabic numerals → Chinese number words",
    "lesson.s2s.fast": " (--fast: a smaller model)",
    "lesson.s2s.title.task": "1. The task: {what}, made on the fly",
    "lesson.s2s.say.split": (
        "The {n} numbers 0 … {last}: {train} to train on, {val} to validate, {test} held out. Held-out sources that "
        "also appear in training: {shared}."
    ),
    "lesson.s2s.why.split": (
        "Held-out numbers test the rules, not memory: the model never saw their words and digits as a pair."
    ),
    "lesson.s2s.say.vocab": (
        "One vocabulary for both sides, {V} tokens: <PAD> <UNK> <BOS> <EOS> and one per character, {chars}."
    ),
    "lesson.s2s.title.model": (
        "2. The model: an encoder and a decoder of {layers} layer(s) each, d_model {C}, {H} heads{fast}"
    ),
    "lesson.s2s.say.sharing": (
        "The source embedding, the target embedding and the output head are one (V, C) matrix: {n} parameters, counted "
        "once. Cross-attention holds {cross} of the {total} parameters."
    ),
    "lesson.s2s.why.cross": (
        "Cross-attention is the only road from the source to the output: its queries come from the decoder, its keys "
        "and values from the encoder's output."
    ),
    "lesson.s2s.title.masks": "3. Who may look at whom: the encoder sees everything, the decoder only its past",
    "lesson.s2s.say.encoder_mask": (
        "Change the last source token: the encoder's output at the first source position moves by {moved}. The encoder "
        "has no causal mask and needs none: the whole source is given before translation starts."
    ),
    "lesson.s2s.say.decoder_mask": (
        "Change target token {j}: the logits at positions 0 … {before} move by {zero}, those at position {j} by {moved}"
        ". In training the decoder is handed the whole target; its causal mask keeps position t to the tokens before "
        "it, which is all it will have when it writes for real."
    ),
    "lesson.s2s.say.cross_mask": (
        "Cross-attention hides only source padding: every target position may read every source token."
    ),
    "lesson.s2s.title.train": "4. Teacher forcing and label smoothing: {steps} steps, batch {batch}",
    "lesson.s2s.why.teacher": (
        "Teacher forcing: the decoder reads the true target shifted right, [<BOS>, y₁, …], and is graded on every next "
        "token at once, so one forward pass trains every position:"
    ),
    "lesson.s2s.say.floor": (
        "Label smoothing with ε = {eps} spreads that much of each target's probability over all {V} tokens, so no "
        "model can get the loss below {floor}, the entropy of the smoothed target."
    ),
    "lesson.s2s.say.trained": "Trained in {seconds} s. Last validation loss {val}, {above} above that floor.",
    "lesson.s2s.title.search": "5. Exact match on the {n} held-out numbers: greedy and beam search",
    "lesson.s2s.why.search": (
        "Greedy search writes the most likely token at each step. Beam search keeps the {k} best partial outputs and "
        "ranks them by log P / lp, with lp = ((5 + length) / 6)^α."
    ),
    "lesson.s2s.say.differ": (
        "Greedy search and beam search (α = {alpha}) disagree on {n} of the {total} numbers; beam search is right on "
        "{beam_right} of those, greedy search on {greedy_right}."
    ),
    "lesson.s2s.say.example_differ": (
        "  For example {src}: greedy writes {greedy} (log P {g_lp}), beam {beam} (log P {b_lp}, score {b_score}); the "
        "answer is {answer}."
    ),
    "lesson.s2s.say.agree": (
        "Greedy search and beam search (α = {alpha}) agree on all {total} numbers: at each step the model's best token "
        "is so far ahead that looking further changes nothing."
    ),
    "lesson.s2s.say.beams": (
        "The {k} beams kept for {src}, best first by score (a finished beam was extended by <PAD> at no cost):"
    ),
    "lesson.s2s.say.errors": "Greedy search gets {n} wrong, for example: {examples}",
    "lesson.s2s.title.cross": "6. What cross-attention reads while a symbol is written",
    "lesson.s2s.why.cross_zh2num": (
        "For every non-zero digit of the held-out numbers: the share of a head's weight on the words that say that "
        "digit (its digit word and unit, like 二百 for the 2 of 1205)."
    ),
    "lesson.s2s.why.cross_num2zh": (
        "For every word that says a non-zero digit of the held-out numbers: the share of a head's weight on that digit "
        "of the source."
    ),
    "lesson.s2s.say.cross_best": (
        "Head {head} of {name} puts {mass} of its weight on the source words of the symbol being written, where "
        "uniform attention would put {uniform} ({n} symbols): it aligns digits with their words. The heatmap shows it "
        "on one held-out number."
    ),
    "lesson.s2s.say.cross_weak": (
        "No head puts half its weight on the source words of the symbol being written: the best, head {head} of {name}"
        ", puts {mass}, against {uniform} for uniform attention ({n} symbols). The heatmap shows it on one held-out "
        "number."
    ),
    "lesson.s2s.title.leak": "7. The same model without the decoder's mask ({steps} steps)",
    "lesson.s2s.why.leak": (
        "With causal=False the decoder sees the whole target in training, the token it must predict included."
    ),
    "lesson.s2s.say.leak": (
        "  mask={mask}: next-token accuracy when shown the true target {tf}; held-out exact match when writing alone "
        "{exact}"
    ),
    "lesson.s2s.say.leak_verdict": (
        "Without its mask the decoder scores {tf} while the answer is in its input and {exact} when it has to write "
        "the answer itself: in training it could copy the next token from its input, and translation never hands it "
        "that token."
    ),
    # its chart's words
    "lesson.s2s.chart.floor": "label-smoothing floor {floor}",
    "lesson.s2s.chart.loss": "label-smoothed cross-entropy",
    # ---------------------------------------------------------------- what the lessons refuse
    "lesson.hello.data_fix": "Give a UTF-8 text file with one sentence per line.",
    "error.lesson.choice": "--{option} {value!r} is not one of {choices}.",
    "error.lesson.at_least": "--{option} must be at least {least}, got {value}.",
    "error.lesson.sizes": "{options} must be at least {least}.",
    "error.lesson.beam": (
        "--beam must be at least {least_beam} and --alpha at least {least_alpha}, got {beam} and {alpha}."
    ),
    "error.lesson.data_missing": "--data {path}: no such file (give 'tutorial', 'greetings' or a text file).",
    "error.lesson.data_dir": "--data {path} is a directory; give a text file with one sentence per line.",
    "error.lesson.data_empty": "--data {path} has no non-empty lines; put one sentence per line.",
    "error.lesson.data_lines": (
        "--data {path} has {lines} lines; this lesson trains on at most {most}. For larger text use `glassformer "
        "train`."
    ),
    "error.lesson.data_words": (
        "--data {path}: line {line} has {words} words; the lesson's model reads at most {most} per line. Split it into "
        "shorter lines."
    ),
}


ZH = {
    "lesson.common.title.files": "写出的文件",
    "lesson.common.shape": "形状",
    "lesson.common.total": "合计",
    "lesson.common.step": "步",
    "lesson.common.head": "头 {h}",
    "lesson.common.train_loss": "训练损失",
    "lesson.common.val_loss": "验证损失",
    "lesson.common.train_mse": "训练 MSE",
    "lesson.common.val_mse": "验证 MSE",
    "lesson.common.lr": "学习率",
    "lesson.fruit.say.projections": "三个投影矩阵（手选的 2 × 2），用它们可以把下面每一步亲手再算一遍：",
    "lesson.fruit.show.weights": "权重 = exp / 行和",
    "lesson.fruit.show.output": "输出 = 权重·V   (3, 3)·(3, 2) →",
    "lesson.fruit.show.dots": "PE[p]·PE[p+k]   行 p，列 k",
    "lesson.fruit.show.rotation": "R_{k}，ω_0 = {omega}（第一个 2×2 块）",
    "lesson.fruit.shape.input": "输入 x",
    "lesson.fruit.shape.q_proj": "x·W_Q（所有头共用一个 Linear）",
    "lesson.fruit.shape.scores": "分数 Q·Kᵀ/√d_k",
    "lesson.fruit.shape.weights": "softmax 权重",
    "lesson.fruit.shape.z": "权重·V (z)",
    "lesson.fruit.shape.out": "输出投影",
    "lesson.tiny.say.step_loss": "  第 {step} 步：损失 {loss}",
    "lesson.common.epoch": "轮次",
    # ---------------------------------------------------------------- fruit
    "lesson.fruit.title.by_hand": "1. 手算注意力（NumPy，行向量约定：x·W）",
    "lesson.fruit.why.embed": "每个词是一行两个数：甜度和酸度，三行合起来就是嵌入矩阵 E。",
    "lesson.fruit.why.Q": "Query 表示每个词“想找什么”：Q = E·W_Q。",
    "lesson.fruit.why.K": "Key 表示每个词“凭什么被找到”：K = E·W_K。",
    "lesson.fruit.why.V": "Value 是一个词被关注时真正交出去的内容：V = E·W_V。",
    "lesson.fruit.why.scores": "Q·Kᵀ 的第 i 行，是第 i 个词的 query 与所有 key 逐一做点积得到的匹配分数。",
    "lesson.fruit.why.scale": "除以 √d_k = √{d_k} ≈ {root}，是为了不让分数随 key 的维度变大而膨胀。",
    "lesson.fruit.why.softmax": "对每一行做 softmax：先取指数，再除以这一行的和，于是每行变成加起来等于 1 的权重。",
    "lesson.fruit.say.shift": "先减去每行最大值再取指数（实际代码防溢出的做法），得到的权重完全一样：最大差 {diff}。",
    "lesson.fruit.why.output": "输出的每一行，是用该行权重对所有 value 行做的加权平均。",
    "lesson.fruit.say.attends": "{word} 把最大的权重给了 {other}（{weight}）。",
    "lesson.fruit.title.library": "2. 用 glassformer 再算一遍",
    "lesson.fruit.say.maxdiff": "  与手算结果的最大差：{diff}",
    "lesson.fruit.title.published": "3. 教程（seed 004）印出的数字与计算结果对照",
    "lesson.fruit.why.published": "教程的某一行若每个数都落在其最后一位的半个单位之内，就算一致。",
    "lesson.fruit.pub.agrees": "{name}：与计算一致（最大差 {diff}）。",
    "lesson.fruit.pub.row": "{name}[{word}]：教程印的是 {published}；计算结果是 {true}。",
    "lesson.fruit.pub.transposed": (
        "  原因：x·W_{name}ᵀ 恰好等于 {value}——对 {word}，教程乘的是转置矩阵（列向量写法 W·x 的习惯）。"
    ),
    "lesson.fruit.pub.slip": (
        "  原因：x·W_{name} 和 x·W_{name}ᵀ 都得不到教程那一行（x·W_{name}ᵀ = {value}），属于算术笔误。"
    ),
    "lesson.fruit.pub.inherited": (
        "  原因：用教程自己给出的 {inputs} 重算 {name}，能得到它印的数，所以错误是从前面的步骤带下来的。"
    ),
    "lesson.fruit.pub.new_slip": (
        "  原因：即使用教程自己给出的 {inputs}，{name} 也算不出它印的数，说明这一步本身又出了错："
    ),
    "lesson.fruit.pub.own_label": "  用教程自己的 {inputs} 重算的 {name}",
    "lesson.fruit.pub.summary": "教程印出的 {total} 个步骤中，有 {ok} 个与计算一致。",
    "lesson.fruit.pub.favourite": "教程说 {word} 最关注 {published}；按真实权重，它最关注的是 {true}。",
    "lesson.fruit.title.heads": "4. 多头的形状变换：d_model = {d_model}，{heads} 个头，d_k = {d_k}",
    "lesson.fruit.why.heads": (
        "一个 Linear 一次算出所有头的 query；view 和 transpose 只是给这些数重新分组，让每个头拿到自己的 (T, d_k) 一块。"
    ),
    "lesson.fruit.say.heads_rows": "{heads} 个头 × {T} 个 query，每行权重之和都是 1：{sums}",
    "lesson.fruit.title.positions": "5. 正弦位置编码：{n} 个位置 × {d} 维",
    "lesson.fruit.say.omegas": "从表中 p = 1 那一行反推出的频率 ω_i：{omegas}",
    "lesson.fruit.why.dots": (
        "每对 (sin, cos) 是单位圆上角度为 p·ω_i 的一个点，所以两个位置的点积只取决于它们之间的夹角。"
    ),
    "lesson.fruit.say.dot_spread": "每一列上的点积都相同（最大差 {spread}）；按 Σ_i cos(k·ω_i) 预测为 {theory}。",
    "lesson.fruit.why.rotation": "往后挪 k 个位置，就是把每个圆转过 k·ω_i：不论起点 p 在哪，都是同一个旋转矩阵。",
    "lesson.fruit.say.rotation": "对全部 {n} 个起点，PE[p]·R_{k} 都等于 PE[p+{k}]（最大误差 {err}）。",
    "lesson.fruit.why.claim": "教程说两个位置编码之差只取决于它们的距离；下面是两对相距 5 的位置。",
    "lesson.fruit.say.claim": (
        "两个差向量相距 {gap}，是其长度（{len1} 与 {len2}）的 {ratio}：它们长度相同，方向却不同。真正成立的是 PE[2] − "
        "PE[7] = (PE[0] − PE[5])·R_2（最大误差 {err}）。"
    ),
    # 图上的文字
    "lesson.fruit.chart.key": "键",
    "lesson.fruit.chart.query": "查询",
    "lesson.fruit.chart.weights": "注意力权重 softmax(Q·Kᵀ/√{d})",
    "lesson.fruit.chart.feature": "特征（偶数列：sin，奇数列：cos）",
    "lesson.fruit.chart.position": "位置 p",
    "lesson.fruit.chart.pe_title": "正弦位置编码，{positions} 个位置 × {features} 个特征",
    # ---------------------------------------------------------------- hello-world
    "lesson.hello.title.tokenizer": "1. 词表与分词器（按空格切分，未知词 → <UNK>）",
    "lesson.hello.say.duplicate": (
        '教程的词表共 {n} 项，"{word}" 出现在 id {ids}。它用字典 {{word: i}} 建映射，后出现的覆盖先出现的，于是 "'
        '{word}" 被编码成 {theirs}，id {unused} 成了永远不会出现在输入或目标里的一行（却照样占着嵌入、输出层参数和一份'
        '概率）。glassformer 的 WordTokenizer 保留第一次出现："{word}" = {ours}，词表共 {size} 项。'
    ),
    "lesson.hello.why.tokenize": "句子按空格切开，逐词查表（查不到就是 <UNK>），再在两端加上 <BOS> 和 <EOS>：",
    "lesson.hello.title.data": "2. 训练数据",
    "lesson.hello.why.shift": (
        "目标就是输入整体左移一位：模型在每个位置都要说出下一个词；目标为 <PAD> 的位置不计入损失。"
    ),
    "lesson.hello.title.params": "3. 参数量（直接从模型数出来）",
    "lesson.hello.say.params": (
        "用教程那份 {V} 项的词表，同一个模型有 {theirs} 个参数；教程印的是 {published}（差 {diff}）。用我们 {v_ours} 项"
        "的词表：{ours}。"
    ),
    "lesson.hello.title.train": "4. 训练：{epochs} 轮，batch {batch}，Adam，每轮的平均损失",
    "lesson.hello.why.mask": (
        "mask=none 就是教程的模型（每个位置都能看到整行）；mask=causal 让位置 t 只能看到第 0..t 个词。"
    ),
    "lesson.hello.say.divisor": (
        "（教程打印的平均损失，是把 {batches} 个 batch 的损失相加后除以 {n} // {b} = {div}；上表是对全部样本真正的平均"
        "。）"
    ),
    "lesson.hello.title.predict": '5. "{prompt}" 之后的下一个词',
    "lesson.hello.say.predict": '  mask={mask}："{word}"，概率 {p}   （其次：{others}）',
    "lesson.hello.title.generate": "5. 贪心续写",
    "lesson.hello.why.generate": (
        "生成时模型只拿到自己已写出的前缀；一个学会了“从输入里直接读下一个词”的模型，这时就无处可读了。"
    ),
    "lesson.hello.title.attention": '6. 每个头里最后一个 query（"{query}"）的注意力：blocks.0.attn.weights',
    "lesson.hello.title.gradient": "7. 位置 t 的输出是否依赖后面的词？‖∂logits[t] / ∂embedding[j]‖",
    "lesson.hello.why.gradient": "对角线右边（j > t）的数，衡量位置 t 的预测有多依赖它本不该看到的后续词。",
    "lesson.hello.show.grad_axes": "行：位置 t 的 logits，列：第 j 个词的嵌入",
    "lesson.hello.say.future_grad": "  mask={mask}：对后续词的最大依赖 = {value}",
    "lesson.hello.title.random": "8. 让泄漏现形：随机词序列",
    "lesson.hello.why.random": (
        "在相互独立的随机词上，从前文学不到任何关于下一个词的信息；留出集损失只要低于随机水平，多出来的信息就只能来自未"
        "来。"
    ),
    "lesson.hello.say.random_setup": (
        "{S} 个符号，每行输入 {T} 个词。随机水平 = ln {S} = {chance}。如果模型把看得到的下一个词都抄过来（除最后一个位"
        "置外都能抄），损失就是 ln({S}) / {T} = {floor}。"
    ),
    "lesson.hello.say.random_result": "  mask={mask}：留出集损失 {loss}（随机水平的 {ratio}）；各位置：[{per}]",
    # 图上的文字
    "lesson.hello.chart.loss": "训练损失（对数坐标）",
    "lesson.hello.chart.position": "位置 t",
    "lesson.hello.chart.random_loss": "随机词元上的留出损失",
    # ---------------------------------------------------------------- sine
    "lesson.sine.title.data": "1. 数据：带噪声的正弦波，起点和频率都随机",
    "lesson.sine.say.data": (
        "训练集 {n_train} 条、验证集 {n_val} 条，每条 {T} 个点；随频率不同，一个周期占 {lo} 到 {hi} 个采样点。"
    ),
    "lesson.sine.title.lr": "2. 本次训练 {total} 步内的学习率曲线",
    "lesson.sine.say.lr_peak": "  {name}：峰值 {peak}（第 {step} 步）",
    "lesson.sine.say.lr_tutorial": (
        "教程的 LambdaLR 用基础学习率 {base} 去乘一个缺了 1/√d_model 这一项的 Noam 因子，所以学习率最高只有 {peak}，而"
        "且要等 {warm} 步之后才达到。论文的公式本身（d_model = {d}）就已经是学习率了：同一步是 {formula}。本次使用："
        "{chosen}。"
    ),
    "lesson.sine.title.forecast": "3. 预测：读 {seen} 个值，预测接下来的 {horizon} 个",
    "lesson.sine.why.forecast": (
        "带因果掩码的直接多步预测：位置 t 只看 y[0..t]，输出 y[t+1..t+{horizon}]；这样每个前缀都是一条训练样本，预测只"
        "需一次前向计算。"
    ),
    "lesson.sine.say.baseline": "  基线“{name}”在验证集预测上的 MSE：{value}",
    "lesson.sine.say.val_is_forecast": (
        "（train MSE：全部 {seen} 个前缀上的误差，dropout 开启；val MSE：用前 {seen} 个值预测后 {horizon} 个值的误差。"
        "）"
    ),
    "lesson.sine.say.forecast_result": (
        "最好的验证 MSE 为 {mse}（第 {epoch} 轮）：是全零基线的 {zero}，是“重复最后一个值”基线的 {last}。{stopped}"
    ),
    "lesson.sine.say.stopped": "验证集不再变好，提前停止；保留最好那一轮的权重。",
    "lesson.sine.say.ran_all": "跑完了全部轮次；保留最好那一轮的权重。",
    "lesson.sine.title.attention": (
        "4. 预测时模型在看哪里？验证序列 #{i}：一个周期 = {period} 个点，所以位置 {q} 往前一个周期是 {back}"
    ),
    "lesson.sine.say.head": (
        "  第 {layer} 层第 {head} 个头：权重最大的 key 是 {top}；往前一个周期 ±{window} 范围内的权重 {near}；最近 "
        "{recent} 个值上的权重 {last5}"
    ),
    "lesson.sine.say.period_verdict": (
        "权重最大的 key 落在往前一个周期 ±{window} 以内的头：{heads}（均匀注意力在这样的窗口里只有 {uniform}）。热力图"
        "画的是头 {best}。"
    ),
    "lesson.sine.say.period_no": (
        "没有哪个头的最大权重落在往前一个周期 ±{window} 以内；任何一个头放在那里的权重最多只有 {mass}（头 {best}），均"
        "匀注意力则是 {uniform}。模型也没有必要往回看一个周期：无噪声的正弦由三个连续采样点就能确定（y[t+1] = 2·cos(ω)·"
        "y[t] − y[t−1]）。热力图画的是头 {best}。"
    ),
    "lesson.sine.title.tutorial": "3. 教程的任务：读入 x，预测 y = sin(freq·x)",
    "lesson.sine.why.tutorial": (
        "模型只看到 {T} 个 x 值；它们确定了起点，却确定不了频率——频率是随机的，而且从不告诉模型。所以任何模型都不可能比"
        " E[y | x] = E_freq[sin(freq·x)] 做得更好。"
    ),
    "lesson.sine.say.floor": (
        "贝叶斯下限 σ² + E[Var_freq sin(freq·x)]：{floor} ± {se}（蒙特卡洛估计）。在这份验证集上，最优预测 E[y | x]（"
        "{k} 个采样频率）的 MSE 是 {bayes}；永远预测 0 的 MSE 是 {zero}。"
    ),
    "lesson.sine.say.tutorial_result": (
        "训练好的模型验证 MSE 为 {mse}：是最优可能值（{bayes}）的 {ratio} 倍，离 0 很远。永远预测 0 是 {zero}。"
    ),
    # 图上的文字
    "lesson.sine.chart.this_run": "{name}（本次运行）",
    "lesson.sine.chart.optimizer_step": "优化器步数",
    "lesson.sine.chart.lr": "学习率（对数坐标）",
    "lesson.sine.chart.train": "训练 MSE（所有前缀）",
    "lesson.sine.chart.val": "验证 MSE（由前 {observed} 个值预测）",
    "lesson.sine.chart.baseline.zero": "基线：预测 0",
    "lesson.sine.chart.baseline.last_value": "基线：重复最后一个值",
    "lesson.sine.chart.kept": "保留的轮次（验证最好）",
    "lesson.sine.chart.mse": "MSE（对数坐标）",
    "lesson.sine.chart.observed": "已观测",
    "lesson.sine.chart.truth": "真实值",
    "lesson.sine.chart.forecast": "预测",
    "lesson.sine.chart.last_value": "最后一个值",
    "lesson.sine.chart.val_title": "验证样本 #{k}：频率 {freq}",
    "lesson.sine.chart.truth_freq": "真实值（频率 {freq}）",
    "lesson.sine.chart.model": "模型",
    "lesson.sine.chart.best": "E[y | x]（最好的可能）",
    # ---------------------------------------------------------------- tiny (seed 000)
    "lesson.tiny.title.tokenizer": "1. 字符、编号和 vocab_size",
    "lesson.tiny.why.chars": "词表就是文本中所有字符排序后的集合；一个字符的编号就是它在这个列表中的位置。",
    "lesson.tiny.say.text": "整个语料只有一句话，{n} 个字符，其中 {V} 个互不相同。",
    "lesson.tiny.title.batches": "2. {T} 个字符的窗口，目标错开一位",
    "lesson.tiny.why.shift": "每个位置的目标都是下一个字符：一个窗口有多长，就提供多少个训练样本。",
    "lesson.tiny.say.bound": (
        "教程用 randint(0, len(ids) - seq_len - 1) 抽起点：共 {starts} 个可能的起点，所以能成为目标的最后一个字符位于下"
        "标 {last}（范围 0..{n_last}），最后一个字符 {char!r} 永远不会被预测。glassformer 的 get_batch 从 {ours} 个起点"
        "中抽取，最后一个目标的下标是 {last_ours}。"
    ),
    "lesson.tiny.title.params": "3. 参数量：从模型本身数出来（每部分旁边附公式）",
    "lesson.tiny.say.params": "模型共有 {ours} 个参数；教程说这是一个约 {published} 参数的模型。两者之比：{ratio}。",
    "lesson.tiny.say.positions": (
        "位置表有 {rows} 行，但训练只读位置 0..{train_last}，教程的生成最多读到 0..{gen_last}，所以有 {idle} 行从未被读"
        "取或训练：占全部参数的 {share}。"
    ),
    "lesson.tiny.title.train": "4. 按教程的方式训练：{steps} 步，批大小 {batch}，AdamW，学习率 {lr}",
    "lesson.tiny.say.loss": "第一个批次的损失为 {first}（对词表均匀猜测：{uniform}）；最后 {n} 步的平均为 {last}。",
    "lesson.tiny.why.printed": "和教程一样，每行打印的是该步单个批次的损失，且开着 dropout：批次之间会跳动。",
    "lesson.tiny.title.generate": "5. 在“{prompt}”之后采样：{n} 个字符，温度 {temperature}",
    "lesson.tiny.say.words": "按空格切开的 {total} 段中，有 {found} 段是训练句子里的单词：{words}",
    "lesson.tiny.say.crop": (
        "教程的 generate() 只送入最后 {crop} 个字符，而模型有 {max_len} 个位置，所以最后 {cropped} 步看到的是被裁剪的上"
        "下文；glassformer 的采样器最多保留 max_len 个。"
    ),
    "lesson.tiny.title.claims": "6. 教程中的说法，以及检验每条说法的实验",
    "lesson.tiny.link.scaling": "除以 √d_head 让分数方差保持稳定，对训练稳定性影响很大。",
    "lesson.tiny.link.mask": "没有因果掩码，解码器会学会作弊、偷看未来。",
    "lesson.tiny.link.inf": "分数为 -inf 时，被遮位置的 softmax 权重趋近于 0。",
    "lesson.tiny.link.set": "自注意力是集合运算：没有位置信息，词序就丢了。",
    "lesson.tiny.link.sinusoidal": "正弦位置编码比可学习的位置表更能外推到更长的序列。",
    "lesson.tiny.link.heads": "多个头各自学习一种关系。",
    "lesson.tiny.link.preln": "Post-LN 对学习率敏感、容易发散；Pre-LN 更稳定。",
    "lesson.tiny.link.ffn": "前馈网络不可或缺；d_ff 通常取 d_model 的两到四倍。",
    "lesson.tiny.why.finding": "测得：{finding}",
    "lesson.tiny.say.no_lab": (
        "在 {lab} 中没有找到实验结果：运行 `glassformer lab run NAME --out {lab}`（或传入 --lab DIR），即可在这里看到结"
        "论。"
    ),
    # 图上的文字
    "lesson.tiny.chart.loss": "该批次的训练损失（奈特）",
    # ---------------------------------------------------------------- seq2seq
    "lesson.s2s.task.zh2num": "中文数字 → 阿拉伯数字",
    "lesson.s2s.task.num2zh": "阿拉伯数字 → 中文数字",
    "lesson.s2s.fast": "（--fast：较小的模型）",
    "lesson.s2s.title.task": "1. 任务：{what}，数据现场生成",
    "lesson.s2s.say.split": (
        "0 … {last} 共 {n} 个数：{train} 个用于训练，{val} 个用于验证，{test} 个留作测试。测试集中也出现在训练集里的源"
        "序列：{shared} 个。"
    ),
    "lesson.s2s.why.split": "留出的数考的是规则而不是记忆：模型从没见过它们的中文与数字成对出现。",
    "lesson.s2s.say.vocab": "两侧共用一个词表，共 {V} 个词元：<PAD> <UNK> <BOS> <EOS>，以及每个字符一个：{chars}。",
    "lesson.s2s.title.model": "2. 模型：编码器与解码器各 {layers} 层，d_model {C}，{H} 个头{fast}",
    "lesson.s2s.say.sharing": (
        "源端嵌入、目标端嵌入和输出头是同一个 (V, C) 矩阵：{n} 个参数，只算一次。交叉注意力占全部 {total} 个参数中的 "
        "{cross} 个。"
    ),
    "lesson.s2s.why.cross": "交叉注意力是源序列通往输出的唯一道路：它的查询来自解码器，键和值来自编码器的输出。",
    "lesson.s2s.title.masks": "3. 谁能看谁：编码器看全部，解码器只看过去",
    "lesson.s2s.say.encoder_mask": (
        "改动最后一个源词元：编码器在第一个源位置上的输出变化了 {moved}。编码器没有因果掩码，也不需要：翻译开始之前，整"
        "个源序列就已经给出。"
    ),
    "lesson.s2s.say.decoder_mask": (
        "改动第 {j} 个目标词元：位置 0 … {before} 的 logits 变化 {zero}，位置 {j} 的变化 {moved}。训练时解码器拿到的是"
        "完整的目标序列；因果掩码让位置 t 只用它之前的词元，而这正是它真正生成时所拥有的全部信息。"
    ),
    "lesson.s2s.say.cross_mask": "交叉注意力只遮住源端的填充：每个目标位置都可以读取每个源词元。",
    "lesson.s2s.title.train": "4. 教师强制与标签平滑：{steps} 步，批大小 {batch}",
    "lesson.s2s.why.teacher": (
        "教师强制：解码器读入右移一位的真实目标 [<BOS>, y₁, …]，同时对每个下一个词元打分，一次前向传播就训练了所有位置"
        "："
    ),
    "lesson.s2s.say.floor": (
        "标签平滑 ε = {eps} 把每个目标 {eps} 的概率分给全部 {V} 个词元，所以任何模型的损失都降不到 {floor} 以下，那是平"
        "滑后目标分布的熵。"
    ),
    "lesson.s2s.say.trained": "训练用时 {seconds} 秒。最后的验证损失 {val}，比这个下限高 {above}。",
    "lesson.s2s.title.search": "5. 在 {n} 个留出的数上的完全匹配率：贪心搜索与束搜索",
    "lesson.s2s.why.search": (
        "贪心搜索每一步写下最可能的词元。束搜索保留 {k} 个最好的部分输出，按 log P / lp 排序，lp = ((5 + 长度) / 6)^α。"
    ),
    "lesson.s2s.say.differ": (
        "贪心搜索与束搜索（α = {alpha}）在 {total} 个数中的 {n} 个上结果不同；其中束搜索答对 {beam_right} 个，贪心搜索"
        "答对 {greedy_right} 个。"
    ),
    "lesson.s2s.say.example_differ": (
        "  例如 {src}：贪心写出 {greedy}（log P {g_lp}），束搜索写出 {beam}（log P {b_lp}，得分 {b_score}）；正确答案是"
        " {answer}。"
    ),
    "lesson.s2s.say.agree": (
        "贪心搜索与束搜索（α = {alpha}）在全部 {total} 个数上结果相同：每一步模型的最优词元都遥遥领先，多看几步也改变不"
        "了什么。"
    ),
    "lesson.s2s.say.beams": "{src} 最后保留的 {k} 条束，按得分从高到低（已结束的束用 <PAD> 延长，不计代价）：",
    "lesson.s2s.say.errors": "贪心搜索答错 {n} 个，例如：{examples}",
    "lesson.s2s.title.cross": "6. 写下一个符号时，交叉注意力在读什么",
    "lesson.s2s.why.cross_zh2num": (
        "对留出数中的每个非零数字：一个头的权重有多少落在说出这个数字的词上（数字词和单位，例如 1205 中的 2 对应 二百）"
        "。"
    ),
    "lesson.s2s.why.cross_num2zh": "对留出数中说出非零数字的每个词：一个头的权重有多少落在源序列中对应的那个数字上。",
    "lesson.s2s.say.cross_best": (
        "{name} 的第 {head} 个头把 {mass} 的权重放在正在写的符号所对应的源词上，均匀注意力只会放 {uniform}（共 {n} 个符"
        "号）：它把数字和它们的词对齐了。热力图展示了它在一个留出数上的样子。"
    ),
    "lesson.s2s.say.cross_weak": (
        "没有哪个头把一半的权重放在正在写的符号所对应的源词上：最好的是 {name} 的第 {head} 个头，放了 {mass}，均匀注意"
        "力为 {uniform}（共 {n} 个符号）。热力图展示了它在一个留出数上的样子。"
    ),
    "lesson.s2s.title.leak": "7. 同一个模型，去掉解码器的掩码（{steps} 步）",
    "lesson.s2s.why.leak": "causal=False 时，解码器在训练中能看到整个目标序列，包括它要预测的那个词元。",
    "lesson.s2s.say.leak": "  mask={mask}：给出真实目标时的下一词元准确率 {tf}；独立生成时留出数的完全匹配率 {exact}",
    "lesson.s2s.say.leak_verdict": (
        "没有掩码的解码器在答案就在输入里时得分 {tf}，自己写答案时只有 {exact}：训练时它可以从输入里抄下一个词元，而翻"
        "译时从来没人把那个词元递给它。"
    ),
    # 图上的文字
    "lesson.s2s.chart.floor": "标签平滑的下限 {floor}",
    "lesson.s2s.chart.loss": "标签平滑后的交叉熵",
    # ---------------------------------------------------------------- 课程拒绝的输入
    "lesson.hello.data_fix": "请给一个 UTF-8 文本文件，每行一句。",
    "error.lesson.choice": "--{option} {value!r} 不在可选项 {choices} 之中。",
    "error.lesson.at_least": "--{option} 至少为 {least}，收到的是 {value}。",
    "error.lesson.sizes": "{options} 都至少为 {least}。",
    "error.lesson.beam": "--beam 至少为 {least_beam}，--alpha 至少为 {least_alpha}，收到的是 {beam} 和 {alpha}。",
    "error.lesson.data_missing": "--data {path}：没有这个文件（请给 'tutorial'、'greetings' 或一个文本文件）。",
    "error.lesson.data_dir": "--data {path} 是一个文件夹；请给一个每行一句的文本文件。",
    "error.lesson.data_empty": "--data {path} 里没有非空行；请每行写一句。",
    "error.lesson.data_lines": (
        "--data {path} 有 {lines} 行；这个课程最多用 {most} 行训练。更大的文本请用 `glassformer train`。"
    ),
    "error.lesson.data_words": (
        "--data {path}：第 {line} 行有 {words} 个词；课程的模型每行最多读 {most} 个词。请把它拆成较短的几行。"
    ),
}
