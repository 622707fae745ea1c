"""The attention-recording callback (train/attention_log.py) and `glassformer train --attention-every`."""

from __future__ import annotations

import pytest
import torch
from helpers import keyed, said
from matplotlib.image import imread

from glassformer.cli import main
from glassformer.config import get_preset
from glassformer.errors import UsageError
from glassformer.inspect.attention_maps import attention_maps
from glassformer.messages import t
from glassformer.models import build_model
from glassformer.train.attention_log import AttentionLog, parse_heads, read_log
from glassformer.train.data import TextWindows
from glassformer.train.loop import Trainer


def tiny_run(log_every: int | None):
    torch.manual_seed(0)
    p = get_preset("seed000")
    p.model.vocab_size, p.train.max_steps, p.train.seq_len = 12, 12, 8
    model = build_model(p.model)
    data = (torch.arange(400) % 12).numpy()
    losses, logs = [], []
    callbacks = [lambda event, t: losses.append(t.last_loss.item()) if event == "step" else None]
    if log_every:
        logs.append(
            AttentionLog(model, torch.arange(8)[None] % 12, list("abcdefgh"), heads=[(0, 1), (1, 3)], every=log_every)
        )
        callbacks.append(logs[0])
    Trainer(
        model, p.train, TextWindows(data, data, 4, 8, 1, 0), evaluate=None, callbacks=callbacks, progress="silent"
    ).fit()
    return losses, logs, model


def test_recording_changes_nothing_in_the_run():
    plain, _, _ = tiny_run(None)
    logged, logs, model = tiny_run(5)
    assert plain == logged  # dropout is on in seed000: recording draws no random numbers
    log = logs[0].as_dict()
    assert [r["step"] for r in log["records"]] == [0, 5, 10]
    assert log["heads"] == [[0, 1], [1, 3]] and log["tokens"] == list("abcdefgh")
    W, hidden = attention_maps(model, torch.arange(8)[None] % 12)  # the trained model, now
    assert logs[0].records[-1]["step"] == 10
    last = torch.tensor([[v if v is not None else float("nan") for v in row] for row in log["records"][-1]["maps"][1]])
    assert torch.isnan(last[hidden[1, 3]]).all() and not torch.isnan(last[~hidden[1, 3]]).any()


def test_heads_are_parsed_and_checked():
    assert parse_heads("0.1, 3.2") == [(0, 1), (3, 2)] and parse_heads("all") is None
    with pytest.raises(ValueError, match="LAYER.HEAD"):
        parse_heads("0:1")
    model = build_model(get_preset("seed000").model)
    ids = torch.zeros(1, 4, dtype=torch.long)  # (1, T)
    assert keyed(UsageError, AttentionLog, model, ids, list("abcd"), heads=[(2, 0)], every=1) == (
        "error.attention_log.outside",
        {"bad": [(2, 0)], "last_layer": 1, "last_head": 3},
    )
    assert keyed(UsageError, AttentionLog, model, ids, list("abcd")) == (
        "error.attention_log.when",
        {},
    )  # every or steps


