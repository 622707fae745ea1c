"""GPT-2's own byte-level BPE: its vocabulary, its merges and its pre-tokenizer, id for id.

glassformer's ``BPETokenizer`` numbers its tokens 256 + merge rank and cuts text with an ASCII-class
pattern (bpe.py says why). A GPT-2 checkpoint comes with neither: its ``vocab.json`` maps
each token, spelled in GPT-2's byte alphabet (bpe.BYTE_TO_CHAR: a space is "Ġ"), to an id of its
own choosing, ``merges.txt`` lists the merges by rank, and the text is cut by GPT-2's pattern with
Unicode classes::

    's|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+

``GPT2BPETokenizer`` holds exactly those tables. Encoding is done by the Hugging Face ``tokenizers``
library (its ``ByteLevel`` pre-tokenizer runs that pattern, its ``BPE`` model the merges), which
is what ``transformers`` itself runs for GPT-2, so the ids are Hugging Face's ids
(tests/text/test_gpt2_tokenizer.py checks English, Chinese, emoji and whitespace runs, and
the pieces against the pattern run by the ``regex`` module, as OpenAI's encoder.py runs it). The
pattern's ``\\p{L}`` is the library's Unicode table: OpenAI's original encoder.py used Python's
``regex``, which knows 17,480 newer letters and digits that the library does not (docs/text.md), so
for text with those rare characters the ids can differ from encoder.py's, never from transformers'.

Steps, for ``show_work`` (the same algorithm as bpe.py, on GPT-2's tables; a test checks it gives
``encode``'s ids):

1. cut out the special tokens ("<|endoftext|>"): each is one id, matched literally;
2. pre-tokenize the rest with GPT-2's pattern and spell each piece in the byte alphabet;
3. in each piece, merge the adjacent pair with the lowest rank in merges.txt, left to right, until
   no pair of the piece is in merges.txt;
4. look each token up in vocab.json.

Decoding maps each character back to its byte and reads the bytes as UTF-8 (U+FFFD where a
character is cut, as bpe.py does); a special token decodes to itself.

The tables come from, and go back to, the files Hugging Face keeps them in:

    vocab.json             {token: id}, tokens spelled in GPT-2's byte alphabet ("Ġthe": 262)
    merges.txt             "#version: 0.2", then one merge a line, "Ġ t", in rank order
    tokenizer_config.json  the special tokens (bos/eos/unk, added_tokens_decoder) and options
    tokenizer.json         the `tokenizers` library's one-file form (what transformers 5 saves)

``read_tokenizer_dir`` reads them the way transformers does: tokenizer.json when there is one, else
vocab.json + merges.txt, and the special tokens tokenizer_config.json names, a missing one added with
the next id (it says so). Anything that would make transformers' tokenizer give other
ids than GPT2BPETokenizer is refused with the file and the field named (add_prefix_space, a
normalizer, a non-byte-level model ...). ``write_tokenizer_dir`` writes vocab.json, merges.txt and
tokenizer_config.json, which GPT2Tokenizer.from_pretrained(DIR) reads.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any, Callable, Iterable

import tokenizers as hf  # the Hugging Face library, not glassformer.text.tokenizers

from glassformer.errors import DamagedFile, NotFound, UsageError
from glassformer.files import json_text, read_json, read_text, write_json_atomic, write_text_atomic
from glassformer.messages import N_, say, t

from .bpe import BYTE_TO_CHAR, merge_pair
from .tokenizers import JSON_TYPES, WANTS, Tokenizer, saved_field

CHAR_TO_BYTE = {c: b for b, c in enumerate(BYTE_TO_CHAR)}
ENDOFTEXT = "<|endoftext|>"  # GPT-2's one special token: the boundary between documents


class GPT2BPETokenizer(Tokenizer):
    """GPT-2's byte-level BPE from its tables: ``tokens`` (id -> token string, in the byte alphabet),
    ``merges`` (ranked pairs of token strings) and ``specials`` (tokens matched literally)."""

    kind = "gpt2-bpe"

    def __init__(self, tokens: Iterable[str], merges: Iterable[tuple[str, str]], specials: Iterable[str] = ()) -> None:
        self.tokens, self.merges, self.specials = list(tokens), [tuple(m) for m in merges], list(specials)
        self.id_of = {t: i for i, t in enumerate(self.tokens)}
        _check_tables(self.tokens, self.id_of, self.merges, self.specials)
        special = set(self.specials)
        self.token_bytes = [
            t.encode("utf-8") if t in special else bytes(CHAR_TO_BYTE[c] for c in t) for t in self.tokens
        ]  # id -> the bytes it stands for
        # (left id, right id) -> (rank, merged id): step 3's table
        self.ranks = {(self.id_of[a], self.id_of[b]): (r, self.id_of[a + b]) for r, (a, b) in enumerate(self.merges)}
        self._special_re = (
            re.compile("|".join(map(re.escape, sorted(special, key=len, reverse=True)))) if special else None
        )
        self.hf = hf.Tokenizer(hf.models.BPE(vocab=dict(self.id_of), merges=self.merges))
        self.hf.pre_tokenizer = hf.pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
        self.hf.add_special_tokens([hf.AddedToken(s, special=True, normalized=False) for s in self.specials])

    @property
    def vocab_size(self) -> int:
        return len(self.tokens)

    def encode(self, text: str) -> list[int]:
        """Text -> ids, by the library (steps 1-4 in Rust)."""
        return self.hf.encode(text, add_special_tokens=False).ids

    def decode(self, ids: Iterable[int]) -> str:
        """Ids -> bytes -> UTF-8 text; a character cut between tokens comes back as U+FFFD."""
        return b"".join(self.token_bytes[i] for i in self._id_list(ids)).decode("utf-8", errors="replace")

    def token_text(self, i: int) -> str:
        """What id ``i`` stands for, readable: UTF-8 where its bytes are, \\xNN where they are not."""
        return self.token_bytes[i].decode("utf-8", errors="backslashreplace")

    def _merge_piece(self, ids: list[int], steps: list[dict[str, Any]]) -> list[int]:
        """Step 3 on one piece's byte-token ids, recording each merge as it applies."""
        while len(ids) > 1:
            rank, pair = min((self.ranks.get(p, (float("inf"), -1))[0], p) for p in zip(ids, ids[1:], strict=False))
            if rank == float("inf"):
                break
            new_id = self.ranks[pair][1]
            ids = merge_pair(ids, pair, new_id)
            steps.append(
                {
                    "pair": pair,
                    "as_text": (self.tokens[pair[0]], self.tokens[pair[1]]),
                    "rank": rank,
                    "new_id": new_id,
                    "result": ids,
                }
            )
        return ids

    def show_work(self, text: str) -> dict[str, Any]:
        """Every step in Python: specials, pieces (spelled in the byte alphabet), merges, ids."""
        pieces, merges, ids = [], [], []
        for part, is_special in self._split_specials(text):  # 1)
            if is_special:
                pieces.append(part)
                ids.append(self.id_of[part])
                continue
            for spelled, _ in self.hf.pre_tokenizer.pre_tokenize_str(part):  # 2)
                steps: list[dict[str, Any]] = []
                ids += self._merge_piece([self.id_of[c] for c in spelled], steps)  # 3) and 4)
                merges += [{"piece": len(pieces), "piece_text": spelled, **s} for s in steps]
                pieces.append(spelled)
        return {
            "tokenizer": self.kind,
            "text": text,
            "specials": self.specials,
            "pieces": pieces,
            "merges": merges,
            "ids": ids,
            "tokens": [self.tokens[i] for i in ids],
            "decoded": self.decode(ids),
            "vocab_size": self.vocab_size,
        }

    def _split_specials(self, text: str) -> list[tuple[str, bool]]:
        """[(text, is_special)]: the special tokens cut out, leftmost first, longest first."""
        if self._special_re is None:
            return [(text, False)] if text else []
        out, start = [], 0
        for m in self._special_re.finditer(text):
            out += [(text[start : m.start()], False)] if m.start() > start else []
            out.append((m.group(), True))
            start = m.end()
        return out + ([(text[start:], False)] if start < len(text) else [])

    def to_dict(self) -> dict[str, Any]:
        """The three tables: tokens in id order, merges in rank order, the special tokens."""
        return {
            "pretokenizer": "gpt2",
            "tokens": self.tokens,
            "merges": [f"{a} {b}" for a, b in self.merges],
            "specials": self.specials,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "GPT2BPETokenizer":
        found = saved_field(d, "pretokenizer", "str", "gpt2")
        if found != "gpt2":
            raise DamagedFile("gpt2.pretokenizer", "pretokenizer {found!r} is not GPT-2's.", found=found)
        merges = [tuple(m.split(" ")) for m in saved_field(d, "merges", "strs")]
        return cls(saved_field(d, "tokens", "strs"), merges, saved_field(d, "specials", "strs", []))

    def __repr__(self) -> str:
        return f"GPT2BPETokenizer(vocab_size={self.vocab_size}, specials={self.specials})"


def _check_tables(tokens: list[str], id_of: dict[str, int], merges: list[tuple], specials: list[str]) -> None:
    """Refuse tables the encoder could not run: ValueError naming the first bad entry."""
    if len(id_of) != len(tokens):
        dup = next(t for i, t in enumerate(tokens) if id_of[t] != i)
        raise UsageError("gpt2.token_twice", "token {token!r} has two ids; every token needs exactly one.", token=dup)
    missing = [f"{b:#04x} ({c!r})" for b, c in enumerate(BYTE_TO_CHAR) if c not in id_of]
    if missing:
        raise UsageError(
            "gpt2.bytes_missing",
            "the vocabulary lacks {n} of the {n_bytes} byte tokens "
            "(first: {first}), so some text could not be encoded; a "
            "byte-level vocabulary holds them all.",
            n=len(missing),
            n_bytes=len(BYTE_TO_CHAR),
            first=missing[0],
        )
    special = set(specials)
    for s in special:  # a lone surrogate has no UTF-8 bytes to decode to
        if any("\ud800" <= c <= "\udfff" for c in s):
            raise UsageError(
                "gpt2.special_text",
                "special token {token!r} is not text UTF-8 can hold (it has a lone surrogate).",
                token=s,
            )
    if not special <= id_of.keys() or any(not s for s in special):
        raise UsageError(
            "gpt2.specials_absent",
            "special tokens {tokens} are not in the vocabulary.",
            tokens=sorted(special - id_of.keys()),
        )
    for token in tokens:
        if token not in special and not all(c in CHAR_TO_BYTE for c in token):
            raise UsageError(
                "gpt2.not_byte_alphabet",
                "token {token!r} is not spelled in GPT-2's byte alphabet (nor a special token).",
                token=token,
            )
    seen = set()
    for rank, m in enumerate(merges):
        if len(m) != 2 or m in seen or any(p not in id_of or p in special for p in m) or m[0] + m[1] not in id_of:
            merge = " ".join(map(str, m))
            if m in seen:
                raise UsageError("gpt2.merge_twice", "merge {rank} {merge!r} is listed twice.", rank=rank, merge=merge)
            raise UsageError(
                "gpt2.merge_bad",
                "merge {rank} {merge!r} is not a pair of tokens whose join is a token.",
                rank=rank,
                merge=merge,
            )
        seen.add(m)


# ---- the files: a Hugging Face tokenizer directory ------------------------------------------------------------------

SPECIAL_KEYS = ("bos_token", "eos_token", "unk_token", "pad_token")


def read_tokenizer_dir(path, note: Callable[..., None] | None = None) -> GPT2BPETokenizer:
    """The GPT-2 tokenizer of a Hugging Face model directory, read as transformers reads it.

    1. the tables: tokenizer.json when there is one, whatever else is there (transformers builds its
       tokenizer from that file first), else vocab.json + merges.txt;
    2. the added tokens: tokenizer.json's ``added_tokens``, then tokenizer_config.json's
       ``added_tokens_decoder``;
    3. the special tokens tokenizer_config.json names (bos, eos, unk, pad, then the extra ones): one the
       vocabulary has becomes special there; one it lacks is added after it with the next id, as
       transformers adds it (a tokenizer trained without <|endoftext|> and saved by GPT2TokenizerFast
       names it that way). ``note(key, **fields)`` is told what was added (default: a line on stderr).
    """
    path = Path(path)
    config = _tokenizer_config(path)
    config_file, json_file, vocab_file = path / "tokenizer_config.json", path / "tokenizer.json", path / "vocab.json"
    if json_file.is_file():  # 1)
        vocab, merges, added = _from_tokenizer_json(json_file)  # 2) its added_tokens
        where = json_file
    elif vocab_file.is_file() and (path / "merges.txt").is_file():
        vocab = read_json(vocab_file, _fix())
        merges, added, where = _merge_lines(path / "merges.txt"), {}, vocab_file
    else:
        raise NotFound(
            "gpt2.no_tokenizer",
            "{path} has no GPT-2 tokenizer: it needs vocab.json and "
            "merges.txt (or the tokenizers library's tokenizer.json). "
            "{fix}",
            path=path,
            fix=_fix(),
        )
    if not (isinstance(vocab, dict) and all(type(i) is int for i in vocab.values())):  # (true is no id)
        raise DamagedFile("gpt2.vocab_shape", "{path} is not a {{token: id}} object. {fix}", path=where, fix=_fix())
    decoder = config.get("added_tokens_decoder")
    decoder = {} if decoder is None else decoder  # ([] is no object of added tokens)
    if not isinstance(decoder, dict):
        raise _field_error(config_file, "added_tokens_decoder", decoder, "object")
    for i, d in decoder.items():  # 2)
        special = _plain_added_token(d, config_file)
        if not i.isdecimal():  # (a JSON object's keys are strings; these must spell ids)
            raise _field_error(config_file, f"added_tokens_decoder[{i!r}]", i, "id")
        if added.setdefault(int(i), special) != special:
            raise DamagedFile(
                "gpt2.id_twice",
                "{path}: id {id} is both {token!r} and the special token {special!r}. {fix}",
                path=config_file,
                id=i,
                token=added[int(i)],
                special=special,
                fix=_fix(),
            )
    appended = _named_specials(config, vocab, added, config_file)  # 3)
    tokens = _tokens_in_id_order(vocab, added, where)
    try:
        tokenizer = GPT2BPETokenizer(tokens, merges, list(added.values()))
    except ValueError as e:
        raise DamagedFile(
            "gpt2.tokenizer_invalid", "{path}: {problem} {fix}", path=where, problem=e, fix=_fix()
        ) from None
    if appended:  # said once the tables are known good: a refusal is then the only line
        shown = ", ".join(map(repr, appended.values()))
        (note or _note)(
            N_(
                "note: {path} names {tokens} as special, and the vocabulary "
                "lacks them: transformers adds them after it with the next "
                "ids ({first}..{last}), and so does this import."
            ),
            path=config_file,
            tokens=shown,
            first=min(appended),
            last=max(appended),
        )
    return tokenizer


def _field_error(path: Path, field: str, value: Any, want: str) -> DamagedFile:
    """A field of a tokenizer file holding a value of the wrong kind: its name, what it holds, what
    it should (`want`: a kind of tokenizers.WANTS)."""
    return DamagedFile(
        "gpt2.field",
        "{path}: {field} holds {found} {shown}, not {want}. {fix}",
        path=path,
        field=field,
        found=JSON_TYPES.get(type(value), "object"),
        shown=repr(value)[:40],
        want=t(WANTS[want]),
        fix=_fix(),
    )


def _fix() -> str:
    """How to get a tokenizer file back (the end of every message about a damaged one)."""
    return t("It comes with the model (save_pretrained writes it); copy it again from the model's source.")


# the options of tokenizer_config.json that change the ids, and what each does
ID_OPTIONS = {
    "add_prefix_space": N_("a space is put before the text"),
    "add_bos_token": N_("a <BOS> id is put before the text"),
}


def _tokenizer_config(path: Path) -> dict:
    """tokenizer_config.json (empty if absent), refusing options that change the ids."""
    file = path / "tokenizer_config.json"
    config = read_json(file, _fix()) if file.is_file() else {}
    if not isinstance(config, dict):
        raise DamagedFile("gpt2.not_object", "{path} is not a JSON object. {fix}", path=file, fix=_fix())
    for option, what in ID_OPTIONS.items():
        if config.get(option):
            raise UsageError(
                "gpt2.tokenizer_option",
                "{path} has {option}=true ({what}), which glassformer's "
                "GPT-2 tokenizer does not do; its ids would differ. Set it "
                "to false in that file, or import a model saved without it.",
                path=file,
                option=option,
                what=t(what),
            )
    return config


def _merge_lines(file: Path) -> list[tuple[str, str]]:
    merges = []
    for n, line in enumerate(read_text(file, _fix(), allow_empty=True).split("\n"), 1):  # not splitlines: \x85 ...
        line = line.removesuffix("\r")
        if not line or (n == 1 and line.startswith("#version")):
            continue
        pair = line.split(" ")
        if len(pair) != 2:
            raise DamagedFile(
                "gpt2.merge_line",
                "{path} line {n} is {line!r}, not two tokens separated by one space. {fix}",
                path=file,
                n=n,
                line=line,
                fix=_fix(),
            )
        merges.append((pair[0], pair[1]))
    return merges


def _named_specials(config: dict, vocab: dict[str, int], added: dict[int, str], file: Path) -> dict[int, str]:
    """Step 3 of read_tokenizer_dir, into ``added``; returns {id: token} of the tokens it appended.

    The order is transformers': bos, eos, unk, pad, then ``extra_special_tokens`` (a list, or a dict's
    values; else the older ``additional_special_tokens``). Without a tokenizer_config.json: GPT-2's
    <|endoftext|> if the vocabulary has it (GPT2Tokenizer's default bos/eos/unk), nothing appended."""
    named: list[tuple[str, Any]] = []  # (the field it is read from, what it holds)
    if not config:
        named = [("<|endoftext|>", ENDOFTEXT)] if ENDOFTEXT in vocab else []
    else:
        key = "extra_special_tokens" if config.get("extra_special_tokens") is not None else "additional_special_tokens"
        extra = config.get(key) or []
        if not isinstance(extra, (dict, list)):
            raise _field_error(file, key, extra, "tokens")
        named = [(k, config.get(k)) for k in SPECIAL_KEYS]
        named += [(f"{key}[{i!r}]", x) for i, x in (extra.items() if isinstance(extra, dict) else enumerate(extra))]
    appended: dict[int, str] = {}
    next_id = max([*vocab.values(), *added, -1]) + 1
    for field, held in named:
        token = held.get("content") if isinstance(held, dict) else held
        if token is None:
            continue
        if not isinstance(token, str):  # a number or list where a special token's text belongs
            raise _field_error(file, field, token, "token")
        if token in added.values():
            continue
        if token in vocab:
            added[vocab[token]] = token
        else:
            added[next_id] = appended[next_id] = token
            next_id += 1
    return appended


def _note(key: str, **fields) -> None:
    """What an import did that the user did not write down: one line on stderr."""
    say(key, file=sys.stderr, **fields)


def _plain_added_token(d: dict, file: Path) -> str:
    """The token of an added-token entry, refusing one that is not a plain literal."""
    if not isinstance(d, dict) or not isinstance(d.get("content"), str):
        raise DamagedFile(
            "gpt2.added_shape",
            '{path}: an added token is not an object with a "content" string. {fix}',
            path=file,
            fix=_fix(),
        )
    token = d["content"]
    for flag in ("lstrip", "rstrip", "single_word"):
        if d.get(flag):
            raise UsageError(
                "gpt2.added_flag",
                "{path}: the added token {token!r} has {flag}=true, which "
                "changes how text around it is cut; glassformer matches "
                "special tokens literally only.",
                path=file,
                token=token,
                flag=flag,
            )
    return token


def _from_tokenizer_json(file: Path):
    """vocab, merges and added tokens of the library's tokenizer.json, if it is GPT-2's pipeline."""
    d = read_json(file, _fix())
    if not isinstance(d, dict):
        raise DamagedFile("gpt2.not_object", "{path} is not a JSON object. {fix}", path=file, fix=_fix())
    model, pre = d.get("model") or {}, d.get("pre_tokenizer") or {}
    for field, value in (("model", model), ("pre_tokenizer", pre)):
        if not isinstance(value, dict):
            raise _field_error(file, field, value, "object")
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
                "gpt2.pipeline",
                "{path} has {field}={found}, not GPT-2's {want}: its ids "
                "would differ from GPT-2's byte-level BPE. Import a GPT-2 "
                "tokenizer.",
                path=file,
                field=field,
                found=json_text(found),
                want=json_text(want),
            )
    if not isinstance(model.get("vocab"), dict) or not isinstance(model.get("merges"), list):
        raise DamagedFile(
            "gpt2.no_model_vocab", "{path} has no model.vocab object or model.merges list. {fix}", path=file, fix=_fix()
        )
    merges = []
    for rank, m in enumerate(model["merges"]):  # "a b" (tokenizers < 0.20) or ["a", "b"]
        if not (isinstance(m, str) or (isinstance(m, list) and all(isinstance(x, str) for x in m))):
            raise _field_error(file, f"model.merges[{rank}]", m, "merge")
        merges.append(tuple(m.split(" ")) if isinstance(m, str) else tuple(m))
    added = {}
    entries = d.get("added_tokens") or []
    if not isinstance(entries, list):
        raise _field_error(file, "added_tokens", entries, "strs")
    for n, d_tok in enumerate(entries):
        _plain_added_token(d_tok, file)
        if type(d_tok.get("id")) is not int:
            raise _field_error(file, f"added_tokens[{n}].id", d_tok.get("id"), "id")
        added[d_tok["id"]] = d_tok["content"]
    return model["vocab"], merges, added


