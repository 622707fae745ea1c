"""The Explorer's answers (explorer.py). Every endpoint's answer, checked against the model computed
another way (never against itself); and step-by-step generation: the same tokens as
glassformer.sample.generate_ids, the cache kept between requests (and refilled when the window is
full), ablation applied to every step."""

from __future__ import annotations

import base64
import copy

import pytest
import torch
from explore_kit import TEXT, client_for, make_explorer, post, tiny_model, tokenizer

from glassformer.explore import panels
from glassformer.explore.explorer import MAX_SESSIONS, Generations, step
from glassformer.inspect.attention_maps import attention_maps
from glassformer.inspect.trace import trace
from glassformer.messages import translated
from glassformer.nn.position import POSITION_SCHEMES
from glassformer.sample import generate_ids

PROMPT = "the lazy fox"


def ids_of(text: str) -> torch.Tensor:
    return torch.tensor([tokenizer().encode(text)])  # (1, T)


def test_model_info_reads_the_declarations(client, gpt):
    info = client.get("/api/model").json()
    assert info["kind"] == "gpt" and info["layers"] == 2 and info["heads"] == 4 and info["samples"]
    assert [s["stage"] for s in info["stages"]] == ["scores", "weights"]
    assert info["stages"][1]["zh"]["stage"] == translated("weights", "zh")  # the glossary's words, in Chinese
    assert info["stages"][1]["en"]["axes"] == "B H T_q T_k"
    assert [v["en"]["name"] for v in info["vectors"]] == ["blocks.0.attn.q", "blocks.0.attn.k", "blocks.0.attn.v"]
    stream = [p["name"] for p in info["stream"]]
    assert stream == [
        "resid_pre",
        "blocks.0.resid_mid",
        "blocks.0.resid_post",
        "blocks.1.resid_mid",
        "blocks.1.resid_post",
    ]
    assert info["params"] == sum(p.numel() for p in gpt.model.parameters())
    assert tokenizer().encode(info["example"])  # a first input the vocabulary can spell


def test_analyze_tokens_attention_and_masks(client, gpt):
    a = post(client, "analyze", {"text": PROMPT, "layer": 1, "head": 2})
    ids = ids_of(PROMPT)
    assert a["ids"] == ids[0].tolist() and [t["id"] for t in a["tokens"]] == a["ids"]
    assert [t["text"] for t in a["tokens"]][3] == "␣"  # whitespace made visible
    W, hidden = attention_maps(gpt.model, ids)  # (L, H, T, T): the inspect module's own reading
    m = a["attention"]["matrix"]
    T = ids.size(1)
    for i in range(T):
        for j in range(T):
            if hidden[1, 2, i, j]:
                assert m[i][j] is None and j > i  # causal: the future is masked
            else:
                assert m[i][j] == pytest.approx(float(W[1, 2, i, j]), abs=6e-4)
    grid = a["attention"]["grid"]
    assert grid["scale"] == "absolute" and (grid["layers"], grid["heads"], grid["T"]) == (2, 4, T)
    cells = torch.tensor(list(base64.b64decode(grid["data"]))).reshape(2, 4, T, T)
    assert torch.equal(cells == 255, hidden)
    assert torch.allclose(cells[~hidden].float() / 254, W[~hidden], atol=0.5 / 254 + 1e-6)


def test_analyze_stream_lens_and_next_token(client, gpt):
    a = post(client, "analyze", {"text": PROMPT})
    ids = ids_of(PROMPT)
    logits, cache = gpt.model.run_with_cache(ids)
    names = a["stream"]["points"]
    norms = torch.stack([cache[n][0].norm(dim=-1) for n in names])  # (P, T)
    assert torch.allclose(torch.tensor(a["stream"]["norms"]), norms, atol=0.006)
    # pre-norm: final norm + head on the last stream point IS the model's output
    top = logits[0].softmax(-1).max(-1)  # (T,)
    last = a["lens"]["cells"][-1]
    assert [c[0][1] for c in last] == top.indices.tolist()
    assert [c[0][2] for c in last] == pytest.approx(top.values.tolist(), abs=6e-4)
    bars = a["next"]["rows"]
    probs = logits[0, -1].softmax(-1)
    assert [b["id"] for b in bars] == probs.topk(20).indices.tolist()
    assert [b["p"] for b in bars] == pytest.approx(probs.topk(20).values.tolist(), abs=6e-5)
    assert a["next"]["kept"] == a["next"]["vocab"] == tokenizer().vocab_size


