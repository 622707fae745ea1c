"""run.py's refusals word for word, in English and Chinese: tokenizer options for generated data, a
pad_id set by hand, --out naming a file, and a resume whose config.json lost its source, names a source
that cannot be opened, or whose data changed; a damaged config.json beside a checkpoint still gets the
checkpoint's own advice."""

from __future__ import annotations

import json
import shutil

import pytest

from glassformer.config import get_preset
from glassformer.errors import DamagedFile, UsageError
from glassformer.messages import speaking
from glassformer.train.run import new_run, open_data, resolve, resume_run, train

QUICK = ["--max_steps=1", "--eval_interval=1", "--eval_iters=1", "--threads=1", "--batch_size=2", "--block_size=8"]


def said(call, error=Exception):
    """The message `call` raises, in English and in Chinese."""
    out = []
    for lang in ("en", "zh"):
        with speaking(lang), pytest.raises(error) as e:
            call()
        out.append(str(e.value))
    return tuple(out)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("saved")
    run = new_run(
        "seed000",
        QUICK,
        source="builtin:seed",
        out=tmp / "run",
        cache_dir=tmp / "cache",
        progress=False,
        sample_chars=0,
    )
    train(run)
    return tmp / "run", tmp / "cache"


def copy_with(saved, tmp_path, change):
    run_dir, cache = saved
    shutil.copytree(run_dir, tmp_path / "run")
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    change(config)
    (tmp_path / "run" / "config.json").write_text(json.dumps(config))
    return tmp_path / "run", cache


def test_tokenizer_options_are_refused_for_a_model_that_reads_generated_numbers():
    for inputs in ("numbers", "token pairs"):
        assert said(lambda: open_data("sine", inputs, text={"tokenizer": "bpe"}), UsageError) == (
            f"--tokenizer and its options choose how a text corpus is cut into tokens; this model reads {inputs}, "
            f"from a generated source. Drop them.",
            f"--tokenizer 及其选项决定怎样把文本语料切成词元；这个模型读的是 {inputs}，来自生成的数据源。请去掉它们。",
        )


def test_pad_id_comes_from_the_tokenizer_and_may_not_be_set():
    data = open_data("numbers:zh2num", "token pairs")
    pad = data.tokenizer.pad_id
    preset = get_preset("seq2seq")
    assert said(lambda: resolve(preset, {"pad_id": pad + 1}, data), ValueError) == (
        f"pad_id comes from the tokenizer ({pad} here); do not set it.",
        f"pad_id 由分词器决定（这里是 {pad}）；不要设置它。",
    )
    assert resolve(preset, {"pad_id": pad}, data).model.pad_id == pad  # the same value is no conflict


def test_out_naming_a_file_is_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    assert said(
        lambda: new_run(
            "seed000",
            QUICK,
            source="builtin:seed",
            out=tmp_path / "notes.txt",
            cache_dir=tmp_path / "cache",
            progress=False,
        ),
        UsageError,
    ) == (
        f"--out {tmp_path / 'notes.txt'} is a file; a run needs a directory. Choose another --out DIR.",
        f"--out {tmp_path / 'notes.txt'} 是一个文件；运行需要一个目录。请换一个 --out DIR。",
    )
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_a_damaged_config_beside_a_checkpoint_still_says_resume_or_choose_another_directory(saved, tmp_path):
    run_dir, cache = saved
    shutil.copytree(run_dir, tmp_path / "run")
    (tmp_path / "run" / "config.json").write_text("{")
    d = tmp_path / "run"
    assert said(
        lambda: new_run("seed000", QUICK, source="builtin:seed", out=d, cache_dir=cache, progress=False), UsageError
    ) == (
        f"{d} already holds a checkpoint. Continue it with --resume {d}, or choose another directory with --out DIR.",
        f"{d} 里已经有检查点。用 --resume {d} 继续它，或用 --out DIR 换一个目录。",
    )
    assert not (d / "train.lock").exists()  # the refused start let the directory go


def test_a_resume_without_a_source_in_config_json_is_refused(saved, tmp_path):
    d, cache = copy_with(saved, tmp_path, lambda c: c.pop("source"))
    assert said(lambda: resume_run(d, cache_dir=cache, progress=False), DamagedFile) == (
        f'{d / "config.json"} does not say which data the run was trained on (no "source"), so it cannot be '
        f"resumed. The weights still sample; to train further, start a new run.",
        f'{d / "config.json"} 没有写明这次运行用什么数据训练（没有 "source"），所以无法继续。权重仍可用于采样；'
        f"要继续训练，请开始一次新的运行。",
    )


