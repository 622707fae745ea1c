"""Every notebook runs top to bottom in a fresh kernel with its small settings (FAST = True) and
computes what it says it computes: the checks read the notebook's RESULTS and compare them with
references computed here, independently. The English and the Chinese notebook of a pair run the
same code on the same seeds, so their numbers must be equal.

Files go into a temporary folder (OUT_DIR, the corpus cache, the kernel's working directory);
nothing is written into the repository.
"""

import importlib.util
import json
import math
from dataclasses import replace

import numpy as np
import pytest
import torch
from notebook_runner import NOTEBOOKS, run_notebook

from glassformer.config import ModelConfig
from glassformer.exercises import catalog
from glassformer.lab import order
from glassformer.lab.common import TOY, fixed_windows, lab_preset, load_corpus
from glassformer.lessons import fruit, ladder
from glassformer.lessons.fruit import PUBLISHED_FRUIT
from glassformer.models import build_model

TIMEOUT = 240  # seconds per cell, generous: a shared 2-core machine can be slow
STEMS = [
    "01_attention_by_hand",
    "02_char_gpt",
    "03_inside_the_model",
    "04_sine_transformer",
    "05_lab",
    "06_exercises",
    "07_causal",
    "08_ladder",
    "09_post_training",
    "10_experts_and_latents",
]
RUNS: dict[str, tuple[dict, float]] = {}  # file name -> (RESULTS, CPU seconds): each notebook runs once
REPO = NOTEBOOKS.parent
LISTED: dict = {}  # the repository's top folder and notebooks/ before any notebook ran


def listing() -> dict:
    return {str(p): sorted(x.name for x in p.iterdir()) for p in (REPO, NOTEBOOKS)}


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    LISTED.update(listing())
    return tmp_path_factory.mktemp("notebooks")


def results(name: str, workdir) -> dict:
    if name not in RUNS:
        out = workdir / name / "out"
        res, _, cpu = run_notebook(
            NOTEBOOKS / name,
            {"FAST": True, "OUT_DIR": str(out)},
            workdir / name,
            timeout=TIMEOUT,
            cache=workdir / "cache",
        )
        RUNS[name] = (res, cpu)
    return RUNS[name][0]


def check_01(r, out):
    E, W_Q, W_K, W_V = (torch.tensor(a) for a in (fruit.E, fruit.W_Q, fruit.W_K, fruit.W_V))  # float64
    weights = torch.softmax((E @ W_Q) @ (E @ W_K).T / math.sqrt(2), dim=-1)  # (3, 3), torch's own softmax
    assert np.allclose(r["weights"], weights.numpy(), atol=1e-12, rtol=0)
    assert np.allclose(r["output"], (weights @ (E @ W_V)).numpy(), atol=1e-12, rtol=0)
    assert r["library_diff"] < 1e-12 and r["heads_checks"] is True
    causal = np.array(r["causal_weights"])
    assert np.allclose(causal.sum(1), 1) and np.all(np.triu(causal, 1) == 0) and causal[0, 0] == 1
    printed_q = np.array(PUBLISHED_FRUIT["Q"][0])  # the tutorial's Q is right, its weights are not
    assert r["published_gap"]["Q"] == np.abs((fruit.E @ fruit.W_Q) - printed_q).max() == 0
    assert r["published_gap"]["weights"] > 0.05
    assert r["dot_spread"] < 1e-12 and r["claim_gap"] > 0.5
    assert r["pe_shape"] == [16, 8]  # the small settings were used


def check_02(r, out):
    assert r["data"] == "builtin:seed" and r["status"] == "done" and r["steps"] == 60
    assert abs(r["initial_loss"] - r["ln_vocab"]) < 0.5  # an untrained model is about uniform
    assert r["train_loss"] < r["initial_loss"] - 0.2  # and training lowered the loss
    assert len(r["sample"]) == len(r["greedy"]) == 60 and r["same_after_reload"] is True
    assert {"config.json", "tokenizer.json", "model.safetensors", "train_state.pt", "loss.png"} <= set(r["run_files"])
    assert r["run_dir"] == str(out / "run")


