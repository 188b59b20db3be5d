"""Which suite tests can see a mutant: a map, recorded once per meta run against the reference,
of the reference functions and the ``Implementation`` fields each suite test reaches, and the
selection it gives each mutant (so that meta need not run every mutant over the whole suite).

A mutant differs from the reference only in what it replaces: methods of a reference class (the
code of the reference's method is not run), or a whole field of the ``Implementation`` (a hook
object). A test that, against the reference, runs none of the replaced methods and reads none of
the replaced fields runs the same code against the mutant, and so has the same outcome: leaving
it out changes no verdict. A test's children count as the test: those it forks, and the child
interpreters that load the implementation (fresh, or forked by a warm parent), append what they
reach to a file the test process reads after each test. What the map cannot see is run whatever
the mutant: a test that puts its own profile function in place of the recorder's; and a mutant
whose change the map cannot name (a data attribute, a special method the reference does not
define, code run outside any test) runs the whole suite. A child that loads the implementation
by another route than ``target`` would not be seen: the suite's children all load it by name.

This module is a pytest plugin for the child ``cordspec run`` (``-p tests.mutants._impact``):
with ``$CORDSPEC_IMPACT_RECORD`` it records the map into that file (against :data:`WATCHED`, the
reference that tells which fields a test reads); with ``$CORDSPEC_IMPACT_SELECT`` it runs only
the node ids listed in that file.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import json
import os
import sys
import threading
from collections import defaultdict
from collections.abc import Generator, Iterable
from dataclasses import dataclass
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

import pytest

import reference
from conformance import api, environment
from conformance.adapters import reference as reference_adapter
from conformance.api import Implementation

RECORD_VARIABLE = environment.IMPACT_RECORD.name
SELECT_VARIABLE = environment.IMPACT_SELECT.name
SESSION = ""
"""The map's name for what runs outside any test (collection, the session's start and end)."""
_REFERENCE_DIR = os.path.dirname(os.path.abspath(reference.__file__)) + os.sep
_NOT_BEHAVIOUR = frozenset(
    {"__module__", "__doc__", "__qualname__", "__dict__", "__weakref__", "__slots__"}
    | {"__annotations__", "__firstlineno__", "__static_attributes__", "__orig_bases__"}
    | {"__parameters__", "__abstractmethods__", "_abc_impl"}
)
"""What a class body defines that is no behaviour a test could see."""
_API = os.path.abspath(api.__file__)
_RUNNER = (_API, os.path.join(os.path.dirname(_API), "run", ""))
"""Code that reads an ``Implementation``'s fields only to tell which capabilities it has, and to
describe it in the report: a mutant that replaces a field keeps it present."""
_FIELDS = frozenset(f.name for f in dataclasses.fields(Implementation))


def code_key(code: CodeType) -> str:
    """A reference function's code, by file (relative to ``reference/``) and first line."""
    return f"{code.co_filename[len(_REFERENCE_DIR) :]}:{code.co_firstlineno}"


@dataclass
class ImpactMap:
    """What each suite test reached against the reference (node id to function keys and fields),
    the tests the map cannot see into, and what ran outside any test."""

    calls: dict[str, set[str]]
    fields: dict[str, set[str]]
    blind: set[str]
    session: set[str]

    def to_json(self) -> str:
        return json.dumps(
            {
                "calls": {t: sorted(c) for t, c in self.calls.items()},
                "fields": {t: sorted(f) for t, f in self.fields.items()},
                "blind": sorted(self.blind),
                "session": sorted(self.session),
            }
        )

    @classmethod
    def from_json(cls, text: str) -> ImpactMap:
        raw = json.loads(text)
        return cls(
            {t: set(c) for t, c in raw["calls"].items()},
            {t: set(f) for t, f in raw["fields"].items()},
            set(raw["blind"]),
            set(raw["session"]),
        )

    @property
    def tests(self) -> set[str]:
        return set(self.calls) | set(self.fields) | self.blind

    def select(self, implementation: Implementation) -> set[str] | None:
        """The tests that can see how ``implementation`` differs from the reference, or None
        when the map cannot tell (the whole suite must run)."""
        code, fields = changes(implementation)
        if code is None or code & self.session:
            return None
        return {
            test
            for test in self.tests
            if test in self.blind
            or code & self.calls.get(test, set())
            or fields & self.fields.get(test, set())
        }


