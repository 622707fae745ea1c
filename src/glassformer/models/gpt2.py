"""GPT-2 import and export: the only file where GPT-2's names (wte, c_attn, n_embd ...) appear.

GPT-2 is a GPT with GELU-tanh, pre-LN, learned positions, biases and a tied head. Its linear
layers are `Conv1D` modules that store weights as (in, out), the transpose of nn.Linear's
(out, in), so every matrix is transposed on the way in and on the way out.

First the port, both directions, for a config (a transformers.GPT2Config or its config.json as a
dict) and for weights (a state_dict). A GPT-2 setting glassformer would compute differently is
refused with the field named, never approximated. Then the files, a Hugging Face GPT-2 directory
read into a glassformer GPT and written back from one:

    config.json                                   the GPT2Config           ┐ the port maps the
    model.safetensors  (or model.safetensors.index.json + shards,          │ names and refuses what
                        or pytorch_model.bin, opened with weights_only)    ┘ glassformer cannot compute
    vocab.json + merges.txt (or tokenizer.json)   the tokenizer            text/gpt2_bpe.py

Nothing is fetched: the directory is one `save_pretrained` wrote (or a download of one). Weights of
any floating dtype become float32, glassformer's. `read_gpt2_dir` returns the model and tokenizer;
train/run.py turns them into a run directory (and back).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import cast

import torch
from safetensors import SafetensorError, safe_open
from safetensors.torch import save_file

from glassformer.config import ModelConfig, Preset, TrainConfig, apply_overrides
from glassformer.errors import Clause, DamagedFile, Joined, NotFound, UsageError
from glassformer.files import atomic_write, read_json, write_json_atomic
from glassformer.models.gpt import GPT
from glassformer.text.gpt2_bpe import ENDOFTEXT, GPT2BPETokenizer, read_tokenizer_dir, write_tokenizer_dir

# GPT2Config flags whose non-default values glassformer cannot compute: name -> the value that is refused
CHANGES_THE_FUNCTION = {
    "scale_attn_weights": False,
    "scale_attn_by_inverse_layer_idx": True,
    "reorder_and_upcast_attn": True,
    "add_cross_attention": True,
}
ACTIVATIONS = {"gelu_new": "gelu_tanh", "gelu_pytorch_tanh": "gelu_tanh", "gelu": "gelu", "relu": "relu"}
ACTIVATION_OUT = {"gelu_tanh": "gelu_new", "gelu": "gelu", "relu": "relu"}
ARCHITECTURES = ("GPT2LMHeadModel", "GPT2Model")  # what the weights may be: the LM, or its trunk alone
REQUIRED = ("vocab_size", "n_embd", "n_head", "n_layer", "n_positions")
IGNORED_BUFFERS = ("attn.bias", "attn.masked_bias")  # old checkpoints saved the causal mask; it is rebuilt


def config_from_gpt2(hf_config, source: str = "GPT2Config") -> ModelConfig:
    """A ModelConfig equal to a GPT2Config or its config.json dict (dropout taken from resid_pdrop).
    `source` names it in the errors."""
    get = hf_config.get if isinstance(hf_config, Mapping) else lambda k, d=None: getattr(hf_config, k, d)
    if get("model_type", "gpt2") != "gpt2":
        raise UsageError(
            "gpt2.model_type",
            '{source} has model_type={found!r}: only GPT-2 (model_type "gpt2") can be imported.',
            source=source,
            found=get("model_type"),
        )
    architectures = get("architectures") or []
    if not isinstance(architectures, (list, tuple)) or any(a not in ARCHITECTURES for a in architectures):
        raise UsageError(
            "gpt2.architectures",
            "{source} has architectures={found}: glassformer's GPT holds {known}, not another head.",
            source=source,
            found=architectures,
            known=Joined(ARCHITECTURES, Clause(" or ")),
        )
    for flag, bad in CHANGES_THE_FUNCTION.items():
        value = get(flag, not bad)
        if type(value) is not bool:  # "16" or 0 is no flag (bool("16") would be read as true)
            raise DamagedFile(
                "gpt2.flag_type",
                "{source}: {flag} is {found!r}, not true or false: it does not describe a GPT-2.",
                source=source,
                flag=flag,
                found=value,
            )
        if value == bad:
            raise UsageError(
                "gpt2.attention_flag",
                "{source} has {flag}={bad}, which changes the attention "
                "glassformer computes; port only standard GPT-2 configs.",
                source=source,
                flag=flag,
                bad=bad,
            )
    activation = get("activation_function", "gelu_new")
    if not isinstance(activation, str) or activation not in ACTIVATIONS:  # (a list is no dict key)
        raise UsageError(
            "gpt2.activation_in",
            "{source} has activation_function={found!r}, which has no glassformer equivalent; supported: {supported}.",
            source=source,
            found=activation,
            supported=sorted(ACTIVATIONS),
        )
    missing = [k for k in REQUIRED if type(get(k)) is not int]  # (true is no number of layers)
    if missing:
        raise DamagedFile(
            "gpt2.lacks_numbers",
            "{source} lacks a whole number for {missing}: it does not describe a GPT-2.",
            source=source,
            missing=", ".join(missing),
        )
    n = {k: cast(int, get(k)) for k in REQUIRED}  # whole numbers: checked just above
    n_inner = get("n_inner")
    values = {
        "vocab_size": n["vocab_size"],
        "d_model": n["n_embd"],
        "n_heads": n["n_head"],
        "d_ff": 4 * n["n_embd"] if n_inner is None else n_inner,
        "n_layers": n["n_layer"],
        "max_len": n["n_positions"],
        "dropout": get("resid_pdrop", 0.1),
        "bias": True,
        "activation": ACTIVATIONS[activation],
        "norm": "pre",
        "final_norm": True,
        "position": "learned",
        "causal": True,
        "tie_weights": get("tie_word_embeddings", True),
        "init": "gpt2",
        "ln_eps": get("layer_norm_epsilon", 1e-5),
    }
    try:  # the types and ranges a run's config.json is held to (saved.model_config reads it the same way)
        return apply_overrides(Preset(ModelConfig(), TrainConfig()), values, typed=True).model
    except (TypeError, ValueError) as e:
        raise DamagedFile(
            "gpt2.cannot_build",
            "{source} does not describe a GPT-2 glassformer can build: {problem}",
            source=source,
            problem=e,
        ) from None


# the sizes of a ModelConfig that the weights show, before a model is built: field -> (tensor, dim)
SIZES_IN_WEIGHTS = {
    "vocab_size": ("wte.weight", 0),
    "d_model": ("wte.weight", 1),
    "max_len": ("wpe.weight", 0),
    "d_ff": ("h.0.mlp.c_fc.weight", 1),
}
HF_NAMES = {"vocab_size": "vocab_size", "d_model": "n_embd", "max_len": "n_positions", "d_ff": "n_inner"}


def check_weights(hf_state: Mapping[str, torch.Tensor], source: str | Clause) -> None:
    """Refuse weights that are not finite floating-point vectors and matrices (old checkpoints' causal
    masks aside), before any is transposed or copied: DamagedFile naming the tensor."""
    for name, tensor in hf_state.items():
        if name.endswith(IGNORED_BUFFERS):
            continue  # an old checkpoint's causal mask (bool or uint8): never read
        if not tensor.is_floating_point():
            raise DamagedFile(
                "gpt2.weight_dtype",
                "{source}: {name} holds {dtype} numbers, not floating-point weights; it is not a GPT-2 checkpoint.",
                source=source,
                name=name,
                dtype=str(tensor.dtype),
            )
        if tensor.dim() not in (1, 2):  # GPT-2's weights are vectors and matrices (a 3-D one cannot be transposed)
            raise DamagedFile(
                "gpt2.weight_dims",
                "{source}: {name} has shape {shape}; a GPT-2 weight is a vector or a matrix.",
                source=source,
                name=name,
                shape=list(tensor.shape),
            )
        if not bool(torch.isfinite(tensor).all()):  # () bool: every number finite
            raise DamagedFile(
                "gpt2.weight_finite",
                "{source}: {name} holds NaN or infinite values, with which "
                "the model computes nothing; use an undamaged copy of the "
                "checkpoint.",
                source=source,
                name=name,
            )


def check_sizes(hf_state: Mapping[str, torch.Tensor], cfg: ModelConfig, source: str | Clause, config: str) -> None:
    """Refuse a config whose sizes the weights do not have, before anything of that size is allocated
    (n_embd=10**9 in config.json with weights of 24 columns would otherwise ask for terabytes):
    DamagedFile naming the field and the tensor that says otherwise."""
    src = {k.removeprefix("transformer."): v for k, v in hf_state.items()}
    for field, (name, dim) in SIZES_IN_WEIGHTS.items():
        weight = src.get(name)
        if weight is None:
            continue  # a missing tensor is state_dict_from_gpt2's error, naming every one
        shape = tuple(weight.shape)
        if len(shape) != 2 or shape[dim] != getattr(cfg, field):
            raise DamagedFile(
                "gpt2.weight_size",
                "{config} says {field}={value}, but {name} in {source} has "
                "shape {shape}: the config and the weights are not of one "
                "model.",
                source=source,
                config=config,
                field=HF_NAMES[field],
                value=getattr(cfg, field),
                name=name,
                shape=list(shape),
            )


def gpt2_config(cfg: ModelConfig, special_ids: Mapping[str, int] | None = None) -> dict:
    """A GPT-2 config.json for a glassformer GPT; UsageError naming the first field GPT-2 lacks.
    special_ids: {"bos_token_id": .., "eos_token_id": ..} from the tokenizer."""
    needs = {
        "kind": "gpt",
        "norm": "pre",
        "final_norm": True,
        "position": "learned",
        "causal": True,
        "bias": True,
        "mha_style": "packed",
        "pad_id": None,
        "ffn": "mlp",
    }
    for field, value in needs.items():
        if getattr(cfg, field) != value:
            raise UsageError(
                "gpt2.field_out",
                "this model has {field}={found!r}; GPT-2 has "
                "{field}={want!r}, so transformers' GPT2LMHeadModel cannot "
                "compute it.",
                field=field,
                found=getattr(cfg, field),
                want=value,
            )
    if cfg.activation not in ACTIVATION_OUT:
        raise UsageError(
            "gpt2.activation_out",
            "this model has activation={found!r}, which GPT-2 lacks; it has {known}.",
            found=cfg.activation,
            known=sorted(ACTIVATION_OUT),
        )
    return {
        "model_type": "gpt2",
        "architectures": ["GPT2LMHeadModel"],
        "vocab_size": cfg.vocab_size,
        "n_embd": cfg.d_model,
        "n_head": cfg.n_heads,
        "n_layer": cfg.n_layers,
        "n_inner": cfg.d_ff,
        "n_positions": cfg.max_len,
        "activation_function": ACTIVATION_OUT[cfg.activation],
        "layer_norm_epsilon": cfg.ln_eps,
        "resid_pdrop": cfg.dropout,
        "embd_pdrop": cfg.dropout,
        "attn_pdrop": cfg.dropout,
        "tie_word_embeddings": cfg.tie_weights,
        "scale_attn_weights": True,
        "scale_attn_by_inverse_layer_idx": False,
        "reorder_and_upcast_attn": False,
        "add_cross_attention": False,
        "initializer_range": 0.02,
        "use_cache": True,
        **(special_ids or {}),
    }


def _layer_names(i: int) -> dict[str, tuple[str, bool]]:
    """glassformer name -> (GPT-2 name, stored transposed?) for block i."""
    h, b = f"h.{i}.", f"blocks.{i}."
    pairs = {
        "ln1.weight": ("ln_1.weight", False),
        "ln1.bias": ("ln_1.bias", False),
        "attn.qkv.weight": ("attn.c_attn.weight", True),
        "attn.qkv.bias": ("attn.c_attn.bias", False),
        "attn.proj.weight": ("attn.c_proj.weight", True),
        "attn.proj.bias": ("attn.c_proj.bias", False),
        "ln2.weight": ("ln_2.weight", False),
        "ln2.bias": ("ln_2.bias", False),
        "ffn.fc1.weight": ("mlp.c_fc.weight", True),
        "ffn.fc1.bias": ("mlp.c_fc.bias", False),
        "ffn.fc2.weight": ("mlp.c_proj.weight", True),
        "ffn.fc2.bias": ("mlp.c_proj.bias", False),
    }
    return {b + ours: (h + theirs, transposed) for ours, (theirs, transposed) in pairs.items()}


def _names(n_layers: int) -> dict[str, tuple[str, bool]]:
    names = {
        "tok_embed.table.weight": ("wte.weight", False),
        "pos_embed.table.weight": ("wpe.weight", False),
        "ln_final.weight": ("ln_f.weight", False),
        "ln_final.bias": ("ln_f.bias", False),
    }
    for i in range(n_layers):
        names.update(_layer_names(i))
    return names


def state_dict_from_gpt2(
    hf_state: Mapping[str, torch.Tensor], n_layers: int, tied: bool = True, source: str | Clause | None = None
) -> dict[str, torch.Tensor]:
    """Map a GPT2LMHeadModel (or GPT2Model) state_dict onto glassformer GPT parameter names.
    Every tensor is used or refused by name: a missing one, or one glassformer has no place for.
    `source` names the weights in the errors (default: "the GPT-2 weights")."""
    source = source or Clause("the GPT-2 weights")
    src = {k.removeprefix("transformer."): v for k, v in hf_state.items()}
    names = _names(n_layers)
    missing = [theirs for theirs, _ in names.values() if theirs not in src]
    if missing:
        raise DamagedFile(
            "gpt2.tensors_missing",
            "{source} lack {names}{more}: not a whole GPT-2 of {n_layers} layers.",
            source=source,
            names=", ".join(missing[:4]),
            more=" ..." if len(missing) > 4 else "",
            n_layers=n_layers,
        )
    out = {
        ours: src[theirs].t().contiguous() if transposed else src[theirs]
        for ours, (theirs, transposed) in names.items()
    }
    used = {theirs for theirs, _ in names.values()} | {"lm_head.weight"}
    unused = [k for k in src if k not in used and not k.endswith(IGNORED_BUFFERS)]
    if unused:
        raise UsageError(
            "gpt2.tensors_unused",
            "{source} hold tensors glassformer's GPT has no place for: "
            "{names}{more} (another head, or more layers than n_layer).",
            source=source,
            names=", ".join(unused[:4]),
            more=" ..." if len(unused) > 4 else "",
        )
    head = src.get("lm_head.weight")
    if tied:
        if head is not None and not torch.equal(head, src["wte.weight"]):
            raise UsageError(
                "gpt2.head_untied",
                "{source}: lm_head.weight differs from wte.weight, but tie_word_embeddings is true.",
                source=source,
            )
        out["head.weight"] = out["tok_embed.table.weight"]  # tied
    else:
        if head is None:
            raise DamagedFile(
                "gpt2.no_head", "{source} lack lm_head.weight, which tie_word_embeddings=false needs.", source=source
            )
        out["head.weight"] = head  # (V, C)
        out["head.bias"] = torch.zeros(head.size(0), dtype=head.dtype)  # (V,) GPT-2's head has none
    return out


def state_dict_to_gpt2(state: dict[str, torch.Tensor], cfg: ModelConfig) -> dict[str, torch.Tensor]:
    """glassformer GPT weights under GPT2LMHeadModel's names (contiguous; the tied head once, as wte)."""
    out = {
        "transformer." + theirs: state[ours].t().contiguous() if transposed else state[ours].contiguous()
        for ours, (theirs, transposed) in _names(cfg.n_layers).items()
    }
    if not cfg.tie_weights:
        if "head.bias" in state and state["head.bias"].abs().max() > 0:
            raise UsageError(
                "gpt2.head_bias",
                "this model's head has a non-zero bias; GPT-2's lm_head has none, so transformers cannot compute it.",
            )
        out["lm_head.weight"] = state["head.weight"].contiguous()  # (V, C)
    return out


