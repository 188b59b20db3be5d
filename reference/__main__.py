"""``python -m reference``: the end-to-end demo (file-backed and bytes blobs into two stores,
merged, streamed, reported), or ``python -m reference sweep DIR`` (section 3.7)."""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import tempfile
from collections.abc import Sequence

from . import Cord, FileBackedData, NamedDataStore
from .sweep import report_lines, sweep


def main() -> int:
    """Run the scenario in a temporary directory, print what happened; 0 when every check held."""
    failures = 0

    def check(what: str, ok: bool) -> None:
        nonlocal failures
        failures += not ok
        print(f"  [{'ok' if ok else 'FAILED'}] {what}")

    weights = os.urandom(3 << 20)
    with tempfile.TemporaryDirectory(prefix="cordspec-demo-") as directory:
        sources = []
        for name in ("backend_a.blob", "backend_b.blob"):
            path = os.path.join(directory, name)
            with open(path, "wb") as f:
                f.write(weights)
            sources.append(path)
        print(f"cordspec reference demo in {directory}")
        with (
            FileBackedData.move_from(sources[0]) as blob_a,
            FileBackedData.move_from(sources[1], sha256=hashlib.sha256(weights).digest()) as blob_b,
        ):
            check(
                "move_from renamed each source, in place, without reading it",
                not any(os.path.exists(s) for s in sources),
            )
            store_a = NamedDataStore()
            store_a.add_named_data("weights", blob_a, 64, external_tag="model")
            store_a.add_named_data("program", b"\x00program-a", 16)
            store_b = NamedDataStore()
            store_b.add_named_data("weights_copy", blob_b, 4096, external_tag="model")
            store_b.add_named_data("same_as_bytes", weights, 16)
            output_b = store_b.get_named_data_store_output()
            check(
                "store B keeps one buffer for equal file-backed and bytes contents",
                len(output_b.buffers) == 1,
            )
            store_a.merge_named_data_store(output_b)
            store_a.merge_named_data_store(output_b)
            merged = store_a.get_named_data_store_output()
            check("merging B twice into A dedups everything to 2 buffers", len(merged.buffers) == 2)
            check(
                "merge left B's output and its file untouched",
                output_b.buffers[0] is blob_b and os.path.exists(blob_b.path),
            )
            cord = Cord()
            for buffer in merged.buffers:
                cord.append(buffer)
            out_path = os.path.join(directory, "model.ptd")
            with open(out_path, "wb") as out:
                cord.write_to_file(out)
            with open(out_path, "rb") as result:
                written = result.read()
            check(
                f"streamed {len(cord)} bytes to {os.path.basename(out_path)} in order",
                written == weights + b"\x00program-a",
            )
        left = sorted(n for n in os.listdir(directory) if n.startswith(".executorch_"))
        check("closing the blobs removed their files", not left)
    print("demo: " + ("all checks held" if not failures else f"{failures} check(s) FAILED"))
    return 1 if failures else 0


def cli(argv: Sequence[str] | None = None) -> int:
    """Parse the command line: no command runs the demo, ``sweep DIR`` sweeps; its exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m reference",
        description="Without a command: run the reference's end-to-end demo in a temporary "
        "directory (exit status 1 if a check failed).",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    swept = commands.add_parser(
        "sweep",
        help="remove the placeholders in DIR whose owner process is gone",
        description="Remove the placeholders in DIR whose owner process is gone (spec 3.7).",
        epilog="Exit status: 0 after the sweep; 1 when an orphan could not be removed (the sweep "
        "went on with the others); 2 when DIR cannot be swept.",
    )
    swept.add_argument("directory", metavar="DIR", help="the directory to sweep (not below it)")
    swept.add_argument("--dry-run", action="store_true", help="list what would go; remove nothing")
    args = parser.parse_args(argv)
    if args.command is None:
        return main()
    try:
        result = sweep(args.directory, dry_run=args.dry_run)
    except OSError as exc:
        print(f"python -m reference sweep: {args.directory}: {exc.strerror}", file=sys.stderr)
        return 2
    for line in report_lines(result):
        print(line)
    if result.failed:  # FBD-SWEEP-5: reported, and the exit status says so
        print(
            f"python -m reference sweep: {args.directory}: "
            f"{len(result.failed)} orphan(s) could not be removed",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(cli())
