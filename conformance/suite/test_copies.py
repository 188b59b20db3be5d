"""Copies of FileBackedData beyond those of test_file_backed.py: copies of a borrowed blob, and
deep copies of containers that hold one blob twice (spec sections 3.1 FBD-INIT-2 and 3.6)."""

from __future__ import annotations

import copy
import gc
import os
from collections.abc import Callable
from typing import Any

import pytest

from conformance.api import Implementation
from conformance.harness.checks import check
from conformance.harness.helpers import Blobs

clause = pytest.mark.clause

DATA = b"weights that belong to someone else"
COPIERS = pytest.mark.parametrize("copier", [copy.copy, copy.deepcopy], ids=["copy", "deepcopy"])


@pytest.mark.requires("file-backed")
class TestCopiesNeverDelete:
    """Copies of borrowed blobs and of containers holding blobs (FBD-INIT-2, FBD-COPY-1)."""

    @clause("FBD-INIT-2", "FBD-COPY-1")
    @COPIERS
    def test_copies_of_a_borrowed_blob_never_delete_it(
        self, impl: Implementation, blobs: Blobs, copier: Callable[[Any], Any]
    ) -> None:
        path = blobs.file(DATA)
        borrowed = blobs.wrap(path)
        duplicate = copier(borrowed)
        itself = duplicate is borrowed
        assert duplicate.to_bytes() == DATA
        duplicate.close()
        del duplicate
        gc.collect()
        if itself:  # the copy is the object: closing it closed the borrowed object
            check(path.is_file(), "close() deleted a borrowed file", "FBD-INIT-2")
        assert path.read_bytes() == DATA
        borrowed.close()
        check(path.is_file(), "close() deleted a borrowed file", "FBD-INIT-2")
        assert path.read_bytes() == DATA

    @clause("FBD-COPY-1")
    @pytest.mark.relies_on("FBD-CLOSE-1")  # closing the owner deletes the file once
    def test_deep_copy_of_a_container_keeps_one_object_per_blob(
        self, impl: Implementation, blobs: Blobs
    ) -> None:
        """``deepcopy`` with its memo: one blob held twice is one object in the copy, and collecting
        the copied container never deletes the owner's file; closing the owner deletes it once."""
        owner = impl.FileBackedData.move_from(str(blobs.file(DATA)))
        path = impl.path_of(owner)
        try:
            tree: dict[str, Any] = {"weights": owner, "again": [owner], "nested": {"w": owner}}
            copied: dict[str, Any] = copy.deepcopy(tree)
            assert copied["weights"] is copied["again"][0] is copied["nested"]["w"]
            del copied
            gc.collect()
            assert owner.to_bytes() == DATA
            assert os.path.exists(path)
        finally:
            owner.close()
        assert not os.path.lexists(path)
