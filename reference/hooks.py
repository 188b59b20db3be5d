"""Backend hooks: program copying before preprocess, and weights blobs handed over as files."""

from __future__ import annotations

import contextlib
import copy
import errno
import hashlib
import os
import stat
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from .cord import CordBuffer
from .file_backed import CHUNK_SIZE, FileBackedData
from .named_data import NamedDataStore, NamedDataStoreOutput

__all__ = [
    "LOW_MEMORY_MODE",
    "WEIGHTS_BLOB_SUFFIX",
    "AotiBackend",
    "BackendDetails",
    "CompileSpec",
    "FileBackedAotiBackend",
    "PreprocessResult",
    "Submodule",
    "Weights",
    "WeightsBlobPath",
    "is_low_memory_mode",
    "lower_all_submodules_to_backend",
]

LOW_MEMORY_MODE = "low_memory_mode"
WEIGHTS_BLOB_SUFFIX = "_weights_blob"

ProgramT = TypeVar("ProgramT")


@dataclass(frozen=True)
class CompileSpec:
    """One backend option: a key and its raw value."""

    key: str
    value: bytes


@dataclass
class PreprocessResult:
    """What preprocess returns: compiled bytes and the named data the backend wants stored."""

    processed_bytes: bytes = b""
    data_store_output: NamedDataStoreOutput | None = None


@dataclass(frozen=True)
class Submodule:
    """A partition to lower: its program and the compile specs that go with it."""

    program: object
    compile_specs: tuple[CompileSpec, ...]


class BackendDetails(ABC):
    """A backend: ``preprocess`` compiles a program; the copy hook decides what it may touch."""

    @classmethod
    def copy_exported_program_for_preprocess(
        cls, edge_program: ProgramT, compile_specs: Sequence[CompileSpec]
    ) -> ProgramT:
        """Return a program preprocess may change freely; by default a deep copy."""
        # HOOK-COPY-1 and HOOK-COPY-5: nothing of the copy is shared with the original.
        return copy.deepcopy(edge_program)

    @staticmethod
    @abstractmethod
    def preprocess(edge_program: object, compile_specs: Sequence[CompileSpec]) -> PreprocessResult:
        """Compile one program."""

    @classmethod
    def preprocess_multimethod(
        cls,
        edge_programs: Mapping[str, Sequence[object]],
        compile_specs: Mapping[str, Sequence[Sequence[CompileSpec]]],
    ) -> dict[str, list[PreprocessResult]]:
        """Preprocess every partition of every method, each with its own compile specs."""
        results: dict[str, list[PreprocessResult]] = {}
        for method, programs in edge_programs.items():
            specs = compile_specs[method]
            if len(specs) != len(programs):
                raise ValueError(
                    f"method {method!r} has {len(programs)} programs "
                    f"but {len(specs)} compile-spec lists"
                )
            results[method] = [cls.preprocess(p, s) for p, s in zip(programs, specs, strict=True)]
        return results


def lower_all_submodules_to_backend(
    backend: type[BackendDetails], method_to_submodules: Mapping[str, Sequence[Submodule]]
) -> dict[str, list[PreprocessResult]]:
    """Copy each submodule once, paired with its own compile specs, then preprocess the copies.

    HOOK-COPY-2: one copy per submodule with its own specs; HOOK-COPY-4: through ``backend``, so
    an override is called; HOOK-COPY-3: preprocess gets those very copies."""
    specs = {
        method: [sub.compile_specs for sub in subs] for method, subs in method_to_submodules.items()
    }
    programs = {
        method: [
            backend.copy_exported_program_for_preprocess(sub.program, sub.compile_specs)
            for sub in subs
        ]
        for method, subs in method_to_submodules.items()
    }
    return backend.preprocess_multimethod(programs, specs)


def is_low_memory_mode(compile_specs: Iterable[CompileSpec]) -> bool:
    """The one reading of the ``low_memory_mode`` spec: ON or OFF (any case), absent means OFF.

    HOOK-LOW-3: every hook asks this function; other values and conflicts raise ValueError."""
    values = {_mode(spec.value) for spec in compile_specs if spec.key == LOW_MEMORY_MODE}
    invalid = values - {"ON", "OFF"}
    if invalid:
        raise ValueError(f"Invalid {LOW_MEMORY_MODE}: {sorted(invalid)}. Expected 'ON' or 'OFF'.")
    if len(values) > 1:
        raise ValueError(f"Conflicting {LOW_MEMORY_MODE} compile specs: {sorted(values)}")
    return values == {"ON"}


