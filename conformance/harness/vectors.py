"""Test vectors (``spec/vectors/``): loading them, and replaying them against an implementation or
against the model (``conformance/harness/model.py``).

A vector is a JSON trace of store operations with their expected outcomes; the format and the
runner algorithm are stated in ``spec/vectors/README.md`` and ``spec/vectors/schema.json``. The
replay here is that algorithm, in Python.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from ..api import DataEntry, FileBackedData, Implementation
from .checks import ClauseFailure, blame
from .checks import check as check_that
from .helpers import close_each, content, left_behind, placeholders

if sys.version_info >= (3, 11):
    from importlib.resources.abc import Traversable
else:  # pragma: no cover
    from importlib.abc import Traversable

from .model import Entry, ExactValueError, Model, Output, Profile, Unspecified, clause_of

__all__ = [
    "ERRORS",
    "Vector",
    "VectorFailure",
    "blob_contents",
    "describe",
    "load_schema",
    "load_vectors",
    "relies_on",
    "replay",
    "replay_model",
    "required_by",
    "vectors_dir",
]

Json = Any
ERRORS: dict[str, type[Exception]] = {"ValueError": ValueError, "TypeError": TypeError}
"""The exception names a vector may expect."""


class VectorFailure(AssertionError):
    """A vector's expectation does not hold (or, against the model, the vector is not valid)."""


@dataclass(frozen=True)
class Vector:
    """One vector file, parsed."""

    id: str
    profile: Profile
    clauses: tuple[str, ...]
    data: dict[str, Json]
    file: str

    @property
    def operations(self) -> frozenset[str]:
        """The kinds of step it uses."""
        return frozenset(str(step["op"]) for step in self.data["steps"])


# -- where vectors are ---------------------------------------------------------------------------


def vectors_dir() -> Traversable:
    """``spec/vectors`` of the source checkout, else the copy installed with the package."""
    checkout = Path(__file__).resolve().parents[2] / "spec" / "vectors"
    if checkout.is_dir():
        return checkout
    packaged = resources.files("conformance") / "data" / "vectors"
    if packaged.is_dir():
        return packaged
    raise FileNotFoundError(
        f"test vectors not found: looked for {checkout} (source checkout) "
        f"and {packaged} (installed package data)"
    )


def load_vectors(directory: Traversable | None = None) -> list[Vector]:
    """Every ``NNN-name.json`` vector, in file name order (``schema.json`` is not a vector)."""
    where = directory if directory is not None else vectors_dir()
    found: list[Vector] = []
    files = sorted(
        (f for f in where.iterdir() if f.name.endswith(".json") and f.name != "schema.json"),
        key=lambda f: f.name,
    )
    for file in files:
        data = json.loads(file.read_text(encoding="utf-8"))
        found.append(
            Vector(
                id=str(data.get("id", file.name)),
                profile=data.get("profile", "core"),
                clauses=tuple(str(c) for c in data.get("clauses", ())),
                data=data,
                file=file.name,
            )
        )
    return found


def load_schema(directory: Traversable | None = None) -> dict[str, Json]:
    """The JSON Schema of a vector."""
    where = directory if directory is not None else vectors_dir()
    schema: dict[str, Json] = json.loads((where / "schema.json").read_text(encoding="utf-8"))
    return schema


# -- blob contents -------------------------------------------------------------------------------


def blob_contents(data: Mapping[str, Json]) -> bytes:
    """The bytes a data description (``hex``, ``repeat`` or ``concat``) stands for."""
    if "hex" in data:
        return bytes.fromhex(data["hex"])
    if "repeat" in data:
        return bytes.fromhex(data["repeat"]["byte"]) * int(data["repeat"]["count"])
    if "concat" in data:
        return b"".join(blob_contents(part) for part in data["concat"])
    raise ValueError(f"not a data description: {dict(data)!r}")


def describe(data: bytes, run: int = 8) -> dict[str, Json]:
    """A compact data description of ``data``: runs of ``run`` or more equal bytes as ``repeat``."""
    parts: list[dict[str, Json]] = []
    literal = bytearray()
    i = 0
    while i < len(data):
        j = i
        while j < len(data) and data[j] == data[i]:
            j += 1
        if j - i >= run:
            if literal:
                parts.append({"hex": literal.hex()})
                literal.clear()
            parts.append({"repeat": {"byte": f"{data[i]:02x}", "count": j - i}})
        else:
            literal += data[i:j]
        i = j
    if literal or not parts:
        parts.append({"hex": literal.hex()})
    return parts[0] if len(parts) == 1 else {"concat": parts}


