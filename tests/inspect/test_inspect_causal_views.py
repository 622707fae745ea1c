"""The causal views' own small pieces, checked by value: the prompt pair's refusals name the flag
that was wrong (and its figures), and write_all puts each picture in the file it returns."""

import json

import pytest
import torch
from helpers import strict_json

from glassformer.config import ModelConfig
from glassformer.errors import UsageError
from glassformer.inspect import causal_views
from glassformer.inspect.causal_views import Grid, heads_view, prompt_pair, write_all, zero_ablation_loss
from glassformer.models.kinds import build_model
from glassformer.text.tokenizers import CharTokenizer

TOK = CharTokenizer(list("abcd"))


def test_a_prompt_pair_of_equal_lengths_is_two_batches_of_one():
    a, b = prompt_pair(TOK, "abc", "dcb", max_len=8)
    assert a.tolist() == [TOK.encode("abc")] and b.tolist() == [TOK.encode("dcb")]


@pytest.mark.parametrize(
    "clean, corrupt, key, fields",
    [
        ("", "ab", "cview.empty", {"flag": "--clean"}),
        ("ab", "", "cview.empty", {"flag": "--corrupt"}),
        ("abcdab", "ab", "cview.too_long", {"flag": "--clean", "n": 6, "max_len": 4}),
        ("ab", "abcdab", "cview.too_long", {"flag": "--corrupt", "n": 6, "max_len": 4}),
        ("ab", "abc", "cview.lengths", {"clean": 2, "corrupt": 3, "clean_tokens": "a b", "corrupt_tokens": "a b c"}),
    ],
)
def test_a_refused_prompt_pair_names_the_flag_at_fault_and_its_figures(clean, corrupt, key, fields):
    with pytest.raises(UsageError) as e:
        prompt_pair(TOK, clean, corrupt, max_len=4)
    assert (e.value.key, e.value.fields) == (key, fields)


