"""post/sft.py: the loss on the assistant's tokens only (against a cross-entropy computed by hand), the
padded and packed batches (every tensor written out), and packing's mask meaning what it says
(attention over a packed row equals attention over each conversation alone)."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from glassformer.config import ModelConfig
from glassformer.errors import Unsupported, UsageError
from glassformer.models import build_model
from glassformer.post.chat import CHATML, EncodedChat, chat_tokenizer, encode_chat
from glassformer.post.sft import (
    IGNORE,
    SFTBatch,
    document_mask,
    encode_for_sft,
    example,
    pack_batch,
    pad_batch,
    sft_logits,
    sft_loss,
    token_logprobs,
)
from glassformer.text import CharTokenizer

X = IGNORE


def enc(ids, mask):
    return EncodedChat("", ids, mask)


def test_targets_are_the_next_token_where_the_assistant_says_it():
    assert example(enc([5, 6, 7, 8, 9], [0, 0, 1, 1, 0])) == ([5, 6, 7, 8], [X, 7, 8, X])


def test_the_loss_is_a_cross_entropy_over_the_assistant_targets_by_hand():
    """Three positions, vocabulary of three; the middle target is not learned."""
    logits = torch.tensor([[[1.0, 2.0, 0.0], [0.5, 0.5, 3.0], [2.0, 0.0, -1.0]]], dtype=torch.float64)
    labels = torch.tensor([[1, X, 0]])

    def nll(row, k):
        return -(row[k] - math.log(sum(math.exp(v) for v in row)))

    by_hand = (nll([1.0, 2.0, 0.0], 1) + nll([2.0, 0.0, -1.0], 0)) / 2  # the mean over the two kept targets
    batch = SFTBatch(
        torch.zeros(1, 3, dtype=torch.long), labels, torch.zeros(1, 3, dtype=torch.long), torch.zeros(1, 3)
    )
    assert sft_loss(lambda ids: logits, batch).item() == pytest.approx(by_hand, abs=1e-15)
    lp = token_logprobs(logits, labels)
    assert lp[0, 1].item() == 0.0 and lp[0, 0].item() == pytest.approx(-nll([1.0, 2.0, 0.0], 1), abs=1e-15)
    assert (-lp.sum() / 2).item() == pytest.approx(by_hand, abs=1e-15)


def test_the_loss_ignores_what_the_user_says():
    """Changing the logits at positions whose target is not the assistant's changes nothing."""
    torch.manual_seed(0)
    logits = torch.randn(2, 5, 7, dtype=torch.float64)
    labels = torch.tensor([[X, 3, 4, X, X], [1, X, X, 2, 6]])
    other = logits.clone()
    other[labels == X] += torch.randn(int((labels == X).sum()), 7, dtype=torch.float64) * 5
    batch = SFTBatch(
        torch.zeros(2, 5, dtype=torch.long), labels, torch.zeros(2, 5, dtype=torch.long), torch.zeros(2, 5)
    )
    assert sft_loss(lambda ids: logits, batch).item() == sft_loss(lambda ids: other, batch).item()
    full = F.cross_entropy(logits.reshape(-1, 7), labels.reshape(-1).clamp(min=0))
    assert sft_loss(lambda ids: logits, batch).item() != pytest.approx(full.item())


def test_pad_batch_writes_every_tensor():
    a, b = enc([5, 6, 7], [0, 1, 1]), enc([8, 9, 10, 11, 12], [0, 0, 0, 1, 1])
    batch = pad_batch([a, b], pad_id=0)
    assert batch.ids.tolist() == [[5, 6, 0, 0], [8, 9, 10, 11]]
    assert batch.labels.tolist() == [[6, 7, X, X], [X, X, 11, 12]]
    assert batch.documents.tolist() == [[0, 0, -1, -1], [0, 0, 0, 0]]
    assert batch.positions.tolist() == [[0, 1, 0, 0], [0, 1, 2, 3]]
    assert not batch.is_packed()
    assert pad_batch([a], pad_id=1, seq_len=3).ids.tolist() == [[5, 6, 1]]


