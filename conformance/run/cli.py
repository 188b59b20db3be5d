"""The ``cordspec`` command: run the conformance suite against an implementation, list clauses.

``cordspec run`` runs pytest in this process on the installed suite (``conformance.suite``), with
this package's own ini file (``conformance/cordspec.ini``) as pytest's configuration: neither the
configuration nor the conftest files of the directory it is started in take part.
"""

from __future__ import annotations

import argparse
import errno
import os
import re
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from .. import suite
from ..adapters import load_implementation, selected_spec
from ..api import ImplementationError
from .deviations import read_deviations
from .report import clause_columns, fit, report_format
from .spec import PROFILES, Clause, SpecError, load_spec

__all__ = ["main", "pytest_args"]

INI = Path(__file__).parents[1] / "cordspec.ini"
SUITE = Path(suite.__file__).parent
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*(\"])")


class _Failure(Exception):
    """A problem to print as ``cordspec: <message>`` before exiting with status 2."""


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _report_path(value: str) -> str:
    try:
        report_format(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cordspec",
        description="Conformance suite for ExecuTorch's file-backed serialization (spec/SPEC.md).",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run = commands.add_parser(
        "run",
        help="run the conformance suite against an implementation",
        description="Run the conformance suite; arguments after -- go to pytest unchanged.",
        usage="cordspec run [options] [-- PYTEST_ARGS...]",
        epilog="Exit status: 0 when every test passed, was a declared deviation or was not "
        "applicable and the profile's verdict is CONFORMS (with or without declared deviations); "
        "1 otherwise; 2 when the implementation cannot be loaded or the arguments are wrong; "
        "else pytest's own status (2 interrupted, 3 internal error, 4 usage, 5 no tests).",
    )
    run.add_argument(
        "--impl",
        help="reference, executorch, package.module or package.module:object "
        "(default: $CORDSPEC_IMPL, else reference)",
    )
    run.add_argument(
        "--profile",
        choices=PROFILES,
        default="strict",
        help="core, or strict = core + strict clauses (default: strict)",
    )
    run.add_argument(
        "--report",
        action="append",
        default=[],
        type=_report_path,
        metavar="PATH",
        help="write the clause report: Markdown for .md, JSON for .json (repeatable)",
    )
    run.add_argument(
        "--deviations",
        metavar="FILE",
        help="file of known deviations (default: the built-in adapter's list, if any)",
    )
    run.add_argument(
        "--hypothesis-profile",
        metavar="NAME",
        help="load this registered Hypothesis settings profile",
    )
    clauses = commands.add_parser(
        "clauses",
        help="list the clauses of the spec",
        description="List the clauses: id, keyword, profile and the first sentence of the text.",
    )
    clauses.add_argument(
        "--profile",
        choices=PROFILES,
        default=None,
        help="only the clauses this profile requires (core, or core + strict)",
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
        epilog="Exit status: 0 after the sweep; 2 when DIR does not exist or is not a directory.",
    )
    sweep.add_argument("directory", metavar="DIR", help="the directory to sweep (not below it)")
    sweep.add_argument(
        "--dry-run", action="store_true", help="remove nothing; list what would be removed"
    )
    return parser


def pytest_args(
    impl: str,
    profile: str,
    reports: Sequence[str] = (),
    deviations: str | None = None,
    hypothesis_profile: str | None = None,
    extra: Sequence[str] = (),
) -> list[str]:
    """The pytest command line ``cordspec run`` uses."""
    args = ["-c", str(INI), "--rootdir", str(INI.parent), "-p", "no:cacheprovider", str(SUITE)]
    args += ["--impl", impl, "--profile", profile]
    for path in reports:
        args += ["--report", path]
    if deviations is not None:
        args += ["--deviations", deviations]
    if hypothesis_profile is not None:
        args += ["--hypothesis-profile", hypothesis_profile]
    return [*args, *extra]


def _load(impl: str) -> None:
    """Load the implementation once, so that a bad ``--impl`` stops the run before pytest starts."""
    try:
        load_implementation(impl)
    except ImplementationError as exc:
        raise _Failure(_one_line(str(exc))) from None
    except Exception as exc:  # the module raised while importing: report it, don't trace it
        raise _Failure(
            _one_line(f"cannot load --impl {impl}: {type(exc).__name__}: {exc}")
        ) from None


def _run(args: argparse.Namespace, extra: list[str]) -> int:
    # Like ``python -m``, let ``--impl`` name modules of the directory the command runs in; last,
    # so that they cannot shadow installed packages.
    if os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())
    impl = selected_spec(args.impl)
    _load(impl)
    deviations = None
    if args.deviations is not None:
        path = Path(args.deviations)
        if not path.is_file():
            raise _Failure(f"--deviations {args.deviations}: no such file")
        try:
            read_deviations(path)
        except ValueError as exc:
            raise _Failure(str(exc).replace("\n", "\ncordspec: ")) from None
        deviations = str(path.resolve())
    reports = [str(Path(p).resolve()) for p in args.report]
    argv = pytest_args(impl, args.profile, reports, deviations, args.hypothesis_profile, extra)
    return int(pytest.main(argv))


def first_sentence(text: str) -> str:
    """The first sentence of a clause's text, on one line."""
    flat = _one_line(text)
    return _SENTENCE_END.split(flat, maxsplit=1)[0]


def clause_lines(clauses: Sequence[Clause], width: int) -> list[str]:
    """One line per clause: id, keyword, profile, first sentence truncated to ``width``."""
    id_width = max((len(c.id) for c in clauses), default=0)
    lines = []
    for c in clauses:
        start = clause_columns(c, id_width)
        lines.append(start + fit(first_sentence(c.text), max(width - len(start), 20)))
    return lines


def _clauses(args: argparse.Namespace) -> int:
    try:
        spec = load_spec()
    except (SpecError, FileNotFoundError) as exc:
        raise _Failure(str(exc)) from None
    clauses = spec.in_profile(args.profile) if args.profile else list(spec.clauses.values())
    width = shutil.get_terminal_size(fallback=(100, 24)).columns
    try:
        for line in clause_lines(clauses, width):
            print(line)
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. piped into head: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _sweep(args: argparse.Namespace) -> int:
    from reference.sweep import sweep

    try:
        result = sweep(args.directory, dry_run=args.dry_run)
    except OSError as exc:
        reason = "is a symbolic link" if exc.errno == errno.ELOOP else exc.strerror or str(exc)
        raise _Failure(f"sweep {args.directory}: {reason}") from None
    verb = "would remove" if result.dry_run else "removed"
    for found in result.removed:
        print(f"{verb} {found.path} (owner pid {found.pid} gone)")
    for found in result.kept:
        why = "unknown owner" if found.owner == "unknown" else f"owner pid {found.pid} alive"
        print(f"kept {found.path} ({why})")
    done = "would be removed" if result.dry_run else "removed"
    print(f"{len(result.removed)} {done}, {len(result.kept)} kept")
    return 0


def _host(args: argparse.Namespace) -> int:
    from ..host import command
    from ..host.prerequisites import MissingPrerequisites

    if os.getcwd() not in sys.path:  # as for run: --impl may name modules of this directory
        sys.path.append(os.getcwd())
    impl = selected_spec(args.impl)
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
        return 2