def gpt_from_gpt2(hf_model) -> GPT:
    """Build a glassformer GPT with a transformers GPT2LMHeadModel's config and weights."""
    cfg = config_from_gpt2(hf_model.config)
    model = GPT(cfg).to(next(hf_model.parameters()).dtype)
    model.load_state_dict(state_dict_from_gpt2(hf_model.state_dict(), cfg.n_layers, cfg.tie_weights))
    return model


# ---- the files: a Hugging Face GPT-2 directory ------------------------------------------------------
WEIGHT_FILES = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin")


def folder_fix() -> Clause:
    """How every refusal of a model folder ends (worded when shown, in the language of that moment)."""
    return Clause("save_pretrained writes it; copy the model directory again.")


def read_hf_config(path) -> tuple[Path, dict]:
    """(the directory, its config.json) of a Hugging Face model directory, every family's first step:
    a path that is not a directory, a config.json that is missing, damaged or not an object is refused."""
    path = Path(path)
    if not path.is_dir():
        raise (
            NotFound(
                "gpt2.is_file",
                "{path} is not a directory (it is a file): give the folder "
                "that holds the model's config.json, weights and tokenizer "
                "files.",
                path=path,
            )
            if path.exists()
            else NotFound(
                "gpt2.not_dir",
                "{path} is not a directory: give the folder that holds the "
                "model's config.json, weights and tokenizer files.",
                path=path,
            )
        )
    config = read_json(path / "config.json", folder_fix())
    if not isinstance(config, dict):
        raise DamagedFile(
            "gpt2.not_object",
            "{path} is not a JSON object. {fix}",
            path=path / "config.json",
            fix=folder_fix(),
        )
    return path, config


