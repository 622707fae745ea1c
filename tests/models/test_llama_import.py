"""`glassformer import llama|qwen3|mistral DIR` and `export llama`: a tiny random checkpoint that
transformers saved (safetensors, sharded with an index, config.json, a tokenizer.json of the
tokenizers library) into a run every verb opens, and back to a directory transformers loads with
equal logits; bad directories get one clear line and nothing is written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import torch
from hf_families import tokenizer_json
from reliability_kit import assert_clean_failure, cli, cli_error

from glassformer.errors import DamagedFile, NotFound, UsageError
from glassformer.train.checkpoint import load_model
from glassformer.train.run import import_checkpoint

transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")

CONFIGS = {
    "qwen3": (
        "Qwen3Config",
        "Qwen3ForCausalLM",
        {"num_key_value_heads": 2, "head_dim": 12, "tie_word_embeddings": True},
    ),
    "mistral": ("MistralConfig", "MistralForCausalLM", {"num_key_value_heads": 1, "sliding_window": 4}),
    "llama": (
        "LlamaConfig",
        "LlamaForCausalLM",
        {"num_key_value_heads": 2, "rope_parameters": {"rope_theta": 5e5, "rope_type": "default"}},
    ),
}


def checkpoint(folder: Path, family: str, shards: bool = False):
    config_name, model_name, extra = CONFIGS[family]
    config = getattr(transformers, config_name)(
        vocab_size=48,  # more rows than the tokenizer's tokens, as Qwen's checkpoints
        hidden_size=32,
        intermediate_size=48,
        num_hidden_layers=2,
        num_attention_heads=4,
        max_position_embeddings=64,
        attn_implementation="eager",
        **extra,
    )
    torch.manual_seed(0)
    hf = getattr(transformers, model_name)(config).eval()
    hf.save_pretrained(folder, max_shard_size="20KB" if shards else "5GB")
    (folder / "tokenizer.json").write_text(tokenizer_json(), encoding="utf-8")
    return hf


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return tmp_path_factory.mktemp("llama_import")


@pytest.mark.parametrize("family, shards", [("qwen3", True), ("mistral", False), ("llama", False)])
def test_import_gives_a_run_equal_to_transformers_and_export_gives_it_back(root, family, shards):
    hf = checkpoint(root / f"{family}-hf", family, shards)
    assert shards == (root / f"{family}-hf" / "model.safetensors.index.json").is_file()
    code, out, err = cli(["import", family, str(root / f"{family}-hf"), "--out", str(root / f"{family}-run")])
    assert code == 0, err
    model, tokenizer, _ = load_model(root / f"{family}-run")
    ids = torch.tensor([tokenizer.encode("the dog sat on the mat")])  # (1, T)
    with torch.no_grad():
        theirs = hf(ids).logits  # (1, T, V)
        assert (model(ids) - theirs).abs().max() <= 1e-5
    assert tokenizer.decode(tokenizer.encode("the dog sat")) == "the dog sat"
    code, out, err = cli(["export", "llama", str(root / f"{family}-run"), "--out", str(root / f"{family}-out")])
    assert code == 0 and "from_pretrained" in out, err
    assert json.loads((root / f"{family}-out" / "config.json").read_text())["model_type"] == family
    again = transformers.AutoModelForCausalLM.from_pretrained(root / f"{family}-out", attn_implementation="eager")
    with torch.no_grad():
        assert torch.equal(again.eval()(ids).logits, theirs)


def test_every_verb_opens_an_imported_run(root):
    checkpoint(root / "verbs-hf", "qwen3")
    assert cli(["import", "qwen3", str(root / "verbs-hf"), "--out", str(root / "verbs-run")])[0] == 0
    run = str(root / "verbs-run")
    for argv, shows in [
        (["sample", run, "--prompt", "the cat", "--temperature", "0", "--max-new-tokens", "5"], "the cat"),
        (["trace", "--run", run, "--prompt", "the cat sat"], "blocks.1.attn.qk_norm.k"),
        (["params", "--run", run], "qk_norm"),
    ]:
        code, out, err = cli([*argv, "--threads", "1"])
        assert code == 0 and shows in out, (argv, err)


def test_bad_directories_get_one_clear_line_and_nothing_is_written(root, tmp_path):
    good = root / "bad-hf"
    checkpoint(good, "mistral", shards=True)

    def variant(name: str, change) -> Path:
        folder = tmp_path / name
        shutil.copytree(good, folder)
        change(folder)
        return folder

    def config_edit(**fields):
        def edit(folder: Path) -> None:
            config = json.loads((folder / "config.json").read_text())
            (folder / "config.json").write_text(json.dumps({**config, **fields}))

        return edit

    first_shard = sorted(json.loads((good / "model.safetensors.index.json").read_text())["weight_map"].values())[0]
    cases = [
        ("shard", lambda f: (f / first_shard).unlink(), "mistral", NotFound, "gpt2.shard_missing"),
        ("heads", config_edit(num_key_value_heads=3), "mistral", DamagedFile, "hf.cannot_build"),
        ("type", config_edit(model_type="gemma3"), "mistral", UsageError, "hf.model_type"),
        ("rope", config_edit(rope_parameters={"rope_type": "longrope"}), "mistral", UsageError, "hf.rope_type"),
        ("tok", lambda f: (f / "tokenizer.json").unlink(), "mistral", NotFound, "hf.no_tokenizer"),
        ("family", lambda f: None, "qwen3", UsageError, "hf.format_differs"),
    ]
    for name, change, family, kind, key in cases:
        folder = variant(name, change)
        out = tmp_path / f"{name}-run"
        code, _, err, error = cli_error(["import", family, str(folder), "--out", str(out)])
        assert_clean_failure(code, err)
        assert isinstance(error, kind) and error.key == key, (name, error)
        assert not out.exists(), name  # nothing half-written
        if name == "tok":
            assert error.fields["path"] == folder  # the folder that lacks the file
    import_checkpoint(good, tmp_path / "held", "mistral")
    with pytest.raises(UsageError) as e:
        import_checkpoint(good, tmp_path / "held", "mistral")  # a run that holds a checkpoint is never overwritten
    assert e.value.code == "gpt2.has_checkpoint"


def test_a_model_too_big_for_memory_is_refused_with_the_numbers_before_reading(root, tmp_path, monkeypatch):
    from glassformer.models import kinds

    checkpoint(root / "big-hf", "llama")
    monkeypatch.setattr(kinds, "machine_memory", lambda: 1000)  # bytes: less than the model's weights
    code, _, err, error = cli_error(["import", "llama", str(root / "big-hf"), "--out", str(tmp_path / "run")])
    assert_clean_failure(code, err)
    assert isinstance(error, UsageError) and error.code == "model.too_big"
    assert error.fields["memory"] * (1 << 30) == 1000 and error.fields["params"] > 1000 // 4
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("preset, family", [("baby-llama", "llama"), ("baby-qwen3", "qwen3")])
def test_a_run_trained_here_exports_to_a_directory_transformers_and_tokenizers_read_back(tmp_path, preset, family):
    from seed_runs import seed_run

    from glassformer.text.tokenizers import CharTokenizer
    from glassformer.train.run import train

    quick = ["--max_steps=2", "--eval_interval=2", "--eval_iters=1", "--batch_size=2", "--seq_len=16", "--threads=1"]
    run = seed_run(tmp_path, "run", quick, preset)
    assert train(run).status == "done"
    code, out, err = cli(["export", "llama", str(run.dir), "--out", str(tmp_path / "out")])
    assert code == 0, err
    assert json.loads((tmp_path / "out" / "config.json").read_text())["model_type"] == family
    model, ours, _ = load_model(run.dir)
    assert isinstance(ours, CharTokenizer)  # the presets' data is read by characters
    theirs = tokenizers.Tokenizer.from_file(str(tmp_path / "out" / "tokenizer.json"))
    text = "".join(ours.chars[::-1] + ours.chars)  # every character the run knows, spaces among them
    ids = ours.encode(text)
    assert theirs.encode(text, add_special_tokens=False).ids == ids and theirs.decode(ids) == text
    again = transformers.AutoModelForCausalLM.from_pretrained(tmp_path / "out", attn_implementation="eager").eval()
    x = torch.tensor([ids[:16]])  # (1, 16)
    with torch.no_grad():
        assert (again(x).logits - model(x)).abs().max() <= 1e-5


def test_a_char_tokenizer_s_json_form_refuses_or_unks_an_unseen_character_as_it_does():
    from glassformer.text.tokenizers import CharTokenizer

    with_unk = tokenizers.Tokenizer.from_str(CharTokenizer.from_text("ab\n", unk=True).hf_json())
    assert with_unk.encode("a\nzb", add_special_tokens=False).ids == CharTokenizer.from_text("ab\n", unk=True).encode(
        "a\nzb"
    )
    without = tokenizers.Tokenizer.from_str(CharTokenizer.from_text("ab").hf_json())
    with pytest.raises(Exception, match="UNK"):  # noqa: B017 (the library raises a bare Exception; ours a UsageError)
        without.encode("az", add_special_tokens=False)


def test_import_holds_one_checkpoint_tensor_at_a_time_beside_the_model(root, monkeypatch):
    import gc
    import weakref

    from glassformer.models import gpt2
    from glassformer.models.llama import read_hf_dir

    checkpoint(root / "lazy-hf", "qwen3", shards=True)
    read, alive, most = gpt2.SafetensorsFiles.__getitem__, [], [0]

    def counted(self, name):
        gc.collect()
        alive[:] = [r for r in alive if r() is not None]
        most[0] = max(most[0], len(alive))  # checkpoint tensors still held when the next one is read
        tensor = read(self, name)
        alive.append(weakref.ref(tensor))
        return tensor

    monkeypatch.setattr(gpt2.SafetensorsFiles, "__getitem__", counted)
    model, _, _, _ = read_hf_dir(root / "lazy-hf", "qwen3")
    files = gpt2.read_weights(root / "lazy-hf")[1]
    assert (
        len(files) > 20 and 0 < most[0] <= 3
    )  # at most the parameter just made, and q_proj, k_proj while v_proj is read
    hf = transformers.AutoModelForCausalLM.from_pretrained(root / "lazy-hf", attn_implementation="eager").eval()
    ids = torch.tensor([[1, 5, 9, 2]])  # (1, 4)
    with torch.no_grad():
        assert (model(ids) - hf(ids).logits).abs().max() <= 1e-5  # and every tensor landed where it belongs


def test_a_sample_ends_at_the_eos_of_generation_config_as_generate_does_and_export_keeps_it(root, tmp_path):
    from glassformer.sample import sample

    hf = checkpoint(tmp_path / "hf", "llama")
    prompt = "the dog sat"
    ids = torch.tensor(
        [tokenizers.Tokenizer.from_file(str(tmp_path / "hf" / "tokenizer.json")).encode(prompt).ids]
    )  # (1, 3)
    with torch.no_grad():
        greedy = hf.generate(ids, max_new_tokens=8, do_sample=False)[0, ids.shape[1] :].tolist()  # no eos: all 8
    eos = greedy[4]  # a token greedy decoding writes fifth: the checkpoint says it ends the text
    first, other = greedy.index(eos), next(i for i in range(48) if i not in greedy)  # and one it never writes
    (tmp_path / "hf" / "generation_config.json").write_text(
        json.dumps({"eos_token_id": [other, eos], "bos_token_id": 1})
    )
    with torch.no_grad():
        theirs = hf.generate(ids, max_new_tokens=8, do_sample=False, eos_token_id=[other, eos])[
            0, ids.shape[1] :
        ].tolist()
    assert theirs == greedy[: first + 1]  # generate writes the eos and stops
    assert cli(["import", "llama", str(tmp_path / "hf"), "--out", str(tmp_path / "run")])[0] == 0
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    assert config["imported"]["generation"] == {"eos_token_id": [other, eos], "bos_token_id": 1}
    model, tokenizer, _ = load_model(tmp_path / "run")
    assert tokenizer.encode(prompt) == ids[0].tolist()
    code, out, err = cli(
        ["sample", str(tmp_path / "run"), "--prompt", prompt, "--temperature", "0", "--max-new-tokens", "8"]
    )
    assert code == 0, err
    assert out.rstrip("\n") == prompt + tokenizer.decode(greedy[:first])  # ours stops before the eos, as generate
    (text,) = sample(model, tokenizer, prompt, 8, temperature=0)  # the library without end_ids: all 8
    assert text == tokenizer.decode(greedy)
    assert cli(["export", "llama", str(tmp_path / "run"), "--out", str(tmp_path / "out")])[0] == 0
    back = transformers.GenerationConfig.from_pretrained(tmp_path / "out")
    assert (back.eos_token_id, back.bos_token_id) == ([other, eos], 1)


def test_a_generation_config_with_an_id_past_the_vocabulary_is_refused_before_anything_is_written(root, tmp_path):
    checkpoint(tmp_path / "hf", "qwen3")
    (tmp_path / "hf" / "generation_config.json").write_text(json.dumps({"eos_token_id": [2, 48]}))  # 48 rows: 0..47
    code, _, err, error = cli_error(["import", "qwen3", str(tmp_path / "hf"), "--out", str(tmp_path / "run")])
    assert_clean_failure(code, err)
    assert isinstance(error, DamagedFile) and error.code == "hf.generation_id" and error.fields["key"] == "eos_token_id"
    assert not (tmp_path / "run").exists()


def qwen3_config():
    from dataclasses import replace

    from glassformer.config import get_preset

    return replace(get_preset("baby-qwen3").model, vocab_size=48)  # RMSNorm, RoPE, SwiGLU, no biases, q/k norms


def test_export_refuses_a_model_transformers_could_not_compute_naming_the_field_it_has_and_the_one_needed():
    from dataclasses import replace

    from glassformer.models.llama import hf_config

    cfg = qwen3_config()
    assert hf_config(cfg)["model_type"] == "qwen3"
    cases = {"bias": (True, False), "ffn": ("mlp", "swiglu"), "sliding_window": (4, 0)}  # Qwen3's q/k norms: no window
    for field, (found, want) in cases.items():
        with pytest.raises(UsageError) as e:
            hf_config(replace(cfg, **{field: found}))
        assert (e.value.code, e.value.fields) == ("hf.field_out", {"field": field, "found": found, "want": want})


@pytest.mark.parametrize("scaling", ["none", "linear", "dynamic", "yarn", "llama3"])
def test_export_writes_each_rope_scalings_parameters_and_import_reads_them_back(scaling):
    """A scaled RoPE's factor (and YaRN's and Llama 3's original length) goes into rope_parameters,
    and the default RoPE's config.json holds no factor at all."""
    from dataclasses import replace

    from glassformer.models.llama import config_from_hf, hf_config

    long = scaling in ("yarn", "llama3")  # dynamic's original length is read back from max_position_embeddings
    cfg = replace(
        qwen3_config(),
        rope_scaling=scaling,
        rope_factor=4.0 if scaling != "none" else 1.0,
        rope_original_max_len=16 if scaling in ("dynamic", "yarn", "llama3") else 0,
    )
    rope = hf_config(cfg)["rope_parameters"]
    assert rope.get("factor") == (4.0 if scaling != "none" else None)
    assert rope.get("original_max_position_embeddings") == (16 if long else None)
    back = config_from_hf(hf_config(cfg))
    fields = ("rope_scaling", "rope_factor", "rope_base") + (("rope_original_max_len",) if long else ())
    assert [getattr(back, f) for f in fields] == [getattr(cfg, f) for f in fields]


