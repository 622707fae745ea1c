"""Training: one trainer for every model kind, and the runs it writes.

    loop.py        Trainer: the loop, read top to bottom; it takes a batch source and a loss
    sources.py     batch sources: windows of a token corpus, tensors held in memory
    waves.py       the generated sine-wave data (the third tutorial's), as a source
    optim.py       AdamW with decay on matrices only, global-norm clipping
    schedules.py   learning-rate schedules (constant, cosine with warmup, the paper's)
    checkpoint.py  model.safetensors + train_state.pt, written atomically, resumed exactly
    metrics.py     metrics.jsonl, loss.png, the progress display
    diagnose.py    what to say when a loss turns NaN
    early_stop.py  stop when validation stops improving, keep the best weights
    interrupt.py   Ctrl-C finishes the step, then stops cleanly
    compile.py     opt-in torch.compile that falls back to eager
    run.py         a run directory: preset + overrides + data -> model, trainer, files
"""
