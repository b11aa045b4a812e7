"""A target's optional members: declared once (`TargetTraits`), read and checked once, when it is loaded."""

import dataclasses

import pytest

from tests.fixtures.user_targets import Adapter, HostRefused
from toolsurface.common._errors import TargetError
from toolsurface.contract._refusals import CapacityExceeded, RequestRefused
from toolsurface.harness._observe import tool_format
from toolsurface.harness._targets import load_target, load_with_traits
from toolsurface.harness._traits import TargetTraits, TraitError, loaded, traits_of
from toolsurface.scenarios import load


class Bare:
    """A target that declares nothing but `run`."""

    def run(self, scenario, ports):
        return None


def test_a_target_that_declares_nothing_gets_every_default():
    assert traits_of(Bare()) == TargetTraits()
    assert TargetTraits().refusals == (RequestRefused,)
    assert TargetTraits().capacity_results == (CapacityExceeded,)


def test_every_member_is_read_by_its_declared_name():
    class Full(Bare):
        tool_format = "openai"
        # Lists, as a user may write them: both are read as the declared types.
        wire_fields = ["strict"]  # noqa: RUF012
        refusals = (HostRefused,)
        capacity_results = [CapacityExceeded]  # noqa: RUF012
        own_boundaries = 1

        def estimate_tokens(self, value):
            return 7

        def checkpoints(self, scenario):
            return ((1, "hook"),)

        def framework_form(self, tools):
            return tools[::-1]

        framework_remedy = "give the tools in the provider's form"

    target = Full()
    traits = traits_of(target)
    assert {field.name for field in dataclasses.fields(TargetTraits)} == {
        "tool_format", "wire_fields", "refusals", "capacity_results", "estimate_tokens", "own_boundaries",
        "checkpoints", "framework_form", "framework_remedy",
    }  # fmt: skip
    assert traits.tool_format == "openai" and traits.wire_fields == frozenset({"strict"})
    assert traits.refusals == (HostRefused,) and traits.capacity_results == (CapacityExceeded,)
    assert traits.own_boundaries is True
    assert traits.estimate_tokens is not None and traits.estimate_tokens({}) == 7
    assert traits.checkpoints is not None and traits.checkpoints(None) == ((1, "hook"),)
    assert traits.framework_form is not None and traits.framework_form([1, 2]) == [2, 1]
    assert traits.framework_remedy == "give the tools in the provider's form"


def test_none_and_an_empty_tuple_declare_nothing():
    class Quiet(Bare):
        tool_format = None
        estimate_tokens = None
        refusals = ()

    assert traits_of(Quiet()) == TargetTraits()


def test_a_single_exception_type_is_taken_as_except_takes_it():
    class One(Bare):
        refusals = HostRefused

    assert traits_of(One()).refusals == (HostRefused,)


def test_no_wire_fields_is_a_declaration_that_narrows_to_none():
    class Plain(Bare):
        tool_format = "mcp"
        wire_fields = ()

    scenario = load()[0]
    assert tool_format(traits_of(Plain()), scenario).wire == ()
    assert tool_format(TargetTraits(tool_format="mcp"), scenario).wire != ()


@pytest.mark.parametrize(
    ("member", "value", "expected"),
    [
        ("tool_format", "openapi", "expected one of anthropic, logical, mcp, openai, found 'openapi'"),
        ("wire_fields", "strict", "expected a collection of wire field names"),
        ("wire_fields", ["strict", "colour"], "found ['strict', 'colour']"),
        ("refusals", (ValueError, "HostRefused"), "expected a tuple of exception types, found (<class 'ValueError'>"),
        ("capacity_results", int, "expected a tuple of exception types, found (<class 'int'>,)"),
        ("estimate_tokens", 4, "expected a callable taking a JSON value and returning an int, found 4"),
        ("checkpoints", ((1, "hook"),), "expected a callable taking a scenario"),
        ("framework_form", "convert_to_openai_tool", "expected a callable taking a list of logical tool dicts"),
        ("framework_remedy", ["install the guard"], "expected a string, found ['install the guard']"),
    ],
)
def test_a_misdeclared_member_is_one_line_naming_it(member, value, expected):
    target = type("Misdeclared", (Bare,), {member: value})()
    with pytest.raises(TraitError) as raised:
        traits_of(target)
    message = str(raised.value)
    assert message.startswith(f"Misdeclared.{member}: ") and expected in message
    assert "\n" not in message


def test_loading_a_spec_checks_its_members_and_names_the_spec_and_option(monkeypatch):
    monkeypatch.setattr(Adapter, "tool_format", "openapi", raising=False)
    with pytest.raises(TargetError) as raised:
        load_target("tests.fixtures.user_targets:Adapter", "red_target")
    assert str(raised.value).startswith("'tests.fixtures.user_targets:Adapter': Adapter.tool_format: expected one of")
    assert raised.value.option == "red_target"


def test_traits_are_resolved_once_and_kept_with_the_target():
    host = load_with_traits("tests.fixtures.user_targets:Adapter")
    assert type(host.target) is Adapter and host.traits.refusals == (HostRefused,)
    assert loaded(host) is host  # the engine reuses what loading resolved
    assert loaded(host.target).traits == host.traits
