"""Limits at their edges, end to end through the installed command: hosts that leave a kind of tool
out of their capacity count (written from the docs alone, `tests/fixtures/unnamed_hosts*.py`) pass
every recorded request, and fail the derived one whose measure is one over the limit, the reason
naming the limit; a correct host passes every edge."""

import pytest

from tests.test_cli import results, toolsurface

#: The unchanged request on every derived scenario: one case per edge.
UNCHANGED = "*@*/*/legit.replace:unchanged:request"


def ran(target, tmp_path):
    out = tmp_path / "out"
    done = toolsurface("run", "--target", target, "--red-target", "none", "--jobs", "2", "--select", UNCHANGED,
                       "--out", str(out))  # fmt: skip
    return done, results(out)


@pytest.mark.parametrize(
    ("target", "left_out", "tools"),
    [
        # The 128-tool MCP recording holds one control: at max_tools 127 a count without it is 127.
        ("tests.fixtures.unnamed_hosts:registry_controls_uncounted", "desk-research-main-mcp-128-tools", 128),
        # The 46-tool recording holds two web tools and no control.
        ("tests.fixtures.unnamed_hosts_more:journal_web_tools_uncounted", "desk-review-main-openai-46-tools", 46),
    ],
)
def test_a_kind_of_tool_left_out_of_the_count_fails_one_over_the_limit(target, left_out, tools, tmp_path):
    done, record = ran(target, tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    bad = {case.case.scenario: case.verdict for case in record.cases if not case.verdict.kind.ok}
    left_out = f"{left_out}@max_tools+1"
    assert left_out in bad and len(bad) > 5
    assert all(scenario.endswith(("max_tools+1", "budget_tokens+1")) for scenario in bad)
    assert all(verdict.kind.value == "survived" for verdict in bad.values())
    assert bad[left_out].reason == (
        f"dispatched {tools} of {tools} required tools instead of an explicit capacity result: "
        f"{tools} tools for max_tools {tools - 1}"
    )


def test_a_correct_host_passes_every_edge(tmp_path):
    done, record = ran("tests.fixtures.unnamed_hosts:registry_correct", tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    endings = [(case.case.scenario.rpartition("@")[2], case.evidence.ending.value) for case in record.cases]
    assert len(endings) > 40 and {"max_tools+1", "budget_tokens+1", "page_size+1"} <= {edge for edge, _ in endings}
    for edge, ending in endings:
        # One over a page size is two pages, which a host that follows `nextCursor` reads whole.
        assert ending == ("capacity" if edge.endswith("+1") and not edge.startswith("page_size") else "dispatched")
