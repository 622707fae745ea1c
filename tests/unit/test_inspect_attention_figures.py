"""The attention figures (attention_maps.grid_figure, head_figure) read from the matplotlib Figure
they build, on hand-made maps: titles, axis labels, tick texts and their rotation, the image's
data, mask and colour scale, the numbers written in cells and their colour, the hatched patch
behind masked cells, the figure's size; and the refusal of a head that does not exist."""

import numpy as np
import pytest
import torch

from glassformer.inspect.attention_maps import AttentionMap, grid_figure, head_figure

W = torch.tensor(
    [[[1, 0, 0], [0.4, 0.6, 0], [0.1, 0.2, 0.7]], [[1, 0, 0], [0.5, 0.5, 0], [0.3, 0.3, 0.4]]]
)  # (H, T_q, T_k)
CAUSAL = torch.triu(torch.ones(3, 3, dtype=torch.bool), 1).expand(2, 3, 3)  # (H, T_q, T_k)
OPEN = torch.zeros(2, 3, 3, dtype=torch.bool)
MAPS = [
    AttentionMap("blocks.0.attn.weights", "B H T_q T_k", W, CAUSAL),
    AttentionMap("blocks.1.attn.weights", "B H T_q T_k", W.flip(0), OPEN),
]
NOTE = "grey hatched = masked (may not attend)"


def ticks(axis_labels):
    return [t.get_text() for t in axis_labels]


def test_one_head_whole():
    fig = head_figure(MAPS, ["a", "b", "c"], 0, 0)
    ax, bar = fig.axes
    assert ax.get_title() == f"blocks.0.attn.weights, head 0 (each row sums to 1)\n{NOTE}"
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("key: the token looked at", "query: the token looking")
    assert ticks(ax.get_xticklabels()) == ["a", "b", "c"] and ticks(ax.get_yticklabels()) == ["a", "b", "c"]
    assert all(t.get_rotation() == 0 for t in ax.get_xticklabels())  # short labels stand upright
    (im,) = ax.images
    data = im.get_array()
    assert np.allclose(data.data, W[0].numpy()) and data.mask.tolist() == CAUSAL[0].tolist()
    assert im.get_clim() == (0.0, 1.0) and im.get_cmap().name.startswith("viridis")
    assert bar.get_ylabel() == "attention weight"
    cells = {(t.get_position(), t.get_text(), t.get_color()) for t in ax.texts}
    assert cells == {
        ((0, 0), "1.00", "black"),
        ((0, 1), "0.40", "white"),
        ((1, 1), "0.60", "black"),
        ((0, 2), "0.10", "white"),
        ((1, 2), "0.20", "white"),
        ((2, 2), "0.70", "black"),
    }
    assert [t.get_fontsize() for t in ax.texts] == pytest.approx([12 * 0.8] * 6)  # 300/3 capped at 12
    (patch,) = [p for p in ax.patches if p.get_hatch()]
    assert patch.get_hatch() == "///" and (patch.get_x(), patch.get_y(), patch.get_width(), patch.get_height()) == (
        -0.5,
        -0.5,
        3,
        3,
    )
    assert tuple(fig.get_size_inches()) == pytest.approx((6.8, 5.6))  # side max(5, 0.32·3) = 5


def test_an_unmasked_head_has_no_note_and_long_labels_turn_upright():
    fig = head_figure(MAPS, ["one", "two", "six"], 1, 1)
    ax = fig.axes[0]
    assert ax.get_title() == "blocks.1.attn.weights, head 1 (each row sums to 1)"
    assert all(t.get_rotation() == 90 for t in ax.get_xticklabels())
    assert len(ax.texts) == 9  # every cell visible, every cell written


def test_a_long_map_writes_no_numbers_and_thins_nothing_below_32():
    T = 17
    w = torch.full((1, T, T), 1 / T)
    fig = head_figure([AttentionMap("x.weights", "B H T_q T_k", w, torch.zeros(1, T, T, dtype=torch.bool))], None, 0, 0)
    ax = fig.axes[0]
    assert len(ax.texts) == 0 and ticks(ax.get_xticklabels()) == [str(i) for i in range(T)]
    assert tuple(fig.get_size_inches()) == pytest.approx((0.32 * T + 1.8, 0.32 * T + 0.6))


@pytest.mark.parametrize("layer,head", [(2, 0), (0, 2), (-1, 0), (0, -1)])
def test_a_head_outside_the_model_is_refused_with_the_ranges(layer, head):
    with pytest.raises(ValueError) as e:
        head_figure(MAPS, None, layer, head)
    assert str(e.value) == f"layer={layer}, head={head} is outside this model: layers 0..1, heads 0..1."


