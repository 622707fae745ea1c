"""Every file the CLI reads, in every way it can be wrong, is a clear error that names the file, what
is wrong with it and what to do: missing, a directory, unreadable, empty, of another format, damaged,
in another text encoding. Each case runs through `main`, as a user would meet it."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import torch
from helpers import said
from reliability_kit import assert_clean_failure, cli, cli_said, resume_argv, same_weights

from glassformer.messages import t
from glassformer.text.corpora import prepare

GBK_CHINESE = "你好，世界。今天天气很好。\n".encode("gb18030")


def sample(run, *extra):
    return cli(sample_argv(run, *extra))


def sample_argv(run, *extra):
    return ["sample", str(run), "--prompt", "a", "--max-new-tokens", "3", "--seed", "0", *extra]


def only(heard, key: str) -> dict:
    """The fields of `key`, said exactly once."""
    [fields] = heard.of(key)
    return fields


def flip(path: Path, offset: int) -> None:
    """Change one byte of a file (offset from the end when negative)."""
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x55
    path.write_bytes(bytes(data))


def unreadable(monkeypatch, name: str) -> None:
    """Reading any file called `name` fails as a permission problem does (tests may run as root,
    where chmod 000 does not stop a read)."""
    real_read, real_open = Path.read_bytes, Path.open

    def read_bytes(self):
        if self.name == name:
            raise PermissionError(13, "Permission denied", str(self))
        return real_read(self)

    def open_(self, *args, **kwargs):  # a big file is read through open(), a chunk at a time
        if self.name == name:
            raise PermissionError(13, "Permission denied", str(self))
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    monkeypatch.setattr(Path, "open", open_)


# ---- config.json ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "damage, code, key, fields",
    [
        (lambda p: p.unlink(), 2, "run.no_config", {}),
        (lambda p: (p.unlink(), p.mkdir()), 2, "files.directory", {}),
        (lambda p: p.write_text(""), 1, "files.empty", {}),
        (lambda p: p.write_text('{"model": {'), 1, "files.json", {"line": 1, "column": 12}),
        (lambda p: p.write_bytes(b'{"about": "' + GBK_CHINESE + b'"}'), 1, "files.encoding", {"guess": "GBK"}),
        (lambda p: p.write_text("[1, 2]"), 1, "run.config_shape", {}),
        (  # an invalid config: its problem, as the config's own check words it
            lambda p: p.write_text(p.read_text().replace('"d_model": 16', '"d_model": [16]')),
            1,
            "config.type",
            {"key": "d_model", "value": [16], "type": "int"},
        ),
        (
            lambda p: p.write_text(p.read_text().replace('"kind": "gpt"', '"kind": "gtp"')),
            1,
            "model.kind",
            {"kind": "gtp"},
        ),
        (
            lambda p: p.write_text(p.read_text().replace('"n_heads": 2', '"n_heads": 3')),
            1,
            "config.heads",
            {"d_model": 16, "n_heads": 3},
        ),
    ],
    ids=[
        "missing",
        "directory",
        "empty",
        "not-json",
        "gbk",
        "not-an-object",
        "wrong-type",
        "unknown-kind",
        "invalid-value",
    ],
)
def test_config_json(run_copy, damage, code, key, fields):
    run, _ = run_copy
    damage(run / "config.json")
    got, _, err, heard = cli_said(sample_argv(run))
    assert_clean_failure(got, err, codes=(code,))
    refusal(heard, key, fields)
    if key.split(".")[0] in ("config", "model"):  # the config's own check, inside "config.json holds an invalid config"
        assert heard.of("run.invalid_config")[0]["problem"].code == key
    assert names(heard) <= {run, run / "config.json"} and names(heard)  # the run, or its config.json


def refusal(heard, key: str, fields: dict) -> dict:
    """The fields of the one error `key` said, checked to hold `fields`."""
    [refused] = heard.of(key)
    assert fields.items() <= refused.items(), refused
    return refused


def names(heard) -> set[Path]:
    """The files and folders the errors said name."""
    return {Path(f.get("path", f.get("dir"))) for _, f in heard if "path" in f or "dir" in f}


def test_unreadable_config_json(run_copy, monkeypatch):
    run, _ = run_copy
    unreadable(monkeypatch, "config.json")
    code, _, err, heard = cli_said(sample_argv(run))
    assert_clean_failure(code, err, codes=(1,))
    assert Path(only(heard, "files.permission")["path"]) == run / "config.json"


def _fifo(p: Path) -> None:
    p.unlink()
    os.mkfifo(p)  # opened for reading, it would wait for a writer forever


def _dev_zero(p: Path) -> None:
    p.unlink()
    p.symlink_to("/dev/zero")  # read to the end, it never ends: memory runs out


@pytest.mark.parametrize(
    "damage, key, fields",
    [
        (_dev_zero, "files.not_regular", {}),  # and what it is instead: a character device
        (_fifo, "files.not_regular", {}),  # a named pipe
        (lambda p: p.write_text(" " * ((1 << 20) + 1)), "files.too_large", {"most": 1 << 20}),
    ],
    ids=["dev-zero", "fifo", "too-large"],
)
def test_a_config_json_that_is_no_file_glassformer_writes_is_refused_before_it_is_read(
    run_copy, monkeypatch, damage, key, fields
):
    """Refused on what stat() says, naming config.json: never read (a FIFO would block, /dev/zero would
    be read until memory ran out and then blame --batch_size)."""
    run, _ = run_copy
    damage(run / "config.json")
    reads = []
    real_open = Path.open
    monkeypatch.setattr(Path, "open", lambda self, *a, **k: reads.append(self.name) or real_open(self, *a, **k))
    code, _, err, heard = cli_said(sample_argv(run))
    assert_clean_failure(code, err, codes=(1,))
    refused = only(heard, key)
    assert Path(refused["path"]) == run / "config.json" and fields.items() <= refused.items()
    if key == "files.not_regular":  # what it is instead, as the files module tells the kinds apart
        from glassformer.files import _kind

        assert refused["what"] == t(_kind((run / "config.json").stat().st_mode)) != t(_kind(0))
    assert "config.json" not in reads or key == "files.too_large"  # a big file is opened, read to the cap
    assert "batch" not in err


def test_run_directory_that_is_a_file_or_missing(tmp_path):
    (tmp_path / "file").write_text("x")
    for path, key in ((tmp_path / "file", "run.is_file"), (tmp_path / "nope", "run.missing")):
        code, _, err, heard = cli_said(sample_argv(path))
        assert_clean_failure(code, err, codes=(2,))
        assert refusal(heard, key, {"dir": path})["hint"]  # and where the runs are


def test_sample_of_a_run_that_does_not_exist_names_the_runs_that_do(run_copy, tmp_path, monkeypatch):
    """`sample runs/不存在` named a made-up run (runs/baby-20250101-120000); now the runs in runs/, or none."""
    monkeypatch.chdir(tmp_path)
    code, _, err, heard = cli_said(sample_argv(Path("runs") / "不存在"))
    assert_clean_failure(code, err, codes=(2,))
    assert heard.carrying(parent=Path("runs")) == [{"parent": Path("runs")}]  # none there, and how to make one
    assert "baby-2025" not in err
    (tmp_path / "runs").mkdir()
    shutil.copytree(run_copy[0], tmp_path / "runs" / "zh-poems")
    code, _, err, heard = cli_said(sample_argv(Path("runs") / "不存在", "--lang", "zh"))
    assert_clean_failure(code, err, codes=(2,))
    assert heard.carrying(parent=Path("runs")) == [{"parent": Path("runs"), "n": 1, "runs": str(Path("runs/zh-poems"))}]


# ---- tokenizer.json -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "damage, code, key, fields",
    [
        (lambda p: p.unlink(), 2, "files.missing", {}),
        (lambda p: p.write_text("{"), 1, "files.json", {"line": 1, "column": 2}),
        (lambda p: p.write_text('{"kind": "chars"}'), 1, "tokenizer.kind", {"kind": "chars"}),
        (
            lambda p: p.write_text('{"kind": "char", "chars": 7, "unk": false}'),
            1,
            "tokenizer.field",
            {"field": "chars", "found": "number", "shown": "7"},
        ),
        (
            lambda p: p.write_text('{"kind": "char", "chars": ["a", "b"], "unk": false}'),
            1,
            "run.vocab",
            {"tokens": 2},
        ),
    ],
    ids=["missing", "not-json", "unknown-kind", "wrong-fields", "other-vocabulary"],
)
def test_tokenizer_json(run_copy, damage, code, key, fields):
    run, _ = run_copy
    damage(run / "tokenizer.json")
    got, _, err, heard = cli_said(sample_argv(run))
    assert_clean_failure(got, err, codes=(code,))
    refusal(heard, key, fields)
    assert names(heard) == {run / "tokenizer.json"}


# ---- model.safetensors and best.safetensors --------------------------------------------------------
@pytest.mark.parametrize("name", ["model.safetensors", "best.safetensors"])
@pytest.mark.parametrize(
    "damage, key",
    [
        (lambda p: flip(p, 20), "checkpoint.weights_damaged"),  # the JSON header: not a safetensors file
        (lambda p: flip(p, -3), "checkpoint.weights_sha"),  # a weight's byte: differs from its sha256
        (lambda p: p.write_bytes(p.read_bytes()[:1000]), "checkpoint.weights_damaged"),
        (lambda p: p.write_bytes(b""), "checkpoint.weights_damaged"),
        (lambda p: (p.unlink(), p.mkdir()), "checkpoint.weights_dir"),
    ],
    ids=["header", "data", "truncated", "empty", "directory"],
)
def test_weights(run_copy, name, damage, key):
    run, _ = run_copy
    damage(run / name)
    code, _, err, heard = cli_said(sample_argv(run, *(["--best"] if name.startswith("best") else [])))
    assert_clean_failure(code, err)
    refusal(heard, key, {"path": run / name})


def test_missing_weights(run_copy):
    run, _ = run_copy
    (run / "best.safetensors").unlink()
    code, _, err, heard = cli_said(sample_argv(run, "--best"))
    assert_clean_failure(code, err, codes=(2,))
    assert Path(only(heard, "run.no_best")["path"]) == run / "best.safetensors"
    (run / "model.safetensors").unlink()
    code, _, err, heard = cli_said(sample_argv(run))
    assert_clean_failure(code, err, codes=(2,))
    assert Path(only(heard, "run.no_weights")["path"]) == run / "model.safetensors"


def refused_by_its_config(run):
    """`sample` of the run fails cleanly with error.run.config_weights, naming config.json and the
    weights file, found from the weights file's header before the model is built
    (checkpoint.fits_weights): that event, and all that was heard."""
    code, _, err, heard = cli_said(sample_argv(run))
    assert_clean_failure(code, err, codes=(1,))
    wrong = only(heard, "run.config_weights")
    assert (Path(wrong["path"]), Path(wrong["weights"])) == (run / "config.json", run / "model.safetensors")
    return wrong, heard


def with_model_field(run, field, value):
    config = json.loads((run / "config.json").read_text())
    config["model"][field] = value
    (run / "config.json").write_text(json.dumps(config))


def test_weights_of_another_model_do_not_fit(run_copy):
    run, _ = run_copy
    with_model_field(run, "d_ff", 48)
    _, heard = refused_by_its_config(run)
    items = [f for _, f in heard if set(f) == {"name", "wanted", "held"}]  # each tensor whose shape differs
    assert items and all(tuple(i["wanted"]) == (48,) and tuple(i["held"]) == (32,) for i in items)


def test_a_config_with_more_layers_than_the_weights_is_refused_before_it_is_built(run_copy):
    """config.json asks for more blocks than the weights hold tensors (100,000: building that model
    first would take the machine's memory), refused from the file's header alone (sample S's
    survivor: that refusal's path built as `run_dir * "config.json"`, an internal TypeError instead)."""
    run, _ = run_copy
    with_model_field(run, "n_layers", 100_000)
    wrong, _ = refused_by_its_config(run)
    assert wrong["detail"] == "n_layers=100000"


def test_weights_holding_a_tensor_the_model_has_no_place_for_are_refused_naming_it(run_copy):
    """A tensor the config's model has no place for (sample Q's survivor: the refusal lost its name)."""
    from safetensors.torch import load_file, save_file

    run, _ = run_copy
    weights = load_file(run / "model.safetensors")
    weights["blocks.9.stray"] = torch.zeros(3, 2)
    save_file(weights, run / "model.safetensors")
    _, heard = refused_by_its_config(run)
    [extra] = [f for _, f in heard if set(f) == {"name", "held"}]  # a tensor held that has no place
    assert (extra["name"], tuple(extra["held"])) == ("blocks.9.stray", (3, 2))


def test_weights_that_lack_a_tensor_the_config_wants_are_refused_naming_it(run_copy):
    """Every tensor held fits, but one the model needs is not in the file (sample P's survivor: the
    refusal's path built as `run_dir * "config.json"`, an internal TypeError instead)."""
    from safetensors.torch import load_file, save_file

    run, _ = run_copy
    weights = load_file(run / "model.safetensors")
    lost = weights.pop("ln_final.weight")
    save_file(weights, run / "model.safetensors")
    _, heard = refused_by_its_config(run)
    [missing] = [f for _, f in heard if set(f) == {"name", "wanted"}]  # a tensor wanted that is not held
    assert (missing["name"], tuple(missing["wanted"])) == ("ln_final.weight", tuple(lost.shape))


# ---- train_state.pt --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "damage, key",
    [  # each says the weights still sample
        (lambda p: p.write_bytes(p.read_bytes()[:1000]), "checkpoint.state_sha"),
        (lambda p: flip(p, 3000), "checkpoint.state_sha"),
        (lambda p: p.unlink(), "checkpoint.no_state"),
        (lambda p: (p.unlink(), p.mkdir()), "checkpoint.no_state"),
    ],
    ids=["truncated", "flipped-byte", "missing", "directory"],
)
def test_train_state(run_copy, damage, key):
    run, cache = run_copy
    damage(run / "train_state.pt")
    code, _, err, heard = cli_said(resume_argv(run, cache, "--max_steps=12"))
    assert_clean_failure(code, err, codes=(1,))
    said_ = only(heard, key)
    shown = [m for m, f in heard if f == said_ and m != key]  # the error's sentence, said with its fields
    assert any(t(m, **said_) in err for m in shown) and "train_state.pt" in str(said_.get("path", said_.get("state")))
    assert sample(run)[0] == 0  # ... and they do


def test_train_state_from_another_step_is_named_as_such(run_copy, tmp_path):
    run, cache = run_copy
    older = tmp_path / "older"
    shutil.copytree(run, older)
    assert cli(resume_argv(run, cache, "--max_steps=12"))[0] == 0
    shutil.copy(older / "train_state.pt", run / "train_state.pt")  # step 8's state beside step 12's weights
    code, _, err, heard = cli_said(resume_argv(run, cache, "--max_steps=16"))
    assert_clean_failure(code, err, codes=(1,))
    mixed = only(heard, "checkpoint.mixed")
    assert (mixed["step"], mixed["other"]) == (12, 8)
    assert (Path(mixed["weights"]).name, Path(mixed["state"]).name) == ("model.safetensors", "train_state.pt")


def test_resuming_a_run_that_never_saved(tmp_path, run_copy):
    run, cache = run_copy
    for name in ("model.safetensors", "train_state.pt"):
        (run / name).unlink()
    code, _, err, heard = cli_said(resume_argv(run, cache))
    assert_clean_failure(code, err, codes=(2,))
    none = only(heard, "checkpoint.none")
    assert Path(none["dir"]) == run and Path(none["weights"]).name == "model.safetensors"


# ---- metrics.jsonl ---------------------------------------------------------------------------------
def test_damaged_metrics_lines_are_dropped_with_a_note_and_the_run_goes_on(run_copy, tiny_run):
    run, cache = run_copy
    lines = (run / "metrics.jsonl").read_text().splitlines()
    lines[1] = lines[1][:10] + "\x00garbage"
    (run / "metrics.jsonl").write_text("\n".join(lines) + '\n{"kind": "log", "st')  # + a line cut short
    code, _, err, heard = cli_said(resume_argv(run, cache))
    assert code == 0
    [(note, dropped)] = [(m, f) for m, f in heard if "lines" in f]  # which lines were dropped
    assert (Path(dropped["path"]), dropped["n"], dropped["lines"]) == (run / "metrics.jsonl", 2, f"2, {len(lines) + 1}")
    assert t(note, **dropped) in err  # said to the user
    records = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert len(records) == len(lines) - 1


def test_metrics_jsonl_that_is_a_directory(run_copy):
    run, cache = run_copy
    (run / "metrics.jsonl").unlink()
    (run / "metrics.jsonl").mkdir()
    code, _, err, heard = cli_said(resume_argv(run, cache))
    assert_clean_failure(code, err)
    assert Path(only(heard, "files.directory")["path"]) == run / "metrics.jsonl"


# ---- file: sources --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "content, code, key, fields",
    [
        (None, 2, "corpus.missing", {}),
        ("dir", 2, "corpus.directory", {}),
        (b"", 1, "corpus.empty", {}),  # nothing to learn from
        (b" \n\t\n", 1, "corpus.blank", {}),  # only whitespace
        (GBK_CHINESE * 20, 1, "files.encoding", {"guess": "GBK"}),  # and the iconv command that converts it
        ("hello world\n".encode("utf-16"), 1, "files.encoding", {"guess": "UTF-16"}),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", 1, "files.binary", {}),  # NUL bytes: not text
    ],
    ids=["missing", "directory", "empty", "whitespace", "gbk", "utf-16", "binary"],
)
def test_file_sources(tmp_path, content, code, key, fields):
    path = tmp_path / "corpus.txt"
    if content == "dir":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)
    for argv in (
        ["data", "prepare", f"file:{path}", "--cache-dir", str(tmp_path / "cache")],
        ["train", "--data", f"file:{path}", "--cache-dir", str(tmp_path / "cache"), "--out", str(tmp_path / "run")],
    ):
        got, _, err, heard = cli_said(argv)
        assert_clean_failure(got, err, codes=(code,))
        refusal(heard, key, {**fields, "path": path})
        assert str(path) in err
    assert not (tmp_path / "run").exists()  # nothing was started


