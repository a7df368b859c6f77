"""``python -m simsuite.cli``: the ``simsuite`` command."""

import sys

from . import main

sys.exit(main())
