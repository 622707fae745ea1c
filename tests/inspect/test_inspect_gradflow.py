"""GradientMonitor: norms equal torch's, bad gradients are named, update ratios are measured.

GradientMonitor checked whole on gradients set by hand (so every norm is known exactly): each
row's fields, the status at and past both thresholds, the warnings by their fields (en, zh), the
update ratio, the per-layer norms, the JSON line, the text table, the repr, the plot's contents
(read from the Figure) and gradient_flow's refusals.
"""

import json
import math
import re
import warnings
from dataclasses import replace

import matplotlib.image
import pytest
import torch
from helpers import keyed, said, strict_json

from glassformer import messages
from glassformer.config import ModelConfig
from glassformer.errors import Unsupported, UsageError
from glassformer.inspect.gradflow import GradientMonitor, GradientWarning, gradient_flow
from glassformer.messages import t
from glassformer.models import GPT
from glassformer.nn.loss import next_token_loss

CFG = ModelConfig(vocab_size=10, d_model=16, n_heads=2, d_ff=32, n_layers=2, max_len=16, dropout=0.0)
CJK = re.compile(r"[\u4e00-\u9fff]")


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
    with pytest.warns(GradientWarning) as caught, said() as heard:
        rows = {r.name: r for r in monitor.check(step=7)}
        text = [str(w.message) for w in caught]
        n_qkv, fc2_norm = params["blocks.1.attn.qkv.weight"].numel(), params["blocks.0.ffn.fc2.weight"].grad.norm()
        at = heard.sentence(step=7)
        # the catalogue's advice with these fields, in data-flow order (block 0 before block 1)
        assert heard.carrying(name="blocks.0.ffn.fc2.weight", at=at, norm=float(fc2_norm), limit=monitor.explode)
        assert heard.carrying(name="blocks.1.attn.qkv.weight", at=at, bad=1, total=n_qkv)
        assert text == [
            heard.sentence(name="blocks.0.ffn.fc2.weight"),
            heard.sentence(name="blocks.1.attn.qkv.weight"),
        ]
    assert rows["blocks.1.attn.qkv.weight"].status == "nan/inf"
    assert rows["blocks.0.ffn.fc2.weight"].status == "exploding"


def test_vanishing_gradient_is_named():
    model = GPT(CFG)
    backward(model)
    bias = dict(model.named_parameters())["head.bias"]
    bias.grad.mul_(1e-12)
    monitor = GradientMonitor(model)
    with pytest.warns(GradientWarning) as caught, said() as heard:
        monitor.check()  # no step given: the message says no step
        assert heard.carrying(name="head.bias", at="", norm=float(bias.grad.norm()), limit=monitor.vanish)
        assert [str(w.message) for w in caught] == [heard.sentence(name="head.bias")]


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


def test_with_a_tied_head_the_bar_after_the_blocks_is_named_by_what_it_holds(tmp_path):
    """A head tied to the token table has no weight of its own after the blocks (its one weight is the
    table's, under "embed"): the bar there holds only the final norm, so it is "ln_final", not "head"."""
    from glassformer.inspect.gradflow import layers_of

    tied = GPT(replace(CFG, tie_weights=True))
    assert tied.head.weight is tied.tok_embed.table.weight  # the premise
    layers = layers_of(tied)
    assert {n: layer for n, layer in layers.items() if not layer.startswith(("embed", "block"))} == {
        "ln_final.weight": "ln_final",
        "ln_final.bias": "ln_final",
    }
    backward(tied)
    monitor = GradientMonitor(tied)
    monitor.check()
    assert list(monitor.layer_norms()) == ["embed", "block 0", "block 1", "ln_final"]  # the plot's x labels
    assert monitor.plot(tmp_path / "grads.png").exists()
    untied = layers_of(GPT(CFG))  # its own head weight after the blocks: "head" (with the final norm)
    assert untied["head.weight"] == untied["ln_final.weight"] == "head"
    no_norm = layers_of(GPT(replace(CFG, tie_weights=True, final_norm=False)))
    assert set(no_norm.values()) == {"embed", "block 0", "block 1"}  # nothing of its own after the blocks


