"""A hook that exists but cannot be driven: every use raises, naming the module and the error.

Capability detection must never hide a failure: a backend whose hook is there but whose driver
cannot be built (a helper module missing, a module that fails to import) is given this in place of
the driver, so that the hook's clauses fail with the cause rather than read "not applicable".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NoReturn

from ..api import ImplementationError

__all__ = ["Undrivable"]


class Undrivable:
    """Stands in for a ``Lowering``, ``WeightsHooks`` or ``LowMemoryWeights`` driver: any method
    called raises :class:`ImplementationError` naming ``what`` and the error that stopped it."""

    def __init__(self, what: str, error: BaseException) -> None:
        missing = getattr(error, "name", None)
        module = f" (module {missing!r} is missing)" if isinstance(missing, str) else ""
        self.message = (
            f"{what}: the hook exists but cannot be driven{module}: {type(error).__name__}: {error}"
        )

    def __getattr__(self, name: str) -> Callable[..., NoReturn]:
        if name.startswith("__"):
            raise AttributeError(name)

        def fail(*_args: object, **_kwargs: object) -> NoReturn:
            raise ImplementationError(self.message)

        return fail

    def __repr__(self) -> str:
        return f"<Undrivable: {self.message}>"
