"""Where the parameters are, what a forward pass costs, and how much memory activations take.

Data-flow order (``first_use``): views list things "in data-flow order" (token embedding before
positions before blocks before the head) without a table that says what that order is: they run the
model once on its own example input and note when each module is first called. Module registration
order is no substitute: GPT builds its token embedding after its blocks (so initial weights stay
reproducible), but uses it first.

Parameter table: one row per part of the model, in the order the forward pass uses them; the count
is COMPUTED from the model's real parameters and, beside it, a closed-form formula DERIVED from the
part's leaves (`derived_parts`: an nn.Linear(C, 3C) is `C·3C + 3C`, an nn.Embedding(V, C) `V·C`, a
LayerNorm `2C`, an RMSNorm `C`, a router `E·C`) in the config's letters (inspect/formula.py) is
evaluated from the config's sizes. A row whose two numbers differ is marked "≠": the formula and
the code disagree, and one of them is wrong. Parameters no formula covers get a row of their own
marked "?". What a part is, in words, is the glossary's `formula.<id>` (messages/glossary.py),
found by the part's name or its class.

FLOPs per token (Kaplan et al. 2020, "Scaling Laws for Neural Language Models", Table 1):

    forward ≈ 2·N + 2·n_layers·T·C      N = non-embedding parameters (every multiply-add of a
                                        weight is 2 FLOPs); the second term is QKᵀ and A·V,
                                        averaged over a causal context of T tokens (a query
                                        sees T/2 keys on average; bidirectional: all T, so 4·)
    training ≈ 3 × forward              backward costs about twice the forward
                                        (PaLM, Chowdhery et al. 2022, Appendix B: 6N + 12·L·H·Q·T,
                                        which counts the full T×T square: twice our attention term)

Kaplan leaves out the output head ("de-embedding", 2·C·V), which in a tiny model is often the
largest matmul; we show it as its own term. The hand-written attention computes the full T×T
square and masks it afterwards, so it executes `attention_full` = 4·n_layers·T·C per token.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import torch
from torch import nn

from glassformer.config import ModelConfig, with_kind
from glassformer.inspect.display import PARAM_COLUMNS, params_html
from glassformer.inspect.formula import ParamFormula, evaluate
from glassformer.inspect.words import letter_order, meaning
from glassformer.messages import N_, in_language, language, pad, pad_left, t, translated
from glassformer.models.gpt import LearnedPositions
from glassformer.nn.hooks import HookPoint
from glassformer.nn.mla import LatentAttention
from glassformer.nn.moe import Router
from glassformer.nn.rmsnorm import RMSNorm


def first_use(model) -> dict[str, int]:
    """Module path -> when the forward pass first called it (0, 1, 2 ...)."""
    order: dict[str, int] = {}

    def seen(path: str) -> None:
        order.setdefault(path, len(order))  # returns None: a pre-hook that returned a value would replace the input

    handles = [
        m.register_forward_pre_hook(lambda mod, args, path=path: seen(path))
        for path, m in model.named_modules()
        if path
    ]
    was_training = model.training
    try:
        with torch.no_grad():
            x = model.example_input(1, 2)  # a tensor, or a tuple of tensors (an encoder-decoder's)
            model.eval()(*x) if isinstance(x, tuple) else model.eval()(x)
    finally:
        model.train(was_training)
        for h in handles:
            h.remove()
    return order


@dataclass
class ParamRow:
    module: str
    count: int  # computed from the model's parameters
    formula: str  # e.g. "C·3C + 3C", as the module declares it
    expected: int  # the formula evaluated with the module's sizes
    note: str = ""
    note_zh: str = ""  # the note in Chinese, where the module declares one

    def note_in(self, lang: str) -> str:
        """The note in `lang`; a note with no Chinese ("C -> F") is the same in both."""
        return self.note_zh if lang == "zh" and self.note_zh else self.note


@dataclass
class ParamTable:
    rows: list[ParamRow] = field(default_factory=list)
    symbols: dict[str, int] = field(default_factory=dict)  # every letter the formulas use, and its value

    @property
    def total(self) -> int:
        return sum(r.count for r in self.rows)

    @property
    def expected_total(self) -> int:
        return sum(r.expected for r in self.rows)

    @property
    def matches(self) -> bool:
        return all(r.count == r.expected for r in self.rows)

    def to_text(self, lang: str | None = None) -> str:
        """Aligned plain-text table; its words in `lang` ("en" or "zh"; default: the process's language)."""
        w = max(len(r.module) for r in self.rows)
        f = max(len(r.formula) for r in self.rows)
        with in_language(lang):
            head = [t(k) for k in PARAM_COLUMNS]
            lines = [
                f"{pad(head[0], w)}  {pad_left(head[1], 10)}  {pad(head[2], f)}  {pad_left(head[3], 10)}  {head[4]}",
                "-" * (w + f + 36),
            ]
            for r in self.rows:
                mark = "" if r.count == r.expected else "  " + t("≠ formula!")
                lines.append(
                    f"{r.module:<{w}}  {r.count:>10,}  {r.formula:<{f}}  {r.expected:>10,}  "
                    f"{r.note_in(language())}{mark}"
                )
            symbols = ", ".join(f"{k}={v} ({meaning(k, language())})" for k, v in self.symbols.items())
            lines += [
                "-" * (w + f + 36),
                f"{pad(t('total'), w)}  {self.total:>10,}  {'':<{f}}  {self.expected_total:>10,}",
                t("symbols: {symbols}", symbols=symbols),
            ]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()

    __repr__ = __str__  # a terminal shows the aligned table, not the dataclass fields

    def _repr_html_(self) -> str:  # Jupyter's rich display
        return params_html(self)


def _build(cfg_or_model, kind: str | None):
    """The model itself, or one built from a config (`kind`, when given, replaces cfg.kind)."""
    if isinstance(cfg_or_model, ModelConfig):
        from glassformer.models import build_model

        return build_model(with_kind(cfg_or_model, kind) if kind else cfg_or_model)
    return cfg_or_model


# the letters a size may be written in, in the order tried: the config's own, then multiples of C
def _letters(cfg: ModelConfig) -> dict:
    letters = {"C": cfg.d_model, "F": cfg.d_ff, "D": cfg.d_head, "V": cfg.vocab_size, "d_in": cfg.d_in}
    letters.update(d_out=cfg.d_out, L=cfg.max_len, H=cfg.n_heads)
    if cfg.kv_heads != cfg.n_heads:  # grouped or multi-query attention: the key-value heads have a letter
        letters["H_kv"] = cfg.kv_heads
    if cfg.ffn == "moe":  # E experts; their width F_e where it is not d_ff (F: the dense blocks' FFN, moe_first_dense)
        letters["E"] = cfg.n_experts
        if cfg.expert_d_ff != cfg.d_ff:
            letters["F_e"] = cfg.expert_d_ff
    if cfg.mla_kv_rank:  # latent attention's sizes (nn/mla.py): the latents' ranks, a head's parts
        letters.update(
            R_kv=cfg.mla_kv_rank, R_q=cfg.mla_q_rank, D_n=cfg.mla_d_nope, D_r=cfg.mla_d_rope, D_v=cfg.mla_d_v
        )
    return {k: v for k, v in letters.items() if v > 0}


# nn/mla.py's projections (in, out) in the letters of DeepSeek-V2's equations 9-19: their values alone
# would not tell them apart (baby-mla's R_kv, D_n and D_v are all 32)
LATENT = {
    "q_proj": ("C", "(H·(D_n + D_r))"),
    "q_down": ("C", "R_q"),
    "q_up": ("R_q", "(H·(D_n + D_r))"),
    "kv_down": ("C", "(R_kv + D_r)"),
    "kv_up": ("R_kv", "(H·(D_n + D_v))"),
    "proj": ("(H·D_v)", "C"),
}


def _latent(name: str, module: nn.Module, letters: dict) -> tuple[str, dict[str, int]] | None:
    """A latent attention's projection `name` written as LATENT says, when its sizes are those; else None."""
    if name not in LATENT or not isinstance(module, nn.Linear):
        return None
    n_in, n_out = LATENT[name]
    symbols = {k: letters.get(k, 0) for k in re.findall(r"[A-Z](?:_[a-z]+)?", n_in + n_out)}
    if evaluate(n_in, symbols) != module.in_features or evaluate(n_out, symbols) != module.out_features:
        return None
    return f"{n_in}·{n_out}" + (f" + {n_out}" if module.bias is not None else ""), symbols


def _head_width(n: int, letters: dict) -> tuple[str, dict[str, int]] | None:
    """A size written in heads when the heads are not C's plain split (H_kv key-value heads, or a
    head width set apart, H·D ≠ C), inside a module whose hook points declare D: the query heads
    H·D, the packed q, k, v (H + 2·H_kv)·D (3·H·D without H_kv), the key-value heads H_kv·D. None:
    the heads are C's split (GPT-2's "C·3C" stays), or no such size."""
    H, D, C = letters.get("H", 0), letters.get("D", 0), letters["C"]
    if not (H and D and "D" in letters.get("declared", ())) or ("H_kv" not in letters and H * D == C):
        return None
    H_kv = letters.get("H_kv", 0)
    forms = [("H·D", H * D, {"H": H, "D": D})]
    if H_kv:
        forms += [("(H + 2·H_kv)·D", (H + 2 * H_kv) * D, {"H": H, "H_kv": H_kv, "D": D})]
        forms += [("H_kv·D", H_kv * D, {"H_kv": H_kv, "D": D}), ("2·H_kv·D", 2 * H_kv * D, {"H_kv": H_kv, "D": D})]
    else:
        forms += [("3·H·D", 3 * H * D, {"H": H, "D": D}), ("2·H·D", 2 * H * D, {"H": H, "D": D})]
    return next(((text, sizes) for text, size, sizes in forms if size == n), None)


def _size(n: int, letters: dict, prefer: tuple[str, ...] = ()) -> tuple[str, dict[str, int]]:
    """A size written in letters: the first of `prefer`, then of the letters the owning module's hook
    points declare (`letters["declared"]`), whose value it is; else in heads (`_head_width`, where the
    heads are not C's split); else a multiple of C (3C); else any
    letter of that value; else a sum or product of letters (`_combined`). A size no letter writes
    raises Unwritten: its part is in no formula."""
    declared = [k for k in letters if k in letters.get("declared", ())]  # in the letters' own order
    for k in (*prefer, *declared):
        if letters.get(k) == n:
            return k, {k: n}
    heads = _head_width(n, letters)
    if heads is not None:
        return heads
    C = letters["C"]
    if n % C == 0 and n > C:
        return f"{n // C}C", {"C": C}
    for k, v in letters.items():
        if v == n:
            return k, {k: n}
    return _combined(n, letters)


def _combined(n: int, letters: dict) -> tuple[str, dict[str, int]]:
    """A size made of letters, in parentheses so that a product reads it as one factor, tried in this
    order: H of one (H·D_v), H of a sum (H·(D_n + D_r)), a multiple of a letter the owner's hook points
    declare (2F), a sum (R_kv + D_r): MLA's projections, shared experts."""
    sizes = {k: v for k, v in letters.items() if k != "declared"}
    H = sizes.pop("H", 0)
    pairs = [(a, b) for i, a in enumerate(sizes) for b in list(sizes)[i + 1 :]]
    for k, v in sizes.items():
        if H and H * v == n:
            return f"(H·{k})", {"H": H, k: v}
    for a, b in pairs:
        if H and H * (sizes[a] + sizes[b]) == n:
            return f"(H·({a} + {b}))", {"H": H, a: sizes[a], b: sizes[b]}
    for k in letters.get("declared", ()):
        if sizes.get(k) and n % sizes[k] == 0 and n > sizes[k]:
            return f"{n // sizes[k]}{k}", {k: sizes[k]}
    for a, b in pairs:
        if sizes[a] + sizes[b] == n:
            return f"({a} + {b})", {a: sizes[a], b: sizes[b]}
    raise Unwritten(n)


class Unwritten(ValueError):
    """A size the config's letters do not write: the part it belongs to is counted as unknown ("?")."""


def _leaf(module: nn.Module, letters: dict, rows: tuple[str, ...] = ("V",)) -> tuple[str, dict[str, int]] | None:
    """(formula, symbols) of one leaf, or None for a module that is no leaf; `rows`: the letter an
    Embedding's rows are tried as first (a token table's V, a position table's L)."""
    if isinstance(module, nn.Linear):
        reads = {k: v for k, v in letters.items() if k != "d_out"}  # numbers come in as d_in, go out as d_out
        writes = {k: v for k, v in letters.items() if k != "d_in"}
        (n_in, a), (n_out, b) = _size(module.in_features, reads), _size(module.out_features, writes)
        return f"{n_in}·{n_out}" + (f" + {n_out}" if module.bias is not None else ""), {**a, **b}
    if isinstance(module, nn.Embedding):
        (n, a), (C, b) = _size(module.num_embeddings, letters, rows), _size(module.embedding_dim, letters)
        return f"{n}·{C}", {**a, **b}
    if isinstance(module, nn.LayerNorm):
        C, a = _size(module.normalized_shape[-1], letters)
        return (f"2{C}" if module.bias is not None else C), a
    if isinstance(module, RMSNorm):  # a gain per feature of the axis it normalises (C, or D for a head)
        return _size(module.weight.numel(), letters, (module.axes.split()[-1],))
    if isinstance(module, Router):  # W_r: one row per expert
        (E, a), (C, b) = _size(module.n_experts, letters, ("E",)), _size(module.weight.size(1), letters)
        return f"{E}·{C}", {**a, **b}
    return None


def _has_params(module: nn.Module) -> bool:
    return next(module.parameters(), None) is not None


def _part(module: nn.Module, letters: dict) -> tuple[str, dict[str, int]] | None:
    """A part's formula: a leaf; a wrapper of one leaf (a token or position table); n copies of one
    leaf-only module (`_copies`: H heads, E experts); a part with nothing to learn (an identity
    norm, a position scheme's fixed table or angles): "0". None: a part made of parts (a block)."""
    leaf = _leaf(module, letters)
    if leaf is not None:
        return leaf
    if not _has_params(module):
        return None if isinstance(module, nn.ModuleList) else ("0", {})
    inner = [c for c in module.children() if _has_params(c)]
    if not list(module.parameters(recurse=False)) and len(inner) == 1 and isinstance(inner[0], nn.Embedding):
        return _leaf(inner[0], letters, ("L",) if isinstance(module, LearnedPositions) else ("V",))
    return _copies(module, letters) if isinstance(module, nn.ModuleList) else None


def _copies(module: nn.ModuleList, letters: dict) -> tuple[str, dict[str, int]] | None:
    """n copies of one module made of leaves (its hook points aside), each the same formulas: H heads'
    q, k, v `H·3(C·D + D)`; E experts' gate, up, down `E·(C·F + C·F + F·C)`. None: anything else."""
    leaves = (nn.Linear, nn.Embedding, nn.LayerNorm, RMSNorm)
    items = [[c for c in m.children() if not isinstance(c, HookPoint)] for m in module]
    if not items[0] or not all(isinstance(c, leaves) for item in items for c in item):
        return None
    each = [[_leaf(c, letters) for c in item] for item in items]
    if any(e != each[0] for e in each):
        return None
    formulas = [f for f, _ in each[0]]  # type: ignore[misc]
    symbols = {k: v for _, sizes in each[0] for k, v in sizes.items()}  # type: ignore[misc]
    experts = any("N_e" in h.axes.split() for h in module[0].children() if isinstance(h, HookPoint))
    n, copies = _size(len(module), letters, ("E",) if experts else ("H",))  # copies of an expert: E, else heads
    body = f"{len(formulas)}({formulas[0]})" if len(set(formulas)) == 1 else f"({' + '.join(formulas)})"
    return f"{n}·{body}", {**copies, **symbols}


# what a part of the parameter table is, by its id: its name ("qkv"; "cross.q" under its parent; "ln.none"
# for a norm with nothing to learn; "head.tied" for a tied one) or its class's name ("ALiBi")
FORMULA_WORDS: dict[str, str] = {
    "experts": N_("E experts, each its own gate, up and down"),
    "ln.none": N_("norm='none': identity"),
    "qkv": N_("Q, K, V for all heads at once"),
    "heads": N_("H heads × (q, k, v)"),
    "proj": N_("merged heads -> residual"),
    "cross.q": N_("queries from the target stream"),
    "cross.kv": N_("keys and values from the source"),
    "tok_embed": N_("one C-vector per token"),
    "src_embed": N_("one C-vector per token"),
    "pos_embed": N_("one C-vector per position"),
    "head.tied": N_("tied: reuses {table}'s V·C matrix, 0 new parameters"),
    "head": N_("C -> one score per token"),
    "ln_final.none": N_("no final norm"),
    "enc_ln_final.none": N_("no final norm"),
    "dec_ln_final.none": N_("no final norm"),
    "in_proj": N_("numbers -> width C"),
    "out_proj": N_("width C -> numbers"),
    "tgt_embed.tied": N_("shared: reuses {table}'s V·C table"),
    "tgt_embed": N_("one C-vector per target token"),
    "Router": N_("one row of W_r per expert"),
    "RotaryPositions": N_("rotation angles p·θ_i are computed, not learned"),
    "ALiBi": N_("fixed slopes m_h: a buffer, not a parameter"),
    "SinusoidalPositions": N_("fixed sin/cos table: a buffer, not a parameter"),
    "RMSNorm": N_("a gain per feature; no shift"),
    "ScaledRotary": N_("angles p·θ'_i are computed from the base and the scaling, not learned"),
}
NOTES = set(FORMULA_WORDS.values())  # a part's note that is a sentence to look up, not letters ("C -> F")


def _note(path: str, module: nn.Module, formula: str, tied: str | None) -> tuple[str, dict]:
    """The glossary key of what a part is (FORMULA_WORDS), tried by name, then by class; a Linear
    no entry names is described by its letters ("C -> F")."""
    parent, _, leaf = path.rpartition(".")
    leaf_kind = leaf.rstrip("0123456789")
    if tied is not None:
        return FORMULA_WORDS[f"{leaf}.tied"], {"table": tied}  # an id, not a key
    classes = [c.__name__ for c in type(module).__mro__]
    if formula == "0":  # nothing to learn: a norm the config has none of, a fixed table
        ids = [f"{leaf_kind}.none", *classes]  # an id, not a key
    else:
        ids = [f"{parent.rpartition('.')[2]}.{leaf}", leaf_kind, *classes]  # an id, not a key
    for name in ids:
        if name in FORMULA_WORDS:
            return FORMULA_WORDS[name], {}
    if isinstance(module, nn.Linear):  # "C·(R_kv + D_r) + (R_kv + D_r)": "C -> R_kv + D_r"
        terms = [t.removeprefix("(").removesuffix(")") for t in _outside(_outside(formula, " + ")[0], "·")]
        return f"{terms[0]} -> {terms[1]}", {}
    return "", {}


def _outside(text: str, sep: str) -> list[str]:
    """`text` split at each `sep` outside parentheses."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        depth += (c == "(") - (c == ")")
        if depth == 0 and text.startswith(sep, i) and i >= start:
            parts.append(text[start:i])
            start = i + len(sep)
    return [*parts, text[start:]]


def derived_parts(model: nn.Module, letters: dict[str, int] | None = None) -> list[tuple[str, ParamFormula]]:
    """(path, formula) for every part of the model, walking the module tree from the top, each
    formula derived from the part's leaves in the config's letters; a part that shares its matrix
    with one before it (a tied head) counts 0 and says whose it reuses. `letters`: the sizes' letters
    for a module with no config (a bare RMSNorm: {"C": 64}); a module that is one part is path ""."""
    letters = _letters(model.cfg) if letters is None else letters
    seen: dict[int, str] = {}  # parameter id -> the latest part (module order) that holds it
    parts: list[tuple[str, ParamFormula]] = []

    def walk(module: nn.Module, prefix: str) -> None:
        for name, child in module.named_children():
            if not isinstance(child, (HookPoint, nn.Dropout)):
                visit(child, f"{prefix}.{name}" if prefix else name, module)

    def visit(child: nn.Module, path: str, owner: nn.Module) -> None:
        here = [h.axes.split() for h in owner.children() if isinstance(h, HookPoint)]
        latent = _latent(path.rpartition(".")[2], child, letters) if isinstance(owner, LatentAttention) else None
        try:
            found = latent or _part(child, {**letters, "declared": [k for axes in here for k in axes]})
        except Unwritten:
            return  # a part the config does not describe: its parameters get "?" rows
        if found is None:
            walk(child, path)
        else:
            formula, symbols = found
            ids = [id(p) for p in child.parameters()]
            tied = seen.get(ids[0]) if ids and all(i in seen for i in ids) else None
            if tied is not None:
                formula, symbols = "0", {}
            seen.update((i, path) for i in ids)  # the latest part that holds it: whose table a tie names
            note, fields = _note(path, child, formula, tied)
            parts.append((path, ParamFormula(path, formula, symbols, note, fields)))

    visit(model, "", model)  # a model is made of parts; a bare norm or router is one
    return parts


def _words(part: ParamFormula, lang: str) -> str:
    """A part's note in `lang`: its glossary entry with its fields, or its letters as they are."""
    if part.note in NOTES:
        return translated(part.note, lang).format(**part.fields)
    return part.note


def param_table(cfg_or_model, kind: str | None = None) -> ParamTable:
    """Rows per declared part, in data-flow order. A ModelConfig is built first (`kind` overrides
    its kind); a model given directly is counted as it is."""
    model = _build(cfg_or_model, kind)
    order = first_use(model)

    def rank(path: str) -> int:
        return min((i for p, i in order.items() if p == path or p.startswith(path + ".")), default=len(order))

    params = dict(model.named_parameters(remove_duplicate=False))
    seen: set[int] = set()  # a tied matrix counts once, in the first row (in data-flow order) that owns it

    def claim(prefix: str) -> int:
        mine = [p for name, p in params.items() if name.startswith(prefix + ".") and id(p) not in seen]
        seen.update(id(p) for p in mine)
        return sum(p.numel() for p in mine)

    rows, symbols = [], {}
    for path, part in sorted(derived_parts(model), key=lambda item: rank(item[0])):
        note, zh = _words(part, "en"), _words(part, "zh")
        rows.append(ParamRow(path, claim(path), part.formula, part.value(), note, zh if zh != note else ""))
        symbols.update(part.symbols)
    for name, p in params.items():  # parameters no formula knows about
        if id(p) not in seen:
            seen.add(id(p))
            unknown = [
                translated(N_("not in any formula"), lang) for lang in ("en", "zh")
            ]  # a row keeps both languages
            rows.append(ParamRow(name.rsplit(".", 1)[0], p.numel(), "?", 0, *unknown))
    return ParamTable(rows, {k: symbols[k] for k in sorted(symbols, key=_letter_order)})


@dataclass
class KVCachePerToken:
    """Bytes one token adds to a decoder's key-value cache in float32 (nn/mla.kv_cache_bytes_per_token),
    for this model's layers and head width, as multi-head, grouped-query and multi-query attention
    would keep it. gqa_heads: the H_kv of the GQA column (the model's own when it groups; else the
    largest proper divisor of H, or 0 where H has none and GQA is MHA or MQA). `mine`: the model's own
    cache, at its H_kv, or, for multi-head latent attention, its latent and rotary key (R_kv + D_r)."""

    n_layers: int
    D: int
    H: int
    H_kv: int  # the model's own
    gqa_heads: int
    mha: int
    gqa: int
    mqa: int
    mine: int  # what this model's cache keeps


def kv_cache_per_token(cfg: ModelConfig) -> KVCachePerToken:
    """MHA / GQA / MQA side by side for `cfg`'s decoder (n_layers, H, D); `mine` at its H_kv, or MLA's
    latent sizes where it has them (an MLA cache holds no per-head key or value)."""
    from glassformer.nn.mla import kv_cache_bytes_per_token

    L, H, D, H_kv = cfg.n_layers, cfg.n_heads, cfg.d_head, cfg.kv_heads
    grouped = [d for d in range(H - 1, 1, -1) if H % d == 0]  # H_kv strictly between MQA and MHA
    gqa_heads = H_kv if 1 < H_kv < H else (grouped[0] if grouped else 0)
    gqa = kv_cache_bytes_per_token("gqa", L, n_heads=H, n_kv_heads=gqa_heads, d_head=D) if gqa_heads else 0
    if cfg.mla_kv_rank:  # the latent c_kv and the shared rotary key
        mine = kv_cache_bytes_per_token("mla", L, kv_rank=cfg.mla_kv_rank, d_rope=cfg.mla_d_rope)
    else:
        mine = kv_cache_bytes_per_token("gqa", L, n_heads=H, n_kv_heads=H_kv, d_head=D)
    return KVCachePerToken(
        L,
        D,
        H,
        H_kv,
        gqa_heads,
        kv_cache_bytes_per_token("mha", L, n_heads=H, d_head=D),
        gqa,
        kv_cache_bytes_per_token("mqa", L, d_head=D),
        mine,
    )


CACHE_KINDS = ("mha", "gqa", "mqa", "mla")  # the attentions whose caches kv_cache_table measures
PREFILL = 8  # tokens kv_cache_table prefills (at most max_len): enough to see bytes grow per token


@dataclass
class CacheMeasure:
    """One attention's cache, measured: `measured` bytes a token adds (a real cache's bytes after a
    prefill of T tokens, / T) beside `formula` (nn/mla.kv_cache_bytes_per_token of `sizes`)."""

    kind: str  # "mha" | "gqa" | "mqa" | "mla"
    sizes: dict  # the sizes the formula reads (n_heads, n_kv_heads, d_head; kv_rank, d_rope)
    measured: int
    formula: int


def cache_variants(cfg: ModelConfig) -> dict[str, ModelConfig]:
    """cfg's decoder with each attention of CACHE_KINDS, everything else kept: MHA (H_kv = H), GQA
    (the H_kv of kv_cache_per_token; left out where H has no proper divisor above 1), MQA (H_kv = 1)
    and MLA (cfg's own latent sizes; else DeepSeek-V2's proportions to the head, R_kv = 4·D capped at C,
    D_r = D/2, D_n = D_v = D; RoPE, which MLA needs)."""
    from dataclasses import replace

    from glassformer.config import MLA_EXCLUDES, MLA_FIELDS

    plain = replace(cfg, **MLA_FIELDS) if cfg.mla_kv_rank else cfg
    D, gqa = cfg.d_head, kv_cache_per_token(cfg).gqa_heads
    variants = {"mha": replace(plain, n_kv_heads=0)}
    if gqa:
        variants["gqa"] = replace(plain, n_kv_heads=gqa)
    variants["mqa"] = replace(plain, n_kv_heads=1)
    own = {name: getattr(cfg, name) for name in MLA_FIELDS}
    sizes = own if cfg.mla_kv_rank else {"mla_kv_rank": min(4 * D, cfg.d_model), "mla_q_rank": 0}
    if not cfg.mla_kv_rank:
        sizes |= {"mla_d_nope": D, "mla_d_rope": max(2, D // 4 * 2), "mla_d_v": D}
    rope = {} if cfg.position == "rope" else {"position": "rope"}
    variants["mla"] = replace(cfg, **MLA_EXCLUDES, **sizes, **rope)
    return variants


def kv_cache_table(cfg: ModelConfig, T: int = PREFILL) -> list[CacheMeasure]:
    """Each attention of cache_variants(cfg), built in float32, prefilled with T tokens (at most
    max_len) into its own cache (model.new_cache): the bytes the cache holds, per token, beside the
    formula's. Only a decoder keeps a cache (kind gpt)."""
    from glassformer.models import build_model
    from glassformer.nn.mla import kv_cache_bytes_per_token

    T = min(T, cfg.max_len)
    rows = []
    for kind, variant in cache_variants(cfg).items():
        model = build_model(variant).eval()
        cache = model.new_cache(1)
        with torch.no_grad():
            model(model.example_input(1, T), cache=cache)  # (1, T, V): the prefill fills the cache
        if kind == "mla":
            sizes = {"kv_rank": variant.mla_kv_rank, "d_rope": variant.mla_d_rope}
        else:
            sizes = {"n_heads": variant.n_heads, "n_kv_heads": variant.kv_heads, "d_head": variant.d_head}
        formula_kind = "gqa" if kind != "mla" else "mla"  # MHA and MQA are GQA with H_kv = H and 1
        rows.append(
            CacheMeasure(
                kind, sizes, cache.nbytes() // T, kv_cache_bytes_per_token(formula_kind, variant.n_layers, **sizes)
            )
        )
    return rows


def _letter_order(letter: str) -> int:
    return letter_order(letter)


@dataclass
class FlopEstimate:
    T: int
    non_embedding_params: int  # N: the parameters of the blocks and the final norm
    params_term: int  # 2·N
    attention_term: int  # 2·n_layers·T·C causal (Kaplan: QKᵀ and A·V), 4·n_layers·T·C bidirectional
    head_term: int  # 2·C·V (or 2·C·d_out)
    attention_full: int  # 4·n_layers·T·C: what the full-square hand-written path executes

    @property
    def forward(self) -> int:
        return self.params_term + self.attention_term + self.head_term

    @property
    def training(self) -> int:
        return 3 * self.forward


def flops_per_token(cfg_or_model, T: int, kind: str | None = None) -> FlopEstimate:
    model = _build(cfg_or_model, kind)
    cfg = model.cfg
    n = sum(p.numel() for p in model.blocks.parameters()) + sum(p.numel() for p in model.ln_final.parameters())
    full = 4 * cfg.n_layers * T * cfg.d_model  # QKᵀ and A·V over the whole T×T square, 2 FLOPs a multiply-add
    head = cfg.d_model * model.n_outputs
    return FlopEstimate(T, n, 2 * n, full // 2 if cfg.causal else full, 2 * head, full)


def activation_memory(
    cfg_or_model, B: int, T: int, bytes_per_value: int = 4, kind: str | None = None
) -> dict[str, int]:
    """Values held for one forward pass of B sequences of T tokens, counted per hook point:
    exactly what `run_with_cache` would keep. Autograd saves a similar but not identical set
    (e.g. dropout masks, pre-activation FFN inputs); the T² terms (scores, weights) are the
    ones that grow fastest. With attention='fused' those two are never formed and are skipped.

    Measured, not guessed: one forward pass of a single sequence of T tokens, then every hook
    whose declared axes start with B scaled by B. Returns {hook name: values, ...,
    "total_values": n, "total_bytes": n·bytes_per_value}."""
    model = _build(cfg_or_model, kind)
    points = model.hook_points()
    was_training = model.training
    try:
        with torch.no_grad():
            x = model.example_input(1, T)  # a tensor, or a tuple of tensors (an encoder-decoder's)
            _, cache = model.eval().run_with_cache(*x) if isinstance(x, tuple) else model.eval().run_with_cache(x)
    finally:
        model.train(was_training)
    out = {name: t.numel() * (B if points[name].axes.split()[0] == "B" else 1) for name, t in cache.items()}
    total = sum(out.values())
    return {**out, "total_values": total, "total_bytes": total * bytes_per_value}
