"""``python -m conformance``: the ``cordspec`` command line."""

from conformance.run.cli import main

raise SystemExit(main())
