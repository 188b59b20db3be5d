"""Tests of ``cordspec host``'s own code that need no torch: the substitution on a made-up module
tree, the refusal when torch is missing, the shipped-test runner on made-up tests, the scope
declarations, and the report (its table, its exit rule, its JSON against the schema)."""

from __future__ import annotations

import json
import re
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import jsonschema
import pytest

from conformance.adapters.substitution import find_holders, substituted
from conformance.cli import main
from conformance.host import prerequisites
from conformance.host.report import HOST_FORMAT, Export, HostReport, ModelResult, Run
from conformance.host.shipped_tests import (
    SCOPE_FILE,
    TEST_FILES,
    Outcome,
    TestResult,
    classify,
    read_scope,
    run_shipped_tests,
)
from conformance.run.spec import load_spec

REPO = Path(__file__).resolve().parents[1]
SCHEMA = json.loads((REPO / "docs" / "report-schema.json").read_text("utf-8"))


class Cord: ...


class Store: ...


class OtherCord: ...


class OtherStore: ...


ORIGINALS: dict[str, type] = {"Cord": Cord, "NamedDataStore": Store}
REPLACEMENTS: dict[str, type] = {"Cord": OtherCord, "NamedDataStore": OtherStore}


def _module(name: str, file: str | None = None, **attributes: object) -> ModuleType:
    module = ModuleType(name)
    if file is not None:
        module.__file__ = file
    for key, value in attributes.items():
        setattr(module, key, value)
    return module


def _tree(root: str) -> dict[str, ModuleType]:
    return {
        "executorch": _module("executorch"),
        "executorch.cord": _module("executorch.cord", Cord=Cord, helper=len),
        "executorch.user": _module("executorch.user", Cord=Cord, Store=Store, Alias=Store),
        "executorchx": _module("executorchx", Cord=Cord),  # another package with the same stem
        "elsewhere": _module("elsewhere", Cord=Cord),
        "test_cord": _module("test_cord", f"{root}/test/test_cord.py", Cord=Cord),
        "beside": _module("beside", f"{root}x/beside.py", Cord=Cord),
        "broken": None,  # type: ignore[dict-item]  # sys.modules holds None for a failed import
    }


def test_holders_are_found_by_package_name_and_by_file_below_the_package() -> None:
    found = find_holders(ORIGINALS, _tree("/site/executorch"), root="/site/executorch")
    assert [(s.module, s.attribute, s.class_name) for s in found] == [
        ("executorch.cord", "Cord", "Cord"),
        ("executorch.user", "Alias", "NamedDataStore"),
        ("executorch.user", "Cord", "Cord"),
        ("executorch.user", "Store", "NamedDataStore"),
        ("test_cord", "Cord", "Cord"),
    ]


def test_substituted_replaces_every_holder_and_restores_them() -> None:
    tree = _tree("/site/executorch")
    with substituted(ORIGINALS, REPLACEMENTS, tree, root="/site/executorch") as swaps:
        assert len(swaps) == 5
        assert tree["executorch.user"].Alias is OtherStore
        assert tree["executorch.user"].Cord is OtherCord
        assert tree["test_cord"].Cord is OtherCord
        assert tree["elsewhere"].Cord is Cord  # not ExecuTorch's
        assert tree["executorchx"].Cord is Cord
        assert tree["beside"].Cord is Cord
    assert tree["executorch.user"].Alias is Store
    assert tree["executorch.cord"].Cord is Cord
    assert tree["test_cord"].Cord is Cord


def test_substituted_restores_when_the_block_raises() -> None:
    tree = _tree("/r")
    with pytest.raises(RuntimeError, match="boom"), substituted(ORIGINALS, REPLACEMENTS, tree):
        assert tree["executorch.cord"].Cord is OtherCord
        raise RuntimeError("boom")
    assert tree["executorch.cord"].Cord is Cord


