"""Training: one trainer for every model kind, and the runs it writes.

loop.py        Trainer: the loop, read top to bottom; it takes a batch source and a loss
sources.py     batch sources: windows of a token corpus, tensors held in memory
waves.py       the generated sine-wave data (the third tutorial's), as a source
optim.py       AdamW with decay on matrices only, global-norm clipping
schedules.py   learning-rate schedules (constant, cosine with warmup, the paper's)
checkpoint.py  model.safetensors + train_state.pt: crash-safe writes, checksummed reads, exact resume
integrity.py   the sha256s that make a damaged checkpoint an error
metrics.py     metrics.jsonl, loss.png, the progress display
diagnose.py    what to say when a loss turns NaN
early_stop.py  stop when validation stops improving, keep the best weights
interrupt.py   Ctrl-C finishes the step, then stops cleanly
compile.py     opt-in torch.compile that falls back to eager
record.py      what a run directory receives while training (a failed write says what is kept)
run.py         a run directory: preset + overrides + data -> model, trainer, files
saved.py       a saved run read back and checked: config.json, its configs, the trained model
lock.py        one trainer per run directory
"""
