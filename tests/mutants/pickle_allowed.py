"""Breaks: FBD-COPY-2

Pickling a ``FileBackedData`` gives a non-owning copy of the path instead of raising.
"""

from __future__ import annotations

import pickle
from typing import Any

import reference
from conformance.api import Implementation

from . import implementation
from ._proofs_c import blob_in, raised


class FileBackedData(reference.FileBackedData):
    def __reduce__(self) -> Any:
        return (reference.FileBackedData, (self._path,))


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with blob_in(impl) as (_, path, blob):
        error = raised(lambda: pickle.dumps(blob))
        if not isinstance(error, TypeError) or path not in str(error):
            return f"pickling a FileBackedData gave {error!r}, not a TypeError naming its path"
        return None