def check_03(r, out):
    names = r["trace_rows"]
    assert names[:3] == ["text", "pieces", "ids"] and names[-2:] == ["softmax(logits)", "loss"]
    assert "blocks.1.attn.weights" in names and r["steps"] == 40
    assert r["softmax_matches"] is True and r["row_sum_error"] < 1e-5 and r["masked_weight"] == 0
    assert r["weights_shape"][:2] == [1, 4] and r["weights_shape"][2] == r["weights_shape"][3]
    assert sorted(r["ablation"]) == [f"{l}.{h}" for l in range(2) for h in range(4)]
    assert r["most_important"] == max(r["ablation"], key=r["ablation"].get)
    assert list(r["grad_layers"]) == ["embed", "block 0", "block 1", "head"]
    assert all(v > 0 for v in r["grad_layers"].values()) and r["model_unchanged"] is True
    assert r["params_total"] == r["numel"] and r["params_match"] is True
    assert r["attention_files"] == ["attention.png", "attention.html"]
    assert (out / "attention" / "attention.html").is_file()


def check_04(r, out):
    assert r["epochs_run"] == 2 and r["forecast_shape"] == [64, 10]
    assert 0.2 < r["baselines"]["zero"] < 0.8  # E[sin²] = 1/2
    assert len(r["baselines"]) == 2 and all(v > 0 for v in r["baselines"].values())  # and the last value's
    assert math.isfinite(r["val_mse"]) and r["val_mse"] == min(r["val_mse_per_epoch"])
    assert r["period"] <= 39 - 8 and all(0 <= k <= 39 for k in r["looks_at"].values())
    assert np.allclose(r["attention_rows_sum"], 1, atol=1e-5)


def permutation_gap(kind: str, causal: bool, position: str, seed: int = 11, T: int = 12) -> float:
    """max |f(x[π]) - f(x)[π]| in float64, with a seed, length and permutation of the test's own."""
    cfg = lab_preset(kind=kind, causal=causal, position=position, vocab_size=30).model
    torch.manual_seed(seed)
    model = build_model(cfg).double().eval()
    ids = torch.arange(T).unsqueeze(0) % cfg.vocab_size  # (1, T)
    perm = torch.arange(T - 1, -1, -1)  # (T,) reversed order
    with torch.no_grad():
        return float((model(ids[:, perm]) - model(ids)[:, perm]).abs().max())


def check_05(r, out):
    # masking by hand, recomputed: a fully masked row with -inf is 0/0 = NaN in every cell, with
    # -1e9 it is an even spread over the keys it must not see (weight 1 in all on hidden keys)
    scores = torch.tensor([[0.3, -1.2, 2.0, 0.5], [1.0, 0.1, -0.4, 2.2]])  # (2, 4)
    hidden = torch.tensor([[False, False, True, True], [True, True, True, True]])
    inf = torch.softmax(scores.masked_fill(hidden, -math.inf), -1)  # (2, 4)
    big = torch.softmax(scores.masked_fill(hidden, -1e9), -1)  # (2, 4)
    assert r["by_hand"]["-inf"]["nan"] == int(inf.isnan().sum()) == 4
    assert r["by_hand"]["-1e9"]["nan"] == int(big.isnan().sum()) == 0
    assert r["by_hand"]["-1e9"]["hidden_weight_row1"] == float(big[1].sum()) == 1.0
    assert r["by_hand"]["-inf"]["hidden_weight_row0"] == r["by_hand"]["-1e9"]["hidden_weight_row0"] == 0.0
    # the lab's mask-fill (64 fully masked float32 rows of 8 keys): the same two facts at its size
    rows = torch.randn(64, 8).masked_fill(torch.ones(64, 8, dtype=torch.bool), -math.inf)  # (64, 8)
    assert (
        r["mask_fill_nan"]
        == {"-inf": int(torch.softmax(rows, -1).isnan().sum()), "-1e9": 0}
        == {"-inf": 512, "-1e9": 0}
    )
    assert r["mask_fill_hidden_1e9"] == 1.0
    # so -1e9 avoids NaN but puts weight on hidden keys: half of claim 004, and -inf zeroes partly masked rows
    assert r["mask_fill_levels"] == {"mask-fill.1e9": "half-true", "mask-fill.inf": "holds"}
    assert r["same_as_committed"] is True  # nothing trains there: the committed numbers are reproduced
    # permutation-equivariance, recomputed with another seed, length and permutation
    assert permutation_gap("encoder", False, "none") < 1e-12
    assert permutation_gap("encoder", False, "learned") > 1e-3 and permutation_gap("gpt", True, "none") > 1e-3
    for gaps in (r["gaps_by_hand"], r["gaps_lab"]):  # the lab's cases: only the encoder without positions is
        assert list(gaps) == list(order.CASES)  # equivariant, as recomputed above
        for name, case in order.CASES.items():
            assert gaps[name] < 1e-12 if case == ("encoder", False, "none") else gaps[name] > 1e-3, name
    assert r["order_fast"] is True and r["order_levels"]["order.set"] != "fails"  # its first part holds (above)
    # every committed verdict, read here from the files themselves
    committed = {
        c["key"]: c["level"]
        for path in (REPO / "docs" / "lab").glob("*/results.json")
        for c in json.loads(path.read_text(encoding="utf-8"))["claims"]
    }
    assert r["committed"] == committed and r["table_rows"] == len(committed) > 10
    assert r["experiments"][:2] == ["length", "layernorm"] and "mask-fill" in r["experiments"]
    assert r["lab_files"] == ["mask_fill.png", "report.md", "results.json"]
    assert json.loads((out / "lab" / "order" / "results.json").read_text(encoding="utf-8"))["fast"] is True