def test_a_resume_whose_source_cannot_be_opened_names_it_and_why(saved, tmp_path):
    d, cache = copy_with(saved, tmp_path, lambda c: c.update(source="sine"))  # numbers, for a token model
    with pytest.raises(ValueError) as why:
        open_data("sine", "tokens", cache)
    en, zh = said(lambda: resume_run(d, cache_dir=cache, progress=False), DamagedFile)
    assert en == f"cannot resume {d}: its config.json names the data source 'sine', which cannot be opened: {why.value}"
    assert zh.startswith(f"无法继续 {d}：它的 config.json 写的数据源 'sine' 打不开：")
    with pytest.raises(DamagedFile) as e:
        resume_run(d, cache_dir=cache, progress=False)
    assert e.value.__cause__ is None and e.value.__suppress_context__


def test_a_resume_on_changed_data_names_the_field_that_differs(saved, tmp_path):
    d, cache = copy_with(saved, tmp_path, lambda c: c.update(text_sha256="0" * 64))
    assert said(lambda: resume_run(d, cache_dir=cache, progress=False), ValueError) == (
        f"cannot resume {d}: the data of 'builtin:seed' changed since the run started (text_sha256 differs).",
        f"无法继续 {d}：'builtin:seed' 的数据自这次运行开始后变了（text_sha256 不同）。",
    )
    assert not (d / "train.lock").exists()


def test_a_resume_that_changes_the_model_names_each_field_saved_and_asked(saved, tmp_path):
    d, cache = copy_with(saved, tmp_path, lambda c: None)
    config = json.loads((d / "config.json").read_text())["model"]
    dm, nl = config["d_model"], config["n_layers"]
    assert said(
        lambda: resume_run(d, [f"--d_model={dm * 2}", f"--n_layers={nl + 1}"], cache_dir=cache, progress=False),
        ValueError,
    ) == (
        f"cannot resume {d}: the model config differs in d_model, n_layers (d_model: saved {dm}, asked {dm * 2}, "
        f"n_layers: saved {nl}, asked {nl + 1}). These fields fix the shape and meaning of the saved weights; start a "
        f"new run with --out to change them.",
        f"无法继续 {d}：模型配置在 d_model, n_layers 上不同（d_model：保存的是 {dm}，要求的是 {dm * 2}, n_layers：保存的是 "
        f"{nl}，要求的是 {nl + 1}）。这些字段决定了已保存权重的形状和含义；要改它们，请用 --out 开始一次新的运行。",
    )


def test_a_resume_with_new_training_settings_says_each_change_rewrites_config_and_announces_a_resume(
    saved, tmp_path, capsys, monkeypatch
):
    from glassformer.train import distributed

    class Announcing(distributed.World):
        heard: list = []

        def announce(self, run_dir, resumed: bool) -> None:
            self.heard.append((run_dir, resumed))

    monkeypatch.setattr(distributed, "_world", Announcing())
    d, cache = copy_with(saved, tmp_path, lambda c: None)
    before = json.loads((d / "config.json").read_text())
    lr = before["train"]["lr"]
    with speaking("zh"):
        run = resume_run(d, ["--max_steps=5", f"--lr={lr * 2}"], cache_dir=cache, progress=False, sample_chars=0)
    assert capsys.readouterr().out == f"以改动过的训练设置继续：max_steps 1 -> 5, lr {lr!r} -> {lr * 2!r}\n"
    after = json.loads((d / "config.json").read_text())
    assert after == {**before, "train": {**before["train"], "max_steps": 5, "lr": lr * 2}}
    assert Announcing.heard == [(d, True)] and run.trainer.step == 1 and run.lock is not None
    del run
    again = resume_run(d, cache_dir=cache, progress=False, sample_chars=0)  # nothing changed: nothing said
    assert again.trainer.step == 1
    assert capsys.readouterr().out == "" and json.loads((d / "config.json").read_text()) == after


def test_a_source_for_another_kind_of_model_is_refused_with_the_preset_to_use():
    numbers, pairs = (
        "['sine', 'sine:forecast']",
        "['digits:copy', 'digits:reverse', 'digits:sort', 'numbers:num2zh', 'numbers:zh2num']",
    )
    cases = [
        (
            "shakespeare",
            "numbers",
            f"this model reads numbers: --data must be one of {numbers}, not 'shakespeare'.",
            f"这个模型读的是数字：--data 必须是 {numbers} 之一，而不是 'shakespeare'。",
        ),
        (
            "digits:copy",
            "numbers",
            f"this model reads numbers: --data must be one of {numbers}, not 'digits:copy'.",
            f"这个模型读的是数字：--data 必须是 {numbers} 之一，而不是 'digits:copy'。",
        ),
        (
            "shakespeare",
            "token pairs",
            f"this model reads (source, target) pairs: --data must be one of {pairs}, not 'shakespeare'.",
            f"这个模型读的是（源序列，目标序列）对：--data 必须是 {pairs} 之一，而不是 'shakespeare'。",
        ),
        (
            "sine",
            "token pairs",
            "--data sine makes numbers, but this model reads token pairs; use --preset sine (a regressor).",
            "--data sine 生成的是数字，但这个模型读的是 token pairs；请用 --preset sine（回归模型）。",
        ),
        (
            "sine",
            "tokens",
            "--data sine makes numbers, but this model reads tokens; use --preset sine (a regressor).",
            "--data sine 生成的是数字，但这个模型读的是 tokens；请用 --preset sine（回归模型）。",
        ),
        (
            "digits:copy",
            "tokens",
            "--data digits:copy makes (source, target) pairs, but this model reads tokens; use "
            "--preset seq2seq (or --kind=seq2seq).",
            "--data digits:copy 生成的是（源序列，目标序列）对，但这个模型读的是 tokens；请用 --preset seq2seq（或 --kind=seq2seq）。",
        ),
    ]
    for source, inputs, en, zh in cases:
        assert said(lambda: open_data(source, inputs), ValueError) == (en, zh), (source, inputs)


