import re

import pytest

from tests.fixtures.planned import planned
from toolsurface.common._errors import UsageError
from toolsurface.harness._plan import (
    Plan,
    Shard,
    plan,
    recorded_checkpoints,
    select,
    shard,
)
from toolsurface.scenarios import Boundary, load

ID = re.compile(r"^[a-z0-9-]+/(main|child)/(hooks|no-hooks)/[a-z_]+(@[2-9])?/[a-z]+\.(replace|in_place):[a-z_]+:.+$")


@pytest.fixture(scope="module")
def scenarios():
    return load()


def test_same_seed_same_cases(scenarios):
    assert plan(scenarios, seed=7) == plan(scenarios, seed=7)


def test_ids_are_unique_and_readable(scenarios):
    ids = [case.id for case in planned(0)]
    assert len(ids) == len(set(ids))
    assert all(ID.match(i) for i in ids), [i for i in ids if not ID.match(i)][:3]


def test_the_documented_example_id_is_planned(scenarios):
    ids = {case.id for case in planned(0)}
    shape = re.compile(r"/async_prep/schema\.in_place:type:market__get_instrument_profile:/.+/type$")
    assert any(shape.search(i) for i in ids)


#: Planned ids, one per kind of aim, copied from `toolsurface list cases` before aims were typed:
#: accepted expectations, selections and reproduce commands hold ids, so none may move a byte.
PINNED = {
    0: [
        "entry-main-portfolio-document/main/hooks/hook/add.replace:foreign:portfolio__transfer_cash@0",
        "etf-compare-main-hooked/main/hooks/hook/add.in_place:duplicate:market__web_search",
        "etf-compare-main-hooked/main/hooks/hook/schema.in_place:type:market__web_search:/type",
        (
            "etf-compare-main-hooked/main/hooks/hook/schema.replace:required:"
            "market__web_search:/$defs/date_range/required/-"
        ),
        "etf-compare-main-hooked/main/hooks/hook/reorder.replace:swap:3<->5",
        "etf-compare-main-hooked/main/hooks/post_revalidation/reorder.in_place:reverse:reverse",
        "etf-compare-main-hooked/main/hooks/hook/reorder.replace:rotate:rotate+1",
        "entry-main-portfolio-document/main/hooks/hook/legit.replace:compress:messages",
        "etf-compare-main-hooked/main/hooks/hook/availability.replace:spoof:budget",
        "etf-compare-main-hooked/main/hooks/hook/availability.replace:forged_fact:run",
        "entry-main-portfolio-document/main/hooks/hook/entry.in_place:overclaim:portfolio",
        "entry-main-portfolio-document/main/hooks/hook/control.in_place:inject:read_tool_result",
    ],
    7: [
        "etf-compare-main-hooked/main/hooks/context_fit/add.replace:foreign:market__place_order@2",
        "entry-main-portfolio-document/main/hooks/hook/add.replace:elsewhere:portfolio__get_holdings@0",
        "etf-compare-main-hooked/main/hooks/hook/reorder.in_place:swap:0<->2",
        "etf-compare-main-mcp/main/no-hooks/post_revalidation/reorder.replace:rotate:rotate+2",
        "etf-compare-main-hooked/main/hooks/hook/availability.replace:forged_fact:owner",
        "etf-compare-main-hooked/main/hooks/hook/availability.replace:spoof:provider_attempt",
        "etf-compare-main-hooked/main/hooks/hook/schema.replace:add_property:market__web_search:/properties/account_id",
    ],
}


@pytest.mark.parametrize("seed", sorted(PINNED))
def test_pinned_ids_are_still_planned(scenarios, seed):
    ids = {case.id for case in planned(seed)}
    assert [i for i in PINNED[seed] if i not in ids] == []


@pytest.mark.parametrize("seed", [0, 7])
def test_an_id_spells_its_case_and_its_typed_aim(scenarios, seed):
    for case in planned(seed):
        mutation = case.mutation
        hooks = "hooks" if case.hooks else "no-hooks"
        tail = f"{mutation.kind.value}.{mutation.delivery.value}:{mutation.variant}:" + str(mutation.aim)
        at = case.point if case.call == 1 else f"{case.point}@{case.call}"  # the label, spelled out by hand
        assert case.id == f"{case.scenario}/{case.lane.value}/{hooks}/{at}/{tail}"
        assert case.boundary == Boundary(case.point, case.call) and str(case.boundary) == at


def test_a_scenario_subset_keeps_every_id(scenarios):
    full = {c.id for c in planned(3)}
    part = {c.id for c in plan(scenarios[1:3], seed=3)}
    assert part <= full


def test_selection_and_sharding_partition_the_plan(scenarios):
    cases = planned(0)
    chosen = select(cases, ["*/child/*", "*/post_seal/*"])
    assert chosen and all("/child/" in c.id or "/post_seal/" in c.id for c in chosen)
    parts = [shard(cases, Shard(k, 3)) for k in (1, 2, 3)]
    assert sorted(c.id for p in parts for c in p) == sorted(c.id for c in cases)


@pytest.mark.parametrize("text", ["0/3", "4/3", "a/b", "3", "1/0", "²/³", "1/" + "9" * 5000, f"1/{2**63}", "１/２"])
def test_bad_shards_are_named(text):
    with pytest.raises(UsageError, match=re.escape(f"{text!r} must look like K/N")) as raised:
        Shard.parse(text)
    assert raised.value.option == "shard"


def test_equivalent_cases_change_nothing(scenarios):
    cases = planned(0)
    equivalent = [c for c in cases if c.equivalent]
    assert equivalent and all(c.mutation.kind == "reorder" for c in equivalent)


def test_a_selection_works_out_the_same_changes_and_keeps_every_case_in_its_place(scenarios):
    whole = planned(0)
    patterns = ["etf-compare-main-openai/*/evidence/*", "*/delete.*"]
    narrowed = plan(scenarios, seed=0, patterns=patterns)
    assert [case.id for case in narrowed] == [case.id for case in whole]
    selected = select(narrowed, patterns)
    assert selected == select(whole, patterns)
    chosen = {case.id for case in selected}
    left_out = [case for case in narrowed if case.id not in chosen]
    assert left_out and all(case.change is None and not case.equivalent for case in left_out)


@pytest.mark.parametrize(
    ("patterns", "part"),
    [((), None), (("*/evidence/*",), None), ((), Shard(2, 3)), (("web-read-*", "*/post_seal/*"), Shard(1, 2))],
)
def test_the_lazy_plan_makes_the_cases_a_selection_and_shard_of_the_whole_plan_keep(scenarios, patterns, part):
    whole = planned(3)
    lazy = Plan(scenarios, 3, recorded_checkpoints, patterns, part)
    narrowed = plan(scenarios, seed=3, patterns=patterns) if patterns else whole
    expected = shard(select(narrowed, patterns), part)
    made = tuple(lazy)
    assert made == expected and all(case.change is not None for case in made)
    assert (lazy.planned, lazy.selected, len(lazy)) == (len(whole), len(select(whole, patterns)), len(expected))
    assert tuple(lazy) == made  # each pass makes the same cases again
    assert [case.id for case in lazy.every()] == [case.id for case in whole]


def test_the_lazy_plan_finds_named_cases_with_their_change_whatever_it_selects(scenarios):
    whole = {case.id: case for case in planned(0)}
    wanted = [next(iter(whole)), list(whole)[-1]]
    lazy = Plan(scenarios, 0, recorded_checkpoints, ("nothing-matches",), None)
    assert [case.id for case in lazy.named(set(wanted))] == wanted
    assert all(case == whole[case.id] for case in lazy.named(set(wanted)))
