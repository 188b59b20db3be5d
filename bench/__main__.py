"""``python -m bench``: the reference, ExecuTorch and the machine's floor, measured in one run.

Small by default (about a minute); ``--size 4G`` for the full run of docs/performance.md;
``--scaling`` for how the store's operations grow with the number of entries (bench/scaling.py).
"""

from __future__ import annotations

import argparse
import signal
import sys

from conformance.environment import EXECUTORCH_PYTHON

from . import plot, report, scaling
from .run import parse_size, run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description="Hashing, writing, dedup and memory of cordspec's reference and ExecuTorch "
        "against the machine's floor. Compare ratios: absolute times depend on the load.",
    )
    parser.add_argument(
        "--size", type=parse_size, default=parse_size("64M"), help="blob size (default 64M)"
    )
    parser.add_argument("--reps", type=int, default=5, help="repetitions per figure (default 5)")
    parser.add_argument(
        "--dedup-count",
        type=int,
        help="file-backed blobs of 1 MiB in the dedup figures (default: 1000 from --size 1G on, "
        "200 below, to keep the small run short)",
    )
    parser.add_argument(
        "--executorch-python",
        default=EXECUTORCH_PYTHON.get() or sys.executable,
        help="interpreter that can import ExecuTorch 1.5.1 (default: $CORDSPEC_EXECUTORCH_PYTHON, "
        "else this one); it is measured in its own process",
    )
    parser.add_argument("--dir", help="where to make the files (default: the temp dir)")
    parser.add_argument(
        "--nice",
        type=int,
        help="run the measured processes at this niceness: below 0 (as root) keeps a busy "
        "machine's other work from taking their cores",
    )
    parser.add_argument("--json", metavar="PATH", help="write every measurement as JSON")
    parser.add_argument("--markdown", metavar="PATH", help="write the tables as Markdown")
    parser.add_argument(
        "--plot", metavar="PATH", default="bench-throughput.png", help="PNG of throughput"
    )
    scaling.add_arguments(parser)
    args = parser.parse_args(argv)
    # SIGTERM ends the run like Ctrl-C, so that the files it made are removed
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    if args.scaling:
        return scaling.main(args)
    if args.dedup_count is None:
        args.dedup_count = 1000 if args.size >= 1 << 30 else 200
    result = run(args)
    report.publish(result, report.markdown(result), args.json, args.markdown, args.plot, plot.draw)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
