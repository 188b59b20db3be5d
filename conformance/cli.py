"""The ``cordspec`` command: run the conformance suite against an implementation, list clauses.

``cordspec run`` runs pytest in this process on the installed suite (``conformance.suite``), with
this package's own ini file (``conformance/cordspec.ini``) as pytest's configuration: neither the
configuration nor the conftest files of the directory it is started in take part.
"""

from __future__ import annotations

import argparse
import enum
import errno
import functools
import importlib.metadata
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import textwrap
from collections.abc import Sequence

import pytest

from . import environment
from .adapters import selected_target
from .adapters.backend_run import add_backend_option, run_backends
from .api import ImplementationError
from .harness.hypothesis_home import HOME_VARIABLE, default_home
from .profiles import PROFILES, Profile
from .run.collect import CollectError, collect_suite
from .run.console import Tee
from .run.options import add_run_options
from .run.report import check_report_path, clause_columns, first_sentence, fit
from .run.settings import CordspecRun, DeviationsError, RunSettings, SettingsError
from .run.spec import Clause, SpecError, load_spec

__all__ = [
    "EXIT_HELP",
    "WORKERS_VARIABLE",
    "Exit",
    "default_workers",
    "exit_status",
    "isolated",
    "main",
]


class Exit(enum.IntEnum):
    """``cordspec run``'s exit statuses: one meaning each."""

    CONFORMS = 0
    """The chosen profile conforms (with or without declared deviations)."""
    DOES_NOT_CONFORM = 1
    """A clause failed or is untested, a declared deviation is fixed, or a test failed."""
    USAGE = 2
    """Bad arguments, an implementation that cannot be loaded, an unwritable report path, no
    test selected, or an internal error of pytest."""
    INTERRUPTED = 3
    """The run was stopped (Ctrl-C) before it ended: no verdict."""
    PARTIAL = 4
    """A run narrowed to some clauses (``--clause``, ``-k``, ``-m``, ``--deselect``) conformed on
    those: no verdict on the whole profile."""


EXIT_HELP = (
    "Exit status: 0 the profile conforms (declared deviations aside); 1 it does not conform; "
    "2 usage or load error (bad arguments, an implementation that cannot be loaded, a report "
    "path that cannot be written, nothing selected); 3 interrupted (Ctrl-C; no verdict); 4 "
    "partial run (narrowed with --clause, -k, -m or --deselect) that conformed on what it ran."
)


class _Failure(Exception):
    """A problem to print as ``cordspec: <message>`` before exiting with status 2."""


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _report_path(value: str) -> str:
    try:
        check_report_path(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cordspec",
        description="Conformance suite for ExecuTorch's file-backed serialization (spec/SPEC.md).",
    )
    parser.add_argument("--version", action="version", version=f"cordspec {_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run = commands.add_parser(
        "run",
        help="run the conformance suite against an implementation",
        description="Run the conformance suite; arguments after -- go to pytest unchanged.",
        usage="cordspec run [options] [-- PYTEST_ARGS...]",
        epilog=EXIT_HELP,
    )
    add_run_options(run.add_argument, pytest=False, extra={"--report": {"type": _report_path}})
    add_backend_option(run)
    run.add_argument(
        "--output",
        metavar="FILE",
        help="write pytest's full output (every traceback) to FILE (default: a new file in the "
        "temporary directory); the console shows it without the failures' tracebacks, which the "
        "clause report explains",
    )
    run.add_argument(
        "--hypothesis-profile",
        metavar="NAME",
        help="load this registered Hypothesis settings profile",
    )
    run.add_argument(
        "--seed",
        type=int,
        metavar="N",
        help=f"the Hypothesis seed (default: {DEFAULT_SEED}, the same for every run, so that an "
        "implementation gets the same report each time; -- --hypothesis-seed=N does the same)",
    )
    clauses = commands.add_parser(
        "clauses",
        help="list the clauses of the spec, or show some in full",
        description="List the clauses: id, keyword, profile and the first sentence of the text; "
        "with clause ids, each of those in full (text, rationale, ExecuTorch's behaviour) and "
        "the suite tests that check it.",
    )
    clauses.add_argument("ids", nargs="*", metavar="ID", help="show these clauses in full")
    clauses.add_argument(
        "--profile",
        choices=PROFILES,
        default=None,
        help="only the clauses this profile requires (core, or core + strict)",
    )
    clauses.add_argument(
        "--tests",
        action="store_true",
        help="under each clause, the suite tests that name it (collects the suite: a few seconds)",
    )
    host = commands.add_parser(
        "host",
        help="run the implementation inside a real ExecuTorch (docs/host.md)",
        description="Put the implementation's classes in place of ExecuTorch's, export a zoo of "
        "models with both and compare the files, run them in ExecuTorch's runtime, and run "
        "ExecuTorch's shipped tests of this layer. Needs torch, executorch and torchao.",
        epilog="Exit status: 0 when every model's files are identical to ExecuTorch's, run and "
        "leave nothing behind and no in-scope ExecuTorch test fails; 1 otherwise; 2 when "
        "torch, executorch or torchao is missing or the implementation cannot be loaded.",
    )
    host.add_argument(
        "--impl", help="as for 'cordspec run' (default: $CORDSPEC_IMPL, else reference)"
    )
    host.add_argument(
        "--report",
        action="append",
        default=[],
        type=_report_path,
        metavar="PATH",
        help="write the host report: Markdown for .md, JSON for .json (repeatable)",
    )
    host.add_argument("--workdir", metavar="DIR", help="export into DIR and keep the files")
    sweep = commands.add_parser(
        "sweep",
        help="remove placeholders left by processes that died",
        description="Remove the .executorch_<pid>-<start>_*.data files directly in DIR whose owner "
        "process is gone (spec section 3.7); never a live owner's file, a link, or anything else.",
        epilog="Exit status: 0 after the sweep; 1 when an orphan could not be removed (the sweep "
        "went on with the others, the report names it); 2 when DIR does not exist or is not a "
        "directory.",
    )
    sweep.add_argument("directory", metavar="DIR", help="the directory to sweep (not below it)")
    sweep.add_argument(
        "--dry-run", action="store_true", help="remove nothing; list what would be removed"
    )
    return parser


