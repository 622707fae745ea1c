"""Tiny models of every kind, their Explorers, a test client for each (no server, no network), run folders."""

from __future__ import annotations

import json

import torch
from starlette.testclient import TestClient

from glassformer.config import ModelConfig, TrainConfig, to_dict
from glassformer.explore import Explorer
from glassformer.explore.server import create_app
from glassformer.models import build_model
from glassformer.text import CharTokenizer
from glassformer.train.checkpoint import MODEL_FILE, save_weights

TEXT = "ROMEO: the quick brown fox jumps over the lazy dog. 你好，世界！\n"
TINY = dict(d_model=32, n_heads=4, d_ff=64, n_layers=2, max_len=16, dropout=0.0)


def tokenizer() -> CharTokenizer:
    return CharTokenizer.from_text(TEXT)


def tiny_model(kind: str = "gpt", seed: int = 0, **changes):
    cfg = {
        "gpt": ModelConfig(kind="gpt", vocab_size=tokenizer().vocab_size, **TINY),
        "encoder": ModelConfig(kind="encoder", vocab_size=tokenizer().vocab_size, causal=False, **TINY),
        "regressor": ModelConfig(kind="regressor", position="sinusoidal", **TINY),
    }[kind]
    for key, value in changes.items():
        setattr(cfg, key, value)
    torch.manual_seed(seed)
    return build_model(ModelConfig(**vars(cfg))).eval()


def make_explorer(kind: str = "gpt", **changes) -> Explorer:
    model = tiny_model(kind, **changes)
    return Explorer(model, tokenizer() if model.inputs == "tokens" else None, f"tiny {kind}")


def decisive(explorer: Explorer, by: float = 20.0) -> Explorer:
    """The model's final norm scale multiplied by `by`: a random model's next-token logits lie within
    ~0.1 of each other, so a one-letter corruption moves the answer's lead by less than the gap the
    causal views normalise by (inspect/causal_views.py: gap_floor); scaled, they spread as a trained
    model's do. The same explorer, returned."""
    with torch.no_grad():
        explorer.model.ln_final.weight.mul_(by)
    return explorer


def client_for(explorer: Explorer) -> TestClient:
    """A client whose requests are addressed to 127.0.0.1, as a browser's would be."""
    return TestClient(create_app(explorer), base_url="http://127.0.0.1:8321")


def make_run(folder, kind: str = "gpt", seed: int = 0):
    """A run directory as training leaves it (config.json, weights, tokenizer), without training."""
    model = tiny_model(kind, seed)
    folder.mkdir(parents=True, exist_ok=True)
    config = {"preset": "tiny", "source": "builtin:seed", "model": to_dict(model.cfg), "train": to_dict(TrainConfig())}
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    save_weights(folder / MODEL_FILE, model, step=0)
    if model.inputs == "tokens":
        tokenizer().save(folder / "tokenizer.json")
    return model


def post(client, endpoint: str, body: dict, status: int = 200) -> dict:
    r = client.post(f"/api/{endpoint}", json=body)
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json")
    return r.json()


def explorer_on(text: str):
    """An Explorer over a tiny GPT whose character vocabulary covers `text` (the browser tests' Chinese pages)."""
    from glassformer.explore import Explorer
    from glassformer.text import CharTokenizer

    tok = CharTokenizer.from_text(text)
    return Explorer(
        tiny_model("gpt", vocab_size=tok.vocab_size),
        tok,
        ("preset {preset} ({kind}), random weights, seed {seed}", {"preset": "p", "kind": "gpt", "seed": 0}),
    )
