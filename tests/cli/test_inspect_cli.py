"""The verbs of cli/inspect.py, which look inside a model. `glassformer trace | attention | grads |
params`: what each verb prints and writes. `glassformer patch | heads | attribute RUN`: the numbers
in their JSON equal the library's own on the same run, every file is written, and bad input is
refused in one line (exit 2, nothing written), in English and Chinese.

What a verb says is pinned as a sentence found by the fields it carries (`said`, tests/helpers.py),
and that the sentence, made by `t` from its own words, reached stdout: no test types the English, so it
may be reworded freely."""

import json
import re

import pytest
import torch
from helpers import keyed, said, shown

from glassformer.causal import activation_patching, head_scores, logit_diff, repeated_tokens
from glassformer.cli import inspect as inspect_cli
from glassformer.cli import main
from glassformer.cli.options import Parser
from glassformer.config import ModelConfig, TrainConfig, get_preset, to_dict
from glassformer.errors import UsageError
from glassformer.inspect.causal_views import check_model
from glassformer.inspect.params import FORMULA_WORDS, FlopEstimate
from glassformer.inspect.words import STAGE_WORDS
from glassformer.messages import t
from glassformer.models import GPT, Encoder, build_model
from glassformer.text import CharTokenizer
from glassformer.train.checkpoint import MODEL_FILE, save_weights


def run(argv, capsys):
    """Parse as the top-level dispatcher does (unknown --key=value tokens become overrides)."""
    parser = Parser(prog="glassformer")  # the dispatcher's parser: every verb also gets --lang
    inspect_cli.register(parser.add_subparsers(dest="verb", required=True))
    args, extra = parser.parse_known_args(argv)
    assert args.accepts_overrides
    args.overrides = extra
    code = args.func(args)
    return code, capsys.readouterr().out


def run_said(argv, capsys):
    """run(), and what it said as (English, fields) pairs."""
    with said() as heard:
        code, out = run(argv, capsys)
    return code, out, heard


def test_trace_preset(tmp_path, capsys):
    code, out, heard = run_said(["trace", "--preset", "seed000", "--prompt", "hello", "--out", str(tmp_path)], capsys)
    assert code == 0
    source = {"preset": "seed000", "kind": "gpt", "seed": 0}
    said_source = heard.one("preset", "kind", "seed")
    assert said_source[1] == source and shown(said_source) in out
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
    assert f"| {t(STAGE_WORDS['embedding'])} | embed | (1, 5, 32) | (B=1, T=5, C=32) |" in out  # the stage's words
    assert "blocks.2.*" in out and "blocks.2.attn.q" not in out
    key, fields = keyed(UsageError, run, ["trace", "--n_layer=3", "--out", str(tmp_path)], capsys)
    assert (key, fields["key"]) == ("config.unknown_key", "n_layer")


def test_trace_regressor(tmp_path, capsys):
    argv = ["trace", "--preset", "sine", "--prompt", "0 0.5 1 0.5 0", "--out", str(tmp_path)]
    code, out, heard = run_said(argv, capsys)
    assert code == 0
    assert heard.one("preset", "kind", "seed")[1] == {"preset": "sine", "kind": "regressor", "seed": 0}
    assert "(B=1, T=4, d_in=1)" in out and "(B=1, T=4, d_out=1)" in out and "[0.000, 0.500, 1.000, 0.500]" in out


