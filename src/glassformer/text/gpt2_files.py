"""GPT-2's tokenizer files, read and written the way Hugging Face keeps them.

    vocab.json             {token: id}, tokens spelled in GPT-2's byte alphabet ("Ġthe": 262)
    merges.txt             "#version: 0.2", then one merge a line, "Ġ t", in rank order
    tokenizer_config.json  the special tokens (bos/eos/unk, added_tokens_decoder) and options
    tokenizer.json         the `tokenizers` library's one-file form (what transformers 5 saves)

`read_tokenizer_dir` takes vocab.json + merges.txt when they are there, else tokenizer.json.
Anything that would make transformers' tokenizer give other ids than GPT2BPETokenizer is refused
with the file and the field named (add_prefix_space, a normalizer, a non-byte-level model ...).
`write_tokenizer_dir` writes vocab.json, merges.txt and tokenizer_config.json, which
GPT2Tokenizer.from_pretrained(DIR) reads.
"""

from __future__ import annotations

import json
from pathlib import Path

from glassformer.errors import DamagedFile, NotFound, UsageError
from glassformer.files import read_json, read_text, write_text_atomic
from glassformer.messages import t

from .gpt2_bpe import ENDOFTEXT, GPT2BPETokenizer

SPECIAL_KEYS = ("bos_token", "eos_token", "unk_token", "pad_token")


def read_tokenizer_dir(path) -> GPT2BPETokenizer:
    """The GPT-2 tokenizer of a Hugging Face model directory."""
    path = Path(path)
    config = _tokenizer_config(path)
    if (path / "vocab.json").is_file() and (path / "merges.txt").is_file():
        vocab = read_json(path / "vocab.json", _fix())
        if not (isinstance(vocab, dict) and all(isinstance(i, int) for i in vocab.values())):
            raise DamagedFile("error.gpt2.vocab_shape", path=path / "vocab.json", fix=_fix())
        merges = _merge_lines(path / "merges.txt")
        added = _added_from_config(config, vocab, path / "tokenizer_config.json")
        where = path / "vocab.json"
    elif (path / "tokenizer.json").is_file():
        vocab, merges, added = _from_tokenizer_json(path / "tokenizer.json")
        where = path / "tokenizer.json"
    else:
        raise NotFound("error.gpt2.no_tokenizer", path=path, fix=_fix())
    tokens = _tokens_in_id_order(vocab, added, where)
    try:
        return GPT2BPETokenizer(tokens, merges, list(added.values()))
    except ValueError as e:
        raise DamagedFile("error.gpt2.tokenizer_invalid", path=where, problem=e, fix=_fix()) from None


def _fix() -> str:
    """How to get a tokenizer file back (the end of every message about a damaged one)."""
    return t("fix.gpt2_tokenizer")


def _tokenizer_config(path: Path) -> dict:
    """tokenizer_config.json (empty if absent), refusing options that change the ids."""
    file = path / "tokenizer_config.json"
    config = read_json(file, _fix()) if file.is_file() else {}
    if not isinstance(config, dict):
        raise DamagedFile("error.gpt2.not_object", path=file, fix=_fix())
    for option in ("add_prefix_space", "add_bos_token"):
        if config.get(option):
            raise UsageError("error.gpt2.tokenizer_option", path=file, option=option, what=t(f"gpt2.option.{option}"))
    return config


def _merge_lines(file: Path) -> list[tuple[str, str]]:
    merges = []
    for n, line in enumerate(read_text(file, _fix(), allow_empty=True).split("\n"), 1):  # not splitlines: \x85 ...
        line = line.removesuffix("\r")
        if not line or (n == 1 and line.startswith("#version")):
            continue
        pair = line.split(" ")
        if len(pair) != 2:
            raise DamagedFile("error.gpt2.merge_line", path=file, n=n, line=line, fix=_fix())
        merges.append((pair[0], pair[1]))
    return merges


def _added_from_config(config: dict, vocab: dict[str, int], file: Path) -> dict[int, str]:
    """{id: special token} from tokenizer_config.json; without one, GPT-2's <|endoftext|> (if in vocab.json:
    GPT2Tokenizer's default bos/eos/unk token)."""
    added = {}
    for i, d in (config.get("added_tokens_decoder") or {}).items():
        _plain_added_token(d, file)
        added[int(i)] = d["content"]
    named = [config.get(k) for k in SPECIAL_KEYS] if config else [ENDOFTEXT]
    for token in [x.get("content") if isinstance(x, dict) else x for x in named]:
        if isinstance(token, str) and token not in added.values():
            if token not in vocab:
                if config:
                    raise UsageError("error.gpt2.special_unknown", path=file, token=token)
                continue
            added[vocab[token]] = token
    return added


