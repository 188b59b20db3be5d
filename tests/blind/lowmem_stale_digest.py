"""Breaks: HOOK-LOW-4
Profile: strict
Bug: ``load_weights_blob`` in low-memory mode trusts the digest the blob path carries from
``materialize_weights_blob`` without checking that the file is still the one hashed.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from typing import Any

from conformance.api import Implementation
from reference import hooks

from . import implementation
from ._support import LowMemory, directory


class Backend(hooks.FileBackedAotiBackend):
    @classmethod
    def load_weights_blob(
        cls, blob_path: str, compile_specs: Sequence[hooks.CompileSpec]
    ) -> tuple[Any, str]:
        if not hooks.is_low_memory_mode(compile_specs):
            return super().load_weights_blob(blob_path, compile_specs)
        digest = blob_path.sha256 if isinstance(blob_path, hooks.WeightsBlobPath) else None
        data = hooks.FileBackedData.move_from(blob_path, sha256=digest)
        return data, data.sha256().hex()


IMPLEMENTATION = implementation(__name__, low_memory=LowMemory(Backend))


def scenario(impl: Implementation) -> str | None:
    assert impl.low_memory is not None
    with directory() as tmp:
        blob_path = impl.low_memory.materialize(os.path.join(tmp, "m.wrapper.so"), [b"old weights"])
        with open(blob_path, "wb") as f:
            f.write(b"new weights, longer")
        data, hexdigest = impl.low_memory.load(blob_path)
        try:
            if hexdigest != hashlib.sha256(b"new weights, longer").hexdigest():
                return "a blob rewritten after materialize was loaded with the old digest"
            return None
        finally:
            data.close()