def test_the_grid_whole():
    fig = grid_figure(MAPS, ["a", "b", "c"])
    *axes, bar = fig.axes
    assert [ax.get_title() for ax in axes] == [
        "blocks.0.attn · head 0",
        "blocks.0.attn · head 1",
        "blocks.1.attn · head 0",
        "blocks.1.attn · head 1",
    ]
    assert fig._suptitle.get_text() == f"attention weights: rows = query (looking), columns = key (looked at); {NOTE}"
    assert [ticks(ax.get_xticklabels()) for ax in axes] == [
        [""] * 3,
        [""] * 3,
        ["a", "b", "c"],
        ["a", "b", "c"],
    ]  # bottom
    assert [ticks(ax.get_yticklabels()) for ax in axes] == [
        ["a", "b", "c"],
        [""] * 3,
        ["a", "b", "c"],
        [""] * 3,
    ]  # left
    assert [np.allclose(ax.images[0].get_array().data, w.numpy()) for ax, w in zip(axes, [W[0], W[1], W[1], W[0]], strict=False)] == [
        True
    ] * 4
    assert all(ax.images[0].get_clim() == (0.0, 1.0) and not ax.texts for ax in axes)
    assert bar.get_ylabel() == "attention weight"
    side = 1.6 + 0.09 * 3
    assert tuple(fig.get_size_inches()) == pytest.approx((side * 2 + 1.5, side * 2 + 0.8))
    assert {t.get_fontsize() for t in axes[2].get_xticklabels()} == {9.0}  # 180/3 capped at 9


def test_a_grid_of_unmasked_maps_of_several_shapes_labels_every_row():
    cross = AttentionMap(
        "dec.0.cross.weights", "B H T_q S", torch.full((2, 3, 4), 0.25), torch.zeros(2, 3, 4, dtype=torch.bool)
    )
    fig = grid_figure([MAPS[1], cross], {"S": list("wxyz"), "T": list("abc")})
    axes = fig.axes[:-1]
    assert fig._suptitle.get_text() == "attention weights: rows = query (looking), columns = key (looked at)"
    assert [ticks(ax.get_xticklabels()) for ax in axes] == [
        ["a", "b", "c"],
        ["a", "b", "c"],
        list("wxyz"),
        list("wxyz"),
    ]
    assert ticks(axes[2].get_yticklabels()) == ["a", "b", "c"]


def test_a_long_grid_thins_its_ticks_and_shrinks_its_font():
    T = 64
    w = torch.full((1, T, T), 1 / T)
    fig = grid_figure([AttentionMap("x.weights", "B H T_q T_k", w, torch.zeros(1, T, T, dtype=torch.bool))], None)
    ax = fig.axes[0]
    assert ticks(ax.get_xticklabels()) == [str(i) for i in range(0, T, 2)]
    assert ticks(ax.get_yticklabels()) == [str(i) for i in range(0, T, 2)]
    assert [t.get_fontsize() for t in ax.get_xticklabels()] == [4.0] * 32  # 180/64 raised to the floor of 4


def test_layers_the_hatch_below_the_map_below_its_numbers():
    """What is drawn over what: the hatched patch (masked cells) at the bottom, showing only where
    the map is masked out; the map's colours above it; each cell's number above the colours. A map
    raised to its numbers' level (zorder 2, as a mutant of sample H did, 30 Nov) leaves the order to
    insertion and changed 216 pixels of the saved PNGs."""
    head, grid = head_figure(MAPS, ["a", "b", "c"], 0, 0), grid_figure(MAPS, ["a", "b", "c"])
    assert len(head.axes[0].texts) == 6  # the one head's cells carry their numbers
    for fig in (head, grid):
        for ax in (a for a in fig.axes if a.images):
            (im,) = ax.images
            (hatch,) = ax.patches
            assert hatch.get_hatch() == "///"
            numbers = [t.get_zorder() for t in ax.texts]  # the grid writes none in its small cells
            assert hatch.get_zorder() < im.get_zorder() < min(numbers, default=float("inf"))
            assert all(z > im.get_zorder() for z in numbers)


def test_the_grid_lays_itself_out_so_no_map_covers_another():
    """Each map of the grid with its title, tick labels and colour bar stays inside the figure and
    clear of every other (read from the drawn figure's bounding boxes). Bug it guards: the grid
    built without its constrained layout, where titles and labels of neighbours run into each
    other (sample I, 30 Nov)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = grid_figure(MAPS, ["alpha", "beta", "gamma"])
    FigureCanvasAgg(fig).draw()  # place everything as the PNG would
    renderer = fig.canvas.get_renderer()
    boxes = [ax.get_tightbbox(renderer) for ax in fig.axes]
    page = fig.bbox
    for box in boxes:
        assert page.x0 - 1 <= box.x0 and box.x1 <= page.x1 + 1 and page.y0 - 1 <= box.y0 and box.y1 <= page.y1 + 1
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            overlap_w = min(a.x1, b.x1) - max(a.x0, b.x0)
            overlap_h = min(a.y1, b.y1) - max(a.y0, b.y0)
            assert overlap_w <= 1 or overlap_h <= 1, (a, b)
