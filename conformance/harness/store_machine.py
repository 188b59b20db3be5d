"""The store state machine (spec section 4): a Hypothesis ``RuleBasedStateMachine`` that drives
three stores of an implementation and ``conformance.harness.model`` side by side.

Rules add bytes and file-backed blobs (equal contents in both representations, fingerprint
collisions, empty blobs, repeated keys with equal and different contents, several alignments,
tags and layouts, wrong types and bad alignments), take outputs, merge outputs into stores (again
into the same store, and one output into several), externalize, and close file objects that no
store or output holds. Every outcome (success, or the exception type, and the exact message where
the spec fixes it) must be the model's; after every step the invariants must hold; at the end
every FileBackedData made is closed and no placeholder is left.

A failure reads as a story (``note()`` per step) and ends with the shrunk sequence as a JSON vector
in the format of ``spec/vectors/`` (between ``CORDSPEC-VECTOR-BEGIN`` and ``CORDSPEC-VECTOR-END``).

Run it with :func:`run_machine` (``run_machine(impl, "core")``); the suite's
``test_store_machine.py`` does, once per profile.
"""

from __future__ import annotations

import functools
import hashlib
import re
import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar, cast

from hypothesis import Phase, note, reject, settings
from hypothesis import strategies as st
from hypothesis.control import current_build_context
from hypothesis.errors import HypothesisException
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
)
from hypothesis.stateful import (
    run_state_machine_as_test as _run_untyped,
)

from ..api import Capability, DataEntry, FileBackedData, Implementation
from .checks import ClauseFailure, blame, check
from .helpers import (
    PREFIX,
    State,
    close_each,
    content,
    left_behind,
    output_state,
    placeholders,
)
from .model import (
    Blob,
    Entry,
    ExactValueError,
    Model,
    Output,
    Profile,
    Unspecified,
    clause_of,
)
from .vectors import (
    Vector,
    VectorFailure,
    check_of,
    describe,
    dumps,
    expectation,
    replay,
    with_expectations,
)

CORE_CLAUSES = (
    "NDS-ADD-1",
    "NDS-ADD-2",
    "NDS-ADD-3",
    "NDS-ADD-4",
    "NDS-ADD-7",
    "NDS-KEY-1",
    "NDS-KEY-2",
    "NDS-KEY-3",
    "NDS-ALIGN-1",
    "NDS-DEDUP-1",
    "NDS-DEDUP-2",
    "NDS-DEDUP-5",
    "NDS-DEDUP-6",
    "NDS-DEDUP-7",
    "NDS-DEDUP-9",
    "NDS-OUT-1",
    "NDS-OUT-2",
    "NDS-MERGE-1",
    "NDS-MERGE-2",
    "NDS-MERGE-3",
    "NDS-MERGE-4",
    "NDS-MERGE-5",
    "NDS-MERGE-8",
    "NDS-EXT-2",
    "NDS-EXT-3",
    "NDS-EXT-4",
    "NDS-EXT-5",
    "NDS-EXT-7",
)
"""What the core machine checks: outcomes, every store against the model, merged outputs."""
STRICT_CLAUSES = (
    "NDS-OUT-3",
    "NDS-MERGE-6",
    "NDS-ATOMIC-1",
    "NDS-KEY-5",
    "NDS-KEY-6",
    "NDS-ALIGN-2",
    "NDS-ADD-5",
    "NDS-ADD-6",
)
"""What the strict machine checks on top: snapshot outputs, atomic merges and adds, re-adds under
another place, layout or alignment, and argument types."""

VECTOR_BEGIN, VECTOR_END = "CORDSPEC-VECTOR-BEGIN", "CORDSPEC-VECTOR-END"

PALETTE: tuple[bytes, ...] = (
    b"weights",
    b"",
    PREFIX + b"A",
    PREFIX + b"B",  # the fingerprint of the one before, another tail
    PREFIX,  # a whole fingerprint
    b"w",
    PREFIX + b"A" * 40,
    PREFIX + b"A" * 39 + b"B",  # the fingerprint of the one before, another last byte
)
"""Few contents, so that equal contents, collisions and empty blobs come up all the time."""
STORES = ("s0", "s1", "s2")
KEYS = ("k0", "k1", "k2", "k3")
TAGS: tuple[str | None, ...] = (None, "t1", "t2")
ALIGNMENTS: tuple[int | None, ...] = (1, 16, 3, 4096, None)
LAYOUTS: tuple[str | None, ...] = (None, "f32[8]")
KINDS = ("bytes", "file", "file+digest")
WRONG_TYPES = ("bytearray", "memoryview", "str")
BAD_ARGUMENTS: tuple[tuple[str, Any], ...] = (
    ("key", 5),
    ("tag", 7),
    ("tag", ""),
    ("alignment", True),
    ("alignment", 1.5),
)
CAPS = (1000, 40, 8)
"""``max_data_bytes`` for externalize: everything in one shard, several shards, too small."""


