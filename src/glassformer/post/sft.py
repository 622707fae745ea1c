"""Supervised fine-tuning (SFT): next-token prediction on conversations, learning only what the
assistant says.

A conversation is rendered and encoded with its mask of the assistant's tokens (chat.py's
``encode_chat``). It becomes a training pair the usual way, inputs ``ids[:-1]`` and targets
``ids[1:]``, except that a target the assistant does not say is ``-100`` (PyTorch's ``ignore_index``):

    loss = -1/N Σ_{t: m_{t+1}=1} log p_θ(x_{t+1} | x_≤t)       N = Σ_t m_{t+1}

(Ouyang et al. 2022, "Training language models to follow instructions with human feedback", §3.5, the
SFT stage; the loss on the answer only, as in TRL's ``assistant_only_loss``). The prompt and the user's
turns still shape every prediction through attention; the model is simply never asked to predict them.
The loss itself is the trainer's next-token cross-entropy (``nn/loss.py``'s ``next_token_loss``), which
already skips ``-100``: one copy of the computation.

Conversations differ in length, so a batch is made one of two ways:

- **padding** (``pad_batch``): one conversation a row, filled to the longest with ``pad_id`` and target
  ``-100``. Padding sits at the end of a row, after every real token, so the causal mask alone keeps
  it from changing any real position: the model runs as it is.
- **packing** (``pack_batch``): conversations laid one after another into rows of ``seq_len`` positions
  (first fit, in order), so few positions are padding. Then a token must not attend to another
  conversation in the same row: ``documents`` (B, T) says which conversation each position belongs to
  (-1 for padding) and ``attention_mask()`` (B, T, T) allows query i to read key j only when j ≤ i and
  both are the same conversation (a block-diagonal causal mask), which ``sft_loss`` hands the model.
  ``positions`` (restarting at 0 in each conversation) are kept for a model that reads position ids;
  GPT's position schemes take an offset only, so in a packed row positions run 0..T-1 along the row.
  With relative positions (rope, alibi, none) that changes nothing: a conversation's logits are the
  same packed or alone. With absolute ones (learned, sinusoidal) a conversation later in a row is read
  at later positions, as in pretraining on concatenated text.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Callable, Sequence

import torch
import torch.nn.functional as F
from torch import Tensor

from glassformer.errors import Unsupported, UsageError
from glassformer.nn.loss import next_token_loss
from glassformer.post.chat import ChatTemplate, EncodedChat, Message, check_conversation, encode_chat
from glassformer.text.tokenizers import Tokenizer

IGNORE = -100  # the target of a position that is not learned (PyTorch's cross_entropy ignore_index)


def encode_for_sft(tokenizer: Tokenizer, template: ChatTemplate, messages: list[Message]) -> EncodedChat:
    """``encode_chat`` for training: a conversation with no assistant turn has nothing to learn from
    and is refused (UsageError ``error.chat.no_assistant``) instead of adding a row of IGNORE."""
    return encode_chat(tokenizer, template, check_conversation(messages, need_assistant=True))


def example(encoded: EncodedChat, index: int = 0) -> tuple[list[int], list[int]]:
    """(inputs, targets) of one conversation: ``ids[:-1]`` and ``ids[1:]``, the targets the assistant
    does not say set to IGNORE."""
    ids, mask = encoded.ids, encoded.assistant_mask
    if len(ids) != len(mask):
        raise UsageError(
            "sft.mask_length",
            "conversation {index} has {n} ids but a mask of {m}: each id needs one mask entry.",
            index=index,
            n=len(ids),
            m=len(mask),
        )
    targets = [i if m else IGNORE for i, m in zip(ids[1:], mask[1:], strict=True)]
    return ids[:-1], targets


@dataclass
class SFTBatch:
    """One batch: inputs, targets, and where each conversation lies (for packing's mask)."""

    ids: Tensor  # (B, T) token ids; pad_id where nothing is
    labels: Tensor  # (B, T) the next token where the assistant says it, else IGNORE
    documents: Tensor  # (B, T) which conversation of the row each position holds, -1 for padding
    positions: Tensor  # (B, T) the position inside its own conversation (0 for padding)

    def attention_mask(self) -> Tensor:
        """(B, T, T) True where query i may read key j: the same conversation and j ≤ i. Padding
        queries read only themselves (their rows are never learned; a row of all False would make
        softmax divide by zero)."""
        return document_mask(self.documents)  # (B, T, T)

    def is_packed(self) -> bool:
        """Whether some row holds more than one conversation (then the model needs attention_mask)."""
        return bool((self.documents.amax(dim=1) > 0).any())


def document_mask(documents: Tensor) -> Tensor:
    """The block-diagonal causal mask of ``documents`` (B, T): (B, T, T) bool."""
    T = documents.size(1)
    causal = torch.ones(T, T, dtype=torch.bool, device=documents.device).tril()  # (T, T) j ≤ i
    same = documents.unsqueeze(2) == documents.unsqueeze(1)  # (B, T, T) the same conversation
    real = (documents >= 0).unsqueeze(1)  # (B, 1, T) the key is not padding
    own = torch.eye(T, dtype=torch.bool, device=documents.device)  # (T, T) every query reads itself
    return (causal & same & real) | own  # (B, T, T)


def _rows(pairs: list[tuple[list[int], list[int]]], rows: list[list[int]], T: int, pad_id: int) -> SFTBatch:
    """Lay the pairs into rows (``rows[r]`` lists the pairs of row r, in order) of T positions."""
    B = len(rows)
    ids = torch.full((B, T), pad_id, dtype=torch.long)  # (B, T)
    labels = torch.full((B, T), IGNORE, dtype=torch.long)  # (B, T)
    documents = torch.full((B, T), -1, dtype=torch.long)  # (B, T)
    positions = torch.zeros((B, T), dtype=torch.long)  # (B, T)
    for r, members in enumerate(rows):
        start = 0
        for d, k in enumerate(members):
            inputs, targets = pairs[k]
            n = len(inputs)
            ids[r, start : start + n] = torch.tensor(inputs)  # (n,)
            labels[r, start : start + n] = torch.tensor(targets)  # (n,)
            documents[r, start : start + n] = d
            positions[r, start : start + n] = torch.arange(n)  # (n,)
            start += n
    return SFTBatch(ids, labels, documents, positions)


def pairs_of(examples: Sequence[EncodedChat], seq_len: int | None) -> list[tuple[list[int], list[int]]]:
    """Every conversation's (inputs, targets), each checked to fit ``seq_len`` positions (when given):
    one too long is refused (``sft.too_long``), never cut."""
    if not examples:
        raise UsageError("sft.no_examples", "there are no conversations to put in a batch.")
    if seq_len is not None and (type(seq_len) is not int or seq_len < 1):
        raise UsageError(
            "sft.seq_len", "seq_len={seq_len} must be a whole number of at least {least}.", seq_len=seq_len, least=1
        )
    pairs = [example(e, i) for i, e in enumerate(examples)]
    for i, (inputs, _) in enumerate(pairs):
        if seq_len is not None and len(inputs) > seq_len:
            raise UsageError(
                "sft.too_long",
                "conversation {index} is {n} tokens, longer than "
                "seq_len={seq_len}: raise seq_len or shorten the "
                "conversation.",
                index=i,
                n=len(inputs),
                seq_len=seq_len,
            )
    return pairs


def pad_batch(examples: Sequence[EncodedChat], pad_id: int, seq_len: int | None = None) -> SFTBatch:
    """One conversation a row, padded at the end to ``seq_len`` (default: the longest)."""
    pairs = pairs_of(examples, seq_len)
    T = seq_len if seq_len is not None else max(len(p[0]) for p in pairs)
    return _rows(pairs, [[k] for k in range(len(pairs))], T, pad_id)


def pack_batch(examples: Sequence[EncodedChat], seq_len: int, pad_id: int) -> SFTBatch:
    """Conversations packed into rows of ``seq_len``: each goes, in order, into the first row that
    still has room for it (a new row if none has); no conversation is ever cut."""
    pairs = pairs_of(examples, seq_len)
    rows: list[list[int]] = []
    free: list[int] = []  # positions left in each row
    for k, (inputs, _) in enumerate(pairs):
        r = next((r for r, room in enumerate(free) if room >= len(inputs)), None)
        if r is None:
            rows.append([])
            free.append(seq_len)
            r = len(rows) - 1
        rows[r].append(k)
        free[r] -= len(inputs)
    return _rows(pairs, rows, seq_len, pad_id)


def token_logprobs(logits: Tensor, labels: Tensor) -> Tensor:
    """log p(label) at every position, 0 where the label is IGNORE: (B, T). The one gather every
    post-training loss reads (SFT's cross-entropy is minus its mean; DPO sums it, GRPO takes it per token)."""
    keep = labels != IGNORE  # (B, T)
    log_p = F.log_softmax(logits, dim=-1)  # (B, T, V)
    picked = log_p.gather(-1, labels.masked_fill(~keep, 0).unsqueeze(-1)).squeeze(-1)  # (B, T)
    return picked * keep  # (B, T)


def sft_loss(model: Callable[..., Tensor], batch: SFTBatch) -> Tensor:
    """The SFT loss of ``model`` on ``batch``: the next-token cross-entropy over the assistant's
    targets. A packed batch is run with its block-diagonal mask (``model(ids, mask=...)``, as GPT's
    forward takes it), so no conversation reads another; a model whose forward takes ids only is
    refused a packed batch rather than attended across conversations."""
    return next_token_loss(sft_logits(model, batch), batch.labels)  # ()


def sft_logits(model: Callable[..., Tensor], batch: SFTBatch) -> Tensor:
    """The model's logits (B, T, V) on ``batch``: with the document mask when the batch is packed."""
    if not batch.is_packed():
        return model(batch.ids)  # (B, T, V): padding is at the ends, the causal mask suffices
    forward = model.forward if isinstance(model, torch.nn.Module) else model
    takes = inspect.signature(forward).parameters.values()  # a mask= parameter, or **options passed on
    if not any(p.name == "mask" or p.kind is inspect.Parameter.VAR_KEYWORD for p in takes):
        raise Unsupported(
            "sft.packed_needs_mask",
            "this batch packs several conversations into one row, and "
            "the model reads token ids only, so they would attend to "
            "each other: use pad_batch, or a model that reads the "
            "batch's attention mask.",
        )
    return model(batch.ids, mask=batch.attention_mask())  # (B, T, V)
