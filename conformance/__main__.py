"""``python -m conformance``: the ``cordspec`` command line."""

from conformance.cli import main

raise SystemExit(main())