def test_pack_batch_fills_rows_first_fit_and_marks_the_documents():
    a, b, c = enc([1, 2, 3, 4], [0, 1, 1, 1]), enc([5, 6, 7], [0, 0, 1]), enc([8, 9], [0, 1])
    batch = pack_batch([a, b, c], seq_len=5, pad_id=0)  # a: 3 of row 0, b's 2 fill it, c opens row 1
    assert batch.ids.tolist() == [[1, 2, 3, 5, 6], [8, 0, 0, 0, 0]]
    assert batch.labels.tolist() == [[2, 3, 4, X, 7], [9, X, X, X, X]]
    assert batch.documents.tolist() == [[0, 0, 0, 1, 1], [0, -1, -1, -1, -1]]
    assert batch.positions.tolist() == [[0, 1, 2, 0, 1], [0, 0, 0, 0, 0]]
    assert batch.is_packed()
    mask = batch.attention_mask()
    assert mask[0].int().tolist() == [
        [1, 0, 0, 0, 0],
        [1, 1, 0, 0, 0],
        [1, 1, 1, 0, 0],
        [0, 0, 0, 1, 0],
        [0, 0, 0, 1, 1],
    ]
    assert mask[1].int().tolist() == [
        [1, 0, 0, 0, 0],
        [0, 1, 0, 0, 0],
        [0, 0, 1, 0, 0],
        [0, 0, 0, 1, 0],
        [0, 0, 0, 0, 1],
    ]


def test_packed_attention_equals_each_conversation_alone():
    """The document mask is what makes packing safe: softmax attention over a packed row, masked,
    gives each conversation exactly what it gets alone."""
    torch.manual_seed(1)
    documents = torch.tensor([[0, 0, 0, 1, 1, 2, -1]])
    q, k, v = (torch.randn(1, 2, 7, 4, dtype=torch.float64) for _ in range(3))
    packed = F.scaled_dot_product_attention(q, k, v, attn_mask=document_mask(documents).unsqueeze(1))  # (1, 2, 7, 4)
    for lo, hi in ((0, 3), (3, 5), (5, 6)):
        alone = F.scaled_dot_product_attention(q[..., lo:hi, :], k[..., lo:hi, :], v[..., lo:hi, :], is_causal=True)
        assert torch.allclose(packed[..., lo:hi, :], alone, atol=1e-14)


CHATS = [
    [{"role": "user", "content": "1+2="}, {"role": "assistant", "content": "3"}],
    [{"role": "user", "content": "12+30="}, {"role": "assistant", "content": "42"}],
    [{"role": "user", "content": "7+5="}, {"role": "assistant", "content": "12"}],
    [{"role": "user", "content": "0+0="}, {"role": "assistant", "content": "0"}],
]


def _encoded():
    tok = chat_tokenizer(CharTokenizer.from_text("abcdefghijklmnopqrstuvwxyz0123456789+=\n "), CHATML)
    return tok, [encode_chat(tok, CHATML.template(), c) for c in CHATS]


def test_a_model_trains_on_a_padded_batch_and_a_callable_of_ids_only_is_refused_a_packed_one():
    tok, encoded = _encoded()
    encoded = encoded[:2]
    torch.manual_seed(0)
    model = build_model(ModelConfig(vocab_size=tok.vocab_size, n_layers=1, d_model=16, n_heads=2, d_ff=32))
    batch = pad_batch(encoded, pad_id=0)
    loss = sft_loss(model, batch)
    logits = model(batch.ids)
    keep = batch.labels != IGNORE
    expected = -F.log_softmax(logits, -1).gather(-1, batch.labels.clamp(min=0).unsqueeze(-1)).squeeze(-1)[keep].mean()
    assert loss.item() == pytest.approx(expected.item(), abs=1e-6)
    assert int(keep.sum()) == 2 + 3  # "3<|im_end|>" and "42<|im_end|>"
    with pytest.raises(Unsupported) as e:
        sft_loss(lambda ids: model(ids), pack_batch(encoded, seq_len=64, pad_id=0))
    assert e.value.code == "sft.packed_needs_mask"


def _packed_and_alone(position: str):
    """A float64 model; the four conversations packed into rows of 60 (two a row) and each run alone."""
    tok, encoded = _encoded()
    torch.manual_seed(0)
    cfg = ModelConfig(vocab_size=tok.vocab_size, n_layers=2, d_model=16, n_heads=2, d_ff=32, position=position)
    model = build_model(cfg).double().eval()
    packed = pack_batch(encoded, seq_len=60, pad_id=0)
    alone = [pad_batch([e], pad_id=0) for e in encoded]
    return model, encoded, packed, alone


