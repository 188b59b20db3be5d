"""Bad values whose own text fails (spec NDS-ADD-9, FBD-INIT-10, NDS-ADD-3).

Each bad argument must get the error its clause promises, naming the value without running its
code: a key, alignment or tag whose ``__repr__`` raises gives the ``TypeError`` of NDS-ADD-5/6, an
alignment of ``-10**5000`` gives NDS-ADD-3's "Alignment must be greater than 0" (not Python's
"Exceeds the limit (4300 digits)"), a path object whose ``__repr__`` raises gives FBD-INIT-5's
``TypeError``. A message of a ten-megabyte value stays short.

Exit status 0 when every error is the promised one; 1 with a message for each that is not. Run
from anywhere: ``python docs/attacks/unformattable_values.py``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from _common import report

from reference import FileBackedData, NamedDataStore


class Leaked(Exception):
    """Raised by the bad value's own methods: the implementation ran its code."""


class Unprintable:
    def __repr__(self) -> str:
        raise Leaked("__repr__ of the bad value was called")

    __str__ = __format__ = __repr__  # type: ignore[assignment]


def expect(what: str, call: Callable[[], object], error: type[Exception], words: str) -> str | None:
    try:
        call()
    except error as exc:
        message = str(exc)
        if words not in message:
            return f"{what}: {error.__name__} without {words!r}: {message[:200]!r}"
        if len(message) > 8192:
            return f"{what}: a message of {len(message)} characters"
        print(f"  {what}: {error.__name__}: {message[:120]}")
        return None
    except Exception as exc:  # the defect: another error than the promised one
        return f"{what}: expected {error.__name__}, got {type(exc).__name__}: {str(exc)[:200]}"
    return f"{what}: accepted"


def main() -> int:
    store = NamedDataStore()
    cases = [
        ("key", lambda: store.add_named_data(Unprintable(), b"x"), TypeError, "Unprintable"),  # type: ignore[arg-type]
        (
            "alignment",
            lambda: store.add_named_data("k", b"x", Unprintable()),
            TypeError,
            "Unprintable",
        ),  # type: ignore[arg-type]
        (
            "tag",
            lambda: store.add_named_data("k", b"x", 1, Unprintable()),
            TypeError,
            "Unprintable",
        ),  # type: ignore[arg-type]
        (
            "alignment -10**5000",
            lambda: store.add_named_data("k", b"x", -(10**5000)),
            ValueError,
            "Alignment must be greater than 0, received",
        ),
        (
            "tag of 10 MB",
            lambda: store.add_named_data("k", b"x", 1, b"t" * 10**7),
            TypeError,
            "bytes",
        ),  # type: ignore[arg-type]
        ("path", lambda: FileBackedData(Unprintable()), TypeError, "Unprintable"),  # type: ignore[arg-type]
        (
            "move_from path",
            lambda: FileBackedData.move_from(Unprintable()),
            TypeError,
            "Unprintable",
        ),  # type: ignore[arg-type]
    ]
    defects = [found for case in cases if (found := expect(*case))]
    held = "every bad value got its promised error, named safely"
    return report("unformattable_values", defects, held)


if __name__ == "__main__":
    sys.exit(main())
