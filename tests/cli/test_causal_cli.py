"""`glassformer patch | heads | attribute RUN`: the numbers in their JSON equal the library's own on
the same run, every file is written, and bad input is refused in one line (exit 2, nothing written),
in English and Chinese."""

from __future__ import annotations

import json

import pytest
import torch

from glassformer.causal import activation_patching, head_scores, logit_diff, repeated_tokens
from glassformer.cli import main
from glassformer.config import ModelConfig, TrainConfig, get_preset, to_dict
from glassformer.errors import UsageError
from glassformer.inspect.causal_views import check_model
from glassformer.models import build_model
from glassformer.text import CharTokenizer
from glassformer.train.checkpoint import MODEL_FILE, save_weights

TEXT = "hello world, the cat sat on the mat. 你好世界\n"
TINY = dict(d_model=32, n_heads=4, d_ff=64, n_layers=2, max_len=16, dropout=0.0)


def make_run(folder, kind: str = "gpt", **changes):
    """A run directory as training leaves it, with random weights (no training needed to check numbers)."""
    tok = CharTokenizer.from_text(TEXT)
    vocab = {"vocab_size": tok.vocab_size} if kind != "regressor" else {"position": "sinusoidal"}
    cfg = ModelConfig(kind=kind, causal=kind != "encoder", **vocab, **{**TINY, **changes})
    torch.manual_seed(0)
    model = build_model(cfg).eval()
    folder.mkdir(parents=True, exist_ok=True)
    config = {"preset": "tiny", "source": "builtin:seed", "model": to_dict(model.cfg), "train": to_dict(TrainConfig())}
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    save_weights(folder / MODEL_FILE, model, step=0)
    if model.inputs == "tokens":
        tok.save(folder / "tokenizer.json")
    return model, tok


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("causal") / "tiny"
    model, tok = make_run(folder)
    return folder, model, tok


def close(ours, want, atol: float = 1e-5) -> bool:
    return torch.allclose(torch.tensor(ours, dtype=torch.float64), torch.tensor(want, dtype=torch.float64), atol=atol)