GENERATION = ("bos_token_id", "eos_token_id", "pad_token_id")  # the ids generate reads from generation_config.json


def read_generation(path: Path, vocab_size: int) -> dict[str, int | list[int]]:
    """The special token ids of a directory's generation_config.json, as transformers' `generate`
    reads them: bos, eos (one id, or a list: any of them ends a sample) and pad; {} without the
    file. An id outside the vocabulary is refused (DamagedFile naming the key)."""
    file = path / "generation_config.json"
    if not file.is_file():
        return {}
    fix = folder_fix()
    data = read_json(file, fix)
    if not isinstance(data, dict):
        raise DamagedFile("gpt2.not_object", "{path} is not a JSON object. {fix}", path=file, fix=fix)
    found = {key: data[key] for key in GENERATION if data.get(key) is not None}
    for key, value in found.items():
        ids = value if isinstance(value, list) else [value]
        if not ids or not all(type(i) is int and 0 <= i < vocab_size for i in ids):
            raise DamagedFile(
                "hf.generation_id",
                "{path}: {key}={value!r} is not a token id below vocab_size={vocab_size}, nor a list of them. {fix}",
                path=file,
                key=key,
                value=value,
                vocab_size=vocab_size,
                fix=fix,
            )
    return found


def write_generation(path: Path, generation: dict | None) -> None:
    """generation_config.json holding the special ids a run was imported with (read_generation), so
    `generate` stops where the original model did; nothing for a run that has none."""
    if generation:
        write_json_atomic(path / "generation_config.json", generation, indent=2)


