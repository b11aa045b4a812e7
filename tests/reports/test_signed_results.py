"""Signed results.json: the signature is the HMAC of the file as written unsigned, reading with the
key verifies it, and every way a forger could change a file and keep it whole is refused."""

import dataclasses
import hashlib
import hmac
import re

import orjson
import pytest

from tests.fixtures.forgery import TIMED_OUT, first_killed, forge
from tests.reports.test_results import LAYOUTS, SELECT, validate
from toolsurface.common._errors import UsageError
from toolsurface.harness._api import RunOptions, prepare
from toolsurface.harness._results import open_results, read_results, write_results
from toolsurface.harness._signing import Signed, Trust
from toolsurface.harness._types import Amendment

KEY = b"the CI secret"
SIGNATURE = re.compile(rb'"signature":"hmac-sha256:([0-9a-f]{64})"')


@pytest.fixture(scope="module")
def session():
    return prepare(RunOptions(select=SELECT))


@pytest.fixture(scope="module")
def stream(session):
    """The run's records once, to write as many files as the tests need."""
    return tuple(session.results())


def test_a_signed_file_is_the_unsigned_one_with_the_hmac_of_its_bytes_in_place_of_null(tmp_path, session, stream):
    signed = write_results(tmp_path / "signed", session, stream, key=KEY)
    unsigned = write_results(tmp_path / "unsigned", session, stream)
    raw = signed.read_bytes()
    (found,) = SIGNATURE.findall(raw)
    # What docs/commands.md tells anyone to check: null in its place, the HMAC of the file.
    assert SIGNATURE.sub(b'"signature":null', raw) == unsigned.read_bytes()
    assert found.decode() == hmac.new(KEY, unsigned.read_bytes(), hashlib.sha256).hexdigest()
    validate(signed)
    opened = open_results(signed, trust=Trust(KEY))
    assert opened.signed is Signed.VERIFIED and opened.summary.signature == f"hmac-sha256:{found.decode()}"
    assert read_results(signed, Trust(KEY)) == dataclasses.replace(read_results(unsigned), summary=opened.summary)
    assert open_results(unsigned).signed is Signed.NO and open_results(signed).signed is Signed.UNVERIFIED


@pytest.mark.parametrize("layout", LAYOUTS.values(), ids=LAYOUTS.keys())
def test_a_signed_record_verifies_in_any_layout_and_only_with_its_key(tmp_path, session, stream, layout):
    written = write_results(tmp_path / "run", session, stream, key=KEY)
    path = tmp_path / "results.json"
    path.write_bytes(layout(orjson.loads(written.read_bytes())))
    assert open_results(path, trust=Trust(KEY)).signed is Signed.VERIFIED
    with pytest.raises(UsageError, match=r": signature does not match: "):
        open_results(path, trust=Trust(b"another key"))


def test_a_run_whose_cases_are_amended_late_is_signed_as_written(tmp_path):
    # Its refused requests are sent again after their case returned: the writer rewrites those lines.
    session = prepare(
        RunOptions(target="tests.fixtures.hostile_hosts:RetriesLater", select=["web-read-child-single-tool/*"])
    )
    stream = tuple(session.results())
    assert any(isinstance(item, Amendment) for item in stream)
    path = write_results(tmp_path, session, stream, key=KEY)
    assert open_results(path, trust=Trust(KEY)).signed is Signed.VERIFIED
    assert any(case.evidence.aftermath for case in read_results(path).cases)


MISMATCH = "signature does not match: altered after it was signed, or signed with another key"
STRIPPED = (
    "not signed, but TOOLSURFACE_SIGNING_KEY is set: its signature was stripped, or it was written without "
    "the key; write it again with the key set"
)

#: Each edit keeps the file whole: without the key, it reads, and only the signature can tell.
TAMPERING = {
    "a verdict edited with its evidence, digest and totals": (dict(cases=first_killed), MISMATCH),
    "a case removed, with the count the run selected": (
        dict(cases=lambda cases: cases[1:], run=lambda run: dataclasses.replace(run, selected=run.selected - 1)),
        MISMATCH,
    ),
    "the run info edited": (dict(run=lambda run: dataclasses.replace(run, target="myhost.adapter:factory")), MISMATCH),
    "the signature stripped": (dict(cases=first_killed, sign=None), STRIPPED),
    "signed again with another key": (dict(cases=first_killed, sign=b"the forger's key"), MISMATCH),
}


@pytest.mark.parametrize("layout", ["as run writes it", "indented"])
@pytest.mark.parametrize(("edit", "refusal"), TAMPERING.values(), ids=TAMPERING.keys())
def test_every_way_of_tampering_is_refused_with_the_key_set(tmp_path, session, stream, edit, refusal, layout):
    path = write_results(tmp_path, session, stream, key=KEY)
    before = read_results(path)
    forge(path, **edit)
    path.write_bytes(LAYOUTS[layout](orjson.loads(path.read_bytes())))
    forged = read_results(path)  # every check but the signature holds
    assert forged != before
    if edit.get("cases") is first_killed:
        assert sum(case.verdict == TIMED_OUT for case in forged.cases) == 1 + sum(
            case.verdict == TIMED_OUT for case in before.cases
        )
    with pytest.raises(UsageError) as refused:
        open_results(path, trust=Trust(KEY))
    assert str(refused.value) == f"{path}: {refusal}"
