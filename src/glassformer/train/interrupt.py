"""Ctrl-C during training: finish the step, then stop cleanly (and checkpoint, if there is a run)."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading

from glassformer.messages import t


@contextlib.contextmanager
def sigint_as_flag():
    """Turn the first Ctrl-C into a flag the loop checks between steps, so a checkpoint is never
    taken from a half-applied optimizer step; a second Ctrl-C interrupts at once."""
    hits: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield lambda: False  # signal handlers can only be set from the main thread
        return

    def handler(signum, frame):
        hits.append(signum)
        signal.signal(signal.SIGINT, previous)
        print("\n" + t("train.ctrl_c"), file=sys.stderr)

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield lambda: bool(hits)
    finally:
        signal.signal(signal.SIGINT, previous)
