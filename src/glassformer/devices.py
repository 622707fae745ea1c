"""Which device a model runs on: checked before anything is built, so a missing GPU is one clear
sentence ("this machine has no CUDA GPU; available: cpu") instead of torch's AssertionError from
deep inside `.to("cuda")`.

glassformer runs on three kinds of device: cpu, cuda (cuda:N for the N-th GPU) and mps (Apple).
"""

from __future__ import annotations

import torch

from glassformer.errors import DeviceUnavailable, UsageError
from glassformer.messages import t

KINDS = ("cpu", "cuda", "mps")


def available() -> list[str]:
    """The devices this machine offers, e.g. ['cpu', 'cuda:0', 'cuda:1']."""
    found = ["cpu"]
    if torch.cuda.is_available():
        found += [f"cuda:{i}" for i in range(torch.cuda.device_count())]
    if torch.backends.mps.is_available():
        found.append("mps")
    return found


def check_device(name: str, flag: str = "--device") -> str:
    """Return `name` if this machine has that device; else an error naming what it does have."""
    here = ", ".join(available())
    try:
        device = torch.device(name)
    except (RuntimeError, TypeError, ValueError):
        device = None
    if device is None or device.type not in KINDS:
        raise UsageError("error.device.unknown", flag=flag, name=name, here=here)
    if device.type == "cuda":
        if not torch.cuda.is_available():
            why = t("error.device.no_cuda_build" if torch.version.cuda is None else "error.device.no_gpu")
            raise DeviceUnavailable("error.device.no_cuda", flag=flag, name=name, why=why, here=here)
        count = torch.cuda.device_count()
        if device.index is not None and device.index >= count:
            raise DeviceUnavailable("error.device.index", flag=flag, name=name, count=count, here=here)
    if device.type == "mps" and not torch.backends.mps.is_available():
        raise DeviceUnavailable("error.device.no_mps", flag=flag, name=name, here=here)
    return name
