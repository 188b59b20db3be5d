"""Breaks: FBD-SWEEP-2
Profile: strict
Bug: the sweep counts a placeholder whose name has no owner tag (ExecuTorch's
``.executorch_<random>.data``) as an orphan ("no owner recorded, so none alive") and removes it,
where its owner cannot be known and it must be kept.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from conformance.api import Implementation
from reference import sweep as reference_sweep

from . import implementation
from ._support import directory, make_file


class Sweep:
    def sweep(self, directory: str, dry_run: bool) -> Sequence[str]:
        removed = []
        for found in reference_sweep.scan(directory):
            if found.owner == "alive":  # "unknown" taken as gone
                continue
            if not dry_run:
                try:
                    st = os.lstat(found.path)
                    if (st.st_dev, st.st_ino) != found.identity:
                        continue
                    os.unlink(found.path)
                except FileNotFoundError:
                    continue
            removed.append(found.path)
        return removed


IMPLEMENTATION = implementation(__name__, sweep=Sweep())


def scenario(impl: Implementation) -> str | None:
    assert impl.sweep is not None
    with directory() as tmp:
        untagged = make_file(os.path.join(tmp, ".executorch_abcd1234.data"), b"live weights")
        removed = impl.sweep.sweep(tmp, False)
        if not os.path.exists(untagged):
            return f"the sweep removed a placeholder without an owner tag: {removed}"
    return None
