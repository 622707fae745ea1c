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
}
