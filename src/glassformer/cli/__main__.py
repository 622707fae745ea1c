import sys

from glassformer.cli import main

sys.exit(main())
