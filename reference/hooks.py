"""Backend hooks: program copying before preprocess, and weights blobs handed over as files."""

from __future__ import annotations

import copy
import hashlib
import os
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

    def __new__(cls, path: str, sha256: bytes) -> WeightsBlobPath:
        self = super().__new__(cls, path)
        self.sha256 = sha256
        self._stamp = _stamp(path)
        return self

    def digest_if_unchanged(self) -> bytes | None:
        """The carried digest, or None when the file is no longer the one that was hashed
        (HOOK-LOW-4: same device, inode, size and modification time)."""
        try:
            return self.sha256 if _stamp(self) == self._stamp else None
        except OSError:
            return None


def _stamp(path: str) -> tuple[int, int, int, int]:
    st = os.stat(path)
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


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
        blob_path = os.path.splitext(so_paths[0])[0] + "_weights.blob"
        # HOOK-BLOB-1: the weights in order and nothing else (no padding: alignment 1).
        # HOOK-MAT-2: streamed in CHUNK_SIZE pieces, hashed while written.
        digest = hashlib.sha256()
        with open(blob_path, "wb") as f:
            for chunk in weights[0].chunks:
                for start in range(0, len(chunk), CHUNK_SIZE):
                    piece = chunk[start : start + CHUNK_SIZE]
                    digest.update(piece)
                    f.write(piece)
        rest = [p for p in paths if not isinstance(p, Weights)]
        return [*rest, WeightsBlobPath(blob_path, digest.digest())]

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