def _show(data: bytes) -> str:
    if len(data) <= 12:
        return repr(data)
    return f"{data[:4]!r}..{data[-4:]!r} ({len(data)} bytes)"


@dataclass
class BlobRecord:
    """One blob object the machine made."""

    name: str
    data: bytes
    kind: str  # bytes, file, file+digest, or a wrong type
    obj: object
    closed: bool = False

    @property
    def digest(self) -> bytes | None:
        return hashlib.sha256(self.data).digest() if self.kind == "file+digest" else None

    @property
    def is_file(self) -> bool:
        return self.kind.startswith("file")

    def __str__(self) -> str:
        return f"{self.name}<{self.kind} {_show(self.data)}>"

    def definition(self) -> dict[str, Any]:
        """The blob as a vector defines it."""
        found: dict[str, Any] = describe(self.data)
        if self.is_file:
            found["as"] = "file"
        elif self.kind != "bytes":
            found["as"] = self.kind
        if self.digest is not None:
            found["sha256"] = self.digest.hex()
        return found


@dataclass
class OutputRecord:
    """An output taken from a store."""

    name: str
    store: str
    obj: Any
    snapshot: Output
    shape: State
    touches: int
    """The store's touch count when taken: core checks an output only while it is unchanged."""
    merged: bool = False


@dataclass
class Trace:
    """The steps so far, as a vector."""

    blobs: dict[str, dict[str, Any]] = field(default_factory=dict)
    steps: list[dict[str, Any]] = field(default_factory=list)
    open_steps: list[int] = field(default_factory=list)
    """Steps whose outcome the profile leaves open (recorded as observed)."""


F = TypeVar("F", bound=Callable[..., object])


_ADD_OPTIONS: dict[str, st.SearchStrategy[Any]] = {
    "alignment": st.sampled_from(ALIGNMENTS),
    "tag": st.sampled_from(TAGS),
    "layout": st.sampled_from(LAYOUTS),
}
"""What an add may pass besides the data, for the rules that try any of it."""


def _adding(**arguments: st.SearchStrategy[Any]) -> Callable[[F], F]:
    """A rule that adds to a store under a key: the store and the key are drawn first, then
    ``arguments`` in their order (the order Hypothesis draws in, so the examples stay the same)."""
    # through ``Callable[..., ...]``: mypy cannot tell that ``arguments`` holds no ``target``
    untargeted = cast("Callable[..., Callable[[F], F]]", rule)
    return untargeted(store=st.sampled_from(STORES), key=st.sampled_from(KEYS), **arguments)


def recorded(function: F) -> F:
    """Keep the message of a failing rule or invariant (its clause ids name the vector's). An
    exception the implementation raised where no check expected one (reading a buffer it closed,
    say) is blamed on the clauses the last step may have broken, not on all of the machine's."""

    @functools.wraps(function)
    def run(self: StoreMachine, *args: Any, **kwargs: Any) -> object:
        try:
            return function(self, *args, **kwargs)
        except ClauseFailure as exc:
            self.failure = str(exc)
            self.search.keep_to_the_first(exc)
            raise
        except HypothesisException as exc:
            self.failure = str(exc)
            raise
        except Exception as exc:
            clauses = self.after.clauses
            failure = ClauseFailure(f"{type(exc).__name__}: {exc} ({', '.join(clauses)})", clauses)
            self.failure = str(failure)
            self.search.keep_to_the_first(failure)
            raise failure from exc

    return cast(F, run)


@dataclass
class Search:
    """What one run of the machine (all its examples) found first: the clauses of its first
    failure. Shrinking keeps to them, so that a ``--shrink`` run blames what the run without
    shrinking, which stops at its first failure, blames."""

    first: tuple[str, ...] | None = None

    def keep_to_the_first(self, failure: ClauseFailure) -> None:
        """Note the first failure's clauses; reject an example (Hypothesis then neither shrinks
        to it nor reports it) that fails other clauses than the first failure's."""
        if self.first is None:
            self.first = failure.clauses
        elif failure.clauses != self.first:
            reject()