def check_06(r, out):
    assert r["start_exit"] == 0 and r["start_again_exit"] == 1  # start never overwrites
    assert r["statuses"] == ["todo", "failed", "passed"]
    no_shift = next(v.note for v in catalog.get("softmax").variants if v.id == "no_shift")  # exp without the max
    assert r["wrong_mistake"] == no_shift and r["first_failing_problem"] == "nan"
    assert 0 < r["wrong_cases_passed"] < r["right_cases"][1]
    x = torch.tensor([800.0, 801.0], dtype=torch.float64)  # why no shift fails: exp(800) = inf, inf/inf = NaN
    assert torch.isnan(torch.exp(x) / torch.exp(x).sum()).all()
    notes = {v.id: v.note for v in catalog.get("softmax").variants}  # each known mistake names its own note
    assert {k: v["named"] for k, v in r["mistakes"].items()} == {k: notes[k] for k in r["mistakes"]}
    assert len(r["mistakes"]) >= 4 and all(v["status"] == "failed" for v in r["mistakes"].values())
    assert r["right_cases"][0] == r["right_cases"][1] > 10
    assert r["solution_exit"] == 0 and r["progress"] == "passed" and r["ever_passed"] is True
    assert r["reference_status"] == {}  # skipped with the small settings
    # the file the notebook graded as passing, loaded here and compared with torch's own softmax
    spec = importlib.util.spec_from_file_location("learner_softmax", out / "exercises" / "softmax.py")
    mine = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mine)
    g = torch.Generator().manual_seed(5)
    for x, dim in (
        (torch.randn(3, 4, 5, generator=g, dtype=torch.float64), 1),
        (torch.randn(2, 6, generator=g, dtype=torch.float64) * 50 + 800, -1),
    ):
        assert torch.allclose(mine.softmax(x, dim), torch.softmax(x, dim), atol=1e-12, rtol=0)
    saved = json.loads((out / "exercises" / ".glassformer-progress.json").read_text(encoding="utf-8"))
    assert saved["exercises"]["softmax"]["status"] == "passed"


def check_07(r, out):
    assert r["steps"] == 400  # the small settings were used
    assert r["repeat_loss"] < r["other_loss"] - 1.0  # the model completes repeats, and only those
    prev, ind = r["scores"]["previous_token"], r["scores"]["induction"]
    (pl, ph), (il, ih) = r["prev_head"], r["induction_head"]
    assert pl == 0 and il == 1  # the circuit: a previous-token head feeding an induction head
    assert prev[pl][ph] == max(v for row in prev for v in row) > 0.4
    assert ind[il][ih] == max(v for row in ind for v in row) > 0.3  # a head without the job: about 1/16
    assert r["ablation_rise"][pl][ph] > 0.1 and r["ablation_rise"][il][ih] > 0.1  # and both matter
    assert r["patch_head"][0] == 1 and max(max(row) for row in r["patch_heads"]) > 0.3
    clean, corrupt = r["clean"][0], r["corrupt"][0]
    assert [i for i, (a, b) in enumerate(zip(clean, corrupt)) if a != b] == [4]
    assert clean[4] == r["answer"] and corrupt[4] == r["wrong"] and clean[-1] == clean[3]  # ... A B ... A
    last = r["patch_stream"][-1]  # the last block's stream: only the last position carries the answer
    assert abs(last[-1] - 1) < 1e-4 and all(abs(v) < 1e-4 for v in last[:-1])
    assert abs(sum(r["dla_parts"].values()) + r["dla_bias"] - r["dla_diff"]) < 1e-4
    assert max(r["dla_parts"], key=r["dla_parts"].get) == "blocks.1.attn"  # layer 1's attention writes it
    assert -1 <= r["spearman"] <= 1 and 0 <= r["overlap"] <= 3


