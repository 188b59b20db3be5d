"""Whole classes of input, where one instance hides the rest: modification times at every step the
filesystem keeps, counts of file pieces on both sides of every descriptor cap, each form a path
can take, keys whose own methods lie about what they are, hand-made outputs whose maps list their
keys in any order, and raw outputs that take nothing. Every test of a dimension draws from here,
so that a check which sees only the usual instance (a time a second apart, 10 pieces, an absolute
path, an honest ``str``, a store's own output, a blocking file) is not the only check there is."""

from __future__ import annotations

import contextlib
import io
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

__all__ = [
    "MID_SECOND",
    "MTIME_STEPS",
    "PATH_FORMS",
    "REJECTED",
    "SECOND",
    "STR_METHODS",
    "FullRaw",
    "HandMadeMaps",
    "PathForm",
    "around",
    "claiming",
    "hand_made_maps",
    "kept_mtime_steps",
    "lying_str",
    "lying_strs",
    "names_type",
    "path_forms",
    "restamped",
    "working_directory",
]

# --- modification times --------------------------------------------------------------------------

SECOND = 10**9
MTIME_STEPS = (1, 2, 100, 1_000, 1_000_000, 4_000_000, 100_000_000, SECOND)
"""Steps of a modification time, in ns: one nanosecond (what ``st_mtime_ns`` alone tells, and the
float ``st_mtime`` does not), a microsecond, a millisecond, one clock tick of a Linux kernel without
multigrain timestamps (about 4 ms), and a whole second. Every step below a second stays within the
second of :data:`MID_SECOND`, so that a time kept in whole seconds does not change."""

MID_SECOND = 1_700_000_000 * SECOND + 250_000_000
"""A modification time a quarter into its second: exactly a double's (0.25), so that the float
``st_mtime`` of this time and of this time plus 100 ns are the same number."""


def kept_mtime_steps(directory: Path) -> tuple[int, ...]:
    """The steps of :data:`MTIME_STEPS` that the filesystem of ``directory`` keeps: setting a file's
    time to :data:`MID_SECOND` plus the step reads back that time exactly."""
    probe = directory / ".mtime-probe"
    probe.write_bytes(b"")
    try:
        kept = []
        for step in MTIME_STEPS:
            os.utime(probe, ns=(MID_SECOND, MID_SECOND + step))
            if os.stat(probe).st_mtime_ns == MID_SECOND + step:
                kept.append(step)
        return tuple(kept)
    finally:
        probe.unlink()


def restamped(path: Path, contents: bytes, mtime_ns: int) -> None:
    """Rewrite ``path`` in place with ``contents`` and set its modification time to ``mtime_ns``."""
    with open(path, "r+b") as f:
        f.write(contents)
        f.truncate()
    os.utime(path, ns=(mtime_ns, mtime_ns))


# --- counts on both sides of a cap ----------------------------------------------------------------


def around(*caps: int) -> tuple[int, ...]:
    """One below, at and one above each cap (no count below 1), sorted: a check that covers only
    what fits under a cap shows at the first count above it."""
    return tuple(sorted({n for cap in caps for n in (cap - 1, cap, cap + 1) if n >= 1}))


# --- forms of a path ------------------------------------------------------------------------------


@dataclass(frozen=True)
class PathForm:
    """A way to name a file in a directory ``home`` (``home/sub/<name>``): the text of the path,
    and the directory to be in when it is given."""

    name: str
    spell: Callable[[Path, str], tuple[str, Path]]

    def of(self, home: Path, name: str) -> tuple[str, Path]:
        """The path naming ``home/sub/<name>`` this way, and the working directory it is given
        in (``home/sub`` or ``home/elsewhere`` must exist, as :func:`path_forms` makes them)."""
        return self.spell(home, name)


