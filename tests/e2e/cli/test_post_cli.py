"""The verbs of cli/post.py: `glassformer sft`, `dpo`, `grpo` through the real dispatcher, on a tiny
base run: a run made, what is said (catalogue keys and fields), exit codes, and bad input refused in
one line, in English and Chinese, before anything is written."""

from __future__ import annotations

import json

import pytest
from helpers import arithmetic_base, said

from glassformer.cli import main
from glassformer.post.data import BUILTIN

TINY = ["--max_steps=4", "--eval_interval=2", "--eval_iters=1", "--batch_size=4", "--threads=1"]


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return arithmetic_base(tmp_path_factory.mktemp("post-cli"), steps=4, n_sums=200)


def run_cli(capsys, *argv):
    with said() as heard:
        code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err, heard


@pytest.mark.parametrize("method", ["sft", "dpo"])
def test_a_verb_makes_a_run_and_says_so(base, tmp_path, capsys, method):
    out = tmp_path / method
    code, stdout, _, heard = run_cli(
        capsys, method, str(base), "--data", BUILTIN, "--out", str(out), "--no-progress", *TINY
    )
    assert code == 0
    made = {"method": method, "dir": out, "base": str(base.resolve()), "data": BUILTIN}  # what, where, from what
    assert made in [fields for _, fields in heard]
    done = [fields for _, fields in heard if set(fields) == {"steps", "figures"}]
    assert done and done[0]["steps"] == 4
    assert json.loads((out / "config.json").read_text())["post"]["method"] == method


def test_train_resume_on_a_post_run_names_its_own_verb(base, tmp_path, capsys):
    """`train --resume` on an SFT run used to say it "cannot be resumed, start a new run"; the run's
    own verb resumes it, and the refusal says which."""
    out = tmp_path / "to-resume"
    assert run_cli(capsys, "sft", str(base), "--data", BUILTIN, "--out", str(out), "--no-progress", *TINY)[0] == 0
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    code, _, err, heard = run_cli(capsys, "train", "--resume", str(out), "--max_steps=8", "--no-progress")
    assert code == 2 and heard.of("run.post_resume") == [{"dir": out, "method": "sft"}]
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before  # nothing touched


def test_sft_with_lora_says_it_merged(base, tmp_path, capsys):
    out = tmp_path / "lora"
    code, _, _, heard = run_cli(
        capsys, "sft", str(base), "--data", BUILTIN, "--out", str(out), "--lora-r", "2", "--lora-alpha", "4", *TINY
    )
    assert code == 0 and {"dir": out} in [fields for _, fields in heard]  # said where the merge went
    assert (out / "model.safetensors").exists() and (out / "lora.safetensors").exists()


def test_sft_resume(base, tmp_path, capsys):
    out = tmp_path / "run"
    assert run_cli(capsys, "sft", str(base), "--data", BUILTIN, "--out", str(out), *TINY)[0] == 0
    code, _, _, heard = run_cli(capsys, "sft", "--resume", str(out), "--max_steps=6")
    assert code == 0 and {"dir": out, "step": 4} in [fields for _, fields in heard]  # resuming it from step 4


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_bad_input_is_one_line(base, tmp_path, capsys, lang):
    no_answer = tmp_path / "no_answer.jsonl"
    no_answer.write_text(json.dumps({"messages": [{"role": "user", "content": "1+2="}]}) + "\n", encoding="utf-8")
    taken = tmp_path / "taken"
    taken.mkdir()
    new = str(tmp_path / "new")
    cases = [
        (["sft", str(base), "--data", str(no_answer), "--out", new], "chat.line", 1),
        (["sft", str(tmp_path / "nowhere"), "--data", BUILTIN, "--out", new], "run.missing", 2),
        (["sft", str(base), "--data", BUILTIN, "--out", str(taken)], "post.out_exists", 2),
        (
            ["sft", str(base), "--data", BUILTIN, "--out", new, "--lora-r", "65", "--lora-alpha", "8"],
            "lora.rank",
            2,
        ),
        (["sft", str(base), "--data", BUILTIN, "--out", new, "--pack", "--seq_len=4"], "sft.too_long", 2),
        (["dpo", str(base), "--out", new], "post.need_base_data", 2),
    ]
    for argv, key, exit_code in cases:
        code, _, err, heard = run_cli(capsys, *argv, "--lang", lang)
        assert (code, key in heard.keys()) == (exit_code, True), (argv, heard.keys())
        assert len(err.strip().splitlines()) == 1, err
    assert list(taken.iterdir()) == [] and not (tmp_path / "new").exists()


def test_a_start_setting_given_with_resume_is_refused_not_ignored(base, tmp_path, capsys):
    """`sft --resume RUN --pack` used to resume unpacked and say nothing: a run keeps the settings it
    started with, so a start-only option beside --resume is refused, naming each one given."""
    out = tmp_path / "run"
    assert run_cli(capsys, "sft", str(base), "--data", BUILTIN, "--out", str(out), "--no-progress", *TINY)[0] == 0
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    code, _, _, heard = run_cli(capsys, "sft", "--resume", str(out), "--pack", "--lora-r", "2", "--max_steps=6")
    assert code == 2 and heard.of("post.resume_settings") == [{"options": "--lora-r, --pack", "dir": str(out)}]
    code, _, _, heard = run_cli(capsys, "grpo", "--resume", str(out), "--group", "8")
    assert code == 2 and heard.of("post.resume_settings") == [{"options": "--group", "dir": str(out)}]
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before  # nothing touched
