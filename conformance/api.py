"""The interface an implementation offers the conformance suite: typed Protocols and capabilities.

Parameters that carry an implementation's own objects, or values the suite passes wrong on purpose,
are typed ``Any``: each implementation's classes are nominal types the suite cannot name, and the
spec requires runtime type checks there. Results are typed precisely.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Protocol, TypeVar

__all__ = [
    "HOOKS",
    "Capability",
    "CopyHook",
    "Cord",
    "CordClass",
    "DataEntry",
    "DataEntryClass",
    "FileBackedData",
    "FileBackedDataClass",
    "Implementation",
    "ImplementationError",
    "LowMemoryWeights",
    "Lowering",
    "MissingFileBackedData",
    "NamedDataStore",
    "NamedDataStoreClass",
    "NamedDataStoreOutput",
    "NamedDataStoreOutputClass",
    "Preprocess",
    "Submodules",
    "Sweep",
    "WeightsHooks",
    "Writable",
    "without",
]

T = TypeVar("T")


class ImplementationError(Exception):
    """The named implementation cannot be loaded, or is not an implementation at all."""


class Capability(str, enum.Enum):
    """Optional parts of the spec (SPEC.md section 1.1); a test needing an absent one is reported
    "not applicable", and a verdict names the parts it was given without."""

    FILE_BACKED = "file-backed"
    """``FileBackedData`` (and with it file-backed pieces and blobs)."""
    SWEEP = "sweep"
    """The implementation's own sweep of orphaned placeholders."""
    EXTERNALIZE = "externalize"
    """``NamedDataStore.externalize_pte_data``."""
    COPY_HOOK = "copy-hook"
    """``BackendDetails.copy_exported_program_for_preprocess`` and the lowering that calls it."""
    WEIGHTS_HOOKS = "weights-hooks"
    """The default ``materialize_weights_blob`` and ``load_weights_blob``."""
    WEIGHTS_KEY = "weights-key"
    """Storing a loaded weights blob in named data under ``<hex>_weights_blob``."""
    LOW_MEMORY = "low-memory-weights"
    """Low-memory weights: written while hashed, handed over as a file."""
    SUBPROCESS = "subprocess"
    """The implementation can be loaded again by name in a child process (exit behaviour); an
    ability of the adapter, not a part of the spec."""

    @property
    def label(self) -> str:
        """The part's name as a verdict says it (``core (without: file-backed data)``)."""
        return _TITLES[self]


_TITLES = {
    Capability.FILE_BACKED: "file-backed data",
    Capability.SWEEP: "sweep",
    Capability.EXTERNALIZE: "externalize_pte_data",
    Capability.COPY_HOOK: "program-copy hook",
    Capability.WEIGHTS_HOOKS: "weights-blob hooks",
    Capability.WEIGHTS_KEY: "weights-blob key",
    Capability.LOW_MEMORY: "low-memory weights",
    Capability.SUBPROCESS: "child processes",
}
HOOKS = frozenset(
    {Capability.COPY_HOOK, Capability.WEIGHTS_HOOKS, Capability.WEIGHTS_KEY, Capability.LOW_MEMORY}
)
"""The backend hooks (SPEC.md section 5): a verdict without all of them says "hooks"."""


def without(absent: Iterable[Capability]) -> list[str]:
    """The names of the absent parts, in the order of :class:`Capability`, the four hooks as one
    "hooks" when all four are absent."""
    missing = set(absent)
    names = []
    for capability in Capability:
        if capability not in missing:
            continue
        if missing >= HOOKS and capability in HOOKS:
            if capability is Capability.COPY_HOOK:
                names.append("hooks")
            continue
        names.append(capability.label)
    return names


class Sweep(Protocol):
    """The implementation's sweep of orphaned placeholders (SPEC.md section 3.7)."""

    def sweep(self, directory: str, dry_run: bool) -> Sequence[str]:
        """Sweep ``directory`` (or only list, for a dry run); return the paths removed (or that
        would be), each the directory joined with the file's name. Raises ``OSError`` when
        ``directory`` is missing or is not a directory."""
        ...


