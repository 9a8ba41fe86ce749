"""``python -m memsuite``: the ``memsuite`` command."""

import sys

from memsuite.eval.cli import main

sys.exit(main())
