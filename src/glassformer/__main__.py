"""`python -m glassformer ...` is the `glassformer` command (also how torchrun starts it)."""

import sys

from glassformer.cli import main

code = main()
if "glassformer.train.distributed" in sys.modules:  # a run that trained (perhaps a torchrun worker): its own exit
    from glassformer.train.distributed import exit_process

    exit_process(code)
sys.exit(code)
