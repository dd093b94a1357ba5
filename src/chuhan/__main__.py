"""``python -m chuhan``: the command line."""

import sys

from chuhan.cli import main

sys.exit(main())