class Writable(Protocol):
    """A binary sink: a file opened for writing, ``io.BytesIO``."""

    def write(self, data: bytes | memoryview, /) -> object: ...


class FileBackedData(Protocol):
    """A blob stored in a file."""

    def __len__(self) -> int: ...
    def prefix(self, size: Any) -> bytes: ...
    def sha256(self) -> bytes: ...
    def to_bytes(self) -> bytes: ...
    def write_to_file(self, outfile: Any) -> None: ...
    def close(self) -> None: ...
    def __enter__(self) -> Any: ...
    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None: ...


class FileBackedDataClass(Protocol):
    """The ``FileBackedData`` class: its constructor and its ``move_from`` factory."""

    def __call__(self, path: Any, cleanup: Any = ..., sha256: Any = ...) -> FileBackedData: ...
    def move_from(self, path: Any, sha256: Any = ...) -> FileBackedData: ...


class Cord(Protocol):
    """Bytes assembled from pieces."""

    def __len__(self) -> int: ...
    def __bytes__(self) -> bytes: ...
    def append(self, data: Any) -> None: ...
    def write_to_file(self, outfile: Any) -> None: ...


class CordClass(Protocol):
    """The ``Cord`` class."""

    def __call__(self, data: Any = ...) -> Cord: ...


class DataEntry(Protocol):
    """Where a key's data is."""

    @property
    def buffer_index(self) -> int: ...
    @property
    def alignment(self) -> int: ...
    @property
    def tensor_layout(self) -> object: ...


class DataEntryClass(Protocol):
    """The ``DataEntry`` class."""

    def __call__(self, buffer_index: Any, alignment: Any, tensor_layout: Any) -> DataEntry: ...


class NamedDataStoreOutput(Protocol):
    """A store's contents."""

    @property
    def buffers(self) -> Sequence[bytes | FileBackedData]: ...
    @property
    def pte_data(self) -> Mapping[str, DataEntry]: ...
    @property
    def external_data(self) -> Mapping[str, Mapping[str, DataEntry]]: ...


class NamedDataStoreOutputClass(Protocol):
    """The ``NamedDataStoreOutput`` class."""

    def __call__(self, buffers: Any, pte_data: Any, external_data: Any) -> NamedDataStoreOutput: ...


class NamedDataStore(Protocol):
    """Named blobs with dedup and merge."""

    def add_named_data(
        self,
        key: Any,
        data: Any,
        alignment: Any = ...,
        external_tag: Any = ...,
        tensor_layout: Any = ...,
    ) -> None: ...
    def get_named_data_store_output(self) -> NamedDataStoreOutput: ...
    def merge_named_data_store(self, other: Any) -> None: ...
    @property
    def key_to_buffer_idx(self) -> Mapping[str, int]:
        """Every key to its buffer's index (NDS-SURFACE-1: production code reads it)."""
        ...


class NamedDataStoreClass(Protocol):
    """The ``NamedDataStore`` class."""

    def __call__(self) -> NamedDataStore: ...


Submodules = Mapping[str, Sequence[tuple[object, Sequence[object]]]]
"""What lowering takes: per method, each submodule's program with its compile specs."""
CopyHook = Callable[[object, Sequence[object]], object]
"""A ``copy_exported_program_for_preprocess``: (program, compile specs) to the program to use."""
Preprocess = Callable[[object, Sequence[object]], None]
"""The probe backend's ``preprocess``: it sees each (program, compile specs) lowering hands it."""


class Lowering(Protocol):
    """Drives the copy hook and lowering with a probe backend the suite defines."""

    def compile_spec(self, key: str, value: bytes) -> object:
        """A compile spec of the implementation."""
        ...

    def default_copy(self, program: T, compile_specs: Sequence[object]) -> T:
        """The base class's ``copy_exported_program_for_preprocess``."""
        ...

    def lower(
        self, submodules: Submodules, copy_hook: CopyHook | None, preprocess: Preprocess
    ) -> None:
        """Lower every (program, compile specs) of every method with a backend whose copy hook is
        ``copy_hook`` (the default when None) and whose preprocess calls ``preprocess``."""
        ...