def generation_of(config: dict) -> dict:
    """The generation ids a run's config.json keeps from its import ({} for a run trained here)."""
    imported = config.get("imported")
    generation = imported.get("generation") if isinstance(imported, dict) else None
    return generation if isinstance(generation, dict) else {}


def end_ids(config: dict) -> tuple[int, ...]:
    """The ids that end a sample of a run (its imported eos_token_id): () for a run that has none."""
    eos = generation_of(config).get("eos_token_id")
    return () if eos is None else tuple(eos if isinstance(eos, list) else [eos])


def read_gpt2_dir(path) -> tuple[GPT, GPT2BPETokenizer, str]:
    """(glassformer GPT in eval mode, its tokenizer, the weights file's name) of a GPT-2 directory."""
    path, config = read_hf_config(path)
    cfg = config_from_gpt2(config, source=str(path / "config.json"))
    weights_file, tensors = read_weights(path)
    weights = Clause("the weights in {path}", path=weights_file)  # how the errors name them
    check_weights(tensors, source=weights)
    state = state_dict_from_gpt2(tensors, cfg.n_layers, cfg.tie_weights, source=weights)
    tokenizer = read_tokenizer_dir(path)
    if tokenizer.vocab_size != cfg.vocab_size:
        raise UsageError(
            "gpt2.vocab_differs",
            "{path} has vocab_size={vocab_size} but the tokenizer has "
            "{tokens} tokens; glassformer needs one id per embedding "
            "row. Import a model whose config and tokenizer agree.",
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
            "gpt2.weights_fit",
            "the weights in {path} do not fit {config} ({detail}). {fix}",
            path=weights_file,
            config=path / "config.json",
            detail=first,
            fix=folder_fix(),
        ) from None
    return model.eval(), tokenizer, weights_file.name


