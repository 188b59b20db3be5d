"""``cordspec run --backend package.module:Class``: one run of the hook tests per backend class,
and a verdict per backend that attributes each HOOK clause to the code it ran.

The CLI adds the option with :func:`add_backend_option` and hands the run to :func:`run_backends`.
The run covers the suite's hook tests (marker ``hooks``) except those that judge lowering itself
(marker ``lowering``: HOOK-COPY-2..4 are the surrounding implementation's code, not the backend's),
so no clause is passed on another class's code. Each HOOK clause is printed with the hook it ran and
where that hook comes from: the class's own, or "inherited from <base>" (judged as the base's, and
said so).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from . import backend as backend_module
from . import load_implementation

__all__ = [
    "SELECTION",
    "add_backend_option",
    "attribution",
    "run_backends",
    "selected",
]

SELECTION = "hooks and not lowering"
"""The ``-m`` expression of a backend run: the hook tests (``conformance/suite/test_hooks.py``'s
marker) but those that judge lowering with a probe copy hook of their own (HOOK-COPY-2..4)."""
_CLAUSE_HOOK = {
    "HOOK-COPY-1": backend_module.COPY,
    "HOOK-MAT-1": backend_module.MATERIALIZE,
    "HOOK-MAT-2": backend_module.MATERIALIZE,
    "HOOK-LOAD-1": backend_module.LOAD,
    "HOOK-LOW-1": backend_module.LOAD,
    "HOOK-LOW-2": backend_module.LOAD,
    "HOOK-LOW-3": backend_module.LOAD,
    "HOOK-LOW-4": backend_module.LOAD,
    "HOOK-BLOB-1": backend_module.MATERIALIZE,
    "HOOK-COPY-5": backend_module.COPY,
}
"""The hook whose code each clause judges in a backend run (HOOK-LOW-2 and -4: the hand-over
from materialize to load, where load is the receiving end)."""
_NOT_THE_BACKENDS = {
    "HOOK-COPY-2": "lowering's, not the backend's: not judged in a backend run",
    "HOOK-COPY-3": "lowering's, not the backend's: not judged in a backend run",
    "HOOK-COPY-4": "lowering's, not the backend's: not judged in a backend run",
    "HOOK-LOAD-2": "preprocess's, which needs torch._inductor.aot_compile: not judged",
}


def add_backend_option(parser: argparse.ArgumentParser) -> None:
    """``--backend`` for ``cordspec run``."""
    parser.add_argument(
        "--backend",
        action="append",
        default=[],
        metavar="MODULE:CLASS",
        help="judge this backend class's hooks (HOOK-* clauses) with --impl's store, blobs and "
        "lowering around them (repeatable: one verdict per backend)",
    )


RunOnce = Callable[[argparse.Namespace, list[str]], int]


def _report_for(path: str, index: int, count: int) -> str:
    """``path`` for the ``index``-th backend: unchanged for one backend, else numbered."""
    if count == 1:
        return path
    stem, ext = os.path.splitext(path)
    return f"{stem}.{index + 1}{ext}"


def run_backends(args: argparse.Namespace, extra: list[str], run_once: RunOnce, impl: str) -> int:
    """Run the hook tests once per ``args.backend`` with ``impl`` around it, each with
    ``run_once`` (``cordspec run``'s own run); print each backend's verdict; return the worst
    status."""
    worst = 0
    backends: Sequence[str] = args.backend
    for index, spec in enumerate(backends):
        with tempfile.TemporaryDirectory(prefix="cordspec-backend-") as scratch:
            json_report = os.path.join(scratch, "report.json")
            one = copy.copy(args)
            one.backend = []
            one.impl = backend_module.target(spec, impl)
            one.report = [_report_for(p, index, len(backends)) for p in args.report] + [json_report]
            if one.deviations is None and spec.startswith("executorch."):
                here = Path(__file__).parent / "executorch.deviations"
                one.deviations = str(here)
            status = run_once(one, selected(extra))
            report = None
            if os.path.exists(json_report):
                with open(json_report, encoding="utf-8") as f:
                    report = json.load(f)
                print("\n".join(attribution(spec, one.impl, report)))
                sys.stdout.flush()
            status = _as_backend_status(status, report)
        worst = max(worst, status, key=_SEVERITY.index)
    return worst


def selected(extra: list[str]) -> list[str]:
    """pytest's arguments ``extra`` with the backend run's selection: a ``-m`` of the user's
    narrows the hook tests (``SELECTION and (EXPR)``) rather than replacing them, as pytest keeps
    only the last ``-m`` it is given."""
    rest: list[str] = []
    narrowing: list[str] = []
    words = iter(extra)
    for word in words:
        if word == "--":
            rest += [word, *words]  # what follows is not pytest's to parse as options
        elif word == "-m":
            narrowing.append(next(words, ""))
        elif word.startswith("-m") and not word.startswith("--"):
            narrowing.append(word[2:])
        else:
            rest.append(word)
    expression = " and ".join([SELECTION, *(f"({e})" for e in narrowing if e.strip())])
    return ["-m", expression, *rest]


_SEVERITY = (0, 4, 1, 2, 3)
"""``cordspec run``'s statuses from best to worst: conforms, partial run that conformed, does not
conform, usage or load error, interrupted; several backends' run ends with the worst."""
_OWN_RESTRICTION = f"-m {SELECTION!r}"
"""What a backend run's report says narrowed it when the user narrowed it no further (its
``partial``, as the plugin writes it)."""


def _as_backend_status(status: int, report: dict[str, Any] | None) -> int:
    """A backend run is narrowed to the hook tests by its definition, not by the user: it is a
    partial run (status 4) only when its report says it was narrowed by more than that (the user's
    ``--clause``, ``-k``, ``-m``, ``--deselect``); a run with no report keeps its status."""
    narrowed = report is None or report.get("partial", "") not in ("", _OWN_RESTRICTION)
    return 0 if status == 4 and not narrowed else status


def attribution(spec: str, target: str, report: dict[str, Any]) -> list[str]:
    """The backend's verdict: each HOOK clause with its status and the code it was judged on."""
    implementation = load_implementation(target)
    cls = backend_module.import_backend(spec)
    origins = backend_module.hook_origins(cls)
    name, version = cls.__name__, implementation.version
    lines = [f"backend {name} ({cls.__module__}, version {version}): its hooks"]
    lines += [f"  {hook}: {origin.describe()}" for hook, origin in origins.items()]
    counted: dict[str, int] = {}
    for clause in report.get("clauses", []):
        clause_id = clause["id"]
        if not clause_id.startswith("HOOK-"):
            continue
        status = clause["status"]
        hook = _CLAUSE_HOOK.get(clause_id)
        if hook is None or hook not in origins:
            where = _NOT_THE_BACKENDS.get(clause_id, "not one of the backend's hooks")
        else:
            origin = origins[hook]
            where = f"{hook}, {origin.describe()}"
            if status == "not applicable":
                where += f": {clause.get('reason', '')}"
            elif not origin.own:
                where += f" (judged as {origin.owner}'s)"
            counted[status] = counted.get(status, 0) + 1
        lines.append(f"  {clause_id:<12} {status:<20} {where}")
    judged = sum(counted.values())
    if counted.get("failed"):
        verdict = "DOES NOT CONFORM"
    elif counted.get("expected deviation"):
        verdict = "CONFORMS with declared deviations"
    else:
        verdict = "CONFORMS"
    details = ", ".join(f"{n} {s}" for s, n in sorted(counted.items()))
    lines.append(
        f"backend {name} {version} ({report.get('profile', '?')}): {verdict} "
        f"({judged} clauses on its hooks: {details or 'none'})"
    )
    return lines
