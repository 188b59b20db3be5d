"""The suite's test classes and fixtures, importable into your own test tree.

Three lines run the whole suite against your implementation under plain ``pytest``::

    from conformance.testing import *  # noqa: F403  (every suite class)
    from conformance.testing import implementation_fixture
    impl = implementation_fixture("mypackage.module")  # or an Implementation, or a function

Subclass a class (``class TestMyWriting(TestWriting): ...``) to add or override tests. Each class
brings the fixtures it needs; ``impl`` and ``blobs`` come from cordspec's pytest plugin, which
registers them in the run that imports the suite (and acts only on the suite's tests there). The
clause report names the implementation your ``impl`` gave.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable

import pytest

from .adapters import load_implementation
from .api import Implementation

pytest.register_assert_rewrite("conformance.suite")  # plain asserts explain themselves there too


def _suite_classes() -> dict[str, type]:
    """Every ``Test*`` class defined in a suite module, by name; a clash is a bug of the suite."""
    found: dict[str, type] = {}
    suite = importlib.import_module(f"{__package__}.suite")  # after register_assert_rewrite
    for info in sorted(pkgutil.iter_modules(suite.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{suite.__name__}.{info.name}")
        for name, value in vars(module).items():
            if name.startswith("Test") and isinstance(value, type):
                if value.__module__ != module.__name__:
                    continue  # imported from elsewhere, not defined here
                if name in found:
                    raise RuntimeError(
                        f"two suite classes are named {name}: in {found[name].__module__} "
                        f"and {module.__name__}; `import *` would keep only one"
                    )
                found[name] = value
    return found


SUITE_CLASSES = _suite_classes()
"""The suite's test classes by name."""
globals().update(SUITE_CLASSES)

Source = str | Implementation | Callable[[], Implementation]


def implementation_fixture(source: Source) -> Callable[[], Implementation]:
    """A session-scoped ``impl`` fixture for ``source``: an ``--impl`` string (``reference``,
    ``package.module[:object]``), an :class:`Implementation`, or a function returning one."""

    @pytest.fixture(scope="session", name="impl")
    def impl() -> Implementation:
        if isinstance(source, Implementation):
            return source
        made = load_implementation(source) if isinstance(source, str) else source()
        if not isinstance(made, Implementation):
            raise TypeError(f"{source!r} gave {type(made).__name__}, not an Implementation")
        return made

    return impl


__all__ = [*SUITE_CLASSES]  # `import *` gives the classes; import implementation_fixture by name
