"""The conformance suite: test classes reaching the implementation only through ``impl``.

Run it with ``cordspec run``, or subclass its classes in your own test tree and override ``impl``.
"""

from ..run.plugin import activate

activate()  # the pytest run that imports the suite gets its markers, fixtures and hooks