def test_substituted_leaves_identical_classes_alone() -> None:
    tree = _tree("/r")
    with substituted(ORIGINALS, {"Cord": Cord, "NamedDataStore": OtherStore}, tree) as swaps:
        assert {s.class_name for s in swaps} == {"NamedDataStore"}
        assert tree["executorch.user"].Store is OtherStore
    assert tree["executorch.user"].Store is Store


def test_substituted_refuses_a_missing_replacement() -> None:
    with pytest.raises(ValueError, match="no replacement for NamedDataStore"):
        substituted(ORIGINALS, {"Cord": OtherCord}, _tree("/r")).__enter__()


def test_the_refusal_names_what_is_missing_and_the_install_line() -> None:
    with pytest.raises(prerequisites.MissingPrerequisites) as caught:
        prerequisites.check(lambda name: name == "torch")
    message = str(caught.value)
    assert "executorch, torchao are not installed" in message
    assert "pip install torch==2.13.0" in message
    assert "--no-deps executorch==1.5.1 torchao" in message
    assert "tox -e host" in message
    prerequisites.check(lambda name: True)


def test_cordspec_host_refuses_without_torch(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(prerequisites, "_findable", lambda name: name != "torch")
    assert main(["host", "--impl", "reference"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cordspec: cordspec host needs torch, executorch, torchao; torch is not")
    assert prerequisites.INSTALL in err


def test_cordspec_host_refuses_an_implementation_it_cannot_load(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from conformance.host import command

    monkeypatch.setattr(command.Host, "load", classmethod(lambda cls: None))
    assert main(["host", "--impl", "no_such_module_here"]) == 2
    assert "cannot import 'no_such_module_here'" in capsys.readouterr().err


# the shipped-test runner, on made-up tests of a made-up package


def test_the_runner_substitutes_around_each_test_and_reports_each(tmp_path: Path) -> None:
    root = tmp_path / "fakepkg"
    (root / "t").mkdir(parents=True)
    (root / "t" / "test_layer.py").write_text(
        textwrap.dedent(
            f"""
            import pytest
            from {__name__} import Cord, OtherCord

            def test_sees_the_replacement():
                assert Cord is OtherCord

            def test_fails():
                assert False, "the store is wrong"

            def test_declared():
                raise TypeError("a tensor")

            @pytest.mark.skip(reason="needs a GPU")
            def test_skipped():
                pass
            """
        )
    )
    scopes = {
        "t/test_layer.py::test_declared": read_scope_line("t/test_layer.py::test_declared"),
        "t/test_layer.py::test_sees_the_replacement": read_scope_line(
            "t/test_layer.py::test_sees_the_replacement"
        ),
    }
    files = ["t/test_layer.py", "t/test_absent.py"]
    try:
        results = run_shipped_tests({"Cord": Cord}, {"Cord": OtherCord}, root, scopes, files)
    finally:
        sys.modules.pop("test_layer", None)
    got = {r.test: (r.outcome, r.detail) for r in results}
    assert got == {
        "t/test_absent.py": (Outcome.MISSING, "not in the installed wheel"),
        "t/test_layer.py::test_sees_the_replacement": (Outcome.PASSED, ""),
        "t/test_layer.py::test_fails": (
            Outcome.FAILED,
            "AssertionError: the store is wrong assert False",
        ),
        "t/test_layer.py::test_declared": (Outcome.OUT_OF_SCOPE, "SPEC section 1: why"),
        "t/test_layer.py::test_skipped": (Outcome.SKIPPED, "Skipped: needs a GPU"),
    }
    assert Cord is not OtherCord


def read_scope_line(test: str) -> object:
    from conformance.host.shipped_tests import Scope

    return Scope(test, "SPEC section 1", "why")


def test_classify_reports_a_declared_test_that_passes_as_passed() -> None:
    scopes = read_scope()
    declared = next(iter(scopes))
    assert classify(declared, True, "", scopes) == TestResult(declared, Outcome.PASSED)
    assert classify(declared, False, "E", scopes).outcome is Outcome.OUT_OF_SCOPE
    assert classify("other", False, "E", scopes) == TestResult("other", Outcome.FAILED, "E")


def test_every_scope_declaration_names_a_listed_file_and_a_real_section_or_clause() -> None:
    spec = load_spec()
    text = (REPO / "spec" / "SPEC.md").read_text("utf-8")
    sections = set(re.findall(r"^#{2,3} ([0-9]+(?:\.[0-9]+)?)\.? ", text, re.MULTILINE))
    assert {"1", "4.5"} <= sections
    for scope in read_scope().values():
        assert scope.test.partition("::")[0] in TEST_FILES, scope.test
        words = scope.reference.replace("(", " ").replace(")", " ").replace(":", " ").split()
        assert words[:2] == ["SPEC", "section"], scope.reference
        assert words[2] in sections, f"{scope.test}: no section {words[2]}"
        clauses = [w for w in words if "-" in w and w[0].isupper()]
        assert all(c in spec.clauses for c in clauses), scope.reference


def test_a_malformed_scope_line_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.scope"
    path.write_text("# comment\n\na | b\n")
    with pytest.raises(ValueError, match=r"x.scope:3: expected 'test \| reference \| reason'"):
        read_scope(path)
    path.write_text("a | b | c\na | d | e\n")
    with pytest.raises(ValueError, match="a is declared twice"):
        read_scope(path)
    assert SCOPE_FILE.is_file()


# the report


def _export(files: dict[str, str], leaked: list[str] | None = None, error: str = "") -> Export:
    return Export(files, 1.5, 3 << 20, leaked or [], error)


A, B = "a" * 64, "b" * 64


def _model(
    name: str = "m",
    candidate: Export | None = None,
    runs: list[Run] | None = None,
) -> ModelResult:
    base = _export({"model.pte": A, "w.ptd": B})
    return ModelResult(
        name,
        "covers things",
        base,
        candidate or _export({"model.pte": A, "w.ptd": B}),
        [Run("forward", True, "ok")] if runs is None else runs,
    )


def _report(models: list[ModelResult], tests: list[TestResult] | None = None) -> HostReport:
    return HostReport(
        implementation="reference",
        version="0.1.0",
        impl="reference",
        executorch_version="1.5.1",
        torch_version="2.13.0+cpu",
        date="2026-12-01T10:00:00+00:00",
        baseline=False,
        substituted=[("executorch.exir._serialize._cord", "Cord", "Cord")],
        restored=True,
        hooks="default hooks: reference's",
        models=models,
        tests=tests if tests is not None else [TestResult("t.py::T::test", Outcome.PASSED)],
        notes=["a note"],
        cordspec_version="0.1.0",
    )


def test_a_clean_run_passes_and_its_table_says_so() -> None:
    report = _report(
        [
            _model("alpha"),
            _model("beta", runs=[*_model().runs, Run("blob", False, "not runnable: no kernel")]),
        ]
    )
    assert report.exit_ok and report.failures == []
    text = report.to_markdown()
    assert "| alpha | 2 | yes | yes (1/1 methods) | none | 1.50 / 1.50 | 3.00 / 3.00 |" in text
    assert "| beta | 2 | yes | yes (1/1 methods; 1 not runnable) | none |" in text
    assert f"| `model.pte` | `{A}` | yes |" in text
    assert "- `blob`: not runnable: no kernel" in text
    assert report.terminal_lines()[-1] == "host: passed"


@pytest.mark.parametrize(
    ("model", "why"),
    [
        (
            _model(candidate=_export({"model.pte": B, "w.ptd": B})),
            "m: files differ from ExecuTorch's: model.pte",
        ),
        (_model(candidate=_export({"model.pte": A})), "m: files differ from ExecuTorch's: w.ptd"),
        (
            _model(candidate=_export({}, error="ValueError: x")),
            "m: the export failed: ValueError: x",
        ),
        (
            _model(runs=[Run("forward", False, "differs from eager PyTorch by up to 0.5")]),
            "m: forward: differs from eager PyTorch by up to 0.5",
        ),
        (_model(runs=[Run("blob", False, "not runnable: no kernel")]), "m: no method ran"),
        (
            _model(
                candidate=_export({"model.pte": A, "w.ptd": B}, leaked=["tmp/.executorch_1.data"])
            ),
            "m: left on disk: tmp/.executorch_1.data",
        ),
    ],
)
def test_a_model_that_differs_fails_to_run_or_leaks_fails_the_run(
    model: ModelResult, why: str
) -> None:
    report = _report([model])
    assert report.failures == [why]
    assert not report.exit_ok
    assert report.terminal_lines()[-1] == "host: FAILED (1)"
    assert f"- {why}" in report.to_markdown()


def test_a_file_backed_model_without_a_file_backed_data_fails_the_run() -> None:
    import dataclasses

    model = dataclasses.replace(_model(), file_backed=True)
    assert _report([model]).failures == [
        "m: no FileBackedData reached the output: the file-backed path was not taken"
    ]
    taken = dataclasses.replace(
        model, candidate=dataclasses.replace(model.candidate, file_backed=1)
    )
    assert _report([taken]).exit_ok


def test_an_in_scope_test_that_fails_or_is_skipped_fails_the_run_and_out_of_scope_does_not() -> (
    None
):
    tests = [
        TestResult("a.py::T::test_a", Outcome.OUT_OF_SCOPE, "SPEC section 1: tensors"),
        TestResult("a.py::T::test_b", Outcome.FAILED, "AssertionError"),
        TestResult("a.py::T::test_c", Outcome.SKIPPED, "needs a GPU"),
    ]
    report = _report([_model()], tests)
    assert report.failures == [
        "a.py::T::test_b: failed: AssertionError",
        "a.py::T::test_c: skipped: needs a GPU",
    ]
    text = report.to_markdown()
    assert "| `a.py::T::test_a` | out of scope | SPEC section 1: tensors |" in text
    assert "1 failed, 1 out of scope, 1 skipped." in text


def test_nothing_substituted_or_not_restored_fails_the_run() -> None:
    import dataclasses

    report = dataclasses.replace(_report([_model()]), substituted=[], restored=False)
    assert report.failures == [
        "ExecuTorch's classes were not all back in place after the run",
        "no module of ExecuTorch's held its classes: nothing was substituted",
    ]
    assert dataclasses.replace(report, baseline=True, restored=True).exit_ok


def test_the_json_report_matches_the_schema(tmp_path: Path) -> None:
    failing = _model("bad", candidate=_export({"model.pte": B}, leaked=["tmp/x"]))
    report = _report([_model(), failing], [TestResult("t.py::T::a", Outcome.FAILED, "E")])
    report.write(tmp_path / "host.json")
    report.write(tmp_path / "host.md")
    data = json.loads((tmp_path / "host.json").read_text("utf-8"))
    validator = jsonschema.Draft202012Validator(
        {"$ref": "urn:cordspec:report-schema:1#/$defs/host_report"},
        registry=_registry(),
        format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER,
    )
    validator.validate(data)
    assert data["format"] == HOST_FORMAT and data["exit_ok"] is False
    bad = data["host"]["models"][1]
    assert bad["identical"] is False and bad["leaked"] == ["tmp/x"]
    assert bad["files"][1] == {"name": "w.ptd", "sha256": None, "executorch_sha256": B}
    assert (tmp_path / "host.md").read_text("utf-8") == report.to_markdown()
    broken = json.loads(json.dumps(data))
    broken["host"]["models"][0]["files"][0]["sha256"] = "not hex"
    assert not validator.is_valid(broken)


def _registry() -> object:
    from referencing import Registry, Resource

    return Registry().with_resource(SCHEMA["$id"], Resource.from_contents(SCHEMA))