PATH_FORMS: tuple[PathForm, ...] = (
    PathForm("absolute", lambda h, n: (str(h / "sub" / n), h)),
    PathForm("bare-name", lambda h, n: (n, h / "sub")),
    PathForm("relative-with-directory", lambda h, n: (os.path.join("sub", n), h)),
    PathForm("dot-slash", lambda h, n: (os.path.join(".", n), h / "sub")),
    PathForm("with-dotdot", lambda h, n: (os.path.join("..", "sub", n), h / "elsewhere")),
    PathForm("through-linked-directory", lambda h, n: (os.path.join("link", n), h)),
    PathForm(
        # "deep/.." by the text is "link"'s parent; the OS goes up from where "deep" leads, "sub"
        "linked-directory-then-dotdot",
        lambda h, n: (os.path.join("deep", "..", n), h),
    ),
)
"""Absolute, a bare name, relative with a directory part, ``./name``, up with ``..``, through a
linked directory, and through a linked directory then ``..``: the last is another directory by the
path's text (``os.path.abspath``, ``os.path.normpath``) than the one the OS reaches."""


def path_forms(home: Path) -> Path:
    """Make the directories :data:`PATH_FORMS` name under ``home``: ``sub`` (where the file is),
    ``elsewhere``, ``link`` (a link to ``sub``) and ``deep`` (a link to ``sub/inner``, so that
    ``deep/..`` is ``sub``); return ``home/sub``."""
    sub = home / "sub"
    (sub / "inner").mkdir(parents=True)
    (home / "elsewhere").mkdir()
    (home / "link").symlink_to(sub, target_is_directory=True)
    (home / "deep").symlink_to(sub / "inner", target_is_directory=True)
    return sub


@contextlib.contextmanager
def working_directory(directory: Path) -> Iterator[None]:
    """Run the block in ``directory``, then go back."""
    before = os.getcwd()
    os.chdir(directory)
    try:
        yield
    finally:
        os.chdir(before)


# --- keys whose methods lie -----------------------------------------------------------------------

STR_METHODS = (
    "__str__",
    "__hash__",
    "__eq__",
    "__ne__",
    "__format__",
    "__getitem__",
    "__iter__",
    "__len__",
    "__add__",
    "__mod__",
    "__fspath__",
    "encode",
    "join",
    "lower",
    "strip",
    "replace",
    "casefold",
    "__getnewargs__",
    "__contains__",
    "startswith",
    "endswith",
    "find",
    "rfind",
    "split",
    "rstrip",
)
"""Methods of a ``str`` subclass that could decide what a key is normalised to, which entry it
names, or which file a path names (``os.path`` asks ``startswith``, ``rfind``, slices...), were an
implementation to ask the value instead of taking ``str.__str__`` of it."""

_LIE = "lie"
"""What each lying method says the key is (as text)."""


def _lying(name: str) -> Callable[..., Any]:
    """A method ``name`` that answers as if the key were :data:`_LIE` (or another object)."""
    if name == "__hash__":
        return lambda self: hash(_LIE) + 1
    if name in ("__eq__", "__ne__"):
        return lambda self, other: name == "__eq__" and other == _LIE
    if name == "__len__":
        return lambda self: len(_LIE)
    if name == "__iter__":
        return lambda self: iter(_LIE)
    if name == "__getitem__":
        return lambda self, index: _LIE[index]
    if name == "encode":
        return lambda self, *args, **kwargs: _LIE.encode(*args, **kwargs)
    if name == "__getnewargs__":
        return lambda self: (_LIE,)
    if name == "join":
        return lambda self, parts: _LIE.join(parts)
    return lambda self, *args, **kwargs: _LIE


def lying_str(text: str, methods: Sequence[str]) -> str:
    """A ``str`` subclass instance of ``text`` whose ``methods`` say it is :data:`_LIE`. Its
    ``repr`` stays ``str``'s, so an error naming it names ``text``."""
    namespace: dict[str, Any] = {m: _lying(m) for m in methods}
    if "__eq__" in methods and "__hash__" not in methods:
        namespace["__hash__"] = str.__hash__  # a class that sets __eq__ alone is unhashable
    kind = type("Lying_" + "_".join(m.strip("_") for m in methods), (str,), namespace)
    made: str = kind(text)
    return made


def lying_strs(text: str) -> st.SearchStrategy[str]:
    """``text`` as a ``str`` subclass whose methods, any nonempty subset of
    :data:`STR_METHODS`, lie about it."""
    return st.lists(st.sampled_from(STR_METHODS), min_size=1, max_size=5, unique=True).map(
        lambda methods: lying_str(text, methods)
    )