def test_trace_rows_follow_the_trace_module(client, gpt):
    table = post(client, "trace", {"text": PROMPT, "lang": "zh"})
    expected = trace(gpt.model, ids_of(PROMPT), collapse=True, lang="zh")
    assert [r[1] for r in table["rows"]] == [r.name for r in expected.rows]
    assert [r[2] for r in table["rows"]] == [list(r.shape) if r.shape else None for r in expected.rows]
    assert table["columns"][0] == translated("stage", "zh")
    assert translated("weights", "zh") in [r[0] for r in table["rows"]]
    assert table["legend"] == expected.legend()
    same_length = post(client, "trace", {"text": PROMPT[::-1], "lang": "zh"})  # kept per (T, lang)
    assert same_length == table and (len(ids_of(PROMPT)[0]), "zh") in gpt.traces
    english = post(client, "trace", {"ids": [1, 2, 3]})
    assert english["columns"][0] == "stage" and english["rows"][0][2] == [1, 3]


def shaped(logits: torch.Tensor, temperature: float, p: float) -> torch.Tensor:
    """Temperature then top-p written out again as a loop over the sorted tokens (a reference)."""
    z = logits / temperature
    probs = z.softmax(-1)
    keep, mass = torch.zeros(len(z), dtype=torch.bool), 0.0
    for i in probs.argsort(descending=True).tolist():
        if mass >= p:  # the tokens above already hold p: the rest is cut
            break
        keep[i], mass = True, mass + float(probs[i])
    return torch.where(keep, z, torch.tensor(float("-inf"))).softmax(-1)


@pytest.mark.parametrize("temperature,k,p", [(0.5, 0, 1.0), (1.0, 3, 1.0), (2.0, 0, 0.3), (0.8, 5, 0.6)])
def test_next_bars_follow_temperature_top_k_top_p(client, gpt, temperature, k, p):
    bars = post(client, "next", {"text": PROMPT, "temperature": temperature, "top_k": k, "top_p": p})
    logits = gpt.model(ids_of(PROMPT))[0, -1]
    if k:  # top-k first: renormalise over the k best, then top-p on what is left
        kth = logits.topk(k).values[-1]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    ref = shaped(logits, temperature, p)
    assert bars["kept"] == int((ref > 0).sum())
    for row in bars["rows"]:
        assert row["p"] == pytest.approx(float(ref[row["id"]]), abs=6e-5)
        assert row["kept"] == bool(ref[row["id"]] > 0)
    if bars["kept"] <= len(bars["rows"]):  # every drawable token is shown: they hold all the mass
        assert sum(r["p"] for r in bars["rows"]) == pytest.approx(1.0, abs=2e-3)


def test_temperature_zero_is_greedy(client, gpt):
    bars = post(client, "next", {"text": PROMPT, "temperature": 0})
    assert bars["kept"] == 1 and bars["rows"][0]["p"] == 1.0
    assert bars["rows"][0]["id"] == int(gpt.model(ids_of(PROMPT))[0, -1].argmax())


def test_ablation_equals_zeroing_the_heads_columns_of_the_projection(client, gpt):
    """Zeroing head h of layer l (z hook) must equal a model whose output projection ignores that
    head's D input columns: a different route to the same function."""
    a = post(client, "analyze", {"text": PROMPT, "ablate": [[0, 1], [1, 3]]})
    other = copy.deepcopy(gpt.model)
    D = other.cfg.d_head
    with torch.no_grad():
        for layer, head in ((0, 1), (1, 3)):
            other.blocks[layer].attn.proj.weight[:, head * D : (head + 1) * D] = 0
        ablated = other(ids_of(PROMPT))[0, -1].softmax(-1)
        intact = gpt.model(ids_of(PROMPT))[0, -1].softmax(-1)
    assert a["ablated"] == [[0, 1], [1, 3]]
    for row in a["next"]["rows"]:
        assert row["p"] == pytest.approx(float(ablated[row["id"]]), abs=6e-5)
        assert row["p_base"] == pytest.approx(float(intact[row["id"]]), abs=6e-5)
    assert any(abs(r["p"] - r["p_base"]) > 1e-3 for r in a["next"]["rows"])  # it changed something
    again = post(client, "next", {"text": PROMPT, "ablate": [[0, 1], [1, 3]]})
    assert [r["p"] for r in again["rows"]] == [r["p"] for r in a["next"]["rows"]]


def test_attention_on_demand_and_vectors(client, gpt):
    ids = ids_of(PROMPT)
    scores = post(client, "attention", {"ids": ids[0].tolist(), "layer": 0, "head": 3, "stage": "scores"})
    _, cache = gpt.model.run_with_cache(ids)
    ref = cache["blocks.0.attn.scores"][0, 3]
    assert "grid" not in scores and scores["matrix"][0][1] is None
    assert scores["matrix"][4][2] == pytest.approx(float(ref[4, 2]), abs=6e-3)
    grid = post(client, "attention", {"text": PROMPT, "stage": "scores", "grid": True})["grid"]
    assert grid["scale"] == "per_head"
    vec = post(client, "vectors", {"text": PROMPT, "layer": 1, "head": 2, "token": 5, "lang": "zh"})
    assert [v["name"] for v in vec["vectors"]] == ["blocks.1.attn.q", "blocks.1.attn.k", "blocks.1.attn.v"]
    assert vec["vectors"][0]["means"].startswith("查询")
    for v in vec["vectors"]:
        assert v["values"] == pytest.approx(cache[v["name"]][0, 2, 5].tolist(), abs=6e-4)


