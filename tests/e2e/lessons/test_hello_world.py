"""Lesson 2: the tutorial's setup, the true parameter count, and the future leak made visible."""

from __future__ import annotations

import math

import pytest
import torch
from helpers import said
from lesson_checks import assert_valid_png

from glassformer.cli import main
from glassformer.errors import DamagedFile, NotFound, UsageError
from glassformer.lessons import hello_world
from glassformer.lessons.hello_world import PUBLISHED_PARAM_COUNT
from glassformer.messages import t


@pytest.fixture(scope="module")
def lesson(tmp_path_factory):
    lines = []
    with said() as heard:
        result = hello_world.run(out=tmp_path_factory.mktemp("hello"), fast=True, echo=lines.append)
    return result, "\n".join(lines), heard


def tutorial_param_count(V=20, C=128, F=512, T=5):
    """Counted by hand: embeddings, q/k/v/out projections with biases, the FFN, the head."""
    return V * C + T * C + 4 * (C * C + C) + (C * F + F) + (F * C + C) + (C * V + V)


def test_parameter_counts(lesson):
    params = lesson[0]["params"]
    assert params["tutorial"] == tutorial_param_count(V=20)
    assert params["ours"] == tutorial_param_count(V=19)  # "you" listed twice: 19 distinct entries
    assert params["tutorial"] != PUBLISHED_PARAM_COUNT
    counts = {  # the tutorial's count, what it prints, and ours, in one sentence
        "V": 20,
        "theirs": f"{params['tutorial']:,}",
        "published": f"{PUBLISHED_PARAM_COUNT:,}",
        "diff": f"{params['tutorial'] - PUBLISHED_PARAM_COUNT:+,}",
        "v_ours": 19,
        "ours": f"{params['ours']:,}",
    }
    [(sentence, fields)] = [(m, f) for m, f in lesson[2] if f == counts]
    assert t(sentence, **fields) in lesson[1]


def test_tutorial_data_and_vocabulary():
    data = hello_world.tutorial_data()
    tok = data.tokenizer
    assert tok.vocab_size == 19 and tok.encode("you") == [8]
    assert data.rows.shape == (100, 5)
    assert [tok.decode([i]) for i in data.rows[0]] == ["<BOS>", "hello", "world", "<EOS>", "<PAD>"]  # one per id
    assert (data.rows == data.rows[0]).all()
    # snapshot: the lesson's own two-word input, one word known and one not
    assert tok.encode("hello there") == [tok.encode("hello")[0], tok.unk_id]


def test_both_models_learn_the_sentence(lesson):
    fits, preds = lesson[0]["fits"], lesson[0]["predictions"]
    for mask in ("none", "causal"):
        assert fits[mask].train[-1] < 0.01 * fits[mask].train[0]
        word, p = preds[mask][0]
        assert word == "<EOS>" and p > 0.9
    attn = lesson[0]["attention"]["causal"]  # (H, T): last query's weights per head
    assert attn.shape == (4, 3) and torch.allclose(attn.sum(-1), torch.ones(4))


def test_gradient_leak_nonzero_without_mask_exactly_zero_with_it(lesson):
    future = lesson[0]["future_gradient"]
    assert future["none"] > 1e-3
    assert future["causal"] == 0.0
    J = lesson[0]["jacobian"]["causal"]  # (T, T)
    assert (torch.diagonal(J) > 0).all() and (torch.tril(J, -1)[1:, 0] > 0).all()


def test_random_tokens_reveal_the_leak(lesson):
    leak = lesson[0]["leak"]
    chance = math.log(16)
    assert leak.chance == pytest.approx(chance) and leak.leak_floor == pytest.approx(chance / 4)
    assert leak.held_out["none"] < 0.5 * chance  # reads the future: well below chance
    assert abs(leak.held_out["causal"] - chance) < 0.1 * chance  # cannot beat chance
    copied = leak.per_position["none"][:-1]  # positions whose target is visible in the input
    assert max(copied) < 0.1 * chance and leak.per_position["none"][-1] > 0.8 * chance


