"""`glassformer trace | attention | grads | params`: what each verb prints and writes."""

import json

import pytest

from glassformer.cli import inspect as inspect_cli
from glassformer.cli.options import Parser
from glassformer.config import get_preset, to_dict
from glassformer.errors import UsageError
from glassformer.models import GPT, Encoder


def run(argv, capsys):
    """Parse as the top-level dispatcher does (unknown --key=value tokens become overrides)."""
    parser = Parser(prog="glassformer")  # the dispatcher's parser: every verb also gets --lang
    inspect_cli.register(parser.add_subparsers(dest="verb", required=True))
    args, extra = parser.parse_known_args(argv)
    assert args.accepts_overrides
    args.overrides = extra
    code = args.func(args)
    return code, capsys.readouterr().out


def test_trace_preset(tmp_path, capsys):
    code, out = run(["trace", "--preset", "seed000", "--prompt", "hello", "--out", str(tmp_path)], capsys)
    assert code == 0
    assert "preset seed000 (gpt), random init, seed 0" in out
    assert "'hell'" in out  # input = prompt minus its last token
    assert "blocks.1.attn.weights" in out and "(B=1, H=4, T_q=4, T_k=4)" in out
    assert "(B=1, T=4, V=" in out and "loss" in out
    for name in ("trace.txt", "trace.md", "trace.json"):
        assert (tmp_path / name).exists() and f"{tmp_path / name}" in out
    rows = json.loads((tmp_path / "trace.json").read_text(encoding="utf-8"))["rows"]
    assert {r["name"]: r for r in rows}["blocks.0.ffn.hidden"]["shape"] == [1, 4, 128]


def test_trace_overrides_markdown_and_collapse(tmp_path, capsys):
    code, out = run(
        [
            "trace",
            "--prompt",
            "abcdef",
            "--n_layers=3",
            "--d_model=32",
            "--format",
            "markdown",
            "--collapse",
            "--out",
            str(tmp_path),
        ],
        capsys,
    )
    assert code == 0
    assert "| embedding | embed | (1, 5, 32) | (B=1, T=5, C=32) |" in out
    assert "blocks.2.*" in out and "blocks.2.attn.q" not in out
    with pytest.raises(ValueError, match="unknown config key --n_layer"):
        run(["trace", "--n_layer=3", "--out", str(tmp_path)], capsys)


def test_trace_regressor(tmp_path, capsys):
    code, out = run(["trace", "--preset", "sine", "--prompt", "0 0.5 1 0.5 0", "--out", str(tmp_path)], capsys)
    assert code == 0
    assert "preset sine (regressor)" in out
    assert "(B=1, T=4, d_in=1)" in out and "(B=1, T=4, d_out=1)" in out and "[0.000, 0.500, 1.000, 0.500]" in out