def read_weights(path: Path) -> tuple[Path, Mapping[str, torch.Tensor]]:
    """The first weights file found (in WEIGHT_FILES' order) and its tensors on the CPU, safetensors
    read one at a time when asked for (Llama, Qwen3 and Mistral directories are read by it too:
    models/llama.py)."""
    for name in WEIGHT_FILES:
        file = path / name
        if not file.is_file():
            continue
        if name.endswith(".index.json"):
            index = read_json(file, folder_fix())
            weight_map = index.get("weight_map") if isinstance(index, dict) else None
            if not isinstance(weight_map, dict) or not weight_map:
                raise DamagedFile(
                    "gpt2.no_shards",
                    "{path} has no weight_map naming its shards. {fix}",
                    path=file,
                    fix=folder_fix(),
                )
            for shard in weight_map.values():  # a file of this folder: never "../x" or "/etc/x"
                if not isinstance(shard, str) or not shard or Path(shard).name != shard or "\x00" in shard:
                    raise DamagedFile(
                        "gpt2.shard_name",
                        "{path} names the shard {shard!r}, which is not the name of a file in its folder. {fix}",
                        path=file,
                        shard=shard,
                        fix=folder_fix(),
                    )
            return file, SafetensorsFiles([path / shard for shard in sorted(set(weight_map.values()))])
        return file, SafetensorsFiles([file]) if name.endswith(".safetensors") else _torch_bin(file)
    raise NotFound(
        "gpt2.no_weights",
        "{path} has no weights: it needs one of {files}. {fix}",
        path=path,
        files=", ".join(WEIGHT_FILES),
        fix=folder_fix(),
    )


