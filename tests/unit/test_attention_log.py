"""The attention-recording callback (train/attention_log.py) and `glassformer train --attention-every`."""

from __future__ import annotations

import pytest
import torch
from matplotlib.image import imread

from glassformer.cli import main
from glassformer.config import get_preset
from glassformer.inspect.attention_maps import attention_maps
from glassformer.models import build_model
from glassformer.train.attention_log import AttentionLog, parse_heads, read_log
from glassformer.train.loop import Trainer
from glassformer.train.sources import TextWindows


def tiny_run(log_every: int | None):
    torch.manual_seed(0)
    p = get_preset("seed000")
    p.model.vocab_size, p.train.max_steps, p.train.block_size = 12, 12, 8
    model = build_model(p.model)
    data = (torch.arange(400) % 12).numpy()
    losses, logs = [], []
    callbacks = [lambda event, t: losses.append(t.last_loss.item()) if event == "step" else None]
    if log_every:
        logs.append(AttentionLog(model, torch.arange(8)[None] % 12, list("abcdefgh"), heads=[(0, 1), (1, 3)],
                                 every=log_every))
        callbacks.append(logs[0])
    Trainer(model, p.train, TextWindows(data, data, 4, 8, 1, 0), evaluate=None, callbacks=callbacks,
            progress="silent").fit()
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
    with pytest.raises(ValueError, match=r"outside this model: layers 0..1, heads 0..3"):
        AttentionLog(model, torch.zeros(1, 4, dtype=torch.long), list("abcd"), heads=[(2, 0)], every=1)
    with pytest.raises(ValueError, match="every=N or steps"):
        AttentionLog(model, torch.zeros(1, 4, dtype=torch.long), list("abcd"))


def test_train_attention_every_writes_the_log_the_strip_and_the_page(tmp_path, capsys):
    run = tmp_path / "run"
    code = main(["train", "--preset", "seed000", "--data", "builtin:seed", "--out", str(run), "--cache-dir",
                 str(tmp_path / "cache"), "--no-progress", "--max_steps=10", "--eval_interval=5", "--eval_iters=1",
                 "--threads=1", "--attention-every", "4", "--attention-heads", "1.2"])
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
    code = main(["train", "--preset", "seed000", "--data", "builtin:seed", "--out", str(tmp_path / "r"),
                 "--cache-dir", str(tmp_path / "c"), "--no-progress", "--max_steps=2", "--attention-heads", "0.0"])
    assert code == 2 and "--attention-every" in capsys.readouterr().err
    assert not (tmp_path / "r").exists() and not (tmp_path / "c").exists()  # refused before anything was made


def test_attention_every_refuses_zero_and_a_model_it_cannot_record(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:  # the option's range type refuses 0 before anything runs
        main(["train", "--preset", "seed000", "--out", str(tmp_path / "z"), "--attention-every", "0"])
    assert stop.value.code == 2 and "--attention-every: must be a whole number >= 1" in capsys.readouterr().err
    code = main(["train", "--preset", "seq2seq", "--out", str(tmp_path / "s"), "--no-progress", "--max_steps=1",
                 "--threads=1", "--attention-every", "1"])
    assert code == 2 and "glassformer attention --run" in capsys.readouterr().err
