"""A co-user's symbolic link as a directory of the blob's path, in a sticky shared output directory
(``/shared/out`` -> a directory private to the exporting user): ``materialize_weights_blob``
follows it, writes the weights there, and replaces the exporting user's own earlier blob of that
name in the private directory (a regular file of the same user, which HOOK-MAT-3 lets a rename
replace); the load then refuses the path (``move_from``, FBD-INIT-9: no link of another user's is
followed by an owner) and leaves the new blob there. The write goes where the owner's rule says
a co-user must not choose (FBD-INIT-9 guards owners' paths; HOOK-MAT-3 only the blob's own name).

Exits 1 naming what was replaced or written through the link, 0 when the hook refuses the path."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile

from _campaign import SPECS, as_other, file_in

from reference.hooks import FileBackedAotiBackend, Weights

EARLIER = b"the exporting user's earlier blob, of another model"


def main() -> int:
    if os.geteuid() != 0:
        print("not testable here: a second uid needs root")
        return 0
    shared = tempfile.mkdtemp(prefix="attack-shared-")
    private = tempfile.mkdtemp(prefix="attack-private-")  # mode 0700, the exporter's
    try:
        os.chmod(shared, 0o1777)
        if not as_other(lambda: os.symlink(private, os.path.join(shared, "out"))):
            print("not testable here: the second uid cannot make a link in a sticky directory")
            return 0
        earlier = os.path.join(private, "m.wrapper_weights.blob")
        with open(earlier, "wb") as f:
            f.write(EARLIER)
        so = file_in(os.path.join(shared, "out"))
        try:
            FileBackedAotiBackend.materialize_weights_blob([so, Weights([b"new" * 100])], SPECS)
        except (OSError, ValueError) as exc:
            print(f"held: the hook refused the path: {type(exc).__name__}: {exc}")
            return 0
        with open(earlier, "rb") as f:
            now = f.read()
        if now != EARLIER:
            print(
                "STEERED and LOST: through a co-user's link the hook replaced the exporting "
                f"user's earlier blob {earlier!r} in a private directory"
            )
        else:
            print(f"STEERED: through a co-user's link the hook wrote into {private!r}")
        return 1
    finally:
        shutil.rmtree(shared, ignore_errors=True)
        shutil.rmtree(private, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