def test_unreadable_file_source(tmp_path, monkeypatch):
    path = tmp_path / "corpus.txt"
    path.write_text("hello")
    unreadable(monkeypatch, "corpus.txt")
    code, _, err, heard = cli_said(["data", "prepare", f"file:{path}", "--cache-dir", str(tmp_path)])
    assert_clean_failure(code, err, codes=(1,))
    assert Path(only(heard, "files.permission")["path"]) == path


def test_lesson_data_in_another_encoding(tmp_path):
    path = tmp_path / "lines.txt"
    path.write_bytes(GBK_CHINESE)
    code, _, err, heard = cli_said(["lesson", "hello-world", "--data", str(path), "--fast"])
    assert_clean_failure(code, err, codes=(1,))
    encoding = only(heard, "files.encoding")
    assert Path(encoding["path"]) == path and encoding["guess"] == "GBK"  # the iconv line names GBK


# ---- prepared corpus files: a cache, rebuilt when damaged ------------------------------------------
@pytest.mark.parametrize(
    "damage",
    [
        lambda d: flip(d / "train.bin", 5),
        lambda d: flip(d / "val.bin", -1),
        lambda d: (d / "val.bin").unlink(),
        lambda d: (d / "train.bin").write_bytes(b""),
        lambda d: (d / "tokenizer.json").write_text("{"),
        lambda d: (d / "meta.json").write_text("{"),
    ],
    ids=["train-byte", "val-byte", "val-missing", "train-empty", "tokenizer", "meta"],
)
def test_a_damaged_prepared_corpus_is_prepared_again(tmp_path, damage, capsys):
    first = prepare("builtin:seed", tmp_path)
    ids = (first.train.copy(), first.val.copy())
    damage(first.dir)
    again = prepare("builtin:seed", tmp_path)
    assert not again.cached and (again.train == ids[0]).all() and (again.val == ids[1]).all()
    assert prepare("builtin:seed", tmp_path).cached  # and is whole again


