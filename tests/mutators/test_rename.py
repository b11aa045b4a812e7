"""Rename mutators: suffix, case, lookalike, whitespace."""

import random

import pytest

from toolsurface.mutators import Tool, by_key
from toolsurface.mutators._fixtures import SEARCH
from toolsurface.mutators._rename import LOOKALIKES, Case, Lookalike, Suffix, Whitespace
from toolsurface.mutators._testing import descriptor, minimal_scenario
from toolsurface.scenarios import ToolDescriptor


def _tool(name: str) -> ToolDescriptor:
    return ToolDescriptor.of(name, SEARCH["description"], SEARCH["input_schema"])


def test_suffix_and_whitespace() -> None:
    assert Suffix.renamed("market__web_read") == "market__web_read_v2"
    assert Whitespace.renamed("market__web_read") == "market__web_read "


@pytest.mark.parametrize(
    ("name", "renamed"),
    [
        ("market__web_read", "Market__web_read"),
        ("42__Quote", "42__QUote"),
        ("FX__RATES", "fX__RATES"),
        ("1_2.3", "1_2.3"),
    ],
)
def test_case_flips_one_letter(name: str, renamed: str) -> None:
    assert Case.renamed(name) == renamed


def test_lookalike_swaps_exactly_one_letter_for_its_cyrillic_twin() -> None:
    renamed = Lookalike.renamed("fx__get_rates")
    # `f` has no twin; the `x` is the first letter that does.
    assert renamed == "f\u0445__get_rates"
    assert [c for c in renamed if not c.isascii()] == [LOOKALIKES["x"]]
    assert Lookalike.renamed("fund__list") == "fund__list"


@pytest.mark.parametrize(("key", "unrenamable"), [("rename.case", "1_2.3"), ("rename.lookalike", "fund__list")])
def test_only_tools_the_variant_can_change_are_aims(key: str, unrenamable: str) -> None:
    scenario = minimal_scenario([_tool(unrenamable), _tool("market__web_read")])
    aims = {aim for seed in range(50) for aim in by_key(key).aims(scenario, random.Random(seed))}
    assert aims == {Tool("market__web_read")}
    assert list(by_key(key).aims(minimal_scenario([_tool(unrenamable)]), random.Random(0))) == []


def test_the_rng_picks_among_all_admitted_tools_but_never_a_control() -> None:
    control = descriptor({**SEARCH, "name": "read_tool_result"})
    scenario = minimal_scenario(
        [_tool("a_tool"), _tool("b_tool")], controls=[control], eligible_controls=["read_tool_result"]
    )
    aims = {aim for seed in range(50) for aim in by_key("rename.suffix").aims(scenario, random.Random(seed))}
    assert aims == {Tool("a_tool"), Tool("b_tool")}
