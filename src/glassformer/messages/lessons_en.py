"""The lessons' words in English (glassformer lesson ...; src/glassformer/lessons): one entry per
sentence, keys `lesson.<lesson>.*`, and the errors the lessons raise (`error.lesson.*`).

lessons_zh.py holds the same keys with the same {fields} (a test checks). Only words live here:
every number is computed by the lesson and formatted in as a {field}.
"""

TEXT = {
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
