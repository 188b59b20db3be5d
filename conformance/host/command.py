"""``cordspec host``: load the implementation and ExecuTorch, export the zoo with both, run
ExecuTorch's shipped tests with the implementation's classes, report."""

from __future__ import annotations

import contextlib
import importlib.metadata
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from ..adapters.substitution import Swap, classes_of, find_holders, substituted
from ..api import Implementation
from .prerequisites import check as check_prerequisites
from .report import Export, HostReport, cordspec_version
from .shipped_tests import TestResult, read_scope, run_shipped_tests

__all__ = ["Host", "host_report"]

NOTES = (
    "Time is the whole export (torch.export, lowering, to_executorch, writing); peak memory is "
    "traced with tracemalloc over to_executorch and the writing of the files only, for both "
    "columns alike. ExecuTorch's classes export each model twice (the first run warms the "
    "pipeline up and shows the export is deterministic); the second is the baseline.",
    "Before looking for files left behind, the host clears torch's FakeTensor dispatch cache and "
    "the lru_cache of executorch.exir.backend.utils.is_same_node: both keep the lowered modules, "
    "and a file-backed blob of their named data with them, alive until the interpreter exits.",
)


@dataclass
class Host:
    """ExecuTorch as installed, and the classes and hooks of the two sides."""

    executorch: Implementation
    root: Path
    """ExecuTorch's package directory."""

    @classmethod
    def load(cls) -> Host:
        check_prerequisites()
        import executorch

        from ..adapters import executorch as adapter

        return cls(adapter.load(), Path(next(iter(executorch.__path__))))

    def originals(self) -> dict[str, type]:
        return classes_of(self.executorch)

    def holders(self) -> list[Swap]:
        return find_holders(self.originals(), sys.modules, root=str(self.root))


def _versions() -> tuple[str, str]:
    return importlib.metadata.version("executorch"), importlib.metadata.version("torch")


@contextlib.contextmanager
def _workdir(keep: Path | None) -> Iterator[Path]:
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        yield keep
        return
    path = Path(tempfile.mkdtemp(prefix="cordspec-host-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def host_report(
    host: Host,
    impl: Implementation,
    impl_spec: str,
    workdir: Path | None = None,
    baselines: dict[str, Export] | None = None,
    progress: Callable[[str], None] = lambda _: None,
    only: Sequence[str] | None = None,
) -> HostReport:
    """The whole host run for ``impl``. ``baselines`` (model name -> ExecuTorch's export) is
    filled on first use and reused, so that several implementations share one baseline.
    ``only``: export just these models of the zoo (default: all)."""
    from . import backend
    from .check import check_model
    from .zoo import MODELS

    originals, replacements = host.originals(), classes_of(impl)
    is_baseline = all(replacements[n] is originals[n] for n in originals)
    before = host.holders()
    made: set[Swap] = set()

    def candidate_classes() -> AbstractContextManager[object]:
        @contextlib.contextmanager
        def swap() -> Iterator[None]:
            with substituted(originals, replacements, root=str(host.root)) as swaps:
                made.update(swaps)
                yield

        return swap()

    baseline_side = (contextlib.nullcontext, backend.hooks_for(host.executorch))
    candidate_side = None if is_baseline else (candidate_classes, backend.hooks_for(impl))
    cache = {} if baselines is None else baselines
    models = []
    with _workdir(workdir) as where:
        for model in MODELS if only is None else [m for m in MODELS if m.name in only]:
            progress(f"exporting {model.name}")
            result = check_model(
                model, where / model.name, baseline_side, candidate_side, cache.get(model.name)
            )
            cache.setdefault(model.name, result.baseline)
            models.append(result)
    progress("running ExecuTorch's shipped tests")
    tests: list[TestResult] = run_shipped_tests(originals, replacements, host.root, read_scope())
    leftover = [
        s
        for s in find_holders(replacements, sys.modules, root=str(host.root))
        if replacements[s.class_name] is not originals[s.class_name]
    ]
    executorch_version, torch_version = _versions()
    hooks = (candidate_side or baseline_side)[1].source
    return HostReport(
        implementation=impl.name,
        version=impl.version,
        impl=impl_spec,
        executorch_version=executorch_version,
        torch_version=torch_version,
        date=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        baseline=is_baseline,
        substituted=[(s.module, s.attribute, s.class_name) for s in sorted(made, key=str)],
        restored=not leftover
        and all(
            getattr(sys.modules[s.module], s.attribute) is originals[s.class_name] for s in before
        ),
        hooks=hooks,
        models=models,
        tests=tests,
        notes=list(NOTES),
        cordspec_version=cordspec_version(),
    )


def main(impl_spec: str, reports: Sequence[str], workdir: str | None) -> int:
    """Run the host checks for ``impl_spec``; print the summary, write the reports; 0 or 1."""
    from ..adapters import load_implementation

    host = Host.load()
    impl = load_implementation(impl_spec)
    report = host_report(
        host,
        impl,
        impl_spec,
        Path(workdir) if workdir else None,
        progress=lambda text: print(f"cordspec host: {text}", file=sys.stderr, flush=True),
    )
    for path in reports:
        report.write(path)
    width = shutil.get_terminal_size(fallback=(100, 24)).columns
    print("\n".join(report.terminal_lines(width)))
    return 0 if report.exit_ok else 1
