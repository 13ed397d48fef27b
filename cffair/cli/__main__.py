"""``python -m cffair.cli``: the same as the ``cffair`` console script."""

from cffair.cli import main

raise SystemExit(main())
