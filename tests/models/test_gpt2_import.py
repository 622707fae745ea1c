"""`import gpt2` / `export gpt2` against transformers, offline, with random weights.

A small GPT-2 is saved by transformers itself (save_pretrained, or torch.save for the old
pytorch_model.bin form), imported into a run directory, and read back as `sample` reads it: its
logits must be HF's (float32, 1e-5), its greedy tokens HF's `generate`, and the export must load in
transformers with the same logits. Variants glassformer would compute differently are refused with
the field named.
"""

from __future__ import annotations

import json

import pytest
import torch
from gpt2_kit import (
    TEXTS,
    copy_dir,
    fast_tokenizer_dir,
    gpt2_dir,
    random_gpt2,
    train_tokenizer,
    transformers,
    vocab_size_of,
)
from helpers import ATOL, ROOT, assert_close

from glassformer.errors import DamagedFile, NotFound, UsageError
from glassformer.sample import generate_ids
from glassformer.text.gpt2_bpe import read_tokenizer_dir
from glassformer.train.checkpoint import load_model
from glassformer.train.run import export_gpt2, import_gpt2

PROMPT = "The cat sat on the mat. 你好 🙂"


@pytest.fixture(scope="module")
def hf_dir(tmp_path_factory):
    return gpt2_dir(tmp_path_factory.mktemp("gpt2") / "hf")


@pytest.fixture(scope="module")
def imported(hf_dir, tmp_path_factory):
    """(run directory, model, tokenizer) of the imported GPT-2, loaded as `sample` loads it."""
    run = import_gpt2(hf_dir[0], tmp_path_factory.mktemp("runs") / "imported")
    model, tokenizer, _ = load_model(run)
    return run, model, tokenizer


def test_logits_equal(hf_dir, imported):
    _, hf, _ = hf_dir
    _, model, _ = imported
    ids = torch.randint(0, hf.config.vocab_size, (3, hf.config.n_positions))  # (B, T), every position
    with torch.no_grad():
        assert_close("logits", model(ids), hf(ids).logits, ATOL[torch.float32])


def test_greedy_tokens_equal_hf_generate(hf_dir, imported):
    _, hf, hf_tok = hf_dir
    _, model, tokenizer = imported
    prompt = tokenizer.encode(PROMPT)
    assert prompt == hf_tok(PROMPT)["input_ids"]
    ids = torch.tensor([prompt])  # (1, T0)
    n = hf.config.n_positions - len(prompt)
    theirs = hf.generate(
        ids, attention_mask=torch.ones_like(ids), max_new_tokens=n, min_new_tokens=n, do_sample=False, pad_token_id=0
    )[0, len(prompt) :].tolist()
    ours = [int(t) for t in generate_ids(model, ids, n, temperature=0)]
    assert ours == theirs and len(set(ours)) > 1  # (random weights that repeat one token would prove little)


def test_the_run_holds_what_every_verb_reads(imported):
    run, model, tokenizer = imported
    config = json.loads((run / "config.json").read_text(encoding="utf-8"))
    assert config["model"]["kind"] == "gpt" and config["imported"]["format"] == "gpt2"
    assert config["train"]["seq_len"] <= config["model"]["max_len"]
    assert tokenizer.kind == "gpt2-bpe" and tokenizer.vocab_size == model.cfg.vocab_size
    assert model.head.weight is model.tok_embed.weight  # GPT-2's head stays tied
    for text in TEXTS.values():
        assert tokenizer.decode(tokenizer.encode(text)) == text