def _value(kind: str, data: bytes) -> object:
    """The in-memory value of a blob of representation ``kind`` (not ``file``)."""
    if kind == "bytes":
        return bytes(bytearray(data))  # an object of its own (except the interned b"" and b"x")
    if kind == "bytearray":
        return bytearray(data)
    if kind == "memoryview":
        return memoryview(bytes(data))
    if kind == "str":
        return data.decode("latin-1")
    raise ValueError(f"unknown blob representation {kind!r}")


def _digest(definition: Mapping[str, Json]) -> bytes | None:
    supplied = definition.get("sha256")
    return None if supplied is None else bytes.fromhex(supplied)


def _identity(definition: Mapping[str, Json]) -> tuple[int, bytes]:
    """What a store tells blobs apart by: length and digest (the supplied one, if any)."""
    data = blob_contents(definition)
    return len(data), _digest(definition) or hashlib.sha256(data).digest()


# -- what a vector relies on ---------------------------------------------------------------------


def relies_on(vector: Vector) -> tuple[str, ...]:
    """The clauses whose behaviour ``vector`` uses to observe its own (its test's ``relies_on``),
    derived from what it uses, as ``spec/vectors/README.md`` states; its own clauses left out."""
    blobs: Mapping[str, Json] = vector.data["blobs"]
    steps = vector.data["steps"]
    checks = vector.data["checks"]
    contents = {name: blob_contents(definition) for name, definition in blobs.items()}
    files = [name for name, definition in blobs.items() if definition.get("as") == "file"]
    added = [step["blob"] for step in steps if step["op"] == "add"]
    merges = [step for step in steps if step["op"] == "merge"]
    lengths = [len(contents[name]) for name in added]
    # a file blob may have its digest compared when another add has its length (a fingerprint
    # match, a re-added key) or when a merge replays it into a store that may hold it
    compared = [n for n in files if merges or lengths.count(len(contents[n])) > 1]
    named = {item for check in checks for item in check.get("buffers", ()) if isinstance(item, str)}
    found: list[str] = []
    if files:
        found.append("FBD-MOVE-1")  # every file blob is made with move_from
    if any("sha256" not in blobs[n] for n in compared):
        found.append("FBD-HASH-1")  # the digest compared is sha256()'s
    if any("sha256" in blobs[n] for n in compared):
        found.append("FBD-MOVE-7")  # the digest compared is the one supplied to move_from
        found.append("FBD-HASH-1")  # ... as sha256() gives it, in its 32-byte form
    if any(check.get("buffers") for check in checks) and any(
        blobs[n].get("as") == "file" for n in set(added)
    ):
        found.append("FBD-READ-2")  # a file buffer's contents are read with to_bytes()
    if named:
        found.append("NDS-OUT-2")  # a named buffer is checked by identity
        if any(
            _identity(blobs[a]) == _identity(blobs[b]) for a in named for b in set(added) if a != b
        ):  # and is the object kept of several equal blobs only if the first one is kept
            found.append("NDS-DEDUP-5")
    if merges:
        found.append("NDS-KEY-1")  # a merged output has at most one entry per key
        found.append("NDS-MERGE-1")  # a merge replays every entry of the output
    if any(step.get("layout") is not None for step in steps):
        found.append("NDS-ADD-7")  # layouts are compared with the ones stored
    # an expected error not blamed on its clause alone is still that clause's to raise
    found.extend(c for op, c in _model_errors(vector).values() if not _blamed(vector, op, c))
    if merges and files:
        found.append("NDS-MERGE-3")  # the merged output's files are read and closed later
    merged = [i for i, step in enumerate(steps) if step["op"] == "merge"]
    if any(
        later.get("output") == steps[i]["output"] for i in merged for later in steps[i + 1 :]
    ) or any(check["output"] == steps[i]["output"] for i in merged for check in checks):
        found.append("NDS-MERGE-2")  # an output is used again after a merge of it
    if any(step["op"] == "externalize" and step["expect"] == "ok" for step in steps):
        found.append("NDS-EXT-2")  # externalized entries are looked for under their shards only
    return tuple(c for c in dict.fromkeys(found) if c not in vector.clauses)


