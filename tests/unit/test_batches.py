"""get_batch: targets are inputs shifted by one, rows are real windows of the data, seeds reproduce."""

import numpy as np
import pytest
import torch

from glassformer.text.batches import get_batch


@pytest.fixture
def memmap(tmp_path):
    """A prepared-style id file: uint16 on disk, opened read-only, values that identify their position."""
    ids = (np.arange(1000) * 7 % 65521).astype(np.uint16)  # (1000,) distinct values: a value names its index
    ids.tofile(tmp_path / "train.bin")
    return np.memmap(tmp_path / "train.bin", dtype=np.uint16, mode="r")


def test_shapes_dtype_and_shift(memmap):
    x, y = get_batch(memmap, batch_size=8, seq_len=16, generator=torch.Generator().manual_seed(0))
    assert x.shape == y.shape == (8, 16)
    assert x.dtype == y.dtype == torch.int64
    assert torch.equal(y[:, :-1], x[:, 1:])


def test_rows_are_windows_of_the_data(memmap):
    x, y = get_batch(memmap, batch_size=32, seq_len=10, generator=torch.Generator().manual_seed(1))
    where = {int(v): i for i, v in enumerate(memmap)}  # value → its index (values are distinct)
    for row_x, row_y in zip(x, y, strict=False):
        s = where[int(row_x[0])]
        assert row_x.tolist() == memmap[s : s + 10].tolist()
        assert row_y.tolist() == memmap[s + 1 : s + 11].tolist()


def test_same_seed_same_batch_and_generator_advances(memmap):
    a = get_batch(memmap, 4, 8, torch.Generator().manual_seed(123))
    b = get_batch(memmap, 4, 8, torch.Generator().manual_seed(123))
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
    g = torch.Generator().manual_seed(123)
    first, second = get_batch(memmap, 4, 8, g), get_batch(memmap, 4, 8, g)
    assert not torch.equal(first[0], second[0])  # the generator moves on between calls


def test_every_start_is_reachable():
    data = np.arange(6, dtype=np.uint16)  # seq_len 4 → starts 0 and 1 only; 1 needs the last token
    x, y = get_batch(data, 200, 4, torch.Generator().manual_seed(0))
    assert sorted(set(x[:, 0].tolist())) == [0, 1]
    assert int(y.max()) == 5


def test_too_short():
    data = np.arange(8, dtype=np.uint16)
    x, y = get_batch(data, 2, 7, torch.Generator())  # exactly seq_len + 1 tokens is enough:
    assert x.tolist() == [list(range(7))] * 2 and y.tolist() == [list(range(1, 8))] * 2  # one window fits
    with pytest.raises(ValueError, match="seq_len \\+ 1 = 9"):
        get_batch(data, 2, 8, torch.Generator())


def test_the_refusal_whole_and_the_tensors_contiguous_on_the_asked_device():
    data = np.arange(8, dtype=np.uint16)
    with pytest.raises(ValueError) as caught:  # a UsageError
        get_batch(data, 2, 8, torch.Generator())
    assert (caught.value.key, caught.value.fields) == ("error.batch.short", {"n": 8, "need": 9})
    x, y = get_batch(data, 3, 4, torch.Generator().manual_seed(0), device=torch.device("cpu"))
    assert x.is_contiguous() and y.is_contiguous() and x.device.type == y.device.type == "cpu"
    assert x.stride() == y.stride() == (4, 1)
