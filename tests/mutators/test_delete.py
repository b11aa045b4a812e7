"""Delete mutators: first, middle, last."""

import random

import pytest

from toolsurface.contract._formats import MCP
from toolsurface.mutators import Delivery, Edit, MutationNotApplicable, Tool, by_key
from toolsurface.mutators._fixtures import (
    HOLDINGS,
    PROFILE,
    SEARCH,
    WEB_READ,
    WEB_SEARCH,
)
from toolsurface.mutators._testing import descriptor, live_tools, minimal_scenario

FIVE = [descriptor(tool) for tool in (SEARCH, PROFILE, WEB_SEARCH, WEB_READ, HOLDINGS)]


@pytest.mark.parametrize(
    ("key", "expected"),
    [("delete.first", SEARCH), ("delete.middle", WEB_SEARCH), ("delete.last", HOLDINGS)],
)
def test_each_variant_aims_at_its_position(key: str, expected: dict) -> None:
    scenario = minimal_scenario(FIVE)
    assert list(by_key(key).aims(scenario, random.Random(0))) == [Tool(expected["name"])]


@pytest.mark.parametrize("key", ["delete.first", "delete.middle", "delete.last"])
def test_nothing_to_delete_on_an_empty_surface(key: str) -> None:
    assert list(by_key(key).aims(minimal_scenario([]), random.Random(0))) == []


def test_deleting_a_tool_already_gone_is_not_applicable() -> None:
    scenario = minimal_scenario(FIVE)
    tools = live_tools(FIVE[:2], MCP)
    with pytest.raises(MutationNotApplicable, match="portfolio__get_holdings"):
        by_key("delete.last").apply(Edit(tools, [], MCP, Delivery.IN_PLACE, Tool("portfolio__get_holdings"), scenario))
    assert len(tools) == 2
