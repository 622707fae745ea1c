"""The letters every shape comment, hook declaration and parameter formula uses, with what they
mean (English, 中文). nn/__init__.py states the notation in prose; this is the same legend as data,
so the views (trace table, parameter table, explorer) print it instead of retyping it.

A new letter (say `S` for a source sentence's length) is added here once; a letter missing from
this table still works everywhere, it is only shown without an explanation.
"""

from __future__ import annotations

LETTERS: dict[str, tuple[str, str]] = {
    "B": ("batch", "批大小"),
    "T": ("sequence length", "序列长度"),
    "T_q": ("queries", "查询数"),
    "T_k": ("keys", "键数"),
    "S": ("source length", "源序列长度"),
    "C": ("d_model", "模型宽度 d_model"),
    "H": ("heads", "头数"),
    "D": ("d_head", "每头宽度 d_head"),
    "F": ("d_ff", "前馈隐藏宽度 d_ff"),
    "V": ("vocab_size", "词表大小"),
    "L": ("max_len", "最大长度 max_len"),
    "d_in": ("numbers per input step", "每步输入的数值个数"),
    "d_out": ("numbers per output step", "每步输出的数值个数"),
}


def meaning(letter: str, lang: str = "en") -> str:
    """What a letter stands for, or "?" for a letter nobody has explained yet."""
    en, zh = LETTERS.get(letter, ("?", "?"))
    return zh if lang == "zh" else en
