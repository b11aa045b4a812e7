"""The package's public surface and its registry of mutators."""

import inspect
import re

import pytest

import toolsurface
from toolsurface import mutators
from toolsurface.mutators import EXPLORING, MUTATORS, Kind, Must, Mutator, _strategies, by_key


def _concrete_subclasses(cls: type) -> set[type]:
    found = set()
    for sub in cls.__subclasses__():
        found |= _concrete_subclasses(sub)
        if not inspect.isabstract(sub) and sub.__module__.startswith("toolsurface.mutators."):
            found.add(sub)
    return found


def test_all_lists_exactly_the_public_names() -> None:
    public = {
        name for name, value in vars(mutators).items() if not name.startswith("_") and not inspect.ismodule(value)
    }
    assert sorted(mutators.__all__) == sorted(public)
    assert len(set(mutators.__all__)) == len(mutators.__all__)


def test_the_public_strategies_are_the_ones_cases_are_generated_with() -> None:
    public = {
        "MutatedRequest",
        "tool_descriptors",
        "surfaces",
        "scenarios_for",
        "edit_sequences",
        "owner_facts",
        "mutated_requests",
    }
    assert public <= set(toolsurface.__all__)
    assert all(getattr(toolsurface, name) is getattr(_strategies, name) for name in public)


def test_every_mutator_class_is_registered_once() -> None:
    classes = [type(mutator) for mutator in (*MUTATORS, *EXPLORING)]
    assert len(set(classes)) == len(classes)
    assert set(classes) == _concrete_subclasses(Mutator)


def test_keys_are_unique_and_readable() -> None:
    keys = [mutator.key() for mutator in (*MUTATORS, *EXPLORING)]
    assert len(set(keys)) == len(keys)
    for mutator in (*MUTATORS, *EXPLORING):
        assert re.fullmatch(r"[a-z_]+", mutator.variant), mutator.key()
        assert mutator.key() == f"{mutator.kind.value}.{mutator.variant}"


def test_mutators_are_grouped_by_kind_in_planning_order() -> None:
    kinds = [mutator.kind for mutator in MUTATORS]
    assert kinds == sorted(kinds, key=list(Kind).index)
    # every kind is covered, but the explorer's composed changes, which the plan never holds
    assert list(dict.fromkeys(kinds)) == [kind for kind in Kind if kind is not Kind.COMPOSED]


@pytest.mark.parametrize("mutator", (*MUTATORS, *EXPLORING), ids=lambda mutator: mutator.key())
def test_every_mutator_has_examples_and_says_consistently_what_a_guard_must_do(mutator: Mutator) -> None:
    assert mutator.examples
    # Every legitimate change must go through; so must a look-alike availability signal, which
    # is the only other kind of change a guard must ignore.
    if mutator.kind is Kind.LEGITIMATE:
        assert mutator.must is Must.DISPATCH
    if mutator.must is Must.DISPATCH:
        assert mutator.kind in (Kind.LEGITIMATE, Kind.AVAILABILITY, Kind.MCP)


def test_by_key_finds_the_registered_instance() -> None:
    assert all(by_key(mutator.key()) is mutator for mutator in (*MUTATORS, *EXPLORING))


def test_the_explorer_s_mutators_are_never_planned() -> None:
    assert not {type(mutator) for mutator in EXPLORING} & {type(mutator) for mutator in MUTATORS}


def test_by_key_names_the_known_keys_when_it_fails() -> None:
    with pytest.raises(KeyError, match=r"no mutator 'rename\.typo'.*rename\.lookalike"):
        by_key("rename.typo")
