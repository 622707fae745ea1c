"""A Hugging Face GPT-2 directory, read into a glassformer GPT and written back from one.

    config.json                                   the GPT2Config           ┐ gpt2_port.py maps the
    model.safetensors  (or model.safetensors.index.json + shards,          │ names and refuses what
                        or pytorch_model.bin, opened with weights_only)    ┘ glassformer cannot compute
    vocab.json + merges.txt (or tokenizer.json)   the tokenizer            text/gpt2_bpe.py

Nothing is fetched: the directory is one `save_pretrained` wrote (or a download of one). Weights of
any floating dtype become float32, glassformer's. `read_gpt2_dir` returns the model and tokenizer;
train/run.py turns them into a run directory (and back).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

from glassformer.errors import DamagedFile, NotFound, UsageError
from glassformer.files import atomic_write, read_json, write_text_atomic
from glassformer.messages import t
from glassformer.models.gpt import GPT
from glassformer.models.gpt2_port import (
    check_sizes,
    check_weights,
    config_from_gpt2,
    gpt2_config,
    state_dict_from_gpt2,
    state_dict_to_gpt2,
)
from glassformer.text.gpt2_bpe import ENDOFTEXT, GPT2BPETokenizer, read_tokenizer_dir, write_tokenizer_dir

WEIGHT_FILES = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin")


def read_gpt2_dir(path) -> tuple[GPT, GPT2BPETokenizer, str]:
    """(glassformer GPT in eval mode, its tokenizer, the weights file's name) of a GPT-2 directory."""
    path = Path(path)
    if not path.is_dir():
        raise NotFound("error.gpt2.is_file" if path.exists() else "error.gpt2.not_dir", path=path)
    config = read_json(path / "config.json", t("fix.gpt2_model"))
    if not isinstance(config, dict):
        raise DamagedFile("error.gpt2.not_object", path=path / "config.json", fix=t("fix.gpt2_model"))
    cfg = config_from_gpt2(config, source=str(path / "config.json"))
    weights_file, tensors = _read_weights(path)
    weights = t("gpt2.weights_in", path=weights_file)  # how the errors name them
    check_weights(tensors, source=weights)
    state = state_dict_from_gpt2(tensors, cfg.n_layers, cfg.tie_weights, source=weights)
    tokenizer = read_tokenizer_dir(path)
    if tokenizer.vocab_size != cfg.vocab_size:
        raise UsageError(
            "error.gpt2.vocab_differs",
            path=path / "config.json",
            vocab_size=cfg.vocab_size,
            tokens=tokenizer.vocab_size,
        )
    check_sizes(tensors, cfg, source=weights, config=str(path / "config.json"))
    model = GPT(cfg)  # config_from_gpt2 makes kind "gpt"; only of the sizes the weights have (check_sizes)
    try:
        model.load_state_dict({k: v.float() for k, v in state.items()}, strict=True)
    except RuntimeError as e:  # a shape that does not fit the config
        first = str(e).strip().splitlines()[-1].strip()
        raise DamagedFile(
            "error.gpt2.weights_fit",
            path=weights_file,
            config=path / "config.json",
            detail=first,
            fix=t("fix.gpt2_model"),
        ) from None
    return model.eval(), tokenizer, weights_file.name


def _read_weights(path: Path) -> tuple[Path, dict[str, torch.Tensor]]:
    """The first weights file found (in WEIGHT_FILES' order) and its tensors on the CPU."""
    for name in WEIGHT_FILES:
        file = path / name
        if not file.is_file():
            continue
        if name.endswith(".index.json"):
            index = read_json(file, t("fix.gpt2_model"))
            weight_map = index.get("weight_map") if isinstance(index, dict) else None
            if not isinstance(weight_map, dict) or not weight_map:
                raise DamagedFile("error.gpt2.no_shards", path=file, fix=t("fix.gpt2_model"))
            for shard in weight_map.values():  # a file of this folder: never "../x" or "/etc/x"
                if not isinstance(shard, str) or not shard or Path(shard).name != shard or "\x00" in shard:
                    raise DamagedFile("error.gpt2.shard_name", path=file, shard=shard, fix=t("fix.gpt2_model"))
            shards = sorted(set(weight_map.values()))
            return file, {k: v for shard in shards for k, v in _safetensors(path / shard).items()}
        return file, _safetensors(file) if name.endswith(".safetensors") else _torch_bin(file)
    raise NotFound("error.gpt2.no_weights", path=path, files=", ".join(WEIGHT_FILES), fix=t("fix.gpt2_model"))


def _safetensors(file: Path) -> dict[str, torch.Tensor]:
    if not file.is_file():
        raise NotFound("error.gpt2.shard_missing", path=file, fix=t("fix.gpt2_model"))
    try:
        return load_file(str(file))
    except (SafetensorError, OSError, ValueError, RuntimeError) as e:
        raise DamagedFile(
            "error.gpt2.safetensors", path=file, detail=str(e).splitlines()[0][:200], fix=t("fix.gpt2_model")
        ) from None


def _torch_bin(file: Path) -> dict[str, torch.Tensor]:
    """pytorch_model.bin with weights_only=True: tensors and plain values only, no code ever runs."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            state = torch.load(file, map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises many types for bad or hostile bytes; all mean "not usable"
        why = (
            t("gpt2.bin_pickle")
            if "Weights only load failed" in str(e)
            else t("gpt2.bin_damaged", detail=str(e).splitlines()[0][:200])
        )
        raise DamagedFile("error.gpt2.bin_refused", path=file, why=why, fix=t("fix.gpt2_model")) from None
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise DamagedFile("error.gpt2.bin_not_state", path=file, fix=t("fix.gpt2_model"))
    return state


def write_gpt2_dir(model: GPT, tokenizer, path) -> None:
    """config.json, model.safetensors and the tokenizer files, for GPT2LMHeadModel.from_pretrained(path)
    and GPT2Tokenizer.from_pretrained(path). UsageError naming what GPT-2 cannot hold."""
    gpt2_config(model.cfg)  # refuses a model GPT-2 cannot compute, before any file is written
    if not isinstance(tokenizer, GPT2BPETokenizer):
        raise UsageError(
            "error.gpt2.export_tokenizer", kind=getattr(tokenizer, "kind", None), gpt2=GPT2BPETokenizer.kind
        )
    eot = (
        {f"{k}_token_id": tokenizer.id_of[ENDOFTEXT] for k in ("bos", "eos")} if ENDOFTEXT in tokenizer.specials else {}
    )
    config = gpt2_config(model.cfg, eot)
    tensors = state_dict_to_gpt2({k: v.detach().cpu() for k, v in model.state_dict().items()}, model.cfg)
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path / "config.json", json.dumps(config, indent=2) + "\n")
    atomic_write(
        path / "model.safetensors",
        lambda tmp: save_file({k: v.float().contiguous() for k, v in tensors.items()}, tmp, metadata={"format": "pt"}),
    )
    write_tokenizer_dir(tokenizer, path, model.cfg.max_len)
