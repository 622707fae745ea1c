"""GradientMonitor: norms equal torch's, bad gradients are named, update ratios are measured."""

import json
import math

import matplotlib.image
import pytest
import torch

from glassformer.config import ModelConfig
from glassformer.inspect import GradientMonitor, GradientWarning
from glassformer.models import GPT
from glassformer.nn.loss import next_token_loss

CFG = ModelConfig(vocab_size=10, d_model=16, n_heads=2, d_ff=32, n_layers=2, max_len=16, dropout=0.0)


def backward(model):
    ids = torch.randint(0, 10, (2, 9))
    next_token_loss(model(ids[:, :-1]), ids[:, 1:]).backward()


def test_rows_match_torch_and_healthy_gradients_are_quiet(recwarn):
    model = GPT(CFG)
    backward(model)
    rows = GradientMonitor(model).check(step=3)
    params = dict(model.named_parameters())
    assert [r.name for r in rows] == list(params)
    for r in rows:
        g = params[r.name].grad
        assert r.grad_norm == pytest.approx(g.norm().item(), rel=1e-6)
        assert r.grad_abs_mean == pytest.approx(g.abs().mean().item(), rel=1e-6)
        assert r.status == "ok"
    assert not [w for w in recwarn if issubclass(w.category, GradientWarning)]
    assert {r.layer for r in rows} == {"embed", "block 0", "block 1", "head"}


def test_nan_and_exploding_gradients_are_named():
    model = GPT(CFG)
    backward(model)
    params = dict(model.named_parameters())
    params["blocks.1.attn.qkv.weight"].grad[0, 0] = float("nan")
    params["blocks.0.ffn.fc2.weight"].grad.mul_(1e6)
    monitor = GradientMonitor(model)
    with pytest.warns(GradientWarning) as caught:
        rows = {r.name: r for r in monitor.check(step=7)}
    text = [str(w.message) for w in caught]
    n_qkv, fc2_norm = params["blocks.1.attn.qkv.weight"].numel(), params["blocks.0.ffn.fc2.weight"].grad.norm()
    assert text == [  # the whole advice, word for word, in data-flow order (block 0 before block 1)
        f"gradient of 'blocks.0.ffn.fc2.weight' at step 7 is exploding: norm {float(fc2_norm):.3g} > "
        f"{monitor.explode:g}. Lower the learning rate or set grad_clip.",
        f"gradient of 'blocks.1.attn.qkv.weight' at step 7 has 1 NaN/inf entries of {n_qkv}: check the loss "
        "for log(0) or 0/0, lower the learning rate, or clip gradients (grad_clip).",
    ]
    assert rows["blocks.1.attn.qkv.weight"].status == "nan/inf"
    assert rows["blocks.0.ffn.fc2.weight"].status == "exploding"


def test_vanishing_gradient_is_named():
    model = GPT(CFG)
    backward(model)
    bias = dict(model.named_parameters())["head.bias"]
    bias.grad.mul_(1e-12)
    monitor = GradientMonitor(model)
    with pytest.warns(GradientWarning) as caught:
        monitor.check()  # no step given: the message says no step
    assert [str(w.message) for w in caught] == [
        f"gradient of 'head.bias' is vanishing: norm {float(bias.grad.norm()):.3g} < {monitor.vanish:g}. "
        "Is the parameter used? Are activations saturated or dead (ReLU)?"
    ]