def check_08(r, out):
    assert r["steps"] == 10 and r["data"] == "toy"  # the small settings were used
    configs = ladder.ladder()
    assert r["rungs"] == [rung.key for rung in ladder.RUNGS]
    assert r["differences"] == {rung.key: sorted(rung.changes) for rung in ladder.RUNGS[1:]}
    assert r["end"] == ["activation"]  # baby-qwen3 but for a field SwiGLU does not read
    C, F = configs[0].d_model, configs[0].d_ff  # GPT-2's FFN against SwiGLU's, counted here from the weights
    assert r["glu_width"] == configs[2].d_ff and r["ffn_by_hand"] == r["ffn_counted"]
    assert r["ffn_counted"]["plain"] == 2 * C * F + F + C
    shapes = r["cache_shapes"]  # (B, H_kv, T, D) of one layer after a 16-token prefill
    assert shapes == {"rope": [1, 4, 16, 32], "gqa": [1, 2, 16, 32], "head-dim": [1, 2, 16, 64]}
    assert r["cache_bytes"] == r["formula"] == {k: 2 * 4 * s[1] * s[3] * 4 for k, s in shapes.items()}
    assert r["kv_bytes"]["gqa"] * 2 == r["kv_bytes"]["rope"] == r["cache_bytes"]["rope"]
    for key, cfg in zip(r["rungs"], configs, strict=True):  # every rung's count is its model's
        assert r["params"][key] == build_model(replace(cfg, vocab_size=r["vocab_size"])).num_params()
    assert all(math.isfinite(v) for v in r["val_loss"].values()) and r["files"] == ["ladder.png"]
    assert (out / "ladder.png").is_file()


def swiglu(x, expert):
    """(N, C) -> (N, C): one expert's SwiGLU written out, in float64."""
    g, u, d = (m.weight.double() for m in (expert.gate, expert.up, expert.down))
    return (torch.nn.functional.silu(x @ g.T) * (x @ u.T)) @ d.T


def route(x, router_weight, k):
    """(N, C) -> probabilities (N, E), the k chosen experts (N, k), their renormalised weights (N, k)."""
    probs = torch.softmax(x @ router_weight.double().T, dim=-1)  # (N, E)
    order = probs.argsort(dim=-1, descending=True)[:, :k]  # (N, k)
    chosen = probs.gather(-1, order)  # (N, k)
    return probs, order, chosen / chosen.sum(-1, keepdim=True)


