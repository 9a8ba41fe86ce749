"""``python -m memsuite``: the ``memsuite`` command."""

import sys

from memsuite.eval.cli.main import main

sys.exit(main())
