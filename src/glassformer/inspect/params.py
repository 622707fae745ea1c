"""Where the parameters are, what a forward pass costs, and how much memory activations take.

Data-flow order (``first_use``): views list things "in data-flow order" (token embedding before
positions before blocks before the head) without a table that says what that order is: they run the
model once on its own example input and note when each module is first called. Module registration
order is no substitute: GPT builds its token embedding after its blocks (so initial weights stay
reproducible), but uses it first.

Parameter table: one row per part that a module declares a formula for (nn/formula.py), in the
order the forward pass uses them; the count is COMPUTED from the model's real parameters and,
beside it, the module's own closed-form formula is evaluated from its sizes. A row whose two
numbers differ is marked "≠": the formula and the code disagree, and one of them is wrong.
Parameters no formula covers get a row of their own marked "?".

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

from dataclasses import dataclass, field

import torch

from glassformer.config import ModelConfig, with_kind
from glassformer.inspect.display import params_html
from glassformer.messages import TABLES, in_language, language, pad, pad_left, t
from glassformer.nn.formula import ParamFormula
from glassformer.nn.hooks import LETTERS, meaning


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
            head = [t(f"params.col.{c}") for c in ("module", "params", "formula", "expected", "note")]
            lines = [
                f"{pad(head[0], w)}  {pad_left(head[1], 10)}  {pad(head[2], f)}  {pad_left(head[3], 10)}  {head[4]}",
                "-" * (w + f + 36),
            ]
            for r in self.rows:
                mark = "" if r.count == r.expected else "  " + t("params.mismatch")
                lines.append(
                    f"{r.module:<{w}}  {r.count:>10,}  {r.formula:<{f}}  {r.expected:>10,}  "
                    f"{r.note_in(language())}{mark}"
                )
            symbols = ", ".join(f"{k}={v} ({meaning(k, language())})" for k, v in self.symbols.items())
            lines += [
                "-" * (w + f + 36),
                f"{pad(t('params.total_row'), w)}  {self.total:>10,}  {'':<{f}}  {self.expected_total:>10,}",
                t("params.symbols", symbols=symbols),
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


def declared_parts(model) -> list[tuple[str, ParamFormula]]:
    """(path, formula) for every part a module declares, walking the module tree from the top; a
    declared part's subtree is not walked again (its formula already covers it)."""
    parts, covered = [], []
    for path, module in model.named_modules():
        if any(path == c or path.startswith(c + ".") for c in covered):
            continue
        for part in getattr(module, "param_formulas", lambda: [])():
            full = ".".join(p for p in (path, part.part) if p)
            parts.append((full, part))
            covered.append(full)
    return parts


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
    for path, part in sorted(declared_parts(model), key=lambda item: rank(item[0])):
        rows.append(ParamRow(path, claim(path), part.formula, part.value(), part.note, part.zh))
        symbols.update(part.symbols)
    for name, p in params.items():  # parameters no formula knows about
        if id(p) not in seen:
            seen.add(id(p))
            unknown = [TABLES[lang]["formula.unknown"] for lang in ("en", "zh")]  # a row keeps both languages
            rows.append(ParamRow(name.rsplit(".", 1)[0], p.numel(), "?", 0, *unknown))
    return ParamTable(rows, {k: symbols[k] for k in sorted(symbols, key=_letter_order)})


def _letter_order(letter: str) -> int:
    return list(LETTERS).index(letter) if letter in LETTERS else len(LETTERS)


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
