"""--compile=true: a compiler that fails on first use costs a message, never the run."""

import pytest
import torch

import glassformer.train.loop as compile_module
from glassformer.config import ModelConfig
from glassformer.models import GPT


def tiny():
    return GPT(ModelConfig(vocab_size=7, d_model=8, n_heads=2, d_ff=16, n_layers=1, max_len=8))


def test_a_failing_compiler_falls_back_to_eager_with_a_message(monkeypatch, capsys):
    def broken_compile(model):
        def run(x):
            raise RuntimeError("no C compiler found\nlong traceback")

        return run

    monkeypatch.setattr(compile_module.torch, "compile", broken_compile)
    model, ids = tiny(), torch.randint(0, 7, (2, 5))
    forward = compile_module.compile_or_eager(model)
    assert torch.equal(forward(ids), model(ids)) and torch.equal(forward(ids), model(ids))
    err = capsys.readouterr().err
    assert err.count("torch.compile does not work here (RuntimeError: no C compiler found)") == 1


def test_the_models_own_error_is_not_blamed_on_the_compiler(monkeypatch, capsys):
    monkeypatch.setattr(compile_module.torch, "compile", lambda model: model)
    forward = compile_module.compile_or_eager(tiny())
    with pytest.raises(ValueError, match="outside the vocabulary"):
        forward(torch.full((1, 3), 99))
    assert "torch.compile" not in capsys.readouterr().err


@pytest.mark.parametrize("attention", ["glass", "fused"])
def test_the_whole_forward_is_one_graph_for_the_compiler(attention):
    """No graph breaks: a value read back from a tensor (the glass path's dead-row check, the fused
    path's causal-mask check) would split the compiled model at every layer and make it slower."""
    import torch._dynamo

    model = GPT(ModelConfig(vocab_size=7, d_model=8, n_heads=2, d_ff=16, n_layers=2, max_len=8, attention=attention))
    explained = torch._dynamo.explain(model)(torch.randint(0, 7, (2, 5)))
    assert explained.graph_break_count == 0, [r.reason.splitlines()[0] for r in explained.break_reasons]


def test_a_working_compiler_is_given_the_model_and_used_for_every_call(monkeypatch, capsys):
    seen = []

    def fake_compile(model):
        seen.append(model)

        def compiled(x):
            seen.append(x)
            return model(x) + 1.0  # recognisably the compiled path

        return compiled

    monkeypatch.setattr(compile_module.torch, "compile", fake_compile)
    model, ids = tiny(), torch.randint(0, 7, (2, 5))
    forward = compile_module.compile_or_eager(model)
    assert seen == [model]
    assert torch.equal(forward(ids), model(ids) + 1.0) and seen[1] is ids
    assert torch.equal(forward(ids), model(ids) + 1.0) and len(seen) == 3  # later calls too
    assert capsys.readouterr().err == ""


def test_a_compiler_error_without_a_message_still_reads_well(monkeypatch, capsys):
    def silent_failure(model):
        def run(x):
            raise RuntimeError()

        return run

    monkeypatch.setattr(compile_module.torch, "compile", silent_failure)
    model, ids = tiny(), torch.randint(0, 7, (1, 3))
    compile_module.compile_or_eager(model)(ids)
    assert "torch.compile does not work here (RuntimeError: ); continuing without it" in capsys.readouterr().err


def test_the_fallback_message_whole_with_the_first_line_cut_at_200_characters(monkeypatch, capsys):
    calls = []

    def broken_compile(model):
        def run(x):
            calls.append("compiled")
            raise ValueError("  " + "x" * 250 + "\nsecond line")

        return run

    monkeypatch.setattr(compile_module.torch, "compile", broken_compile)
    model = torch.nn.Linear(2, 2)
    forward = compile_module.compile_or_eager(model)
    x = torch.ones(1, 2)
    assert torch.equal(forward(x), model(x)) and torch.equal(forward(x), model(x))
    assert calls == ["compiled"]  # tried once, then the plain model for good
    assert capsys.readouterr().err == (
        f"torch.compile does not work here (ValueError: {'x' * 200}); continuing without "
        "it (drop --compile=true to skip this message).\n"
    )