class StoreMachine(RuleBasedStateMachine):
    """Stores of ``impl`` next to the model of ``profile``'s semantics."""

    outputs_taken = Bundle("outputs")

    def __init__(
        self, impl: Implementation, profile: Profile, search: Search | None = None
    ) -> None:
        super().__init__()
        self.search = search or Search()
        self.impl = impl
        self.profile = profile
        self.clauses = CORE_CLAUSES if profile == "core" else STRICT_CLAUSES
        self.directory = Path(tempfile.mkdtemp(prefix="cordspec-machine-"))
        self.stores: dict[str, Any] = {name: self.impl.NamedDataStore() for name in STORES}
        self.models: dict[str, Model] = {name: Model(self.profile) for name in STORES}
        self.touches: dict[str, int] = dict.fromkeys(STORES, 0)
        self.blobs: list[BlobRecord] = []
        self.by_name: dict[str, BlobRecord] = {}
        self.outputs: list[OutputRecord] = []
        self.files: list[FileBackedData] = []
        self.trace = Trace()
        self.step_number = 0
        self.failure = ""
        """The message of the failure, if any (its clause ids name the vector's clauses)."""
        self.after = Aftermath(("NDS-ADD-2",))
        """What the last step may have left wrong (checked by the invariants after it)."""

    # -- blobs ---------------------------------------------------------------------------------

    def _blob(self, data: bytes, kind: str) -> BlobRecord:
        name = f"b{len(self.blobs)}"
        obj: object
        if kind.startswith("file"):
            path = self.directory / f"{name}.bin"
            path.write_bytes(data)
            digest = hashlib.sha256(data).digest() if kind == "file+digest" else None
            made = self.impl.FileBackedData.move_from(str(path), sha256=digest)
            self.files.append(made)
            obj = made
        elif kind == "bytes":
            obj = bytes(bytearray(data))
        elif kind == "bytearray":
            obj = bytearray(data)
        elif kind == "memoryview":
            obj = memoryview(bytes(data))
        else:
            obj = data.decode("latin-1")
        record = BlobRecord(name, data, kind, obj)
        self.blobs.append(record)
        self.by_name[name] = record
        self.trace.blobs[name] = record.definition()
        return record

    def _live(self) -> list[BlobRecord]:
        return [b for b in self.blobs if not b.closed and b.kind in KINDS]

    def _held(self) -> set[str | None]:
        """Labels of every blob a store or an output holds, as far as the model knows."""
        held = {b.label for m in self.models.values() for b in m.blobs}
        return held | {b.label for o in self.outputs for b in o.snapshot.blobs}

    def _closable(self) -> list[BlobRecord]:
        held = self._held()
        return [b for b in self._live() if b.is_file and b.name not in held]

    def _label_of(self, buffer: object) -> str | None:
        for record in reversed(self.blobs):
            if record.obj is buffer:
                return record.name
        return None

    def read_output(self, out: Any) -> Output:
        """An implementation's output as the model sees it (labels by identity)."""
        blobs = []
        for buffer in out.buffers:
            label = self._label_of(buffer)
            digest = self.by_name[label].digest if label is not None else None
            blobs.append(Blob(content(buffer), label, digest))
        return Output(
            tuple(blobs),
            {k: _model_entry(e) for k, e in out.pte_data.items()},
            {t: {k: _model_entry(e) for k, e in es.items()} for t, es in out.external_data.items()},
        )

    # -- running one step --------------------------------------------------------------------

    def _step(
        self,
        store: str | None,
        record: dict[str, Any],
        text: str,
        model_step: Callable[[], Unspecified | None],
        actual_step: Callable[[], object],
        sources: Mapping[str, bytes] | None = None,
        refused: tuple[str, ...] = ("NDS-ADD-1",),
    ) -> None:
        """Run one step on the model and the implementation and compare the outcomes.

        ``refused`` names the clauses a step breaks when it fails where the model succeeds (and
        that the next check of the stores blames for what the step left wrong); where the model
        raises, the clause that requires its error is blamed."""
        self.step_number += 1
        self.after = Aftermath(("NDS-ADD-2",) if refused == ("NDS-ADD-1",) else refused)
        expected: BaseException | None = None
        result: Unspecified | None = None
        try:
            result = model_step()
        except (ValueError, TypeError) as exc:
            expected = exc
        index = len(self.trace.steps)
        record["expect"] = expectation(expected)
        self.trace.steps.append(record)
        if store is not None:
            self.touches[store] += 1
        outcome: BaseException | None = None
        try:
            actual_step()
        except Exception as exc:  # compared with the model below
            outcome = exc
        shown = "ok" if outcome is None else f"{type(outcome).__name__}: {outcome}"
        note(f"step {self.step_number}: {text} -> {shown}")
        if result is not None:
            record["expect"] = expectation(outcome)
            self.trace.open_steps.append(index + 1)
            note(f"  (the spec leaves this open: {result.reason}; now the store's state is taken)")
            if outcome is not None and not isinstance(outcome, ValueError | TypeError):
                raise ClauseFailure(f"{text}: unexpected {shown}", refused) from outcome
            permitted = result.permits(None if outcome is None else type(outcome))
            check(
                permitted, f"{text}: {shown}, but only {sorted(map(str, result.allowed))}", *refused
            )
            assert store is not None
            self._resync(store, sources or {}, refused)
            return
        if expected is None:
            if outcome is not None:
                raise ClauseFailure(f"{text}: expected success, got {shown}", refused) from outcome
            return
        required = self._required_by(expected, record["op"], refused)
        # A step that raised must leave its store as it was: strict says so (atomic adds and
        # merges); in core the model is unchanged by an error, so a change breaks the same clause.
        atomic = {"add": "NDS-ATOMIC-1", "merge": "NDS-MERGE-6"}.get(record["op"])
        self.after = Aftermath(
            (atomic,) if self.profile == "strict" and atomic else required, override=True
        )
        kind = ValueError if isinstance(expected, ValueError) else TypeError
        if not isinstance(outcome, kind):
            raise ClauseFailure(
                f"{text}: expected {kind.__name__} ({expected}), got {shown}", required
            ) from outcome
        if isinstance(expected, ExactValueError):
            check(
                str(outcome) == str(expected),
                f"{text}: the message must be exactly {str(expected)!r}",
                *required,
            )

    @staticmethod
    def _required_by(expected: BaseException, op: str, refused: tuple[str, ...]) -> tuple[str, ...]:
        """The clause that requires the model's error ``expected`` in a step ``op``: a merge
        raises for a conflicting key by NDS-MERGE-5, where an add does by NDS-KEY-3."""
        clause = clause_of(expected)
        if clause is None:
            return refused
        if op == "merge" and clause == "NDS-KEY-3":
            return ("NDS-MERGE-5",)
        return (clause,)

    def _resync(self, store: str, sources: Mapping[str, bytes], refused: tuple[str, ...]) -> None:
        """Go on from the implementation's state after a step the spec leaves open; keys held
        before keep their contents (NDS-KEY-2), new keys hold the contents the step brought."""
        before = self.models[store]
        after = self.read_output(self.stores[store].get_named_data_store_output())
        for key, _, entry in after.entries():
            old = before.lookup(key)
            data = after.blobs[entry.buffer].contents
            if old is not None:
                check(
                    data == before.blobs[old[1].buffer].contents,
                    f"{store}: key {key!r} changed its contents",
                    "NDS-KEY-2",
                )
            else:
                check(key in sources, f"{store}: key {key!r} came from nowhere", *refused)
                check(data == sources[key], f"{store}: key {key!r} holds other contents", *refused)
        kept = {key for key, _, _ in after.entries()}
        for key, tag, _ in before.output().entries():
            check(key in kept, f"{store}: key {key!r} (in {tag!r}) was lost", "NDS-KEY-2")
        self.models[store] = Model.from_output(self.profile, after)

    # -- rules: adding -------------------------------------------------------------------------

    def _add(
        self,
        store: str,
        key: Any,
        blob: BlobRecord,
        alignment: Any,
        tag: Any,
        layout: Any,
    ) -> None:
        step: dict[str, Any] = {"op": "add", "store": store, "key": key, "blob": blob.name}
        if alignment != 1 or isinstance(alignment, bool):
            step["alignment"] = alignment
        if tag is not None:
            step["tag"] = tag
        if layout is not None:
            step["layout"] = layout
        model = self.models[store]
        refused = ("NDS-ADD-1",)
        if isinstance(key, str) and model.lookup(key) is not None:
            refused = ("NDS-KEY-2",)
        elif isinstance(alignment, int) and alignment > 1 and alignment & (alignment - 1):
            refused = ("NDS-ADD-4",)
        elif not blob.data:
            refused = ("NDS-DEDUP-7",)
        self._step(
            store,
            step,
            f"{store}.add_named_data({key!r}, {blob}, alignment={alignment!r}, "
            f"external_tag={tag!r}, tensor_layout={layout!r})",
            lambda: model.add(
                key,
                blob.obj if blob.kind in WRONG_TYPES else blob.data,
                alignment,
                tag,
                layout,
                label=blob.name,
                digest=blob.digest,
            ),
            lambda: self.stores[store].add_named_data(
                key, blob.obj, alignment, external_tag=tag, tensor_layout=layout
            ),
            {key: blob.data} if isinstance(key, str) else {},
            refused,
        )

    @_adding(data=st.sampled_from(PALETTE), kind=st.sampled_from(KINDS), **_ADD_OPTIONS)
    @recorded
    def add_new(
        self,
        store: str,
        key: str,
        data: bytes,
        kind: str,
        alignment: int | None,
        tag: str | None,
        layout: str | None,
    ) -> None:
        """Add a new object: bytes, or a file taken over with move_from (with its digest); bytes
        only, for an implementation without file-backed data."""
        if Capability.FILE_BACKED not in self.impl.capabilities:
            kind = "bytes"
        self._add(store, key, self._blob(data, kind), alignment, tag, layout)

    @precondition(lambda self: bool(self._live()))
    @_adding(data=st.data(), **_ADD_OPTIONS)
    @recorded
    def add_again(
        self,
        store: str,
        key: str,
        data: st.DataObject,
        alignment: int | None,
        tag: str | None,
        layout: str | None,
    ) -> None:
        """Add an object made before (the very same object, to any store, under any key)."""
        blob = data.draw(st.sampled_from(self._live()), label="blob")
        self._add(store, key, blob, alignment, tag, layout)

    @_adding(
        data=st.sampled_from(PALETTE),
        kind=st.sampled_from(WRONG_TYPES),
        tag=st.sampled_from(TAGS),
    )
    @recorded
    def add_wrong_type(self, store: str, key: str, data: bytes, kind: str, tag: str | None) -> None:
        """bytearray, memoryview and str data: TypeError, nothing changes (NDS-ADD-1)."""
        self._add(store, key, self._blob(data, kind), 1, tag, None)

    @_adding(
        data=st.sampled_from(PALETTE),
        alignment=st.sampled_from((0, -1)),
        tag=st.sampled_from(TAGS),
    )
    @recorded
    def add_bad_alignment(
        self, store: str, key: str, data: bytes, alignment: int, tag: str | None
    ) -> None:
        """Alignment 0 or -1: ValueError with the exact message, nothing changes (NDS-ADD-3)."""
        self._add(store, key, self._blob(data, "bytes"), alignment, tag, None)

    @precondition(lambda self: self.profile == "strict")
    @_adding(data=st.sampled_from(PALETTE), bad=st.sampled_from(BAD_ARGUMENTS))
    @recorded
    def add_bad_argument(self, store: str, key: str, data: bytes, bad: tuple[str, Any]) -> None:
        """A key or tag of another type, an empty tag, a bool or float alignment (strict)."""
        arguments: dict[str, Any] = {"key": key, "tag": None, "alignment": 1}
        arguments[bad[0]] = bad[1]
        blob = self._blob(data, "bytes")
        self._add(store, arguments["key"], blob, arguments["alignment"], arguments["tag"], None)

    # -- rules: outputs, merges, externalizing, closing ----------------------------------------

    @rule(target=outputs_taken, store=st.sampled_from(STORES))
    @recorded
    def take_output(self, store: str) -> OutputRecord:
        """Take an output; it must describe the store as the model does."""
        return self._take_output(store)

    def _take_output(self, store: str) -> OutputRecord:
        name = f"o{len(self.outputs)}"
        self.step_number += 1
        out = self.stores[store].get_named_data_store_output()
        snapshot = self.models[store].output()
        note(f"step {self.step_number}: {name} = {store}.get_named_data_store_output()")
        self.trace.steps.append({"op": "output", "store": store, "as": name, "expect": "ok"})
        self.compare(f"{name} (just taken from {store})", out, snapshot, Aftermath(("NDS-OUT-1",)))
        record = OutputRecord(name, store, out, snapshot, output_state(out), self.touches[store])
        self.outputs.append(record)
        return record

    @rule(store=st.sampled_from(STORES), record=outputs_taken)
    @recorded
    def merge(self, store: str, record: OutputRecord) -> None:
        """Merge an output into a store (its own, one it was merged into, any other)."""
        if self.profile == "core" and not self._current(record):
            # In core an output may alias its store (NDS-OUT-3 is strict), so what a stale one
            # holds is open: merge a fresh output of its store instead, which a vector can state.
            note(f"  ({record.name} is not current: a fresh output of {record.store} is merged)")
            record = self._take_output(record.store)
        other = record.snapshot
        shape = output_state(record.obj)
        held = [content(b) for b in record.obj.buffers]
        model = self.models[store]
        sources = {key: other.blobs[e.buffer].contents for key, _, e in other.entries()}
        self._step(
            store,
            {"op": "merge", "store": store, "output": record.name},
            f"{store}.merge_named_data_store({record.name} of {record.store})",
            lambda: model.merge(other),
            lambda: self.stores[store].merge_named_data_store(record.obj),
            sources,
            ("NDS-MERGE-4",) if record.merged else ("NDS-MERGE-1",),
        )
        record.merged = True
        check(
            output_state(record.obj) == shape,
            f"merging {record.name} changed its list or maps",
            "NDS-MERGE-2",
        )
        with blame("NDS-MERGE-3"):  # a buffer the merge closed cannot be read
            after = [content(b) for b in record.obj.buffers]
        check(
            after == held,
            f"merging {record.name} changed the contents of its buffers",
            "NDS-MERGE-3",
        )

    @precondition(lambda self: Capability.EXTERNALIZE in self.impl.capabilities)
    @rule(store=st.sampled_from(STORES), cap=st.sampled_from(CAPS))
    @recorded
    def externalize(self, store: str, cap: int) -> None:
        """Move inline entries to shards of at most ``cap`` bytes (NDS-EXT-2 to -5, -7)."""
        model = self.models[store]
        self._step(
            store,
            {"op": "externalize", "store": store, "max_data_bytes": cap, "tag_prefix": "x"},
            f"{store}.externalize_pte_data({cap}, 'x')",
            lambda: model.externalize(cap, "x"),
            lambda: self.stores[store].externalize_pte_data(cap, "x"),
            refused=("NDS-EXT-2",),
        )

    @precondition(lambda self: bool(self._closable()))
    @rule(data=st.data())
    @recorded
    def close(self, data: st.DataObject) -> None:
        """Close a FileBackedData that no store or output holds (its file is deleted)."""
        blob = data.draw(st.sampled_from(self._closable()), label="blob")
        self._step(
            None,
            {"op": "close", "blob": blob.name},
            f"{blob}.close()",
            lambda: None,
            lambda: blob.obj.close(),  # type: ignore[attr-defined]  # a file blob, by the precondition
            refused=("FBD-CLOSE-1",),
        )
        blob.closed = True

    # -- invariants ------------------------------------------------------------------------------

    def _current(self, record: OutputRecord) -> bool:
        return self.touches[record.store] == record.touches

    def compare(self, where: str, out: Any, expected: Output, after: Aftermath) -> None:
        """An implementation's output against the model's; a difference is blamed on the clause
        it breaks, or on ``after``'s when they override (or when no other clause says more)."""
        buffers = list(out.buffers)
        held = [content(b) for b in buffers]
        shown = [_show(h) for h in held]
        twins = [h for h in held if held.count(h) > 1]
        if twins or held != expected.buffers:
            self._digests_hold(where, buffers)
        actual = self.read_output(out)
        keys = sorted(k for k, _, _ in actual.entries())
        wanted = sorted(k for k, _, _ in expected.entries())
        if keys != wanted:  # a key lost or gained explains buffers lost or gained, not dedup
            check(
                False,
                f"{where}: keys {keys}, the model has {wanted}",
                *after.blame(*_entry_clauses(actual, expected, after)),
            )
        if twins:
            kinds = {self._kind_of(b) for b in buffers if content(b) == twins[0]}
            dedup = "NDS-DEDUP-7" if not twins[0] else "NDS-DEDUP-6" if len(kinds) > 1 else ""
            check(
                False,
                f"{where}: two buffers hold equal contents: {shown}",
                *after.blame(dedup or "NDS-DEDUP-1"),
            )
        if held != expected.buffers:
            if sorted(held) == sorted(expected.buffers):
                clause = "NDS-DEDUP-9"
            elif len(held) < len(expected.buffers):
                clause = "NDS-DEDUP-2"
            elif len(held) > len(expected.buffers):
                clause = "NDS-DEDUP-1"
            else:
                clause = ""
            check(
                False,
                f"{where}: buffers {shown}, the model has {[_show(b) for b in expected.buffers]}",
                *after.blame(clause),
            )
        for index, (buffer, blob) in enumerate(zip(buffers, expected.blobs, strict=True)):
            if blob.label is not None:
                other = self._label_of(buffer)
                check(
                    buffer is self.by_name[blob.label].obj,
                    f"{where}: buffer {index} is not {self.by_name[blob.label]}, the object "
                    f"added first, but {self.by_name[other] if other else 'a copy'}",
                    *after.blame("NDS-DEDUP-5" if other else "NDS-OUT-2"),
                )
        if actual.pte != expected.pte or actual.external != expected.external:
            check(
                False,
                f"{where}: pte_data {actual.pte}, external_data {actual.external}; the model "
                f"has {expected.pte}, {expected.external}",
                *after.blame(*_entry_clauses(actual, expected, after)),
            )

    def _digests_hold(self, where: str, buffers: list[object]) -> None:
        """Before blaming dedup for buffers it shared or split wrongly: whether each file
        buffer's ``sha256()``, the digest dedup compares, is its contents' (FBD-HASH-1) or the one
        supplied (FBD-MOVE-7; the machine supplies true digests), 32 raw bytes (FBD-HASH-1)."""
        records = [self.by_name[label] for label in map(self._label_of, buffers) if label]
        files = [r for r in records if r.kind.startswith("file") and not r.closed]
        for record in sorted(files, key=lambda r: r.digest is not None):  # computed ones first
            got = cast(FileBackedData, record.obj).sha256()
            raw = isinstance(got, bytes) and len(got) == 32  # any sha256() returns that
            check(
                got == hashlib.sha256(record.data).digest(),
                f"{where}: {record}.sha256() is {got!r}, not the SHA-256 of its contents",
                "FBD-MOVE-7" if record.digest is not None and raw else "FBD-HASH-1",
            )

    def _kind_of(self, buffer: object) -> str:
        label = self._label_of(buffer)
        return self.by_name[label].kind.partition("+")[0] if label else type(buffer).__name__

    @invariant()
    @recorded
    def stores_match_the_model(self) -> None:
        """Every key resolves to its contents, in the place, alignment and layout the model says;
        the buffers are the first objects added, without two of equal contents."""
        for name in STORES:
            self.compare(
                f"store {name}",
                self.stores[name].get_named_data_store_output(),
                self.models[name].output(),
                self.after,
            )

    @invariant()
    @recorded
    def outputs_are_unchanged(self) -> None:
        """Strict: every output as it was taken (NDS-OUT-3). Core: every merged output while its
        store is untouched (NDS-MERGE-2, NDS-MERGE-3), for in core outputs may alias their store."""
        clause = "NDS-OUT-3" if self.profile == "strict" else "NDS-MERGE-2"
        for record in self.outputs:
            if self.profile == "strict" or (record.merged and self._current(record)):
                check(
                    output_state(record.obj) == record.shape,
                    f"{record.name} (of {record.store}) changed after it was taken",
                    clause,
                )
                self.compare(
                    f"{record.name} (of {record.store})",
                    record.obj,
                    record.snapshot,
                    Aftermath((clause,), override=True),
                )

    # -- the end -----------------------------------------------------------------------------------

    def vector(self) -> dict[str, Any]:
        """The steps so far as a vector, with checks of what the model expects now."""
        named = [c for c in self.clauses if re.search(rf"\b{c}\b", self.failure)]
        data: dict[str, Any] = {
            "id": "000-state-machine-failure",
            "description": f"Found by the state machine ({self.profile} profile) against "
            f"{self.impl.name}.",
            "clauses": named or list(self.clauses),
            "profile": self.profile,
            "blobs": self.trace.blobs,
            "steps": self.trace.steps,
            "checks": [],
        }
        completed = with_expectations(data, self.profile)
        if completed is not None:
            return completed
        # A step the profile leaves open: the outcomes as recorded, the state the model has now.
        data["description"] += (
            f" Steps {', '.join(map(str, self.trace.open_steps))}: outcome left open by the "
            f"spec in {self.profile}, recorded as observed."
        )
        steps = list(self.trace.steps)
        checks: list[dict[str, Any]] = []
        for name in STORES:
            if any(s.get("store") == name for s in self.trace.steps):
                steps.append({"op": "output", "store": name, "as": f"final-{name}", "expect": "ok"})
                checks.append(check_of(f"final-{name}", self.models[name].output()))
        for record in self.outputs:
            if self.profile == "strict" or (record.merged and self._current(record)):
                checks.append(check_of(record.name, record.snapshot))
        used = {s.get("blob") for s in steps}
        blobs = {k: v for k, v in self.trace.blobs.items() if k in used}
        return {**data, "blobs": blobs, "steps": steps, "checks": checks}

    def _fails(self, data: dict[str, Any]) -> bool:
        """Whether replaying vector ``data`` against the implementation fails."""
        directory = Path(tempfile.mkdtemp(prefix="cordspec-vector-"))
        vector = Vector(data["id"], self.profile, tuple(data["clauses"]), data, "<machine>")
        try:
            replay(vector, self.impl, directory)
        except VectorFailure:
            return True
        except Exception:  # the implementation failed outside a step: a failure too
            return True
        finally:
            shutil.rmtree(directory, ignore_errors=True)
        return False

    def minimized(self, data: dict[str, Any]) -> dict[str, Any]:
        """``data`` with every step removed whose removal keeps the replayed vector failing
        (expectations recomputed by the model each time): Hypothesis' shrinking of a stateful
        test leaves steps that change nothing, this removes them."""
        if self.trace.open_steps or not self._fails(data):
            return data
        steps = list(self.trace.steps)
        for index in reversed(range(len(steps))):
            candidate = steps[:index] + steps[index + 1 :]
            completed = with_expectations({**data, "steps": candidate}, self.profile)
            if completed is not None and self._fails(completed):
                steps = candidate
        return with_expectations({**data, "steps": steps}, self.profile) or data

    def teardown(self) -> None:
        """On the run Hypothesis reports (a failing example), print the vector; close every
        FileBackedData made, and check that no placeholder is left."""
        try:
            if current_build_context().is_final:
                vector = self.minimized(self.vector())
                note(f"{VECTOR_BEGIN}\n{dumps(vector)}\n{VECTOR_END}")
        finally:
            errors = close_each(self.files)
            left = placeholders(self.directory)
            shutil.rmtree(self.directory, ignore_errors=True)
            if errors:
                raise errors[0]
            if left:
                raise left_behind(left)