def test_files_are_valid_pngs(lesson):
    files = lesson[0]["files"]
    assert [f.name for f in files] == [
        "loss.png",
        "random_token_leak.png",
        "attention_mask_none.png",
        "attention_mask_causal.png",
    ]
    for f in files:
        assert_valid_png(f)


def test_embedding_jacobian_matches_finite_differences():
    torch.manual_seed(0)
    data = hello_world.tutorial_data()
    model = hello_world.build_model(data, "none", seed=0).double()
    ids = data.inputs[:1]
    J = hello_world.embedding_jacobian_norms(model, ids)  # (T, T)
    _, cache = model.run_with_cache(ids, names=["embed"])
    e, eps, t, j = cache["embed"].clone(), 1e-6, 1, 3
    bump = torch.zeros_like(e)
    direction = torch.randn(e.shape[-1], dtype=e.dtype)
    bump[0, j] = eps * direction / direction.norm()

    def run(emb):
        return model.run_with_hooks(ids, hooks={"embed": lambda x, n: emb})[0, t]

    fd = ((run(e + bump) - run(e - bump)) / (2 * eps)).norm()
    assert 0 < fd <= J[t, j] * (1 + 1e-6)  # a directional derivative is bounded by the full norm


def test_greetings_and_user_files(tmp_path):
    g = hello_world.load_data("greetings")
    assert 30 <= len(g.lines) <= 60 and g.rows.size(1) == max(len(s.split()) for s in g.lines) + 2
    good = tmp_path / "mine.txt"
    good.write_text("good day to you\n\n  nice   weather  \n", encoding="utf-8")
    mine = hello_world.load_data(str(good))
    assert mine.lines == ["good day to you", "nice weather"] and mine.rows.shape == (2, 6)


@pytest.mark.parametrize(
    "content, error, key, fields, code",
    [
        (None, NotFound, "lesson.data_missing", {}, 2),
        (b"\n  \n", UsageError, "lesson.data_empty", {}, 2),
        (b"\xff\xfe\x00bad", DamagedFile, None, {}, 1),  # a file that cannot be read as text: a failure
        (("word " * 30).encode(), UsageError, "lesson.data_words", {"line": 1, "words": 30, "most": 24}, 2),
    ],
)
def test_bad_data_file_gives_a_clear_error(tmp_path, capsys, content, error, key, fields, code):
    path = tmp_path / "data.txt"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(error) as e:
        hello_world.load_data(str(path))
    assert key is None or e.value.key == key
    assert e.value.fields["path"] == path and fields.items() <= e.value.fields.items()
    rc = main(["lesson", "hello-world", "--data", str(path), "--out", str(tmp_path / "out")])
    assert rc == code and str(e.value) in capsys.readouterr().err  # the CLI words the same error
    assert not (tmp_path / "out").exists()  # nothing written for a run that could not start


def test_bad_options_are_typed_errors():
    with pytest.raises(UsageError) as e:
        hello_world.run(mask="half", echo=lambda s: None)
    assert e.value.code == "lesson.choice" and e.value.fields["option"] == "mask"
    with pytest.raises(UsageError) as e:
        hello_world.run(epochs=0, echo=lambda s: None)
    assert e.value.code == "lesson.at_least" and e.value.fields == {"option": "epochs", "least": 1, "value": 0}


def test_greetings_the_unmasked_model_reads_its_answers(tmp_path):
    result = hello_world.run(data="greetings", epochs=30, fast=True, out=tmp_path, echo=lambda s: None)
    fits, generated = result["fits"], result["predictions"]  # prompt word -> {mask: continuation}
    assert len(generated) == 5
    for word, by_mask in generated.items():
        assert set(by_mask) == {"none", "causal"}
        assert all(text.split()[0] == word for text in by_mask.values())
    # greetings are ambiguous (many lines start "good ..."), so an honest model keeps some loss;
    # the unmasked one copies the next word from its input and goes far lower
    assert fits["none"].train[-1] < 0.5 * fits["causal"].train[-1]