# --- hand-made outputs ----------------------------------------------------------------------------


HandMadeMaps = tuple[list[tuple[str, int]], list[tuple[str, list[tuple[str, int]]]]]
"""The maps of a hand-made output: inline ``(key, buffer index)`` pairs, and ``(tag, pairs)``."""


def hand_made_maps(buffers: int) -> st.SearchStrategy[HandMadeMaps]:
    """The maps of a hand-made output over ``buffers`` buffers, in an order of their own: every
    key once, inline or under one of three tags, the keys of a map and the tags in any order (a
    store's own output lists them in the order they were added, which is buffer order for new
    keys)."""
    entries = st.lists(
        st.tuples(st.sampled_from([None, "t1", "t2", "t3"]), st.integers(0, buffers - 1)),
        min_size=1,
        max_size=6,
    )

    def build(drawn: tuple[list[tuple[str | None, int]], list[str], list[str]]) -> HandMadeMaps:
        placed, names, tag_order = drawn
        keyed = [(name, place, index) for name, (place, index) in zip(names, placed, strict=False)]
        inline = [(k, i) for k, p, i in keyed if p is None]
        tags = [(tag, [(k, i) for k, p, i in keyed if p == tag]) for tag in tag_order]
        return inline, [(tag, pairs) for tag, pairs in tags if pairs]

    return st.tuples(
        entries, st.permutations(list("abcdef")), st.permutations(["t1", "t2", "t3"])
    ).map(build)


# --- raw outputs that take nothing ----------------------------------------------------------------


class FullRaw(io.RawIOBase):
    """A raw output in non-blocking mode: takes at most ``step`` bytes a call until it holds
    ``room``, then returns ``None`` (full: it took nothing)."""

    def __init__(self, room: int, step: int) -> None:
        self.data = bytearray()
        self._room, self._step = room, step

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int | None:
        with memoryview(data) as view:
            n = min(len(view), self._step, self._room - len(self.data))
            if n <= 0:
                return None
            self.data += view[:n]
        return n


# --- rejected types, and how an error names one ------------------------------------------------


def _named(name: str) -> object:
    """An instance of a plain class called ``name``."""
    made: object = type(name, (), {"__repr__": lambda self: f"<a {name}>"})()
    return made


def claiming(kind: type, name: str = "Liar") -> object:
    """An instance of a class called ``name`` whose ``__class__`` attribute says it is a ``kind``:
    ``isinstance`` believes it, ``type()`` does not."""

    def claimed(self: object) -> type:
        return kind

    made: object = type(
        name,
        (),
        {
            "__class__": property(claimed),
            "__len__": lambda self: 3,
            "__repr__": lambda self: f"<{name} claiming {kind.__name__}>",
        },
    )()
    return made


REJECTED: tuple[object, ...] = (
    "text",
    7,
    1.5,
    True,
    None,
    bytearray(b"ba"),
    memoryview(b"mv"),
    [b"a"],
    (b"a",),
    {b"a": b"b"},
    *(_named(n) for n in ("File", "Data", "Backed", "Cor", "byte", "Named", "Zebra", "STR")),
)
"""Values of types neither ``bytes`` nor a blob nor a Cord: built-in ones, and classes of the
suite's own whose names are parts of the accepted types' names (``File`` in ``FileBackedData``,
``byte`` in ``bytes``) or of a message's words, and another case of a built-in's name (``STR``)."""
CLAIMING: tuple[object, ...] = (claiming(bytes),)
"""Objects whose ``__class__`` says they are ``bytes``, which a check by ``isinstance`` takes
(CORD-TYPE-2: hostile input, a strict rule)."""


def names_type(message: str, value: object) -> bool:
    """Whether ``message`` names the type of ``value`` (CORD-TYPE-1): ``type(value).__name__``,
    exactly, as a whole word (no letter, digit or ``_`` on either side)."""
    name = re.escape(type(value).__name__)
    return re.search(rf"(?<![A-Za-z0-9_]){name}(?![A-Za-z0-9_])", message) is not None