def _entry_clauses(actual: Output, expected: Output, after: Aftermath) -> list[str]:
    """The clauses the differences between two outputs' entries break, as far as they say. After
    a merge, an entry in its place with another alignment, layout or buffer is the merge's (it
    must add each entry as given: NDS-MERGE-1), not add's: the invariants held before it."""
    found: list[str] = []
    have = _places(actual)
    want = _places(expected)
    if any(not entries for entries in actual.external.values()):
        found.append("NDS-OUT-1")
    for key in sorted(set(have) | set(want)):
        got, wanted = have.get(key, []), want.get(key, [])
        if len(got) > 1:
            found.append("NDS-KEY-1")
        elif got and wanted and got[0][0] == wanted[0][0]:
            a, e = got[0][1], wanted[0][1]
            if after.merged and a != e:
                found.extend(after.clauses)
                continue
            if a.alignment != e.alignment:
                valid = isinstance(a.alignment, int) and a.alignment > 0
                found.append("NDS-ALIGN-1" if valid else "NDS-ADD-3")
            if a.layout != e.layout:
                found.append("NDS-ADD-7")
            if a.buffer != e.buffer:
                found.append("NDS-ADD-2")
        elif got and wanted and after.externalized:  # in another shard
            found.append("NDS-EXT-4" if got[0][0] is not None else "NDS-EXT-2")
        elif got != wanted:
            found.extend(after.clauses)
    return found