def _tokens_in_id_order(vocab: dict[str, int], added: dict[int, str], where: Path) -> list[str]:
    """id -> token, for ids 0..N-1 with no hole; an added token may sit in the vocabulary or after it."""
    by_id = {i: token for token, i in vocab.items()}
    for i, special in added.items():
        if by_id.setdefault(i, special) != special:
            raise DamagedFile(
                "gpt2.id_twice",
                "{path}: id {id} is both {token!r} and the special token {special!r}. {fix}",
                path=where,
                id=i,
                token=by_id[i],
                special=special,
                fix=_fix(),
            )
    holes = sorted(set(range(len(by_id))) - by_id.keys())
    if holes or len(by_id) != len(vocab) + len(added.keys() - set(vocab.values())):
        raise DamagedFile(
            "gpt2.id_gaps",
            "{path}: the ids are not 0..{last} each used once (first gap: {gap}). {fix}",
            path=where,
            last=len(by_id) - 1,
            gap=holes[0] if holes else "?",
            fix=_fix(),
        )
    return [by_id[i] for i in range(len(by_id))]


def write_tokenizer_dir(tokenizer: GPT2BPETokenizer, path, max_len: int) -> None:
    """vocab.json, merges.txt and tokenizer_config.json: what GPT2Tokenizer.from_pretrained reads."""
    path = Path(path)
    vocab = {token: i for i, token in enumerate(tokenizer.tokens)}
    write_json_atomic(path / "vocab.json", vocab, ensure_ascii=False)
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
    write_json_atomic(path / "tokenizer_config.json", config, indent=2, ensure_ascii=False)