class WeightsHooks(Protocol):
    """The default weights-blob hooks."""

    def materialize(self, paths: T, compile_specs: Sequence[object]) -> T: ...
    def load(self, blob_path: str, compile_specs: Sequence[object]) -> tuple[object, str]: ...


class WeightsStore(Protocol):
    """Loading a blob into named data under its key."""

    def store(self, blob_path: str, store: NamedDataStore) -> str:
        """Load the blob (default hooks) into ``store``; return the key it was stored under."""
        ...


class LowMemoryWeights(Protocol):
    """Low-memory weights: written and hashed in ``materialize``, handed over in ``load``."""

    def materialize(self, so_path: str, chunks: Iterable[bytes]) -> str:
        """Write the blob for the ``.wrapper.so`` at ``so_path``; return its path as handed on."""
        ...

    def load(self, blob_path: str) -> tuple[object, str]:
        """Load the blob in low-memory mode: (data, hex digest)."""
        ...

    def mode(self, values: Sequence[bytes]) -> bool:
        """Whether low-memory mode is on for one ``low_memory_mode`` compile spec per value, as
        every place of the implementation that reads the flag reads it; raises as they raise."""
        ...


class MissingFileBackedData:
    """Stands in for the ``FileBackedData`` of an implementation that has none: a class no object
    is an instance of, whose constructor and ``move_from`` raise. A test that uses it without
    ``requires("file-backed")`` fails, rather than being credited or skipped."""

    def __init__(self, path: object, cleanup: object = False, sha256: object = None) -> None:
        raise ImplementationError(_NO_FILE_BACKED)

    @classmethod
    def move_from(cls, path: object, sha256: object = None) -> FileBackedData:
        raise ImplementationError(_NO_FILE_BACKED)


_NO_FILE_BACKED = (
    "this implementation has no FileBackedData: a test that needs it must be marked "
    'requires("file-backed")'
)

_Blob = FileBackedData  # the field names of Implementation shadow the protocols in its body


@dataclass(frozen=True)
class Implementation:
    """One implementation under test, as an adapter presents it to the suite."""

    name: str
    version: str
    Cord: CordClass
    FileBackedData: FileBackedDataClass
    NamedDataStore: NamedDataStoreClass
    NamedDataStoreOutput: NamedDataStoreOutputClass
    DataEntry: DataEntryClass
    path_of: Callable[[_Blob], str]
    """Where a FileBackedData's file is now (for independent checks on disk)."""
    target: str | None = None
    """The ``--impl`` value that loads it again by name (in a child process); None when none can."""
    lowering: Lowering | None = None
    weights: WeightsHooks | None = None
    weights_store: WeightsStore | None = None
    low_memory: LowMemoryWeights | None = None
    sweep: Sweep | None = None
    file_backed: bool = True
    """Whether it has ``FileBackedData`` at all; when not, ``FileBackedData`` is
    :class:`MissingFileBackedData`, which refuses every use."""
    absent: Mapping[Capability, str] = field(default_factory=dict)
    """Why a capability is missing, for the report."""

    @property
    def capabilities(self) -> frozenset[Capability]:
        """The optional parts this implementation provides."""
        present = {
            Capability.FILE_BACKED: self.file_backed,
            Capability.SWEEP: self.sweep is not None,
            Capability.EXTERNALIZE: hasattr(self.NamedDataStore, "externalize_pte_data"),
            Capability.COPY_HOOK: self.lowering is not None,
            Capability.WEIGHTS_HOOKS: self.weights is not None,
            Capability.WEIGHTS_KEY: self.weights_store is not None,
            Capability.LOW_MEMORY: self.low_memory is not None,
            Capability.SUBPROCESS: self.target is not None,
        }
        return frozenset(c for c, ok in present.items() if ok)

    def why_absent(self, capability: Capability) -> str:
        """A one-line reason a capability is missing."""
        return self.absent.get(capability, f"{self.name} does not provide {capability.value}")
