"""JSON read and written exactly: orjson where it is exact, the standard library past it.

orjson reads an integer past 64 bits as a float and will not write one; a recorded schema may hold
one (`"maximum": 99999999999999999999`), and a bound that changed by being read is a change nobody
made. Every recording, descriptor and schema is read and written through these.
"""

from __future__ import annotations

import json
from typing import Any

import orjson


def loads(raw: bytes | str) -> Any:
    """The JSON value of `raw`, every integer as written. Raises `json.JSONDecodeError` (orjson's is
    one) with the line and column of what is wrong."""
    if isinstance(raw, str):
        raw = raw.encode()
    value = orjson.loads(raw)  # what is wrong, if anything, in orjson's words, with line and column
    if _LONG_NUMBER in raw.translate(_DIGITS):
        return json.loads(raw.decode())  # valid UTF-8 JSON by now: read again, every integer exact
    return value


def dumps(value: Any, *, sort_keys: bool = False, indent: bool = False) -> bytes:
    """JSON bytes of `value`, UTF-8, keys in their order (or sorted), compact (or indented by two
    spaces): orjson's bytes, and the same from the standard library for an integer past 64 bits."""
    option = (orjson.OPT_SORT_KEYS if sort_keys else 0) | (orjson.OPT_INDENT_2 if indent else 0)
    try:
        return orjson.dumps(value, option=option or None)
    except TypeError as error:
        try:
            text = json.dumps(
                value,
                sort_keys=sort_keys,
                ensure_ascii=False,
                indent=2 if indent else None,
                separators=(",", ": ") if indent else (",", ":"),
            )
        except (TypeError, ValueError):
            raise error from None  # not JSON at all: orjson's words for it
        return text.encode()


#: 19 digits can exceed a signed 64-bit integer; shorter runs never do. Found by mapping every
#: digit to `0` and every other byte to a space, then one substring search: a regex scan for
#: `\d{19}` costs several times the decode itself on a surface of 150 KB.
_DIGITS = bytes(ord("0") if chr(byte) in "0123456789" else ord(" ") for byte in range(256))
_LONG_NUMBER = b"0" * 19
