"""The layering of docs/architecture.md, checked on the module graph built from the source's AST.

Every `import` and `from … import` in server/agentls counts, relative or
absolute, at module level or inside a function (a lazy import is still a
dependency, and the one place that would hide a cycle). Imports under
`if TYPE_CHECKING:` count too, for both checks, and are tallied apart: they
never run, so they cannot break an import, but a type-only dependency is still
one the reader must follow and the layer must allow (tools/base.py ↔
tools/editor/query.py was such a cycle). Importing `a.b.c` also runs `a` and
`a.b`; those implicit edges are left out, as import tools do, or every
package's `__init__` would form a cycle with its own modules.

Run as a script (`python tests/unit/test_architecture.py`) to print the
summary and the table; `pytest … -s` prints the summary too.
"""

from __future__ import annotations

import ast
import functools
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[2] / "server"
PACKAGE = "agentls"

# layer → the other layers it may import. The core is context < model < agent;
# front ends (lsp, acp, the terminal) sit on the core and never on each other,
# except that the terminal's `chat` client speaks LSP (lsp/protocol.py is its
# wire); evaluation may use the whole product and only the entry point may use
# it (lazily, see below). The offline demo model (demo/) is an Anthropic-compatible
# endpoint in-process: the core starts it when there is no key (agent/runtime.py).
CORE = ("context", "model", "agent")
ALLOWED: dict[str, tuple[str, ...]] = {
    "package":     (),  # agentls/__init__.py: the version
    "credentials": (),  # the API key, taken out of the environment once read: a leaf
    "context":     (),
    "model":       ("context", "credentials"),
    "mock_api":    ("context",),  # the local Anthropic-compatible server
    "demo":        ("context", "mock_api"),  # the offline demo model, served by mock_api
    "agent":       ("package", "credentials", "context", "model", "demo"),
    "lsp":         ("package", "credentials", *CORE, "demo"),
    "acp":         ("package", "credentials", *CORE, "demo"),
    "terminal":    ("package", "credentials", *CORE, "demo", "lsp"),  # lsp: `agentls chat` is an LSP client
    "evaluation":  ("package", "credentials", *CORE, "demo", "mock_api", "lsp", "acp", "terminal"),
    "entry":       ("terminal", "lsp", "acp", "evaluation"),
}
ENTRY = ("agentls.__main__", "agentls.cli")  # the command-line dispatch; its evaluation imports must be lazy
TERMINAL = ("cli",)  # agentls.cli.*: the terminal front ends (ask, repl, chat, sessions)


def layer_of(module: str) -> str:
    if module in ENTRY:
        return "entry"
    parts = module.split(".")
    if len(parts) == 1:
        return "package"
    if parts[1] in TERMINAL:
        return "terminal"
    if parts[1] in ALLOWED:
        return parts[1]
    raise LookupError(f"{module} belongs to no layer: add agentls.{parts[1]} to ALLOWED in {Path(__file__).name}")


@dataclass(frozen=True)
class Import:
    importer: str
    imported: str
    line: int
    lazy: bool  # inside a function
    type_only: bool  # under `if TYPE_CHECKING:`

    def where(self) -> str:
        how = " (lazy)" if self.lazy else " (type only)" if self.type_only else ""
        return f"{self.importer}:{self.line} → {self.imported}{how}"