def test_export_loads_in_transformers_with_the_same_logits(hf_dir, imported, tmp_path):
    _, hf, hf_tok = hf_dir
    run, model, _ = imported
    out = export_gpt2(run, tmp_path / "exported")
    again = transformers.GPT2LMHeadModel.from_pretrained(out).eval()
    ids = torch.randint(0, hf.config.vocab_size, (2, hf.config.n_positions))  # (B, T)
    with torch.no_grad():
        assert torch.equal(again(ids).logits, hf(ids).logits)  # the very same weights, the same code
    tok = transformers.GPT2Tokenizer.from_pretrained(out)
    for text in TEXTS.values():
        assert tok(text)["input_ids"] == hf_tok(text)["input_ids"]
    assert again.config.eos_token_id == tok.eos_token_id == hf_tok.eos_token_id


def test_pytorch_model_bin_in_the_old_layout(hf_dir, tmp_path):
    """The original checkpoints: pytorch_model.bin, keys without "transformer.", causal-mask buffers."""
    src, hf, _ = hf_dir
    folder = copy_dir(src, tmp_path / "bin")
    (folder / "model.safetensors").unlink()
    state = {k.removeprefix("transformer."): v for k, v in hf.state_dict().items() if k != "lm_head.weight"}
    T = hf.config.n_positions
    for i in range(hf.config.n_layer):
        state[f"h.{i}.attn.bias"] = torch.tril(torch.ones(T, T)).view(1, 1, T, T)  # what GPT-2's files hold
    torch.save(state, folder / "pytorch_model.bin")
    model, _, _ = load_model(import_gpt2(folder, tmp_path / "run"))
    ids = torch.randint(0, hf.config.vocab_size, (2, T))  # (B, T)
    with torch.no_grad():
        assert_close("logits", model(ids), hf(ids).logits, ATOL[torch.float32])


def test_a_pickle_that_would_run_code_is_refused(hf_dir, tmp_path):
    folder = copy_dir(hf_dir[0], tmp_path / "evil")
    (folder / "model.safetensors").unlink()
    torch.save({"wte.weight": torch.zeros(1), "payload": Exception("runs on load")}, folder / "pytorch_model.bin")
    with pytest.raises(DamagedFile) as caught:
        import_gpt2(folder, tmp_path / "run")
    assert caught.value.code == "gpt2.bin_refused" and caught.value.fields["why"].fields == {}  # not torch's words
    assert not (tmp_path / "run").exists()  # nothing written


def test_untied_head_and_sharded_weights(tmp_path):
    folder = train_tokenizer(tmp_path / "hf")
    hf = random_gpt2(vocab_size_of(folder), tie_word_embeddings=False)
    assert not torch.equal(hf.lm_head.weight, hf.transformer.wte.weight)
    hf.save_pretrained(folder, max_shard_size="20KB")
    assert (folder / "model.safetensors.index.json").exists()
    run = import_gpt2(folder, tmp_path / "run")
    model, _, _ = load_model(run)
    ids = torch.randint(0, hf.config.vocab_size, (2, 16))  # (B, T)
    with torch.no_grad():
        assert_close("logits", model(ids), hf(ids).logits, ATOL[torch.float32])
        again = transformers.GPT2LMHeadModel.from_pretrained(export_gpt2(run, tmp_path / "out")).eval()
        assert torch.equal(again(ids).logits, hf(ids).logits)


def test_half_precision_weights_become_float32(tmp_path):
    """A bfloat16 checkpoint: imported as float32, computing what transformers computes with the same
    weights cast to float32."""
    folder = train_tokenizer(tmp_path / "hf")
    hf = random_gpt2(vocab_size_of(folder), dtype=torch.bfloat16)
    hf.save_pretrained(folder)
    from safetensors.torch import load_file

    assert {t.dtype for t in load_file(folder / "model.safetensors").values()} == {torch.bfloat16}
    model, _, _ = load_model(import_gpt2(folder, tmp_path / "run"))
    assert {p.dtype for p in model.parameters()} == {torch.float32}
    ids = torch.randint(0, hf.config.vocab_size, (2, 16))  # (B, T)
    with torch.no_grad():
        assert_close("logits", model(ids), hf.float()(ids).logits, ATOL[torch.float32])


