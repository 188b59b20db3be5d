"""An implementation's five classes put in place of ExecuTorch's, in every module holding them.

ExecuTorch's modules import the classes by name (``from ..._cord import Cord``), so replacing them
in the module that defines them is not enough: every loaded module of ExecuTorch's (by name, or by
file below the package, like the test modules pytest imports under their own names) that holds one
of them as an attribute gets the implementation's instead, and gets its own back afterwards.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType

from ..api import Implementation

__all__ = ["CLASS_NAMES", "Swap", "classes_of", "find_holders", "substituted"]

CLASS_NAMES = ("Cord", "FileBackedData", "NamedDataStore", "NamedDataStoreOutput", "DataEntry")
"""The classes of the layer, as :class:`conformance.api.Implementation` names them."""


@dataclass(frozen=True)
class Swap:
    """One attribute of one module that held one of ExecuTorch's classes."""

    module: str
    attribute: str
    class_name: str


def classes_of(impl: Implementation) -> dict[str, type]:
    """The five classes of ``impl`` by name."""
    found: dict[str, type] = {}
    for name in CLASS_NAMES:
        value = getattr(impl, name)
        if not isinstance(value, type):
            raise TypeError(f"{impl.name}.{name} is {value!r}, not a class")
        found[name] = value
    return found


def _is_package_module(name: str, module: ModuleType, package: str, root: str | None) -> bool:
    if name == package or name.startswith(package + "."):
        return True
    where = getattr(module, "__file__", None)
    return root is not None and isinstance(where, str) and where.startswith(root + os.sep)


def find_holders(
    originals: Mapping[str, type],
    modules: Mapping[str, ModuleType],
    package: str = "executorch",
    root: str | None = None,
) -> list[Swap]:
    """Every (module, attribute) among ``package``'s modules (named ``package.*``, or loaded from a
    file below ``root``) whose value is one of ``originals``, sorted."""
    by_identity = {id(cls): name for name, cls in originals.items()}
    swaps = []
    for module_name, module in list(modules.items()):
        if not isinstance(module, ModuleType):
            continue  # sys.modules may hold placeholders (None) for failed imports
        if not _is_package_module(module_name, module, package, root):
            continue
        for attribute, value in list(vars(module).items()):
            if isinstance(value, type) and id(value) in by_identity:
                swaps.append(Swap(module_name, attribute, by_identity[id(value)]))
    return sorted(swaps, key=lambda s: (s.module, s.attribute))


@contextmanager
def substituted(
    originals: Mapping[str, type],
    replacements: Mapping[str, type],
    modules: Mapping[str, ModuleType] | None = None,
    package: str = "executorch",
    root: str | None = None,
) -> Iterator[list[Swap]]:
    """Within the block, ``replacements[name]`` is where ``originals[name]`` was in every module of
    ``package`` (default: the loaded ones, ``sys.modules``); the originals are back afterwards, also
    when the block raises. Yields the swaps made. Identical classes are left as they are."""
    missing = sorted(set(originals) - set(replacements))
    if missing:
        raise ValueError(f"no replacement for {', '.join(missing)}")
    table = sys.modules if modules is None else modules
    swaps = [
        s
        for s in find_holders(originals, table, package, root)
        if replacements[s.class_name] is not originals[s.class_name]
    ]
    done: list[Swap] = []
    try:
        for swap in swaps:
            setattr(table[swap.module], swap.attribute, replacements[swap.class_name])
            done.append(swap)
        yield swaps
    finally:
        for swap in reversed(done):
            setattr(table[swap.module], swap.attribute, originals[swap.class_name])
