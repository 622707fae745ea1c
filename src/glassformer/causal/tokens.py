"""Prompts as the causal methods take them, under TransformerLens's names: `to_tokens(tokenizer,
text)` is the (1, T) batch of ids that `activation_patching`, `logit_attribution` and the rest read,
and `to_str_tokens` each token's own text, to label a grid's T axis. TransformerLens hangs both on
the model; here the tokenizer is its own object (a run gives `model, tokenizer, config =
load_model(run)`), so both take it first. No BOS is added: our tokenizers have none to add."""

from __future__ import annotations

import torch


def to_tokens(tokenizer, text: str) -> torch.Tensor:
    """text -> (1, T) ids, the batch of one every causal method reads."""
    return torch.tensor([tokenizer.encode(text)])  # (1, T)


def to_str_tokens(tokenizer, tokens) -> list[str]:
    """The text of each token of `tokens`: a string (tokenized first), ids (T,) or a batch of one (1, T)."""
    ids = tokenizer.encode(tokens) if isinstance(tokens, str) else torch.as_tensor(tokens).reshape(-1).tolist()
    text = getattr(tokenizer, "token_text", None) or (lambda i: tokenizer.decode([i]))
    return [text(int(i)) for i in ids]
