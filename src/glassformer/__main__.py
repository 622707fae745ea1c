"""`python -m glassformer ...` is the `glassformer` command (also how torchrun starts it)."""

from glassformer.cli import main
from glassformer.train.distributed import exit_process

exit_process(main())
