"""python -m hipkit.cli: the hipkit command."""

import sys

from . import main

sys.exit(main())