class SafetensorsFiles(Mapping[str, torch.Tensor]):
    """The tensors of one or more safetensors files (a model's shards), each read from its
    memory-mapped file when asked for and not kept: a loader that takes them one at a time holds one
    checkpoint tensor in memory, not the whole checkpoint beside the model it fills."""

    def __init__(self, files: list[Path]) -> None:
        self.file_of: dict[str, Path] = {}
        for file in files:
            with self._open(file) as f:  # the header only: names, dtypes, shapes
                self.file_of.update(dict.fromkeys(f.keys(), file))

    @staticmethod
    def _open(file: Path):
        if not file.is_file():
            raise NotFound(
                "gpt2.shard_missing",
                "{path} does not exist, but the index names it. {fix}",
                path=file,
                fix=folder_fix(),
            )
        try:
            return safe_open(str(file), framework="pt")
        except (SafetensorError, OSError, ValueError, RuntimeError) as e:
            raise _unreadable(file, e) from None

    def __getitem__(self, name: str) -> torch.Tensor:
        file = self.file_of[name]
        try:
            with safe_open(str(file), framework="pt") as f:
                return f.get_tensor(name)
        except (SafetensorError, OSError, ValueError, RuntimeError) as e:  # changed on disk since it was opened
            raise _unreadable(file, e) from None

    def __iter__(self):
        return iter(self.file_of)

    def __len__(self) -> int:
        return len(self.file_of)


