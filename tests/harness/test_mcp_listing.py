"""The harness's MCP server (`ports.mcp`): paged `tools/list`, recorded and mutated list changes,
`notifications/tools/list_changed`; and hosts written in a style of their own, each with one real
MCP client bug, failing the cases that name it."""

import copy
from dataclasses import replace

import orjson
import pytest

from toolsurface.contract._formats import LOGICAL
from toolsurface.harness._api import RunOptions, prepare
from toolsurface.harness._integrity import check_cases
from toolsurface.harness._mcp import InvalidCursor, McpCatalogue, served
from toolsurface.harness._oracles import UNREACHED
from toolsurface.harness._plan import plan
from toolsurface.harness._ports import Ports
from toolsurface.harness._runner import Runner
from toolsurface.harness._targets import load_target
from toolsurface.harness._types import VerdictKind
from toolsurface.mutators import Kind, Must
from toolsurface.scenarios import (
    Boundary,
    ListChange,
    ListChangeKind,
    ScenarioError,
    bundled_dir,
    load,
    parse,
)

PAGED = "etf-compare-main-mcp-paged"


@pytest.fixture(scope="module")
def scenarios():
    return load()


@pytest.fixture(scope="module")
def paged(scenarios):
    return next(s for s in scenarios if s.id == PAGED)


@pytest.fixture(scope="module")
def paged_cases(paged):
    return plan([paged], seed=0)


def test_the_server_pages_its_list_and_a_client_must_follow_the_cursor(paged):
    server = McpCatalogue(paged)
    pages, cursor = [], None
    while True:
        page = server.list_tools(cursor)
        pages.append([tool.name for tool in page.tools])
        if (cursor := page.next_cursor) is None:
            break
    assert [len(page) for page in pages] == [2, 2, 2, 2]
    # The admitted surface spans three pages: a client that stops at the first loses three tools.
    admitted = [tool.name for tool in paged.surface]
    assert [name for page in pages for name in page] == [tool.name for tool in served(paged.contract)]
    assert [name for name in admitted if name not in pages[0]] == admitted[2:] and len(admitted) == 5
    assert server.list_all() == served(paged.contract)
    with pytest.raises(InvalidCursor, match="invalid cursor 'page-2'"):
        server.list_tools("page-2")


def test_a_recorded_change_is_made_at_its_point_and_announced_once(paged):
    ports = Ports(paged, LOGICAL, None, None)
    heard = []
    ports.mcp.subscribe(lambda: heard.append((ports.points[-1], [tool.name for tool in ports.mcp.list_all()])))
    for point in paged.points:
        ports.inject(point, [], [])
    # One notification, at the evidence boundary, and a listing made then already has the new tool.
    assert heard == [(Boundary("evidence"), [tool.name for tool in served(paged.contract)] + ["market__get_fx_rate"])]
    assert ports.mcp.changes == ["server added 'market__get_fx_rate' and sent notifications/tools/list_changed"]


def test_the_server_refuses_changes_that_cannot_be_made(paged):
    server = McpCatalogue(paged)
    with pytest.raises(ValueError, match="cannot remove 'nope'"):
        server.change(ListChange(ListChangeKind.REMOVE, "nope"))
    with pytest.raises(ValueError, match="cannot add 'market__web_read'"):
        server.change(ListChange(ListChangeKind.ADD, "market__web_read", paged.contract.admitted[3]))


def _document(name: str) -> dict:
    return orjson.loads((bundled_dir() / f"{name}.json").read_bytes())


@pytest.mark.parametrize(
    "edit, path, message",
    [
        (
            lambda mcp: mcp["list_changes"][0].update(point="hook"),
            "$.mcp.list_changes[0].point",
            "'hook' is not a point",
        ),
        (
            lambda mcp: mcp["list_changes"].append(
                {"point": "evidence", "change": "remove", "name": "market__web_read"}
            ),
            "$.mcp.list_changes[1]",
            "'market__web_read' is admitted: a change to the admitted surface makes the request a refusal",
        ),
        (
            lambda mcp: mcp["list_changes"].append({"point": "async_prep", "change": "remove", "name": "crm__lookup"}),
            "$.mcp.list_changes[1]",
            "the server does not list 'crm__lookup'",
        ),
        (lambda mcp: mcp.update(page_size=0), "$.mcp.page_size", "0 is less than the minimum of 1"),
    ],
)
def test_a_recording_that_lists_impossibly_is_one_line_naming_its_path(edit, path, message):
    document = copy.deepcopy(_document(PAGED))
    edit(document["mcp"])
    with pytest.raises(ScenarioError) as error:
        parse(document, source="paged.json")
    assert any(line.startswith(f"paged.json:{path}: ") and message in line for line in error.value.problems), (
        error.value.problems
    )


