"""Breaks: HOOK-MAT-2
Profile: core
Bug: the low-memory backend joins the weight chunks into one ``bytes`` to hash and write it in one
call, holding the whole blob in memory.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable

from conformance.api import Implementation
from reference import hooks

from . import implementation
from ._support import LowMemory, directory, peak_memory


class Backend(hooks.FileBackedAotiBackend):
    @classmethod
    def _write_weights(cls, blob_path: str, chunks: Iterable[bytes]) -> tuple[bytes, None]:
        blob = b"".join(chunks)  # the whole blob at once
        with open(blob_path, "wb") as f:
            f.write(blob)
        return hashlib.sha256(blob).digest(), None


IMPLEMENTATION = implementation(__name__, low_memory=LowMemory(Backend))


def scenario(impl: Implementation) -> str | None:
    assert impl.low_memory is not None
    low_memory = impl.low_memory

    def chunks() -> object:
        for i in range(16):
            yield bytes([i]) * (1 << 20)

    with directory() as tmp:
        paths: list[str] = []
        peak = peak_memory(
            lambda: paths.append(
                low_memory.materialize(os.path.join(tmp, "m.wrapper.so"), chunks())
            )
        )
        if peak > 8 << 20:
            return f"materializing 16 chunks of 1 MiB held {peak} bytes"
        return None