def test_update_ratio_is_measured_around_the_step(tmp_path):
    model = GPT(CFG)
    backward(model)
    monitor = GradientMonitor(model)
    rows = {r.name: r for r in monitor.check(step=1)}
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    monitor.before_step()
    opt.step()
    monitor.after_step()
    for name, p in model.named_parameters():
        if before[name].norm() > 0:
            # plain SGD: the measured ratio is exactly lr·‖g‖/‖w‖
            expected = 0.1 * p.grad.norm().item() / before[name].norm().item()
            assert rows[name].update_ratio == pytest.approx(expected, rel=1e-4), name
        else:
            assert rows[name].update_ratio is None  # zero-initialised: no ratio to speak of
    path = tmp_path / "metrics.jsonl"
    monitor.append_jsonl(path, step=1)
    monitor.append_jsonl(path, step=2)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["step"] for line in lines] == [1, 2] and lines[0]["kind"] == "grad_flow"
    qkv = lines[0]["params"]["blocks.0.attn.qkv.weight"]
    assert qkv["grad_norm"] == pytest.approx(rows["blocks.0.attn.qkv.weight"].grad_norm)
    layer = math.sqrt(sum(r.grad_norm**2 for r in rows.values() if r.layer == "block 1"))
    assert lines[0]["layers"]["block 1"] == pytest.approx(layer)
    assert list(lines[0]["layers"]) == ["embed", "block 0", "block 1", "head"]


def test_plot_and_table(tmp_path):
    model = GPT(CFG)
    backward(model)
    monitor = GradientMonitor(model)
    monitor.check()
    png = monitor.plot(tmp_path / "g.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    image = matplotlib.image.imread(png)
    assert min(image.shape[:2]) >= 300 and image[..., :3].std() > 0.05  # decodes, and is not blank
    with torch.no_grad():  # other gradients draw another picture: the plot shows the data
        for p in model.parameters():
            p.grad *= torch.logspace(-3, 3, p.numel()).reshape(p.shape)
    monitor.check()
    assert not torch.equal(
        torch.as_tensor(image), torch.as_tensor(matplotlib.image.imread(monitor.plot(tmp_path / "other.png")))
    )
    table = monitor.table().splitlines()
    assert len(table) == 2 + len(list(model.parameters()))
    assert table[0].split() == ["parameter", "shape", "‖grad‖", "mean|g|", "upd/w", "status"]
    assert set(table[1]) == {"-"} and len(table[1]) == len(table[0])
    assert table[2].startswith("pos_embed.table.weight") and table[2].endswith("ok")
    with pytest.raises(RuntimeError, match="before_step"):
        monitor.after_step()


def test_layers_are_listed_in_data_flow_order_even_when_parameters_are_not():
    """A regressor registers its blocks before its input projection; the table still starts at
    the embedding and ends at the head."""
    from glassformer.models import SequenceRegressor

    model = SequenceRegressor(
        ModelConfig(kind="regressor", d_model=16, n_heads=2, d_ff=32, n_layers=2, max_len=16, position="sinusoidal")
    )  # the sine preset's shape
    assert next(iter(model.named_parameters()))[0].startswith("blocks.")  # the premise
    ((model(torch.randn(2, 5, 1)) - 1) ** 2).mean().backward()
    monitor = GradientMonitor(model)
    monitor.check()
    assert list(monitor.layer_norms()) == ["embed", "block 0", "block 1", "head"]


def test_a_module_used_both_before_and_after_the_blocks_splits_by_its_own_submodules():
    """layers_of groups a parameter by its own module (name minus the last part), not its top-level
    one: `io.inp` (used before the blocks) is "embed" and `io.out` (after) is "head", though both sit
    in `io`. Bug guarded: grouping by the first part of the name, which made both "embed"."""
    from glassformer.inspect.gradflow import layers_of

    class Shell(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.io = torch.nn.ModuleDict({"inp": torch.nn.Linear(2, 4), "out": torch.nn.Linear(4, 1)})
            self.blocks = torch.nn.ModuleList([torch.nn.Linear(4, 4)])

        def example_input(self, B, T):
            return torch.zeros(B, T, 2)

        def forward(self, x):
            return self.io["out"](self.blocks[0](self.io["inp"](x)))  # (B, T, 1)

    assert layers_of(Shell()) == {
        "io.inp.weight": "embed",
        "io.inp.bias": "embed",
        "io.out.weight": "head",
        "io.out.bias": "head",
        "blocks.0.weight": "block 0",
        "blocks.0.bias": "block 0",
    }