def test_write_all_writes_the_png_html_and_json_it_returns(tmp_path):
    grid = Grid("title", ["L0", "L1"], ["H0", "H1", "H2"], [[1.0, 0.5, 0.0], [-0.25, 0.0, 0.75]])
    paths = write_all(grid, tmp_path / "new" / "dir", "patch")
    folder = tmp_path / "new" / "dir"
    assert paths == [folder / "patch.png", folder / "patch.html", folder / "patch.json"]
    assert paths[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = paths[1].read_text(encoding="utf-8")
    assert "<table" in page and "<th>H0</th><th>H1</th><th>H2</th>" in page
    assert page.count("<tr><th>L0</th>") == page.count("<tr><th>L1</th>") == 1  # each row by its label
    assert json.loads(paths[2].read_text(encoding="utf-8"))["values"] == grid.values
    assert sorted(p.name for p in folder.iterdir()) == ["patch.html", "patch.json", "patch.png"]


def test_the_grid_json_round_trips_every_field():
    grid = Grid("t", ["r"], ["c"], [[0.125]], ["n"], {"clean": 1.5})
    assert json.loads(grid.to_json()) == {
        "title": "t", "rows": ["r"], "columns": ["c"], "values": [[0.125]], "notes": ["n"], "extra": {"clean": 1.5},
    }  # fmt: skip
    assert torch.tensor(json.loads(grid.to_json())["values"]).shape == (1, 1)


def test_the_zero_ablation_loss_starts_at_the_position_it_is_given():
    """zero_ablation_loss(model, tokens, start): the mean loss of predicting tokens[start:] (from the
    positions start − 1 ..), unablated and with each head zeroed, equal to a plain loop by value."""
    torch.manual_seed(3)
    model = build_model(ModelConfig(vocab_size=9, d_model=16, n_heads=2, d_ff=16, n_layers=2, max_len=16)).double()
    tokens = torch.randint(0, 9, (2, 10))  # (B, T)
    start = 4

    def loss(hooks) -> float:
        logits = model.run_with_hooks(tokens[:, :-1], hooks=hooks)  # (B, T−1, V)
        lp = logits[:, start - 1 :].log_softmax(-1)  # (B, T−start, V)
        return float(-lp.gather(-1, tokens[:, start:, None]).mean())

    with torch.no_grad():
        base, ablated = zero_ablation_loss(model, tokens, start)
        assert base == pytest.approx(loss({}), abs=1e-12)
        for layer in range(2):
            for head in range(2):

                def zero(a, name, head=head):
                    a = a.clone()
                    a[:, head] = 0
                    return a

                want = loss({f"blocks.{layer}.attn.z": zero})
                assert float(ablated[layer, head]) == pytest.approx(want, abs=1e-6)


CHECK = {"head", "score", "rise", "base", "median"}  # the fields of the causal check's sentence, either sign


def said(monkeypatch) -> list[tuple[str, dict]]:
    """Every (key, fields) the views say, in order (the words themselves are the catalogue's)."""
    seen: list[tuple[str, dict]] = []
    real = causal_views.t
    monkeypatch.setattr(causal_views, "t", lambda key, **f: seen.append((key, f)) or real(key, **f))
    return seen


def test_heads_reports_chance_and_finds_no_induction_head_in_noise(monkeypatch):
    """Issue 44: random weights score at chance; the view states chance (a head attending evenly to
    the keys it sees, computed on the very tokens) and says no induction head was found."""
    from glassformer.causal.detectors import repeated_tokens

    torch.manual_seed(0)
    model = build_model(ModelConfig(vocab_size=30, d_model=16, n_heads=2, d_ff=16, n_layers=2, max_len=40)).eval()
    seen = said(monkeypatch)
    grid = heads_view(model, 12, 4, 0)
    tokens = repeated_tokens(30, 12, 4, 0)  # (4, 24)
    # an even causal head: row i spreads 1/(i + 1) over keys 0..i; its score: the share on induction cells
    T = tokens.shape[1]
    even = []
    for row in tokens.tolist():
        cells = [sum(1 for j in range(1, i + 1) if row[j - 1] == row[i] and j - 1 < i) for i in range(T)]
        even.append(sum(c / (i + 1) for i, c in enumerate(cells)) / T)
    assert grid.extra["chance"] == pytest.approx(sum(even) / len(even), abs=1e-12)
    assert grid.extra["top"] is None and max(r[2] for r in grid.values) < grid.extra["bar"]
    [chance] = [f for _, f in seen if "chance" in f]  # chance, a perfect head and the bar are said
    assert chance == {"chance": grid.extra["chance"], "perfect": chance["perfect"], "bar": grid.extra["bar"]}
    [none] = [f for _, f in seen if set(f) == {"head", "score", "bar"}]  # no induction head: the best is named
    assert none["score"] == pytest.approx(max(r[2] for r in grid.values), abs=1e-6) and none["bar"] == grid.extra["bar"]
    assert not [f for _, f in seen if set(f) == CHECK]  # nothing to check causally


def test_heads_names_the_planted_induction_head_and_words_the_sign_of_the_change(monkeypatch):
    from glassformer.causal.ground_truth import planted_induction_model

    seen = said(monkeypatch)
    grid = heads_view(planted_induction_model(), 8, 8, 0)
    assert grid.extra["top"] == "L1H2" and grid.extra["rise"] > 0
    [(raises, check)] = [(k, f) for k, f in seen if set(f) == CHECK]
    assert check["head"] == "L1H2" and check["rise"] == pytest.approx(grid.extra["rise"])
    # a head whose zeroing lowers the loss: said as lowered by a positive amount, never raised by a negative one
    base, ablated = zero_ablation_loss(planted_induction_model(), causal_views._repeated(16, 8, 8, 0), 8)
    ablated[1, 2] = base - 0.25
    monkeypatch.setattr(causal_views, "zero_ablation_loss", lambda *a: (base, ablated))
    seen.clear()
    heads_view(planted_induction_model(), 8, 8, 0)
    [(lowers, check)] = [(k, f) for k, f in seen if set(f) == CHECK]
    assert lowers != raises and check["rise"] == pytest.approx(0.25)  # its own sentence, a positive amount


def test_a_grid_holding_nan_is_written_as_json_with_null(tmp_path):
    """JSON the package writes is JSON (files.json_text): a cell that is NaN or infinite is null, never
    a bare `NaN` (degenerate prompts are refused before a grid is made; this is the last guard)."""
    grid = Grid("t", ["r"], ["c", "d"], [[float("nan"), 0.5]], extra={"gap": float("inf")})
    assert strict_json(grid.to_json())["values"] == [[None, 0.5]]
    write_all(grid, tmp_path / "out", "patch")
    written = strict_json((tmp_path / "out" / "patch.json").read_text(encoding="utf-8"))
    assert written["values"] == [[None, 0.5]] and written["extra"] == {"gap": None} and written["rows"] == ["r"]


@pytest.mark.parametrize(
    ("clean", "corrupt", "key"),
    [
        (2.0, 2.5, "cview.gap.inverted"),  # the corruption raised the answer's lead
        (2.0, 2.0, "cview.gap.inverted"),  # no gap
        (float("nan"), 0.0, "cview.gap.inverted"),
        (0.05, 0.0, "cview.gap.small"),  # under 0.1 nats: the unit of a logit difference
        (8.0, 7.5, "cview.gap.small"),  # under a tenth of the larger value
        (0.2, 0.05, None),
        (8.0, -3.0, None),
    ],
)
def test_a_gap_too_small_or_inverted_to_normalise_by_is_refused(clean, corrupt, key):
    assert causal_views.gap_floor(8.0, 7.5) == pytest.approx(0.8) and causal_views.gap_floor(0.05, 0) == 0.1
    if key is None:
        causal_views.check_gap(clean, corrupt)
        return
    with pytest.raises(UsageError) as e:
        causal_views.check_gap(clean, corrupt)
    assert e.value.key == key and e.value.fields["clean"] is clean and e.value.fields["corrupt"] == corrupt


def planted_view(monkeypatch, by: str):
    from glassformer.causal.ground_truth import planted_induction_model, planted_prompts

    model = planted_induction_model()
    clean, corrupt = planted_prompts(0)  # (1, 16) each: [r, r] and [r', r]
    tok = CharTokenizer([chr(97 + i) for i in range(16)])
    seen = said(monkeypatch)
    answer, wrong = int(clean[0, 8]), int(corrupt[0, 0])  # r[0] follows the last token r[n − 1] in [r, r]
    return causal_views.patch_view(model, tok, clean, corrupt, answer, wrong, by), seen


def test_the_patch_view_states_its_gap_and_what_values_outside_0_1_mean(monkeypatch):
    grid, seen = planted_view(monkeypatch, "head")
    assert grid.extra["gap"] == pytest.approx(grid.extra["clean"] - grid.extra["corrupt"]) and grid.extra["gap"] > 0
    assert grid.extra["gap_floor"] == causal_views.gap_floor(grid.extra["clean"], grid.extra["corrupt"])
    from glassformer.messages import t

    [(key, scale)] = [(k, f) for k, f in seen if "gap" in f]
    assert scale == {"clean": grid.extra["clean"], "corrupt": grid.extra["corrupt"], "gap": grid.extra["gap"]}
    [meaning] = [n for n in grid.notes if n != t(key, **scale)]  # two notes: the scale, and what 0 and 1 mean
    assert len(grid.notes) == 2 and meaning in {t(k) for k, f in seen if not f}
    assert json.loads(grid.to_json())["extra"]["gap"] == grid.extra["gap"]


def test_the_attribution_column_is_a_contribution_that_sums_to_the_logit_difference(monkeypatch):
    """Issue 44: the column said "share" over numbers that are logit contributions (they sum to the
    logit difference, less the bias, and may be negative or above it)."""
    from glassformer.causal.ground_truth import planted_induction_model, planted_prompts

    clean, corrupt = planted_prompts(0)
    seen = said(monkeypatch)
    tok = CharTokenizer([chr(97 + i) for i in range(16)])
    grid = causal_views.attribution_view(planted_induction_model(), tok, clean, int(clean[0, 8]), int(corrupt[0, 0]))
    assert [k for k, _ in seen if k == "contribution"] == ["contribution"]
    assert sum(v for (v,) in grid.values) == pytest.approx(grid.extra["logit_diff"], abs=1e-5)


def test_the_png_and_html_carry_the_gap_and_the_legend(monkeypatch, tmp_path):
    """Issue 44: the picture said "clean = 1, corrupted = 0" and nothing of the gap; its notes (the
    gap, the legend) are now written under the heatmap, as the HTML page shows them."""
    from matplotlib.figure import Figure

    grid, _ = planted_view(monkeypatch, "position")
    figs = []
    real = Figure.savefig
    monkeypatch.setattr(Figure, "savefig", lambda fig, *a, **k: (figs.append(fig), real(fig, *a, **k))[1])
    causal_views.grid_png(grid, tmp_path / "p.png")
    shown = figs[0]._supxlabel.get_text()
    assert " ".join(shown.split()) == " ".join(" ".join(grid.notes).split())
    page = causal_views.grid_html(grid, tmp_path / "p.html").read_text(encoding="utf-8")
    from glassformer.inspect.display import esc

    assert all(f"<p>{esc(note)}</p>" in page for note in grid.notes)


def test_the_text_table_lines_up_chinese_column_names_by_terminal_columns():
    from glassformer.messages import columns

    grid = Grid("t", ["L0H0", "L1H1"], ["前一词元", "重复词元", "归纳"], [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]])
    head, *rows = causal_views.text_table(grid).splitlines()[1:3]
    assert columns(head) == columns(rows[0])  # every column as wide in the header as in the rows
    assert head.split() == grid.columns  # names kept apart by spaces
