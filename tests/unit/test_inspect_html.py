"""The attention viewer's page (html.py) checked whole: the data the page's script reads, number for
number and label for label."""

import json
import re

import pytest
import torch

from glassformer.config import ModelConfig
from glassformer.inspect.attention_maps import attention_maps
from glassformer.inspect.html import CSS, JS, attention_html, attention_page
from glassformer.models import GPT

CFG = ModelConfig(vocab_size=7, d_model=4, n_heads=2, d_ff=6, n_layers=1, max_len=5)


def page_data(page: str) -> dict:
    return json.loads(re.search(r"<script>const DATA = (.*);</script>", page).group(1))


def test_the_page_carries_every_weight_rounded_to_4_places_masked_cells_as_null():
    """L=1, H=2, T_q=3, T_k=4 (all different, so no axis can stand in for another)."""
    W = torch.arange(24, dtype=torch.float64).reshape(1, 2, 3, 4) / 7 + 0.000041  # (L, H, T_q, T_k)
    hidden = torch.zeros(1, 2, 3, 4, dtype=torch.bool)
    hidden[0, 1, 0, 3] = True  # one masked cell
    page = attention_page(W, hidden, ["你", "</script>", "a&b", "http://x"])
    data = page_data(page)
    expected = [[[[round(float(W[0, h, i, j]), 4) for j in range(4)] for i in range(3)] for h in range(2)]]
    expected[0][1][0][3] = None
    assert data == {"tokens": ["你", "</script>", "a&b", "http://x"], "weights": expected}
    assert data["weights"][0][0][0][1] == 0.1429  # 1/7 + 0.000041 = 0.142898...: 4 places, not 5
    script = re.search(r"<script>const DATA = (.*);</script>", page).group(1)
    assert "你" in script and "\\u4f60" not in script  # Chinese written as itself
    assert '"</script>"' not in script and "\\u003c\\/script\\u003e" in script and "a\\u0026b" in script
    assert "http:\\/\\/x" in script  # no URL anywhere in the file
    assert page.startswith('<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>glassformer attention</title>')
    assert f"<style>{CSS}</style>" in page and f"<script>{JS}</script>" in page


def test_the_page_names_positions_when_there_are_no_labels_and_counts_keys_for_them():
    W = torch.full((1, 1, 2, 3), 1 / 3)  # (L, H, T_q, T_k)
    data = page_data(attention_page(W, torch.zeros(1, 1, 2, 3, dtype=torch.bool), None))
    assert data["tokens"] == ["0", "1", "2"] and data["weights"] == [[[[0.3333] * 3] * 2]]
    with pytest.raises(ValueError, match="2 labels for 3 tokens"):
        attention_page(W, torch.zeros(1, 1, 2, 3, dtype=torch.bool), ["a", "b"])


def test_attention_html_writes_the_page_of_that_model_and_those_labels_into_new_folders(tmp_path):
    torch.manual_seed(0)
    model = GPT(CFG).eval()
    ids = torch.tensor([[1, 2, 3]])
    labels = ["你", "好", "!"]
    path = attention_html(model, ids, labels, str(tmp_path / "a" / "b" / "view.html"))
    assert path == tmp_path / "a" / "b" / "view.html"
    assert path.read_bytes().decode("utf-8") == attention_page(*attention_maps(model, ids), labels)
    assert attention_html(model, ids, labels, path).read_text(encoding="utf-8") == path.read_text(encoding="utf-8")