def modules_of(source: Path, package: str) -> dict[str, tuple[Path, bool]]:
    """Module name → (file, is a package's __init__)."""
    found = {}
    for path in sorted((source / package).rglob("*.py")):
        parts = list(path.relative_to(source).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


class _Collector(ast.NodeVisitor):
    def __init__(self) -> None:
        self.found: list[tuple[ast.Import | ast.ImportFrom, bool, bool]] = []
        self._functions = 0
        self._type_checking = 0

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._functions += 1
        self.generic_visit(node)
        self._functions -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = _function

    def visit_If(self, node: ast.If) -> None:
        if not _is_type_checking(node.test):
            self.generic_visit(node)
            return
        self.visit(node.test)
        self._type_checking += 1
        for statement in node.body:
            self.visit(statement)
        self._type_checking -= 1
        for statement in node.orelse:
            self.visit(statement)

    def _import(self, node: ast.Import | ast.ImportFrom) -> None:
        self.found.append((node, self._functions > 0, self._type_checking > 0))

    visit_Import = visit_ImportFrom = _import


def import_graph(source: Path = SOURCE, package: str = PACKAGE) -> tuple[list[str], list[Import]]:
    """Every module of `package` under `source`, and every import of one of them by another."""
    modules = modules_of(source, package)

    def existing(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    imports: set[Import] = set()
    for module, (path, is_package) in modules.items():
        collector = _Collector()
        collector.visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        here = module if is_package else module.rpartition(".")[0]
        for node, lazy, type_only in collector.found:
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                if node.level:
                    base = here.split(".")[: len(here.split(".")) - (node.level - 1)]
                    origin = ".".join(base + ([node.module] if node.module else []))
                else:
                    origin = node.module or ""
                # `from x import y` imports the module x.y when there is one, else a name of x
                targets = [f"{origin}.{alias.name}" if f"{origin}.{alias.name}" in modules else origin
                           for alias in node.names]
            for target in targets:
                if target != package and not target.startswith(package + "."):
                    continue
                imported = existing(target)
                if imported is not None and imported != module:
                    imports.add(Import(module, imported, node.lineno, lazy, type_only))
    return sorted(modules), sorted(imports, key=lambda i: (i.importer, i.line, i.imported))


def cycles(modules: list[str], imports: list[Import]) -> list[list[Import]]:
    """One shortest cycle per strongly connected component (Tarjan), as the imports that close it."""
    out: dict[str, dict[str, Import]] = defaultdict(dict)
    for edge in imports:
        out[edge.importer].setdefault(edge.imported, edge)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def connect(node: str) -> None:  # iterative, so a deep graph cannot hit the recursion limit
        work = [(node, iter(sorted(out[node])))]
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        while work:
            current, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(out[child]))))
                elif child in on_stack:
                    low[current] = min(low[current], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[current])
            if low[current] == index[current]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == current:
                        break
                if len(component) > 1:
                    components.append(component)

    for module in modules:
        if module not in index:
            connect(module)

    found = []
    for component in components:
        start = min(component)
        paths = {start: [start]}
        frontier = [start]
        while frontier and start not in [c for f in frontier for c in out[f]]:
            next_frontier = []
            for node in frontier:
                for child in sorted(out[node]):
                    if child in component and child not in paths:
                        paths[child] = paths[node] + [child]
                        next_frontier.append(child)
            frontier = next_frontier
        last = next(f for f in frontier if start in out[f])
        path = paths[last] + [start]
        found.append([out[a][b] for a, b in zip(path, path[1:])])
    return found


def upward(imports: list[Import]) -> list[Import]:
    """The imports the layer table does not allow, and any eager import of evaluation by the entry point."""
    wrong = []
    for edge in imports:
        mine, theirs = layer_of(edge.importer), layer_of(edge.imported)
        if mine != theirs and theirs not in ALLOWED[mine]:
            wrong.append(edge)
        elif mine == "entry" and theirs == "evaluation" and not edge.lazy:
            wrong.append(edge)  # `agentls serve` must not load the evaluation code
    return wrong


def summary(modules: list[str], imports: list[Import]) -> str:
    lazy = sum(edge.lazy for edge in imports)
    type_only = sum(edge.type_only for edge in imports)
    return (f"{len(modules)} modules, {len(imports)} imports ({lazy} lazy, {type_only} type-only), "
            f"{len(cycles(modules, imports))} cycles, {len(upward(imports))} upward imports")


def describe(modules: list[str], imports: list[Import]) -> str:
    lines = [summary(modules, imports)]
    for cycle in cycles(modules, imports):
        lines.append("cycle: " + " ; ".join(edge.where() for edge in cycle))
    for edge in upward(imports):
        lines.append(f"upward: {edge.where()}  [{layer_of(edge.importer)} → {layer_of(edge.imported)}]")
    return "\n".join(lines)


# --- the product ---------------------------------------------------------------------------------

product = functools.cache(import_graph)  # parsed once for the tests below

def test_every_module_has_a_layer_and_the_graph_is_whole():
    modules, imports = product()
    assert {layer_of(module) for module in modules} >= {"context", "model", "agent", "lsp", "evaluation"}
    edges = {(edge.importer, edge.imported) for edge in imports}
    # a few imports everyone knows are there: relative, lazy, `from . import module`
    assert ("agentls.agent.loop", "agentls.context.pipeline") in edges
    assert ("agentls.cli", "agentls.evaluation.replay") in edges
    assert ("agentls.agent.tools.editor", "agentls.agent.tools.editor.diagnostics") in edges


