"""The environment variables cordspec reads are declared once (conformance/environment.py) and
listed once (README's "Environment variables"): no other ``CORDSPEC_`` name appears in the tree,
and each declared one is listed, and read through its declaration."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from conformance import environment

ROOT = Path(__file__).resolve().parents[1]
NAME = re.compile(r"\bCORDSPEC_[A-Z0-9_]+")
DECLARED = {v.name for v in environment.VARIABLES}


def _tracked_text() -> dict[str, str]:
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: no list of tracked files")
    texts = {}
    for name in filter(None, out.decode().split("\0")):
        try:
            texts[name] = (ROOT / name).read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):  # binary, or gone from the work tree
            continue
    return texts


def test_every_name_in_the_tree_is_declared() -> None:
    found = {
        f"{name}: {m}"
        for name, text in _tracked_text().items()
        for m in NAME.findall(text)
        if m not in DECLARED
    }
    assert not found, (
        "undeclared CORDSPEC_ variables (add them to conformance/environment.py):\n"
        + ("\n".join(sorted(found)))
    )


def test_each_is_read_only_through_its_declaration() -> None:
    """``os.environ.get("CORDSPEC_...")`` (or ``os.getenv``) outside environment.py is a second
    reading with its own default."""
    direct = re.compile(r"""(environ(\.get)?|getenv)\(?\[?\s*["']CORDSPEC_""")
    found = [
        name
        for name, text in _tracked_text().items()
        if name.endswith(".py")
        and name not in ("conformance/environment.py", "tests/test_environment.py")
        and direct.search(text)
    ]
    assert not found, found


def test_readme_lists_every_variable() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.partition("\n## Environment variables\n")[2].partition("\n## ")[0]
    listed = set(re.findall(r"^\| `(CORDSPEC_[A-Z0-9_]+)` \|", section, re.M))
    assert listed == DECLARED


@pytest.mark.parametrize("variable", environment.VARIABLES, ids=lambda v: v.name)
def test_unset_and_blank_give_the_default(variable: environment.Variable[object]) -> None:
    assert variable.get({}) == variable.default
    assert variable.get({variable.name: "  "}) == variable.default
    assert variable.doc.endswith(".")


def test_a_bad_value_names_the_variable_and_the_value() -> None:
    with pytest.raises(ValueError, match=r"^CORDSPEC_WORKERS='none': expected a number of workers"):
        environment.WORKERS.get({"CORDSPEC_WORKERS": "none"})
    with pytest.raises(ValueError, match=r"^CORDSPEC_MANY_BLOBS='0': expected a number of blobs"):
        environment.MANY_BLOBS.get({"CORDSPEC_MANY_BLOBS": "0"})
    assert environment.WORKERS.get({"CORDSPEC_WORKERS": " 3 "}) == 3
    assert environment.LONG_CAMPAIGN.get({"CORDSPEC_LONG_CAMPAIGN": "0"}) is False
    assert environment.LONG_CAMPAIGN.get({"CORDSPEC_LONG_CAMPAIGN": "yes"}) is True
