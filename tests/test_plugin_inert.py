"""cordspec's pytest plugin loads in every project of an environment where cordspec is installed;
there it must be inert, as Hypothesis' plugin is: a project with its own ``clause`` and ``requires``
markers, its own ``impl`` and ``blobs`` fixtures, pyfakefs and Hypothesis tests and Hypothesis
profiles runs exactly as it does with the plugin disabled."""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import textwrap
from pathlib import Path

from tests.children import python

DISABLED = ["-p", "no:cordspec", "-p", "no:cordspec-hypothesis"]

PROJECT = {
    "pytest.ini": """\
        [pytest]
        addopts = --strict-markers -p no:cacheprovider
        markers =
            clause(name): this project's own clauses, none of them cordspec's
            requires(resource): this project's own resources, none of them a cordspec capability
        """,
    "conftest.py": """\
        import gc

        import pytest
        from hypothesis import settings

        settings.register_profile("dev", max_examples=7)
        settings.register_profile("ci", max_examples=9)
        FULL_COLLECTIONS = []


        @pytest.fixture
        def impl():
            return "the project's impl"


        @pytest.fixture
        def blobs():
            return ["the project's blobs"]


        @pytest.hookimpl(wrapper=True)
        def pytest_runtest_teardown(item):
            before = gc.get_stats()[2]["collections"]
            try:
                return (yield)
            finally:
                if "fs" in item.fixturenames:
                    FULL_COLLECTIONS.append(gc.get_stats()[2]["collections"] - before)
        """,
    "test_project.py": """\
        import gc
        import os

        import pytest
        from hypothesis import given, settings, strategies as st

        import conftest


        @pytest.mark.clause("MY-OWN-1")
        def test_its_own_clause(impl):
            assert impl == "the project's impl"


        @pytest.mark.requires("network")
        def test_its_own_requirement(blobs):
            assert blobs == ["the project's blobs"]


        def test_on_a_fake_filesystem(fs):
            gc.disable()  # only an explicit collection counts in the teardown
            fs.create_file("/project/data", contents="x")
            assert os.path.exists("/project/data")


        def test_no_full_collection_after_the_fake_filesystem():
            gc.enable()
            assert conftest.FULL_COLLECTIONS == [0]


        @given(st.integers())
        def test_its_own_profile(n):
            assert settings.get_current_profile_name() == "dev"
            assert settings.default.max_examples == 7


        def test_no_unknown_fixture(request):
            assert not {"_cordspec_applicable", "_cordspec_no_placeholder_left"} & set(
                request.fixturenames
            )
        """,
}


def _project(root: Path) -> Path:
    for name, text in PROJECT.items():
        (root / name).write_text(textwrap.dedent(text))
    return root


def _installed() -> bool:
    """Whether cordspec's entry point is installed in this environment (an editable install)."""
    names = {e.name for e in importlib.metadata.entry_points(group="pytest11")}
    return "cordspec" in names


def _pytest(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return python("-m", "pytest", *args, cwd=root)


def _outcomes(output: str) -> list[str]:
    """The ``-rA`` summary: one ``OUTCOME nodeid`` line per test, sorted."""
    return sorted(re.findall(r"^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (\S+)", output, re.M))


def test_a_project_runs_as_without_the_plugin(tmp_path: Path) -> None:
    root = _project(tmp_path)
    loaded = [] if _installed() else ["-p", "conformance.run.plugin"]
    helped = _pytest(root, *loaded, "--help")
    assert "--cordspec-impl" in helped.stdout, "the plugin is not loaded: nothing is compared"
    args = ["-rA", "-q", "--hypothesis-profile", "dev", "-p", "no:randomly"]
    alone = _pytest(root, *(DISABLED if loaded == [] else []), *args)
    assert alone.returncode == 0, alone.stdout + alone.stderr
    beside = _pytest(root, *loaded, *args)
    assert beside.returncode == alone.returncode, beside.stdout + beside.stderr
    assert _outcomes(beside.stdout) == _outcomes(alone.stdout)
    assert len(_outcomes(alone.stdout)) == 6, alone.stdout
    assert "cordspec" not in beside.stdout + beside.stderr


def _fixtures(output: str) -> list[str]:
    """The fixtures ``--fixtures -v`` lists, with where each is defined, and its sections."""
    return sorted(
        re.findall(
            r"^(\w+(?: \[\w+ scope\])? -- \S+|-+ fixtures defined from \S+ -+)$", output, re.M
        )
    )


def test_no_fixture_of_cordspec_is_listed(tmp_path: Path) -> None:
    root = _project(tmp_path)
    loaded = [] if _installed() else ["-p", "conformance.run.plugin"]
    alone = _pytest(root, *(DISABLED if loaded == [] else []), "--fixtures", "-v")
    beside = _pytest(root, *loaded, "--fixtures", "-v")
    assert beside.returncode == alone.returncode == 0, beside.stdout + beside.stderr
    assert _fixtures(beside.stdout) == _fixtures(alone.stdout)
    listed = "\n".join(_fixtures(beside.stdout))
    assert "impl -- conftest.py" in listed and "blobs -- conftest.py" in listed, listed
    assert "conformance" not in listed and "cordspec" not in listed, listed
