"""Step-by-step generation: the same tokens as glassformer.sample.generate_ids, the cache kept between
requests (and refilled when the window is full), ablation applied to every step."""

from __future__ import annotations

import copy

import pytest
import torch
from explore_kit import client_for, make_explorer, post, tiny_model, tokenizer

from glassformer.explore.generation import MAX_SESSIONS, Generations, step
from glassformer.nn.position import POSITION_SCHEMES
from glassformer.sample import generate_ids

PROMPT = "the quick brown"  # 15 tokens: max_len is 16, so the cache fills after one token


def reference(model, ids: list[int], n: int, seed: int, temperature=1.0, top_k=None, top_p=None) -> list[int]:
    gen = torch.Generator().manual_seed(seed)
    return [int(t) for t in generate_ids(model, torch.tensor([ids]), n, temperature, top_k, top_p, gen)]


def test_clicks_resume_the_cache_and_match_generate_ids(gpt, client):
    ids = tokenizer().encode(PROMPT)
    got, session, settings = [], None, {"temperature": 0.9, "top_k": 12, "top_p": 0.95, "seed": 7}
    for n, resumed in ((1, False), (1, True), (4, True), (3, True)):
        r = post(client, "generate", {"ids": ids + got, "n": n, "session": session, **settings})
        assert r["resumed"] is resumed and len(r["tokens"]) == n
        assert r["ids"] == ids + got + [t["id"] for t in r["tokens"]]
        got += [t["id"] for t in r["tokens"]]
        session = r["session"]
        assert 0 < r["cached"] <= 16
    assert got == reference(gpt.model, ids, 9, 7, 0.9, 12, 0.95)
    assert r["text"] == tokenizer().decode(got[-3:])


def test_next_bars_after_a_step_are_the_distribution_of_the_next_draw(gpt, client):
    ids = tokenizer().encode("fox")
    r = post(client, "generate", {"ids": ids, "n": 2, "seed": 1, "temperature": 0.7})
    after = gpt.model(torch.tensor([r["ids"]]))[0, -1]
    probs = (after / 0.7).softmax(-1)
    assert [b["id"] for b in r["next"]["rows"]] == after.topk(20).indices.tolist()
    assert [b["p"] for b in r["next"]["rows"]] == pytest.approx(probs[after.topk(20).indices].tolist(), abs=6e-5)


def test_greedy_ignores_the_seed_and_other_ids_start_afresh(client, gpt):
    ids = tokenizer().encode("the")
    a = post(client, "generate", {"ids": ids, "n": 5, "temperature": 0, "seed": 1})
    b = post(client, "generate", {"ids": ids, "n": 5, "temperature": 0, "seed": 2})
    assert a["ids"] == b["ids"] == ids + reference(gpt.model, ids, 5, 0, temperature=0)
    c = post(client, "generate", {"ids": ids, "n": 1, "temperature": 0, "session": a["session"]})
    assert not c["resumed"]  # the session stands 5 tokens further on: it is not reused


def test_ablated_generation_uses_the_ablated_model_at_every_step(gpt, client):
    ids = tokenizer().encode("over the")
    r = post(client, "generate", {"ids": ids, "n": 6, "seed": 3, "ablate": [[1, 0], [1, 2]]})
    other = copy.deepcopy(gpt.model)
    D = other.cfg.d_head
    for head in (0, 2):
        other.blocks[1].attn.proj.weight[:, head * D : (head + 1) * D] = 0
    assert [t["id"] for t in r["tokens"]] == reference(other, ids, 6, 3)
    resumed = post(client, "generate", {"ids": r["ids"], "n": 1, "seed": 3, "session": r["session"]})
    assert not resumed["resumed"]  # no ablation now: the cached keys were made without those heads


def test_sessions_are_bounded():
    ex = make_explorer("gpt")
    c = client_for(ex)
    first = post(c, "generate", {"ids": [1, 2], "n": 1})
    for i in range(MAX_SESSIONS):
        post(c, "generate", {"ids": [3, i % 5], "n": 1})
    assert len(ex.generations.sessions) == MAX_SESSIONS
    again = post(c, "generate", {"ids": first["ids"], "n": 1, "session": first["session"]})
    assert not again["resumed"]


def test_encoder_generates_without_a_cache():
    ex = make_explorer("encoder")
    ids = tokenizer().encode("lazy")
    r = post(client_for(ex), "generate", {"ids": ids, "n": 4, "seed": 5})
    assert r["cached"] == 0 and [t["id"] for t in r["tokens"]] == reference(ex.model, ids, 4, 5)


@pytest.mark.parametrize("position", sorted(POSITION_SCHEMES))
def test_past_max_len_the_explorer_draws_from_the_logits_sample_draws_from(position):
    """Issue 24, bug 2: the explorer cropped and reset its cache at max_len for every scheme, while
    sample keeps the whole text for a scheme without a position table (rotary, ALiBi, none): past
    max_len its logits differed from sample's (here by 0.14 ALiBi, 0.19 rotary and none). Both now ask
    sample.next_logits."""
    model = tiny_model("gpt", position=position)  # max_len 16
    prompt, n = tokenizer().encode("the quick"), 30  # 9 tokens, 30 more: far past max_len
    theirs = []  # the logits sample's loop reads at every step, recorded at the logits hook point
    model._hooks["logits"].fns.append(lambda t, name: theirs.append(t[0, -1].clone()))
    try:
        tokens = reference(model, prompt, n, 0, temperature=0)
    finally:
        model._hooks["logits"].fns.clear()
    _, session = Generations().start(model, prompt, frozenset(), {}, 0)
    ours = [session.logits[0]]
    for _ in range(n - 1):
        step(model, session, {}, 0, None, None)
        ours.append(session.logits[0])
    assert session.ids[len(prompt) :] == tokens[:-1]
    diff = max((a - b).abs().max().item() for a, b in zip(ours, theirs, strict=True))
    assert diff <= 1e-5, f"{position}: the explorer's logits differ from sample's by {diff:.3g}"


def test_the_page_shapes_and_draws_with_samples_own_functions():
    """One sampling rule: generation.py re-exports sample.py's steps rather than repeating them."""
    from glassformer import sample
    from glassformer.explore import generation

    assert generation.next_probs is sample.next_probs and generation.draw is sample.draw
    assert generation.next_logits is sample.next_logits