def cli(argv, capsys):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def read(out, verb):
    for ext in ("png", "html", "json"):
        assert (out / f"{verb}.{ext}").stat().st_size > 0
    assert (out / f"{verb}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = (out / f"{verb}.html").read_text(encoding="utf-8")
    assert "<script" not in page and "http" not in page  # offline: nothing to load
    return json.loads((out / f"{verb}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_patch_by_position_equals_the_library_s_grid(run, tmp_path, capsys, lang):
    folder, model, tok = run
    argv = ["patch", str(folder), "--clean", "the cat", "--corrupt", "the mat", "--answer", " ", "--wrong", "s"]
    code, out, _ = cli([*argv, "--out", str(tmp_path), "--lang", lang], capsys)
    assert code == 0
    data = read(tmp_path, "patch")
    clean, corrupt = torch.tensor([tok.encode("the cat")]), torch.tensor([tok.encode("the mat")])
    a, w = tok.encode(" ")[0], tok.encode("s")[0]
    grid = activation_patching(model, clean, corrupt, logit_diff(a, w), "resid_post", by=("T",))
    assert close(data["values"], grid.normalised().tolist())
    assert data["extra"]["clean"] == pytest.approx(grid.clean) and data["extra"]["answer"] == a
    assert data["rows"] == ["blocks.0.resid_post", "blocks.1.resid_post"] and len(data["columns"]) == 7
    # the last layer's stream at the last position is the whole answer; earlier positions no longer matter
    assert close(data["values"][-1], [0.0] * 6 + [1.0], atol=1e-4)
    assert f"{data['values'][0][-1]:.3f}" in out
    assert ("已写入" if lang == "zh" else "wrote") in out


def test_patch_by_head_and_by_layer(run, tmp_path, capsys):
    folder, model, tok = run
    base = ["patch", str(folder), "--clean", "the cat", "--corrupt", "the mat", "--answer", " ", "--wrong", "s"]
    clean, corrupt = torch.tensor([tok.encode("the cat")]), torch.tensor([tok.encode("the mat")])
    metric = logit_diff(tok.encode(" ")[0], tok.encode("s")[0])
    assert cli([*base, "--by", "head", "--out", str(tmp_path / "h")], capsys)[0] == 0
    heads = read(tmp_path / "h", "patch")
    grid = activation_patching(model, clean, corrupt, metric, "attn.z", by=("H",))
    assert close(heads["values"], grid.normalised().tolist())
    assert heads["columns"] == ["H0", "H1", "H2", "H3"]
    assert cli([*base, "--by", "layer", "--out", str(tmp_path / "l")], capsys)[0] == 0
    layers = read(tmp_path / "l", "patch")
    ffn = activation_patching(model, clean, corrupt, metric, "ffn.hidden", by=())
    attn = activation_patching(model, clean, corrupt, metric, "attn.out", by=())
    assert close(layers["values"], [attn.normalised().tolist(), ffn.normalised().tolist()])
    assert layers["extra"]["points"][0] == "blocks.0.attn.out"


def test_heads_scores_and_ablation_check(run, tmp_path, capsys):
    folder, model, _ = run
    code, out, _ = cli(
        ["heads", str(folder), "--n", "6", "--batch", "3", "--seed", "2", "--out", str(tmp_path)], capsys
    )
    assert code == 0
    data = read(tmp_path, "heads")
    tokens = repeated_tokens(model.cfg.vocab_size, 6, 3, seed=2)
    induction = head_scores(model, tokens, "induction")  # (L, H)
    prev = head_scores(model, tokens, "previous_token")
    assert [r[2] for r in data["values"]] == pytest.approx(induction.flatten().tolist(), abs=1e-6)
    assert [r[0] for r in data["values"]] == pytest.approx(prev.flatten().tolist(), abs=1e-6)
    # the ablation column, one head at a time in a plain loop (the view batches them)
    x, y = tokens[:, :-1], tokens[:, 1:]

    def loss(hooks):
        logits = model.run_with_hooks(x, hooks=hooks)[:, 5:]  # (B, 6, V): predicting the repeated half
        return float(torch.nn.functional.cross_entropy(logits.reshape(-1, logits.size(-1)), y[:, 5:].reshape(-1)))

    with torch.no_grad():
        base = loss({})
        for layer, head in [(0, 1), (1, 3)]:

            def zero(a, name, head=head):
                a = a.clone()
                a[:, head] = 0
                return a

            rise = loss({f"blocks.{layer}.attn.z": zero}) - base
            assert data["values"][layer * 4 + head][3] == pytest.approx(rise, abs=1e-5)
    assert data["extra"]["base_loss"] == pytest.approx(base, abs=1e-6)
    top = int(induction.flatten().argmax())
    assert data["extra"]["top"] == data["rows"][top] == f"L{top // 4}H{top % 4}"


@pytest.mark.parametrize("wrong", [None, "s"])
def test_attribute_parts_sum_to_the_logit_difference(run, tmp_path, capsys, wrong):
    folder, model, tok = run
    argv = ["attribute", str(folder), "--prompt", "the cat", "--answer", " "] + (["--wrong", wrong] if wrong else [])
    assert cli([*argv, "--out", str(tmp_path)], capsys)[0] == 0
    data = read(tmp_path, "attribute")
    with torch.no_grad():
        last = model(torch.tensor([tok.encode("the cat")]))[0, -1]  # (V,)
    a = tok.encode(" ")[0]
    w = tok.encode(wrong)[0] if wrong else int(last.clone().index_fill_(0, torch.tensor([a]), -1e9).argmax())
    assert data["extra"]["wrong"] == w
    assert data["extra"]["logit_diff"] == pytest.approx(float(last[a] - last[w]), abs=1e-5)
    assert sum(v[0] for v in data["values"]) == pytest.approx(data["extra"]["logit_diff"], abs=1e-4)
    assert data["rows"][:2] == ["embed", "pos_embed"] and "blocks.1.ffn" in data["rows"]


def test_an_encoder_run_works_too(tmp_path, capsys):
    make_run(tmp_path / "enc", "encoder")
    assert cli(["heads", str(tmp_path / "enc"), "--n", "4", "--out", str(tmp_path / "o")], capsys)[0] == 0


BAD = [
    (["patch", "RUN", "--clean", "the cat", "--corrupt", "the ca", "--answer", " ", "--wrong", "s"], "cview.lengths"),
    (["patch", "RUN", "--clean", "the cat", "--corrupt", "the mat", "--answer", "at", "--wrong", "s"], "cview.not_one_token"),  # noqa: E501
    (["attribute", "RUN", "--prompt", "the cat", "--answer", " ", "--wrong", ""], "cview.not_one_token"),
    (["attribute", "RUN", "--prompt", "the cat sat on the mat.", "--answer", " "], "cview.too_long"),
    (["heads", "NOWHERE"], "error.run.missing"),
]  # fmt: skip


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("argv", "key"), BAD)
def test_bad_input_is_one_line_exit_2_and_nothing_written(run, tmp_path, capsys, monkeypatch, argv, key, lang):
    from glassformer.cli import failure

    seen = []
    real = failure.report
    monkeypatch.setattr(failure, "report", lambda e, *a: seen.append(e) or real(e, *a))
    monkeypatch.setattr("glassformer.cli.report", failure.report)
    folder = run[0]
    argv = [str(folder) if a == "RUN" else str(tmp_path / "none") if a == "NOWHERE" else a for a in argv]
    code, out, err = cli([*argv, "--out", str(tmp_path / "out"), "--lang", lang], capsys)
    assert code == 2 and not (tmp_path / "out").exists()
    assert seen[0].key == key, seen[0].key
    assert len(err.strip().splitlines()) == 1 and out == ""
    if lang == "zh":
        assert any("\u4e00" <= c <= "\u9fff" for c in err)


def test_a_regressor_run_is_refused(tmp_path, capsys):
    make_run(tmp_path / "reg", "regressor")
    code, _, err = cli(["heads", str(tmp_path / "reg"), "--out", str(tmp_path / "out")], capsys)
    assert code == 2 and "'regressor'" in err and not (tmp_path / "out").exists()


def test_seq2seq_and_post_norm_models_are_refused():
    seq2seq = build_model(get_preset("seq2seq").model)
    with pytest.raises(UsageError) as e:
        check_model(seq2seq, "patch")
    assert e.value.key == "cview.kind" and e.value.fields["kind"] == "seq2seq"
    post = build_model(ModelConfig(kind="gpt", vocab_size=10, norm="post", **TINY))
    check_model(post, "patch")  # patching needs no sum of parts
    with pytest.raises(UsageError) as e:
        check_model(post, "attribute")
    assert e.value.key == "cview.post_norm"
