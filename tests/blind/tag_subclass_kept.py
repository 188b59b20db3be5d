"""Breaks: NDS-ADD-8
Profile: strict
Bug: keys are normalised to exact ``str``, but an ``external_tag`` of a ``str`` subclass is kept
as given, so its own ``__eq__``/``__hash__`` decide which tag map an entry goes to.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation
from reference.named_data import _checked

from . import implementation


def _check_arguments(
    key: object, data: object, alignment: object, external_tag: object
) -> tuple[str, object, int, object]:
    key, data, alignment, tag = _checked(key, data, alignment, external_tag)
    return key, data, alignment, external_tag if tag is not None else None


class NamedDataStore(reference.NamedDataStore):
    _check_arguments = staticmethod(_check_arguments)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


class Tag(str):
    """A tag type whose hash is its own (a name object from a config system)."""

    def __hash__(self) -> int:
        return 7


def scenario(impl: Implementation) -> str | None:
    store = impl.NamedDataStore()
    store.add_named_data("a", b"one", external_tag="model")
    store.add_named_data("b", b"two", external_tag=Tag("model"))
    tags = list(store.get_named_data_store_output().external_data)
    if tags != ["model"] or any(type(t) is not str for t in tags):
        return f"a tag given as a str subclass gave the tags {tags!r}"
    return None
