"""Exact JSON: integers of any size read and written as they are, in the bytes orjson writes."""

import orjson
from hypothesis import given
from hypothesis import strategies as st

from toolsurface.contract._json import dumps, loads

small = st.integers(min_value=-(2**63), max_value=2**63 - 1)
values = st.recursive(
    st.none() | st.booleans() | small | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=12,
)


@given(values, st.booleans(), st.booleans())
def test_within_64_bits_the_bytes_are_orjson_s(value, sort_keys, indent):
    option = (orjson.OPT_SORT_KEYS if sort_keys else 0) | (orjson.OPT_INDENT_2 if indent else 0)
    assert dumps(value, sort_keys=sort_keys, indent=indent) == orjson.dumps(value, option=option or None)


@given(values, st.integers(min_value=2**64, max_value=2**90) | st.integers(max_value=-(2**64)), st.booleans())
def test_past_64_bits_the_same_layout_and_the_integer_exact(value, wide, indent):
    document = {"value": value, "bound": wide}
    written = dumps(document, indent=indent)
    assert loads(written) == document and type(loads(written)["bound"]) is int
    # The layout is orjson's, as if the wide integer were a small one written in its place.
    assert written.replace(str(wide).encode(), b"0") == dumps({"value": value, "bound": 0}, indent=indent)


def test_text_reads_as_bytes_do():
    assert loads('{"maximum": 99999999999999999999}') == {"maximum": 99999999999999999999}
