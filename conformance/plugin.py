"""The pytest plugin: chooses the implementation, maps tests to clauses, applies deviations."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .adapters import load_implementation, selected_spec
from .api import Capability, Implementation, ImplementationError
from .deviations import Deviation, builtin_deviations_path, read_deviations
from .fixtures import Blobs, placeholders
from .spec import Spec, load_spec

__all__ = ["clause_ids"]

PROFILES = ("core", "strict")
_SPEC_KEY = pytest.StashKey[Spec]()
_DEVIATIONS_KEY = pytest.StashKey[dict[str, Deviation]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("cordspec", "cordspec conformance suite")
    group.addoption(
        "--impl",
        default=None,
        help="implementation under test: reference, executorch, package.module[:object] "
        "(default: $CORDSPEC_IMPL, else reference)",
    )
    group.addoption(
        "--profile",
        choices=PROFILES,
        default="strict",
        help="core: clauses every implementation meets; strict: core plus strict (default)",
    )
    group.addoption(
        "--deviations",
        default=None,
        help="file of known deviations (default: the built-in adapter's own list, if any)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "clause(*ids): the spec clauses (spec/SPEC.md) this test checks"
    )
    config.addinivalue_line(
        "markers", "requires(capability): not applicable unless the implementation has it"
    )


def clause_ids(item: pytest.Item) -> list[str]:
    """The clause ids named by a test's ``clause`` markers, in order."""
    ids: list[str] = []
    for mark in item.iter_markers("clause"):
        ids.extend(str(arg) for arg in mark.args)
    return ids


def _spec(config: pytest.Config) -> Spec:
    if _SPEC_KEY not in config.stash:
        config.stash[_SPEC_KEY] = load_spec()
    return config.stash[_SPEC_KEY]


def _deviations(config: pytest.Config) -> dict[str, Deviation]:
    if _DEVIATIONS_KEY not in config.stash:
        option = config.getoption("deviations")
        spec = selected_spec(config.getoption("impl"))
        path = Path(option) if option else builtin_deviations_path(spec)
        config.stash[_DEVIATIONS_KEY] = read_deviations(path)
    return config.stash[_DEVIATIONS_KEY]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Check clause ids, leave out tests outside the profile, mark known deviations xfail."""
    spec = _spec(config)
    profile = config.getoption("profile")
    deviations = _deviations(config)
    keep: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        ids = clause_ids(item)
        if not ids:
            keep.append(item)
            continue
        unknown = [i for i in ids if i not in spec.clauses]
        if unknown:
            raise pytest.UsageError(f"{item.nodeid} names unknown clause(s): {', '.join(unknown)}")
        if profile == "core" and all(spec.clauses[i].profile == "strict" for i in ids):
            dropped.append(item)
            continue
        item.user_properties.append(("cordspec_clauses", " ".join(ids)))
        name = getattr(item, "originalname", item.name)
        known = [deviations[t] for t in (*ids, name) if t in deviations]
        if known:
            reason = "; ".join(f"{d.target}: {d.reason}" for d in known)
            item.add_marker(pytest.mark.xfail(strict=True, reason=f"known deviation: {reason}"))
        keep.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


@pytest.fixture(scope="session")
def impl(pytestconfig: pytest.Config) -> Implementation:
    """The implementation under test (override this fixture to test your own)."""
    try:
        return load_implementation(selected_spec(pytestconfig.getoption("impl")))
    except ImplementationError as exc:
        pytest.exit(f"cordspec: {exc}", returncode=4)


@pytest.fixture(autouse=True)
def _cordspec_applicable(request: pytest.FixtureRequest) -> None:
    """Skip, as "not applicable", a test needing a capability the implementation lacks."""
    marks = list(request.node.iter_markers("requires"))
    if not marks:
        return
    implementation: Implementation = request.getfixturevalue("impl")
    for mark in marks:
        for arg in mark.args:
            capability = Capability(arg)
            if capability not in implementation.capabilities:
                pytest.skip(f"not applicable: {implementation.why_absent(capability)}")


@pytest.fixture
def blobs(impl: Implementation, tmp_path: Path) -> Iterator[Blobs]:
    """Files and FileBackedData for one test; every object made is closed at teardown."""
    made = Blobs(impl, tmp_path)
    try:
        yield made
    finally:
        made.close_all()


@pytest.fixture(autouse=True)
def _cordspec_no_placeholder_left(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail a suite test that leaves a ``.executorch_*.data`` file in its directory."""
    if request.node.get_closest_marker("clause") is None:
        yield
        return
    directory: Path = request.getfixturevalue("tmp_path")
    yield  # autouse, so set up first and torn down last: after ``blobs`` has closed its objects
    left = placeholders(directory)
    if left:
        pytest.fail(f"placeholder(s) left behind: {', '.join(str(p) for p in left)}")
