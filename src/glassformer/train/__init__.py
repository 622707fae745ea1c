"""Training: one trainer for every model kind, and the runs it writes.

loop.py           Trainer: the loop, read top to bottom; it takes a batch source and a loss. Below it
                  the numbers of one step (AdamW with decay on matrices only, global-norm clipping, the
                  learning-rate schedules) and the guards of a long run: NaN diagnosis, Ctrl-C, the
                  torch.compile fallback, early stopping
data.py           batch sources (windows of a token corpus drawn by get_batch, tensors in memory,
                  pairs for an encoder-decoder) and the data made on the fly: sine waves, seq2seq tasks
checkpoint.py     model.safetensors + train_state.pt: crash-safe writes, checksummed reads, exact
                  resume; a saved run read back (config.json, its configs, the trained model)
record.py         what a run directory receives while training (a failed write says what is kept):
                  metrics.jsonl, loss.png, the checkpoints, attention_log.json (AttentionLog, a
                  callback that records attention maps as training goes); the progress display
run.py            a run directory: preset + overrides + data -> model, trainer, files; one trainer
                  per directory (its lock); GPT-2 checkpoints imported into one and exported
distributed.py    several processes under torchrun, one trainer
"""