def test_train_attention_every_writes_the_log_the_strip_and_the_page(tmp_path, capsys):
    run = tmp_path / "run"
    code = main(
        [
            "train",
            "--preset",
            "seed000",
            "--data",
            "builtin:seed",
            "--out",
            str(run),
            "--cache-dir",
            str(tmp_path / "cache"),
            "--no-progress",
            "--max_steps=10",
            "--eval_interval=5",
            "--eval_iters=1",
            "--threads=1",
            "--attention-every",
            "4",
            "--attention-heads",
            "1.2",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and "attention_steps.html" in out
    log = read_log(run)
    assert [r["step"] for r in log["records"]] == [0, 4, 8] and log["heads"] == [[1, 2]]
    strip = imread(run / "attention_steps.png")[..., :3]  # (H, W, 3); one head as a row, three steps as columns
    assert strip.shape[:2] == (round(80 * (1.9 + 0.5)), round(80 * (1.9 * 3 + 0.6)))  # 80 dpi
    assert (strip.std(axis=-1) > 0.1).sum() > 1000  # coloured cells drawn, not a blank or grey page
    page = (run / "attention_steps.html").read_text(encoding="utf-8")
    assert 'type="range"' in page and "http" not in page and '"heads":[[1,2]]' in page


def test_attention_heads_without_every_is_an_error(tmp_path, capsys):
    code = main(
        [
            "train",
            "--preset",
            "seed000",
            "--data",
            "builtin:seed",
            "--out",
            str(tmp_path / "r"),
            "--cache-dir",
            str(tmp_path / "c"),
            "--no-progress",
            "--max_steps=2",
            "--attention-heads",
            "0.0",
        ]
    )
    assert code == 2 and "--attention-every" in capsys.readouterr().err
    assert not (tmp_path / "r").exists() and not (tmp_path / "c").exists()  # refused before anything was made


def test_attention_every_refuses_zero_and_a_model_it_cannot_record(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop, said() as heard:  # the option's range type refuses 0 before anything runs
        main(["train", "--preset", "seed000", "--out", str(tmp_path / "z"), "--attention-every", "0"])
    err = capsys.readouterr().err
    [refused] = heard.of("arg.count")  # the range type's own fields: the value, and the most it takes
    assert stop.value.code == 2 and refused["value"] == "0" and f"--attention-every: {t('arg.count', **refused)}" in err
    with said() as heard:
        code = main(
            [
                "train",
                "--preset",
                "seq2seq",
                "--out",
                str(tmp_path / "s"),
                "--no-progress",
                "--max_steps=1",
                "--threads=1",
                "--attention-every",
                "1",
            ]
        )
    one_stack = {"kind": "seq2seq", "inputs": "token pairs", "dir": tmp_path / "s"}  # it says: look after training
    assert code == 2 and ("train.attention_one_stack", one_stack) in heard
    assert t("train.attention_one_stack", **one_stack) in capsys.readouterr().err


def seed_model():
    torch.manual_seed(0)
    return build_model(get_preset("seed000").model)  # 2 layers of 4 heads


def test_the_probe_is_the_first_validation_tokens_or_sequence_at_most_32_long():
    from types import SimpleNamespace

    import numpy as np

    from glassformer.text.tokenizers import CharTokenizer
    from glassformer.train.attention_log import PROBE_LENGTH, probe_for

    waves = SimpleNamespace(tokenizer=None, x_val=torch.arange(3 * 40 * 2.0).reshape(3, 40, 2))  # numbers
    for T, n in ((5, 5), (31, 31), (32, 32), (40, 32)):
        x, labels = probe_for(waves, T)
        assert torch.equal(x, waves.x_val[:1, :n]) and labels == [str(i) for i in range(n)]
    tok = CharTokenizer.from_text("abcdefghij")
    text = SimpleNamespace(tokenizer=tok, val=np.array([3, 1, 4, 1, 5, 9, 2, 6] * 6, dtype=np.uint16))
    ids, labels = probe_for(text, 6)
    assert ids.dtype == torch.int64 and ids.tolist() == [[3, 1, 4, 1, 5, 9]] and labels == list("dbebfj")
    assert probe_for(text, 100)[0].shape == (1, PROBE_LENGTH) == (1, 32)


@pytest.mark.parametrize("text", ["0:1", "a.1", "0.b", "0.", ".1", "0.1,,1.0"])
def test_a_heads_spec_that_is_not_layer_dot_head_pairs_is_refused_word_for_word(text):
    from glassformer.messages import speaking

    with pytest.raises(ValueError) as e:
        parse_heads(text)
    assert (
        str(e.value)
        == f"--attention-heads {text!r}: write LAYER.HEAD pairs separated by commas, e.g. 0.1,3.2 (or all)."
    )
    with speaking("zh"), pytest.raises(ValueError) as e:
        parse_heads(text)
    assert str(e.value) == f"--attention-heads {text!r}：请写成用逗号分隔的 层.头 对，例如 0.1,3.2（或 all）。"
    assert parse_heads(None) is None and parse_heads("1.3") == [(1, 3)] and parse_heads("10.12") == [(10, 12)]


def test_each_refusal_of_attention_log_word_for_word():
    from glassformer.messages import speaking

    model, probe = seed_model(), torch.zeros(1, 4, dtype=torch.long)
    cases = [
        (
            {},
            "AttentionLog needs every=N or steps=[...] to know when to record.",
            "AttentionLog 需要 every=N 或 steps=[...] 才知道何时记录。",
        ),
        ({"every": 0}, "--attention-every must be at least 1, got 0.", "--attention-every 至少要是 1，收到的是 0。"),
        (
            {"every": 1, "heads": [(1, 3), (2, 0), (0, 4), (-1, 0)]},
            "--attention-heads names [(2, 0), (0, 4), (-1, 0)], outside this model: layers 0..1, heads 0..3.",
            "--attention-heads 指定的 [(2, 0), (0, 4), (-1, 0)] 超出了这个模型：层编号 0..1，头编号 0..3。",
        ),
    ]
    for kwargs, en, zh in cases:
        for lang, expected in (("en", en), ("zh", zh)):
            with speaking(lang), pytest.raises(ValueError) as e:
                AttentionLog(model, probe, list("abcd"), **kwargs)
            assert str(e.value) == expected
    log = AttentionLog(model, probe, list("abcd"), every=1)  # the smallest interval; every head by default
    assert log.heads == [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1), (1, 2), (1, 3)]
    assert [r["step"] for r in log.records] == [0] and len(log.records[0]["maps"]) == 8


def test_listed_steps_are_recorded_once_each_and_only_on_step_events():
    from types import SimpleNamespace

    model, probe = seed_model(), torch.arange(4)[None]
    log = AttentionLog(model, probe, list("abcd"), heads=[(1, 2)], steps=[4, 2, 2])
    assert log.steps == [2, 4] and log.records == []  # step 0 is not listed: nothing at the start
    assert [s for s in range(7) if log.due(s)] == [2, 4]
    for step in range(7):
        log("eval", SimpleNamespace(step=step, model=model))  # evaluations record nothing
        log("step", SimpleNamespace(step=step, model=model))
    W, hidden = attention_maps(model, probe)
    expected = [[None if hidden[1, 2, i, j] else round(W[1, 2, i, j].item(), 3) for j in range(4)] for i in range(4)]
    assert log.as_dict() == {
        "tokens": list("abcd"),
        "heads": [[1, 2]],
        "records": [{"step": 2, "maps": [expected]}, {"step": 4, "maps": [expected]}],
    }
    assert expected[0][1] is None and expected[3][0] is not None  # causal: above the diagonal is hidden


def test_the_file_is_rewritten_whole_and_a_resumed_run_keeps_its_earlier_maps(tmp_path):
    import json

    from glassformer.messages import speaking
    from glassformer.train.attention_log import FILE

    model, probe, path = seed_model(), torch.arange(4)[None], tmp_path / FILE
    labels = ["你", "好", "\n", "a"]
    log = AttentionLog(model, probe, labels, heads=[(0, 0)], every=3, path=str(path))
    for step in (3, 6, 9):
        log.record(model, step)
    text = path.read_text(encoding="utf-8")
    assert text.endswith("}\n") and '"你"' in text and json.loads(text) == log.as_dict()  # characters as they are
    assert read_log(tmp_path) == read_log(path) == log.as_dict()
    resumed = AttentionLog(model, probe, labels, heads=[(0, 0)], every=3, path=path, start_step=6)
    assert [r["step"] for r in resumed.records] == [0, 3, 6] and read_log(path) == log.as_dict()  # not rewritten yet
    fresh = AttentionLog(model, probe, labels, heads=[(0, 0)], every=3, path=path)  # start_step 0: a new run
    assert [r["step"] for r in fresh.records] == [0] and [r["step"] for r in read_log(path)["records"]] == [0]
    missing = tmp_path / "nowhere" / FILE
    for lang, expected in (
        ("en", f"{missing} does not exist: train with --attention-every N to record one."),
        ("zh", f"{missing} 不存在：请用 --attention-every N 训练来记录一份。"),
    ):
        with speaking(lang), pytest.raises(FileNotFoundError) as e:
            read_log(missing)
        assert str(e.value) == expected
    assert AttentionLog(model, probe, labels, heads=[(0, 0)], every=1).path is None  # no path: no file
