"""glassformer writes its attention by hand: PyTorch's built-in attention and Transformer layers
may be called only in the one fast path, nn/fused_attention.py, and in tests (as references).

Our own function named scaled_dot_product_attention (nn/attention.py) is allowed; what is
forbidden is reaching PyTorch's through F., torch.nn.functional., or a from-import. Only code
counts: comments and docstrings may name the built-ins (to explain what we do instead).
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import glassformer

PACKAGE = Path(glassformer.__file__).parent
ALLOWED = {PACKAGE / "nn" / "fused_attention.py"}

DOT = r"\s*\.\s*"
FORBIDDEN = {
    "nn.MultiheadAttention": r"\bMultiheadAttention\b",
    "nn.Transformer*": rf"\bnn{DOT}Transformer\w*|\bTransformer(Encoder|Decoder)(Layer)?\b",
    "F.scaled_dot_product_attention": rf"\bF{DOT}scaled_dot_product_attention\b",
    "torch.nn.functional.scaled_dot_product_attention": rf"\bfunctional{DOT}scaled_dot_product_attention\b",
    "from torch.nn.functional import scaled_dot_product_attention": rf"from\s+torch{DOT}nn{DOT}functional\s+import\s[^\n]*\bscaled_dot_product_attention\b",  # noqa: E501
    "multi_head_attention_forward": r"\bmulti_head_attention_forward\b",
}


def code_only(source: str) -> str:
    """The source's tokens without comments and string literals, one logical line per line."""
    dropped = {tokenize.COMMENT, tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}
    kept = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in (tokenize.NEWLINE, tokenize.NL):
            kept.append("\n")
        elif tok.type not in dropped and tok.string.strip():
            kept.append(tok.string)
    return " ".join(kept)


def offences(source: str) -> list[str]:
    code = code_only(source)
    return [name for name, pattern in FORBIDDEN.items() if re.search(pattern, code)]


def test_the_patterns_catch_what_they_should_and_nothing_else():
    assert offences("self.attn = nn.MultiheadAttention(64, 4)") == ["nn.MultiheadAttention"]
    assert offences("layer = torch.nn.TransformerEncoderLayer(64, 4)") == ["nn.Transformer*"]
    assert offences("out = F.scaled_dot_product_attention(q, k, v)") == ["F.scaled_dot_product_attention"]
    assert offences("torch.nn.functional.scaled_dot_product_attention(q, k, v)") == [
        "torch.nn.functional.scaled_dot_product_attention"
    ]
    assert offences("from torch.nn.functional import gelu, scaled_dot_product_attention") == [
        "from torch.nn.functional import scaled_dot_product_attention"
    ]
    assert offences("F.multi_head_attention_forward(x)") == ["multi_head_attention_forward"]
    # ours is fine: defined, called and imported from glassformer
    # snapshot: code snippets the lint test is fed, not sentences
    assert offences("def scaled_dot_product_attention(q, k, v, mask=None):") == []
    assert offences("out, w = scaled_dot_product_attention(q, k, v, mask)") == []
    # snapshot: code snippets the lint test is fed, not sentences
    assert offences("from glassformer.nn.attention import scaled_dot_product_attention") == []
    assert offences("class TransformerStack(HookedModel): pass") == []
    # mentions in comments and docstrings are explanations, not calls
    assert offences('"""Unlike F.scaled_dot_product_attention, we ..."""\nx = 1  # not nn.MultiheadAttention') == []


def test_no_builtin_attention_outside_the_fused_path():
    files = sorted(p for p in PACKAGE.rglob("*.py") if p not in ALLOWED)
    assert len(files) > 10 and (PACKAGE / "nn" / "attention.py") in files
    found = {str(p.relative_to(PACKAGE)): offences(p.read_text(encoding="utf-8")) for p in files}
    found = {path: names for path, names in found.items() if names}
    assert not found, f"built-in attention used outside nn/fused_attention.py: {found}"


def test_the_fused_path_is_where_sdpa_lives():
    assert offences((PACKAGE / "nn" / "fused_attention.py").read_text()) == ["F.scaled_dot_product_attention"]
