import json

from hypothesis import given
from hypothesis import strategies as st

from toolsurface.contract._canonical import (
    canonical_json,
    capture,
    entries_to_read,
    logical_tools,
    snapshot_of,
)
from toolsurface.contract._formats import LOGICAL, MCP
from toolsurface.contract._json import dumps
from toolsurface.scenarios import ToolDescriptor, load

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=20,
)


def tool(schema, name="t", description="d"):
    return {"name": name, "description": description, "input_schema": schema}


@given(st.dictionaries(st.text(max_size=6), json_values, max_size=6))
def test_key_order_is_not_significant(schema):
    reordered = dict(reversed(list(schema.items())))
    assert capture([tool(schema)]) == capture([tool(reordered)])
    assert hash(capture([tool(schema)])) == hash(capture([tool(reordered)]))


@given(st.lists(json_values, min_size=2, max_size=5, unique_by=repr))
def test_array_order_is_significant(items):
    assert capture([tool({"enum": items})]) != capture([tool({"enum": items[::-1]})])


def test_tool_order_is_significant():
    a, b = tool({}, name="a"), tool({}, name="b")
    assert capture([a, b]) != capture([b, a])


def test_json_true_is_not_one():
    assert capture([tool({"x": True})]) != capture([tool({"x": 1})])


def test_snapshot_is_immune_to_later_in_place_edits():
    live = [tool({"properties": {"symbol": {"type": "string"}}})]
    snapshot = capture(live)
    live[0]["input_schema"]["properties"]["symbol"]["type"] = "integer"
    assert snapshot.entries()[0][2]["properties"]["symbol"]["type"] == "string"
    assert snapshot != capture(live)


def test_descriptors_and_live_tools_agree():
    descriptor = ToolDescriptor.of("a", "d", {"type": "object", "properties": {"q": {"type": "string"}}})
    assert snapshot_of([descriptor]) == capture([descriptor.as_logical()])


def test_integers_past_64_bits_compare_exactly():
    big = capture([tool({"maximum": 2**70})])
    assert str(2**70).encode() in big.raw
    assert big != capture([tool({"maximum": 2**70 + 1})])


@given(st.dictionaries(st.text(max_size=6), json_values, min_size=1, max_size=6), json_values)
def test_parity_is_canonical_equality(schema, value):
    key = next(iter(schema))
    changed = {**schema, key: value}
    # The standard library's own sorted-key JSON, an independent account of "the same surface".
    same = json.dumps(schema, sort_keys=True) == json.dumps(changed, sort_keys=True)
    assert (capture([tool(schema)]) == capture([tool(changed)])) is same


@given(st.dictionaries(st.text(max_size=6), json_values, max_size=6))
def test_a_recorded_schema_in_any_key_order_snapshots_to_the_same_bytes(schema):
    reordered = dict(reversed(list(schema.items())))
    recorded = ToolDescriptor("t", "d", json.dumps(reordered).encode())
    assert snapshot_of([recorded]).raw == capture([tool(schema)]).raw


@given(st.integers(min_value=-(2**80), max_value=2**80), st.text(alphabet="0123456789 ,x", max_size=40))
def test_entries_give_back_integers_of_any_size_exactly(number, digits):
    # Past 64 bits orjson would read a float; a run of 19 digits anywhere sends the decode to `json`.
    entries = capture([tool({"default": number, "description": digits})]).entries()
    assert entries[0][2] == {"default": number, "description": digits}
    assert type(entries[0][2]["default"]) is int


def test_logical_tools_are_fresh_as_logical_dicts_in_the_same_key_order():
    for scenario in load():
        surface = scenario.contract.surface + scenario.contract.admitted_elsewhere
        tools = logical_tools(surface)
        assert [dumps(tool) for tool in tools] == [dumps(d.as_logical()) for d in surface], scenario.id
        for tool in tools:
            tool["input_schema"]["edited"] = True
        assert not any("edited" in tool["input_schema"] for tool in logical_tools(surface))


def test_entries_to_read_are_the_snapshots_entries():
    for scenario in load():
        snapshot = snapshot_of(scenario.surface)
        assert list(entries_to_read(snapshot)) == snapshot.entries()


def test_a_capture_after_an_in_place_edit_sees_it_and_key_order_never_matters():
    """Captures of the same surface as found share their sorting; an edit in place is new bytes."""
    tools = [
        {"name": "a", "description": "d", "input_schema": {"type": "object", "properties": {"x": {"type": "string"}}}}
    ]
    first = capture(tools)
    assert capture(tools) == first
    tools[0]["input_schema"]["properties"]["x"]["type"] = "integer"
    edited = capture(tools)
    assert edited != first and edited.entries()[0][2]["properties"]["x"]["type"] == "integer"
    reordered = [
        {"input_schema": {"properties": {"x": {"type": "integer"}}, "type": "object"}, "description": "d", "name": "a"}
    ]
    assert capture(reordered) == edited
    assert capture(reordered).raw == canonical_json(
        [["a", "d", {"properties": {"x": {"type": "integer"}}, "type": "object"}]]
    )


def test_a_capture_looked_up_by_the_whole_tools_reads_them_in_its_own_format():
    """The same dicts read in two formats are two surfaces, whichever was captured first."""
    tools = [{"name": "a", "description": "d", "input_schema": {"type": "object"}, "inputSchema": {"type": "string"}}]
    for _ in range(2):
        assert capture(tools, LOGICAL).entries()[0][2] == {"type": "object"}
        assert capture(tools, MCP).entries()[0][2] == {"type": "string"}


def test_a_dict_subclass_is_captured_by_what_it_reads_not_by_its_storage():
    class Renaming(dict):
        def __getitem__(self, key):
            return "renamed" if key == "name" else super().__getitem__(key)

    plain = {"name": "a", "description": "d", "input_schema": {"type": "object"}}
    assert capture([plain]).names() == ["a"]
    assert capture([Renaming(plain)]).names() == ["renamed"]
