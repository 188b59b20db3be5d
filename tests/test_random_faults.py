"""1,000 random operation sequences against the reference, with OSErrors injected at random calls.

A fault injector replaces ``os.replace``, ``os.unlink``, ``os.open`` (``mkstemp``), the in-kernel
copies and ``builtins.open`` (and the reads of the files it opens) with versions that raise
``ENOSPC``, ``EIO`` or ``EACCES`` at random while an operation runs; outputs fail at random writes.
After every operation, and once everything is closed at the end of a sequence, it checks:

- every error is documented: an ``OSError`` carrying an errno injected during that operation, or the
  ``ValueError`` of taking a file another object owns (FBD-MOVE-9);
- no file is lost: every source is at its path with its bytes, or owned by a live object whose file
  has them (or was released by its owner's ``close()``);
- results are right: reads return the contents, a write that returned is complete, a failed close
  leaves the object open (FBD-CLOSE-7), a failed add leaves the store as it was (NDS-ATOMIC-1);
- no placeholder is left once everything is closed, except one whose removal was itself refused by
  an injected fault (FBD-MOVE-4 cannot be kept when the OS refuses to remove the empty placeholder;
  the error that refusal raised is reported to the caller).

The sequences are seeded: ``CORDSPEC_FAULT_SEED=n`` runs the one sequence of seed ``n``, and a
failure names its seed; ``CORDSPEC_FAULT_SEQUENCES=n`` runs ``n`` sequences instead of 1,000
(``tox -e faults-long``: 100,000).
"""

from __future__ import annotations

import builtins
import contextlib
import errno
import fnmatch
import hashlib
import io
import os
import random
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from conformance import environment
from reference import Cord, FileBackedData, NamedDataStore

SEQUENCES = 1000
BASE_SEED = 20261129
ERRNOS = (errno.ENOSPC, errno.EIO, errno.EACCES)
PLACEHOLDER = ".executorch_*.data"


class Injector:
    """Raises an OSError at random calls while active; remembers what it raised and where."""

    def __init__(self) -> None:
        self.rng = random.Random(0)
        self.rate = 0.0
        self.active = False
        self.raised: list[int] = []
        self.refused_unlinks: set[str] = set()

    def maybe(self, what: str, path: Any = None) -> None:
        if self.active and self.rng.random() < self.rate:
            code = self.rng.choice(ERRNOS)
            self.raised.append(code)
            if what == "unlink" and path is not None:
                self.refused_unlinks.add(os.path.abspath(os.fspath(path)))
            raise OSError(code, f"{os.strerror(code)} (injected in {what})", path)

    @contextlib.contextmanager
    def during(self, rate: float) -> Iterator[list[int]]:
        """Inject at ``rate`` for the block; yields the errnos raised in it."""
        self.raised = []
        self.rate, self.active = rate, True
        try:
            yield self.raised
        finally:
            self.active = False


class _FaultyReader:
    """A file opened for reading whose reads may fail."""

    def __init__(self, real: Any, injector: Injector) -> None:
        self._real = real
        self._injector = injector

    def read(self, n: int = -1) -> bytes:
        self._injector.maybe("read")
        data: bytes = self._real.read(n)
        return data

    def readinto(self, buffer: Any) -> int:
        try:
            self._injector.maybe("readinto")
        except OSError:
            del buffer  # the traceback must not keep the caller's buffer exported
            raise
        n: int = self._real.readinto(buffer)
        return n

    def __enter__(self) -> _FaultyReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self._real.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


class _FaultySink(io.RawIOBase):
    """An output whose writes may fail, or may take only part of what they are given."""

    def __init__(self, injector: Injector, rng: random.Random) -> None:
        self.data = bytearray()
        self._injector = injector
        self._rng = rng

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self._injector.maybe("write")
        with memoryview(data) as view:
            n = len(view) if self._rng.random() < 0.7 else self._rng.randint(1, max(1, len(view)))
            self.data += view[:n]
        return n


