"""What torchrun starts in tests/e2e/distributed: `glassformer train` for 10 steps, then `train --resume`
to step 20 in the same processes — a new job and a resumed one in one launch (each launch costs a
torch import per process). argv: RUN CACHE, then the train options. Each rank writes what it said
(each sentence's fields and its words) to said.RANK.json beside RUN, so the test finds a sentence by its
fields and counts its words in what the job printed."""

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # tests/: helpers.said

from helpers import said

from glassformer.cli import main
from glassformer.messages import t
from glassformer.train.distributed import exit_process

run, cache, *options = sys.argv[1:]
with said() as heard:
    code = main(["train", "--out", run, "--cache-dir", cache, *options, "--max_steps=10"])
    if code == 0:
        code = main(
            ["train", "--resume", run, "--cache-dir", cache, "--max_steps=20", "--no-progress", "--sample-chars=12"]
        )  # rank 0 alone writes the step-20 sample
told = [{"fields": fields, "words": t(message, **fields)} for message, fields in heard]
Path(run).with_name(f"said.{os.environ['RANK']}.json").write_text(json.dumps(told, default=str), encoding="utf-8")
exit_process(1 if code else 0)  # the processes end as `python -m glassformer` does
