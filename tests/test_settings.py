"""A run's settings (conformance.run.settings): the pytest arguments they are spelled as read back
to the same settings, and a bad value is refused once, naming it."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from conformance.adapters import load_implementation
from conformance.run.settings import RunSettings, SettingsError

pytest_plugins = ["pytester"]


def config_of(pytester: pytest.Pytester, settings: RunSettings) -> pytest.Config:
    """A pytest config parsed from ``settings``' arguments, as an xdist worker gets them."""
    return pytester.parseconfig(*settings.pytest_args())


@pytest.mark.parametrize(
    "settings",
    [
        RunSettings("reference"),
        RunSettings(
            "tests.impls.nohooks",
            "core",
            reports=("/tmp/a.md", "/tmp/b.json"),
            hypothesis_profile="ci",
            shrink=True,
            timeout=0.1 + 0.2,  # not exactly 0.3: the arguments keep every digit
            clauses=("FBD-HASH-1", "CORD-INIT-1"),
        ),
    ],
    ids=["defaults", "every-option"],
)
def test_the_arguments_read_back_to_the_same_settings(
    pytester: pytest.Pytester, settings: RunSettings
) -> None:
    built = RunSettings.from_config(config_of(pytester, settings))
    assert built == settings
    assert built.implementation is load_implementation(settings.impl)
    assert built.load_error == ""


def test_the_deviations_are_read_for_the_implementations_version(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    version = load_implementation("reference").version
    path = tmp_path / "dev.txt"
    path.write_text(
        f"[{version}] FBD-HASH-1 this release\n[0.0.1] CORD-INIT-1 another\n", encoding="utf-8"
    )
    built = RunSettings.from_config(
        config_of(pytester, RunSettings("reference", deviations_file=str(path)))
    )
    assert set(built.deviations) == {"FBD-HASH-1"}
    assert built.deviations["FBD-HASH-1"].reason == "this release"


@pytest.mark.parametrize(
    ("settings", "named"),
    [
        (RunSettings("reference", clauses=("NO-SUCH-1",)), "--cordspec-clause NO-SUCH-1"),
        (RunSettings("reference", timeout=-1), "--cordspec-timeout -1"),
        (RunSettings("reference", reports=("/no/such/dir/r.json",)), "--cordspec-report"),
        (RunSettings("reference", deviations_file="nope.txt"), "--cordspec-deviations nope.txt"),
        (RunSettings("json"), "json is not an implementation"),
    ],
    ids=["clause", "timeout", "report", "deviations", "impl"],
)
def test_a_bad_value_is_a_usage_error_naming_it(
    pytester: pytest.Pytester, settings: RunSettings, named: str
) -> None:
    with pytest.raises(pytest.UsageError) as raised:
        RunSettings.from_config(config_of(pytester, settings))
    assert named in str(raised.value)


def test_a_worker_that_cannot_load_the_implementation_keeps_the_reason(
    pytester: pytest.Pytester,
) -> None:
    """A worker's tests that use ``impl`` fail with the reason; the run stopped earlier, on the
    controller, if the implementation could not be loaded there."""
    config = config_of(pytester, RunSettings("json"))
    config.workerinput = {}  # type: ignore[attr-defined]  # what pytest-xdist sets on a worker
    built = RunSettings.from_config(config)
    assert built.implementation is None
    assert "json is not an implementation" in built.load_error


def namespace(**given: object) -> argparse.Namespace:
    """``cordspec run``'s arguments: its defaults, with ``given``."""
    defaults: dict[str, object] = {
        "impl": "reference",
        "profile": "strict",
        "report": [],
        "deviations": None,
        "hypothesis_profile": None,
        "shrink": False,
        "timeout": None,
        "clause": [],
    }
    return argparse.Namespace(**{**defaults, **given})


def test_cordspec_runs_arguments_give_absolute_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The settings travel to workers, which run elsewhere than the command's directory."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dev.txt").write_text("FBD-HASH-1 known\n", encoding="utf-8")
    built = RunSettings.from_args(namespace(report=["r.json"], deviations="dev.txt"))
    assert built.reports == (str(tmp_path / "r.json"),)
    assert built.deviations_file == str(tmp_path / "dev.txt")
    assert set(built.deviations) == {"FBD-HASH-1"}


def test_cordspec_run_refuses_a_deviation_that_matches_nothing(tmp_path: Path) -> None:
    """``cordspec run`` matches the deviations against the spec and the suite before pytest
    starts; pytest's own route matches them against what it collected."""
    path = tmp_path / "dev.txt"
    path.write_text("FBD-HASH-1 known\nNDS-MERGE-66 a typo\n", encoding="utf-8")
    with pytest.raises(SettingsError, match=r"dev\.txt:2: 'NDS-MERGE-66' is not a clause"):
        RunSettings.from_args(namespace(deviations=str(path)))
