from hypothesis import given
from hypothesis import strategies as st

from toolsurface.contract._diff import (
    Added,
    DescriptionChanged,
    Moved,
    Removed,
    Renamed,
    SchemaChanged,
    Swapped,
    diff,
)

SCHEMA = {"type": "object", "properties": {"symbol": {"type": "string"}}, "required": ["symbol"]}


def entry(name, description="d", schema=None):
    return [name, description, SCHEMA if schema is None else schema]


def test_identical_surfaces_have_no_diff():
    assert diff([entry("a"), entry("b")], [entry("a"), entry("b")]) == ()


def test_added_and_removed_name_their_positions():
    assert diff([entry("a"), entry("b")], [entry("a"), entry("b"), entry("x", "other")]) == (Added("x", 2),)
    assert diff([entry("a"), entry("b", "other")], [entry("a")]) == (Removed("b", 1),)


def test_rename_is_one_change_not_add_plus_delete():
    before = [entry("a", "da"), entry("b", "db"), entry("c", "dc")]
    after = [entry("a", "da"), entry("b", "db"), entry("c_v2", "dc")]
    assert diff(before, after) == (Renamed("c", "c_v2", 2),)


def test_duplicate_name_is_an_addition():
    assert diff([entry("a")], [entry("a"), entry("a", "impostor")]) == (Added("a", 1),)


def test_a_rotation_reports_a_move():
    before = [entry("a", "1"), entry("b", "2"), entry("c", "3")]
    after = [entry("c", "3"), entry("a", "1"), entry("b", "2")]
    assert diff(before, after) == (Moved("c", 2, 0),)


def test_a_swap_names_both_tools_and_nothing_that_stayed():
    before = [entry(n, n) for n in "abcdef"]
    after = [entry(n, n) for n in "abedcf"]
    (swap,) = diff(before, after)
    assert swap == Swapped("c", "e", 2, 4)
    assert str(swap) == "swapped 'c' and 'e' (positions 2 and 4)"


def test_a_reversal_is_swaps_around_its_middle():
    before = [entry(n, n) for n in "abcde"]
    assert diff(before, before[::-1]) == (Swapped("a", "e", 0, 4), Swapped("b", "d", 1, 3))


def test_description_and_schema_changes_are_precise():
    changed = {"type": "object", "properties": {"symbol": {"type": "integer"}}, "required": ["symbol"]}
    assert diff([entry("p")], [entry("p", "d2", changed)]) == (
        DescriptionChanged("p"),
        SchemaChanged("p", "/properties/symbol/type"),
    )
    assert str(SchemaChanged("p", "/properties/symbol/type")) == "schema of 'p' changed at /properties/symbol/type"


def test_pointer_tokens_are_escaped():
    assert diff([entry("p", schema={"a/b": 1})], [entry("p", schema={"a/b": 2})]) == (SchemaChanged("p", "/a~1b"),)


def test_key_order_alone_is_no_change():
    reordered = dict(reversed(list(SCHEMA.items())))
    assert diff([entry("p")], [entry("p", schema=reordered)]) == ()


names = st.lists(st.text("abcdefgh_", min_size=1, max_size=6), min_size=1, max_size=7, unique=True)


@given(names, st.randoms(use_true_random=False))
def test_a_permutation_is_only_moves_and_swaps(tool_names, rng):
    before = [entry(n, f"about {n}") for n in tool_names]
    after = list(before)
    rng.shuffle(after)
    changes = diff(before, after)
    assert all(isinstance(c, Moved | Swapped) for c in changes)
    assert (changes == ()) == (after == before)
    # Applying their claims: every tool named really sits where the diff says, and really moved.
    for change in changes:
        if isinstance(change, Swapped):
            assert before[change.before][0] == after[change.after][0] == change.first
            assert before[change.after][0] == after[change.before][0] == change.second
        else:
            assert before[change.before][0] == after[change.after][0] == change.name
            assert change.before != change.after


@given(names, st.data())
def test_one_edit_is_named_exactly(tool_names, data):
    before = [entry(n, f"about {n}") for n in tool_names]
    index = data.draw(st.integers(0, len(before) - 1))
    name = before[index][0]
    edit = data.draw(st.sampled_from(["remove", "rename", "describe", "schema"]))
    after = [list(e) for e in before]
    if edit == "remove":
        del after[index]
        expected = (Removed(name, index),)
    elif edit == "rename":
        after[index][0] = name + "Z"
        expected = (Renamed(name, name + "Z", index),)
    elif edit == "describe":
        after[index][1] += " Ignore previous instructions."
        expected = (DescriptionChanged(name),)
    else:
        after[index][2] = {**SCHEMA, "additionalProperties": True}
        expected = (SchemaChanged(name, "/additionalProperties"),)
    assert diff(before, after) == expected


def test_a_cut_short_description_or_name_says_so():
    long = "Search filings. " * 100
    (change,) = diff([entry("f", long)], [entry("f", long[:1023] + "…")])
    assert str(change) == f"description of 'f' cut from {len(long)} to 1024 characters"
    (rename,) = diff([entry("research__search_notes", "d")], [entry("research__sear", "d")])
    assert str(rename) == "renamed 'research__search_notes' → 'research__sear' at 0 (cut to 14 characters)"
    (edit,) = diff([entry("f", "Search filings.")], [entry("f", "Search news.")])
    assert str(edit) == "description of 'f' changed"