def test_a_rope_parameter_computed_at_a_fixed_value_is_refused_at_another_unless_the_rope_is_the_default():
    """Llama 3's low_freq_factor is computed at 1.0 (ROPE_FIXED): a checkpoint with 2.0 would be
    computed differently, so it is refused; the default RoPE reads no such parameter, so a stray
    one there changes nothing and is let through."""
    from dataclasses import replace

    from glassformer.models.llama import config_from_hf, hf_config

    llama3 = hf_config(replace(qwen3_config(), rope_scaling="llama3", rope_factor=8.0, rope_original_max_len=16))
    llama3["rope_parameters"]["low_freq_factor"] = 2.0
    with pytest.raises(UsageError) as e:
        config_from_hf(llama3)
    assert (e.value.code, e.value.fields["field"], e.value.fields["value"]) == (
        "hf.unsupported",
        "rope_parameters.low_freq_factor",
        2.0,
    )
    plain = hf_config(qwen3_config())
    plain["rope_parameters"]["low_freq_factor"] = 2.0
    assert config_from_hf(plain).rope_scaling == "none"


def test_a_transformers_config_object_reads_as_its_config_json_does():
    """config_from_hf takes a PretrainedConfig (attributes) or its config.json (a dict): an attribute
    the object lacks is read as missing, like a key the dict lacks, never an AttributeError."""
    from types import SimpleNamespace

    from glassformer.models.llama import config_from_hf, hf_config

    as_json = hf_config(qwen3_config())
    assert "num_local_experts" not in as_json and "sliding_window" not in as_json  # read, and absent here
    assert config_from_hf(SimpleNamespace(**as_json)) == config_from_hf(as_json)
