"""How an error message shows a value: without running any code of the value's, and bounded.

A bad argument is named in its error (spec Terms, "names"), but its own ``__repr__``, ``__str__``
or ``__len__`` may raise, hang or lie, and Python's ``repr`` of an int of more than 4300 digits
raises: formatting it would replace the promised error with another one. ``shown`` forms the text
from the builtin types' own reprs of exact values and the type's name for anything else.
"""

from __future__ import annotations

__all__ = ["shown", "type_name"]

TEXT_LIMIT = 256
"""Characters (of a ``str``) or bytes shown in full; a longer one is shown by its ends."""
ENDS = 100
"""Characters or bytes shown of each end of a longer ``str`` or ``bytes``."""
INT_BITS = 1024
"""Bits of an ``int`` shown in decimal (up to 309 digits); a larger one is shown by its size."""
ITEMS = 20
"""Items shown of a list, tuple, dict or set; the rest are counted."""
DEPTH = 3
"""Levels of nested containers shown; deeper ones (or a container holding itself) by type."""
LIMIT = 4096
"""Characters of one value's shown form at most: a longer one keeps its ends."""

_get_name = type.__dict__["__name__"].__get__  # type's own slot: no metaclass can change it
_SCALARS: dict[type, object] = {
    float: float.__repr__,
    complex: complex.__repr__,
    bool: bool.__repr__,
    type(None): repr,
    memoryview: repr,  # ``<memory at 0x...>``: of the exact types, no code of the value's runs
    object: repr,
}


def type_name(value: object) -> str:
    """The ``__name__`` of ``value``'s type, read from the type's own slot."""
    name = _get_name(type(value))
    return name if type(name) is str else "?"


def shown(value: object) -> str:
    """``value`` as an error message shows it: its repr for an exact builtin value of bounded
    size (``str``, ``bytes``, ``bytearray``, ``int``, ``float``, ``complex``, ``bool``, ``None``,
    ``memoryview``, a plain ``object()``, and lists, tuples, dicts and sets of them),
    ``Name(<base repr>)`` for a subclass of ``str``,
    ``bytes``, ``int`` or ``float``, else ``<Name object>``. No method of the value is called."""
    text = _shown(value, DEPTH)
    if len(text) <= LIMIT:
        return text
    half = (LIMIT - 40) // 2
    return f"{text[:half]}...{text[-half:]} ({len(text)} characters)"


def _shown(value: object, depth: int) -> str:
    cls = type(value)
    if cls is str or cls is bytes or cls is bytearray or cls is int or cls in _SCALARS:
        return _scalar(value)
    if cls is list or cls is tuple or cls is dict or cls is set or cls is frozenset:
        return _container(value, cls, depth)
    for base in (str, bytes, int, float):
        if issubclass(cls, base):
            return f"{type_name(value)}({_scalar(value, base)})"
    return f"<{type_name(value)} object>"


def _scalar(value: object, base: type | None = None) -> str:
    """The builtin repr of ``value`` as a value of ``base`` (its own type by default), bounded."""
    cls = base if base is not None else type(value)
    if cls is str:
        assert isinstance(value, str)
        size = str.__len__(value)
        if size <= TEXT_LIMIT:
            return str.__repr__(value)
        head, tail = str.__getitem__(value, slice(ENDS)), str.__getitem__(value, slice(-ENDS, None))
        return f"{str.__repr__(head)}...{str.__repr__(tail)} ({size} characters)"
    if cls is bytes or cls is bytearray:
        # the bytes themselves, through the base type's own slicing (a subclass's runs no code)
        if isinstance(value, bytes):
            data = bytes.__getitem__(value, slice(None))
        else:
            assert isinstance(value, bytearray)
            data = bytes(bytearray.__getitem__(value, slice(None)))
        if len(data) <= TEXT_LIMIT:
            # bytearray's own repr: it escapes quotes as bytes' does not
            return repr(data) if cls is bytes else bytearray.__repr__(bytearray(data))
        return f"{data[:ENDS]!r}...{data[-ENDS:]!r} ({len(data)} bytes)"
    if cls is int:
        assert isinstance(value, int)
        number = int.__index__(value)
        bits = number.bit_length()
        if bits <= INT_BITS:
            return int.__repr__(number)
        return f"{'-' if number < 0 else ''}<int of {bits} bits>"
    if cls is float:
        assert isinstance(value, float)
        return float.__repr__(value)
    form = _SCALARS[cls]
    assert callable(form)
    text = form(value)
    assert isinstance(text, str)
    return text


def _container(value: object, cls: type, depth: int) -> str:
    """A list, tuple, dict, set or frozenset, each item shown, to ``DEPTH`` levels and ``ITEMS``
    items (read with the builtin types' own methods, which run no code of the items')."""
    if depth <= 0:
        return f"<{type_name(value)} object>"
    if cls is dict:
        assert isinstance(value, dict)
        pairs = list(dict.items(value))
        items = [f"{_shown(k, depth - 1)}: {_shown(v, depth - 1)}" for k, v in pairs[:ITEMS]]
        return "{" + _joined(items, len(pairs)) + "}"
    assert isinstance(value, (list, tuple, set, frozenset))
    members = list(value)  # an exact container's own iteration: no item's code runs
    items = [_shown(item, depth - 1) for item in members[:ITEMS]]
    inner = _joined(items, len(members))
    if cls is list:
        return f"[{inner}]"
    if cls is tuple:
        return f"({inner},)" if len(members) == 1 else f"({inner})"
    if not members:
        return f"{type_name(value)}()"
    return f"{{{inner}}}" if cls is set else f"frozenset({{{inner}}})"


def _joined(items: list[str], count: int) -> str:
    more = count - len(items)
    return ", ".join(items) + (f", ... ({more} more)" if more > 0 else "")
