"""`python -m glassformer ...` is the `glassformer` command (also how torchrun starts it)."""

import sys

from glassformer.cli import main

sys.exit(main())
