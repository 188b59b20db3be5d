"""Fixtures for the tests of the reference implementation.

Checks here are independent of the object under test: files are inspected with ``os``/``pathlib``,
digests with ``hashlib``, reads are counted by a spy on ``open`` in ``reference.verified_reader``.
"""

from __future__ import annotations

import copy
import gc
import io
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import reference.file_backed as file_backed
import reference.ownership as ownership
import reference.verified_reader as verified_reader
from reference import NamedDataStore

MakeFile = Callable[..., Path]


@pytest.fixture
def make_file(tmp_path: Path) -> MakeFile:
    """``make_file(name, data=b"", directory=tmp_path)``: write a real file and return its path."""

    def make(name: str = "blob.bin", data: bytes = b"", directory: Path | None = None) -> Path:
        path = (directory or tmp_path) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return path

    return make


@pytest.fixture
def make_sparse(tmp_path: Path) -> Callable[[str, int], Path]:
    """``make_sparse(name, size)``: a file of ``size`` zero bytes that takes no disk space."""

    def make(name: str, size: int) -> Path:
        path = tmp_path / name
        with open(path, "wb") as f:
            f.truncate(size)
        return path

    return make


class ReadSpy:
    """Counts the files ``reference.verified_reader`` opens and the bytes it reads from them."""

    def __init__(self) -> None:
        self.opened: list[str] = []
        self.bytes_read = 0
        self.requests: list[int] = []  # the size of every read asked for
        self.cap: int | None = None  # at most this many bytes per call, as the OS may return

    def open(self, file: int, mode: str = "r", buffering: int = -1) -> io.FileIO:
        """``file``: a descriptor the reader opened through the file's directory."""
        assert mode == "rb" and buffering == 0, (mode, buffering)
        self.opened.append(os.readlink(f"/proc/self/fd/{file}"))
        return _CountingFileIO(file, self)

    def reset(self) -> None:
        self.opened.clear()
        self.bytes_read = 0
        self.requests.clear()


class _CountingFileIO(io.FileIO):
    def __init__(self, file: int, spy: ReadSpy) -> None:
        super().__init__(file, "rb")
        self._spy = spy

    def read(self, size: int = -1, /) -> bytes:
        self._spy.requests.append(size)
        cap = self._spy.cap
        data = super().read(size if cap is None or size < 0 else min(size, cap))
        self._spy.bytes_read += len(data or b"")
        return data

    def readinto(self, buffer: Any, /) -> int:
        self._spy.requests.append(len(buffer))
        n = super().readinto(buffer)
        self._spy.bytes_read += n or 0
        return n


@pytest.fixture
def read_spy(monkeypatch: pytest.MonkeyPatch) -> ReadSpy:
    """Replace ``open`` as seen by ``reference.verified_reader`` (the only place it reads files)."""
    spy = ReadSpy()
    monkeypatch.setattr(verified_reader, "open", spy.open, raising=False)
    return spy


def live_owners() -> list[file_backed.FileBackedData]:
    with ownership._owners_lock:
        refs = list(ownership._owners.values())
    return [o for o in (r() for r in refs) if o is not None and not o.closed]


@pytest.fixture(autouse=True)
def _no_owner_left_open() -> Iterator[None]:
    """Every test closes what it opens: no owning FileBackedData may outlive the test."""
    yield
    gc.collect()
    leaked = live_owners()
    for owner in leaked:  # tidy up so one leak does not cascade into other tests
        owner.close()
    assert not leaked, f"test left owning FileBackedData open: {leaked}"


def _store_state(store: NamedDataStore) -> tuple[Any, ...]:
    return (
        [id(b) for b in store.buffers],
        copy.deepcopy(store.pte_data),
        copy.deepcopy(store.external_data),
        copy.deepcopy(store.get_named_data_store_output()),
    )


def _placeholders(directory: str | os.PathLike[str]) -> list[str]:
    return sorted(
        n for n in os.listdir(directory) if n.startswith(".executorch_") and n.endswith(".data")
    )


@pytest.fixture
def store_state() -> Callable[[NamedDataStore], tuple[Any, ...]]:
    """``store_state(store)``: a deep snapshot of a store's visible state, buffers by identity."""
    return _store_state


@pytest.fixture
def placeholders() -> Callable[[str | os.PathLike[str]], list[str]]:
    """``placeholders(directory)``: the ``.executorch_*.data`` files in ``directory``."""
    return _placeholders