def _model_errors(vector: Vector) -> dict[int, tuple[str, str]]:
    """For each step (by number) at which the model raises an error a clause requires: the step's
    operation and that clause (a merge's conflicting key: NDS-MERGE-5; an add's: NDS-KEY-3)."""
    run = _ModelRun(vector.data, vector.profile, vector.id)
    found: dict[int, tuple[str, str]] = {}
    for number, step in enumerate(vector.data["steps"], start=1):
        try:
            outcome, _ = run.step(_where(vector, number, step), step)
        except VectorFailure:  # not a valid vector: tests/test_vectors.py says why
            break
        clause = None if outcome is None else clause_of(outcome)
        if clause is not None:
            merge = step["op"] == "merge"
            found[number] = (
                step["op"],
                "NDS-MERGE-5" if merge and clause == "NDS-KEY-3" else clause,
            )
    return found


def _compares(vector: Vector) -> bool:
    """Whether the vector's key conflicts are judged by what a store compares besides the bytes:
    the digest of a file (FBD-HASH-1) or a supplied one (FBD-MOVE-7, NDS-KEY-4, NDS-DEDUP-10)."""
    return any(b.get("as") == "file" or "sha256" in b for b in vector.data["blobs"].values())


def _blamed(vector: Vector, op: str, clause: str) -> bool:
    """Whether a step's missing error is its clause's alone: not a merge's (a merge raises only
    for an entry it replays, NDS-MERGE-1), not a re-added layout's (NDS-KEY-6 compares with the
    layout stored, NDS-ADD-7), not a conflict judged by a file's or a supplied digest."""
    if op == "merge" or clause == "NDS-KEY-6":
        return False
    return not (clause == "NDS-KEY-3" and _compares(vector))


def required_by(vector: Vector) -> dict[int, tuple[str, ...]]:
    """For each step (by number) at which the model raises an error a clause requires, and which
    fails by that clause alone (see ``_blamed``): that clause. Such a step that does not fail as
    expected breaks that clause, whichever the vector names. The other errors a vector expects are
    ones it relies on (:func:`relies_on`)."""
    return {n: (c,) for n, (op, c) in _model_errors(vector).items() if _blamed(vector, op, c)}


# -- outcomes ------------------------------------------------------------------------------------


def _where(vector: Vector, number: int, step: Mapping[str, Json]) -> str:
    return f"{vector.id}: step {number} ({step['op']})"


def _check_outcome(
    where: str, expect: Json, outcome: BaseException | None, model: bool = False
) -> None:
    """Compare what a step did with what the vector expects."""
    got = "success" if outcome is None else f"{type(outcome).__name__}: {outcome}"
    if expect == "ok":
        if outcome is not None:
            raise VectorFailure(f"{where}: expected success, got {got}") from outcome
        return
    wanted = ERRORS[expect["raises"]]
    if outcome is None or not isinstance(outcome, wanted):
        raise VectorFailure(f"{where}: expected {wanted.__name__}, got {got}") from outcome
    message = expect.get("message")
    if message is None or (model and not isinstance(outcome, ExactValueError)):
        return  # the model words only the messages the spec fixes
    if not re.search(message, str(outcome)):
        raise VectorFailure(f"{where}: message {str(outcome)!r} does not match {message!r}")


# -- replay against an implementation ------------------------------------------------------------


def _keys(out: Any) -> set[str]:
    return {*out.pte_data, *(k for entries in out.external_data.values() for k in entries)}


def _entries_of(
    where: str, actual: Mapping[str, DataEntry], expected: Mapping[str, Json], layouts: bool
) -> None:
    if set(actual) != set(expected):
        raise VectorFailure(f"{where}: keys {sorted(actual)} != expected {sorted(expected)}")
    for key, entry in expected.items():
        got = actual[key]
        have = (got.buffer_index, got.alignment, got.tensor_layout)
        want = (entry["buffer"], entry["alignment"], entry.get("layout"))
        check_that(  # without merges a layout comes from an add alone (with merges, NDS-MERGE-1)
            not layouts or have[:2] != want[:2] or have[2] == want[2],
            f"{where}[{key!r}]: layout {have[2]!r} != expected {want[2]!r}",
            "NDS-ADD-7",
        )
        if have != want:
            raise VectorFailure(
                f"{where}[{key!r}]: (buffer, alignment, layout) {have!r} != expected {want!r}"
            )