def changes(implementation: Implementation) -> tuple[set[str] | None, set[str]]:
    """What ``implementation`` replaces of the reference: the keys of the reference functions
    whose code no longer runs (None: a change the map cannot name), and the fields replaced
    whole. A field whose class subclasses the reference's is the methods it overrides."""
    base = reference_adapter.load()
    code: set[str] = set()
    fields: set[str] = set()
    for name in _FIELDS - {"name", "target"}:
        mine, theirs = getattr(implementation, name), getattr(base, name)
        if _same(mine, theirs):
            continue
        overridden = (
            _overridden(mine, theirs)
            if isinstance(mine, type) and isinstance(theirs, type)
            else None
        )
        if overridden is None:
            fields.add(name)
        else:
            code |= overridden
    return code, fields


def _same(mine: object, theirs: object) -> bool:
    """Whether two values of a field behave alike: the same object, equal data (``absent``), or
    objects of one class with equal state (the adapter's hooks, made afresh by each ``load()``)."""
    if mine is theirs:
        return True
    if type(mine) is not type(theirs) or isinstance(mine, type):
        return False
    state = getattr(mine, "__dict__", None)
    return bool(mine == theirs) or (state is not None and state == vars(theirs))


def _overridden(mine: type, theirs: type) -> set[str] | None:
    """The keys of the reference methods a subclass ``mine`` of ``theirs`` replaces, or None if it
    changes something else (a data attribute, a special method ``theirs`` inherits from outside
    the reference): the tests that read ``theirs`` at all must then run."""
    if not issubclass(mine, theirs):
        return None
    ours = [k for k in mine.__mro__ if k.__module__.partition(".")[0] != "reference"]
    references = [k for k in mine.__mro__ if k not in ours]
    keys: set[str] = set()
    for cls in ours:
        if cls is object:
            continue
        for name in vars(cls):
            if name in _NOT_BEHAVIOUR:
                continue
            owner = next((r for r in references if name in vars(r)), None)
            if owner is None:
                if hasattr(theirs, name) or (name.startswith("__") and name.endswith("__")):
                    return None  # inherited from outside the reference, or a new special method
                continue  # a step of the mutant's own, called from its overrides
            codes = _codes(vars(owner)[name])
            if codes is None:
                return None
            keys |= codes
    return keys


def _codes(attribute: object) -> set[str] | None:
    """The code a class attribute runs when used, if it is a function of the reference."""
    if isinstance(attribute, (classmethod, staticmethod)):
        attribute = attribute.__func__
    if isinstance(attribute, property):
        parts = [attribute.fget, attribute.fset, attribute.fdel]
        found = [_codes(p) for p in parts if p is not None]
        return None if any(f is None for f in found) else set().union(*found)  # type: ignore[arg-type]  # None excluded above
    if isinstance(attribute, functools.cached_property):
        attribute = attribute.func
    if inspect.isfunction(attribute):
        code = inspect.unwrap(attribute).__code__
        if code.co_filename.startswith(_REFERENCE_DIR):
            return {code_key(code)}
    return None


