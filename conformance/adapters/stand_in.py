"""A stand-in for the ``triton`` package, present only while one module is imported.

``executorch.backends.cuda.cuda_backend`` imports ExecuTorch's Triton kernels, which import
``triton`` at module level to decorate functions (``@triton.jit``) and name types
(``tl.constexpr``). Triton needs a GPU toolchain and is not installed here; the Python code the
suite drives (``load_weights_blob``, ``materialize_weights_blob``, the ``low_memory_mode`` flag)
never calls a kernel. The stand-in lets the decorators and names evaluate, and is removed from
``sys.modules`` right after the import, so nothing imported later sees a ``triton``. Whatever torch
imports that itself probes for triton is imported first, against the real environment, so torch's
own answer ("no triton") is unchanged. What the suite measures (files, reads, digests, flags) runs
after the stand-in is gone and never reaches it.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from collections.abc import Sequence

__all__ = ["NAMES", "import_with_stand_in"]

NAMES = (
    "triton",
    "triton.language",
    "triton.testing",
    "triton.compiler",
    "triton.compiler.compiler",
    "triton.runtime",
    "triton.runtime.jit",
)
"""The modules of triton that ExecuTorch's kernels import."""


class _Anything:
    """Any attribute, call, subscript or decorator of triton: a decorated function is returned
    unchanged, anything else gives another stand-in."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> _Anything:
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _Anything(f"{self._name}.{attr}")

    def __call__(self, *args: object, **kwargs: object) -> object:
        if len(args) == 1 and not kwargs and isinstance(args[0], (types.FunctionType, type)):
            return args[0]
        return _Anything(f"{self._name}()")

    def __getitem__(self, item: object) -> _Anything:
        return _Anything(f"{self._name}[]")

    def __repr__(self) -> str:
        return f"<triton stand-in {self._name}>"


class _Module(types.ModuleType):
    def __getattr__(self, attr: str) -> _Anything:
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _Anything(f"{self.__name__}.{attr}")


def import_with_stand_in(name: str, first: Sequence[str] = ()) -> types.ModuleType:
    """Import ``name`` with the stand-in in ``sys.modules``, after importing ``first`` without it;
    where a real triton is installed, import it plainly (no stand-in is used)."""
    if importlib.util.find_spec("triton") is not None:
        return importlib.import_module(name)
    for before in first:
        importlib.import_module(before)
    modules = {n: _Module(n) for n in NAMES if n not in sys.modules}
    for full, module in modules.items():
        module.__path__ = []
        parent, _, child = full.rpartition(".")
        if parent in modules:
            setattr(modules[parent], child, module)
    sys.modules.update(modules)
    try:
        return importlib.import_module(name)
    finally:
        for full, module in modules.items():
            if sys.modules.get(full) is module:
                del sys.modules[full]