class _Run:
    """The state of one replay against an implementation."""

    def __init__(self, vector: Vector, impl: Implementation, directory: Path) -> None:
        self.vector = vector
        self.impl = impl
        self.directory = directory
        self.objects: dict[str, object] = {}
        self.files: list[FileBackedData] = []
        self.stores: dict[str, Any] = {}
        self.outputs: dict[str, Any] = {}
        self.merged: dict[str, list[str]] = {}  # store -> the outputs merged into it
        self.layouts = "merge" not in vector.operations  # a wrong layout is NDS-ADD-7's
        self.taken: dict[str, list[str]] = {}  # output -> the outputs merged into its store then
        self.closed: set[int] = set()  # ids of the file blobs the vector itself closed

    def make_blobs(self) -> None:
        for number, (name, definition) in enumerate(self.vector.data["blobs"].items()):
            data = blob_contents(definition)
            kind = definition.get("as", "bytes")
            if kind == "file":
                path = self.directory / f"blob{number}.bin"
                path.write_bytes(data)
                blob = self.impl.FileBackedData.move_from(str(path), sha256=_digest(definition))
                self.files.append(blob)
                self.objects[name] = blob
            else:
                self.objects[name] = _value(kind, data)

    def store(self, name: str) -> Any:
        if name not in self.stores:
            self.stores[name] = self.impl.NamedDataStore()
        return self.stores[name]

    def step(self, step: Mapping[str, Json]) -> None:
        op = step["op"]
        if self.merged:
            self.still_open()
        if op == "add":
            self.store(step["store"]).add_named_data(
                step["key"],
                self.objects[step["blob"]],
                step.get("alignment", 1),
                external_tag=step.get("tag"),
                tensor_layout=step.get("layout"),
            )
        elif op == "output":
            self.taken[step["as"]] = list(self.merged.get(step["store"], ()))
            self.outputs[step["as"]] = self.store(step["store"]).get_named_data_store_output()
        elif op == "merge":
            self.merged.setdefault(step["store"], []).append(step["output"])
            self.store(step["store"]).merge_named_data_store(self.outputs[step["output"]])
        elif op == "externalize":
            self.store(step["store"]).externalize_pte_data(
                step["max_data_bytes"], step["tag_prefix"]
            )
        elif op == "close":
            blob = self.objects[step["blob"]]
            self.closed.add(id(blob))
            blob.close()  # type: ignore[attr-defined]  # a "close" step names a file-backed blob
        else:
            raise ValueError(f"unknown operation {op!r}")

    def still_open(self) -> None:
        """After a merge, a file blob the vector did not close must still be open: a merge never
        closes the files of the output it merges (NDS-MERGE-3), and nothing else here closes one.
        Told by a ``closed`` attribute, where the implementation has one."""
        for name, blob in self.objects.items():
            if id(blob) not in self.closed and getattr(blob, "closed", False) is True:
                raise ClauseFailure(
                    f"{self.vector.id}: file blob {name!r} was closed by a merge (NDS-MERGE-3)",
                    ("NDS-MERGE-3",),
                )

    def blame_identity(self, where: str, buffer: object, want: str) -> None:
        """Without merges, which object an output holds is the store's own doing: another blob
        of equal contents breaks NDS-DEDUP-5 (the first object is kept), an object no blob is
        (a copy) NDS-OUT-2. With merges it may be the merge's (NDS-MERGE-2, NDS-MERGE-8): the
        failure is then the vector's."""
        if "merge" in self.vector.operations:
            return
        names = [n for n, o in self.objects.items() if o is buffer]
        blobs = self.vector.data["blobs"]
        check_that(names, f"{where} is a copy, not the object of blob {want!r}", "NDS-OUT-2")
        check_that(
            _identity(blobs[names[0]]) != _identity(blobs[want]),
            f"{where} is the object of blob {names[0]!r}, not of {want!r}, which is equal to it "
            "(length and digest) and was added first",
            "NDS-DEDUP-5",
        )

    def blame_lost_keys(self, where: str, out: Any, check: Mapping[str, Json]) -> None:
        """An expected key missing from an output, that an output merged into its store holds,
        was dropped by the merge (NDS-MERGE-1): the buffers and entries it explains are checked
        after."""
        if "pte" not in check or "external" not in check:
            return
        expected = {*check["pte"], *(k for entries in check["external"].values() for k in entries)}
        lost = sorted(
            key
            for key in expected - _keys(out)
            if any(key in _keys(self.outputs[name]) for name in self.taken[check["output"]])
        )
        check_that(not lost, f"{where}: keys {lost} of a merged output are missing", "NDS-MERGE-1")

    def check(self, number: int, check: Mapping[str, Json]) -> None:
        where = f"{self.vector.id}: check {number} (output {check['output']!r})"
        out = self.outputs[check["output"]]
        self.blame_lost_keys(where, out, check)
        if "buffers" in check:
            actual, expected = list(out.buffers), check["buffers"]
            if len(actual) != len(expected):
                failure = f"{where}: {len(actual)} buffers, expected {len(expected)}"
                # every add did as expected, so without merges or supplied digests (by which
                # different contents may be equal, NDS-DEDUP-10) fewer buffers means that blobs
                # of different contents share one
                shared = (
                    len(actual) < len(expected)
                    and "merge" not in self.vector.operations
                    and not any("sha256" in b for b in self.vector.data["blobs"].values())
                )
                check_that(not shared, failure, "NDS-DEDUP-2")
                raise VectorFailure(failure)
            for index, (buffer, want) in enumerate(zip(actual, expected, strict=True)):
                if isinstance(want, str):
                    want_data = blob_contents(self.vector.data["blobs"][want])
                    if buffer is not self.objects[want]:
                        self.blame_identity(f"{where}: buffer {index}", buffer, want)
                        raise VectorFailure(
                            f"{where}: buffer {index} is not the object of blob {want!r}"
                        )
                else:
                    want_data = blob_contents(want)
                if content(buffer) != want_data:
                    raise VectorFailure(f"{where}: buffer {index} does not hold its contents")
        if "pte" in check:
            _entries_of(f"{where} pte_data", out.pte_data, check["pte"], self.layouts)
        if "external" in check:
            expected_tags = check["external"]
            if set(out.external_data) != set(expected_tags):
                raise VectorFailure(
                    f"{where}: external tags {sorted(out.external_data)} "
                    f"!= expected {sorted(expected_tags)}"
                )
            for tag, entries in expected_tags.items():
                _entries_of(
                    f"{where} external_data[{tag!r}]", out.external_data[tag], entries, self.layouts
                )