def _unreadable(file: Path, e: Exception) -> DamagedFile:
    return DamagedFile(
        "gpt2.safetensors",
        "{path} is not a readable safetensors file ({detail}). {fix}",
        path=file,
        detail=str(e).splitlines()[0][:200],
        fix=folder_fix(),
    )


def _torch_bin(file: Path) -> dict[str, torch.Tensor]:
    """pytorch_model.bin with weights_only=True: tensors and plain values only, no code ever runs."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            state = torch.load(file, map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises many types for bad or hostile bytes; all mean "not usable"
        why = (
            Clause("it holds objects other than tensors, which glassformer never unpickles (they could run code)")
            if "Weights only load failed" in str(e)
            else Clause("it is damaged ({detail})", detail=str(e).splitlines()[0][:200])
        )
        raise DamagedFile(
            "gpt2.bin_refused",
            "{path} was refused: {why}. Convert it to model.safetensors, or {fix}",
            path=file,
            why=why,
            fix=folder_fix(),
        ) from None
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise DamagedFile(
            "gpt2.bin_not_state",
            "{path} does not hold a state_dict ({{name: tensor}}). {fix}",
            path=file,
            fix=folder_fix(),
        )
    return state


def write_gpt2_dir(model: GPT, tokenizer, path, generation: dict | None = None) -> None:
    """config.json, model.safetensors and the tokenizer files, for GPT2LMHeadModel.from_pretrained(path)
    and GPT2Tokenizer.from_pretrained(path). UsageError naming what GPT-2 cannot hold."""
    gpt2_config(model.cfg)  # refuses a model GPT-2 cannot compute, before any file is written
    if not isinstance(tokenizer, GPT2BPETokenizer):
        raise UsageError(
            "gpt2.export_tokenizer",
            "this run's tokenizer is {kind!r}; transformers' "
            "GPT2Tokenizer holds only GPT-2's own byte-level BPE "
            "({gpt2!r}), which runs imported with `glassformer import "
            "gpt2` have. (glassformer's 'bpe' cuts text with another "
            "pattern.)",
            kind=getattr(tokenizer, "kind", None),
            gpt2=GPT2BPETokenizer.kind,
        )
    eot = (
        {f"{k}_token_id": tokenizer.id_of[ENDOFTEXT] for k in ("bos", "eos")} if ENDOFTEXT in tokenizer.specials else {}
    )
    config = gpt2_config(model.cfg, eot)
    tensors = state_dict_to_gpt2({k: v.detach().cpu() for k, v in model.state_dict().items()}, model.cfg)
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    write_json_atomic(path / "config.json", config, indent=2)
    atomic_write(
        path / "model.safetensors",
        lambda tmp: save_file({k: v.float().contiguous() for k, v in tensors.items()}, tmp, metadata={"format": "pt"}),
    )
    write_tokenizer_dir(tokenizer, path, model.cfg.max_len)
    write_generation(path, generation)
