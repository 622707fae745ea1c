"""`glassformer import gpt2` / `export gpt2` from the command line, and the verbs that open the run:
sample (greedy = transformers' greedy text), trace, attention, explore; errors in one clear line."""

from __future__ import annotations

import json
import re

import pytest
import torch
from gpt2_kit import copy_dir, gpt2_dir, transformers
from reliability_kit import assert_clean_failure, cli, cli_error, cli_said

from glassformer.cli import main
from glassformer.cli.options import runnable
from glassformer.errors import DamagedFile, UsageError

PROMPT = "The cat sat"


@pytest.fixture(scope="module")
def dirs(tmp_path_factory):
    root = tmp_path_factory.mktemp("gpt2_cli")
    folder, hf, tok = gpt2_dir(root / "hf")
    code, out, err, heard = cli_said(["import", "gpt2", str(folder), "--out", str(root / "run")])
    assert code == 0, err
    assert str(root / "run") in out and heard.carrying(glassformer=runnable())  # where it went, how to open it
    return root, hf, tok


def test_sample_greedy_writes_transformers_greedy_text(dirs, capsys):
    root, hf, tok = dirs
    ids = torch.tensor([tok(PROMPT)["input_ids"]])  # (1, T0)
    new = hf.generate(
        ids, attention_mask=torch.ones_like(ids), max_new_tokens=12, min_new_tokens=12, do_sample=False, pad_token_id=0
    )[0, ids.size(1) :]
    code = main(
        [
            "sample",
            str(root / "run"),
            "--prompt",
            PROMPT,
            "--temperature",
            "0",
            "--max-new-tokens",
            "12",
            "--threads",
            "1",
        ]
    )
    assert code == 0
    assert capsys.readouterr().out == PROMPT + tok.decode(new) + "\n"


def test_trace_attention_and_explore_open_the_run(dirs, monkeypatch, tmp_path):
    root, hf, _ = dirs
    code, out, err = cli(["trace", "--run", str(root / "run"), "--prompt", "你好 the cat", "--threads", "1"])
    assert code == 0 and "blocks.1.attn.weights" in out, err
    monkeypatch.chdir(tmp_path)
    code, out, err = cli(["attention", "--run", str(root / "run"), "--prompt", PROMPT, "--threads", "1"])
    assert code == 0 and "attention.html" in out, err

    from starlette.testclient import TestClient

    from glassformer.explore.server import create_app, open_run

    client = TestClient(create_app(open_run(root / "run")), base_url="http://127.0.0.1:8321")
    r = client.post("/api/analyze", json={"text": PROMPT})
    assert r.status_code == 200, r.text
    bars = r.json()["next"]["rows"]
    ids = torch.tensor([r.json()["ids"]])  # (1, T)
    with torch.no_grad():
        assert bars[0]["id"] == int(hf(ids).logits[0, -1].argmax())


def test_export_from_the_command_line(dirs):
    root, hf, _ = dirs
    code, out, err = cli(["export", "gpt2", str(root / "run"), "--out", str(root / "exported")])
    assert code == 0 and "from_pretrained" in out, err
    again = transformers.GPT2LMHeadModel.from_pretrained(root / "exported").eval()
    ids = torch.randint(0, hf.config.vocab_size, (1, 8))  # (1, T)
    with torch.no_grad():
        assert torch.equal(again(ids).logits, hf(ids).logits)


def test_mistakes_are_one_clear_line(dirs, tmp_path):
    root, _, _ = dirs
    cases = [  # (argv, the refusal's code: None for argparse's own, which names the flag)
        (["import", "gpt2", str(tmp_path / "missing"), "--out", str(tmp_path / "r")], "gpt2.not_dir"),
        (
            [
                "import",
                "gpt2",
                str(copy_dir(root / "hf", tmp_path / "v", {"scale_attn_weights": False})),
                "--out",
                str(tmp_path / "r"),
            ],
            "gpt2.attention_flag",
        ),
        (["import", "gpt2", str(root / "hf"), "--out", str(root / "run")], "gpt2.has_checkpoint"),
        (["export", "gpt2", str(root / "run"), "--out", str(root / "hf")], "gpt2.export_out_full"),
        (["export", "gpt2", str(tmp_path / "nothing"), "--out", str(tmp_path / "o")], "run.missing"),
        (["train", "--resume", str(root / "run")], "run.imported"),
        (["import", "gpt2", str(root / "hf")], None),
    ]
    for argv, code_of in cases:
        code, _, err, error = cli_error(argv)
        assert_clean_failure(code, err)
        assert getattr(error, "code", None) == code_of, (argv, err)
        assert "--out" in err if code_of is None else error.words("en") in err  # the refusal reached the user
    _, _, _, error = cli_error(cases[1][0])
    assert (error.fields["flag"], error.fields["bad"]) == ("scale_attn_weights", False)
    assert json.loads((root / "run" / "config.json").read_text())["imported"]["format"] == "gpt2"  # untouched


CHINESE = re.compile(r"[\u4e00-\u9fff]")


