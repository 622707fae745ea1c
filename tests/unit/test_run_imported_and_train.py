"""run._refuse_imported's whole message and when it speaks, and run.train's frame around fit(): the run
directory's lock held by rank 0 only, the run's thread count, a peer's end turned into one line."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

from glassformer.errors import GlassformerError, UsageError
from glassformer.messages import speaking
from glassformer.train import lock
from glassformer.train.distributed import SINGLE, ProcessWorld
from glassformer.train.run import _refuse_imported, train


@pytest.mark.parametrize(
    "imported, fmt, origin, origin_zh",
    [
        ({"from": "gpt2 (Hugging Face)", "format": "gpt2"}, "gpt2", "gpt2 (Hugging Face)", "gpt2 (Hugging Face)"),
        ({}, "gpt2", "elsewhere", "别处"),
        ({"format": "llama", "from": ""}, "llama", "elsewhere", "别处"),
    ],
)
def test_an_imported_model_is_refused_with_how_to_train_it_further(tmp_path, imported, fmt, origin, origin_zh):
    d, config = tmp_path / "imp", {"model": {}, "imported": imported}
    with pytest.raises(UsageError) as e:
        _refuse_imported(d, config)
    assert str(e.value) == (
        f"{d} holds a model imported from {origin}, not a glassformer training run: it has no optimizer state and no "
        f"training data, so --resume cannot continue it (it samples and opens in every view; glassformer does not "
        f"fine-tune an imported model yet). To train it further, export it (glassformer export {fmt} {d} --out DIR), "
        f"fine-tune DIR with transformers, and import the result (glassformer import {fmt} DIR --out NEW_RUN)."
    )
    with speaking("zh"), pytest.raises(UsageError) as e:
        _refuse_imported(d, config)
    assert str(e.value) == (
        f"{d} 里是从 {origin_zh} 导入的模型，不是 glassformer 的训练运行：它没有优化器状态，也没有训练数据，所以 --resume "
        f"无法继续它（它可以采样，也能在每个视图里打开；glassformer 目前还不能微调导入的模型）。要继续训练它，请先导出"
        f"（glassformer export {fmt} {d} --out DIR），用 transformers 微调 DIR，再把结果导入（glassformer import {fmt} "
        f"DIR --out NEW_RUN）。"
    )


@pytest.mark.parametrize("config", [None, {"source": "x", "imported": {"from": "hub"}}, {"imported": "gpt2"}, {}])
def test_a_training_run_or_an_unreadable_config_is_not_called_imported(tmp_path, config):
    assert _refuse_imported(tmp_path, config) is None


class Rank1(ProcessWorld):
    def __init__(self):
        super().__init__(1, 1, 2)


@pytest.mark.parametrize("world, locked", [(SINGLE, True), (Rank1(), False)])
def test_train_holds_the_lock_on_rank_0_only_and_uses_the_runs_threads(tmp_path, world, locked):
    seen = []

    def fit():
        seen.append(((tmp_path / lock.LOCK_FILE).is_file(), torch.get_num_threads()))
        return "result"

    before = torch.get_num_threads()
    threads = 2 if before != 2 else 3
    run = SimpleNamespace(
        dir=tmp_path, trainer=SimpleNamespace(world=world, cfg=SimpleNamespace(threads=threads), fit=fit)
    )
    assert train(run) == "result" and seen == [(locked, threads)]
    assert not (tmp_path / lock.LOCK_FILE).exists() and torch.get_num_threads() == before


def test_train_on_a_rank_whose_peer_ended_says_so_in_one_line_and_lets_the_lock_go(tmp_path):
    def fit():
        raise RuntimeError("[../gloo/transport/tcp/pair.cc:534] Connection closed by peer")

    run = SimpleNamespace(dir=tmp_path, trainer=SimpleNamespace(world=Rank1(), cfg=SimpleNamespace(threads=1), fit=fit))
    with pytest.raises(GlassformerError, match="^another process of this torchrun job stopped"):
        train(run)
    failing = SimpleNamespace(
        dir=tmp_path, trainer=SimpleNamespace(world=SINGLE, cfg=SimpleNamespace(threads=1), fit=fit)
    )
    with pytest.raises(RuntimeError, match="closed by peer"):  # one process: left as it is
        train(failing)
    assert not (tmp_path / lock.LOCK_FILE).exists() and str((tmp_path / lock.LOCK_FILE).resolve()) not in lock._held