def replay(vector: Vector, impl: Implementation, directory: Path) -> None:
    """Replay ``vector`` against ``impl``, with its files in ``directory``; raise VectorFailure
    at the first expectation that does not hold. Every object made is closed at the end, and no
    placeholder may be left in ``directory``."""
    run = _Run(vector, impl, directory)
    required = required_by(vector)
    try:
        run.make_blobs()
        for number, step in enumerate(vector.data["steps"], start=1):
            outcome: BaseException | None = None
            try:
                run.step(step)
            except ClauseFailure:  # a check of the replay's own, not the step's outcome
                raise
            except Exception as exc:  # compared with the expectation
                outcome = exc
            if step["expect"] != "ok" and number in required:
                with blame(*required[number]):  # an error the spec requires, not raised as it says
                    _check_outcome(_where(vector, number, step), step["expect"], outcome)
            else:
                _check_outcome(_where(vector, number, step), step["expect"], outcome)
        if run.merged:
            run.still_open()
        for number, check in enumerate(vector.data["checks"], start=1):
            run.check(number, check)
    finally:
        errors = close_each(run.files)
    if errors and isinstance(errors[0], ClauseFailure):
        raise errors[0]
    if errors:
        raise VectorFailure(f"{vector.id}: closing the blobs failed: {errors[0]!r}") from errors[0]
    left = placeholders(directory)
    if left:
        raise left_behind(left)


# -- replay against the model --------------------------------------------------------------------


def expectation(outcome: BaseException | None) -> Json:
    """The ``expect`` of a step with this outcome (with the message when the spec fixes it)."""
    if outcome is None:
        return "ok"
    kind = "ValueError" if isinstance(outcome, ValueError) else type(outcome).__name__
    found: dict[str, Json] = {"raises": kind}
    if isinstance(outcome, ExactValueError):
        found["message"] = "^" + regex_escape(str(outcome)) + "$"
    return found


