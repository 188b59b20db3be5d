"""Breaks: NDS-ATOMIC-2
Profile: strict
Bug: ``add_named_data`` of a new blob appends the buffer, then writes the entry, with no undo
between: an interrupt (Ctrl-C) after the append leaves a buffer no entry refers to.
"""

from __future__ import annotations

import os
import sys
from types import FrameType
from typing import Any

import reference
from conformance.api import Implementation
from reference.named_data import _ABSENT, DataEntry, _fingerprint

from . import implementation


class NamedDataStore(reference.NamedDataStore):
    def _add(self, key: str, data: Any, alignment: int, tag: str | None, layout: object) -> None:
        fingerprint = _fingerprint(data)
        if key in self._tags or self._fps.get(fingerprint, _ABSENT) != _ABSENT:
            super()._add(key, data, alignment, tag, layout)
            return
        index = len(self.buffers)
        self.buffers.append(data)
        self._fps[fingerprint] = index
        entry = DataEntry(index, alignment, layout)
        if tag is None:
            self.pte_data[key] = entry
        elif tag in self.external_data:
            self.external_data[tag][key] = entry
        else:
            self.external_data[tag] = {key: entry}
        self._tags[key] = tag


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)

_ROOTS = tuple(os.path.dirname(os.path.abspath(path)) for path in (reference.__file__, __file__))


def _interrupted_at(impl: Implementation, line: int) -> tuple[str | None, int]:
    """Add a new blob with an interrupt raised at the ``line``-th line the implementation runs;
    what is wrong with the store afterwards, and how many lines the add ran."""
    store = impl.NamedDataStore()
    store.add_named_data("a", b"first")
    count = [0]

    def tracer(frame: FrameType, event: str, arg: object) -> Any:
        if event == "call":
            return tracer if frame.f_code.co_filename.startswith(_ROOTS) else None
        if event == "line":
            count[0] += 1
            if count[0] == line:
                raise KeyboardInterrupt
        return tracer

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        store.add_named_data("b", b"second")
    except KeyboardInterrupt:
        pass
    finally:
        sys.settrace(previous)
    out = store.get_named_data_store_output()
    keys = sorted(out.pte_data)
    state = (len(out.buffers), keys)
    if state not in ((1, ["a"]), (2, ["a", "b"])):
        return f"an interrupt at line {line} of the add left {state}", count[0]
    return None, count[0]


def scenario(impl: Implementation) -> str | None:
    _, lines = _interrupted_at(impl, 0)  # uninterrupted: how many lines an add runs
    for line in range(1, lines + 1):
        wrong, _ = _interrupted_at(impl, line)
        if wrong is not None:
            return wrong
    return None
