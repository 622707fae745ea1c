"""What torchrun starts in tests/e2e/distributed: `glassformer train` for 10 steps, then `train --resume`
to step 20 in the same processes — a new job and a resumed one in one launch (each launch costs a
torch import per process). argv: RUN CACHE, then the train options."""

import sys

from glassformer.cli import main
from glassformer.train.distributed import exit_process

run, cache, *options = sys.argv[1:]
if main(["train", "--out", run, "--cache-dir", cache, *options, "--max_steps=10"]) != 0:
    exit_process(1)
exit_process(
    main(["train", "--resume", run, "--cache-dir", cache, "--max_steps=20", "--no-progress", "--sample-chars=12"])
)  # rank 0 alone writes the step-20 sample; the processes end as `python -m glassformer` does