def regex_escape(text: str) -> str:
    """Escape a literal for the portable regex subset of ``spec/vectors/README.md``."""
    return "".join("\\" + c if c in r"\.^$|?*+()[]{}" else c for c in text)


def _model_entries(where: str, actual: Mapping[str, Entry], expected: Mapping[str, Json]) -> None:
    have = {k: (e.buffer, e.alignment, e.layout) for k, e in actual.items()}
    want = {k: (e["buffer"], e["alignment"], e.get("layout")) for k, e in expected.items()}
    if have != want:
        raise VectorFailure(f"{where}: model has {have!r}, vector expects {want!r}")


def _entries_json(entries: Mapping[str, Entry]) -> dict[str, Json]:
    found: dict[str, Json] = {}
    for key, entry in entries.items():
        found[key] = {"buffer": entry.buffer, "alignment": entry.alignment}
        if entry.layout is not None:
            found[key]["layout"] = entry.layout
    return found


def check_of(name: str, output: Output) -> dict[str, Json]:
    """A check that ``output`` (taken as ``name``) is exactly what the model says."""
    return {
        "output": name,
        "buffers": [describe(b.contents) if b.label is None else b.label for b in output.blobs],
        "pte": _entries_json(output.pte),
        "external": {tag: _entries_json(entries) for tag, entries in output.external.items()},
    }


class _ModelRun:
    """The model's side of a replay: stores, outputs, and what the profile lets a vector use."""

    def __init__(self, data: Mapping[str, Json], profile: Profile, name: str) -> None:
        self.data = data
        self.profile = profile
        self.name = name
        self.models: dict[str, Model] = {}
        self.outputs: dict[str, Output] = {}
        self.taken: dict[str, tuple[str, int]] = {}  # output -> (store, the store's touches then)
        self.touches: dict[str, int] = {}
        self.merged: set[str] = set()
        self.closed: set[str] = set()

    def model(self, store: str) -> Model:
        self.touches.setdefault(store, 0)
        return self.models.setdefault(store, Model(self.profile))

    def untouched(self, output: str) -> bool:
        """No add, merge or externalize was attempted on its store since it was taken."""
        store, touches = self.taken[output]
        return self.touches[store] == touches

    def usable(self, where: str, output: str) -> Output:
        """An output to merge or check; in core only while its store is untouched, because an
        output may alias its store there (NDS-OUT-3 is strict)."""
        if output not in self.outputs:
            raise VectorFailure(f"{where}: no output was taken as {output!r} before")
        if self.profile == "core" and not self.untouched(output):
            raise VectorFailure(
                f"{where}: output {output!r} is used after its store was changed; in core an "
                "output may alias its store (NDS-OUT-3 is strict)"
            )
        return self.outputs[output]

    def step(
        self, where: str, step: Mapping[str, Json]
    ) -> tuple[Exception | None, Unspecified | None]:
        """Run one step on the model: (the exception it raised, or an Unspecified marker)."""
        op = step["op"]
        other = self.usable(where, step["output"]) if op == "merge" else None
        if op in ("add", "merge", "externalize"):
            self.model(step["store"])
            self.touches[step["store"]] += 1
        try:
            if op == "add":
                name = step["blob"]
                if name in self.closed:
                    raise VectorFailure(f"{where}: blob {name!r} is used after it was closed")
                definition = self.data["blobs"][name]
                data = blob_contents(definition)
                kind = definition.get("as", "bytes")
                value = data if kind in ("bytes", "file") else _value(kind, data)
                result = self.model(step["store"]).add(
                    step["key"],
                    value,
                    step.get("alignment", 1),
                    step.get("tag"),
                    step.get("layout"),
                    label=name,
                    digest=_digest(definition),
                )
            elif op == "output":
                self.outputs[step["as"]] = self.model(step["store"]).output()
                self.taken[step["as"]] = (step["store"], self.touches[step["store"]])
                result = None
            elif op == "merge":
                assert other is not None
                self.merged.add(step["output"])
                result = self.model(step["store"]).merge(other)
            elif op == "externalize":
                result = self.model(step["store"]).externalize(
                    step["max_data_bytes"], step["tag_prefix"]
                )
            else:
                held = {b.label for m in self.models.values() for b in m.blobs}
                held |= {b.label for o in self.outputs.values() for b in o.blobs}
                if step["blob"] in held:
                    raise VectorFailure(
                        f"{where}: blob {step['blob']!r} is closed while a store or an output "
                        "still holds it"
                    )
                self.closed.add(step["blob"])
                result = None
        except (ValueError, TypeError) as exc:
            return exc, None
        return None, result