def _places(output: Output) -> dict[str, list[tuple[str | None, Entry]]]:
    places: dict[str, list[tuple[str | None, Entry]]] = {}
    for key, tag, entry in output.entries():
        places.setdefault(key, []).append((tag, entry))
    return places


@dataclass(frozen=True)
class Aftermath:
    """What the last step may have left wrong, by clause: ``clauses`` are blamed for a difference
    no other clause explains, or for every difference when they ``override`` (after a step that
    raised, the store must be as it was; an output taken must not change)."""

    clauses: tuple[str, ...]
    override: bool = False

    @property
    def externalized(self) -> bool:
        return self.clauses == ("NDS-EXT-2",)

    @property
    def merged(self) -> bool:
        """Whether the last step was a merge that succeeded (whose entries are its clause's)."""
        return self.clauses in (("NDS-MERGE-1",), ("NDS-MERGE-4",)) and not self.override

    def blame(self, *found: str) -> tuple[str, ...]:
        named = tuple(dict.fromkeys(c for c in found if c))
        return self.clauses if self.override or not named else named


def _model_entry(entry: DataEntry) -> Entry:
    return Entry(entry.buffer_index, entry.alignment, entry.tensor_layout)


# Hypothesis's runner accepts any factory of a machine at run time; older releases leave it
# unannotated, newer ones annotate it as taking the class only, so the cast states what it takes.
class _MachineRunner(Protocol):
    def __call__(self, factory: Callable[[], StoreMachine], *, settings: settings) -> None: ...


_run_untyped_machine = cast(_MachineRunner, _run_untyped)


def run_machine(impl: Implementation, profile: Profile) -> None:
    """Run the machine against ``impl`` with ``profile``'s semantics under the loaded Hypothesis
    settings, but for the explain phase; raise the failure (with the story and the vector as
    notes) if there is one.

    The explain phase replays the shrunk example under a tracer, which made a ``--shrink`` run of
    the machine several times slower (past the suite's time limit on a loaded machine) for a list
    of the lines only failing examples ran: the vector says more.

    One failure is reported, as a run without shrinking finds it first: Hypothesis would otherwise
    go on looking for failures of other clauses once it found one, and shrink and report each, so
    that a ``--shrink`` run would blame more clauses than the plain run (:class:`Search`)."""
    loaded = settings()  # the loaded profile
    phases = tuple(p for p in loaded.phases if p is not Phase.explain)
    chosen = settings(loaded, phases=phases, report_multiple_bugs=False)
    _run_untyped_machine(functools.partial(StoreMachine, impl, profile, Search()), settings=chosen)
