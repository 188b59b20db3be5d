"""The host report: what ``cordspec host`` found, as terminal lines, Markdown and JSON (the
``host`` section of docs/report-schema.json). Imports neither torch nor ExecuTorch."""

from __future__ import annotations

import importlib.metadata
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..run.report import fit, report_format
from .shipped_tests import Outcome, TestResult

__all__ = [
    "HOST_FORMAT",
    "Export",
    "HostReport",
    "ModelResult",
    "Run",
    "cordspec_version",
]

HOST_FORMAT = "cordspec-host-report/1"
NOT_RUNNABLE = "not runnable"
MiB = 1 << 20


def cordspec_version() -> str:
    """The installed cordspec's version ('unknown' from a bare checkout)."""
    try:
        return importlib.metadata.version("cordspec")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - a bare checkout
        return "unknown"


def _cell(text: str) -> str:
    """``text`` on one line, safe in a Markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")


@dataclass(frozen=True)
class Export:
    """What one export wrote, what it cost and what it left behind."""

    files: dict[str, str]
    """Output file name -> sha256 hex."""
    seconds: float
    peak_bytes: int
    """Peak memory traced (tracemalloc) over ``to_executorch`` and the writing of the files."""
    leaked: list[str]
    """Paths (relative to the export's directory) left besides the outputs once it was released."""
    error: str = ""
    misplaced: list[str] = field(default_factory=list)
    """Placeholders found, while the program was alive, outside the directory the backend wrote
    its blobs in (``move_from`` must rename within the source's own directory)."""
    file_backed: int = 0
    """FileBackedData objects alive once the files were written (before the release)."""


@dataclass(frozen=True)
class Run:
    """One method run in ExecuTorch's runtime: "ok", or why not."""

    method: str
    ok: bool
    detail: str

    @property
    def runnable(self) -> bool:
        return not self.detail.startswith(NOT_RUNNABLE)


@dataclass(frozen=True)
class ModelResult:
    """One model: ExecuTorch's export, the implementation's, and the runtime's runs of it."""

    name: str
    covers: str
    baseline: Export
    candidate: Export
    runs: list[Run]
    file_backed: bool = False
    """The export must hand a FileBackedData to the output."""

    @property
    def identical(self) -> bool:
        """Every output file of the implementation's export is byte-identical to ExecuTorch's."""
        c, b = self.candidate, self.baseline
        return not c.error and not b.error and bool(c.files) and c.files == b.files

    @property
    def differing(self) -> list[str]:
        names = sorted(set(self.candidate.files) | set(self.baseline.files))
        return [n for n in names if self.candidate.files.get(n) != self.baseline.files.get(n)]

    @property
    def ran(self) -> bool:
        """Every runnable method ran and matched eager PyTorch, and there was one to run."""
        runnable = [r for r in self.runs if r.runnable]
        return bool(runnable) and all(r.ok for r in runnable)

    @property
    def leaked(self) -> list[str]:
        return self.candidate.leaked

    @property
    def problems(self) -> list[str]:
        """Why this model fails the run (empty: it passes)."""
        found = []
        if self.baseline.error:
            found.append(f"ExecuTorch's own export failed: {self.baseline.error}")
        if self.candidate.error:
            found.append(f"the export failed: {self.candidate.error}")
        elif not self.identical and not self.baseline.error:
            found.append(f"files differ from ExecuTorch's: {', '.join(self.differing)}")
        found += [f"{r.method}: {r.detail}" for r in self.runs if r.runnable and not r.ok]
        if not self.candidate.error and not any(r.runnable for r in self.runs):
            found.append("no method ran")
        if self.candidate.leaked:
            found.append(f"left on disk: {', '.join(self.candidate.leaked)}")
        if self.file_backed and not self.candidate.error and not self.candidate.file_backed:
            found.append("no FileBackedData reached the output: the file-backed path was not taken")
        if self.candidate.misplaced:
            found.append(
                "placeholder outside the blob's own directory: "
                + ", ".join(self.candidate.misplaced)
            )
        if self.baseline.leaked and self.baseline is not self.candidate:
            found.append(f"ExecuTorch's own export left: {', '.join(self.baseline.leaked)}")
        return found


def _ran_text(m: ModelResult) -> str:
    if not m.runs:
        return "no"
    runnable = [r for r in m.runs if r.runnable]
    text = "yes" if m.ran else "no"
    text += f" ({sum(r.ok for r in runnable)}/{len(runnable)} methods"
    others = len(m.runs) - len(runnable)
    return text + (f"; {others} not runnable)" if others else ")")


@dataclass(frozen=True)
class HostReport:
    """A whole ``cordspec host`` run."""

    implementation: str
    version: str
    impl: str
    executorch_version: str
    torch_version: str
    date: str
    baseline: bool
    """The implementation is ExecuTorch itself: its exports are the baseline, nothing replaced."""
    substituted: list[tuple[str, str, str]]
    """(module, attribute, class) replaced for the run."""
    restored: bool
    hooks: str
    models: list[ModelResult]
    tests: list[TestResult]
    notes: list[str] = field(default_factory=list)
    cordspec_version: str = ""

    @property
    def failures(self) -> list[str]:
        """Everything that makes the run exit non-zero."""
        found = [f"{m.name}: {p}" for m in self.models for p in m.problems]
        bad = (Outcome.FAILED, Outcome.SKIPPED, Outcome.MISSING)
        found += [
            f"{t.test}: {t.outcome.value}: {t.detail}" for t in self.tests if t.outcome in bad
        ]
        if not self.restored:
            found.append("ExecuTorch's classes were not all back in place after the run")
        if not self.baseline and not self.substituted:
            found.append("no module of ExecuTorch's held its classes: nothing was substituted")
        return found

    @property
    def exit_ok(self) -> bool:
        return not self.failures

    def _counts(self) -> dict[str, int]:
        return {o.value: sum(t.outcome is o for t in self.tests) for o in Outcome}

    def terminal_lines(self, width: int = 100) -> list[str]:
        lines = [
            f"implementation: {self.implementation} {self.version} (--impl {self.impl}); "
            f"executorch {self.executorch_version}, torch {self.torch_version}",
            "baseline: ExecuTorch's own classes, nothing substituted"
            if self.baseline
            else f"substituted: {len(self.substituted)} attributes in "
            f"{len({s[0] for s in self.substituted})} modules; restored: {self.restored}",
        ]
        name_width = max((len(m.name) for m in self.models), default=5)
        for m in self.models:
            status = "ok" if not m.problems else "FAILED"
            row = (
                f"{m.name:<{name_width}}  {status:<6}  files {len(m.candidate.files)}  "
                f"identical {'yes' if m.identical else 'no'}  ran {_ran_text(m)}  "
                f"leaked {len(m.leaked)}"
            )
            lines.append(row)
            lines += [f"    {fit(p, width - 4)}" for p in m.problems]
        counts = ", ".join(f"{n} {o}" for o, n in self._counts().items() if n)
        lines.append(f"ExecuTorch's shipped tests: {counts or 'none'}")
        bad = (Outcome.FAILED, Outcome.SKIPPED, Outcome.MISSING)
        lines += [
            f"    {t.outcome.value}: {fit(f'{t.test}: {t.detail}', width - 20)}"
            for t in self.tests
            if t.outcome in bad
        ]
        lines.append("host: passed" if self.exit_ok else f"host: FAILED ({len(self.failures)})")
        return lines

    def to_json(self) -> dict[str, Any]:
        return {
            "format": HOST_FORMAT,
            "implementation": {
                "name": self.implementation,
                "version": self.version,
                "impl": self.impl,
            },
            "cordspec_version": self.cordspec_version,
            "date": self.date,
            "exit_ok": self.exit_ok,
            "host": {
                "executorch_version": self.executorch_version,
                "torch_version": self.torch_version,
                "baseline": self.baseline,
                "substituted": [
                    {"module": m, "attribute": a, "class": c} for m, a, c in self.substituted
                ],
                "restored": self.restored,
                "hooks": self.hooks,
                "models": [_model_json(m) for m in self.models],
                "tests": [
                    {"test": t.test, "outcome": t.outcome.value, "detail": t.detail}
                    for t in self.tests
                ],
                "test_counts": {o.replace(" ", "_"): n for o, n in self._counts().items()},
                "notes": list(self.notes),
                "failures": self.failures,
            },
        }

    def to_markdown(self) -> str:
        lines = [
            "# cordspec host report",
            "",
            "| | |",
            "| --- | --- |",
            f"| Implementation | {_cell(self.implementation)} {_cell(self.version)} |",
            f"| `--impl` | `{_cell(self.impl)}` |",
            f"| ExecuTorch | {_cell(self.executorch_version)} "
            f"(torch {_cell(self.torch_version)}) |",
            f"| Date | {self.date} |",
            f"| cordspec | {_cell(self.cordspec_version)} |",
            f"| Result | {'passed' if self.exit_ok else 'FAILED'} |",
            "",
            "## Substitution",
            "",
        ]
        if self.baseline:
            lines.append("ExecuTorch itself: its own classes are the baseline; nothing replaced.")
        else:
            modules = len({s[0] for s in self.substituted})
            lines.append(
                f"{len(self.substituted)} attributes in {modules} modules of ExecuTorch's held "
                f"its classes and held the implementation's during the run; restored after: "
                f"{'yes' if self.restored else 'NO'}."
            )
        lines += ["", f"Weights-blob hooks of the file-backed model: {_cell(self.hooks)}."]
        lines += [
            "",
            "## Models",
            "",
            "| Model | Files | Identical | Ran | Leaked | Export s (impl / ExecuTorch) "
            "| Peak MiB (impl / ExecuTorch) |",
            "| --- | --- | --- | --- | --- | --- | --- |",
        ]
        for m in self.models:
            c, b = m.candidate, m.baseline
            lines.append(
                f"| {m.name} | {len(c.files)} | {'yes' if m.identical else 'NO'} "
                f"| {_cell(_ran_text(m))} | {len(m.leaked) or 'none'} "
                f"| {c.seconds:.2f} / {b.seconds:.2f} "
                f"| {c.peak_bytes / MiB:.2f} / {b.peak_bytes / MiB:.2f} |"
            )
        for m in self.models:
            lines += ["", f"### {m.name}", "", f"{_cell(m.covers)}.", ""]
            lines += [
                "| File | sha256 (implementation) | same as ExecuTorch's |",
                "| --- | --- | --- |",
            ]
            for name in sorted(set(m.candidate.files) | set(m.baseline.files)):
                digest = m.candidate.files.get(name, "(missing)")
                same = "yes" if digest == m.baseline.files.get(name) else "NO"
                lines.append(f"| `{_cell(name)}` | `{digest}` | {same} |")
            lines += [""] + [f"- `{r.method}`: {_cell(r.detail)}" for r in m.runs]
            lines += [f"- **{_cell(p)}**" for p in m.problems]
        counts = ", ".join(f"{n} {o}" for o, n in self._counts().items() if n)
        lines += [
            "",
            "## ExecuTorch's shipped tests",
            "",
            f"{counts or 'none run'}.",
            "",
            "| Test | Outcome | Detail |",
            "| --- | --- | --- |",
        ]
        lines += [
            f"| `{_cell(t.test)}` | {t.outcome.value} | {_cell(t.detail)} |" for t in self.tests
        ]
        if self.notes:
            lines += ["", "## Notes", ""] + [f"- {_cell(n)}" for n in self.notes]
        if self.failures:
            lines += ["", "## Failures", ""] + [f"- {_cell(f)}" for f in self.failures]
        return "\n".join(lines) + "\n"

    def write(self, path: str | Path) -> None:
        """Markdown for ``.md``, JSON for ``.json``."""
        kind = report_format(path)
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        if kind == "json":
            text = json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n"
        else:
            text = self.to_markdown()
        target.write_text(text, encoding="utf-8")


def _export_json(e: Export) -> dict[str, Any]:
    return {
        "seconds": round(e.seconds, 3),
        "peak_bytes": e.peak_bytes,
        "leaked": list(e.leaked),
        "misplaced": list(e.misplaced),
        "file_backed": e.file_backed,
        "error": e.error,
    }


def _model_json(m: ModelResult) -> dict[str, Any]:
    return {
        "name": m.name,
        "covers": m.covers,
        "files": [
            {
                "name": name,
                "sha256": m.candidate.files.get(name),
                "executorch_sha256": m.baseline.files.get(name),
            }
            for name in sorted(set(m.candidate.files) | set(m.baseline.files))
        ],
        "identical": m.identical,
        "ran": m.ran,
        "runs": [{"method": r.method, "ok": r.ok, "detail": r.detail} for r in m.runs],
        "leaked": list(m.leaked),
        "export": _export_json(m.candidate),
        "executorch_export": _export_json(m.baseline),
        "problems": m.problems,
    }
