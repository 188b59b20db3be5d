"""The scaling cases of ``python -m bench --scaling``: one store operation at size N, in a worker.

Each case builds what it needs untimed, then times the work of interest in CPU seconds with the
garbage collector off, ``inner`` times over fresh copies (so that small N still take long enough
to time), and returns the seconds of one. Blobs are small (``BLOB`` bytes), so what is measured is
the bookkeeping of the store, not hashing or I/O.
"""

from __future__ import annotations

import gc
import io
import os
import struct
import time
from collections.abc import Callable
from typing import Any, Protocol

BLOB = 64
"""Bytes per blob: equal length, distinct first 32 bytes unless a case says otherwise."""
ENTRIES = 10
"""Entries per output in the merge cases that merge many small outputs (the target's 10)."""


class Impl(Protocol):
    """What a case needs of an implementation (the worker's ``Impl``)."""

    Cord: Any
    FileBackedData: Any
    NamedDataStore: Any


def blob(i: int, tail: int = 0) -> bytes:
    """A blob of ``BLOB`` bytes whose first 32 bytes are its own (``i``), then ``tail``."""
    return struct.pack("<q", i) * 4 + struct.pack("<q", tail) * ((BLOB - 32) // 8)


def colliding(i: int) -> bytes:
    """Equal length and first 32 bytes for every ``i``, different contents after them."""
    return bytes(BLOB - 8) + struct.pack("<q", i)


def cpu(call: Callable[[], object]) -> float:
    """CPU seconds of ``call()``, with the garbage collector off."""
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        call()
        return time.process_time() - start
    finally:
        gc.enable()


def filled(impl: Impl, blobs: list[Any], prefix: str = "k", tag: str | None = None) -> Any:
    store = impl.NamedDataStore()
    for i, data in enumerate(blobs):
        store.add_named_data(f"{prefix}{i}", data, 1, tag)
    return store


def _adding(impl: Impl, blobs: list[Any], inner: int) -> tuple[list[Any], Callable[[], None]]:
    """``inner`` new stores, and what adds ``blobs`` to each of them under keys k0, k1, ..."""
    stores = [impl.NamedDataStore() for _ in range(inner)]

    def run() -> None:
        for store in stores:
            add = store.add_named_data
            for i, data in enumerate(blobs):
                add(f"k{i}", data)

    return stores, run


def case_add(impl: Impl, n: int, inner: int, **_: Any) -> float:
    """N adds of distinct blobs into a new store."""
    run = _adding(impl, [blob(i) for i in range(n)], inner)[1]
    return cpu(run) / inner


def _outputs(impl: Impl, store: Any, inner: int) -> float:
    """Ten times: one more add, then an output (which a cache could not simply hand out again)."""
    extra = [blob(-1 - i) for i in range(10 * inner)]

    def run() -> None:
        for i, data in enumerate(extra):
            store.add_named_data(f"extra{i}", data)
            store.get_named_data_store_output()

    return cpu(run) / inner


def case_output(impl: Impl, n: int, inner: int, **_: Any) -> float:
    """Ten (add, output) pairs on a store of N ``bytes`` entries (one tag holds half of them)."""
    store = filled(impl, [blob(i) for i in range(n // 2)])
    for i in range(n // 2, n):
        store.add_named_data(f"k{i}", blob(i), 1, "weights")
    return _outputs(impl, store, inner)


def case_output_files(impl: Impl, n: int, inner: int, directory: str = "", **_: Any) -> float:
    """Ten (add, output) pairs on a store of N file-backed entries."""
    files = [impl.FileBackedData(os.path.join(directory, f"{i}.bin")) for i in range(n)]
    try:
        return _outputs(impl, filled(impl, files), inner)
    finally:
        for data in files:
            data.close()


def _merge_all(targets: list[Any], outputs: list[Any]) -> Callable[[], None]:
    def run() -> None:
        for target in targets:
            merge = target.merge_named_data_store
            for out in outputs:
                merge(out)

    return run


def case_fbd_init(impl: Impl, n: int, inner: int, directory: str = "", **_: Any) -> float:
    """``FileBackedData(path)`` of N distinct files, each kept open (closed after the timing)."""
    paths = [os.path.join(directory, f"{i}.bin") for i in range(n)]
    made: list[Any] = []

    def run() -> None:
        wrap, keep = impl.FileBackedData, made.append
        for _ in range(inner):
            for path in paths:
                keep(wrap(path))

    try:
        return cpu(run) / inner
    finally:
        for data in made:
            data.close()


def case_merge_many(impl: Impl, n: int, inner: int, **_: Any) -> float:
    """N / 10 outputs of 10 entries each, merged one after the other into one store."""
    outputs = [
        filled(
            impl, [blob(j * ENTRIES + i) for i in range(ENTRIES)], f"p{j}_"
        ).get_named_data_store_output()
        for j in range(max(1, n // ENTRIES))
    ]
    targets = [impl.NamedDataStore() for _ in range(inner)]
    return cpu(_merge_all(targets, outputs)) / inner


def case_merge_into_large(impl: Impl, n: int, inner: int, **_: Any) -> float:
    """Ten merges of a 10-entry output each into a store of N entries (seconds per merge)."""
    outputs = [
        filled(
            impl, [blob(-1 - j * ENTRIES - i) for i in range(ENTRIES)], f"p{j}_"
        ).get_named_data_store_output()
        for j in range(10)
    ]
    blobs = [blob(i) for i in range(n)]
    targets = [filled(impl, blobs) for _ in range(inner)]
    return cpu(_merge_all(targets, outputs)) / inner / len(outputs)


def case_merge_into_empty(impl: Impl, n: int, inner: int, **_: Any) -> float:
    """One output of N entries merged into an empty store."""
    out = filled(impl, [blob(i) for i in range(n)]).get_named_data_store_output()
    targets = [impl.NamedDataStore() for _ in range(inner)]
    return cpu(_merge_all(targets, [out])) / inner


def case_merge_equal_copies(impl: Impl, n: int, inner: int, **_: Any) -> float:
    """One output of N entries into a store that holds equal copies (other objects, other keys):
    every entry is a fingerprint match settled by digest."""
    out = filled(impl, [blob(i) for i in range(n)], "theirs").get_named_data_store_output()
    targets = [filled(impl, [blob(i) for i in range(n)], "mine") for _ in range(inner)]
    return cpu(_merge_all(targets, [out])) / inner


def case_merge_one_into_many(impl: Impl, n: int, inner: int, **_: Any) -> float:
    """One 10-entry output merged into N / 10 fresh stores."""
    out = filled(impl, [blob(i) for i in range(ENTRIES)]).get_named_data_store_output()
    targets = [impl.NamedDataStore() for _ in range(max(1, n // ENTRIES) * inner)]

    def run() -> None:
        for target in targets:
            target.merge_named_data_store(out)

    return cpu(run) / inner


def case_collide(impl: Impl, n: int, inner: int, **_: Any) -> float:
    """N blobs of equal length and first 32 bytes, different contents, added to a new store."""
    blobs = [colliding(i) for i in range(n)]
    stores = [impl.NamedDataStore() for _ in range(inner)]

    def run() -> None:
        for store in stores:
            for i, data in enumerate(blobs):
                store.add_named_data(f"k{i}", data)

    seconds = cpu(run) / inner
    if len(stores[0].get_named_data_store_output().buffers) != n:
        raise AssertionError("colliding blobs were merged")
    return seconds


def case_cord_bytesio(impl: Impl, n: int, inner: int, **_: Any) -> float:
    """A Cord of N ``bytes`` pieces written into an ``io.BytesIO``."""
    cord = impl.Cord()
    for i in range(n):
        cord.append(blob(i))

    def run() -> None:
        for _ in range(inner):
            cord.write_to_file(io.BytesIO())

    return cpu(run) / inner


FILE_PIECES = 1000
"""Distinct file-backed pieces the Cord cases cycle through: few enough that an implementation
holding a descriptor per open blob runs at every N (each is appended N / 2 / FILE_PIECES times)."""


def _half_files(impl: Impl, n: int, directory: str) -> tuple[list[Any], list[Any]]:
    """N pieces, every other one file-backed (of ``FILE_PIECES`` files), and those files."""
    files = [
        impl.FileBackedData(os.path.join(directory, f"{i}.bin"))
        for i in range(min(FILE_PIECES, max(1, n // 2)))
    ]
    pieces = [blob(i) if i % 2 == 0 else files[(i // 2) % len(files)] for i in range(n)]
    return pieces, files


def _cord_of(impl: Impl, pieces: list[Any]) -> Any:
    cord = impl.Cord()
    for piece in pieces:
        cord.append(piece)
    return cord


def case_cord_append(impl: Impl, n: int, inner: int, directory: str = "", **_: Any) -> float:
    """N ``Cord.append`` calls into a new Cord, every other piece file-backed."""
    pieces, files = _half_files(impl, n, directory)
    try:
        cords = [impl.Cord() for _ in range(inner)]

        def run() -> None:
            for cord in cords:
                append = cord.append
                for piece in pieces:
                    append(piece)

        return cpu(run) / inner
    finally:
        for data in files:
            data.close()


def case_cord_file(impl: Impl, n: int, inner: int, directory: str = "", **_: Any) -> float:
    """A Cord of N pieces, every other one file-backed, written into a new real file."""
    pieces, files = _half_files(impl, n, directory)
    out = os.path.join(directory, "..", "cord.out")
    try:
        cord = _cord_of(impl, pieces)

        def run() -> None:
            for _ in range(inner):
                with open(out, "wb") as sink:
                    cord.write_to_file(sink)

        return cpu(run) / inner
    finally:
        for data in files:
            data.close()
        os.unlink(out)


def case_cord_bytesio_files(impl: Impl, n: int, inner: int, directory: str = "", **_: Any) -> float:
    """A Cord of N pieces, every other one file-backed, written into an ``io.BytesIO``."""
    pieces, files = _half_files(impl, n, directory)
    try:
        cord = _cord_of(impl, pieces)

        def run() -> None:
            for _ in range(inner):
                cord.write_to_file(io.BytesIO())

        return cpu(run) / inner
    finally:
        for data in files:
            data.close()


def case_add_identical(impl: Impl, n: int, inner: int, **_: Any) -> float:
    """N adds of equal contents in distinct ``bytes`` objects under distinct keys: one buffer."""
    stores, run = _adding(impl, [bytes(bytearray(blob(0))) for _ in range(n)], inner)
    seconds = cpu(run) / inner
    if len(stores[0].get_named_data_store_output().buffers) != 1:
        raise AssertionError("equal blobs were not shared")
    return seconds


def case_output_after_adds(impl: Impl, n: int, inner: int, **_: Any) -> float:
    """One output of a store right after N adds (half of them under one tag)."""
    stores = []
    for _copy in range(inner):
        store = filled(impl, [blob(i) for i in range(n // 2)])
        for i in range(n // 2, n):
            store.add_named_data(f"k{i}", blob(i), 1, "weights")
        stores.append(store)

    def run() -> None:
        for store in stores:
            store.get_named_data_store_output()

    return cpu(run) / inner


CASES: dict[str, Callable[..., float]] = {
    "add": case_add,
    "output": case_output,
    "output_files": case_output_files,
    "fbd_init": case_fbd_init,
    "merge_many": case_merge_many,
    "merge_into_large": case_merge_into_large,
    "merge_into_empty": case_merge_into_empty,
    "merge_equal_copies": case_merge_equal_copies,
    "merge_one_into_many": case_merge_one_into_many,
    "collide": case_collide,
    "cord_bytesio": case_cord_bytesio,
    "cord_append": case_cord_append,
    "cord_file": case_cord_file,
    "cord_bytesio_files": case_cord_bytesio_files,
    "add_identical": case_add_identical,
    "output_after_adds": case_output_after_adds,
}
"""Each case by name, in the order of the report."""

TITLES = {
    "add": "N adds of distinct blobs",
    "output": "10 × (add, output), store of N bytes entries",
    "output_files": "10 × (add, output), store of N file-backed entries",
    "fbd_init": "FileBackedData(path) of N files",
    "merge_many": "N/10 merges of 10-entry outputs into one store",
    "merge_into_large": "one 10-entry merge into a store of N entries",
    "merge_into_empty": "one N-entry merge into an empty store",
    "merge_equal_copies": "one N-entry merge into a store of equal copies",
    "merge_one_into_many": "one 10-entry output into N/10 stores",
    "collide": "N blobs of one fingerprint (length, first 32 bytes)",
    "cord_bytesio": "Cord of N pieces → BytesIO",
    "cord_append": "N Cord.append, half file-backed",
    "cord_file": "Cord of N pieces, half file-backed → real file",
    "cord_bytesio_files": "Cord of N pieces, half file-backed → BytesIO",
    "add_identical": "N adds of equal bytes in distinct objects",
    "output_after_adds": "one output right after N adds",
}

FILE_CASES = ("output_files", "fbd_init", "cord_append", "cord_file", "cord_bytesio_files")
"""The cases that wrap the files ``write_files`` makes."""
N_FILE_CASES = ("output_files", "fbd_init")
"""The cases that wrap N distinct files (the others cycle through ``FILE_PIECES``)."""


def op_scale(
    impl: Impl, case: str, n: int, inner: int = 1, **kwargs: Any
) -> tuple[float, dict[str, Any]]:
    """The worker's entry: seconds of one run of ``case`` at size ``n``."""
    return CASES[case](impl, n, inner, **kwargs), {}


def write_files(directory: str, n: int) -> None:
    """N files of ``BLOB`` bytes with distinct first 32 bytes, for ``output_files``."""
    for i in range(n):
        with open(os.path.join(directory, f"{i}.bin"), "wb") as f:
            f.write(blob(i))