@pytest.mark.parametrize(
    "field, value",
    [
        ("scale_attn_weights", False),
        ("scale_attn_by_inverse_layer_idx", True),
        ("reorder_and_upcast_attn", True),
        ("add_cross_attention", True),
        ("activation_function", "silu"),
        ("model_type", "gpt_neo"),
        ("architectures", ["GPT2DoubleHeadsModel"]),
    ],
)
def test_variants_it_cannot_reproduce_are_refused_naming_the_field(hf_dir, tmp_path, field, value):
    folder = copy_dir(hf_dir[0], tmp_path / "variant", {field: value})
    with pytest.raises(UsageError, match=field):
        import_gpt2(folder, tmp_path / "run")


def test_files_that_do_not_fit_are_refused(hf_dir, tmp_path):
    src, hf, _ = hf_dir
    with pytest.raises(UsageError, match="vocab_size"):
        import_gpt2(copy_dir(src, tmp_path / "a", {"vocab_size": hf.config.vocab_size + 1}), tmp_path / "r")
    with pytest.raises(DamagedFile, match="h.2.ln_1.weight"):  # config says 3 layers, the file has 2
        import_gpt2(copy_dir(src, tmp_path / "b", {"n_layer": 3}), tmp_path / "r")
    with pytest.raises(UsageError) as caught:  # the file has a layer the config lacks
        import_gpt2(copy_dir(src, tmp_path / "c", {"n_layer": 1}), tmp_path / "r")
    assert caught.value.code == "gpt2.tensors_unused" and caught.value.fields["names"].startswith("h.1.")
    with pytest.raises(DamagedFile) as caught:  # the weights are 24 wide: said before a model 28 wide is built
        import_gpt2(copy_dir(src, tmp_path / "d", {"n_embd": 28, "n_head": 4}), tmp_path / "r")
    assert caught.value.code == "gpt2.weight_size" and caught.value.fields["value"] == 28
    empty = tmp_path / "e"
    empty.mkdir()
    with pytest.raises(NotFound, match="config.json"):
        import_gpt2(empty, tmp_path / "r")
    (copy_dir(src, tmp_path / "f") / "model.safetensors").unlink()
    with pytest.raises(NotFound, match="pytorch_model.bin"):
        import_gpt2(tmp_path / "f", tmp_path / "r")
    assert not (tmp_path / "r").exists()


def test_export_refuses_what_gpt2_cannot_hold(imported, tmp_path):
    from glassformer.config import ModelConfig, TrainConfig, to_dict
    from glassformer.models import build_model
    from glassformer.text import CharTokenizer
    from glassformer.train.checkpoint import save_weights

    run = tmp_path / "char-run"
    run.mkdir()
    tok = CharTokenizer.from_text("abc")
    model = build_model(ModelConfig(vocab_size=tok.vocab_size, norm="post", activation="gelu_tanh"))
    (run / "config.json").write_text(json.dumps({"model": to_dict(model.cfg), "train": to_dict(TrainConfig())}))
    save_weights(run / "model.safetensors", model, 0)
    tok.save(run / "tokenizer.json")
    with pytest.raises(UsageError) as caught:
        export_gpt2(run, tmp_path / "out")
    assert (caught.value.code, caught.value.fields) == (
        "gpt2.field_out",
        {"field": "norm", "found": "post", "want": "pre"},
    )
    config = json.loads((run / "config.json").read_text())
    config["model"]["norm"] = "pre"
    (run / "config.json").write_text(json.dumps(config))
    with pytest.raises(UsageError) as caught:
        export_gpt2(run, tmp_path / "out")
    assert (caught.value.code, caught.value.fields["kind"]) == ("gpt2.export_tokenizer", "char")
    assert not (tmp_path / "out").exists()
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("keep me")
    with pytest.raises(UsageError) as caught:
        export_gpt2(imported[0], tmp_path / "full")
    assert caught.value.code == "gpt2.export_out_full" and [p.name for p in (tmp_path / "full").iterdir()] == ["x"]