def test_attention(tmp_path, capsys):
    code, out, heard = run_said(
        ["attention", "--prompt", "你好 hello", "--layer", "1", "--head", "3", "--out", str(tmp_path)], capsys
    )
    assert code == 0
    tokens = heard.one("n", "labels")
    assert tokens[1] == {"n": 8, "labels": "你 好 ␣ h e l l o"} and shown(tokens) in out
    for name in ("attention_grid.png", "attention_L1_H3.png", "attention.html"):
        assert str(tmp_path / name) in out
    assert (tmp_path / "attention_L1_H3.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(UsageError) as e:
        run(["attention", "--layer", "5", "--out", str(tmp_path)], capsys)
    assert e.value.code == "arg.index.layers" and (e.value.fields["value"], e.value.fields["last"]) == (5, 1)


def test_grads(tmp_path, capsys):
    argv = ["grads", "--preset", "seed000", "--prompt", "to be or not", "--out", str(tmp_path)]
    code, out, heard = run_said(argv, capsys)
    assert code == 0
    header = heard.one("source", "loss", "lr")
    assert header[1]["lr"] == 0.001 and shown(header) in out
    model_params = [n for n, _ in GPT(get_preset("seed000").model).named_parameters()]
    for name in model_params:
        assert f"\n{name} " in out
    norms = heard.one("norms")
    assert norms[1]["norms"].startswith("embed ") and shown(norms) in out  # input side first
    assert (tmp_path / "grads.png").exists() and str(tmp_path / "grads.png") in out
    line = json.loads((tmp_path / "grads.jsonl").read_text().splitlines()[0])
    assert set(line["params"]) == set(model_params)


def test_params_seed002_prints_the_true_count(tmp_path, capsys):
    code, out, heard = run_said(["params", "--preset", "seed002", "--out", str(tmp_path)], capsys)
    assert code == 0
    true = sum(p.numel() for p in Encoder(get_preset("seed002").model).parameters())
    total = heard.one("total")
    assert total[1] == {"total": true} and shown(total) in out
    assert "≠" not in out and "C·3C + 3C" in out and t(FORMULA_WORDS["ln.none"]) in out
    attention = heard.one("formula")  # an encoder: attention both ways, twice the causal term
    assert attention[1]["formula"].startswith("4·n_layers·T·C") and shown(attention) in out
    data = json.loads((tmp_path / "params.json").read_text())
    assert data["total"] == true and data["activation_memory"]["B"] == get_preset("seed002").train.batch_size
    assert f"{FlopEstimate(**data['flops']).training:>14,}" in out  # the training FLOPs line


def test_params_reads_t_from_seq_len_and_refuses_its_old_name(tmp_path, capsys):
    code, _ = run(
        ["params", "--preset", "baby", "--seq-len", "32", "--batch-size", "2", "--out", str(tmp_path)], capsys
    )
    memory = json.loads((tmp_path / "params.json").read_text())["activation_memory"]
    assert code == 0 and (memory["B"], memory["T"]) == (2, 32)
    with pytest.raises(UsageError) as caught:
        run(["params", "--preset", "baby", "--block-size", "32"], capsys)
    assert (caught.value.code, caught.value.fields["new"]) == ("config.renamed", "seq_len")


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
    assert code == 0 and str(run_dir) in out and "blocks.0.attn.z" in out and "blocks.1." not in out


def test_a_chinese_runs_attention_pictures_draw_with_the_shipped_font_in_chinese(tmp_path, monkeypatch):
    """Issue 27, items 1 and 8: `glassformer attention --run <zh run> --lang zh` on a machine with no
    CJK font draws every label, title and axis with the package's own font (no code point, no
    missing-glyph warning), and the words are the Chinese catalogue's."""
    import importlib
    import warnings

    from glassformer.cli import main
    from glassformer.fonts import CJK_FONT
    from glassformer.inspect import fonts
    from glassformer.messages import speaking
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
    picked, figures, asked = [], [], []
    attention_maps = importlib.import_module("glassformer.inspect.attention_maps")  # the package's name is a function
    real_label_font, real_head = fonts.label_font, attention_maps.head_figure

    def spy_font(labels):
        font, shown = real_label_font(labels)
        picked.append((font.get_file(), shown == labels))
        return font, shown

    def spy_head(*a, **k):
        asked.append((a, k))
        figures.append(real_head(*a, **k))
        return figures[-1]

    monkeypatch.setattr(fonts, "label_font", spy_font)
    monkeypatch.setattr(attention_maps, "head_figure", spy_head)
    argv = ["attention", "--run", str(run_dir), "--prompt", poem, "--layer", "0", "--head", "0"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert main([*argv, "--out", str(tmp_path / "o"), "--lang", "zh"]) == 0
    assert not any("Glyph" in str(w.message) for w in caught)  # matplotlib's "Glyph N missing from font(s)"
    assert not any(issubclass(w.category, fonts.FontWarning) for w in caught)
    assert picked and all(p == (str(CJK_FONT), True) for p in picked)  # the shipped font, no label escaped
    (ax,) = [a for a in figures[0].axes if a.images]
    with speaking("en"):  # the same head, drawn in English: the Chinese axes are its translation
        (english,) = [a for a in real_head(*asked[0][0], **asked[0][1]).axes if a.images]
    for zh, en in ((ax.get_xlabel(), english.get_xlabel()), (ax.get_ylabel(), english.get_ylabel())):
        assert re.search("[\u4e00-\u9fff]", zh) and not re.search("[\u4e00-\u9fff]", en) and zh != en
    assert (tmp_path / "o" / "attention_L0_H0.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# ---- the causal views: patch, heads, attribute ---------------------------------------------------
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
def causal_run(tmp_path_factory):
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
def test_patch_by_position_equals_the_library_s_grid(causal_run, tmp_path, capsys, lang):
    folder, model, tok = causal_run
    argv = ["patch", str(folder), "--clean", "the cat", "--corrupt", "the car", "--answer", " ", "--wrong", "s"]
    code, out, _ = cli([*argv, "--out", str(tmp_path), "--lang", lang], capsys)
    assert code == 0
    data = read(tmp_path, "patch")
    clean, corrupt = torch.tensor([tok.encode("the cat")]), torch.tensor([tok.encode("the car")])
    a, w = tok.encode(" ")[0], tok.encode("s")[0]
    grid = activation_patching(model, clean, corrupt, logit_diff(a, w), "resid_post", by=("T",))
    assert close(data["values"], grid.normalised().tolist())
    assert data["extra"]["clean"] == pytest.approx(grid.clean) and data["extra"]["answer"] == a
    assert data["rows"] == ["blocks.0.resid_post", "blocks.1.resid_post"] and len(data["columns"]) == 7
    # the last layer's stream at the last position is the whole answer; earlier positions no longer matter
    assert close(data["values"][-1], [0.0] * 6 + [1.0], atol=1e-4)
    assert f"{data['values'][0][-1]:.3f}" in out and str(tmp_path / "patch.png") in out
    assert bool(re.search("[\u4e00-\u9fff]", out)) == (lang == "zh")  # said in the language asked for


def test_patch_by_head_and_by_layer(causal_run, tmp_path, capsys):
    folder, model, tok = causal_run
    base = ["patch", str(folder), "--clean", "the cat", "--corrupt", "the car", "--answer", " ", "--wrong", "s"]
    clean, corrupt = torch.tensor([tok.encode("the cat")]), torch.tensor([tok.encode("the car")])
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


def test_heads_scores_and_ablation_check(causal_run, tmp_path, capsys):
    folder, model, _ = causal_run
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
    assert all(v == round(v, 6) for row in data["values"] for v in row)  # the JSON's figures: 6 decimals
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
    # random weights: no head clears the bar between an even head's induction score and a perfect one's
    assert float(induction.max()) < data["extra"]["bar"] and data["extra"]["top"] is None
    assert data["extra"]["chance"] < data["extra"]["bar"] < data["extra"]["perfect"]


@pytest.mark.parametrize("wrong", [None, "s"])
def test_attribute_parts_sum_to_the_logit_difference(causal_run, tmp_path, capsys, wrong):
    folder, model, tok = causal_run
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
    (
        ["patch", "RUN", "--clean", "the cat", "--corrupt", "the mat", "--answer", "at", "--wrong", "s"],
        "cview.not_one_token",
    ),  # noqa: E501
    (["attribute", "RUN", "--prompt", "the cat", "--answer", " ", "--wrong", ""], "cview.not_one_token"),
    (["attribute", "RUN", "--prompt", "the cat sat on the mat.", "--answer", " "], "cview.too_long"),
    (["heads", "NOWHERE"], "run.missing"),
    # degenerate inputs (issue 43): nothing to patch, nothing to compare, no gap worth normalising by
    (
        ["patch", "RUN", "--clean", "the cat", "--corrupt", "the cat", "--answer", " ", "--wrong", "s"],
        "cview.same_prompts",
    ),  # noqa: E501
    (
        ["patch", "RUN", "--clean", "the cat", "--corrupt", "the car", "--answer", "s", "--wrong", "s"],
        "cview.same_tokens",
    ),  # noqa: E501
    (["attribute", "RUN", "--prompt", "the cat", "--answer", " ", "--wrong", " "], "cview.same_tokens"),
    (
        ["patch", "RUN", "--clean", "the cat", "--corrupt", "the mat", "--answer", " ", "--wrong", "s"],
        "cview.gap.inverted",
    ),  # noqa: E501
    (
        ["patch", "RUN", "--clean", "the cat", "--corrupt", "the hat", "--answer", " ", "--wrong", "s"],
        "cview.gap.small",
    ),  # noqa: E501
]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("argv", "key"), BAD)
def test_bad_input_is_one_line_exit_2_and_nothing_written(causal_run, tmp_path, capsys, monkeypatch, argv, key, lang):
    import glassformer.cli

    seen = []
    real = glassformer.cli.report
    monkeypatch.setattr(glassformer.cli, "report", lambda e, *a: seen.append(e) or real(e, *a))
    folder = causal_run[0]
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
    assert e.value.code == "cview.kind" and e.value.fields["kind"] == "seq2seq"
    post = build_model(ModelConfig(kind="gpt", vocab_size=10, norm="post", **TINY))
    check_model(post, "patch")  # patching needs no sum of parts
    with pytest.raises(UsageError) as e:
        check_model(post, "attribute")
    assert e.value.code == "cview.post_norm"


def test_patch_help_has_an_example_and_names_the_default_by(capsys):
    """Issue 44: `patch --help` had no example and did not say which --by it uses when none is given."""
    with said() as heard, pytest.raises(SystemExit):
        main(["patch", "--help"])
    shown_ = " ".join(capsys.readouterr().out.split())
    verbs = Parser(prog="glassformer").add_subparsers(dest="verb", required=True)
    inspect_cli.register(verbs)
    patch = verbs.choices["patch"]
    [by] = [a for a in patch._actions if "--by" in a.option_strings]
    said_default = [(key, fields) for key, fields in heard if fields == {"default": by.default}]
    assert by.default == "position" and said_default  # the help of --by names its default
    assert " ".join(shown(said_default[0]).split()) in shown_
    example = " ".join(patch.epilog.split())  # an example: a command line with every flag it needs, and --by
    assert example in shown_
    needed = [a.option_strings[0] for a in patch._actions if a.option_strings and a.required]
    assert len(needed) == 4 and all(flag in example for flag in [*needed, "--by"])