SMALL_CFG = ModelConfig(
    vocab_size=5, d_model=4, n_heads=2, d_ff=6, n_layers=1, max_len=4, bias=False, norm="none", final_norm=False
)  # 7 weight matrices, no bias, no norm


def one_hot(p, value):
    g = torch.zeros_like(p)
    g.view(-1)[0] = value
    return g


def model_with_grads(nan=True):
    """pos 1.0 (ok); qkv one NaN (or 1.0); proj 2.0 (= explode: ok); fc1 none; fc2 0.25 (< vanish);
    tok 3.0 (> explode); head 0.5 (= vanish: ok). Thresholds: vanish 0.5, explode 2.0."""
    torch.manual_seed(0)
    model = GPT(SMALL_CFG)
    p = dict(model.named_parameters())
    p["pos_embed.table.weight"].grad = torch.full((4, 4), 0.25)
    p["blocks.0.attn.qkv.weight"].grad = one_hot(p["blocks.0.attn.qkv.weight"], float("nan") if nan else 1.0)
    p["blocks.0.attn.proj.weight"].grad = torch.full((4, 4), 0.5)
    p["blocks.0.ffn.fc2.weight"].grad = one_hot(p["blocks.0.ffn.fc2.weight"], 0.25)
    p["tok_embed.table.weight"].grad = one_hot(p["tok_embed.table.weight"], 3.0)
    p["head.weight"].grad = one_hot(p["head.weight"], 0.5)
    return model


