"""``python -m cffair``: the same as the ``cffair`` command."""

from cffair.cli import main

raise SystemExit(main())