def _mode(value: bytes) -> str:
    if not isinstance(value, bytes):  # outside the hooks' contract, but named (HOOK-LOW-3)
        raise ValueError(f"Invalid {LOW_MEMORY_MODE}: {value!r}. Expected b'ON' or b'OFF'.")
    try:
        return value.decode("utf-8").upper()
    except UnicodeDecodeError:  # not text at all: named as the bytes it is
        raise ValueError(f"Invalid {LOW_MEMORY_MODE}: {value!r}. Expected 'ON' or 'OFF'.") from None


class WeightsBlobPath(str):
    """A blob path carrying the digest computed while writing it, and which file that was.

    HOOK-LOW-4: the digest travels on the path object, not in process-wide state."""

    sha256: bytes
    _stamp: tuple[int, int, int, int]

    def __new__(
        cls, path: str, sha256: bytes, stamp: tuple[int, int, int, int] | None = None
    ) -> WeightsBlobPath:
        """``stamp``: the file's as it was hashed (by default, what ``path`` names now)."""
        self = super().__new__(cls, path)
        self.sha256 = sha256
        self._stamp = _stamp(path) if stamp is None else stamp
        return self

    def digest_if_unchanged(self) -> bytes | None:
        """The carried digest, or None when the file is no longer the one that was hashed
        (HOOK-LOW-4: same device, inode, size and modification time)."""
        try:
            return self.sha256 if _stamp(self) == self._stamp else None
        except OSError:
            return None


def _stamp(path: str) -> tuple[int, int, int, int]:
    return _stamp_of(os.stat(path))


