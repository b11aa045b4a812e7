"""Resolving the names modules use across langchain_core, the Agents SDK and MCP: the scan's own
index (CPython's tree summarised per module, then joined by `Program` and `derive`) against
libcst's metadata, `FullyQualifiedNameProvider` through a `FullRepoManager` and
`QualifiedNameProvider` per module, one file after another in the same run. Ratios are printed by
conftest.py at the end of the run.

Each benchmark also records how far it gets on one sample, every name a module imports from the
tree (`extra_info["coverage"]`): how many the index resolves to their definition, and how many
libcst's fully qualified name lands on directly, a module of the tree or a name the module it names
defines. libcst names what the import statement says: a name re-exported by a package's
`__init__.py` lands on the re-export (counted apart), and libcst goes no further; instance fields
and base classes are not in the sample at all.

    python3 -m pytest --dist no tests/benchmarks/bench_names.py
"""

from collections import Counter
from pathlib import Path

import libcst as cst
import pytest
from libcst._metadata_dependent import LazyValue
from libcst.metadata import (
    Assignment,
    FullRepoManager,
    FullyQualifiedNameProvider,
    ImportAssignment,
    MetadataWrapper,
    QualifiedName,
    QualifiedNameProvider,
    ScopeProvider,
)
from libcst.metadata.name_provider import FullyQualifiedNameVisitor

from tests.benchmarks.bench_scan_program import CONFIG
from tests.benchmarks.conftest import FRAMEWORKS
from toolsurface.scan import python_files
from toolsurface.scan._project import Program, derive
from toolsurface.scan._summary import module_name, summarise

GROUP = "resolving names across langchain_core + agents + mcp"
INDEX = "toolsurface index: summarise every module + derive"
FULL_REPO = "libcst FullyQualifiedNameProvider via FullRepoManager"
PER_MODULE = "libcst parse + QualifiedNameProvider per module"
#: A module's imports as libcst names them (local name → qualified names), its own top-level
#: names that are not imports, and the names it imports.
_Tables = tuple[dict[str, set[str]], set[str], set[str]]


@pytest.fixture(scope="module")
def files(framework_tree):
    return [found for found in python_files([framework_tree]) if isinstance(found, Path)]


@pytest.fixture(scope="module")
def sample(files):
    """Every `(module, local name)` bound by a module-level import of a name in the tree, with the
    index's absolute name for it and whether the index resolves it: the one sample both sides are
    counted on."""
    program = _index(files)
    return {
        (module, local): (target, program.resolve(target) is not None)
        for module, summary in program.modules.items()
        for local, target in summary.imports
        if target.split(".", 1)[0] in FRAMEWORKS
    }


def _index(files: list[Path]) -> Program:
    summaries = [summarise(file.read_text("utf-8"), str(file), module_name(str(file)), CONFIG) for file in files]
    program = Program(summaries)
    derive(program, CONFIG)
    return program


def test_index(benchmark, files, sample):
    benchmark.group = GROUP
    benchmark.name = INDEX
    benchmark.extra_info["files"] = len(files)
    benchmark.extra_info["against"] = [FULL_REPO, PER_MODULE]
    program = benchmark.pedantic(_index, args=(files,), rounds=3, iterations=1)
    kinds = Counter(found.kind if (found := program.resolve(target)) else "unresolved" for target, _ in sample.values())
    resolved = len(sample) - kinds["unresolved"]
    benchmark.extra_info["coverage"] = {"imported names": len(sample), "resolved": resolved, **kinds}
    assert resolved


def _full_repo(framework_tree: Path, files: list[Path]) -> tuple[dict[str, _Tables], int]:
    """Every file's fully qualified names, each Name and Attribute read once, and its import tables."""
    paths = [str(file) for file in files]
    manager = FullRepoManager(str(framework_tree), paths, {FullyQualifiedNameProvider})
    modules = manager.cache[FullyQualifiedNameProvider]
    tables, failed = {}, 0
    for path in paths:
        try:
            wrapper = manager.get_metadata_wrapper_for_path(path)
            _walk(wrapper.resolve(FullyQualifiedNameProvider))
            where = modules[path]
            # Keyed by the file's module, as the index keys it: libcst names `pkg/__main__.py` `pkg`.
            tables[module_name(path)] = _tables(wrapper, lambda q, w=where: _fully_qualified(w.name, w.package, q))
        except (cst.ParserSyntaxError, UnicodeDecodeError, RecursionError):
            failed += 1
    return tables, failed


