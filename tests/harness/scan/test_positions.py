import sysconfig
from pathlib import Path

import libcst as cst
import pytest
from hypothesis import given
from hypothesis import strategies as st
from libcst.metadata import MetadataWrapper, PositionProvider

from toolsurface.harness._scan._positions import positions

STDLIB = Path(sysconfig.get_paths()["stdlib"])


def _public(module: cst.Module):
    return MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)


@pytest.mark.parametrize("name", ["json/decoder.py", "dataclasses.py", "asyncio/tasks.py"])
def test_every_range_is_libcsts_own(name):
    module = cst.parse_module((STDLIB / name).read_text(encoding="utf-8"))
    assert dict(positions(module)) == dict(_public(module))


_LINES = st.sampled_from(
    ["x = 1", "def f(a,\n      b):\n    return a", 's = """one\ntwo"""', "y = (1 +\n     2)  # note", "if x:\n    pass", ""]
)


@given(st.lists(_LINES, max_size=8), st.sampled_from(["\n", "\r\n", "\r"]))
def test_ranges_agree_whatever_the_newlines(lines, newline):
    source = newline.join(line.replace("\n", newline) for line in lines) + newline
    module = cst.parse_module(source)
    assert dict(positions(module)) == dict(_public(module))
