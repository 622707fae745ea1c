"""`glassformer experts RUN`: the routing of a mixture-of-experts run, written as PNG, HTML and JSON
whose numbers are the library's own (inspect/experts.py: routing_view) on the run as loaded; the load
over --corpus; a run without experts, a corpus that cannot be read, refused in one line (exit 2,
nothing written), in English and Chinese."""

from __future__ import annotations

import json

import pytest
import torch

from glassformer.cli import main
from glassformer.config import ModelConfig, TrainConfig, to_dict
from glassformer.inspect.experts import routing_view
from glassformer.models import build_model
from glassformer.text import CharTokenizer
from glassformer.train.checkpoint import MODEL_FILE, save_weights
from glassformer.train.run import load_model

TEXT = "hello world, the cat sat on the mat. 你好世界\n"
TINY = dict(d_model=32, n_heads=4, d_ff=64, n_layers=2, max_len=16, dropout=0.0)
MOE = dict(ffn="moe", n_experts=4, moe_top_k=2, norm_type="rms", position="rope", bias=False)


def make_run(folder, **changes):
    """A run directory as training leaves it, with random weights."""
    tok = CharTokenizer.from_text(TEXT)
    torch.manual_seed(0)
    model = build_model(ModelConfig(vocab_size=tok.vocab_size, **{**TINY, **changes})).eval()
    folder.mkdir(parents=True, exist_ok=True)
    config = {"preset": "tiny", "source": "builtin:seed", "model": to_dict(model.cfg), "train": to_dict(TrainConfig())}
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    save_weights(folder / MODEL_FILE, model, step=0)
    tok.save(folder / "tokenizer.json")
    return folder


@pytest.fixture(scope="module")
def moe_run(tmp_path_factory):
    return make_run(tmp_path_factory.mktemp("experts") / "moe", **MOE)


def cli(argv, capsys):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_files_hold_the_routing_of_the_text_and_the_load_over_the_corpus(moe_run, tmp_path, capsys):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the cat sat on the mat. 你好世界 " * 3, encoding="utf-8")
    out = tmp_path / "out"
    code, printed, _ = cli(
        ["experts", str(moe_run), "--text", "你好 cat", "--corpus", str(corpus), "--out", str(out)], capsys
    )
    assert code == 0
    model, tok, _ = load_model(moe_run)
    want = routing_view(model, torch.tensor([tok.encode("你好 cat")]), tok, tok.encode(corpus.read_text("utf-8")))
    load = json.loads((out / "experts_load.json").read_text(encoding="utf-8"))
    assert load["extra"]["load"] == [la.load.tolist() for la in want.layers]
    assert load["extra"]["tokens"] == [len(tok.encode(corpus.read_text("utf-8")))] * 2
    assert load["extra"]["entropy"] == pytest.approx([la.entropy for la in want.layers], abs=1e-9)
    for i, layer in enumerate(want.layers):
        grid = json.loads((out / f"experts_L{i}.json").read_text(encoding="utf-8"))
        assert grid["rows"] == want.tokens and grid["rows"][:2] == ["你", "好"] and len(grid["rows"]) == 6
        assert torch.allclose(torch.tensor(grid["values"], dtype=torch.float64), layer.weights.double(), atol=1e-6)
        assert (out / f"experts_L{i}.png").read_bytes()[:4] == b"\x89PNG" and str(out / f"experts_L{i}.png") in printed
    assert "blocks.1.ffn" in printed


def test_without_a_corpus_the_load_is_the_texts(moe_run, tmp_path, capsys):
    assert cli(["experts", str(moe_run), "--text", "catsat", "--out", str(tmp_path)], capsys)[0] == 0
    load = json.loads((tmp_path / "experts_load.json").read_text(encoding="utf-8"))
    assert load["extra"]["tokens"] == [6, 6] and [sum(row) for row in load["extra"]["load"]] == [12, 12]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("case", ["dense", "corpus_missing", "corpus_empty"])
def test_bad_input_is_one_line_exit_2_and_nothing_written(moe_run, tmp_path, capsys, monkeypatch, case, lang):
    import glassformer.cli

    seen = []
    real = glassformer.cli.report
    monkeypatch.setattr(glassformer.cli, "report", lambda e, *a: seen.append(e) or real(e, *a))
    run, extra, key = moe_run, [], "experts.none"
    if case == "dense":
        run = make_run(tmp_path / "dense", ffn="swiglu")
    elif case == "corpus_missing":
        extra, key = ["--corpus", str(tmp_path / "nowhere.txt")], "experts.corpus"
    else:
        (tmp_path / "empty.txt").write_text("", encoding="utf-8")
        extra, key = ["--corpus", str(tmp_path / "empty.txt")], "experts.corpus_empty"
    code, out, err = cli(
        ["experts", str(run), "--text", "the cat", *extra, "--out", str(tmp_path / "out"), "--lang", lang], capsys
    )
    assert code == 2 and not (tmp_path / "out").exists()
    assert seen[0].key == key and out == "" and len(err.strip().splitlines()) == 1
    assert any("\u4e00" <= c <= "\u9fff" for c in err) == (lang == "zh")


def test_attribute_splits_an_expert_layer_into_its_experts(moe_run, tmp_path, capsys):
    """`glassformer attribute` on a mixture of experts: a row per expert of each layer (its weighted
    output through the frozen final norm), and the parts still sum to the logit difference."""
    argv = ["attribute", str(moe_run), "--prompt", "the cat", "--answer", " ", "--out", str(tmp_path)]
    assert cli(argv, capsys)[0] == 0
    data = json.loads((tmp_path / "attribute.json").read_text(encoding="utf-8"))
    experts = [f"blocks.{layer}.ffn.expert.{e}" for layer in range(2) for e in range(4)]
    assert [r for r in data["rows"] if ".ffn" in r] == experts
    assert data["extra"]["sum"] == pytest.approx(data["extra"]["logit_diff"], abs=1e-4)
    nonzero = [v for r, (v,) in zip(data["rows"], data["values"], strict=False) if r in experts and v != 0]
    assert len(nonzero) == 2 * 2  # K = 2 experts a layer reached the last token