def test_a_fresh_interpreter_knows_the_tokenizer_kind(imported):
    """load_tokenizer finds "gpt2-bpe" without anyone importing the GPT-2 modules first."""
    import subprocess
    import sys

    src = str(ROOT / "src")
    code = (
        "import sys; from glassformer.train.checkpoint import load_model; "
        "m, t, _ = load_model(sys.argv[1]); print(t.kind, t.encode('hi 你好'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(imported[0])],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": src, "PATH": ""},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == "gpt2-bpe" and str(imported[2].encode("hi 你好")) in done.stdout


@pytest.mark.parametrize("files", ["tokenizer.json", "vocab.json"])
def test_a_tokenizer_whose_endoftext_transformers_adds_imports_and_generates_as_transformers_does(
    tmp_path, files, capsys
):
    """Issue 29: transformers loads this directory and generates from it (its <|endoftext|>, named by
    tokenizer_config.json and absent from the vocabulary, becomes an added token with the next id);
    the import reads it the same way, says what it added, and writes the same greedy text."""
    folder, hf, hf_tok = fast_tokenizer_dir(tmp_path / "hf", files)
    n_vocab = hf.config.vocab_size - 1  # the vocabulary the library learned; <|endoftext|> comes after it
    assert hf_tok.convert_tokens_to_ids("<|endoftext|>") == n_vocab == len(hf_tok) - 1
    notes = []
    read_tokenizer_dir(folder, note=lambda key, **fields: notes.append((key, fields)))
    run = import_gpt2(folder, tmp_path / "run")
    said = capsys.readouterr().err
    if files == "vocab.json":  # the import adds it, as transformers does, and says so
        fields = {
            "path": folder / "tokenizer_config.json",
            "tokens": "'<|endoftext|>'",
            "first": n_vocab,
            "last": n_vocab,
        }
        assert [said_fields for _, said_fields in notes] == [fields] and "'<|endoftext|>'" in said
    else:  # save_pretrained wrote it into tokenizer.json's added_tokens: nothing to add
        assert notes == [] and "<|endoftext|>" not in said
    model, tokenizer, _ = load_model(run)
    text = "The cat sat<|endoftext|>It's 12 o'clock"
    prompt = tokenizer.encode(text)
    assert prompt == hf_tok(text)["input_ids"] and n_vocab in prompt
    ids = torch.tensor([prompt])  # (1, T0)
    n = hf.config.n_positions - len(prompt)
    theirs = hf.generate(
        ids, attention_mask=torch.ones_like(ids), max_new_tokens=n, min_new_tokens=n, do_sample=False, pad_token_id=0
    )[0]
    ours = [int(t) for t in generate_ids(model, ids, n, temperature=0)]
    assert ours == theirs[len(prompt) :].tolist() and len(set(ours)) > 1
    assert tokenizer.decode(prompt + ours) == hf_tok.decode(theirs)  # the same text, greedy


def test_tokenizer_json_is_read_before_vocab_json_as_transformers_reads_it(tmp_path):
    """With tokenizer.json beside vocab.json + merges.txt, transformers builds its tokenizer from
    tokenizer.json alone; so does the import (merges.txt cut to one merge here: it must not be used)."""
    folder, _, _ = fast_tokenizer_dir(tmp_path / "hf")
    from tokenizers import Tokenizer

    Tokenizer.from_file(str(folder / "tokenizer.json")).model.save(str(folder))
    merges = (folder / "merges.txt").read_text(encoding="utf-8").split("\n")
    (folder / "merges.txt").write_text("\n".join(merges[:2]) + "\n", encoding="utf-8")
    hf_tok = transformers.AutoTokenizer.from_pretrained(folder)
    ours = read_tokenizer_dir(folder, note=lambda *a, **k: None)
    for text in TEXTS.values():
        assert ours.encode(text) == hf_tok(text)["input_ids"]
