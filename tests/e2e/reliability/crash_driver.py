"""Run `glassformer` with a fault planted, in its own process (the tests' fault injector; nothing of
it is in glassformer itself):

    python crash_driver.py MODE N -- glassformer arguments ...

    step             SIGKILL right after optimizer step N
    between-renames  SIGKILL after the N-th checkpoint's weights are renamed into place, before its
                     training state is (the one instant the pair on disk disagrees)
    temp-write       SIGKILL halfway through writing the N-th checkpoint's training state
    hang             after optimizer step N, print HANGING and sleep (a trainer that holds the lock)
    slow             after every optimizer step, print STEP <step> and wait 0.5 s (time to send a signal)
    fill             after optimizer step N, fill the run directory's disk to its last few KB
    none             no fault
"""

from __future__ import annotations

import io
import os
import signal
import sys
import time

import torch

import glassformer.train.loop as loop
from glassformer.cli import main
from glassformer.train.checkpoint import MODEL_FILE


def die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def plant(mode: str, n: int) -> None:
    if mode in ("step", "hang"):
        real_step = loop.Trainer.train_step

        def train_step(self):
            real_step(self)
            if self.step == n and mode == "step":
                die()
            if self.step == n:
                print("HANGING", flush=True)
                time.sleep(600)

        loop.Trainer.train_step = train_step
    elif mode == "slow":
        real_step = loop.Trainer.train_step

        def train_step(self):
            real_step(self)
            print(f"STEP {self.step}", flush=True)
            time.sleep(0.5)

        loop.Trainer.train_step = train_step
    elif mode == "fill":
        real_step = loop.Trainer.train_step

        def train_step(self):
            real_step(self)
            if self.step == n:
                with open(self.run_dir / "filler", "wb", buffering=0) as f:
                    try:
                        while True:
                            f.write(b"\x00" * 4096)
                    except OSError:
                        pass  # the disk is full: exactly what this mode wants

        loop.Trainer.train_step = train_step
    elif mode == "between-renames":
        real_replace, seen = os.replace, [0]

        def replace(src, dst, **kwargs):
            real_replace(src, dst, **kwargs)
            if str(dst).endswith(MODEL_FILE):
                seen[0] += 1
                if seen[0] == n:
                    die()

        os.replace = replace
    elif mode == "temp-write":
        real_save, seen = torch.save, [0]

        def save(obj, f, *args, **kwargs):
            seen[0] += 1
            if seen[0] == n:
                buffer = io.BytesIO()
                real_save(obj, buffer)
                with open(f, "wb") as out:
                    out.write(buffer.getvalue()[: len(buffer.getvalue()) // 2])
                die()
            return real_save(obj, f, *args, **kwargs)

        torch.save = save
    elif mode != "none":
        raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    mode, n, dashes, *argv = sys.argv[1:]
    assert dashes == "--", __doc__
    plant(mode, int(n))
    sys.exit(main(argv))