def checked(step=7, nan=True):
    model = model_with_grads(nan)
    monitor = GradientMonitor(model, vanish=0.5, explode=2.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rows = monitor.check(step)
    return model, monitor, rows, caught


def test_every_field_of_every_row_and_the_status_at_both_thresholds():
    model, monitor, rows, _ = checked()
    assert rows is monitor.rows
    got = [(r.name, r.layer, r.shape, r.grad_norm, r.grad_abs_mean, r.update_ratio, r.status) for r in rows]
    nan = got[1][3]
    assert math.isnan(nan) and math.isnan(got[1][4])
    # snapshot: the status column's values are ids the view colours by ("no grad", "vanishing")
    assert got[:1] + got[2:] == [
        ("pos_embed.table.weight", "embed", (4, 4), 1.0, 0.25, None, "ok"),
        ("blocks.0.attn.proj.weight", "block 0", (4, 4), 2.0, 0.5, None, "ok"),  # = explode: not exploding
        ("blocks.0.ffn.fc1.weight", "block 0", (6, 4), None, None, None, "no grad"),
        ("blocks.0.ffn.fc2.weight", "block 0", (4, 6), 0.25, pytest.approx(0.25 / 24), None, "vanishing"),
        ("tok_embed.table.weight", "embed", (5, 4), 3.0, pytest.approx(3.0 / 20), None, "exploding"),
        ("head.weight", "head", (5, 4), 0.5, pytest.approx(0.5 / 20), None, "ok"),
    ]  # = vanish: not vanishing
    assert got[1][:3] == ("blocks.0.attn.qkv.weight", "block 0", (12, 4)) and got[1][6] == "nan/inf"
    for r, (_name, p) in zip(rows, model.named_parameters(), strict=False):
        assert r.weight_norm == pytest.approx(math.sqrt(sum(v * v for v in p.detach().reshape(-1).tolist())))


def test_the_warnings_by_their_fields_with_and_without_a_step_in_both_languages():
    qkv, fc2, tok = "blocks.0.attn.qkv.weight", "blocks.0.ffn.fc2.weight", "tok_embed.table.weight"
    with messages.speaking("en"), said() as heard:
        *_, caught = checked(step=7)
        at = heard.sentence(step=7)
        english = [heard.sentence(name=name) for name in (qkv, fc2, tok)]
    assert [w.category for w in caught] == [GradientWarning] * 3
    assert [str(w.message) for w in caught] == english  # one sentence each, in data-flow order
    assert heard.carrying(name=qkv, at=at, bad=1, total=48)  # NaN/inf: how many entries of how many
    assert heard.carrying(name=fc2, at=at, norm=0.25, limit=0.5)  # vanishing: below the lower threshold
    assert heard.carrying(name=tok, at=at, norm=3.0, limit=2.0)  # exploding: above the upper one
    assert all(repr(name) in w and "7" in at and at in w for name, w in zip((qkv, fc2, tok), english, strict=True))
    assert "48" in english[0] and "0.25" in english[1] and "3" in english[2]  # the figures, formatted in
    with said() as heard:
        *_, caught = checked(step=None)
    assert heard.carrying(name=tok, at="", norm=3.0, limit=2.0) and not heard.carrying(step=7)  # no step: no "at"
    with messages.speaking("zh"), said() as heard:
        *_, caught = checked(step=3)
        at = heard.sentence(step=3)
        chinese = [heard.sentence(name=name) for name in (qkv, fc2, tok)]
    assert [str(w.message) for w in caught] == chinese and all(CJK.search(w) and at in w for w in chinese)
    assert [fields["name"] for fields in heard.carrying(at=at)] == [qkv, fc2, tok]  # these three, no other
    assert heard.carrying(name=fc2, at=at, norm=0.25, limit=0.5) and heard.carrying(name=tok, norm=3.0, limit=2.0)


def test_an_infinite_entry_counts_as_bad_too_and_default_thresholds_are_1e_8_and_1e3():
    model = model_with_grads(nan=False)
    p = dict(model.named_parameters())
    p["blocks.0.attn.qkv.weight"].grad[1, 1] = float("inf")
    p["blocks.0.attn.qkv.weight"].grad[2, 2] = float("-inf")
    p["tok_embed.table.weight"].grad = one_hot(p["tok_embed.table.weight"], 1001.0)
    p["head.weight"].grad = one_hot(p["head.weight"], 1e-9)
    with warnings.catch_warnings(record=True) as caught, said() as heard:
        warnings.simplefilter("always")
        rows = {r.name: r.status for r in GradientMonitor(model).check()}
        words = [heard.sentence(name=name) for name in ("blocks.0.attn.qkv.weight", "tok_embed.table.weight")]
        words.append(heard.sentence(name="head.weight"))
    assert heard.carrying(name="blocks.0.attn.qkv.weight", at="", bad=2, total=48)  # +inf and -inf: 2 bad
    assert (
        rows["blocks.0.attn.qkv.weight"],
        rows["tok_embed.table.weight"],
        rows["head.weight"],
        rows["blocks.0.ffn.fc2.weight"],
    ) == ("nan/inf", "exploding", "vanishing", "ok")
    assert heard.carrying(name="tok_embed.table.weight", at="", norm=1001.0, limit=1e3)  # the default thresholds
    [vanishing] = heard.carrying(name="head.weight", at="", limit=1e-8)
    assert vanishing["norm"] == pytest.approx(1e-9)  # a float32 norm
    assert [str(w.message) for w in caught] == words


def test_update_ratio_is_the_measured_step_over_the_weight_and_none_for_a_zero_weight():
    model, monitor, rows, _ = checked()
    p = dict(model.named_parameters())
    with torch.no_grad():
        p["head.weight"].zero_()
    before = p["pos_embed.table.weight"].detach().clone()
    monitor.before_step()
    with torch.no_grad():
        p["pos_embed.table.weight"] += 0.1  # a step of norm 0.1·√16 = 0.4
        p["head.weight"] += 1.0
    monitor.after_step()
    ratio = {r.name: r.update_ratio for r in rows}
    assert ratio["pos_embed.table.weight"] == pytest.approx(0.4 / before.norm().item())
    assert ratio["head.weight"] is None and ratio["blocks.0.attn.proj.weight"] == 0.0
    assert keyed(RuntimeError, monitor.after_step) == ("grads.order", {})  # the weights' memory is used once


def test_after_step_without_before_step_says_the_order_in_both_languages():
    monitor = GradientMonitor(GPT(SMALL_CFG))
    with messages.speaking("zh"), pytest.raises(Unsupported) as e:
        monitor.after_step()
    assert e.value.code == "grads.order" and e.value.lang == "zh"
    assert CJK.search(str(e.value)) and "before_step()" in str(e.value)  # the words of the language it was raised in
    with messages.speaking("en"):
        assert str(e.value) == e.value.words("zh") != e.value.words("en")


def test_layer_norms_are_the_root_sum_of_squares_in_data_flow_order():
    _, monitor, _, _ = checked(nan=False)
    norms = monitor.layer_norms()
    assert list(norms) == ["embed", "block 0", "head"]
    assert norms["embed"] == pytest.approx(math.sqrt(1.0 + 9.0))
    assert norms["block 0"] == pytest.approx(math.sqrt(1.0 + 4.0 + 0.0625))  # fc1 has no gradient: left out
    assert norms["head"] == 0.5


def test_append_jsonl_writes_one_whole_line_per_call_into_new_folders(tmp_path):
    _, monitor, _, _ = checked(nan=False)
    path = monitor.append_jsonl(str(tmp_path / "run" / "m.jsonl"), step=4)
    monitor.append_jsonl(path)
    assert path == tmp_path / "run" / "m.jsonl"
    first, second = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert first["step"] == 4 and second["step"] is None and first["kind"] == "grad_flow"
    assert first["layers"] == pytest.approx(monitor.layer_norms()) and list(first) == [
        "step",
        "kind",
        "layers",
        "params",
    ]
    assert first["params"]["head.weight"] == {
        "layer": "head",
        "grad_norm": 0.5,
        "grad_abs_mean": pytest.approx(0.025),
        "weight_norm": pytest.approx(monitor.rows[-1].weight_norm),
        "update_ratio": None,
        "status": "ok",
    }
    assert list(first["params"]) == [r.name for r in monitor.rows]


def test_the_table_and_repr_whole():
    _, monitor, _, _ = checked()
    table = "\n".join(
        [
            "parameter                    shape             ‖grad‖   mean|g|     upd/w  status",
            "-" * 81,
            "pos_embed.table.weight       (4, 4)          1.00e+00  2.50e-01         —  ok",
            "blocks.0.attn.qkv.weight     (12, 4)              nan       nan         —  nan/inf",
            "blocks.0.attn.proj.weight    (4, 4)          2.00e+00  5.00e-01         —  ok",
            "blocks.0.ffn.fc1.weight      (6, 4)                 —         —         —  no grad",
            "blocks.0.ffn.fc2.weight      (4, 6)          2.50e-01  1.04e-02         —  vanishing",
            "tok_embed.table.weight       (5, 4)          3.00e+00  1.50e-01         —  exploding",
            "head.weight                  (5, 4)          5.00e-01  2.50e-02         —  ok",
        ]
    )
    assert monitor.table() == table
    with said() as heard:
        text = repr(monitor)
    assert text == heard.sentence(model="GPT", n=7, loss="") + "\n" + table  # a title line, then the table
    monitor.loss = 1.23456
    with said() as heard:
        text = repr(monitor)
        loss = heard.sentence(loss=1.23456)  # the loss as a number, worded by the catalogue
    assert text.startswith(heard.sentence(model="GPT", n=7, loss=loss)) and "1.2346" in loss
    with messages.speaking("zh"):
        zh = monitor.table(lang="zh").splitlines()
        columns = [
            t("parameter"),
            t("shape"),
            t("‖grad‖"),
            t("mean|g|"),
            t("upd/w"),
            t("status"),
        ]
        ok, nan = t("ok"), t("nan/inf")
    assert zh[0].split() == columns
    assert zh[1] == "-" * 79 and zh[2].endswith(f"—  {ok}") and zh[3].endswith(f"—  {nan}")
    with said() as heard:
        text = repr(GradientMonitor(GPT(SMALL_CFG)))
    title = heard.sentence(model="GPT", n=0, loss="")  # nothing checked: no table, but what to call
    assert text.startswith(title) and "\n" not in text and "loss.backward()" in text[len(title) :]


def test_the_plot_whole_read_from_its_figure(tmp_path, saved_figures):
    _, monitor, _, _ = checked(nan=False)
    with said() as heard:
        path = monitor.plot(str(tmp_path / "new" / "grads.png"))
    assert path == tmp_path / "new" / "grads.png" and path.read_bytes().startswith(b"\x89PNG")
    ((fig, dpi),) = saved_figures
    (ax,) = fig.axes
    assert dpi == 110 and tuple(fig.get_size_inches()) == pytest.approx((5.3, 4.0))  # max(5, 1.1·3 + 2)
    assert ax.get_yscale() == "log"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["embed", "block 0", "head"]
    assert all(t.get_rotation() == 0 for t in ax.get_xticklabels())
    heights = [b.get_height() for b in ax.patches]
    assert heights == pytest.approx([math.sqrt(10), 2.25, 0.5])  # √(1 + 4 + 1/16): qkv at 1.0 here
    dots = sorted((x, y) for line in ax.lines if line.get_marker() == "o" for x, y in line.get_xydata())
    assert dots == sorted([(0, 1.0), (0, 3.0), (1, 1.0), (1, 2.0), (1, 0.25), (2, 0.5)])
    sizes = {line.get_markersize() for line in ax.lines if line.get_marker() == "o"}
    assert sizes == {3}  # every parameter's dot drawn as its legend entry shows it
    rules = [line for line in ax.lines if line.get_linestyle() == ":"]
    assert sorted(line.get_ydata()[0] for line in rules) == [0.5, 2.0]  # both thresholds lie near the data
    assert_the_figure_shows_what_was_said(ax, heard)


def assert_the_figure_shows_what_was_said(ax, heard) -> None:
    """The title, the y label and the four legend entries are the six sentences plot() said, each
    once: the thresholds' entries by their level (as %g), the rest a sentence of no fields each."""
    legend = [text.get_text() for text in ax.get_legend().get_texts()]
    assert (legend[1], legend[2]) == (heard.sentence(level="0.5"), heard.sentence(level="2"))
    plain = [t(msgid) for msgid, fields in heard if not fields]
    assert len(plain) == 4 and sorted(plain) == sorted([ax.get_title(), ax.get_ylabel(), legend[0], legend[3]])


def test_thresholds_exactly_100x_from_the_data_are_drawn(tmp_path, saved_figures):
    """ "Near the data" includes its edges: thresholds of exactly 1/100 of the smallest layer norm and
    100× the largest are drawn (sample Q's survivor made the upper edge exclusive)."""
    torch.manual_seed(0)
    model = GPT(SMALL_CFG)
    for p in model.parameters():
        p.grad = torch.full_like(p, 1.0 / math.sqrt(p.numel()))  # every parameter's norm 1
    first = GradientMonitor(model)
    first.check()
    norms = first.layer_norms().values()
    low, high = min(norms) / 100, max(norms) * 100
    monitor = GradientMonitor(model, vanish=low, explode=high)
    monitor.check()
    monitor.plot(tmp_path / "g.png")
    ((fig, _),) = saved_figures
    (ax,) = fig.axes
    assert sorted(line.get_ydata()[0] for line in ax.lines if line.get_linestyle() == ":") == [low, high]


def test_thresholds_far_from_the_data_are_not_drawn_and_many_layers_tilt_their_names(tmp_path, saved_figures):
    torch.manual_seed(0)
    model = GPT(ModelConfig(**{**SMALL_CFG.__dict__, "n_layers": 6}))
    for p in model.parameters():
        p.grad = torch.full_like(p, 1.0 / math.sqrt(p.numel()))  # every norm 1
    monitor = GradientMonitor(model)  # 1e-8 and 1e3: more than 100× away from 1
    monitor.check()
    monitor.plot(tmp_path / "g.png")
    ((fig, _),) = saved_figures
    (ax,) = fig.axes
    assert not [line for line in ax.lines if line.get_linestyle() == ":"]
    assert [t.get_text() for t in ax.get_xticklabels()][1:3] == ["block 0", "block 1"]
    assert all(t.get_rotation() == 30 for t in ax.get_xticklabels())  # 8 names
    assert keyed(ValueError, GradientMonitor(model).plot, tmp_path / "none.png") == ("grads.nothing_to_plot", {})


def test_gradient_flow_refuses_short_input_and_wrong_targets_by_key_and_fields():
    model = GPT(SMALL_CFG)
    assert keyed(UsageError, gradient_flow, model, [1]) == ("grads.too_short", {"T": 1})
    assert keyed(ValueError, gradient_flow, model, [1, 2, 3], targets=[1, 2]) == (
        "grads.targets",
        {"shape": (2,), "out": (1, 3, 5), "want": (1, 3)},
    )


def test_gradient_flow_with_given_targets_and_no_step():
    torch.manual_seed(0)
    model = GPT(ModelConfig(**{**SMALL_CFG.__dict__, "dropout": 0.0})).eval()
    ids, targets = torch.tensor([[1, 2, 3]]), torch.tensor([[2, 3, 4]])
    monitor = gradient_flow(model, ids, targets=targets, lr=None, vanish=0.0, explode=1e9)
    with torch.no_grad():
        logits = model(ids)  # (1, 3, V)
    assert monitor.loss == pytest.approx(torch.nn.functional.cross_entropy(logits[0], targets[0]).item(), rel=1e-6)
    assert all(r.update_ratio is None for r in monitor.rows) and (monitor.vanish, monitor.explode) == (0.0, 1e9)
    assert not model.training


def test_the_plot_speaks_chinese_by_key_with_every_glyph_drawn(tmp_path, saved_figures):
    _, monitor, _, _ = checked(nan=False)
    with messages.speaking("zh"), said() as heard:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            monitor.plot(tmp_path / "zh.png")
        ((fig, _),) = saved_figures
        (ax,) = fig.axes
        assert_the_figure_shows_what_was_said(ax, heard)  # worded in Chinese, as the language of the moment
    assert not [
        w for w in caught if "Glyph" in str(w.message)
    ]  # the shipped font drew the 汉字 (no "Glyph ... missing")
    texts = [ax.get_title(), ax.get_ylabel(), *(s.get_text() for s in ax.get_legend().get_texts())]
    assert all(CJK.search(text) for text in texts)


def test_gradient_flow_puts_the_caller_s_gradients_back():
    torch.manual_seed(0)
    model = GPT(CFG)
    backward(model)  # the caller's own gradients, from a step of theirs
    mine = {n: p.grad.clone() for n, p in model.named_parameters()}
    weights = {n: p.detach().clone() for n, p in model.named_parameters()}
    gradient_flow(model, torch.randint(0, 10, (2, 9)), lr=1e-2)  # its own backward and Adam step
    for n, p in model.named_parameters():
        assert torch.equal(p.grad, mine[n]), n  # the same values (sample O's survivor: grads set to None)
        assert torch.equal(p.detach(), weights[n]), n


def test_a_nan_gradient_norm_is_written_as_null_and_the_line_is_json(tmp_path):
    """metrics.jsonl's grad_flow line is JSON proper (files.json_text): the NaN norm of qkv is null
    (it was a bare NaN, which jq and a browser's JSON.parse refuse), the finite ones are kept."""
    _, monitor, _, _ = checked(nan=True)
    path = monitor.append_jsonl(tmp_path / "metrics.jsonl", step=7)
    (line,) = [strict_json(text) for text in path.read_text(encoding="utf-8").splitlines()]
    qkv = line["params"]["blocks.0.attn.qkv.weight"]
    assert qkv["grad_norm"] is None and qkv["grad_abs_mean"] is None and qkv["status"] == "nan/inf"
    assert line["params"]["head.weight"]["grad_norm"] == 0.5 and line["layers"]["block 0"] is None
