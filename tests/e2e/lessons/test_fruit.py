"""Lesson 1: every printed number equals an independent computation written here."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import said
from lesson_checks import assert_valid_png

from glassformer.lessons import fruit
from glassformer.messages import t


@pytest.fixture(scope="module")
def lesson(tmp_path_factory):
    lines = []
    with said() as heard:
        result = fruit.run(out=tmp_path_factory.mktemp("fruit"), echo=lines.append)
    return result, "\n".join(lines), heard


def independent_attention():
    """The same single-head attention, written out element by element with plain Python floats."""
    E = [[6, 4], [8, 1], [5, 7]]
    WQ, WK, WV = [[1, 0], [0, 1]], [[0.5, 0.5], [0.5, -0.5]], [[1, 1], [-1, 1]]

    def mul(A, B):
        return [[sum(a[k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for a in A]

    Q, K, V = mul(E, WQ), mul(E, WK), mul(E, WV)
    S = [[sum(q[d] * k[d] for d in range(2)) for k in K] for q in Q]
    A = [[s / math.sqrt(2) for s in row] for row in S]
    W = [[math.exp(a) / sum(math.exp(b) for b in row) for a in row] for row in A]
    out = [[sum(W[i][j] * V[j][d] for j in range(3)) for d in range(2)] for i in range(3)]
    return {"Q": Q, "K": K, "V": V, "Q·Kᵀ": S, "scaled": A, "weights": W, "output": out}


def test_every_step_equals_an_independent_computation(lesson):
    steps = lesson[0]["steps"]
    for name, expected in independent_attention().items():
        np.testing.assert_allclose(steps[name], np.array(expected), rtol=1e-12, atol=1e-12, err_msg=name)
    np.testing.assert_allclose(steps["weights"].sum(axis=1), 1.0, atol=1e-12)


def test_torch_and_numpy_twin_agree_with_the_hand_computation(lesson):
    for name, diff in lesson[0]["library_diff"].items():
        assert diff < 1e-12, name


def test_published_figures_are_diagnosed_correctly(lesson):
    pub = lesson[0]["published"]
    assert pub["Q"]["wrong_rows"] == []  # the tutorial's Q is right
    assert pub["K"]["wrong_rows"] == ["orange"]  # [5, 7]·W_K = [6, -1], printed [6, 1]
    assert pub["V"]["wrong_rows"] == ["apple", "banana", "orange"]
    assert pub["V"]["transposed_rows"] == ["apple", "orange"]  # x·W_Vᵀ reproduces those two rows
    assert pub["scaled"]["inherited"] is True  # its scaling of its own Q·Kᵀ is right
    assert pub["Q·Kᵀ"]["inherited"] is False and pub["output"]["inherited"] is False
    np.testing.assert_allclose(
        pub["output"]["from_own_inputs"][0],
        0.58 * np.array([10, -2]) + 0.12 * np.array([9, 7]) + 0.30 * np.array([12, 2]),
    )
    [(why, fields)] = [(m, f) for m, f in lesson[2] if f == {"name": "V", "word": "apple", "value": "[10.0, -2.0]"}]
    assert t(why, **fields) in lesson[1]  # why apple's V row is x·W_Vᵀ, printed


def test_multi_head_shapes_come_from_the_library(lesson):
    heads = lesson[0]["heads"]
    assert list(heads["shapes"].values()) == [
        (1, 3, 8),
        (1, 3, 8),
        (1, 3, 2, 4),
        (1, 2, 3, 4),
        (1, 2, 3, 3),
        (1, 2, 3, 3),
        (1, 2, 3, 4),
        (1, 3, 2, 4),
        (1, 3, 8),
        (1, 3, 8),
    ]
    assert all(heads["checks"].values())


def test_positions_facts_and_the_tutorials_claim(lesson):
    pos = lesson[0]["positions"]
    pe = np.zeros((10, 8))
    for p in range(10):
        for i in range(4):
            pe[p, 2 * i] = math.sin(p / 10000 ** (2 * i / 8))
            pe[p, 2 * i + 1] = math.cos(p / 10000 ** (2 * i / 8))
    np.testing.assert_allclose(pos["table"], pe, atol=1e-12)
    assert pos["dot_spread"] < 1e-12 and pos["rotation_error"] < 1e-12 and pos["rotated_diff_error"] < 1e-12
    gap = np.linalg.norm((pe[0] - pe[5]) - (pe[2] - pe[7]))
    assert pos["claim_gap"] == pytest.approx(gap) and gap > 1.0  # the claimed near-equality is false
    assert pos["diff_lengths"][0] == pytest.approx(pos["diff_lengths"][1])


def test_files_are_valid_pngs(lesson):
    assert len(lesson[0]["files"]) == 2
    for f in lesson[0]["files"]:
        assert_valid_png(f)


def test_chinese_commentary_prints_the_same_numbers(tmp_path):
    zh, en = [], []
    fruit.run(lang="zh", explain=True, out=tmp_path, echo=zh.append)
    fruit.run(lang="en", out=tmp_path, echo=en.append)
    assert zh != en and len(zh) > len(en)  # --explain adds its commentary

    def numbers(lines):
        return [line for line in lines if line.startswith("  apple")]

    assert numbers(zh) == numbers(en)


def test_the_projections_are_printed_so_the_example_can_be_redone_by_hand(lesson):
    """Issue 27, item 10: the lesson named for its W_Q, W_K, W_V never printed them."""
    from glassformer.lessons.common import matrix_lines

    text = lesson[1]
    for name, W in fruit.PROJECTIONS.items():
        block = "\n".join(matrix_lines(f"W_{name}", W, None, 1))
        assert block in text, name
    assert text.index("W_V  shape (2, 2)") < text.index("Q = E·W_Q")  # before the first product that uses them


def test_under_zh_the_lessons_own_labels_are_chinese_too(tmp_path):
    """Issue 27, item 10: the table labels printed with nar.show ("shape", "weights = exp / row sum",
    "input x", "rows p, columns k", "the first 2×2 block") stayed English under --lang zh."""
    from glassformer.messages import speaking

    zh = []
    fruit.run(lang="zh", out=tmp_path, echo=zh.append)
    text = "\n".join(zh)
    english = ("shape (", "row sum", "input x", "rows p, columns k", "first 2×2 block", "output projection")
    assert [word for word in english if word in text] == []
    with speaking("zh"):
        for key in ("shape", "weights = exp / row sum", "input x"):
            assert t(key) in text, key