class _Recorder:
    """Records, per test, the reference functions called and the fields read (plugin, record
    mode), into :data:`RECORD_VARIABLE`'s file at the session's end.

    A child records too: one forked from the test process, or any interpreter that loads
    :data:`WATCHED` (a fresh one, or one a warm parent forks), appends what it reaches to a file
    the test process reads at the end of each test (:meth:`absorb`), so that a test's children
    count as the test (they have ended by then: the suite waits for them)."""

    def __init__(self, out: Path, children: Path, parent: int) -> None:
        self.out = out
        self.children = children
        self.parent = parent
        self.current = SESSION
        self.calls: defaultdict[str, set[str]] = defaultdict(set)
        self.fields: defaultdict[str, set[str]] = defaultdict(set)
        self.blind: set[str] = set()
        self.mine = False
        self.read = 0
        self.written: set[str] = set()
        """In a child: the lines it has appended (each once)."""
        self.fd = -1

    @property
    def in_child(self) -> bool:
        return os.getpid() != self.parent

    def note(self, kind: str, what: str) -> None:
        """A call (``C``), a field read (``F``) or a blind spot (``B``) of the current test."""
        if self.in_child:
            line = f"{kind} {what}\n"
            if line not in self.written:
                self.written.add(line)
                if self.fd < 0:
                    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC
                    self.fd = os.open(self.children, flags, 0o600)
                os.write(self.fd, line.encode())
        elif kind == "C":
            self.calls[self.current].add(what)
        elif kind == "F":
            self.fields[self.current].add(what)
        else:
            self.blind.add(self.current)

    def forked(self) -> None:
        """In a child just forked: nothing written yet, by this process, which opens the file
        for itself (a descriptor inherited from a warm parent is not left open)."""
        if self.fd >= 0:
            os.close(self.fd)
        self.written = set()
        self.fd = -1

    def profile(self, frame: FrameType, event: str, arg: object) -> None:
        if event == "call" and frame.f_code.co_filename.startswith(_REFERENCE_DIR):
            self.note("C", code_key(frame.f_code))

    def audit(self, event: str, args: tuple[Any, ...]) -> None:
        """A profile function put in place of the recorder's blinds it for the current test; a
        new thread putting in the recorder's (``threading.setprofile``) does not."""
        if event != "sys.setprofile" or self.mine:
            return
        if sys._getframe(1).f_code.co_filename != threading.__file__:
            self.note("B", "")

    def start(self) -> None:
        self.mine = True
        sys.setprofile(self.profile)
        threading.setprofile(self.profile)
        self.mine = False

    def absorb(self) -> None:
        """Count what the children have appended since the last call as the current test's."""
        try:
            with self.children.open("rb") as appended:
                appended.seek(self.read)
                data = appended.read()
        except FileNotFoundError:
            return
        complete = data[: data.rfind(b"\n") + 1]
        self.read += len(complete)
        for line in complete.decode().splitlines():
            kind, _, what = line.partition(" ")
            self.note(kind, what)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, None, None]:
        self.absorb()  # what ran between tests
        self.current = item.nodeid
        self.fields[item.nodeid]  # every test has an entry, if it reaches nothing
        if sys.getprofile() is not self.profile:  # a test put its own back wrongly
            self.start()
        yield
        self.absorb()
        self.current = SESSION

    def pytest_sessionfinish(self) -> None:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]  # None removes it
        self.absorb()
        session = self.calls.pop(SESSION, set())
        self.fields.pop(SESSION, None)
        self.blind.discard(SESSION)
        found = ImpactMap(dict(self.calls), dict(self.fields), self.blind, session)
        self.out.write_text(found.to_json(), encoding="utf-8")


_RECORDER: _Recorder | None = None


def _record(out: Path, children: Path, parent: int) -> _Recorder:
    """Start recording in this process (the test process, or a child of its test)."""
    recorder = _Recorder(out, children, parent)
    sys.addaudithook(recorder.audit)
    os.register_at_fork(after_in_child=recorder.forked)
    recorder.start()
    return recorder


class _Watched(Implementation):
    """The reference, telling the recorder which of its fields a test reads."""

    def __getattribute__(self, name: str) -> Any:
        if _RECORDER is not None and name in _FIELDS and name != "target":
            reader = sys._getframe(1).f_code.co_filename
            if not reader.startswith(_RUNNER):  # which capabilities it has is no use of a field
                _RECORDER.note("F", name)
        return super().__getattribute__(name)


WATCHED = _Watched(
    **{f: getattr(reference_adapter.load(), f) for f in _FIELDS - {"target"}},
    target=f"{__name__}:WATCHED",
)

_CHILDREN_VARIABLE = environment.IMPACT_CHILDREN.name
"""Set by the recording test process for its children: ``<pid> <file>``, the file they append to."""
if _RECORDER is None and os.environ.get(_CHILDREN_VARIABLE):  # a child interpreter loading WATCHED
    _pid, _, _file = os.environ[_CHILDREN_VARIABLE].partition(" ")
    _RECORDER = _record(Path(_file), Path(_file), int(_pid))


class _Selector:
    """Deselects every test that :data:`SELECT_VARIABLE`'s file does not list (plugin)."""

    def __init__(self, keep: Iterable[str]) -> None:
        self.keep = set(keep)

    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[Any]) -> None:
        kept = [i for i in items if i.nodeid in self.keep]
        dropped = [i for i in items if i.nodeid not in self.keep]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept


def pytest_configure(config: pytest.Config) -> None:
    global _RECORDER
    record, select = os.environ.get(RECORD_VARIABLE), os.environ.get(SELECT_VARIABLE)
    if record:
        out = Path(record).resolve()
        children = out.with_name(out.name + ".children")
        children.unlink(missing_ok=True)
        os.environ[_CHILDREN_VARIABLE] = f"{os.getpid()} {children}"
        _RECORDER = _record(out, children, os.getpid())
        config.pluginmanager.register(_RECORDER, "cordspec-impact-recorder")
    elif select:
        keep = Path(select).read_text(encoding="utf-8").split("\n")
        config.pluginmanager.register(_Selector(filter(None, keep)), "cordspec-impact-selector")
