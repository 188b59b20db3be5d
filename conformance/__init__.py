"""cordspec's conformance suite, by audience.

- The implementer's door: :mod:`conformance.api` (the typed interface, :class:`Implementation`) and
  :mod:`conformance.adapters` (the built-in adapters and the loader of ``--impl``).
- The runner: :mod:`conformance.run` (the ``cordspec`` CLI, the pytest plugin, the report, the
  deviations file and the parser of SPEC.md).
- The harness: :mod:`conformance.harness` (helpers shared by the tests, I/O and memory counters,
  child processes, the executable model, the vectors, the Hypothesis profiles).
- The tests: :mod:`conformance.suite`.
"""

from conformance.api import Capability, Implementation, ImplementationError
from conformance.run.spec import Clause, Spec, SpecError, load_spec

__all__ = [
    "Capability",
    "Clause",
    "Implementation",
    "ImplementationError",
    "Spec",
    "SpecError",
    "load_spec",
]
