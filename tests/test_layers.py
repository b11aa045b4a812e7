"""The packages' layers: each imports only from the layers below it, and the guard a host installs
loads the contract alone.

Bottom to top: the contract (surfaces, refusals, settlement, owner facts, the guard core); what
every layer shares (`common`) and the framework guards; the recordings (`scenarios`); the
mutators and the static analyser (`scan`); the engine (`harness`); the reports; the command line.
The root package's public names and the examples sit on top.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

import toolsurface

ROOT = Path(toolsurface.__file__).resolve().parent

#: Bottom first. A package may import its own modules and any package of a lower layer, never one
#: of its own layer or above.
LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"contract"}),
    frozenset({"common", "guard"}),
    frozenset({"scenarios"}),
    frozenset({"mutators", "scan"}),
    frozenset({"harness"}),
    frozenset({"reports"}),
    frozenset({"cli"}),
    frozenset({""}),
    frozenset({"examples"}),
)
LAYER_OF = {package: level for level, packages in enumerate(LAYERS) for package in packages}

#: Everything `import toolsurface.guard` may load: the contract and the guard's own package.
GUARD_MODULES = [
    "toolsurface",
    "toolsurface.contract",
    "toolsurface.contract._canonical",
    "toolsurface.contract._diff",
    "toolsurface.contract._facts",
    "toolsurface.contract._formats",
    "toolsurface.contract._guard",
    "toolsurface.contract._json",
    "toolsurface.contract._lossy",
    "toolsurface.contract._owner",
    "toolsurface.contract._refusals",
    "toolsurface.guard",
]
#: What a host's process must not pay for when it installs the guard.
TEST_ENGINE_LIBRARIES = ("jsonschema", "hypothesis", "libcst", "rich", "typer")


def modules(root: Path) -> dict[str, Path]:
    """Every module of the package in `root`, by its dotted name."""
    found = {}
    for path in root.rglob("*.py"):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[0] in ("tests", "build") or "__pycache__" in parts:
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(("toolsurface", *parts))] = path
    return found


def imports(name: str, path: Path, known: Iterable[str]) -> Iterator[tuple[int, str]]:
    """(line, imported module) for every import of toolsurface in the module: absolute and relative,
    at the top, under `if TYPE_CHECKING` or inside a function. `from package import name` imports
    the submodule `name` where there is one, else the package."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names if alias.name.split(".")[0] == "toolsurface")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            if target.split(".")[0] == "toolsurface":
                for alias in node.names:
                    submodule = f"{target}.{alias.name}"
                    yield node.lineno, submodule if submodule in known else target


def package_of(module: str) -> str:
    """The top-level package a module belongs to: `harness` for `toolsurface.harness._api`, "" for the root."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYER_OF else ""


def arrows(root: Path) -> dict[tuple[str, str], list[str]]:
    """Package → package arrows, each with where it is drawn (`module:line`)."""
    known = modules(root)
    found: dict[tuple[str, str], list[str]] = {}
    for name, path in known.items():
        for line, target in imports(name, path, known):
            if target not in known:
                continue  # a name imported from a module, not a module
            source, destination = package_of(name), package_of(target)
            if source != destination:
                found.setdefault((source, destination), []).append(f"{name}:{line}")
    return found


def cycles(edges: set[tuple[str, str]]) -> list[list[str]]:
    """The strongly connected groups of more than one package (Tarjan)."""
    graph: dict[str, set[str]] = {}
    for source, destination in edges:
        graph.setdefault(source, set()).add(destination)
        graph.setdefault(destination, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while (member := stack.pop()) != node:
                group.append(member)
            group.append(node)
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def upward(found: dict[tuple[str, str], list[str]]) -> list[str]:
    """Each arrow to a package of the same layer or above, with where it is drawn."""
    return [
        f"{source or 'toolsurface'} → {destination or 'toolsurface'}: {', '.join(where[:3])}"
        for (source, destination), where in sorted(found.items())
        if LAYER_OF[destination] >= LAYER_OF[source]
    ]


def test_no_cycle_between_packages() -> None:
    assert cycles(set(arrows(ROOT))) == []


def test_every_package_imports_only_from_the_layers_below() -> None:
    assert upward(arrows(ROOT)) == []


def test_every_top_level_package_has_a_layer() -> None:
    packages = {path.parent.name for path in ROOT.glob("*/__init__.py")}
    assert packages - LAYER_OF.keys() == set()


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text))
    return tmp_path


def test_the_walk_sees_relative_function_local_and_type_checking_imports(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "__init__.py": "",
            "contract/__init__.py": "",
            "contract/_guard.py": "def late():\n    from ..harness import _api\n",
            "common/__init__.py": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from toolsurface.cli import _app\n"
            ),
            "harness/__init__.py": "",
            "harness/_api.py": "from ..contract import _guard\n",
            "cli/__init__.py": "",
            "cli/_app.py": "import toolsurface.harness._api\n",
        },
    )
    found = arrows(root)
    assert set(found) == {("contract", "harness"), ("common", "cli"), ("harness", "contract"), ("cli", "harness")}
    assert cycles(set(found)) == [["contract", "harness"]]
    assert [line.split(":")[0] for line in upward(found)] == ["common → cli", "contract → harness"]


def _loaded_by(statement: str) -> list[str]:
    code = f"import sys\n{statement}\nprint('\\n'.join(sorted(sys.modules)))"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()


def test_the_guard_loads_the_contract_alone() -> None:
    loaded = _loaded_by("import toolsurface.guard")
    assert [name for name in loaded if name.split(".")[0] == "toolsurface"] == GUARD_MODULES
    assert [name for name in TEST_ENGINE_LIBRARIES if name in loaded] == []


@pytest.mark.parametrize("integration", ["langchain", "pydantic_ai", "openai_agents"])
def test_a_framework_guard_loads_no_test_engine(integration: str) -> None:
    pytest.importorskip(
        {"pydantic_ai": "pydantic_ai", "langchain": "langchain", "openai_agents": "agents"}[integration]
    )
    loaded = _loaded_by(f"import toolsurface.guard.{integration}")
    assert {name.split(".")[1] for name in loaded if name.startswith("toolsurface.")} == {"contract", "guard"}
