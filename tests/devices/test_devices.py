"""Which devices glassformer runs on, and the one sentence a missing one gets (devices.py): what
this machine offers, each refusal by its code and fields, on machines the suite does not run on
too (CUDA and MPS answered by stand-ins: torch asked what it has, never a real GPU)."""

from __future__ import annotations

import pytest
import torch

from glassformer import devices
from glassformer.errors import DeviceUnavailable, UsageError
from glassformer.messages import t


def test_available_lists_every_gpu_after_the_cpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    assert devices.available() == ["cpu", "cuda:0", "cuda:1", "mps"]


def test_a_name_that_is_no_device_is_refused_naming_what_this_machine_has():
    with pytest.raises(UsageError) as e:
        devices.check_device("tpu", "--device")
    assert (e.value.code, e.value.fields) == (
        "device.unknown",
        {"flag": "--device", "name": "tpu", "here": ", ".join(devices.available())},
    )


@pytest.mark.parametrize(
    "built, why", [(None, "this torch was built without CUDA"), ("12.4", "no CUDA GPU or driver was found")]
)
def test_cuda_without_a_gpu_says_whether_torch_or_the_machine_lacks_it(monkeypatch, built, why):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.version, "cuda", built)
    with pytest.raises(DeviceUnavailable) as e:
        devices.check_device("cuda:0", "--device")
    fields = {"flag": "--device", "name": "cuda:0", "why": t(why), "here": ", ".join(devices.available())}
    assert (e.value.code, e.value.fields) == ("device.no_cuda", fields)


def test_mps_where_torch_has_none_is_refused_naming_the_way_out(monkeypatch):
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    with pytest.raises(DeviceUnavailable) as e:
        devices.check_device("mps", "--device")
    fields = {"flag": "--device", "name": "mps", "here": ", ".join(devices.available())}
    assert (e.value.code, e.value.fields) == ("device.no_mps", fields)


def test_a_timing_on_a_gpu_waits_for_its_work_and_on_the_cpu_does_not(monkeypatch):
    synced = []
    monkeypatch.setattr(torch.cuda, "synchronize", lambda: synced.append(True))
    devices._sync("cpu")
    assert synced == []
    devices._sync("cuda:0")
    assert synced == [True]
