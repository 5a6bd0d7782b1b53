"""python -m hipkit: the hipkit command."""

import sys

from .cli import main

sys.exit(main())