def test_long_input_is_cropped_to_max_len_with_a_note(client):
    text = (TEXT * 3)[:40]
    a = post(client, "analyze", {"text": text})
    assert len(a["tokens"]) == 16 and len(a["ids"]) == 40
    assert a["notes"] == [{"code": "cropped", "kept": 16, "total": 40}]
    assert [t["id"] for t in a["tokens"]] == tokenizer().encode(text)[-16:]


def test_regressor_page_data():
    ex = make_explorer("regressor")
    c = client_for(ex)
    info = c.get("/api/model").json()
    assert info["inputs"] == "numbers" and not info["samples"] and len(info["example"].split()) == 16
    a = post(c, "analyze", {"text": "0 0.5, 1 0.5 0 -0.5", "ablate": [[1, 0]]})
    x = torch.tensor([0, 0.5, 1, 0.5, 0, -0.5]).reshape(1, 6, 1)
    assert a["prediction"]["inputs"] == pytest.approx(x.flatten().tolist())
    assert a["prediction"]["base"] == pytest.approx(ex.model(x)[0, :, 0].tolist(), abs=6e-5)
    assert a["prediction"]["values"] != a["prediction"]["base"]
    assert len(a["lens"]["values"]) == len(a["stream"]["points"]) and "next" not in a
    assert a["tokens"][1]["text"] == "0.5"
    for endpoint in ("next", "generate"):
        assert (
            post(c, endpoint, {"ids": [1]} if endpoint == "generate" else {"text": "1 2"}, 422)["code"] == "no_tokens"
        )


def test_encoder_page_data_has_no_causal_mask():
    c = client_for(make_explorer("encoder"))
    a = post(c, "analyze", {"text": PROMPT})
    assert all(v is not None for row in a["attention"]["matrix"] for v in row)
    assert not c.get("/api/model").json()["kv_cache"]


def test_chinese_text_and_fused_attention_runs():
    ex = make_explorer("gpt", attention="fused")  # the explorer switches to the glass path
    a = post(client_for(ex), "analyze", {"text": "你好，世界"})
    assert [t["text"] for t in a["tokens"]] == list("你好，世界") and a["attention"]["matrix"][0][0] == 1.0


def test_a_word_model_and_its_example_input():
    from dataclasses import replace

    from glassformer.config import get_preset
    from glassformer.explore import Explorer
    from glassformer.models import build_model
    from glassformer.text import WordTokenizer

    def explorer(words: str) -> Explorer:
        tok = WordTokenizer.from_text(words)
        return Explorer(build_model(replace(get_preset("seed002").model, vocab_size=tok.vocab_size)), tok)

    assert explorer("i like apples").info()["example"] == ""  # nothing it can spell: the page asks to type
    words = panels.EXAMPLES[1]  # an example of words only (the first has a name and punctuation in it)
    ex = explorer(f"to be or not that is the question {words}")
    assert ex.info()["example"] == words  # the first example the vocabulary spells exactly
    c = client_for(ex)
    a = post(c, "analyze", {"text": "to be or zebra"})
    assert [t["text"] for t in a["tokens"]] == ["to", "be", "or", "<UNK>"]
    g = post(c, "generate", {"ids": a["ids"], "n": 2, "seed": 0})
    assert g["text"] == " " + ex.tokenizer.decode(g["ids"][-2:])  # the words, with the spaces between


# ────────────────────────────────────────────────────────────────────────────────────────────────
# Generation: one token per click, the KV cache kept between clicks
# ────────────────────────────────────────────────────────────────────────────────────────────────


GENERATE_FROM = "the quick brown"  # 15 tokens: max_len is 16, so the cache fills after one token


def reference(model, ids: list[int], n: int, seed: int, temperature=1.0, top_k=None, top_p=None) -> list[int]:
    gen = torch.Generator().manual_seed(seed)
    return [int(t) for t in generate_ids(model, torch.tensor([ids]), n, temperature, top_k, top_p, gen)]


def test_clicks_resume_the_cache_and_match_generate_ids(gpt, client):
    ids = tokenizer().encode(GENERATE_FROM)
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
    """One sampling rule: explorer.py imports sample.py's steps rather than repeating them."""
    from glassformer import sample
    from glassformer.explore import explorer

    assert explorer.next_probs is sample.next_probs and explorer.draw is sample.draw
    assert explorer.next_logits is sample.next_logits
