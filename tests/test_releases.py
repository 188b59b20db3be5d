"""Tests of tools/releases.py: the release matrix rendered from per-release reports."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.children import REPO


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("releases", REPO / "tools" / "releases.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _report(statuses: dict[str, tuple[str, str]], absent: list[str]) -> dict[str, Any]:
    verdict = {"verdict": "CONFORMS (1/1)", "covers": "core", "without": []}
    return {
        "spec_version": "1.0",
        "absent_capabilities": [{"capability": a, "reason": "no"} for a in absent],
        "verdicts": {"core": verdict, "strict": {**verdict, "covers": "strict"}},
        "exit_ok": True,
        "clauses": [
            {"id": i, "keyword": "MUST", "profile": "core", "status": s, "reason": r}
            for i, (s, r) in statuses.items()
        ],
    }


def test_a_column_per_release_a_row_per_clause_and_deviations_by_reason(tmp_path: Path) -> None:
    tool = _tool()
    old = _report({"A-1": ("not applicable", ""), "B-1": ("expected deviation", "why b")}, ["x"])
    new = _report({"A-1": ("passed", ""), "B-1": ("passed", "")}, [])
    (tmp_path / "1.10.0.json").write_text(json.dumps(new), "utf-8")
    (tmp_path / "1.9.0.json").write_text(json.dumps(old), "utf-8")
    reports = tool.load(tmp_path)
    assert list(reports) == ["1.9.0", "1.10.0"]  # by version, not by name
    text = tool.markdown(reports, "The account.")
    assert "| Clause | Keyword | Profile | 1.9.0 | 1.10.0 |" in text
    assert "| A-1 | MUST | core | n/a | pass |" in text
    assert "| B-1 | MUST | core | dev [1] | pass |" in text
    assert "1. why b" in text
    assert "- **1.9.0 → 1.10.0**: parts now present: `x`; expected deviation → passed: B-1" in text
    assert "| 1.9.0 | core: CONFORMS (1/1) | strict: CONFORMS (1/1) | 0 |" in text
    assert text.index("The account.") < text.index("| Clause |")


def test_no_report_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match=r"no <version>\.json report"):
        _tool().load(tmp_path)


@pytest.mark.parametrize(
    ("tail", "extra"), [(["--", "-n", "2"], ["-n", "2"]), (["--"], []), ([], [])]
)
def test_what_follows_the_double_dash_goes_to_each_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tail: list[str], extra: list[str]
) -> None:
    tool = _tool()
    seen: list[tuple[str, list[str]]] = []
    monkeypatch.setattr(tool, "run_release", lambda v, r, e, x: seen.append((v, x)) or 0)
    argv = ["run", str(tmp_path), "--venvs", str(tmp_path), "--release", "1.3.1", *tail]
    assert tool.main(argv) == 0
    assert seen == [("1.3.1", extra)]
