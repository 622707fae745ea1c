"""Where the parameters are, what a forward pass costs, and how much memory activations take.

Parameter table: one row per module, the count COMPUTED from the model's real parameters and,
beside it, the closed-form formula evaluated separately from the config. A row whose two
numbers differ is marked "≠": the formula and the code disagree, and one of them is wrong.

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

import math
import re
from dataclasses import dataclass, field

from glassformer.config import ModelConfig
from glassformer.inspect.trace import STAGES


@dataclass
class ParamRow:
    module: str
    count: int  # computed from the model's parameters
    formula: str  # e.g. "C·3C + 3C"
    expected: int  # the formula evaluated from the config
    note: str = ""


@dataclass
class ParamTable:
    rows: list[ParamRow] = field(default_factory=list)
    symbols: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(r.count for r in self.rows)

    @property
    def expected_total(self) -> int:
        return sum(r.expected for r in self.rows)

    @property
    def matches(self) -> bool:
        return all(r.count == r.expected for r in self.rows)

    def to_text(self) -> str:
        w = max(len(r.module) for r in self.rows)
        f = max(len(r.formula) for r in self.rows)
        lines = [f"{'module':<{w}}  {'params':>10}  {'formula':<{f}}  {'= formula':>10}  note",
                 "-" * (w + f + 36)]
        for r in self.rows:
            mark = "" if r.count == r.expected else "  ≠ formula!"
            lines.append(f"{r.module:<{w}}  {r.count:>10,}  {r.formula:<{f}}  {r.expected:>10,}  "
                         f"{r.note}{mark}")
        lines += ["-" * (w + f + 36), f"{'total':<{w}}  {self.total:>10,}  {'':<{f}}  "
                  f"{self.expected_total:>10,}",
                  "symbols: " + ", ".join(f"{k}={v} ({SYMBOL_MEANING[k]})" for k, v in self.symbols.items()
                                          if any(re.search(rf"\b{k}\b", r.formula) for r in self.rows))]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()


def _build(cfg_or_model, kind: str | None):
    """The model itself, or one built from a config (kind None: gpt if causal, else encoder)."""
    if isinstance(cfg_or_model, ModelConfig):
        from glassformer.models import MODEL_KINDS

        kind = kind or ("gpt" if cfg_or_model.causal else "encoder")
        return MODEL_KINDS[kind](cfg_or_model)
    return cfg_or_model


def _show(formula: str) -> str:
    """Python arithmetic -> the way a formula is written: "C*3*C + 3*C" -> "C·3C + 3C"."""
    return re.sub(r"(\d)\*(?=[A-Za-z])", r"\1", formula).replace("*", "·")


def _spec(cfg: ModelConfig, regressor: bool) -> list[tuple[str, str, str]]:
    """(module, formula, note) for every module, in data-flow order, from the config alone."""
    b = cfg.bias
    ln = ("2*C" if b else "C") if cfg.norm != "none" else "0"
    ln_note = "" if cfg.norm != "none" else "norm='none': identity"
    lin = lambda i, o, out: f"{i}*{o} + {out}" if b else f"{i}*{o}"  # noqa: E731
    rows = [("in_proj", lin("d_in", "C", "C"), "numbers -> width C") if regressor
            else ("tok_embed", "V*C", "one C-vector per token")]
    pos_note = {"learned": "one C-vector per position", "sinusoidal": "fixed sin/cos table: a buffer, "
                "not a parameter", "none": "no position information"}[cfg.position]
    rows.append(("pos_embed", "L*C" if cfg.position == "learned" else "0", pos_note))
    for i in range(cfg.n_layers):
        p = f"blocks.{i}."
        rows.append((p + "ln1", ln, ln_note))
        if cfg.mha_style == "fused":
            rows.append((p + "attn.qkv", lin("C", "3*C", "3*C"), "Q, K, V for all heads at once"))
        else:
            rows.append((p + "attn.heads", f"H*3*({lin('C', 'D', 'D')})", "H heads × (q, k, v)"))
        rows += [(p + "attn.proj", lin("C", "C", "C"), "merged heads -> residual"),
                 (p + "ln2", ln, ln_note),
                 (p + "ffn.fc1", lin("C", "F", "F"), "C -> F"),
                 (p + "ffn.fc2", lin("F", "C", "C"), "F -> C")]
    final = cfg.final_norm and cfg.norm != "none"
    rows.append(("ln_final", ln if final else "0", "" if final else "no final norm"))
    if regressor:
        rows.append(("out_proj", lin("C", "d_out", "d_out"), "width C -> numbers"))
    elif cfg.tie_weights:
        rows.append(("head", "0", "tied: reuses tok_embed's V·C matrix, 0 new parameters"))
    else:
        rows.append(("head", lin("C", "V", "V"), "C -> one score per token"))
    return rows


def _group(name: str) -> str:
    g = re.sub(r"\.(weight|bias)$", "", name)
    g = re.sub(r"^(tok_embed|pos_embed)\.table$", r"\1", g)
    return re.sub(r"attn\.heads\.\d+\.(q|k|v)$", "attn.heads", g)


SYMBOL_MEANING = {"V": "vocab_size", "C": "d_model", "L": "max_len", "H": "n_heads", "D": "d_head",
                  "F": "d_ff", "d_in": "numbers in", "d_out": "numbers out"}


def symbols(cfg: ModelConfig) -> dict[str, int]:
    return {"V": cfg.vocab_size, "C": cfg.d_model, "L": cfg.max_len, "H": cfg.n_heads,
            "D": cfg.d_head, "F": cfg.d_ff, "d_in": cfg.d_in, "d_out": cfg.d_out}


def param_table(cfg_or_model, kind: str | None = None) -> ParamTable:
    """Rows per module. `kind` (gpt | encoder | regressor) is only used to build a model from a
    config (default: gpt if causal, else encoder); a model given directly is counted as it is."""
    model = _build(cfg_or_model, kind)
    cfg = model.cfg
    regressor = "pred" in model.hook_names()
    counts: dict[str, int] = {}
    seen: set[int] = set()
    for name, p in model.named_parameters(remove_duplicate=False):
        g = _group(name)
        counts.setdefault(g, 0)
        if id(p) not in seen:  # a tied matrix counts once, where it first appears
            seen.add(id(p))
            counts[g] += p.numel()
    sym = symbols(cfg)
    rows = []
    for module, formula, note in _spec(cfg, regressor):
        expected = eval(formula, {"__builtins__": {}}, dict(sym))  # noqa: S307 (our own formulas)
        rows.append(ParamRow(module, counts.pop(module, 0), _show(formula), expected, note))
    for module, n in counts.items():  # parameters the formulas do not know about
        rows.append(ParamRow(module, n, "?", 0, "not in the closed-form table"))
    return ParamTable(rows, sym)


@dataclass
class FlopEstimate:
    T: int
    non_embedding_params: int  # N: everything but tok/pos embeddings and the head
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
    table = param_table(model)
    s = table.symbols
    outer = {"tok_embed", "pos_embed", "in_proj", "head", "out_proj"}
    n = sum(r.count for r in table.rows if r.module not in outer)
    n_layers = sum(r.module.endswith("ffn.fc1") for r in table.rows)
    head = s["C"] * (s["d_out"] if any(r.module == "out_proj" for r in table.rows) else s["V"])
    full = 4 * n_layers * T * s["C"]  # QKᵀ and A·V over the whole T×T square, 2 FLOPs a multiply-add
    return FlopEstimate(T, n, 2 * n, full // 2 if model.cfg.causal else full, 2 * head, full)


def activation_memory(cfg_or_model, B: int, T: int, bytes_per_value: int = 4,
                      kind: str | None = None) -> dict[str, int]:
    """Values held for one forward pass of B sequences of T tokens, counted per hook point:
    exactly what `run_with_cache` would keep. Autograd saves a similar but not identical set
    (e.g. dropout masks, pre-activation FFN inputs); the T² terms (scores, weights) are the
    ones that grow fastest. With attention='fused' those two are never formed and are skipped.
    Returns {hook name: values, ..., "total_values": n, "total_bytes": n·bytes_per_value}."""
    model = _build(cfg_or_model, kind)
    cfg = model.cfg
    size = {**symbols(cfg), "B": B, "T": T, "T_q": T, "T_k": T}
    out = {}
    for name in model.hook_names():
        key = re.sub(r"^blocks\.\d+\.", "", name)
        if cfg.attention == "fused" and key in ("attn.scores", "attn.weights"):
            continue
        if key == "pos_embed" and cfg.position == "none":
            continue
        out[name] = math.prod(size[letter] for letter in STAGES[key][1].split())
    total = sum(out.values())
    return {**out, "total_values": total, "total_bytes": total * bytes_per_value}
