"""Breaks: FBD-FAULT-3
Profile: strict
Bug: ``Cord.write_to_file`` does not check that the output has a ``write`` method (only
``FileBackedData.write_to_file`` does): a Cord of bytes written to ``None`` raises
``AttributeError`` from its first ``outfile.write``, not ``TypeError`` naming the output.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation
from reference.cord import _write_pieces
from reference.file_backed import checked_readers

from . import implementation


class Cord(reference.Cord):
    def write_to_file(self, outfile: object) -> None:
        with checked_readers(self._buffers) as readers:
            _write_pieces(outfile, self._buffers, readers)


IMPLEMENTATION = implementation(__name__, Cord=Cord)


def scenario(impl: Implementation) -> str | None:
    for cord in (impl.Cord(), impl.Cord(b"data")):
        try:
            cord.write_to_file(None)
        except TypeError as exc:
            if "None" not in str(exc):
                return f"the TypeError does not name the output: {exc}"
            continue
        except Exception as exc:
            return f"writing a Cord of {len(cord)} bytes to None raised {exc!r}, not TypeError"
        return f"writing a Cord of {len(cord)} bytes to None returned normally"
    return None
