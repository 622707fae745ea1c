"""`python -m glassformer ...` is the `glassformer` command (also how torchrun starts it)."""

import sys

from glassformer.exercises.sandbox import prestart_for

prestart_for(sys.argv[1:])  # `exercise check|grade`: the grader's worker imports torch while we do

from glassformer.cli import main  # noqa: E402 - after the worker's start, which must not wait for torch
from glassformer.train.distributed import exit_process  # noqa: E402

exit_process(main())
