"""The quick subset (`./run test -m "not slow"`) stays a subset of real tests from every package."""

from __future__ import annotations

import re
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))
from slow_tests import SLOW_MODULES, listed_slow_tests  # noqa: E402

DEFINED = re.compile(r"^(?:async )?def (test_\w+)", re.M)


def defined_tests(module: Path) -> set[str]:
    return set(DEFINED.findall(module.read_text()))


def test_every_listed_slow_test_exists():
    for nodeid in listed_slow_tests():
        path, *rest = nodeid.split("::")
        module = TESTS.parent / path
        assert module.is_file(), f"{nodeid}: no such module"
        assert rest and rest[-1].split("[")[0] in defined_tests(module), f"{nodeid}: no such test"


def test_every_test_package_keeps_quick_tests():
    slow_functions = {(n.split("::")[0], n.split("::")[-1].split("[")[0]) for n in listed_slow_tests()}
    for package in ("unit", "agent", "lsp", "acp", "browser"):
        quick = [
            (module, name)
            for module in sorted((TESTS / package).glob("test_*.py"))
            if module.relative_to(TESTS).as_posix() not in SLOW_MODULES
            for name in defined_tests(module)
            if (module.relative_to(TESTS.parent).as_posix(), name) not in slow_functions
        ]
        assert quick, f"tests/{package} has {len(quick)} quick tests"
