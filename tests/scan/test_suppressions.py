"""Suppressions read strictly: only a well-formed directive naming rules that exist silences anything."""

import pytest

from toolsurface.scan._suppressions import Suppression, read, suppressed

KNOWN = {"TS101", "TS102", "TS104", "TS107"}


@pytest.mark.parametrize(
    ("line", "rule", "silenced"),
    [
        ("x = 1  # toolsurface: ignore", "TS101", True),
        ("x = 1  #toolsurface:ignore", "TS107", True),
        ("x = 1  # toolsurface: ignore[TS104]", "TS104", True),
        ("x = 1  # toolsurface: ignore[TS104]", "TS107", False),
        ("x = 1  # toolsurface: ignore[TS102, TS104]", "TS104", True),
        ("x = 1  # toolsurface: ignore[TS102,TS104]  # frozen upstream", "TS102", True),
        ("x = 1  # toolsurface: ignore[TS102, TS104]", "TS107", False),
        ("x = 1", "TS101", False),
        # Malformed or unknown: silences nothing, not even the rules it spells right.
        ("x = 1  # toolsurface: ignore[ts107]", "TS107", False),
        ("x = 1  # toolsurface: ignore[TS-107]", "TS107", False),
        ("x = 1  # toolsurface: ignore[TS999]", "TS101", False),
        ("x = 1  # toolsurface: ignore[TS104, ts107]", "TS104", False),
        ("x = 1  # toolsurface: ignore[]", "TS101", False),
        ("x = 1  # toolsurface: ignore [TS104]", "TS104", False),
        ("x = 1  # toolsurface: ignore TS104", "TS101", False),
        ("x = 1  # toolsurface: ignore[TS104", "TS104", False),
        ("x = 1  # toolsurface: skip", "TS101", False),
    ],
)
def test_only_a_well_formed_directive_silences(line, rule, silenced):
    assert suppressed(line, rule, KNOWN) is silenced


def test_a_bad_directive_says_why():
    assert read("# toolsurface: ignore[ts107]", KNOWN) == Suppression(
        frozenset(), "'ts107' is not a rule id (expected TS and three digits)"
    )
    assert read("# toolsurface: ignore[TS999]", KNOWN) == Suppression(frozenset(), "no rule has the id TS999")
    assert read("# toolsurface: ignore", KNOWN) == Suppression(None)
    assert read("# a plain comment", KNOWN) is None