def test_the_check_of_a_prepared_corpus_sees_ids_beyond_the_vocabulary(tmp_path, capsys):
    first = prepare("builtin:seed", tmp_path)
    meta = json.loads((first.dir / "meta.json").read_text())
    del meta["ids_sha256"]  # as a cache written before the sha256 existed
    (first.dir / "meta.json").write_text(json.dumps(meta))
    data = bytearray((first.dir / "train.bin").read_bytes())
    data[0:2] = (60000).to_bytes(2, "little")
    (first.dir / "train.bin").write_bytes(bytes(data))
    with said() as heard:
        assert not prepare("builtin:seed", tmp_path).cached
    [(problem, fields)] = [
        (m, f) for m, f in heard if f == {"name": "train.bin", "vocab_size": first.tokenizer.vocab_size}
    ]
    assert heard.carrying(dir=first.dir, problem=t(problem, **fields))  # the cache is damaged: prepared again


# ---- devices ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "device, code",
    [("cuda", "device.no_cuda"), ("cuda:3", "device.no_cuda"), ("mps", "device.no_mps"), ("tpu", "device.unknown")],
)
def test_a_missing_device_says_what_is_available(run_copy, tmp_path, device, code):
    import torch

    if torch.cuda.is_available() or torch.backends.mps.is_available():
        pytest.skip("this machine has a GPU: the messages differ")
    run, cache = run_copy
    for argv in (
        ["sample", str(run), f"--device={device}"],
        [
            "train",
            "--preset",
            "seed000",
            "--data",
            "builtin:seed",
            f"--device={device}",
            "--out",
            str(tmp_path / "new"),
            "--cache-dir",
            str(cache),
        ],
        resume_argv(run, cache, f"--device={device}"),
    ):
        got, _, err, heard = cli_said(argv)
        assert_clean_failure(got, err, codes=(2,))
        [refused] = heard.of(code)
        assert (refused["flag"], refused["name"], refused["here"]) == ("--device", device, "cpu")  # what there is
    assert not (tmp_path / "new").exists()


def test_a_run_saved_on_a_gpu_resumes_on_the_cpu(run_copy, tiny_run):
    run, cache = run_copy
    config = json.loads((run / "config.json").read_text())
    config["train"]["device"] = "cuda"
    (run / "config.json").write_text(json.dumps(config))
    code, _, err = cli(resume_argv(run, cache, "--device=cpu"))
    assert code == 0, err
    assert same_weights(run / "model.safetensors", tiny_run[0] / "model.safetensors")
