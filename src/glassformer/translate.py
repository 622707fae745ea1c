"""Translation: how an encoder-decoder writes its output, one token at a time.

The source is read once: `encode(src)` gives the memory (B, S, C), and at the first step each
decoder layer turns it into cross-attention keys and values, kept in the DecoderCache (as are the
keys and values of the target tokens written so far). Then the loop is sample.py's:

    ids = [<BOS>];  repeat: read the next-token distribution at the last position, pick, append;
    a row stops at <EOS> (and writes <PAD> from then on)

Greedy search picks the single most likely token each time. Beam search keeps the k best partial
translations of each sentence and extends all of them, ranked by log P / lp(length) (Wu et al.
2016): beam.py's `search`, the one beam search, which a decoder-only model's continuations use too
(sample.py's `beam_continue`); here the `Writer` steps it.

Neither search may write <PAD> or
<BOS>, which are not words. tests/reference/test_seq2seq_decoding.py checks that the cache
changes how much is computed, never what: cached and uncached decoding give the same tokens.
use_cache=None (the default) uses the cache whenever the decoder is causal; a decoder without
its mask (causal=False) re-reads the whole prefix each step, since its past changes.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from glassformer.beam import Decoded, check_settings, search
from glassformer.errors import UsageError


class Writer:
    """What both searches share: the source read once, and one decoder step at a time."""

    def __init__(
        self, model: nn.Module, src: torch.Tensor, bos_id: int, rows_per_source: int, use_cache: bool | None
    ) -> None:
        self.model, self.pad_id = model, model.cfg.pad_id
        self.not_words = [model.cfg.pad_id, bos_id]  # neither search may write them: they are not words
        memory = model.encode(src)  # (B, S, C): the source is read once
        self.src = src.repeat_interleave(rows_per_source, 0)  # (B·k, S): each beam sees its source
        self.memory = memory.repeat_interleave(rows_per_source, 0)  # (B·k, S, C)
        if use_cache is None:  # whenever it is exact: a causal decoder's past never changes
            use_cache = model.cfg.causal
        self.cache = model.new_cache(self.src.size(0)) if use_cache else None
        self.dtype = memory.dtype  # log-probabilities are summed in the model's own precision

    def next_log_probs(self, ids: torch.Tensor) -> torch.Tensor:
        """ids (N, t) written so far -> (N, V) log P(next token), with <PAD>/<BOS> impossible."""
        if self.cache is None:
            logits = self.model.decode(ids, self.memory, self.src)  # (N, t, V): the whole prefix again
        else:
            logits = self.model.decode(ids[:, -1:], self.memory, self.src, self.cache)  # (N, 1, V): the new token
        log_p = F.log_softmax(logits[:, -1], dim=-1)  # (N, V)
        log_p[:, self.not_words] = float("-inf")
        return log_p

    def reorder(self, rows: torch.Tensor) -> None:
        if self.cache is not None:
            self.cache.reorder(rows)


def _max_new(model: nn.Module, max_new_tokens: int | None) -> int:
    limit = model.cfg.max_len  # the decoder reads at most max_len tokens: <BOS> + max_len - 1 written
    n = limit if max_new_tokens is None else max_new_tokens
    if not 1 <= n <= limit:
        raise UsageError(
            "translate.max_new_tokens",
            "max_new_tokens must be in {low} … {high} (the model's max_len), got {value}.",
            low=1,
            high=limit,
            value=n,
        )
    return n


@torch.no_grad()
def greedy_decode(
    model: nn.Module,
    src: torch.Tensor,
    bos_id: int,
    eos_id: int,
    max_new_tokens: int | None = None,
    use_cache: bool | None = None,
) -> Decoded:
    """src (B, S) ids -> the most likely token at every step, until <EOS> or max_new_tokens."""
    was_training = model.training
    model.eval()  # no dropout while writing
    try:
        # 1) read the source once
        writer = Writer(model, src, bos_id, 1, use_cache)
        B = src.size(0)
        ids = torch.full((B, 1), bos_id, dtype=torch.long, device=src.device)  # (B, 1): <BOS>
        log_prob = torch.zeros(B, dtype=writer.dtype, device=src.device)  # (B,)
        done = torch.zeros(B, dtype=torch.bool, device=src.device)  # (B,) wrote <EOS> already?
        for _ in range(_max_new(model, max_new_tokens)):
            # 2) the distribution over the next token, at the last position
            log_p = writer.next_log_probs(ids)  # (B, V)
            # 3) greedy: take the most likely one; finished rows write <PAD>
            best, token = log_p.max(dim=-1)  # (B,), (B,)
            token = token.masked_fill(done, model.cfg.pad_id)  # (B,)
            log_prob += best.masked_fill(done, 0.0)  # (B,)
            # 4) append it: it is part of what the next step reads
            ids = torch.cat([ids, token[:, None]], dim=1)  # (B, t+1)
            done |= token == eos_id
            if bool(done.all()):
                break
        return Decoded(ids[:, 1:], log_prob, log_prob.clone())
    finally:
        model.train(was_training)


@torch.no_grad()
def beam_search(
    model: nn.Module,
    src: torch.Tensor,
    bos_id: int,
    eos_id: int,
    beam_width: int = 4,
    length_penalty_alpha: float = 0.6,
    max_new_tokens: int | None = None,
    use_cache: bool | None = None,
) -> Decoded:
    """src (B, S) ids -> for each sentence, the best of `beam_width` hypotheses by
    log P / lp(length): beam.search (the one beam search), stepped by this model's Writer. A
    finished hypothesis (it wrote <EOS>) keeps its place in the beam, extended by <PAD> at no cost."""
    V = model.cfg.vocab_size
    check_settings(beam_width, V - 2, length_penalty_alpha)  # neither <PAD> nor <BOS> is written
    n = _max_new(model, max_new_tokens)
    was_training = model.training
    model.eval()
    try:
        writer = Writer(model, src, bos_id, beam_width, use_cache)  # the source read once, for k rows each
        start = torch.full((src.size(0), 1), bos_id, dtype=torch.long, device=src.device)  # (B, 1): <BOS>
        return search(writer, start, beam_width, V, n, length_penalty_alpha, eos_id, model.cfg.pad_id, writer.dtype)
    finally:
        model.train(was_training)


def pad_rows(rows: list[list[int]], pad_id: int, device=None) -> torch.Tensor:
    """Id lists of different lengths -> one (N, L) tensor, right-padded with pad_id."""
    L = max(len(r) for r in rows)
    return torch.tensor([r + [pad_id] * (L - len(r)) for r in rows], dtype=torch.long, device=device)  # (N, L)


def translate(
    model: nn.Module,
    data,
    sources: list[str],
    beam_width: int = 1,
    length_penalty_alpha: float = 0.6,
    batch_size: int = 256,
) -> list[str]:
    """Texts in, texts out. `data` turns text into ids and back (`ids`, `text`, `tokenizer`: a
    PairData, train/data.py). beam_width 1: greedy search; more: beam search."""
    tok, device = data.tokenizer, next(model.parameters()).device
    if not sources:
        return []
    out = []
    for start in range(0, len(sources), batch_size):
        src = pad_rows([data.ids(s) for s in sources[start : start + batch_size]], model.cfg.pad_id, device)
        if beam_width == 1:
            found = greedy_decode(model, src, tok.bos_id, tok.eos_id)
        else:
            found = beam_search(model, src, tok.bos_id, tok.eos_id, beam_width, length_penalty_alpha)
        out += [data.text(row[: _end(row, tok.eos_id)]) for row in found.ids.tolist()]
    return out


def _end(row: list[int], eos_id: int) -> int:
    return row.index(eos_id) if eos_id in row else len(row)


def exact_match(
    model: nn.Module, data, pairs: list[tuple[str, str]], beam_width: int = 1, length_penalty_alpha: float = 0.6
) -> float:
    """The fraction of (source, target) pairs translated exactly right."""
    outputs = translate(model, data, [s for s, _ in pairs], beam_width, length_penalty_alpha)
    return sum(o == t for o, (_, t) in zip(outputs, pairs, strict=False)) / max(len(pairs), 1)
