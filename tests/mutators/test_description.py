"""Description mutators: append, truncate, whitespace."""

import random

from hypothesis import given
from hypothesis import strategies as st

from toolsurface.mutators import Tool, by_key
from toolsurface.mutators._description import INJECTION, Append, Truncate, Whitespace
from toolsurface.mutators._fixtures import SEARCH, WEB_READ
from toolsurface.mutators._testing import descriptor, minimal_scenario
from toolsurface.scenarios import ToolDescriptor

descriptions = st.text(min_size=1, max_size=120)


@given(descriptions)
def test_append_keeps_the_text_and_adds_the_injection(description: str) -> None:
    assert Append.reworded(description) == f"{description} {INJECTION}"


@given(descriptions)
def test_truncate_keeps_a_shorter_prefix_of_about_half(description: str) -> None:
    cut = Truncate.reworded(description)
    assert description.startswith(cut)
    assert len(cut) <= len(description) // 2 < len(description)


@given(descriptions)
def test_whitespace_changes_nothing_but_whitespace(description: str) -> None:
    changed = Whitespace.reworded(description)
    assert changed != description
    assert changed.split() == description.split()


def test_truncate_strips_the_space_it_cuts_at() -> None:
    assert Truncate.reworded("Read one page now") == "Read one"


def test_aims_are_admitted_tools_only() -> None:
    control = descriptor({**WEB_READ, "name": "read_tool_result"})
    scenario = minimal_scenario([descriptor(SEARCH)], controls=[control], eligible_controls=[control.name])
    for key in ("description.append", "description.truncate", "description.whitespace"):
        aims = {aim for seed in range(20) for aim in by_key(key).aims(scenario, random.Random(seed))}
        assert aims == {Tool(SEARCH["name"])}


def test_an_empty_description_cannot_be_truncated() -> None:
    # Scenario files require descriptions, but a live host may still hand over an empty one.
    scenario = minimal_scenario([ToolDescriptor.of("fx__rates", "", {"type": "object"})])
    assert list(by_key("description.truncate").aims(scenario, random.Random(0))) == []
    assert list(by_key("description.append").aims(scenario, random.Random(0))) == [Tool("fx__rates")]