def _per_module(files: list[Path]) -> tuple[dict[str, _Tables], int]:
    """Every file's qualified names within its module (relative imports stay relative)."""
    tables, failed = {}, 0
    for file in files:
        try:
            wrapper = MetadataWrapper(cst.parse_module(file.read_text("utf-8")), unsafe_skip_copy=True)
            _walk(wrapper.resolve(QualifiedNameProvider))
            tables[module_name(str(file))] = _tables(wrapper, lambda q: q.name)
        except (cst.ParserSyntaxError, UnicodeDecodeError, RecursionError):
            failed += 1
    return tables, failed


def _walk(names) -> int:
    """What a rule asking libcst for names would read: every Name's and Attribute's, once.
    `QualifiedNameProvider` computes each on first read (a `LazyValue`), so it is read here."""
    return sum(
        len(qualified() if isinstance(qualified, LazyValue) else qualified)
        for node, qualified in names.items()
        if isinstance(node, cst.Name | cst.Attribute)
    )


def _fully_qualified(module: str, package: str, name: QualifiedName) -> str:
    """libcst's own rule for a fully qualified name (what the provider sets on each access), applied
    to an import binding, which has no access when the module only re-exports it."""
    try:
        return FullyQualifiedNameVisitor._fully_qualify(module, package, name).name
    except ImportError:  # a relative import above the top-level package
        return name.name


def _tables(wrapper: MetadataWrapper, qualify) -> _Tables:
    scope = wrapper.resolve(ScopeProvider)[wrapper.module]
    assert scope is not None
    imports: dict[str, set[str]] = {}
    defined: set[str] = set()
    for assignment in scope.assignments:
        if isinstance(assignment, ImportAssignment):
            imports[assignment.name] = {qualify(name) for name in scope.get_qualified_names_for(assignment.name)}
        elif isinstance(assignment, Assignment):
            defined.add(assignment.name)
    return imports, defined, set(imports)


def _coverage(sample: dict[tuple[str, str], tuple[str, bool]], tables: dict[str, _Tables]) -> dict[str, int]:
    """Where libcst's name for each sampled import lands: a definition (a module of the tree, or a
    name its module defines), a re-export (a name its module imports), or nowhere in the tree; and
    of each, how many the index resolves."""
    landed = Counter[str]()
    for (module, local), (_, indexed) in sample.items():
        names = tables[module][0].get(local, set()) if module in tables else set()
        where = max((_lands(name, tables) for name in names), default="unresolved", key=_RANK.index)
        landed[where] += 1
        landed[f"{where}, the index resolves it"] += indexed
    return {"imported names": len(sample), **landed}


_RANK = ["unresolved", "re-export", "definition"]


def _lands(name: str, tables: dict[str, _Tables]) -> str:
    if name in tables:
        return "definition"
    module, _, last = name.rpartition(".")
    if module not in tables:
        return "unresolved"
    _, defined, imported = tables[module]
    return "definition" if last in defined else "re-export" if last in imported else "unresolved"


def test_full_repo_manager(benchmark, framework_tree, files, sample):
    benchmark.group = GROUP
    benchmark.name = FULL_REPO
    benchmark.extra_info["files"] = len(files)
    benchmark.extra_info["against"] = [INDEX, PER_MODULE]
    tables, failed = benchmark.pedantic(_full_repo, args=(framework_tree, files), rounds=2, iterations=1)
    benchmark.extra_info["failed"] = failed
    benchmark.extra_info["coverage"] = _coverage(sample, tables)
    assert benchmark.extra_info["coverage"].get("definition")


def test_per_module(benchmark, files, sample):
    benchmark.group = GROUP
    benchmark.name = PER_MODULE
    benchmark.extra_info["files"] = len(files)
    benchmark.extra_info["against"] = [INDEX, FULL_REPO]
    tables, failed = benchmark.pedantic(_per_module, args=(files,), rounds=2, iterations=1)
    benchmark.extra_info["failed"] = failed
    benchmark.extra_info["coverage"] = _coverage(sample, tables)