def replay_model(vector: Vector, profile: Profile | None = None) -> None:
    """Replay ``vector`` against the model in ``profile`` (default: the vector's own) and raise
    VectorFailure where the model disagrees, or where the vector relies on what the profile
    leaves unspecified: a step the model calls unspecified, a merge or check of an output whose
    store was changed since it was taken (core: outputs may alias their store), a close of a blob
    something still holds, a use of a closed blob."""
    run = _ModelRun(vector.data, profile or vector.profile, vector.id)
    for number, step in enumerate(vector.data["steps"], start=1):
        where = _where(vector, number, step)
        outcome, result = run.step(where, step)
        if result is not None:
            raise VectorFailure(f"{where}: unspecified in {run.profile}: {result.reason}")
        _check_outcome(where, step["expect"], outcome, model=True)

    for number, check in enumerate(vector.data["checks"], start=1):
        where = f"{vector.id}: check {number} (output {check['output']!r})"
        out = run.usable(where, check["output"])
        if "buffers" in check:
            expected = check["buffers"]
            ok = len(out.blobs) == len(expected) and all(
                blob.contents == blob_contents(vector.data["blobs"][want])
                if isinstance(want, str) and blob.label == want
                else not isinstance(want, str) and blob.contents == blob_contents(want)
                for blob, want in zip(out.blobs, expected, strict=False)
            )
            if not ok:
                have = [(b.label, b.contents.hex()) for b in out.blobs]
                raise VectorFailure(f"{where}: model buffers {have!r}, vector expects {expected!r}")
        if "pte" in check:
            _model_entries(f"{where} pte", out.pte, check["pte"])
        if "external" in check:
            if set(out.external) != set(check["external"]):
                raise VectorFailure(
                    f"{where}: model tags {sorted(out.external)}, "
                    f"vector expects {sorted(check['external'])}"
                )
            for tag, entries in check["external"].items():
                _model_entries(f"{where} external[{tag!r}]", out.external[tag], entries)


def with_expectations(data: Mapping[str, Json], profile: Profile) -> dict[str, Json] | None:
    """A copy of vector ``data`` whose expectations the model computes: every step's ``expect``,
    then an output of every store (``final-<store>``) and checks of those and of the outputs
    taken before that the profile lets a vector check (strict: all; core: the merged ones whose
    store was not changed since). None when a step is unspecified in ``profile``, or when the
    steps are not a valid vector (a closed blob used, an aliased output merged in core)."""
    steps = [dict(step) for step in data["steps"]]
    run = _ModelRun(data, profile, str(data.get("id", "")))
    try:
        for number, step in enumerate(steps, start=1):
            outcome, result = run.step(f"step {number}", step)
            if result is not None:
                return None
            step["expect"] = expectation(outcome)
    except VectorFailure:
        return None
    checks = []
    stores = list(dict.fromkeys(s["store"] for s in steps if "store" in s))
    taken = list(run.outputs)
    for store in stores:
        steps.append({"op": "output", "store": store, "as": f"final-{store}", "expect": "ok"})
        checks.append(check_of(f"final-{store}", run.model(store).output()))
    for name in taken:
        if profile == "strict" or (name in run.merged and run.untouched(name)):
            checks.append(check_of(name, run.outputs[name]))
    used = {s.get("blob") for s in steps}
    return {
        **data,
        "profile": profile,
        "blobs": {k: v for k, v in data["blobs"].items() if k in used},
        "steps": steps,
        "checks": checks,
    }


def dumps(value: Json, width: int = 100, indent: int = 0, lead: int = 0) -> str:
    """JSON text, each object or array on one line when it fits in ``width`` columns (``lead``:
    the columns already taken on the first line, by the indentation and the key)."""
    flat = json.dumps(value, ensure_ascii=False)
    if lead + len(flat) <= width or not isinstance(value, dict | list) or not value:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        items = []
        for key, item in value.items():
            name = json.dumps(key, ensure_ascii=False) + ": "
            items.append(pad + name + dumps(item, width, indent + 2, len(pad) + len(name)))
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [pad + dumps(item, width, indent + 2, len(pad)) for item in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
