"""The memory an import takes: peak resident memory while `read_hf_dir` opens a Qwen3 directory,
as a multiple of the float32 model it builds (issue 46.3: "loading is lazy/memory-mapped").

    PYTHONPATH=src python bench/import_memory.py [--layers 8] [--d-model 512]

transformers saves a random Qwen3ForCausalLM in bfloat16, sharded (100 MB), into a temporary
directory; a fresh interpreter then reads it with models/llama.py and reports the rise of its peak
resident set (VmHWM, Linux) over the import, beside the float32 model's bytes. The safetensors files are
memory-mapped, so their pages count in the resident set while they are read. A loader that holds the
whole checkpoint (file dtype), its renamed copy and a float32 copy beside the model peaks near 3.4x;
one that copies one tensor at a time into the model stays near the model itself.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

MEASURE = """
import re, sys
from pathlib import Path
from glassformer.models.llama import read_hf_dir
def peak():  # VmHWM: this process's peak resident set, in bytes (ru_maxrss would carry the parent's over exec)
    return int(re.search(r"VmHWM:\\s+(\\d+) kB", Path("/proc/self/status").read_text()).group(1)) * 1024
before = peak()
model, _, _ = read_hf_dir(sys.argv[1], "qwen3")
rise = peak() - before
weights = sum(p.numel() * 4 for p in model.parameters())
print(f"peak rise {rise / 2**20:.0f} MiB, float32 model {weights / 2**20:.0f} MiB: {rise / weights:.2f}x the model")
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=8)
    parser.add_argument("--d-model", type=int, default=512)
    args = parser.parse_args()
    import torch
    import transformers

    from glassformer.text.tokenizers import CharTokenizer

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "qwen3"
        config = transformers.Qwen3Config(
            vocab_size=32000,
            hidden_size=args.d_model,
            intermediate_size=3 * args.d_model,
            num_hidden_layers=args.layers,
            num_attention_heads=8,
            num_key_value_heads=4,
            head_dim=args.d_model // 8,
            max_position_embeddings=512,
            tie_word_embeddings=False,
        )
        transformers.Qwen3ForCausalLM(config).to(torch.bfloat16).save_pretrained(folder, max_shard_size="100MB")
        (folder / "tokenizer.json").write_text(CharTokenizer.from_text("abc de").hf_json(), encoding="utf-8")
        subprocess.run([sys.executable, "-c", MEASURE, str(folder)], check=True)


if __name__ == "__main__":
    main()