def _plain_added_token(d: dict, file: Path) -> None:
    if not isinstance(d, dict) or not isinstance(d.get("content"), str):
        raise DamagedFile("error.gpt2.added_shape", path=file, fix=_fix())
    for flag in ("lstrip", "rstrip", "single_word"):
        if d.get(flag):
            raise UsageError("error.gpt2.added_flag", path=file, token=d["content"], flag=flag)


def _from_tokenizer_json(file: Path):
    """vocab, merges and added tokens of the library's tokenizer.json, if it is GPT-2's pipeline."""
    d = read_json(file, _fix())
    if not isinstance(d, dict):
        raise DamagedFile("error.gpt2.not_object", path=file, fix=_fix())
    model, pre = d.get("model") or {}, d.get("pre_tokenizer") or {}
    problems = {
        "model.type": (model.get("type"), "BPE"),
        "pre_tokenizer.type": (pre.get("type"), "ByteLevel"),
        "pre_tokenizer.add_prefix_space": (pre.get("add_prefix_space"), False),
        "pre_tokenizer.use_regex": (pre.get("use_regex", True), True),
        "normalizer": (d.get("normalizer"), None),
        "model.byte_fallback": (model.get("byte_fallback", False), False),
        "model.ignore_merges": (model.get("ignore_merges", False), False),
        "model.continuing_subword_prefix": (model.get("continuing_subword_prefix") or "", ""),
        "model.end_of_word_suffix": (model.get("end_of_word_suffix") or "", ""),
        "model.dropout": (model.get("dropout"), None),
    }
    for field, (found, want) in problems.items():
        if found != want:
            raise UsageError(
                "error.gpt2.pipeline", path=file, field=field, found=json.dumps(found), want=json.dumps(want)
            )
    if not isinstance(model.get("vocab"), dict) or not isinstance(model.get("merges"), list):
        raise DamagedFile("error.gpt2.no_model_vocab", path=file, fix=_fix())
    merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in model["merges"]]
    added = {}
    for d_tok in d.get("added_tokens") or []:
        _plain_added_token(d_tok, file)
        added[int(d_tok["id"])] = d_tok["content"]
    return model["vocab"], merges, added


def _tokens_in_id_order(vocab: dict[str, int], added: dict[int, str], where: Path) -> list[str]:
    """id -> token, for ids 0..N-1 with no hole; an added token may sit in the vocabulary or after it."""
    by_id = {i: token for token, i in vocab.items()}
    for i, special in added.items():
        if by_id.setdefault(i, special) != special:
            raise DamagedFile("error.gpt2.id_twice", path=where, id=i, token=by_id[i], special=special, fix=_fix())
    holes = sorted(set(range(len(by_id))) - by_id.keys())
    if holes or len(by_id) != len(vocab) + len(added.keys() - set(vocab.values())):
        raise DamagedFile(
            "error.gpt2.id_gaps", path=where, last=len(by_id) - 1, gap=holes[0] if holes else "?", fix=_fix()
        )
    return [by_id[i] for i in range(len(by_id))]


def write_tokenizer_dir(tokenizer: GPT2BPETokenizer, path, max_len: int) -> None:
    """vocab.json, merges.txt and tokenizer_config.json: what GPT2Tokenizer.from_pretrained reads."""
    path = Path(path)
    vocab = {token: i for i, token in enumerate(tokenizer.tokens)}
    write_text_atomic(path / "vocab.json", json.dumps(vocab, ensure_ascii=False) + "\n")
    write_text_atomic(path / "merges.txt", "#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in tokenizer.merges))
    eot = ENDOFTEXT if ENDOFTEXT in tokenizer.specials else None  # GPT-2's bos = eos = unk
    config = {
        "tokenizer_class": "GPT2Tokenizer",
        "add_prefix_space": False,
        "model_max_length": max_len,
        **{k: eot for k in SPECIAL_KEYS[:3]},
        "added_tokens_decoder": {
            str(tokenizer.id_of[s]): {
                "content": s,
                "special": True,
                "lstrip": False,
                "rstrip": False,
                "single_word": False,
                "normalized": False,
            }
            for s in tokenizer.specials
        },
    }
    write_text_atomic(path / "tokenizer_config.json", json.dumps(config, indent=2, ensure_ascii=False) + "\n")
