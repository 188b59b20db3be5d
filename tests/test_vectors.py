"""The vectors of spec/vectors/: valid against their schema, consistent with the spec's clauses and
profiles, agreed with by the model (conformance/harness/model.py), passed by the reference; and the
helpers that read and write them."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.adapters import load_implementation
from conformance.harness.vectors import (
    Vector,
    VectorFailure,
    blob_contents,
    describe,
    dumps,
    load_schema,
    load_vectors,
    replay,
    replay_model,
    vectors_dir,
    with_expectations,
)
from conformance.run.spec import load_spec

ROOT = Path(__file__).resolve().parent.parent
VECTORS = load_vectors()
SCHEMA = load_schema()
SPEC = load_spec()
each_vector = pytest.mark.parametrize("vector", VECTORS, ids=[v.id for v in VECTORS])


def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(SCHEMA)


def test_the_schema_is_a_2020_12_schema() -> None:
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_there_are_at_least_40_vectors_with_unique_ids_and_numbers() -> None:
    assert len(VECTORS) >= 40
    assert len({v.id for v in VECTORS}) == len(VECTORS)
    assert len({v.id[:3] for v in VECTORS}) == len(VECTORS)


def test_the_vectors_come_from_the_checkout() -> None:
    assert Path(str(vectors_dir())) == ROOT / "spec" / "vectors"


def test_the_wheel_ships_the_vectors_like_the_spec() -> None:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    section = text.split("[tool.hatch.build.targets.wheel.force-include]", 1)[1].split("\n[", 1)[0]
    assert '"spec/vectors" = "conformance/data/vectors"' in section
    assert '"spec/SPEC.md" = "conformance/data/SPEC.md"' in section
    assert '"docs/report-schema.json" = "conformance/data/report-schema.json"' in section


def test_every_file_in_the_directory_is_a_vector_the_schema_or_the_readme() -> None:
    names = {p.name for p in (ROOT / "spec" / "vectors").iterdir()}
    assert names == {f"{v.id}.json" for v in VECTORS} | {"schema.json", "README.md"}


@each_vector
def test_valid_against_the_schema(vector: Vector) -> None:
    errors = [
        f"{list(e.absolute_path)}: {e.message}" for e in _validator().iter_errors(vector.data)
    ]
    assert not errors, errors


@each_vector
def test_id_is_the_file_name(vector: Vector) -> None:
    assert vector.file == f"{vector.id}.json"


@each_vector
def test_clauses_exist_and_are_of_the_vectors_profile(vector: Vector) -> None:
    """So that the suite leaves a strict vector out of a core run, and a known deviation from a
    strict clause never marks a core vector."""
    unknown = [c for c in vector.clauses if c not in SPEC.clauses]
    assert not unknown, f"unknown clause(s) {unknown}"
    other = [c for c in vector.clauses if SPEC.clauses[c].profile != vector.profile]
    assert not other, f"{vector.profile} vector names clause(s) of another profile: {other}"


@each_vector
def test_the_model_agrees(vector: Vector) -> None:
    replay_model(vector)


@pytest.mark.parametrize(
    "vector", [v for v in VECTORS if v.profile == "core"], ids=lambda v: str(v.id)
)
def test_a_core_vector_holds_in_strict_too(vector: Vector) -> None:
    replay_model(vector, "strict")


@each_vector
def test_the_reference_passes(vector: Vector, tmp_path: Path) -> None:
    replay(vector, load_implementation("reference"), tmp_path)


@each_vector
def test_the_file_is_formatted(vector: Vector) -> None:
    text = (ROOT / "spec" / "vectors" / vector.file).read_text(encoding="utf-8")
    assert text == dumps(vector.data) + "\n"


@each_vector
def test_regexes_use_the_portable_subset(vector: Vector) -> None:
    """Literal characters, escapes of punctuation, ``^``, ``$``, ``.``: the README's subset."""
    for step in vector.data["steps"]:
        expect = step["expect"]
        if isinstance(expect, dict) and "message" in expect:
            message = expect["message"]
            assert re.fullmatch(r"\^?(?:[^\\^$|?*+()\[\]{}]|\\[\\.^$|?*+()\[\]{}])*\$?", message)


