"""Position schemes: attention itself is blind to order, so something must say where tokens sit.

One extension point, three touch points. A scheme may
  1. add a vector to the residual stream at each position   (learned, sinusoidal)   `stream`
  2. rotate queries and keys inside attention                 (rotary: nn/rotary.py)  `attention`
  3. add a bias to the attention scores                       (alibi: nn/alibi.py)    `attention`
or touch nothing at all ("none", NoPE). Every touch point receives the absolute position of the
first token it sees (`offset`), so with a KV cache, token t is still treated as sitting at t.

A scheme is registered once, by name, in the file that defines it:

    register_position_scheme(PositionScheme("learned", stream=lambda cfg: LearnedPositions(cfg.max_len, cfg.d_model),
                                            table=True))

with its one-line description in the glossary (`position.learned` in messages/glossary_en.py and
glossary_zh.py), or given as `about=` and `zh=` by a scheme registered outside the package.

and `ModelConfig.position` names it. The model asks `position_scheme(cfg.position)` for its parts:
`stream(cfg)` builds the module added to the stream (forward(T, offset) -> (T, C)); `attention(cfg)`
builds one `AttentionPositions` per attention layer. `table=True` says the scheme knows positions
0..max_len-1 only, so the sampler crops to the last max_len tokens; the others read any length.
docs/positions.md explains every scheme and shows, file by file, how to add one.

Learned and sinusoidal tables live with the token embedding (nn/embedding.py), the other end of the
stream's input.
None (NoPE):  nothing. A causal model can still infer order, since token t sees exactly t+1 tokens
  (Haviv et al. 2022, "Transformer Language Models without Positional Encodings Still Learn
  Positional Information"; Kazemnejad et al. 2023 compare it with the others); a bidirectional
  one cannot: permuting its input permutes its output (tests/unit/test_positions.py).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Callable

import torch
from torch import nn

from glassformer.config import ModelConfig
from glassformer.errors import UsageError
from glassformer.messages import TABLES, t
from glassformer.nn.embedding import LearnedPositions, SinusoidalPositions, check_length, sinusoidal_table


@dataclass(frozen=True)
class PositionScheme:
    name: str
    about: str = ""  # one line, English; "": the glossary's `position.<name>` (messages/glossary_*.py)
    zh: str = ""  # the same line, in Chinese
    stream: Callable[[ModelConfig], nn.Module] | None = None  # touch point 1
    attention: Callable[[ModelConfig], "AttentionPositions"] | None = None  # touch points 2 and 3
    table: bool = False  # True: it knows positions 0..max_len-1 only (a table), so T <= max_len

    def __post_init__(self) -> None:
        for field, lang in (("about", "en"), ("zh", "zh")):
            if not getattr(self, field):
                object.__setattr__(self, field, TABLES[lang].get(f"position.{self.name}", ""))


POSITION_SCHEMES: dict[str, PositionScheme] = {}


def register_position_scheme(scheme: PositionScheme) -> PositionScheme:
    POSITION_SCHEMES[scheme.name] = scheme
    return scheme


def position_scheme(name: str) -> PositionScheme:
    """The registered scheme called `name`, or an error naming the nearest one."""
    if name not in POSITION_SCHEMES:
        near = difflib.get_close_matches(name, POSITION_SCHEMES, n=1)
        hint = t("error.config.did_you_mean", near=near[0]) if near else ""
        raise UsageError("error.position.unknown", name=name, names=sorted(POSITION_SCHEMES), hint=hint)
    return POSITION_SCHEMES[name]


class AttentionPositions(nn.Module):
    """The in-attention part of a scheme. Subclasses override one or both touch points.

    Do the work in `forward` and call `self(...)` from the touch point (nn/rotary.py, nn/alibi.py):
    views that order modules by first use (inspect/params.py) then see the scheme where it acts.
    """

    def rotate(self, q: torch.Tensor, k: torch.Tensor, offset: int) -> tuple[torch.Tensor, torch.Tensor]:
        """q, k (B, H, T, D) of tokens at positions offset..offset+T-1 -> rotated q, k."""
        return q, k

    def score_bias(self, T_q: int, T_k: int, offset: int) -> torch.Tensor | None:
        """(H, T_q, T_k) added to Q·Kᵀ/√D; queries sit at offset.., keys at 0..T_k-1. None: no bias."""
        return None


register_position_scheme(
    PositionScheme(
        "learned",
        stream=lambda cfg: LearnedPositions(cfg.max_len, cfg.d_model),
        table=True,
    )
)
register_position_scheme(
    PositionScheme(
        "sinusoidal",
        stream=lambda cfg: SinusoidalPositions(cfg.max_len, cfg.d_model),
        table=True,
    )
)
register_position_scheme(
    PositionScheme(
        "none",
    )
)

__all__ = [
    "POSITION_SCHEMES",
    "AttentionPositions",
    "LearnedPositions",
    "PositionScheme",
    "SinusoidalPositions",
    "check_length",
    "position_scheme",
    "register_position_scheme",
    "sinusoidal_table",
]
