"""`python -m glassformer ...` is the `glassformer` command (also how torchrun starts it)."""

import sys

from glassformer.exercises.sandbox import prestart_for

prestart_for(sys.argv[1:])  # `exercise check|grade`: the grader's worker imports torch while we do

from glassformer.cli import main  # noqa: E402 - after the worker's start, which must not wait for torch

code = main()
if "glassformer.train.distributed" in sys.modules:  # a run that trained (perhaps a torchrun worker): its own exit
    from glassformer.train.distributed import exit_process

    exit_process(code)
sys.exit(code)