def _version() -> str:
    try:
        return importlib.metadata.version("cordspec")
    except importlib.metadata.PackageNotFoundError:  # run from a checkout that is not installed
        return "unknown (not installed)"


def _run(args: argparse.Namespace, extra: list[str]) -> int:
    # Like ``python -m``, let ``--impl`` name modules of the directory the command runs in; last,
    # so that they cannot shadow installed packages.
    if os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())
    if getattr(args, "backend", None):  # one run per backend class, through this function
        return run_backends(args, extra, _run, selected_target(args.impl))
    try:  # checked once, here, before pytest starts
        settings = RunSettings.from_args(args)
    except SettingsError as exc:
        message = str(exc) if isinstance(exc, DeviationsError) else _one_line(str(exc))
        raise _Failure(message.replace("\n", "\ncordspec: ")) from None
    _check_parallel(extra)
    extra = seeded(isolated(extra), args.seed)
    argv = settings.pytest_args(extra)
    os.environ.setdefault(HOME_VARIABLE, str(default_home()))  # no .hypothesis/ left in the cwd
    seed = run_seed(extra)
    default = seed == str(DEFAULT_SEED) and args.seed is None
    why = " (the default: every plain run draws the same examples; --seed N draws others)"
    print(f"cordspec: Hypothesis seed {seed}{why if default else ''}")
    run = CordspecRun(settings)
    output = args.output or _output_file()
    try:
        full = open(output, "w", encoding="utf-8")  # noqa: SIM115  # closed below, after the run
    except OSError as exc:
        raise _Failure(f"--output {output}: cannot write it: {exc.strerror or exc}") from None
    with full:
        tee = Tee(sys.stdout, full)
        console, sys.stdout = sys.stdout, tee
        try:
            status = pytest.main(argv, plugins=[run])
        finally:
            sys.stdout = console
            tee.flush()
    print(f"cordspec: pytest's full output (tracebacks and all) is in {output}")
    report = run.report
    return int(exit_status(status, report is not None and bool(report.header.partial)))


def _output_file() -> str:
    """A new file for pytest's full output, in the temporary directory: the user's to keep."""
    fd, path = tempfile.mkstemp(prefix="cordspec-run-", suffix=".log")
    os.close(fd)
    return path


def exit_status(pytest_status: int, partial: bool) -> Exit:
    """``cordspec run``'s status for pytest's, in a run that was ``partial`` or not."""
    if pytest_status == pytest.ExitCode.OK:
        return Exit.PARTIAL if partial else Exit.CONFORMS
    if pytest_status == pytest.ExitCode.TESTS_FAILED:
        return Exit.DOES_NOT_CONFORM
    if pytest_status == pytest.ExitCode.INTERRUPTED:
        return Exit.INTERRUPTED
    return Exit.USAGE


_XDIST_FLAGS = ("-n", "--numprocesses", "--dist", "--maxprocesses")


