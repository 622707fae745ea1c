"""GPT-2 checkpoints in and out of run directories: `glassformer import gpt2` / `export gpt2`.

    import_gpt2(DIR, RUN)   a Hugging Face GPT-2 directory  ─► a run: config.json (kind "gpt"),
                            model.safetensors, tokenizer.json (kind "gpt2-bpe") — what `sample`,
                            `trace`, `attention` and `explore` read (saved.load_model)
    export_gpt2(RUN, DIR)   a run  ─► config.json, model.safetensors, vocab.json, merges.txt,
                            tokenizer_config.json: what GPT2LMHeadModel / GPT2Tokenizer.from_pretrained read

An imported run has no training data, so its config.json holds no "source": it samples and opens
in every view, and `train --resume` says it cannot continue it. Its "train" settings are the
defaults (seq_len cut to the model's positions), there only because every run has them.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from glassformer.config import TrainConfig, to_dict
from glassformer.errors import UsageError
from glassformer.files import write_text_atomic
from glassformer.messages import t
from glassformer.models.gpt2_files import read_gpt2_dir, write_gpt2_dir
from glassformer.train import lock
from glassformer.train.checkpoint import MODEL_FILE, has_checkpoint, load_model, save_weights


def import_gpt2(source, out) -> Path:
    """Read the GPT-2 in directory `source` into a new run directory `out`; return `out`."""
    source, out = Path(source), Path(out)
    if out.exists() and not out.is_dir():
        raise UsageError("error.run.out_is_file", dir=out)
    if out.is_dir() and has_checkpoint(out):
        raise UsageError("error.gpt2.has_checkpoint", out=out, weights=out / MODEL_FILE)
    model, tokenizer, weights = read_gpt2_dir(source)  # everything is checked before anything is written
    out.mkdir(parents=True, exist_ok=True)
    held = lock.acquire(out)  # no trainer may write here meanwhile
    try:
        train = replace(TrainConfig(), seq_len=min(TrainConfig().seq_len, model.cfg.max_len))
        config = {
            "about": t("train.gpt2.about", source=source.resolve()),
            "imported": {"format": "gpt2", "from": str(source.resolve()), "weights": weights},
            "model": to_dict(model.cfg),
            "train": to_dict(train),
        }
        tokenizer.save(out / "tokenizer.json")
        save_weights(out / MODEL_FILE, model, step=0)
        write_text_atomic(out / "config.json", json.dumps(config, indent=2) + "\n")  # last: the run is whole
    finally:
        lock.release(held)
    return out


def export_gpt2(run_dir, out, best: bool = False) -> Path:
    """Write the GPT of run `run_dir` as a Hugging Face GPT-2 directory `out`; return `out`."""
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UsageError("error.gpt2.export_out_file" if out.is_file() else "error.gpt2.export_out_full", out=out)
    model, tokenizer, _ = load_model(run_dir, best=best)
    write_gpt2_dir(model, tokenizer, out)
    return out