@pytest.fixture
def injector(monkeypatch: pytest.MonkeyPatch) -> Injector:
    faults = Injector()
    real_replace, real_unlink, real_open_fd = os.replace, os.unlink, os.open
    real_open = builtins.open

    def replace(src: Any, dst: Any, **kwargs: Any) -> None:
        faults.maybe("replace", src)
        real_replace(src, dst, **kwargs)

    def unlink(path: Any, **kwargs: Any) -> None:
        faults.maybe("unlink", path)
        real_unlink(path, **kwargs)

    def open_fd(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        faults.maybe("os.open", path)
        return real_open_fd(path, flags, *args, **kwargs)

    def open_file(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        faults.maybe("open", file)
        opened = real_open(file, mode, *args, **kwargs)
        if faults.active and "r" in mode and faults.rng.random() < 0.5:
            return _FaultyReader(opened, faults)  # else the kernel copy is used, and may fail
        return opened

    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(os, "unlink", unlink)
    monkeypatch.setattr(os, "open", open_fd)
    monkeypatch.setattr(builtins, "open", open_file)
    for name in ("copy_file_range", "sendfile"):
        kernel: Callable[..., int] | None = getattr(os, name, None)
        if kernel is not None:

            def copy(*args: Any, _kernel: Callable[..., int] = kernel, _name: str = name) -> int:
                faults.maybe(_name)
                return _kernel(*args)

            monkeypatch.setattr(os, name, copy)
    return faults


@dataclass
class Source:
    """A file the user made: where it is, what it holds, and who owns it now."""

    path: Path
    data: bytes
    owner: FileBackedData | None = None
    released: bool = False


@dataclass
class World:
    directory: Path
    rng: random.Random
    faults: Injector
    sources: list[Source] = field(default_factory=list)
    objects: list[tuple[FileBackedData, bytes]] = field(default_factory=list)
    store: NamedDataStore = field(default_factory=NamedDataStore)
    keys: int = 0


def _store_state(store: NamedDataStore) -> tuple[object, ...]:
    out = store.get_named_data_store_output()
    return (
        [id(b) for b in out.buffers],
        dict(out.pte_data),
        {tag: dict(entries) for tag, entries in out.external_data.items()},
    )


def _documented(
    exc: BaseException, raised: list[int], stale: tuple[FileBackedData, ...] = ()
) -> None:
    """``exc`` is an injected OSError of this operation, the documented ownership refusal, or
    what a buffer of ``stale`` (one the operation may read, closed or whose file is gone) must
    give: FBD-CLOSED-1's ValueError naming a closed one's path, FBD-FAULT-2's FileNotFoundError
    naming the path of one whose file is gone."""
    closed = {b.path for b in stale if b.closed}
    gone = {b.path for b in stale if not b.closed and not os.path.exists(b.path)}
    if isinstance(exc, FileNotFoundError) and exc.filename in gone:
        return
    if isinstance(exc, ValueError) and any(
        str(exc) == f"I/O operation on closed FileBackedData ({path!r})" for path in closed
    ):
        return
    if isinstance(exc, OSError):
        assert raised, f"an OSError with no fault injected: {exc!r}"
        assert exc.errno in raised, f"{exc!r} carries none of the injected errnos {raised}"
        return
    if isinstance(exc, ValueError) and "owned by" in str(exc):
        return
    raise AssertionError(f"undocumented error {exc!r}") from exc


def _at_path(world: World) -> list[Source]:
    return [s for s in world.sources if s.owner is None and not s.released]


def _live(world: World) -> list[tuple[FileBackedData, bytes]]:
    """Open objects whose file is still at their path (a borrowed file may have been moved)."""
    return [
        (blob, data)
        for blob, data in world.objects
        if not blob.closed and os.path.exists(blob.path)
    ]


def _op(world: World) -> None:
    rng, faults = world.rng, world.faults
    choice = rng.choice(
        ["new", "move", "wrap", "read", "read", "write", "cord", "add", "close", "close"]
    )
    if choice == "new" or not world.sources:
        name = f"src{len(world.sources)}.bin"
        size = rng.choice([0, 1, 31, 32, 33, rng.randint(34, 300_000)])
        data = rng.randbytes(size)
        (world.directory / name).write_bytes(data)
        world.sources.append(Source(world.directory / name, data))
        return
    rate = rng.choice([0.0, 0.1, 0.3, 0.6])
    if choice in ("move", "wrap"):
        candidates = _at_path(world)
        if not candidates:
            return
        source = rng.choice(candidates)
        cleanup = choice == "wrap" and rng.random() < 0.5
        digest = hashlib.sha256(source.data).digest() if rng.random() < 0.3 else None
        with faults.during(rate) as raised:
            try:
                if choice == "move":
                    blob = FileBackedData.move_from(str(source.path), sha256=digest)
                else:
                    blob = FileBackedData(str(source.path), cleanup=cleanup, sha256=digest)
            except Exception as exc:
                _documented(exc, raised)
                assert source.path.read_bytes() == source.data, "a failed take-over lost data"
                return
        world.objects.append((blob, source.data))
        if choice == "move":
            assert not source.path.exists()
            assert fnmatch.fnmatch(os.path.basename(blob.path), PLACEHOLDER)
        if blob.owned:
            source.owner = blob
        return
    live = _live(world)
    if choice == "close":
        if not live:
            return
        blob, data = rng.choice(live)
        with faults.during(rate) as raised:
            try:
                blob.close()
            except Exception as exc:
                _documented(exc, raised)
                assert not blob.closed, "a close that raised marked the object closed"
                assert Path(blob.path).read_bytes() == data
                return
        assert blob.closed
        for source in world.sources:
            if source.owner is blob:
                source.owner, source.released = None, True
                assert not Path(blob.path).exists()
        return
    if not live:
        return
    blob, data = rng.choice(live)
    if choice == "read":
        how = rng.choice(["prefix", "sha256", "to_bytes"])
        with faults.during(rate) as raised:
            try:
                if how == "prefix":
                    n = rng.randint(0, 64)
                    assert blob.prefix(n) == data[:n]
                elif how == "sha256":
                    assert blob.sha256() == hashlib.sha256(data).digest()
                else:
                    assert blob.to_bytes() == data
            except (OSError, ValueError, TypeError) as exc:
                _documented(exc, raised)
        return
    if choice in ("write", "cord"):
        head = rng.randbytes(rng.randint(0, 40))
        expected = data if choice == "write" else head + data + head
        target = rng.choice(["file", "bytesio", "sink"])
        out_path = world.directory / f"out{world.keys}.pte"
        world.keys += 1
        out: Any = (
            open(out_path, "wb")  # noqa: SIM115  # opened before the faults, closed below
            if target == "file"
            else io.BytesIO()
            if target == "bytesio"
            else _FaultySink(faults, rng)
        )
        out.write(b"<")
        try:
            with faults.during(rate) as raised:
                try:
                    if choice == "write":
                        blob.write_to_file(out)
                    else:
                        cord = Cord(head)
                        cord.append(blob)
                        cord.append(head)
                        cord.write_to_file(out)
                except (OSError, ValueError, TypeError) as exc:
                    _documented(exc, raised)
                    return
            if target == "file":
                out.close()
                written = out_path.read_bytes()
            else:
                written = bytes(out.getvalue() if target == "bytesio" else out.data)
            assert written == b"<" + expected, "a write that returned is not complete"
        finally:
            out.close()
            with contextlib.suppress(FileNotFoundError):
                out_path.unlink()
        return
    # add
    key = f"k{world.keys}"
    world.keys += 1
    piece: bytes | FileBackedData = blob if rng.random() < 0.7 else data
    tag = rng.choice([None, None, "ext"])
    before = _store_state(world.store)
    # dedup may read any buffer the store holds: one closed or whose file was moved away fails
    # as FBD-CLOSED-1 and FBD-FAULT-2 say
    buffers = world.store.get_named_data_store_output().buffers
    held = tuple(b for b in buffers if isinstance(b, FileBackedData))
    with faults.during(rate) as raised:
        try:
            world.store.add_named_data(key, piece, alignment=rng.choice([1, 16]), external_tag=tag)
        except (OSError, ValueError, TypeError) as exc:
            _documented(exc, raised, held)
            assert _store_state(world.store) == before, "a failed add changed the store"


def _check_nothing_lost(world: World) -> None:
    for source in world.sources:
        if source.released:
            continue
        if source.owner is None:
            assert source.path.read_bytes() == source.data, f"{source.path} lost or changed"
        else:
            assert not source.owner.closed
            assert Path(source.owner.path).read_bytes() == source.data, "an owned file was lost"


def _finish(world: World) -> None:
    """Close everything without faults, then check what is left in the directory."""
    for blob, _ in world.objects:
        blob.close()
    placeholders = sorted(world.directory.glob(PLACEHOLDER))
    for leaked in placeholders:
        refused = world.faults.refused_unlinks
        assert str(leaked.absolute()) in refused, f"placeholder {leaked} leaked"
        assert leaked.stat().st_size == 0, f"a leaked placeholder {leaked} holds data"
        leaked.unlink()
    for source in world.sources:
        if not source.released and source.owner is None:
            assert source.path.read_bytes() == source.data
    expected = {s.path.name for s in world.sources if s.owner is None and not s.released}
    assert {p.name for p in world.directory.iterdir()} == expected


def run_sequence(seed: int, directory: Path, faults: Injector) -> None:
    rng = random.Random(seed)
    faults.rng = random.Random(seed ^ 0x5EED)
    faults.refused_unlinks = set()
    directory.mkdir()
    world = World(directory, rng, faults)
    try:
        for _ in range(rng.randint(4, 16)):
            _op(world)
            _check_nothing_lost(world)
        _finish(world)
    finally:
        faults.active = False
        for blob, _ in world.objects:
            with contextlib.suppress(OSError):
                blob.close()
        shutil.rmtree(directory, ignore_errors=True)


def test_random_sequences_with_injected_faults(tmp_path: Path, injector: Injector) -> None:
    chosen = environment.FAULT_SEED.get()
    count = environment.FAULT_SEQUENCES.get() or SEQUENCES
    seeds = [chosen] if chosen is not None else [BASE_SEED + i for i in range(count)]
    for seed in seeds:
        try:
            run_sequence(seed, tmp_path / f"seq{seed}", injector)
        except AssertionError as exc:
            raise AssertionError(
                f"sequence with seed {seed} failed (rerun: CORDSPEC_FAULT_SEED={seed}): {exc}"
            ) from exc
