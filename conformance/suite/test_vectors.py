"""Test vectors (``spec/vectors/``): each JSON trace of store operations replayed against the
implementation under test, as ``spec/vectors/README.md`` states.

Each vector is one test, with the vector's id as test id and its clauses as marks: a core vector
names core clauses only and runs in both profiles, a strict vector names strict clauses only and
is left out of a core run. What a vector relies on to observe its clauses (``relies_on``) is
derived from what it uses (``conformance.harness.vectors.relies_on``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.api import Capability, Implementation
from conformance.harness.vectors import Vector, load_vectors, relies_on, replay


def _params() -> list[object]:
    params: list[object] = []
    for vector in load_vectors():
        marks = [pytest.mark.clause(*vector.clauses)]
        if relied := relies_on(vector):
            marks.append(pytest.mark.relies_on(*relied))
        if "externalize" in vector.operations:
            marks.append(pytest.mark.requires(Capability.EXTERNALIZE.value))
        if any(b.get("as") == "file" for b in vector.data.get("blobs", {}).values()):
            marks.append(pytest.mark.requires(Capability.FILE_BACKED.value))
        params.append(pytest.param(vector, id=vector.id, marks=marks))
    return params


class TestVectors:
    @pytest.mark.parametrize("vector", _params())
    def test_vector(self, impl: Implementation, vector: Vector, tmp_path: Path) -> None:
        """Every step has the expected outcome, every check holds, every blob is closed, and no
        placeholder is left."""
        replay(vector, impl, tmp_path)