def test_core_vectors_check_only_outputs_nothing_changed_since() -> None:
    """The model rejects a core vector that checks an output whose store was changed since:
    in core an output may alias its store."""
    data = {
        "id": "900-stale",
        "description": "x",
        "clauses": ["NDS-OUT-1"],
        "profile": "core",
        "blobs": {"a": {"hex": "61"}, "b": {"hex": "62"}},
        "steps": [
            {"op": "add", "store": "s", "key": "k1", "blob": "a", "expect": "ok"},
            {"op": "output", "store": "s", "as": "o", "expect": "ok"},
            {"op": "add", "store": "s", "key": "k2", "blob": "b", "expect": "ok"},
        ],
        "checks": [{"output": "o", "buffers": ["a"]}],
    }
    with pytest.raises(VectorFailure, match="alias"):
        replay_model(Vector("900-stale", "core", ("NDS-OUT-1",), data, "x.json"))
    replay_model(Vector("900-stale", "strict", ("NDS-OUT-3",), data, "x.json"), "strict")


def test_the_model_rejects_a_vector_that_relies_on_unspecified_behaviour() -> None:
    data = {
        "id": "901-open",
        "description": "x",
        "clauses": ["NDS-KEY-2"],
        "profile": "core",
        "blobs": {"a": {"hex": "61"}},
        "steps": [
            {"op": "add", "store": "s", "key": "k", "blob": "a", "tag": "t1", "expect": "ok"},
            {"op": "add", "store": "s", "key": "k", "blob": "a", "tag": "t2", "expect": "ok"},
        ],
        "checks": [],
    }
    with pytest.raises(VectorFailure, match="unspecified in core"):
        replay_model(Vector("901-open", "core", ("NDS-KEY-2",), data, "x.json"))


# -- the schema rejects what it should ------------------------------------------------------------

BASE: dict[str, Any] = json.loads((ROOT / "spec" / "vectors" / f"{VECTORS[0].id}.json").read_text())


def _broken(path: list[str | int], value: Any) -> dict[str, Any]:
    data = copy.deepcopy(BASE)
    target = data
    for part in path[:-1]:
        target = target[part]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return data


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (["steps", 0, "expect"], KeyError),
        (["steps", 0, "expect"], {"raises": "KeyError"}),
        (["steps", 0, "op"], "delete"),
        (["steps", 0, "extra"], 1),
        (["blobs", "a"], {"hex": "6"}),
        (["blobs", "a"], {"hex": "61", "sha256": "00" * 32}),
        (["blobs", "a"], {"hex": "61", "repeat": {"byte": "41", "count": 1}}),
        (["blobs", "a"], {"repeat": {"byte": "4", "count": 1}}),
        (["blobs", "a"], {"concat": [{"hex": "61", "as": "file"}]}),
        (["blobs", "a"], {"hex": "61", "as": "tensor"}),
        (["profile"], "lenient"),
        (["id"], "1-short"),
        (["clauses"], []),
        (["checks", 0, "pte", "k1", "buffer"], -1),
        (["checks", 0, "buffers", 0], 7),
    ],
)
def test_the_schema_rejects_malformed_vectors(path: list[str | int], value: Any) -> None:
    assert not _validator().is_valid(_broken(path, value))


def test_the_base_vector_of_those_cases_is_valid() -> None:
    assert _validator().is_valid(BASE)


# -- helpers ---------------------------------------------------------------------------------------


@given(
    st.binary(max_size=300)
    | st.builds(lambda b, n: b * n, st.binary(max_size=3), st.integers(0, 90))
)
def test_describe_round_trips(data: bytes) -> None:
    described = describe(data)
    assert blob_contents(described) == data
    assert _validator().is_valid({**BASE, "blobs": {"a": described}})


def test_describe_is_compact() -> None:
    assert describe(b"P" * 32 + b"tail") == {
        "concat": [{"repeat": {"byte": "50", "count": 32}}, {"hex": "7461696c"}]
    }
    assert describe(b"") == {"hex": ""}


def test_with_expectations_reproduces_a_vector_s_outcomes() -> None:
    """The model computes the expectations a vector writes by hand (here 022's)."""
    vector = next(v for v in VECTORS if v.id.endswith("key-different-contents"))
    computed = with_expectations(vector.data, "core")
    assert computed is not None
    assert [s["expect"] for s in computed["steps"][: len(vector.data["steps"])]] == [
        s["expect"] for s in vector.data["steps"]
    ]
    assert computed["checks"][0]["buffers"] == vector.data["checks"][0]["buffers"]
