"""Breaks: NDS-KEY-5
Profile: strict
Bug: a re-added key's place is compared only between two tags: a key first stored inline and
re-added under a tag (or the reverse) is accepted silently, keeping the first place.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation

from . import implementation
from ._steps import Compared, ComparingAs
from ._support import inline_then_tagged


class NamedDataStore(ComparingAs):
    def _compared(
        self, key: str, data: reference.CordBuffer, tag: str | None, layout: object
    ) -> Compared:
        old_tag = self._tags[key]
        if tag is None or old_tag is None:
            tag = old_tag  # only two tags can disagree
        return data, tag, layout


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    _, refused = inline_then_tagged(impl, b"weights", b"weights")
    return None if refused else "a key stored inline was re-added under tag 't' without an error"
