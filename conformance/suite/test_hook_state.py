"""No state outlives a hook's operation (HOOK-LOW-4): after a low-memory materialize
whose load never comes, a load that spells the path another way, or materialize and load repeated,
nothing the implementation holds still names the blob. A process-wide map that checks each entry
against the file never hands on a wrong digest, so it shows only as containers that still name the
blob once the caller has let go of everything."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import cast

import pytest

from conformance.api import FileBackedData, Implementation, LowMemoryWeights
from conformance.harness.gc_freeze import all_objects

clause = pytest.mark.clause
requires = pytest.mark.requires

WEIGHTS = (b"w" * 4096, b"x" * 100)


def _low_memory(impl: Implementation) -> LowMemoryWeights:
    assert impl.low_memory is not None  # the test's requires mark says it has them
    return impl.low_memory


def _marked(tmp_path: Path) -> tuple[str, str]:
    """A directory whose name no other object holds, and a ``.wrapper.so`` in it."""
    marker = f"handover-{uuid.uuid4().hex}"
    directory = tmp_path / marker
    directory.mkdir()
    so_path = directory / "model.wrapper.so"
    so_path.write_bytes(b"\x7fELF compiled model")
    return marker, str(so_path)


def _holders(marker: str) -> list[str]:
    """The types of the containers (dict, list, tuple, set) still holding a string naming
    ``marker``, once everything the test dropped is collected."""
    found: list[str] = []
    for container in all_objects():
        items: Iterable[object]
        if isinstance(container, dict):
            items = [*container.keys(), *container.values()]
        elif isinstance(container, (list, tuple, set, frozenset)):
            items = container
        else:
            continue
        if any(isinstance(item, str) and marker in item for item in items):
            found.append(type(container).__name__)
    return found


def _materialized(impl: Implementation, tmp_path: Path) -> tuple[str, str]:
    """The marker of a :func:`_marked` directory, and the path of a blob materialized there."""
    marker, so_path = _marked(tmp_path)
    return marker, str(_low_memory(impl).materialize(so_path, WEIGHTS))


def _check_nothing_names(marker: str, what: str) -> None:
    """No container still names the blob in the ``marker`` directory after ``what``."""
    held = _holders(marker)
    assert held == [], f"{what} left containers naming the blob: {held}"


def _load_and_close(impl: Implementation, blob_path: str) -> None:
    data, _ = _low_memory(impl).load(blob_path)
    cast(FileBackedData, data).close()


@requires("low-memory-weights")
class TestNothingOutlivesTheHandOver:
    @clause("HOOK-LOW-4")
    def test_a_materialize_whose_load_never_comes(
        self, impl: Implementation, tmp_path: Path
    ) -> None:
        marker, blob_path = _materialized(impl, tmp_path)
        os.unlink(blob_path)  # the export was abandoned, and its directory cleaned up
        del blob_path
        _check_nothing_names(marker, "an abandoned materialize")

    @clause("HOOK-LOW-4")
    def test_a_load_that_spells_the_path_otherwise(
        self, impl: Implementation, tmp_path: Path
    ) -> None:
        marker, blob_path = _materialized(impl, tmp_path)
        directory, name = os.path.split(blob_path)
        _load_and_close(impl, os.path.join(directory, ".", name))
        del blob_path, directory, name
        _check_nothing_names(marker, "a load by another spelling")

    @clause("HOOK-LOW-4")
    def test_materialize_and_load_repeated(self, impl: Implementation, tmp_path: Path) -> None:
        marker, so_path = _marked(tmp_path)
        for _ in range(3):
            _load_and_close(impl, _low_memory(impl).materialize(so_path, WEIGHTS))
        _check_nothing_names(marker, "repeated hand-overs")