@pytest.mark.parametrize("position", ["rotary", "alibi", "none"])
def test_a_packed_batch_gives_each_conversation_the_logits_and_loss_it_has_alone(position):
    """The proof that no conversation sees another: with relative positions, every conversation's
    logits in a packed row equal its logits run alone, and the packed loss is the padded batch's."""
    model, encoded, packed, alone = _packed_and_alone(position)
    assert packed.is_packed() and packed.ids.size(0) < len(encoded)  # several conversations share a row
    logits = sft_logits(model, packed)  # (B, 60, V)
    seen = 0
    for r in range(packed.ids.size(0)):
        for d in range(int(packed.documents[r].max()) + 1):
            at = (packed.documents[r] == d).nonzero().squeeze(1)  # (n,)
            k = seen  # first fit here keeps the order: row 0 holds conversations 0.., then row 1
            seen += 1
            torch.testing.assert_close(logits[r, at], model(alone[k].ids)[0], rtol=0, atol=1e-12)
    assert seen == len(encoded)
    padded = sft_loss(model, pad_batch(encoded, pad_id=0))
    assert sft_loss(model, packed).item() == pytest.approx(padded.item(), abs=1e-12)
    by_one = [(sft_loss(model, b).item(), int((b.labels != IGNORE).sum())) for b in alone]
    weighted = sum(loss * n for loss, n in by_one) / sum(n for _, n in by_one)
    assert sft_loss(model, packed).item() == pytest.approx(weighted, abs=1e-12)


def test_with_learned_positions_a_later_conversation_in_a_row_is_read_at_later_positions():
    """GPT takes an offset, not position ids: positions run along a packed row. The first
    conversation of a row is exactly itself; a later one sits at later learned positions, so its
    logits differ from its logits alone (what is true today, and what docs/post.md says)."""
    model, encoded, packed, alone = _packed_and_alone("learned")
    logits = sft_logits(model, packed)  # (B, 60, V)
    first = (packed.documents[0] == 0).nonzero().squeeze(1)  # (n,)
    torch.testing.assert_close(logits[0, first], model(alone[0].ids)[0], rtol=0, atol=1e-12)
    second = (packed.documents[0] == 1).nonzero().squeeze(1)  # (n,)
    assert not torch.allclose(logits[0, second], model(alone[1].ids)[0], atol=1e-6)


def test_packing_leaves_fewer_pad_positions_than_padding():
    """Made-up conversations of 5, 2, 3, 1 and 4 input tokens, seq_len 5: padding to the longest
    takes five rows of 5 (10 pad positions), packing first fit [5], [2, 3], [1, 4]: three, no pad."""
    made_up = [enc(list(range(1, n + 2)), [1] * (n + 1)) for n in (5, 2, 3, 1, 4)]
    padded, packed = pad_batch(made_up, pad_id=0), pack_batch(made_up, seq_len=5, pad_id=0)
    assert padded.ids.shape == (5, 5) and int((padded.documents < 0).sum()) == 10
    assert packed.ids.shape == (3, 5) and int((packed.documents < 0).sum()) == 0
    assert packed.documents.tolist() == [[0] * 5, [0, 0, 1, 1, 1], [0, 1, 1, 1, 1]]
    assert int((packed.labels != IGNORE).sum()) == int((padded.labels != IGNORE).sum()) == 15


@pytest.mark.parametrize(
    ("call", "key", "fields"),
    [
        (lambda: pad_batch([], 0), "sft.no_examples", {}),
        (
            lambda: pack_batch([enc([1, 2, 3], [0, 1, 1])], 1, 0),
            "sft.too_long",
            {"index": 0, "n": 2, "seq_len": 1},
        ),
        (lambda: pack_batch([enc([1, 2], [0, 1])], 0, 0), "sft.seq_len", {"seq_len": 0}),
        (lambda: pad_batch([enc([1, 2], [1])], 0), "sft.mask_length", {"n": 2, "m": 1}),
    ],
)
def test_bad_batches_are_named(call, key, fields):
    with pytest.raises(UsageError) as e:
        call()
    assert e.value.key == key
    assert {k: e.value.fields[k] for k in fields} == fields


def test_a_conversation_without_an_assistant_turn_is_refused_for_sft():
    tok = chat_tokenizer(CharTokenizer.from_text("abcdefghijklmnopqrstuvwxyz \n"), CHATML)
    prompt = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]
    with pytest.raises(UsageError) as e:
        encode_for_sft(tok, CHATML.template(), prompt)
    assert e.value.code == "chat.no_assistant"
    answered = [*prompt, {"role": "assistant", "content": "yo"}]
    assert encode_for_sft(tok, CHATML.template(), answered) == encode_chat(tok, CHATML.template(), answered)