def test_what_the_data_fixes_may_not_be_set_and_must_fit_max_len(saved):
    _, cache = saved
    text = open_data("builtin:seed", "tokens", cache)
    V = text.tokenizer.vocab_size
    assert said(lambda: resolve(get_preset("seed000"), {"vocab_size": V + 1}, text), ValueError) == (
        f"vocab_size comes from the tokenizer ({V} here); do not set it.",
        f"vocab_size 由分词器决定（这里是 {V}）；不要设置它。",
    )
    assert said(lambda: resolve(get_preset("seed000"), {"max_len": 8, "block_size": 9}, text), ValueError) == (
        "block_size=9 is longer than max_len=8: the model has positions for only 8 tokens. Pass --max_len=9 or "
        "--block_size=8.",
        "block_size=9 比 max_len=8 长：模型只有 8 个位置。请传 --max_len=9 或 --block_size=8。",
    )
    p = resolve(get_preset("seed000"), {"max_len": 8, "block_size": 8}, text)  # the edge fits
    assert (p.model.max_len, p.train.block_size, p.model.vocab_size) == (8, 8, V)
    waves = open_data("sine", "numbers")
    T = waves.x_train.size(1)
    assert said(lambda: resolve(get_preset("sine"), {"max_len": T - 1}, waves), ValueError) == (
        f"the sine sequences' length={T} is longer than max_len={T - 1}: the model has positions for only {T - 1} "
        f"tokens. Pass --max_len={T}.",
        f"sine 序列的长度={T} 比 max_len={T - 1} 长：模型只有 {T - 1} 个位置。请传 --max_len={T}。",
    )
    assert resolve(get_preset("sine"), {"max_len": T}, waves).model.max_len == T
    pairs = open_data("numbers:zh2num", "token pairs")
    S, Tt = pairs.longest()
    need = max(S, Tt + 1)
    assert said(lambda: resolve(get_preset("seq2seq"), {"max_len": need - 1}, pairs), ValueError) == (
        f"numbers:zh2num has sources of {S} and targets of {Tt} tokens (+1 for <BOS>/<EOS>), longer than "
        f"max_len={need - 1}. Pass --max_len={need}.",
        f"numbers:zh2num 的源序列有 {S} 个词元、目标序列有 {Tt} 个词元（<BOS>/<EOS> 还要 +1），比 max_len={need - 1} 长。"
        f"请传 --max_len={need}。",
    )
    assert resolve(get_preset("seq2seq"), {"max_len": need}, pairs).model.pad_id == pairs.tokenizer.pad_id


def test_a_resume_on_another_source_or_a_missing_device_is_refused_whole(saved, tmp_path):
    d, cache = copy_with(saved, tmp_path, lambda c: c["train"].update(device="cuda:99"))
    assert said(lambda: resume_run(d, source="shakespeare", cache_dir=cache), ValueError) == (
        f"cannot resume {d}: it was trained on source 'builtin:seed', not 'shakespeare'. Start a new run with --out to "
        f"use other data.",
        f"无法继续 {d}：它是在数据源 'builtin:seed' 上训练的，不是 'shakespeare'。要用别的数据，请用 --out 开始一次新的运行。",
    )
    from glassformer.devices import check_device

    with pytest.raises(UsageError) as why:
        check_device("cuda:99")
    en, zh = said(lambda: resume_run(d, cache_dir=cache), UsageError)
    assert en == (
        f"{d / 'config.json'} says device='cuda:99', but {why.value} Resume with --device=cpu to continue on the CPU."
    )
    assert zh.startswith(f"{d / 'config.json'} 写的是 device='cuda:99'，但是") and zh.endswith(
        " 用 --device=cpu 继续，就在 CPU 上接着训练。"
    )
    run = resume_run(d, ["--device=cpu"], cache_dir=cache, progress=False, sample_chars=0)  # the way out works
    assert run.trainer.cfg.device == "cpu" and run.trainer.step == 1
