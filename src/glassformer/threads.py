"""How many CPU threads torch may use: one rule for every command.

Every verb that computes (train, sample, demo, lesson, trace, attention, grads, params, lab,
explore) takes `--threads N` with the same default, and runs its work inside `using_threads(N)`.

Why one thread by default: glassformer's models are small (matrices of a few hundred numbers a
side). Splitting each product across threads costs synchronisation; on a busy 2-core machine two
spinning threads made `sample` take 88 s instead of 2.8 s. On an idle machine a second thread gains
~25% for the `baby` training shape, so `--threads 0` (torch's own choice: every core) remains one
flag away.
"""

from __future__ import annotations

import contextlib

import torch

from glassformer.config import MAX_THREADS
from glassformer.errors import UsageError

DEFAULT_THREADS = 1  # see the module docstring


def check_threads(n: int) -> int:
    if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= MAX_THREADS:
        raise UsageError("error.threads", most=MAX_THREADS, value=n)
    return n


@contextlib.contextmanager
def using_threads(n: int = DEFAULT_THREADS):
    """Run a block with n intra-op threads (0: leave torch's setting), then restore the previous one."""
    check_threads(n)
    previous = torch.get_num_threads()
    if n:
        torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(previous)
