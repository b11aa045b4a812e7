"""The API's lookups: a case id is found as results.json holds it and as the terminal printed it."""

from dataclasses import replace

import pytest

from toolsurface.common._errors import UsageError
from toolsurface.common._printable import printable
from toolsurface.harness._api import RunOptions, find_case, prepare


@pytest.fixture(scope="module")
def planned():
    return prepare(RunOptions(red_target="none", select=["web-read-child-single-tool/*/post_seal/*"])).planned


def find(cases, case_id):
    return find_case(cases, case_id, seed=0)


def test_a_case_is_found_by_its_raw_id_and_by_the_id_as_printed(planned):
    hostile = replace(planned[1], id=planned[1].id + ":q\x1b]0;pwned\x07\nx")
    cases = (planned[0], hostile)
    assert printable(hostile.id).endswith(":q\\x1b]0;pwned\\x07\\nx")
    assert find(cases, hostile.id) is hostile
    assert find(cases, printable(hostile.id)) is hostile
    assert find(cases, planned[0].id) is planned[0]


def test_an_id_as_printed_names_the_case_printed_so_before_one_written_so(planned):
    written = replace(planned[0], id="a:\\x1b")  # a backslash, then x1b
    control = replace(planned[1], id="a:\x1b")  # an ESC, printed as the text of the other's id
    # Every report prints ids through `printable`: the text `a:\x1b` is how the ESC's case prints.
    assert printable(control.id) == written.id
    assert find((written, control), printable(control.id)) is control
    assert find((written, control), control.id) is control
    # The other prints with its backslash doubled, and is found so.
    assert find((written, control), printable(written.id)) is written
    # Escapes typed by hand, not as `printable` writes them, still read back.
    assert find((written, control), "a:\\x1B") is control


def test_an_unknown_id_is_named_escaped(planned):
    with pytest.raises(UsageError, match=r"no case 'nope\\x1b' in the plan for seed 0"):
        find(planned, "nope\x1b")