def test_list_changes_are_planned_only_where_a_server_is_recorded(scenarios, paged_cases):
    others = plan([s for s in scenarios if s.mcp is None], seed=0)
    assert not [case for case in others if case.mutation.kind is Kind.MCP]
    mcp = {case.mutation.variant: case.mutation.must for case in paged_cases if case.mutation.kind is Kind.MCP}
    assert mcp == {
        "tool_added": Must.DISPATCH,
        "tool_removed": Must.REFUSE,
        "description_changed": Must.REFUSE,
        "schema_changed": Must.REFUSE,
    }
    # Each says what it does to the server: the case is never taken for an equivalent one.
    assert all(case.change and not case.equivalent for case in paged_cases if case.mutation.kind is Kind.MCP)


def _records(paged, paged_cases, host: str):
    return list(Runner([paged], load_target(f"tests.fixtures.mcp_hosts:{host}")).run(paged_cases))


def test_a_host_that_lists_every_page_and_refuses_a_changed_list_passes(paged, paged_cases):
    records = _records(paged, paged_cases, "listing")
    assert [(r.case.id, r.verdict.reason) for r in records if not r.verdict.kind.ok] == []


def test_a_host_that_reads_only_the_first_page_loses_page_two(paged, paged_cases):
    failed = [r for r in _records(paged, paged_cases, "first_page") if not r.verdict.kind.ok]
    control = next(r for r in failed if r.case.mutation.mutator == "mcp.tool_added")
    assert control.verdict.kind is VerdictKind.SURVIVED
    assert "removed 'market__web_search' (was at 2)" in control.verdict.reason
    assert "removed 'portfolio__get_holdings' (was at 4)" in control.evidence.diff  # the reason names the first few


@pytest.mark.parametrize(
    "host, sent",
    [
        # Takes the server's change into the request in flight: the redefined tool goes out.
        ("adopting", lambda diff: any("description of" in line and "changed" in line for line in diff)),
        # Never hears of it: the tool the server withdrew goes out as admitted.
        ("deaf", lambda diff: diff == ()),
    ],
)
def test_a_host_that_takes_or_ignores_a_changed_list_sends_the_request(paged, paged_cases, host, sent):
    records = _records(paged, paged_cases, host)
    failed = {r.case.mutation.variant for r in records if not r.verdict.kind.ok and r.case.mutation.kind is Kind.MCP}
    assert failed == {"tool_removed", "description_changed", "schema_changed"}
    described = next(
        r for r in records if r.case.mutation.variant == "description_changed" and r.case.point == "evidence"
    )
    assert described.verdict.kind is VerdictKind.SURVIVED and described.evidence.dispatches == 1
    assert sent(described.evidence.diff), described.evidence.diff


def test_a_target_that_never_lists_from_the_server_is_out_of_reach_of_its_changes():
    session = prepare(
        RunOptions(target="tests.fixtures.user_targets:Adapter", red_target="none", select=[f"{PAGED}/*/mcp.*"])
    )
    run, records = session.info, tuple(session.records())
    assert {(r.verdict, r.evidence.listed) for r in records} == {(UNREACHED, 0)} and len(records) == 24
    assert check_cases(run, records) is None
    # The record is held to it: an UNREACHED verdict beside a listing the target did read is a lie.
    edited = (replace(records[0], evidence=replace(records[0].evidence, listed=4)), *records[1:])
    problem = check_cases(run, edited)
    assert problem is not None and problem.where == "$.cases[0].verdict.kind"
    assert "the target read 4 page(s) of the MCP server's tools/list" in problem.what
