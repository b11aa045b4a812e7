"""The public API is small, loads lazily, and each name is what it says; the registries behind the engine are
complete."""

import ast
import importlib
import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

import toolsurface
from toolsurface.contract import GuardedRequest, SurfaceGuard
from toolsurface.harness._reference import DEFECTS, REFERENCE_TARGETS, GuardedPipeline
from toolsurface.harness._reference._defects import FLAWS
from toolsurface.harness._reference._framework import FrameworkPipeline
from toolsurface.harness._reference._legacy import LegacyPipeline

#: The promise: what hosts, guards and property tests may import from `toolsurface`.
PUBLIC = {
    "Target",
    "Ports",
    "Gateway",
    "Dispatch",
    "Ledger",
    "Reservation",
    "Settlement",
    "LedgerRefused",
    "OwnerFacts",
    "Publications",
    "ToolFormat",
    "FORMATS",
    "Snapshot",
    "capture",
    "snapshot_of",
    "RequestRefused",
    "SurfaceRefused",
    "SummaryRefused",
    "CapacityExceeded",
    "Scenario",
    "ToolDescriptor",
    "Message",
    "Contract",
    "Lane",
    "OwnerFact",
    "hidden_by",
    "Binding",
    "WebTools",
    "Must",
    "MutatedRequest",
    "tool_descriptors",
    "surfaces",
    "scenarios_for",
    "owner_facts",
    "edit_sequences",
    "mutated_requests",
    "McpCatalogue",
    "ToolsPage",
    "Stage",
    "StageKind",
    "Point",
    "RequestOutcome",
    "compress",
    "FactKind",
    "Ruling",
    "rulings",
}


def test_the_public_api_is_exactly_the_promised_names():
    assert set(toolsurface.__all__) == PUBLIC
    assert all(getattr(toolsurface, name) is not None for name in PUBLIC)


def test_type_checkers_see_the_same_names_from_the_same_homes():
    tree = ast.parse(Path(toolsurface.__file__).read_text())
    checking = next(node for node in tree.body if isinstance(node, ast.If))
    seen = {alias.name: node.module.lstrip(".") for node in checking.body for alias in node.names}
    assert seen == toolsurface._HOMES


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="has no attribute 'Runner'"):
        _ = toolsurface.Runner


def test_importing_the_package_loads_nothing_else():
    code = (
        "import sys, toolsurface; print(sorted(m for m in sys.modules if m.startswith(('toolsurface.', "
        "'hypothesis', 'libcst', 'jsonschema'))))"
    )
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "[]\n"


def test_every_flaw_is_a_registered_target():
    shipped = (GuardedPipeline, GuardedRequest, SurfaceGuard)
    flaws = {
        cls
        for name in ("_defects", "_contract_defects", "_size_defects", "_step_defects", "_mcp_defects")
        for cls in vars(importlib.import_module(f"toolsurface.harness._reference.{name}")).values()
        if inspect.isclass(cls) and issubclass(cls, shipped) and cls not in shipped
    }
    assert flaws == set(FLAWS)
    assert {target.name for target in DEFECTS.values()} == {flaw.name for flaw in FLAWS}
    assert set(REFERENCE_TARGETS.values()) == {GuardedPipeline, FrameworkPipeline, LegacyPipeline, *DEFECTS.values()}


def test_the_example_host_imports_nothing_of_toolsurface_but_the_public_api():
    # It is the template a host author copies into a project: what it needs, the public API (and
    # the public guard, `toolsurface.guard`) must offer.
    import toolsurface.guard

    folder = Path(toolsurface.__file__).parent / "examples" / "mcp_host"
    public, internal = set(), []
    for path in sorted(folder.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == "toolsurface":
                public |= {alias.name for alias in node.names}
                continue
            if isinstance(node, ast.ImportFrom) and node.module == "toolsurface.guard":
                assert {alias.name for alias in node.names} <= set(toolsurface.guard.__all__)
                continue
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                modules = [node.module or ""]
            else:
                continue
            internal += [
                f"{path.name}:{node.lineno}: {ast.unparse(node)}" for m in modules if m.startswith("toolsurface.")
            ]
    assert internal == []
    assert public and public <= PUBLIC, public - PUBLIC


def test_the_api_table_in_docs_lists_every_public_name_and_the_wire_accessors():
    from tests.fixtures.docs import section

    table = section("docs/targets.md", "## The public API")
    listed = set(re.findall(r"`(\w+)", table))
    assert set(toolsurface.__all__) <= listed, set(toolsurface.__all__) - listed
    assert {"ToolFormat.get_wire", "ToolDescriptor.wire"} <= set(re.findall(r"`(\w+\.\w+)", table))


def test_a_host_builds_an_owner_fact_and_reads_its_ruling_from_public_names_alone():
    binding = toolsurface.Binding("run_1", "scope", "inv_1", "conn_1")
    web = toolsurface.WebTools("web_search", "web_read")
    budget = toolsurface.OwnerFact(
        toolsurface.FactKind.SEARCH_BUDGET_EXHAUSTED, "web_gateway", binding, source_refs=("src_1",)
    )
    forged = toolsurface.OwnerFact(toolsurface.FactKind.RUN_DEADLINE_EXHAUSTED, "web_gateway", binding)
    trusted, ignored = toolsurface.rulings([budget, forged], binding, web)
    assert isinstance(trusted, toolsurface.Ruling) and trusted.trusted and trusted.hides == ("web_search",)
    assert not ignored.trusted and ignored.ignored_because == "produced by web_gateway, not by host"
    assert toolsurface.hidden_by([budget, forged], binding, web) == {"web_search"}