def _stamp_of(st: os.stat_result) -> tuple[int, int, int, int]:
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def _check_replaceable(path: str) -> None:
    """HOOK-MAT-3: ``path`` is free, or a regular file of this user's (a blob an earlier export
    left) that a rename may replace; anything else (a link, a FIFO, a directory, a file of another
    user's, planted in a shared directory) is refused with FileExistsError naming it. Read with
    ``lstat``: nothing at ``path`` is followed or opened."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISREG(st.st_mode) and st.st_uid == os.geteuid():
        return
    what = (
        "a symbolic link"
        if stat.S_ISLNK(st.st_mode)
        else "a FIFO"
        if stat.S_ISFIFO(st.st_mode)
        else "a directory"
        if stat.S_ISDIR(st.st_mode)
        else f"a file of user {st.st_uid}"
        if stat.S_ISREG(st.st_mode)
        else "not a regular file"
    )
    raise FileExistsError(
        errno.EEXIST,
        f"refusing to write the weights blob over what exists at its name, {what}, not a "
        "regular file of this user's (remove it, or export to a directory only you can write)",
        path,
    )


def _write_blob(blob_path: str, chunks: Iterable[bytes]) -> tuple[bytes, tuple[int, int, int, int]]:
    """Write ``chunks`` to ``blob_path``; their digest, and the stamp of the file written.

    HOOK-MAT-3: the blob is created exclusively (``mkstemp``: ``O_CREAT|O_EXCL|O_NOFOLLOW``, mode
    0600) under a fresh name beside ``blob_path``, then renamed onto it, so no file, link or FIFO
    planted at ``blob_path`` is opened, followed or written into; the stamp is the descriptor's,
    of the file this process wrote. On any failure the temporary file is removed."""
    _check_replaceable(blob_path)  # before the weights are written: a plant fails fast
    directory, name = os.path.split(blob_path)
    fd, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory or ".")
    try:
        digest = hashlib.sha256()
        with os.fdopen(fd, "wb") as f:
            for chunk in chunks:
                for start in range(0, len(chunk), CHUNK_SIZE):
                    piece = chunk[start : start + CHUNK_SIZE]
                    digest.update(piece)
                    f.write(piece)
            f.flush()
            stamp = _stamp_of(os.fstat(f.fileno()))
        _check_replaceable(blob_path)  # a rename never follows what it replaces: see above
        os.replace(temporary, blob_path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    return digest.digest(), stamp


@dataclass(frozen=True)
class Weights:
    """Weights still in memory or being produced, as a stream of byte chunks."""

    chunks: Iterable[bytes]


class AotiBackend:
    """The weights-blob hooks of an AOTI-style backend; the defaults keep the old behaviour."""

    @classmethod
    def get_device_name(cls) -> str:
        return "cpu"

    @classmethod
    def save_data_externally(cls) -> bool:
        return False

    @classmethod
    def materialize_weights_blob(
        cls, paths: object, compile_specs: Sequence[CompileSpec]
    ) -> object:
        """Turn compiler outputs (whatever the compiler returned: ExecuTorch types them ``Any``)
        into files on disk; by default they already are."""
        return paths  # HOOK-MAT-1: the same object

    @classmethod
    def load_weights_blob(
        cls, blob_path: str, compile_specs: Sequence[CompileSpec]
    ) -> tuple[CordBuffer, str]:
        """Read the blob into memory, remove its file, return it with its hex SHA-256
        (HOOK-LOAD-1)."""
        with open(blob_path, "rb") as f:
            data = f.read()
        os.remove(blob_path)
        return data, hashlib.sha256(data).hexdigest()

    @classmethod
    def store_weights_blob(
        cls, blob_path: str, compile_specs: Sequence[CompileSpec], store: NamedDataStore
    ) -> str:
        """Load the blob, add it to ``store`` as ``<sha256 hex>_weights_blob``; return the key."""
        data, hexdigest = cls.load_weights_blob(blob_path, compile_specs)
        key = hexdigest + WEIGHTS_BLOB_SUFFIX  # HOOK-LOAD-2: the key and tag of the blob
        tag = f"aoti_{cls.get_device_name()}_blob" if cls.save_data_externally() else None
        store.add_named_data(key, data, 1, tag)
        return key


class FileBackedAotiBackend(AotiBackend):
    """Low-memory mode: the blob is written once, hashed meanwhile, and handed over as a file."""

    @classmethod
    def materialize_weights_blob(
        cls, paths: object, compile_specs: Sequence[CompileSpec]
    ) -> object:
        """Write ``Weights`` beside the ``.wrapper.so`` as ``*_weights.blob``, hashing it."""
        if not is_low_memory_mode(compile_specs) or not isinstance(paths, list):
            return paths
        weights = [p for p in paths if isinstance(p, Weights)]
        if not weights:
            return paths
        so_paths = [p for p in paths if isinstance(p, str) and p.endswith(".wrapper.so")]
        if len(weights) != 1 or len(so_paths) != 1:
            raise ValueError(
                f"expected one Weights and one .wrapper.so output, "
                f"got {len(weights)} and {len(so_paths)}"
            )
        so_path = str.__str__(so_paths[0])  # the path's text, whatever a subclass's methods say
        blob_path = os.path.splitext(so_path)[0] + "_weights.blob"
        # HOOK-BLOB-1: the weights in order and nothing else (no padding: alignment 1).
        # HOOK-MAT-2: streamed in CHUNK_SIZE pieces, hashed while written; HOOK-MAT-3: created
        # exclusively and renamed into place.
        digest, stamp = _write_blob(blob_path, weights[0].chunks)
        rest = [p for p in paths if not isinstance(p, Weights)]
        return [*rest, WeightsBlobPath(blob_path, digest, stamp)]

    @classmethod
    def load_weights_blob(
        cls, blob_path: str, compile_specs: Sequence[CompileSpec]
    ) -> tuple[CordBuffer, str]:
        """In low-memory mode, take the file over with the digest handed on from materialize."""
        if not is_low_memory_mode(compile_specs):
            return super().load_weights_blob(blob_path, compile_specs)
        # HOOK-LOW-2: the digest of materialize, if the file is still the one hashed (HOOK-LOW-4);
        # HOOK-LOW-1: the file itself taken over, never read into memory.
        digest = blob_path.digest_if_unchanged() if isinstance(blob_path, WeightsBlobPath) else None
        data = FileBackedData.move_from(blob_path, sha256=digest)
        return data, data.sha256().hex()
