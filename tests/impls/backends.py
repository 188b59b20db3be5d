"""Backend classes for ``cordspec run --backend`` tests, built on the reference's hooks: one that
overrides nothing, one with hooks of its own that are wrong, one whose low-memory hooks cannot be
driven (they are its own, and driving them needs torch or a helper module)."""

from __future__ import annotations

from collections.abc import Sequence

from reference import hooks
from tests.blind._support import read_hashed


class Inheriting(hooks.AotiBackend, hooks.BackendDetails):
    """Overrides no hook: every one is its bases'."""


class ShallowCopy(hooks.AotiBackend, hooks.BackendDetails):
    """A copy hook of its own that copies only the top level (breaks HOOK-COPY-1), and a load
    that keeps the blob file (breaks HOOK-LOAD-1)."""

    @classmethod
    def copy_exported_program_for_preprocess(
        cls, program: object, compile_specs: Sequence[hooks.CompileSpec]
    ) -> object:
        return dict(program) if isinstance(program, dict) else program

    @classmethod
    def load_weights_blob(
        cls, blob_path: str, compile_specs: Sequence[hooks.CompileSpec]
    ) -> tuple[bytes, str]:
        return read_hashed(blob_path)  # the blob file is kept


class OwnLowMemory(hooks.FileBackedAotiBackend, hooks.BackendDetails):
    """Low-memory hooks of its own (its base's, below AotiBackend): a low-memory mode to judge."""


class NoHooks:
    """Not a backend: none of the hooks."""
