"""The Hypothesis strategies: realistic, valid, and able to reach the interesting cases."""

import dataclasses
import re

import jsonschema
import pytest
from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st

from toolsurface import scenarios
from toolsurface.mutators import by_key
from toolsurface.mutators._fixtures import CONVERSATION, HOLDINGS, PROFILE, SEARCH
from toolsurface.mutators._pointer import schema_nodes
from toolsurface.mutators._strategies import (
    edit_sequences,
    scenarios_for,
    surfaces,
    tool_descriptors,
)
from toolsurface.mutators._testing import descriptor, minimal_scenario
from toolsurface.scenarios import Scenario, ToolDescriptor

NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
quick = settings(max_examples=30, deadline=None)
#: For "can the strategy reach X": the first hit is enough, shrinking it only costs time.
reach = settings(max_examples=2000, database=None, phases=[Phase.generate])


def _document(scenario: Scenario) -> dict:
    """The scenario as a scenario file would hold it."""
    contract = scenario.contract
    return {
        "format": "toolsurface.scenario/1",
        "id": scenario.id,
        "description": scenario.description,
        "mode": scenario.mode,
        "lane": scenario.lane.value,
        "identity": {
            "run": scenario.identity.run,
            "scope": scenario.identity.scope,
            "invocation": scenario.identity.invocation,
            "connection": scenario.identity.connection,
            "request": scenario.identity.request,
        },
        "tool_format": scenario.tool_format,
        "contract": {
            "admitted": [tool.as_logical() for tool in contract.admitted],
            "controls": [tool.as_logical() for tool in contract.controls],
            "eligible_controls": sorted(contract.eligible_controls),
            "admitted_elsewhere": [tool.as_logical() for tool in contract.admitted_elsewhere],
            **(
                {"web_tools": {"search": contract.web_tools.search, "read": contract.web_tools.read}}
                if contract.web_tools
                else {}
            ),
            "facts": [
                {
                    "fact": fact.kind.value,
                    "owner": fact.owner,
                    "bound_to": dataclasses.asdict(fact.bound_to),
                    **({"source_refs": list(fact.source_refs)} if fact.source_refs else {}),
                }
                for fact in contract.facts
            ],
        },
        "messages": [message.as_dict() for message in scenario.messages],
        "hooks": scenario.hooks,
        "stages": [{"stage": stage.kind.value} for stage in scenario.stages],
    }


@given(surfaces())
def test_surfaces_are_valid_admitted_surfaces(surface: tuple[ToolDescriptor, ...]) -> None:
    assert 1 <= len(surface) <= 8
    assert len({tool.name for tool in surface}) == len(surface)
    for tool in surface:
        assert NAME.fullmatch(tool.name)
        assert tool.description
        assert tool.input_schema["type"] == "object"
        jsonschema.Draft202012Validator.check_schema(tool.input_schema)


@given(surfaces(min_size=0, max_size=2))
def test_surface_sizes_follow_the_arguments(surface: tuple[ToolDescriptor, ...]) -> None:
    assert len(surface) <= 2


@given(surfaces().flatmap(scenarios_for))
def test_generated_scenarios_load_like_scenario_files(scenario: Scenario) -> None:
    assert scenarios.parse(_document(scenario)) == scenario


@pytest.mark.parametrize(
    "wanted",
    [
        lambda schema: "$defs" in schema,
        lambda schema: any("enum" in node for _, node in schema_nodes(schema)),
        lambda schema: any(at.count("/properties/") >= 2 for at, _ in schema_nodes(schema)),
        lambda schema: any(node.get("type") == "array" for _, node in schema_nodes(schema)),
    ],
    ids=["defs", "enum", "nested-object", "array"],
)
def test_schemas_reach_every_shape_the_schema_mutators_edit(wanted) -> None:
    find(tool_descriptors(), lambda tool: wanted(tool.input_schema), settings=reach)


def test_scenarios_reach_controls_in_both_states_and_tools_admitted_elsewhere() -> None:
    generated = surfaces(max_size=1).flatmap(scenarios_for)
    find(generated, lambda s: len(s.contract.surface) > len(s.contract.admitted), settings=reach)
    find(generated, lambda s: s.contract.ineligible_controls, settings=reach)
    find(generated, lambda s: s.contract.admitted_elsewhere, settings=reach)


def test_scenarios_reach_trusted_and_ignored_facts_about_their_web_tools() -> None:
    generated = surfaces(min_size=2, max_size=2).flatmap(scenarios_for)
    find(generated, lambda s: len(s.surface) < len(s.contract.surface), settings=reach)
    find(generated, lambda s: s.contract.facts and len(s.surface) == len(s.contract.surface), settings=reach)
    find(generated, lambda s: len(s.contract.surface) - len(s.surface) == 1, settings=reach)  # read kept


@quick
@given(st.data())
def test_edit_sequences_respect_their_bounds(data: st.DataObject) -> None:
    scenario = data.draw(surfaces(min_size=2).flatmap(scenarios_for))
    steps = data.draw(edit_sequences(scenario, min_size=2, max_size=3))
    assert 2 <= len(steps) <= 3


@quick
@given(st.data())
def test_edit_sequences_draw_only_from_the_given_mutators(data: st.DataObject) -> None:
    scenario = data.draw(surfaces().flatmap(scenarios_for))
    pool = [by_key("rename.suffix"), by_key("reorder.reverse")]
    steps = data.draw(edit_sequences(scenario, max_size=4, mutators=pool))
    assert {step.mutator for step in steps} <= {"rename.suffix", "reorder.reverse"}


def test_edit_sequences_compose_different_kinds_and_deliveries() -> None:
    scenario = minimal_scenario(map(descriptor, (SEARCH, PROFILE, HOLDINGS)), messages=CONVERSATION)
    find(
        edit_sequences(scenario, min_size=3, max_size=3),
        lambda steps: len({step.kind for step in steps}) == 3 and len({step.delivery for step in steps}) == 2,
        settings=reach,
    )


def test_edit_sequences_check_their_bounds() -> None:
    with pytest.raises(ValueError, match="min_size=3"):
        find(edit_sequences(minimal_scenario([]), min_size=3, max_size=1), lambda s: True)


@quick
@given(st.data())
def test_a_mutated_request_in_a_format_without_a_wire_field_is_never_drawn_for_it(data) -> None:
    from toolsurface.contract._formats import MCP
    from toolsurface.mutators import WireField
    from toolsurface.mutators._strategies import mutated_requests

    scenario = data.draw(surfaces().flatmap(scenarios_for))
    drawn = data.draw(mutated_requests(scenario, "mcp"))  # strict flips cannot reach MCP tools: rejected, never raised
    assert not isinstance(drawn.mutation.aim, WireField) or MCP.carries(drawn.mutation.aim.field)
