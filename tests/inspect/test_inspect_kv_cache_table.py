"""KV-cache bytes per token for MHA / GQA / MQA / MLA measured from real caches (inspect/params.py's
kv_cache_table: each attention built from the same config, a prefill into its own cache, the bytes
held counted) against the formula and against the sizes worked out here; `glassformer params`
prints and writes them."""

from __future__ import annotations

import json

import pytest
import torch
from helpers import said

from glassformer.cli import main
from glassformer.config import ModelConfig, get_preset
from glassformer.inspect.params import CACHE_KINDS, cache_variants, kv_cache_table
from glassformer.models import build_model

pytestmark = pytest.mark.usefixtures("one_thread")

BASE = dict(vocab_size=11, d_model=32, n_heads=4, d_ff=48, n_layers=3, max_len=16, bias=False)
FLOAT = 4  # bytes of a float32


def test_each_attentions_cache_holds_what_its_sizes_say_a_token_costs():
    L, H, D = 3, 4, 8
    rows = {r.kind: r for r in kv_cache_table(ModelConfig(**BASE))}
    assert tuple(rows) == CACHE_KINDS
    assert rows["mha"].measured == L * 2 * H * D * FLOAT  # H keys and H values a layer
    assert rows["gqa"].measured == L * 2 * 2 * D * FLOAT and rows["gqa"].sizes["n_kv_heads"] == 2
    assert rows["mqa"].measured == L * 2 * 1 * D * FLOAT  # one key, one value
    R, D_r = rows["mla"].sizes["kv_rank"], rows["mla"].sizes["d_rope"]
    assert (R, D_r) == (min(4 * D, 32), D // 2) and rows["mla"].measured == L * (R + D_r) * FLOAT
    assert all(r.measured == r.formula for r in rows.values())


def test_an_mla_model_is_measured_at_its_own_latent_and_a_prime_head_count_has_no_gqa_row():
    own = ModelConfig(**BASE, position="rope", mla_kv_rank=12, mla_d_nope=8, mla_d_rope=4, mla_d_v=8)
    rows = {r.kind: r for r in kv_cache_table(own)}
    assert rows["mla"].sizes == {"kv_rank": 12, "d_rope": 4} and rows["mla"].measured == 3 * 16 * FLOAT
    assert cache_variants(own)["mha"].mla_kv_rank == 0  # the others without the latent
    prime = {r.kind for r in kv_cache_table(ModelConfig(**{**BASE, "n_heads": 2, "d_model": 16}))}
    assert prime == {"mha", "mqa", "mla"}


def test_a_cache_counts_only_the_positions_it_holds():
    model = build_model(ModelConfig(**BASE)).eval()
    cache = model.new_cache(2)
    assert cache.nbytes() == 0  # room for max_len, nothing held
    with torch.no_grad():
        model(model.example_input(2, 5), cache=cache)
    assert cache.nbytes() == 3 * 2 * 4 * 8 * FLOAT * 2 * 5  # L · (k, v) · H · D · bytes · B · T
    window = build_model(ModelConfig(**BASE, position="rope", sliding_window=3)).eval()
    cache = window.new_cache(1)
    with torch.no_grad():
        window(window.example_input(1, 6), cache=cache)
    assert cache.nbytes() == 3 * 2 * 4 * 8 * FLOAT * 2  # a window of 3 keeps the last 2 keys


def test_params_prints_and_writes_the_measured_table(tmp_path, capsys):
    assert main(["params", "--preset", "baby-llama", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    data = json.loads((tmp_path / "params.json").read_text(encoding="utf-8"))
    want = [vars(r) for r in kv_cache_table(get_preset("baby-llama").model)]
    assert data["kv_cache_measured"] == want and [r["kind"] for r in want] == list(CACHE_KINDS)
    for r in want:
        assert f"{r['kind'].upper():<5}" in out and f"{r['measured']:>12,}" in out


def test_params_of_an_mla_model_names_its_latent_and_keeps_its_bytes(tmp_path):
    """An MLA model's own cache is its latent and rotary key: the printed line carries R_kv, D_r and
    their bytes (not an H_kv), and params.json's own column equals the measured MLA row."""
    sizes = ["--n_kv_heads=0", "--mla_kv_rank=16", "--mla_d_nope=8", "--mla_d_rope=8", "--mla_d_v=16"]
    with said() as heard:
        assert main(["params", "--preset", "baby-llama", *sizes, "--out", str(tmp_path)]) == 0
    data = json.loads((tmp_path / "params.json").read_text(encoding="utf-8"))
    layers = data["kv_cache_per_token"]["n_layers"]
    mla = next(r for r in data["kv_cache_measured"] if r["kind"] == "mla")
    assert data["kv_cache_per_token"]["mine"] == mla["measured"] == layers * (16 + 8) * FLOAT
    assert heard.carrying(kv_rank=16, d_rope=8, mine=mla["measured"])