def check_10(r, out):
    cfg = ModelConfig(**r["config"])
    assert r["steps"] == 10 and r["status"] == "done"  # the small settings, trained through the trainer
    assert cfg.ffn == "moe" and cfg.mla_kv_rank > 0 and cfg.n_experts > cfg.moe_top_k > 1
    assert r["train_loss"] < r["ln_v"] and r["val_loss"] < r["ln_v"]  # ten steps already beat a uniform guess
    model = build_model(cfg)
    model.load_state_dict(torch.load(out / "model.pt"))
    model.eval().requires_grad_(False)
    E, K, L, C = cfg.n_experts, cfg.moe_top_k, cfg.n_layers, cfg.d_model
    ids, at = torch.tensor([r["ids"]]), r["token"]
    with torch.no_grad():
        _, seen = model.run_with_cache(ids, names=[f"blocks.{layer}.ln2" for layer in range(L)] + ["blocks.0.ffn.out"])
    # one token through block 0's router and experts, written out here in float64
    ffn = model.blocks[0].ffn
    x = seen["blocks.0.ln2"][0, at : at + 1].double()  # (1, C)
    with torch.no_grad():
        probs, chosen, weights = route(x, ffn.router.weight, K)
        mixed = sum(weights[0, i] * swiglu(x, ffn.experts[int(e)])[0] for i, e in enumerate(chosen[0]))  # (C,)
    assert np.allclose(r["router_logits"], (x @ ffn.router.weight.double().T)[0], atol=1e-5)
    assert np.allclose(r["probs"], probs[0], atol=1e-6) and r["chosen"] == chosen[0].tolist()
    assert np.allclose(r["weights"], weights[0], atol=1e-6) and abs(sum(r["weights"]) - 1) < 1e-6
    assert np.allclose(r["mixed"], mixed, atol=1e-5) and len(r["mixed"]) == C
    assert np.allclose(seen["blocks.0.ffn.out"][0, at].double(), mixed, atol=1e-5)  # the layer's output, no more
    assert (
        r["same_choice"] is True
        and r["unchosen_zero"] is True
        and sorted(r["expert_gaps"]) == sorted(str(e) for e in r["chosen"])
    )
    gaps = [*r["router_gaps"].values(), *r["expert_gaps"].values(), r["routed_gap"], r["out_gap"]]
    assert max(gaps) < 1e-5
    # the routing: the sentence's map, the load, MaxVio and entropy over the validation text, recounted
    with torch.no_grad():
        _, pick, w = route(seen["blocks.0.ln2"][0].double(), ffn.router.weight, K)  # (T, K), (T, K)
    by_hand = torch.zeros(ids.shape[1], E, dtype=torch.float64).scatter_(-1, pick, w)  # (T, E)
    assert np.allclose(r["map"], by_hand, atol=1e-5) and np.allclose(np.sum(r["map"], 1), 1)
    val = load_corpus(TOY).val.tolist()
    full = len(val) // cfg.max_len * cfg.max_len
    rows = [torch.tensor(val[:full]).view(-1, cfg.max_len), torch.tensor([val[full:]])]
    load, bits, near = torch.zeros(L, E, dtype=torch.long), torch.zeros(L, dtype=torch.float64), 0
    with torch.no_grad():
        for batch in rows:
            _, c = model.run_with_cache(batch, names=[f"blocks.{layer}.ln2" for layer in range(L)])
            for layer in range(L):
                x_all = c[f"blocks.{layer}.ln2"].reshape(-1, C).double()  # (N, C)
                p, pick, _ = route(x_all, model.blocks[layer].ffn.router.weight, K)
                load[layer] += torch.bincount(pick.reshape(-1), minlength=E)
                bits[layer] += float(-(p * p.log2()).sum())
                ranked = p.sort(-1, descending=True).values  # (N, E)
                near += int((ranked[:, K - 1] - ranked[:, K] < 1e-5).sum())  # a float32 router may choose otherwise
    assert r["tokens_read"] == len(val) and sum(map(sum, r["load"])) == L * K * len(val)
    assert np.abs(np.array(r["load"]) - load.numpy()).sum() <= 2 * near  # equal, but for near-ties (usually none)
    counted = np.array(r["load"], dtype=np.float64)
    mean = counted.mean(1)
    assert np.allclose(r["max_violation"], (counted.max(1) - mean) / mean, atol=1e-6)
    assert np.allclose(r["entropy"], bits / len(val), atol=1e-6) and max(r["entropy"]) <= math.log2(E)
    assert {"experts_load.html", "experts_L0.png", f"experts_L{L - 1}.json"} <= set(r["routing_files"])
    assert (out / "routing" / "experts_load.json").is_file()
    # ablation: expert e of layer l zeroed = its down-projection zeroed (no bias), loss on the same windows
    xs, ys = fixed_windows(load_corpus(TOY).val, cfg.max_len, 16, r["seed"])
    ablated = np.zeros((L, E))
    with torch.no_grad():
        base = float(torch.nn.functional.cross_entropy(model(xs).transpose(1, 2), ys))
        for layer in range(L):
            for e in range(E):
                down = model.blocks[layer].ffn.experts[e].down.weight
                kept = down.clone()
                down.zero_()
                ablated[layer, e] = float(torch.nn.functional.cross_entropy(model(xs).transpose(1, 2), ys))
                down.copy_(kept)
    assert abs(r["base_loss"] - base) < 1e-5 and np.allclose(r["ablated"], ablated, atol=1e-5)
    assert (
        tuple(r["most"]) == np.unravel_index(np.argmax(ablated - base), (L, E))
        and abs(r["alone"] - ablated.max()) < 1e-5
    )
    # the latent cache: what it holds, its bytes against multi-head, grouped and multi-query attention
    T, R, D_r, H = ids.shape[1], cfg.mla_kv_rank, cfg.mla_d_rope, cfg.n_heads
    assert r["cache_type"] == "LatentCache" and r["cache_shapes"] == {"latent": [1, T, R], "rope_key": [1, 1, T, D_r]}
    assert r["measured"] == r["formula"] == r["side"]["mine"] == L * (R + D_r) * 4  # float32
    assert r["side"]["mha"] == L * 2 * C * 4 and r["side"]["mqa"] == L * 2 * (C // H) * 4  # H·D = C
    assert {row["kind"]: row["measured"] for row in r["table"]} == {
        "mha": r["side"]["mha"],
        "gqa": r["side"]["gqa"],
        "mqa": r["side"]["mqa"],
        "mla": r["measured"],
    }
    assert all(row["measured"] == row["formula"] for row in r["table"])
    # keys rebuilt from the latent by hand: x W_DKV, its RMSNorm, W_UK; the absorbed form, the decoding
    attn = model.blocks[0].attn
    with torch.no_grad():
        _, c = model.run_with_cache(ids, names=["blocks.0.ln1", "blocks.0.attn.k"])
        latent = (c["blocks.0.ln1"] @ attn.kv_down.weight.T)[..., :R].double()  # (1, T, R)
        latent = (
            latent / (latent.pow(2).mean(-1, keepdim=True) + attn.kv_norm.eps).sqrt() * attn.kv_norm.weight.double()
        )
        w_uk = attn.kv_up.weight.double().view(H, cfg.mla_d_nope + cfg.mla_d_v, R)[:, : cfg.mla_d_nope]  # (H, D_n, R)
        k_nope = torch.einsum("btr,hdr->bhtd", latent, w_uk)  # (1, H, T, D_n)
    assert torch.allclose(k_nope, c["blocks.0.attn.k"][..., : cfg.mla_d_nope].double(), atol=1e-5)
    assert max(r["key_gaps"].values()) < 1e-5 and r["attention_gaps"]["absorbed"] < 1e-5
    assert r["attention_gaps"]["plain_vs_hook"] == 0 and r["attention_gaps"]["decoding"] < 1e-4  # logits of a few units


def check_09(r, out):
    from glassformer.lessons import post_training
    from glassformer.post import diff

    budget = post_training.FAST
    assert r["steps"] == {name: getattr(budget, name) for name in ("pretrain", *post_training.TUNINGS)}
    questions = post_training.held_out(budget.held_out, budget.sums)  # recomputed: the same sums, none trained on
    assert r["questions"] == [q.prompt[0]["content"] for q in questions]
    assert r["run_dir"] == str(out / "runs")
    for stage, start in (("sft", "base"), ("lora", "base"), ("dpo", "sft"), ("grpo", "dpo")):
        assert r["accuracy"][stage] == post_training.run_accuracy(out / "runs" / stage, questions)
        layers, _ = diff.weight_views(diff.open_pair(out / "runs" / start, out / "runs" / stage))
        assert r["moved"][stage]["layer_change"] == max(v[0] for v in layers.values)
    assert r["moved"]["lora"]["lora_ranks"] == [post_training.LORA.r]
    assert len(r["rewards"]) == budget.grpo and all(0 <= x <= 1 for x in r["rewards"])


CHECKS = dict(
    zip(
        STEMS,
        (check_01, check_02, check_03, check_04, check_05, check_06, check_07, check_08, check_09, check_10),
        strict=True,
    )
)




@pytest.mark.slow
@pytest.mark.parametrize("lang", ["", ".zh"], ids=["en", "zh"])
@pytest.mark.parametrize("stem", STEMS)
def test_notebook_runs_and_computes(stem, lang, workdir):
    name = f"{stem}{lang}.ipynb"
    CHECKS[stem](results(name, workdir), workdir / name / "out")


@pytest.mark.slow
@pytest.mark.parametrize("stem", STEMS)
def test_both_languages_compute_the_same_numbers(stem, workdir):
    en, zh = results(f"{stem}.ipynb", workdir), results(f"{stem}.zh.ipynb", workdir)
    differ = [k for k in en if k != "run_dir" and en[k] != zh[k]]
    assert not differ, f"{stem}: the English and Chinese notebooks disagree on {differ}"


@pytest.mark.slow
def test_nothing_is_written_into_the_repository(workdir):
    for stem in STEMS:
        results(f"{stem}.ipynb", workdir)
    assert listing() == LISTED
