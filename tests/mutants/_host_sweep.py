"""``cordspec host`` against every mutant, in one process with one baseline (ExecuTorch's own
exports are made once and reused): which mutants it catches, and by what.

Run it once, niced, where torch, executorch and torchao are installed (tox -e host, or
any environment with ExecuTorch 1.5.1):
``nice python -m tests.mutants._host_sweep [--json OUT]``. docs/host.md records its result.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time

from conformance.adapters import reference as reference_adapter
from conformance.api import Implementation
from conformance.host.command import Host, host_report
from conformance.host.report import Export
from conformance.host.zoo import MODELS

from . import mutant_names

_OTHERS = ("Cord", "NamedDataStore", "NamedDataStoreOutput", "DataEntry")


def models_for(impl: Implementation) -> list[str] | None:
    """The models a mutant can change: a mutant that keeps the reference's Cord, store, output
    and entry classes (it breaks FileBackedData or a weights hook) can only change a model that
    makes a FileBackedData, so the others are not exported again; None: every model."""
    reference = reference_adapter.load()
    if all(getattr(impl, n) is getattr(reference, n) for n in _OTHERS):
        return [m.name for m in MODELS if m.file_backed]
    return None


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
        only = models_for(impl)
        spec = f"tests.mutants.{name}:IMPLEMENTATION"
        try:
            failures = host_report(host, impl, spec, None, baselines, only=only).failures
        except Exception as exc:  # a crash of the host run is a catch too, but say so
            failures = [f"the host run raised {type(exc).__name__}: {exc}"]
        seconds = time.perf_counter() - start
        results.append(
            {"mutant": name, "caught": bool(failures), "models": only, "failures": failures}
        )
        verdict = "caught" if failures else "NOT caught"
        scope = "all models" if only is None else ", ".join(only)
        print(f"{name}: {verdict} ({seconds:.0f} s; {scope})", flush=True)
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