def test_no_import_cycles():
    modules, imports = product()
    found = cycles(modules, imports)
    assert not found, describe(modules, imports)


def test_layers_import_only_what_the_table_allows():
    modules, imports = product()
    print("\n" + describe(modules, imports))
    assert not upward(imports), describe(modules, imports)


def test_the_product_never_imports_evaluation_and_the_entry_point_only_lazily():
    _, imports = product()
    users = {edge.importer for edge in imports if layer_of(edge.imported) == "evaluation"
             and layer_of(edge.importer) != "evaluation"}
    assert users <= set(ENTRY), users
    assert all(edge.lazy for edge in imports if edge.importer in ENTRY and layer_of(edge.imported) == "evaluation")


def test_the_table_itself_keeps_the_core_below_the_front_ends():
    front_ends = ("lsp", "acp", "terminal")
    for layer in CORE + ("mock_api", "credentials", "package"):
        assert not set(ALLOWED[layer]) & {*front_ends, "evaluation", "entry"}, layer
    assert "acp" not in ALLOWED["lsp"] and "lsp" not in ALLOWED["acp"]
    assert all("evaluation" not in allowed for layer, allowed in ALLOWED.items() if layer != "entry")


def test_the_model_package_names_in_all_exactly_what_it_loads_lazily():
    # agentls.model loads its names on first use (_EXPORTS); __all__ is spelled out as a literal so that
    # linters see the TYPE_CHECKING imports as re-exports, and the three lists must not drift apart.
    import agentls.model as model

    assert model.__all__ == sorted(model._EXPORTS)
    tree = ast.parse((SOURCE / PACKAGE / "model" / "__init__.py").read_text())
    type_only = {alias.name: "." + (node.module or "") for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.level == 1 for alias in node.names}
    assert type_only == model._EXPORTS


# --- the checker itself, on a small package with known faults --------------------------------------

def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_the_checker_finds_lazy_and_type_only_cycles_and_upward_imports(tmp_path):
    source = write(tmp_path, {
        "agentls/__init__.py": "",
        "agentls/context/__init__.py": "",
        "agentls/context/a.py": "def f():\n    from ..agent import b\n",  # upward, and lazy
        "agentls/agent/__init__.py": "from . import b\n",
        "agentls/agent/b.py": "from ..context.a import f\n",
        "agentls/agent/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .d import D\n",
        "agentls/agent/d.py": "import agentls.agent.c\n",
        "agentls/lsp/__init__.py": "from agentls.evaluation import x\n",  # the product using evaluation
        "agentls/evaluation/__init__.py": "",
        "agentls/evaluation/x.py": "",
        "agentls/cli.py": "from .evaluation import x\n",  # the entry point, but eagerly
    })
    modules, imports = import_graph(source, "agentls")
    assert "agentls.agent.d" in modules and "agentls" in modules
    found = [[(edge.importer, edge.imported) for edge in cycle] for cycle in cycles(modules, imports)]
    assert sorted(found) == [[("agentls.agent.b", "agentls.context.a"), ("agentls.context.a", "agentls.agent.b")],
                             [("agentls.agent.c", "agentls.agent.d"), ("agentls.agent.d", "agentls.agent.c")]]
    assert {(edge.importer, edge.imported) for edge in upward(imports)} == {
        ("agentls.context.a", "agentls.agent.b"), ("agentls.lsp", "agentls.evaluation.x"),
        ("agentls.cli", "agentls.evaluation.x")}
    assert [(edge.importer, edge.imported) for edge in imports if edge.type_only] == [
        ("agentls.agent.c", "agentls.agent.d")]
    assert [(edge.importer, edge.imported) for edge in imports if edge.lazy] == [
        ("agentls.context.a", "agentls.agent.b")]
    assert summary(modules, imports).endswith("2 cycles, 3 upward imports")


if __name__ == "__main__":
    print(describe(*import_graph()))
    width = max(map(len, ALLOWED))
    for layer, allowed in ALLOWED.items():
        print(f"{layer:<{width}}  {', '.join(allowed) or '(nothing)'}")
    sys.exit(0)
