import base64
import math

import pytest

pytest.importorskip(
    "opentelemetry.sdk", reason="these tests write span exports with the OpenTelemetry SDK: pip install -e '.[dev]'"
)

from google.protobuf.json_format import MessageToDict
from hypothesis import given
from hypothesis import strategies as st
from opentelemetry.exporter.otlp.proto.common._internal import _encode_value

from toolsurface.scenarios._import_common import Problem
from toolsurface.scenarios._otlp_json import decode_value, otlp_id

# What an attribute can hold: the values the OTLP exporter encodes (int64 ints, any float but NaN,
# which is not equal to itself), nested in lists and maps.
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats(allow_nan=False) | st.text() | st.binary(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@given(value=VALUES)
def test_an_attribute_value_reads_back_as_the_exporter_encoded_it(value):
    assert decode_value(MessageToDict(_encode_value(value)), "$") == value


@given(value=st.sampled_from(["NaN", "Infinity", "-Infinity"]))
def test_the_non_finite_doubles_are_read_as_protobuf_json_spells_them(value):
    decoded = decode_value({"doubleValue": value}, "$")
    assert math.isnan(decoded) if value == "NaN" else decoded == float(value)


@given(size=st.sampled_from([8, 16]), data=st.data())
def test_an_id_reads_the_same_as_hex_and_as_base64(size, data):
    raw = data.draw(st.binary(min_size=size, max_size=size))
    assert otlp_id(raw.hex().upper(), "$", size) == otlp_id(base64.b64encode(raw).decode(), "$", size) == raw.hex()


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ({"intValue": "12.5"}, "$.intValue: '12.5' is not a intValue"),
        ({"stringValue": "a", "intValue": 1}, "$: expected one value kind, found 'intValue', 'stringValue'"),
        ({"mapValue": {}}, "$: 'mapValue' is not a value kind"),
        (
            {"arrayValue": {"values": [{"boolValue": "yes"}]}},
            "$.arrayValue.values[0].boolValue: 'yes' is not a boolValue",
        ),
    ],
)
def test_a_value_that_is_not_an_otlp_value_names_its_path(value, problem):
    with pytest.raises(Problem) as raised:
        decode_value(value, "$")
    assert f"{raised.value.path}: {raised.value}".startswith(problem)