def test_mistakes_speak_chinese_under_lang_zh(dirs, tmp_path):
    """The same refusals under --lang zh: the same exit code, a Chinese sentence, the same names and
    numbers, and no English sentence left over (the catalogue's zh entries, not the en ones)."""
    root, _, _ = dirs
    bad_tokenizer = copy_dir(root / "hf", tmp_path / "t")
    (bad_tokenizer / "tokenizer_config.json").write_text(json.dumps({"add_prefix_space": True}), encoding="utf-8")
    bad_merges = copy_dir(root / "hf", tmp_path / "m")
    with (bad_merges / "merges.txt").open("a", encoding="utf-8") as f:
        f.write("x y z\n")
    no_weights = copy_dir(root / "hf", tmp_path / "w")
    (no_weights / "model.safetensors").unlink()
    cases = [  # (argv, what the Chinese line must still name, the refusal's code)
        (["import", "gpt2", str(tmp_path / "missing"), "--out", str(tmp_path / "r")], "missing", "gpt2.not_dir"),
        (
            [
                "import",
                "gpt2",
                str(copy_dir(root / "hf", tmp_path / "v", {"model_type": "llama"})),
                "--out",
                str(tmp_path / "r"),
            ],
            "model_type='llama'",
            "gpt2.model_type",
        ),
        (["import", "gpt2", str(root / "hf"), "--out", str(root / "run")], "model.safetensors", "gpt2.has_checkpoint"),
        (
            ["import", "gpt2", str(bad_tokenizer), "--out", str(tmp_path / "r")],
            "add_prefix_space=true",
            "gpt2.tokenizer_option",
        ),
        (["import", "gpt2", str(bad_merges), "--out", str(tmp_path / "r")], "'x y z'", "gpt2.merge_line"),
        (["import", "gpt2", str(no_weights), "--out", str(tmp_path / "r")], "pytorch_model.bin", "gpt2.no_weights"),
        (["export", "gpt2", str(root / "run"), "--out", str(root / "hf")], "--out", "gpt2.export_out_full"),
    ]
    for argv, names, code_of in cases:
        code_en, _, err_en, english = cli_error(argv)
        code, _, err, chinese = cli_error(["--lang", "zh", *argv])
        assert_clean_failure(code, err)
        assert code == code_en and english.code == chinese.code == code_of, (argv, err_en)
        assert english.words("en") in err_en and chinese.words("zh") in err and CHINESE.search(chinese.words("zh")), (
            argv,
            err,
        )
        assert names in chinese.words("zh") and english.words("en") not in err, (argv, err)  # no English left over
    assert not (tmp_path / "r").exists()  # nothing was written by a refusal, in either language


def test_library_refusals_speak_chinese_too(dirs):
    """models/gpt2.py's checks, called as a library under the environment's language."""
    from glassformer import messages
    from glassformer.config import ModelConfig
    from glassformer.models.gpt2 import gpt2_config, state_dict_from_gpt2

    _, hf, _ = dirs
    state = {k: v for k, v in hf.state_dict().items() if "h.0.ln_1" not in k}
    with messages.speaking("zh"):
        with pytest.raises(DamagedFile) as missing:
            state_dict_from_gpt2(state, hf.config.n_layer)
        with pytest.raises(UsageError) as field:
            gpt2_config(ModelConfig(vocab_size=10, norm="post"))
    with pytest.raises(DamagedFile) as english:  # English, as before
        state_dict_from_gpt2(state, hf.config.n_layer)
    assert missing.value.code == english.value.code == "gpt2.tensors_missing"
    assert missing.value.fields["names"].startswith("h.0.ln_1.weight, h.0.ln_1.bias")
    assert CHINESE.search(str(missing.value)) and missing.value.fields["names"] in str(missing.value)
    assert not CHINESE.search(str(english.value)) and "h.0.ln_1.weight" in str(english.value)
    assert CHINESE.search(str(field.value)) and "norm='post'" in str(field.value)


def test_resuming_an_imported_run_is_refused_with_the_way_to_train_it_and_nothing_changes(dirs):
    """An imported GPT-2 has no optimizer state and no data: `train --resume` refuses in one line that
    names the way to train it further (export, fine-tune, import), before anything is written, whatever
    else the command line asked for (new data, changed settings, another language)."""
    root, _, _ = dirs
    run = root / "run"
    before = {p.name: p.read_bytes() for p in run.iterdir()}
    for extra in ([], ["--data", "builtin:seed", "--max_steps=5"], ["--lang", "zh"]):
        code, out, err, error = cli_error(["train", "--resume", str(run), *extra])
        assert_clean_failure(code, err, codes=(2,))
        assert error.code == "run.imported" and error.fields["dir"] == run and error.fields["format"] == "gpt2", err
        lang = "zh" if "zh" in extra else "en"
        assert error.words(lang) in err and out == ""  # the refusal that names the way to train it further
    assert CHINESE.search(err)
    assert {p.name: p.read_bytes() for p in run.iterdir()} == before  # no lock, no config rewrite, no file lost


def test_a_new_run_over_an_imported_one_gives_the_imported_advice_not_resume(dirs):
    """`train --out IMPORTED_RUN` used to say "continue it with --resume", which then refused: two steps
    to the right advice. It now names the way to train an imported model at once, and changes nothing."""
    root, _, _ = dirs
    run = root / "run"
    before = {p.name: p.read_bytes() for p in run.iterdir()}
    code, out, err, error = cli_error(["train", "--preset", "baby", "--data", "builtin:seed", "--out", str(run)])
    assert_clean_failure(code, err, codes=(2,))
    assert error.code == "run.imported" and error.fields["dir"] == run and error.words("en") in err, err  # not resume
    assert {p.name: p.read_bytes() for p in run.iterdir()} == before
