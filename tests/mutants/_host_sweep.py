"""``cordspec host`` against every mutant, in one process with one baseline (ExecuTorch's own
exports are made once and reused): which mutants it catches, and by what.

Run it once, niced, where torch, executorch and torchao are installed (tox -e host, or
/work/venvs/et151): ``nice python -m tests.mutants._host_sweep [--json OUT]``. docs/host.md
records its result.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time

from conformance.api import Implementation
from conformance.host.command import Host, host_report
from conformance.host.report import Export

from . import mutant_names


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", metavar="OUT", help="write one result per mutant as JSON")
    parser.add_argument("mutants", nargs="*", help="only these (default: all)")
    args = parser.parse_args()
    host = Host.load()
    baselines: dict[str, Export] = {}
    results = []
    for name in args.mutants or mutant_names():
        start = time.perf_counter()
        impl: Implementation = importlib.import_module(f"tests.mutants.{name}").IMPLEMENTATION
        try:
            report = host_report(
                host, impl, f"tests.mutants.{name}:IMPLEMENTATION", None, baselines
            )
            failures = report.failures
        except Exception as exc:  # a crash of the host run is a catch too, but say so
            failures = [f"the host run raised {type(exc).__name__}: {exc}"]
        seconds = time.perf_counter() - start
        results.append({"mutant": name, "caught": bool(failures), "failures": failures})
        verdict = "caught" if failures else "NOT caught"
        print(f"{name}: {verdict} ({seconds:.0f} s)", flush=True)
        for failure in failures:
            print(f"    {failure}", flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=2)
    caught = sum(r["caught"] for r in results)
    print(f"{caught}/{len(results)} mutants caught")
    return 0


if __name__ == "__main__":
    sys.exit(main())
