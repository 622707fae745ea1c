"""The words drawn in glassformer's pictures (attention PNGs) and the font warning, in English:
the same keys and {fields} as pictures_zh.py."""

TEXT = {
    "inspect.font.missing": (
        "no font here has glyphs for {chars}; labels show code points instead. "
        "To see them, install a CJK font (Debian/Ubuntu: `{install}`), then delete ~/.cache/matplotlib."
    ),
    "pictures.attn.masked": "grey hatched = masked (may not attend)",
    "pictures.attn.cell_title": "{name} · head {head}",
    "pictures.attn.colorbar": "attention weight",
    "pictures.attn.grid_title": "attention weights: rows = query (looking), columns = key (looked at){masked}",
    "pictures.attn.key_axis": "key: the token looked at",
    "pictures.attn.query_axis": "query: the token looking",
    "pictures.attn.head_title": "{name}, head {head} (each row sums to 1){masked}",
    # AttentionView's own words (inspect/attention_view.py): its title, the terminal table's heading, the frame
    "pictures.attn.view_title": "AttentionView: {layers} layers × {heads} heads, maps {shapes}{masked}",
    "pictures.attn.view_head": "{name}, head {head} (rows = query, columns = key; · = masked){cut}:",
    "pictures.attn.view_cut": ", the first {rows} × {cols}",
    "pictures.attn.view_summary": "interactive view: pick a layer and head, hover a token",
    # ---- the loss curves of a run (train/record.py: loss.png) -------------------------------------
    "pictures.loss.step_axis": "step",
    "pictures.loss.loss_axis": "cross-entropy (nats / token)",
    "pictures.loss.batch_curve": "train (batch, log interval mean)",
    "pictures.loss.eval_curve": "{split} (eval)",
    "pictures.loss.split.train": "train",
    "pictures.loss.split.val": "val",
    # ---- the lab's charts (lab/*.py, docs/lab/*/*.png) -----------------------------------------
    "pictures.lab.val_loss": "validation loss (nats)",
    # grokking.png (lab/grokking.py)
    "pictures.lab.grokking.train": "train, wd {wd}",
    "pictures.lab.grokking.test": "test, wd {wd}",
    "pictures.lab.grokking.step_axis": "step (full batch)",
    "pictures.lab.grokking.accuracy_axis": "accuracy",
    "pictures.lab.grokking.accuracy_title": "a + b mod {p}, {fraction}% of pairs train (seed 0)",
    "pictures.lab.grokking.decay": "decay",
    "pictures.lab.grokking.no_decay": "no_decay",
    "pictures.lab.grokking.even": "{times}× an even share",
    "pictures.lab.grokking.frequency_axis": "frequency k",
    "pictures.lab.grokking.energy_axis": "share of the embedding's Fourier energy",
    "pictures.lab.grokking.spectrum_title": "embedding spectrum after training (seed 0)",
    # induction_text.png (lab/induction_text.py)
    "pictures.lab.induction-text.attention": "2 layers, attention only",
    "pictures.lab.induction-text.ffn": "2 layers, with FFN",
    "pictures.lab.induction-text.induction": "{model}: best induction head, layer 1",
    "pictures.lab.induction-text.previous": "{model}: best previous-token head, layer 0",
    "pictures.lab.induction-text.icl_axis": "ICL score: character {late} − character {early}",
    "pictures.lab.induction-text.detector_axis": "share of a perfect head's score",
    "pictures.lab.induction-text.step_axis": "training step (seed 0)",
    "pictures.lab.induction-text.title": "two-layer char models on natural text ({corpus}, {L} characters)",
    # induction.png (lab/induction.py)
    "pictures.lab.induction.layers": "{layers} layer(s)",
    "pictures.lab.induction.best_induction": "best induction head, layer {layer}",
    "pictures.lab.induction.best_previous": "best previous-token head, layer {layer}",
    "pictures.lab.induction.one_layer_induction": "1 layer: best induction head",
    "pictures.lab.induction.loss_axis": "loss (nats)",
    "pictures.lab.induction.icl_axis": "ICL score: token {late} − token {early}",
    "pictures.lab.induction.detector_axis": "detector score",
    "pictures.lab.induction.step_axis": "training step (seed 0)",
    "pictures.lab.induction.title": "attention-only models on repeated random segments ({L} tokens, vocabulary {V})",
    "pictures.lab.heads.loss_title": "loss against heads (d_model {d_model})",
    "pictures.lab.heads.entropy": "mean normalised entropy",
    "pictures.lab.heads.diagonal_share": "share of diagonal heads",
    "pictures.lab.heads.uniform_share": "share of near-uniform heads",
    "pictures.lab.heads.heads_axis": "heads",
    "pictures.lab.ffn-width.no_ffn": "no FFN",
    "pictures.lab.ffn-width.d_ff": "d_ff={d_ff}",
    "pictures.lab.ffn-width.unigram": "character frequencies only",
    "pictures.lab.ffn-width.params_axis": "parameters",
    "pictures.lab.ffn-width.title": "FFN width at d_model {d_model}, {steps} steps",
    "pictures.lab.block_axis": "block",
    "pictures.lab.train_loss_mean": "training loss (mean over seeds)",
    "pictures.lab.nats": "nats",
    "pictures.chance": "chance ln {symbols}",
    # ---- the gradient-flow chart (inspect/gradflow.py: GradientMonitor.plot) --------------------
    "pictures.grads.layer": "layer ‖grad‖",
    "pictures.grads.param": "one parameter's ‖grad‖",
    "pictures.grads.vanish": "vanish {level}",
    "pictures.grads.explode": "explode {level}",
    "pictures.grads.axis": "gradient L2 norm (log scale)",
    "pictures.grads.title": "gradient flow: input side on the left, output side on the right",
    "pictures.lab.length.position_axis": "position (trained on 1..{T})",
    "pictures.lab.length.loss_axis": "validation loss (nats), 5-position running mean",
    "pictures.lab.length.unigram": "character frequencies only",
    "pictures.lab.length.unreached": "{label} (no positions past {reach})",
    "pictures.lab.extrapolation.length_axis": "n, the length of the sequence to copy (trained on 1..{L})",
    "pictures.lab.extrapolation.accuracy_axis": "token accuracy of the copy",
    "pictures.lab.extrapolation.copy_title": "copy task, {V} symbols, {steps} steps, mean of {seeds} seed(s)",
    "pictures.lab.extrapolation.lm_title": "char model: trained on windows of {T}, read on {T_eval}",
    "pictures.lab.attention-explanation.tau_grad": "attention vs gradient",
    "pictures.lab.attention-explanation.tau_loo": "attention vs leave-one-out",
    "pictures.lab.attention-explanation.tau_grad_loo": "gradient vs leave-one-out",
    "pictures.lab.attention-explanation.weak": "weak: tau < {weak}",
    "pictures.lab.attention-explanation.tau_axis": "Kendall tau-b per example",
    "pictures.lab.attention-explanation.examples": "examples",
    "pictures.lab.attention-explanation.tau_title": "rank correlation of the [CLS] attention (seed 0)",
    "pictures.lab.attention-explanation.adversary": "adversarial attention",
    "pictures.lab.attention-explanation.seeds": "seed 0 vs seed 1",
    "pictures.lab.attention-explanation.far": "very different: {far}",
    "pictures.lab.attention-explanation.jsd_axis": "JSD from the learned attention (nats)",
    "pictures.lab.attention-explanation.jsd_title": "same output (within {eps}), other attention (seed 0)",
    "pictures.lab.attention-explanation.learned": "learned attention",
    "pictures.lab.attention-explanation.tokens_axis": "token id (0 = [CLS], 3 = marker)",
    "pictures.lab.attention-explanation.weight_axis": "attention weight",
    "pictures.lab.attention-explanation.example_title": "one example: divergence {jsd}",
    "pictures.lab.attention-explanation.table.models": (
        "| seed | keyed test accuracy | weight on the deciding word | tau with gradient | tau with "
        "leave-one-out | tau gradient vs leave-one-out | top token the same (gradient / leave-one-out) | "
        "share ≥ far (median divergence) |"
    ),
    "pictures.lab.attention-explanation.table.uniform": (
        "| task | seed | learned attention accuracy | uniform attention accuracy |"
    ),
    "pictures.lab.attention-explanation.table.note": (
        "Median Jensen-Shannon divergence between the [CLS] rows of two seeds: {seed_jsd}. Adversary "
        "budget: p(positive) within {eps}; {probe} probe examples of {T} tokens."
    ),
}
