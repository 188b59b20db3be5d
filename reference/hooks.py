"""Backend hooks: program copying before preprocess, and weights blobs handed over as files."""

from __future__ import annotations

import contextlib
import copy
import errno
import hashlib
import os
import stat
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from .cord import CordBuffer
from .deferral import _atomically, _Deferral, _python_handlers
from .file_backed import CHUNK_SIZE, FileBackedData
from .location import Location, _direct, _walk, locate
from .named_data import NamedDataStore, NamedDataStoreOutput
from .placeholders import _Move, put_back
from .renames import rename_noreplace

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


def _check_replaceable(directory: int, name: str, path: str) -> tuple[int, int] | None:
    """HOOK-MAT-3: ``name`` in ``directory`` (a descriptor; ``path`` for messages) is free
    (None), or a regular file of this user's (a blob an earlier export left), whose
    ``(st_dev, st_ino)`` is returned: only that very file may be replaced. Anything else (a link,
    a FIFO, a directory, a file of another user's, planted in a shared directory) is refused with
    FileExistsError naming ``path``. Read with ``lstat``: nothing at the name is followed or
    opened."""
    try:
        st = os.stat(name, dir_fd=directory, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if stat.S_ISREG(st.st_mode) and st.st_uid == os.geteuid():
        return st.st_dev, st.st_ino
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


def _output_directory(blob_path: str) -> tuple[int, str]:
    """A descriptor of the blob's directory and the blob's name in it (HOOK-MAT-4): reached as an
    owner's directory is (FBD-INIT-9), following no directory link another user than this
    process's or root owns; such a link is refused with ValueError naming ``blob_path``."""
    absolute = blob_path if os.path.isabs(blob_path) else os.path.join(os.getcwd(), blob_path)
    directory, name = os.path.split(absolute)
    try:
        held = _direct(directory)
        if (
            held is None
        ):  # pragma: no cover  # a link on the path: walked, to see whose each link is
            relative = not os.path.isabs(blob_path)
            held = _walk(os.path.dirname(blob_path) if relative else directory, relative)
    except ValueError as exc:  # pragma: no cover  # the suite's race or fault
        raise ValueError(f"refusing to write the weights blob {blob_path!r}: {exc}") from None
    except OSError as exc:  # pragma: no cover  # named by the blob's path
        raise type(exc)(exc.errno, exc.strerror, blob_path) from exc
    return held, name


_CREATE_FLAGS = (
    os.O_WRONLY
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
)
_NAME_TRIES = 100


def _fresh_name(directory: int, name: str, suffix: str) -> str:
    """A name ``.<name>.<random>.<suffix>`` that nothing in ``directory`` has now. The random
    part comes from the OS (``os.urandom``): unlike ``tempfile``'s names, it takes no lock that
    a child forked while another thread held it would wait on for ever (HOOK-MAT-5)."""
    for _ in range(_NAME_TRIES):
        candidate = f".{name[:200]}.{os.urandom(6).hex()}.{suffix}"
        try:
            os.stat(candidate, dir_fd=directory, follow_symlinks=False)
        except FileNotFoundError:
            return candidate
    raise FileExistsError(errno.EEXIST, "no unused temporary name found", name)  # pragma: no cover


class _Blob:
    """One blob write's state: the output directory's descriptor, the temporary's name and
    descriptor once made. ``discard`` undoes whatever of it exists, and can run again."""

    def __init__(self, blob_path: str) -> None:
        self.path = blob_path
        self.directory = -1
        self.name = ""
        self.temporary = ""
        self.fd = -1

    def open_directory(self) -> None:
        """Hold the blob's directory, reached following no other user's link (HOOK-MAT-4)."""
        self.directory, self.name = _output_directory(self.path)

    @staticmethod
    def deferral() -> _Deferral | None:
        """What defers signals over the write (HOOK-MAT-6); None where no signal has a Python
        handler this thread could run."""
        handlers = _python_handlers()
        return _Deferral(handlers) if handlers else None

    def create(self) -> None:
        """The temporary, created exclusively (``O_CREAT|O_EXCL|O_NOFOLLOW``, mode 0600)."""
        while not self.temporary:
            candidate = _fresh_name(self.directory, self.name, "tmp")
            try:
                self.fd = os.open(candidate, _CREATE_FLAGS, 0o600, dir_fd=self.directory)
            except FileExistsError:  # pragma: no cover  # the suite's race or fault
                continue  # taken since it was drawn: draw another
            self.temporary = candidate

    def place(self, earlier: tuple[int, int] | None) -> None:
        """Rename the temporary onto the blob's name, never replacing what another put there
        (HOOK-MAT-3): a free name by ``rename_noreplace``; an earlier blob of this user's is first
        renamed aside (never replacing either), checked to be that very file (``earlier``), and
        removed only once the new blob has the name. Whatever else is found is put back and
        refused."""
        if earlier is None:
            self._rename_or_refuse()
            return
        aside = _fresh_name(self.directory, self.name, "earlier")
        rename_noreplace(self.directory, self.name, self.directory, aside)
        st = os.stat(aside, dir_fd=self.directory, follow_symlinks=False)
        if (st.st_dev, st.st_ino) != earlier or not stat.S_ISREG(st.st_mode):  # pragma: no cover
            self._restore(aside)
            _check_replaceable(self.directory, self.name, self.path)  # names what came
            raise FileExistsError(errno.EEXIST, "the blob's name changed hands", self.path)
        try:
            self._rename_or_refuse()
        except BaseException:  # pragma: no cover  # the suite's race or fault
            self._restore(aside)
            raise
        os.unlink(aside, dir_fd=self.directory)

    def _rename_or_refuse(self) -> None:
        try:
            rename_noreplace(self.directory, self.temporary, self.directory, self.name)
        except FileExistsError:  # pragma: no cover  # the suite's race or fault
            _check_replaceable(self.directory, self.name, self.path)  # names what came
            raise FileExistsError(
                errno.EEXIST, "something was put at the blob's name meanwhile", self.path
            ) from None
        self.temporary = ""  # the blob now: nothing left to discard

    def _restore(self, aside: str) -> None:  # pragma: no cover  # the suite's race or fault
        """What was renamed aside goes back to the blob's name; where another took that name
        meanwhile, it stays at ``aside`` (never deleted), and the error says where."""
        try:
            rename_noreplace(self.directory, aside, self.directory, self.name)
        except OSError as exc:  # pragma: no cover  # the suite's race or fault
            raise OSError(
                exc.errno,
                f"could not put back what was at the blob's name; it is kept at {aside!r}",
                self.path,
            ) from exc

    def discard(self) -> None:
        """Close the temporary's descriptor and remove the temporary: nothing of it is left."""
        fd, self.fd = self.fd, -1
        if fd >= 0:
            with contextlib.suppress(OSError):
                os.close(fd)
        temporary, self.temporary = self.temporary, ""
        if temporary:
            with contextlib.suppress(OSError):
                os.unlink(temporary, dir_fd=self.directory)
        directory, self.directory = self.directory, -1
        if directory >= 0:
            with contextlib.suppress(OSError):
                os.close(directory)


def _write_blob(
    blob_path: str, chunks: Iterable[bytes], kind: type[_Blob] = _Blob
) -> tuple[bytes, tuple[int, int, int, int]]:
    """Write ``chunks`` to ``blob_path``; their digest, and the stamp of the file written.

    HOOK-MAT-3: the blob is created exclusively under a fresh name beside ``blob_path`` and
    renamed onto it without replacing anything but an earlier blob of this user's; the stamp is
    the descriptor's, of the file this process wrote. HOOK-MAT-4: the directory is reached
    following no other user's link. HOOK-MAT-6: every signal with a Python handler is deferred
    from before the temporary is made until it is renamed or removed, and handed to its handler
    between pieces: a handler that raises there meets the clean-up, which it cannot split."""
    blob = kind(blob_path)
    deferred = blob.deferral()
    try:
        if deferred is not None:  # pragma: no branch  # the suite's race or fault
            deferred.begin()
        blob.open_directory()
        _check_replaceable(blob.directory, blob.name, blob_path)  # a plant fails fast
        blob.create()
        digest = hashlib.sha256()
        iterator = iter(chunks)
        while True:
            _deliver(deferred)  # before the producer is asked for more: a Ctrl-C ends here
            chunk = next(iterator, None)
            if chunk is None:
                break
            for start in range(0, len(chunk), CHUNK_SIZE):
                piece = chunk[start : start + CHUNK_SIZE]
                digest.update(piece)
                _write_all(blob.fd, piece)
                _deliver(deferred)
        stamp = _stamp_of(os.fstat(blob.fd))
        earlier = _check_replaceable(blob.directory, blob.name, blob_path)
        blob.place(earlier)
    except BaseException:
        blob.discard()  # still deferred: no handler runs before it is done
        raise
    finally:
        try:
            blob.discard()  # the descriptors; the temporary is the blob by now
        finally:
            if deferred is not None:  # pragma: no branch  # the suite's race or fault
                deferred.end()  # what came during the clean-up goes to its handler now
    return digest.digest(), stamp


def _deliver(deferred: _Deferral | None) -> None:
    """Hand what came since to the handlers, still deferred: one that raises, raises here."""
    if deferred is not None:  # pragma: no branch  # the suite's race or fault
        deferred.deliver()


def _write_all(fd: int, piece: bytes) -> None:
    view = memoryview(piece)
    while view:
        view = view[os.write(fd, view) :]


def _give_back(data: FileBackedData, blob_path: str, home: Location) -> None:
    """Hand the file ``data`` took over with ``move_from`` back to ``blob_path`` (HOOK-LOW-5), as
    ``move_from``'s own undo does: renamed, never replacing what took the name meanwhile (then
    kept beside it, and the error says where), never deleted; ``data`` is no owner after."""
    where = data._location
    move = _Move(blob_path, data._identity, home, data.path, where)
    try:
        put_back(move)
    finally:
        data._disown()


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
        cls._remove_loaded(blob_path)
        return data, hashlib.sha256(data).hexdigest()

    @staticmethod
    def _remove_loaded(blob_path: str) -> None:
        """Remove the blob's file, read into memory (HOOK-LOAD-1): a step a port (or a mutant)
        can change."""
        os.remove(blob_path)

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

    _blob: type[_Blob] = _Blob
    """How the blob is written (HOOK-MAT-3 to 6): a step a port (or a mutant) can change."""
    blob_class: type[FileBackedData] = FileBackedData
    """The class that takes the blob over (HOOK-LOW-1)."""

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
        digest, stamp = cls._write_weights(blob_path, weights[0].chunks)
        rest = [p for p in paths if not isinstance(p, Weights)]
        return [*rest, WeightsBlobPath(blob_path, digest, stamp)]

    @classmethod
    def _write_weights(
        cls, blob_path: str, chunks: Iterable[bytes]
    ) -> tuple[bytes, tuple[int, int, int, int] | None]:
        """Write the weights' ``chunks`` as the blob at ``blob_path``: their digest, and the stamp
        of the file written (None: what ``blob_path`` names once written)."""
        return _write_blob(blob_path, chunks, cls._blob)

    @classmethod
    def load_weights_blob(
        cls, blob_path: str, compile_specs: Sequence[CompileSpec]
    ) -> tuple[CordBuffer, str]:
        """In low-memory mode, take the file over with the digest handed on from materialize."""
        if not is_low_memory_mode(compile_specs):
            return super().load_weights_blob(blob_path, compile_specs)
        # HOOK-LOW-2: the digest of materialize, if the file is still the one hashed (HOOK-LOW-4);
        # HOOK-LOW-1: the file itself taken over, never read into memory.
        digest = cls._handed_digest(blob_path)
        home = locate(blob_path, False)  # where the file goes back if the caller gets no owner

        def take() -> tuple[CordBuffer, str]:
            data = cls.blob_class.move_from(blob_path, sha256=digest)
            try:
                return data, data.sha256().hex()
            except BaseException:  # still deferred: the file goes back, the owner with it
                _give_back(data, blob_path, home)
                raise

        # HOOK-LOW-5: the owner reaches the caller, or the file is back at ``blob_path``
        return _atomically(take, lambda taken: _give_back(_owner(taken), blob_path, home))

    @staticmethod
    def _handed_digest(blob_path: str) -> bytes | None:
        """The digest ``materialize_weights_blob`` computed, while the blob is still that file."""
        if isinstance(blob_path, WeightsBlobPath):
            return blob_path.digest_if_unchanged()
        return None

    @classmethod
    def store_weights_blob(
        cls, blob_path: str, compile_specs: Sequence[CompileSpec], store: NamedDataStore
    ) -> str:
        """In low-memory mode, the blob taken over is handed to ``store``, or back to
        ``blob_path`` when the store refuses it (HOOK-LOW-5)."""
        if not is_low_memory_mode(compile_specs):
            return super().store_weights_blob(blob_path, compile_specs, store)
        home = locate(blob_path, False)

        def store_taken() -> str:
            data, hexdigest = cls.load_weights_blob(blob_path, compile_specs)
            key = hexdigest + WEIGHTS_BLOB_SUFFIX  # HOOK-LOAD-2
            tag = f"aoti_{cls.get_device_name()}_blob" if cls.save_data_externally() else None
            try:
                store.add_named_data(key, data, 1, tag)
            except BaseException:  # still deferred: refused, so the file goes back
                if isinstance(data, FileBackedData):  # pragma: no branch
                    _give_back(data, blob_path, home)
                raise
            return key

        # once added, the store is the owner: an interrupt after it undoes nothing
        return _atomically(store_taken, lambda _: None)


def _owner(taken: tuple[CordBuffer, str]) -> FileBackedData:  # pragma: no cover
    data = taken[0]
    assert isinstance(data, FileBackedData)  # what ``take`` returns in low-memory mode
    return data
