"""The trainer's words that came with folding train/ into fewer files (loop.py, data.py, record.py,
distributed.py): the typed errors of the batch sources, the generated data and the torchrun world,
and two notes of the loop. The rest of the trainer's words are in en.py."""

TEXT = {
    # ---- the loop (train/loop.py) -----------------------------------------------------------------
    "train.compile_failed": "torch.compile does not work here ({error}: {first}); continuing without it "
    "(drop --compile=true to skip this message).",
    "train.early_stop": "no better {key} for {patience} evaluations",
    "train.sigterm": "SIGTERM: stopping after this step and saving a checkpoint (send it again to stop at once) ...",
    # ---- batch sources and generated data (train/data.py) ---------------------------------------------
    "error.data.rows": "inputs ({inputs} rows) and targets ({targets} rows) must be non-empty and the same length.",
    "error.data.no_pairs": "PairBatches needs training and validation pairs; one of them is empty.",
    "error.data.blank_pair": "every pair needs a non-empty source and target (the decoder adds <BOS>/<EOS>).",
    "error.data.wave_source": "unknown numeric source {source!r}; choose one of {choices}.",
    "error.data.digit_capacity": "only {capacity:,} digit strings have at most {max_digits} digits; ask for fewer "
    "than {n:,} pairs or allow longer strings.",
    "error.data.pair_source": "unknown pair source {source!r}; choose one of {choices}.",
    # ---- the progress display (train/record.py) -------------------------------------------------------
    "error.write.disk_full": "the disk holding {dir} is full: {free:.1f} MB free, a checkpoint needs about "
    "{need:.1f} MB. The last good checkpoint, step {step}, is kept; free some space, then continue with: "
    "glassformer train --resume {dir}",
    "error.write.disk_full_first": "the disk holding {dir} is full: {free:.1f} MB free, a checkpoint needs about "
    "{need:.1f} MB; no checkpoint had been saved yet. Free some space, then start the run again.",
    "error.progress.mode": "progress={mode!r} is not one of {modes}.",
    # ---- several processes under torchrun (train/distributed.py) --------------------------------------
    "error.world.source": "multi-process training splits windows of a text corpus (token models); {source} "
    "(generated numbers or pairs) is small: train it in one process, without torchrun.",
    "error.world.gpus": "--device=cuda: this machine has {gpus} GPU(s), but torchrun started a process with "
    "LOCAL_RANK {local_rank}. Pass --nproc_per_node at most the number of GPUs.",
    "error.world.device": "--device={device} under torchrun: each process takes the GPU of its LOCAL_RANK by "
    "itself. Pass --device=cuda (or --device=cpu).",
    "error.world.peer_stopped": "another process of this torchrun job stopped (its own message says why); rank "
    "{rank} stops too.",
    "error.world.env": "WORLD_SIZE={size} but {missing} not set: start several processes with torchrun "
    "(docs/scale.md), or unset WORLD_SIZE.",
    # ---- an imported GPT-2 run (train/gpt2_runs.py: config.json's "about") -------------------------
    "train.gpt2.about": "GPT-2 imported from {source}",
}