def test_attention(tmp_path, capsys):
    code, out = run(
        ["attention", "--prompt", "你好 hello", "--layer", "1", "--head", "3", "--out", str(tmp_path)], capsys
    )
    assert code == 0
    assert "8 tokens: 你 好 ␣ h e l l o" in out
    for name in ("attention_grid.png", "attention_L1_H3.png", "attention.html"):
        assert f"wrote {tmp_path / name}" in out
    assert (tmp_path / "attention_L1_H3.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="layers 0..1"):
        run(["attention", "--layer", "5", "--out", str(tmp_path)], capsys)


def test_grads(tmp_path, capsys):
    code, out = run(["grads", "--preset", "seed000", "--prompt", "to be or not", "--out", str(tmp_path)], capsys)
    assert code == 0
    assert "upd/w after one Adam step at lr 0.001" in out
    model_params = [n for n, _ in GPT(get_preset("seed000").model).named_parameters()]
    for name in model_params:
        assert f"\n{name} " in out
    assert "per-layer gradient norm: embed" in out
    assert (tmp_path / "grads.png").exists() and f"wrote {tmp_path / 'grads.png'}" in out
    line = json.loads((tmp_path / "grads.jsonl").read_text().splitlines()[0])
    assert set(line["params"]) == set(model_params)


def test_params_seed002_prints_the_true_count(tmp_path, capsys):
    code, out = run(["params", "--preset", "seed002", "--out", str(tmp_path)], capsys)
    assert code == 0
    true = sum(p.numel() for p in Encoder(get_preset("seed002").model).parameters())
    assert f"parameters: {true:,} " in out
    assert "≠" not in out and "C·3C + 3C" in out and "norm='none': identity" in out
    assert "attention 4·n_layers·T·C (bidirectional)" in out and "training ≈ 3 × forward" in out
    data = json.loads((tmp_path / "params.json").read_text())
    assert data["total"] == true and data["activation_memory"]["B"] == get_preset("seed002").train.batch_size


def test_params_reads_t_from_seq_len_and_refuses_its_old_name(tmp_path, capsys):
    code, _ = run(
        ["params", "--preset", "baby", "--seq-len", "32", "--batch-size", "2", "--out", str(tmp_path)], capsys
    )
    memory = json.loads((tmp_path / "params.json").read_text())["activation_memory"]
    assert code == 0 and (memory["B"], memory["T"]) == (2, 32)
    with pytest.raises(UsageError) as caught:
        run(["params", "--preset", "baby", "--block-size", "32"], capsys)
    assert (caught.value.key, caught.value.fields["new"]) == ("error.config.renamed", "seq_len")


def test_trace_from_a_run_directory(tmp_path, capsys):
    checkpoint = pytest.importorskip("glassformer.train.checkpoint")
    pytest.importorskip("glassformer.train.run")
    from glassformer.text import CharTokenizer

    tok = CharTokenizer.from_text("abc hello")
    preset = get_preset("seed000")
    preset.model.vocab_size, preset.model.n_layers = tok.vocab_size, 1
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "config.json").write_text(json.dumps({"model": to_dict(preset.model), "train": to_dict(preset.train)}))
    tok.save(run_dir / "tokenizer.json")
    checkpoint.save_weights(run_dir / checkpoint.MODEL_FILE, GPT(preset.model), step=5)
    code, out = run(["trace", "--run", str(run_dir), "--prompt", "hello", "--out", str(tmp_path / "o")], capsys)
    assert code == 0 and f"run {run_dir}" in out and "blocks.0.attn.z" in out and "blocks.1." not in out


def test_a_chinese_runs_attention_pictures_draw_with_the_shipped_font_in_chinese(tmp_path, monkeypatch):
    """Issue 27, items 1 and 8: `glassformer attention --run <zh run> --lang zh` on a machine with no
    CJK font draws every label, title and axis with the package's own font (no code point, no
    missing-glyph warning), and the words are the Chinese catalogue's."""
    import importlib
    import warnings

    from glassformer.cli import main
    from glassformer.fonts import CJK_FONT
    from glassformer.inspect import fonts
    from glassformer.messages import speaking, t
    from glassformer.text import CharTokenizer
    from glassformer.train import checkpoint

    poem = "春眠不觉晓，处处闻啼鸟。"
    tok = CharTokenizer.from_text(poem)
    preset = get_preset("seed000")
    preset.model.vocab_size, preset.model.n_layers = tok.vocab_size, 1
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "config.json").write_text(json.dumps({"model": to_dict(preset.model), "train": to_dict(preset.train)}))
    tok.save(run_dir / "tokenizer.json")
    checkpoint.save_weights(run_dir / checkpoint.MODEL_FILE, GPT(preset.model), step=5)
    picked, figures = [], []
    attention_maps = importlib.import_module("glassformer.inspect.attention_maps")  # the package's name is a function
    real_label_font, real_head = fonts.label_font, attention_maps.head_figure

    def spy_font(labels):
        font, shown = real_label_font(labels)
        picked.append((font.get_file(), shown == labels))
        return font, shown

    def spy_head(*a, **k):
        figures.append(real_head(*a, **k))
        return figures[-1]

    monkeypatch.setattr(fonts, "label_font", spy_font)
    monkeypatch.setattr(attention_maps, "head_figure", spy_head)
    argv = ["attention", "--run", str(run_dir), "--prompt", poem, "--layer", "0", "--head", "0"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert main([*argv, "--out", str(tmp_path / "o"), "--lang", "zh"]) == 0
    assert not any("missing from" in str(w.message) for w in caught)  # matplotlib's missing-glyph warning
    assert not any(issubclass(w.category, fonts.FontWarning) for w in caught)
    assert picked and all(p == (str(CJK_FONT), True) for p in picked)  # the shipped font, no label escaped
    (ax,) = [a for a in figures[0].axes if a.images]
    with speaking("zh"):
        assert ax.get_xlabel() == t("pictures.attn.key_axis") and ax.get_ylabel() == t("pictures.attn.query_axis")
    assert (tmp_path / "o" / "attention_L0_H0.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
