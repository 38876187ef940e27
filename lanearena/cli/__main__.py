"""`python -m lanearena.cli`: the same as the `lanearena` command."""

import sys

from lanearena.cli import main

sys.exit(main())