def _check_parallel(extra: Sequence[str]) -> None:
    """``-n`` and its kin need pytest-xdist; without it pytest fails with a bare usage error."""
    wanted = next(
        (a for a in extra if a.partition("=")[0] in _XDIST_FLAGS or re.fullmatch(r"-n\S+", a)),
        None,
    )
    if wanted is not None and importlib.util.find_spec("xdist") is None:
        raise _Failure(
            f"{wanted} runs the suite in parallel, which needs pytest-xdist (a dependency of "
            "cordspec): pip install pytest-xdist"
        )


_IN_PROCESS_FLAGS = ("--pdb", "--trace", "--collect-only", "--co", "--setup-plan")
"""pytest options that need the tests in this process (a debugger, or no tests run at all)."""
MAX_WORKER_RESTARTS = 50
"""How many crashed workers a run replaces before it stops (and judges the rest untested)."""
MAX_WORKERS = 4
"""The most workers a run starts by itself: each imports pytest, the suite and the implementation
(torch, for ExecuTorch: seconds each) before its first test, which more cores do not repay."""


WORKERS_VARIABLE = environment.WORKERS.name
"""The environment variable that sets how many workers a run starts when ``-n`` is not given (a
test run that starts ``cordspec run`` children while its own workers take the cores sets 1)."""


def default_workers() -> int:
    """The workers a run starts when the user does not choose: ``$CORDSPEC_WORKERS``, else one per
    core this process may run on (its CPU affinity, as a container or ``taskset`` limits it), at
    most :data:`MAX_WORKERS`."""
    try:
        chosen = environment.WORKERS.get()
    except ValueError as exc:
        raise _Failure(str(exc)) from None
    if chosen is not None:
        return chosen
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # no sched_getaffinity (macOS, Windows)
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_WORKERS))


def isolated(extra: Sequence[str], workers: int | None = None) -> list[str]:
    """``extra`` (the pytest arguments after ``--``), with the suite run in pytest-xdist workers
    (``-n`` ``workers``, default :func:`default_workers`) unless they choose the workers (``-n``,
    ``-p no:xdist``) or need this process: an implementation that kills its interpreter
    (``os._exit``, a crash in an extension) then kills a worker, whose test fails as crashed, and
    the run goes on to its verdict."""
    chosen = any(
        a.partition("=")[0] in (*_XDIST_FLAGS, *_IN_PROCESS_FLAGS)
        or re.fullmatch(r"-n\S+", a)
        or a in ("no:xdist", "-pno:xdist")
        for a in extra
    )
    if chosen or importlib.util.find_spec("xdist") is None:
        return list(extra)
    restarts = any(a.partition("=")[0] == "--max-worker-restart" for a in extra)
    more = [] if restarts else ["--max-worker-restart", str(MAX_WORKER_RESTARTS)]
    count = default_workers() if workers is None else workers
    return ["-n", str(count), *more, *extra]


DEFAULT_SEED = 0
"""The Hypothesis seed of a run that names none: fixed, so that an implementation gets the same
report on every plain run (the examples drawn, and so the failure a clause is blamed for, are the
same; a seeded run also uses no example database)."""


def seeded(extra: Sequence[str], seed: int | None = None) -> list[str]:
    """``extra`` with the run's Hypothesis seed (``seed``, else :data:`DEFAULT_SEED`) unless it
    names one (``--hypothesis-seed``), so that every plain run draws the same examples and the
    command the report gives to rerun one clause draws them too."""
    if any(a.partition("=")[0] == "--hypothesis-seed" for a in extra):
        return list(extra)
    return [*extra, f"--hypothesis-seed={DEFAULT_SEED if seed is None else seed}"]


def run_seed(extra: Sequence[str]) -> str | None:
    """The Hypothesis seed ``extra`` names, if it names one."""
    for index, arg in enumerate(extra):
        name, equals, value = arg.partition("=")
        if name == "--hypothesis-seed":
            return value if equals else (extra[index + 1] if index + 1 < len(extra) else None)
    return None


def clause_lines(clauses: Sequence[Clause], width: int) -> list[str]:
    """One line per clause: id, keyword, profile, first sentence truncated to ``width``."""
    id_width = max((len(c.id) for c in clauses), default=0)
    lines = []
    for c in clauses:
        start = clause_columns(c, id_width)
        lines.append(start + fit(first_sentence(c.text), max(width - len(start), 20)))
    return lines


