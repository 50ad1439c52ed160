"""The quick subset's list: which single tests are slow (`tests/slow_tests.txt`).

    ./run test --junitxml=test-output/report.xml
    .venv/bin/python tests/slow_tests.py test-output/report.xml [--over SECONDS]

rewrites tests/slow_tests.txt with every test whose setup, call and teardown took longer than
SECONDS (default 5) in that run, the modules in SLOW_MODULES aside; a package that would
have no test left keeps its fastest. The conftest marks
them `slow`, so `./run test -m "not slow"` leaves them out. Times come from a whole-suite run on
pytest-xdist workers, as CI runs it: a quiet machine's times would let more through.
"""

from __future__ import annotations

import argparse
import re
import xml.etree.ElementTree as ET
from pathlib import Path

LIST = Path(__file__).resolve().parent / "slow_tests.txt"
# The long suites, left out of the quick subset whole: fault injection, properties, restarts, ruff and
# mypy (tests/lsp/test_fuzz.py and tests/e2e/ mark themselves).
SLOW_MODULES = {
    "agent/test_agent_faults.py", "agent/test_store_faults.py", "agent/test_agent_crash.py",
    "agent/test_mcp_property.py", "lsp/test_two_servers.py", "unit/test_context_properties.py",
    "unit/test_context_meter_properties.py", "unit/test_lint.py",
}
HEADER = """\
# Single tests left out of the quick subset (`./run test -m "not slow"`): measured over {over:g} s in a
# whole-suite run (setup + call + teardown; pytest-xdist workers on 2 cores). Regenerate with
# tests/slow_tests.py from a `--junitxml` report. One pytest node id per line.
"""


def node_id(case: ET.Element) -> str:
    """pytest's node id from a junit testcase: `classname` is the dotted module (plus class)."""
    parts = case.get("classname", "").split(".")
    module = [p for p in parts if not p[:1].isupper()]
    classes = parts[len(module):]
    return "::".join(["/".join(module) + ".py", *classes, case.get("name", "").split("@")[0]])


def listed_slow_tests() -> set[str]:
    """The node ids in tests/slow_tests.txt."""
    if not LIST.exists():
        return set()
    lines = (line.strip() for line in LIST.read_text().splitlines())
    return {line for line in lines if line and not line.startswith("#")}


def marks_itself_slow(module: Path) -> bool:
    """A module whose `pytestmark` holds `pytest.mark.slow` (tests/e2e, tests/lsp/test_fuzz.py)."""
    marked = re.compile(r"^pytestmark\b[^\n]*(?:\n[ \]].*)*mark\.slow", re.M)
    return module.is_file() and marked.search(module.read_text()) is not None


def slow_ids(report: Path, over: float, slow_modules: set[str]) -> list[str]:
    """The tests over `over` seconds; a package (tests/<name>/) that would have none left keeps its fastest."""
    by_package: dict[str, list[tuple[float, str]]] = {}
    for case in ET.parse(report).iter("testcase"):
        nodeid = node_id(case)
        module = nodeid.split("::")[0].removeprefix("tests/")
        if module not in slow_modules and not marks_itself_slow(LIST.parent / module):
            by_package.setdefault(module.split("/")[0], []).append((float(case.get("time", "0")), nodeid))
    found: set[str] = set()
    for timed in by_package.values():
        slow = [nodeid for seconds, nodeid in timed if seconds > over]
        if len(slow) == len(timed):
            slow.remove(min(timed)[1])
        found.update(slow)
    return sorted(found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("report", type=Path, help="a junit XML report of a whole-suite run")
    parser.add_argument("--over", type=float, default=5.0, help="seconds (default 5)")
    args = parser.parse_args(argv)
    ids = slow_ids(args.report, args.over, SLOW_MODULES)
    LIST.write_text(HEADER.format(over=args.over) + "".join(f"{i}\n" for i in ids))
    print(f"{len(ids)} tests over {args.over:g} s -> {LIST}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