def _in_full(clause: Clause, width: int) -> str:
    """A clause as ``cordspec clauses ID`` shows it: heading, where it is, its text, rationale
    and ExecuTorch's behaviour, wrapped to ``width``; then "tests:"."""
    wrap = functools.partial(textwrap.fill, width=max(width, 40) - 4, initial_indent="  ")
    wrap = functools.partial(wrap, subsequent_indent="  ")
    parts = [
        f"{clause.id} · {clause.keyword} · {clause.profile}",
        f"  spec/SPEC.md line {clause.line}: {clause.section}"
        + (f" / {clause.subsection}" if clause.subsection else ""),
        wrap(_one_line(clause.text)),
    ]
    if clause.rationale:
        parts.append(wrap(f"Rationale: {_one_line(clause.rationale)}"))
    if clause.executorch:
        parts.append(wrap(f"ExecuTorch 1.5.1: {_one_line(clause.executorch)}"))
    parts.append("  tests:")
    return "\n".join(parts)


def _with_tests(clauses: Sequence[Clause], lines: list[str], profile: Profile) -> list[str]:
    """``lines`` (one per clause), each followed by the tests naming its clause, one per line
    without parameters; "(no test)" where none does."""
    try:
        tests = collect_suite(profile)
    except CollectError as exc:
        raise _Failure(str(exc)) from None
    by_clause: dict[str, dict[str, None]] = {c.id: {} for c in clauses}
    for test in tests:
        for clause_id in test.clauses:
            if clause_id in by_clause:
                by_clause[clause_id].setdefault(test.nodeid.partition("[")[0], None)
    out = []
    for clause, line in zip(clauses, lines, strict=True):
        out.append(line)
        out.extend(f"    {nodeid}" for nodeid in by_clause[clause.id] or ["(no test)"])
    return out


def _clauses(args: argparse.Namespace) -> int:
    try:
        spec = load_spec()
    except (SpecError, FileNotFoundError) as exc:
        raise _Failure(str(exc)) from None
    clauses = spec.in_profile(args.profile) if args.profile else list(spec.clauses.values())
    width = shutil.get_terminal_size(fallback=(100, 24)).columns
    if args.ids:
        unknown = [i for i in args.ids if i not in spec.clauses]
        if unknown:
            raise _Failure(f"{unknown[0]}: no such clause (cordspec clauses lists them)")
        chosen = [spec.clauses[i] for i in dict.fromkeys(args.ids)]
        lines = _with_tests(chosen, [_in_full(c, width) for c in chosen], "strict")
    else:
        lines = clause_lines(clauses, width)
        if args.tests:
            lines = _with_tests(clauses, lines, args.profile or "strict")
    try:
        for line in lines:
            print(line)
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. piped into head: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _sweep(args: argparse.Namespace) -> int:
    from reference.sweep import report_lines, sweep

    try:
        result = sweep(args.directory, dry_run=args.dry_run)
    except OSError as exc:
        reason = "is a symbolic link" if exc.errno == errno.ELOOP else exc.strerror or str(exc)
        raise _Failure(f"sweep {args.directory}: {reason}") from None
    for line in report_lines(result):
        print(line)
    if result.failed:  # FBD-SWEEP-5: the others were removed; say which were not
        print(
            f"cordspec: sweep {args.directory}: {len(result.failed)} orphan(s) could not be "
            "removed",
            file=sys.stderr,
        )
        return 1
    return 0


def _host(args: argparse.Namespace) -> int:
    from .host import command
    from .host.prerequisites import MissingPrerequisites

    if os.getcwd() not in sys.path:  # as for run: --impl may name modules of this directory
        sys.path.append(os.getcwd())
    impl = selected_target(args.impl)
    try:
        return command.main(impl, args.report, args.workdir)
    except (MissingPrerequisites, ImplementationError) as exc:
        raise _Failure(_one_line(str(exc))) from None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``cordspec`` command; return its exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in argv:
        at = argv.index("--")
        argv, extra = argv[:at], argv[at + 1 :]
    parser = _parser()
    args = parser.parse_args(argv)
    if extra and args.command != "run":
        parser.error("arguments after -- are only for 'cordspec run'")
    try:
        if args.command == "run":
            return _run(args, extra)
        if args.command == "sweep":
            return _sweep(args)
        if args.command == "host":
            return _host(args)
        return _clauses(args)
    except _Failure as exc:
        print(f"cordspec: {exc}", file=sys.stderr)
        return int(Exit.USAGE)
    except KeyboardInterrupt:  # before pytest started, or after it ended
        print("cordspec: interrupted", file=sys.stderr)
        return int(Exit.INTERRUPTED)
