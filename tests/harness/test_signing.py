"""How a reader holds a signature: every combination of signed or not, key or not, demanded or not,
and what the environment and the flag say."""

import hashlib
import hmac
from pathlib import Path

import pytest

from toolsurface.common._errors import UsageError
from toolsurface.harness._signing import Signed, Signer, Trust, signing_key

PATH = Path("out/results.json")
KEY = b"k\xc3\xa9y"
GOOD = "hmac-sha256:" + hmac.new(KEY, b"the file", hashlib.sha256).hexdigest()
BAD = "hmac-sha256:" + "0" * 64


def expected():
    return GOOD


def test_a_signer_signs_what_it_was_fed_as_the_hmac_module_does_and_without_a_key_nothing():
    signer = Signer(KEY)
    for chunk in (b"the ", b"fi", b"le"):
        signer.update(chunk)
    assert signer.signing and signer.signature() == GOOD
    unkeyed = Signer(None)
    unkeyed.update(b"the file")
    assert not unkeyed.signing and unkeyed.signature() is None


@pytest.mark.parametrize(
    ("environ", "flag", "trust"),
    [
        ({}, False, Trust()),
        ({"TOOLSURFACE_SIGNING_KEY": ""}, False, Trust()),
        ({"TOOLSURFACE_SIGNING_KEY": "kéy"}, False, Trust(KEY)),
        ({}, True, Trust(None, "--require-signature")),
        ({"TOOLSURFACE_REQUIRE_SIGNATURE": "1"}, False, Trust(None, "TOOLSURFACE_REQUIRE_SIGNATURE=1")),
        ({"TOOLSURFACE_REQUIRE_SIGNATURE": "true"}, False, Trust(None, "TOOLSURFACE_REQUIRE_SIGNATURE=true")),
        ({"TOOLSURFACE_REQUIRE_SIGNATURE": "0"}, False, Trust()),
        ({"TOOLSURFACE_REQUIRE_SIGNATURE": ""}, False, Trust()),
        # The flag is named, whatever the environment says.
        (
            {"TOOLSURFACE_REQUIRE_SIGNATURE": "0", "TOOLSURFACE_SIGNING_KEY": "kéy"},
            True,
            Trust(KEY, "--require-signature"),
        ),
    ],
)
def test_the_key_and_the_demand_come_from_the_environment_and_the_flag(environ, flag, trust):
    assert Trust.from_environment(environ, flag) == trust


def test_the_key_is_the_bytes_the_environment_holds_even_when_they_are_not_utf_8():
    # os.environ gives undecodable bytes as surrogates; the key is the bytes themselves.
    assert signing_key({"TOOLSURFACE_SIGNING_KEY": "\udcff\udcfe"}) == b"\xff\xfe"


def test_a_demand_that_is_neither_1_nor_0_is_refused_by_its_variable():
    with pytest.raises(
        UsageError, match=r"^TOOLSURFACE_REQUIRE_SIGNATURE='sure': expected 1 \(demand a verified signature\) or 0$"
    ):
        Trust.from_environment({"TOOLSURFACE_REQUIRE_SIGNATURE": "sure"})


NO_KEY = (
    "not signed, but TOOLSURFACE_SIGNING_KEY is set: its signature was stripped, or it was written without "
    "the key; write it again with the key set"
)
MISMATCH = "signature does not match: altered after it was signed, or signed with another key"

#: (signature carried, key, what demands one) → what reading it gives: a `Signed`, or the error after the path.
CHECKS = {
    "unsigned, no key": (None, None, None, Signed.NO),
    "unsigned, a key": (None, KEY, None, NO_KEY),
    "unsigned, a key, demanded": (None, KEY, "--require-signature", NO_KEY),
    "unsigned, demanded": (
        None,
        None,
        "--require-signature",
        "not signed, and --require-signature demands a verified signature: write it with TOOLSURFACE_SIGNING_KEY set, "
        "and set the same key to read it",
    ),
    "signed, no key": (GOOD, None, None, Signed.UNVERIFIED),
    "signed, demanded, no key": (
        GOOD,
        None,
        "TOOLSURFACE_REQUIRE_SIGNATURE=1",
        "signed, but TOOLSURFACE_SIGNING_KEY is not set to verify it, and "
        "TOOLSURFACE_REQUIRE_SIGNATURE=1 demands a verified "
        "signature: set it to the key the file was signed with",
    ),
    "signed, the key": (GOOD, KEY, None, Signed.VERIFIED),
    "signed, the key, demanded": (GOOD, KEY, "--require-signature", Signed.VERIFIED),
    "signed otherwise, the key": (BAD, KEY, None, MISMATCH),
    "not a signature": (
        "sha256:" + "0" * 64,
        KEY,
        None,
        "expected hmac-sha256: and 64 hex digits, found 'sha256:" + "0" * 64 + "'",
    ),
}


@pytest.mark.parametrize(("signature", "key", "required_by", "gives"), CHECKS.values(), ids=CHECKS.keys())
def test_every_combination_reads_or_is_refused_with_one_line_that_says_what_to_do(signature, key, required_by, gives):
    trust = Trust(key, required_by)
    if isinstance(gives, Signed):
        assert trust.check(PATH, signature, expected) is gives
        return
    with pytest.raises(UsageError) as refused:
        trust.check(PATH, signature, expected)
    where = ":$.summary.signature: " if gives.startswith("expected") else ": "
    assert str(refused.value) == f"{PATH}{where}{gives}"


def test_the_expected_signature_is_worked_out_only_when_there_is_one_to_compare():
    def never():
        raise AssertionError("worked out with nothing to compare it to")

    assert Trust(None).check(PATH, GOOD, never) is Signed.UNVERIFIED
    assert Trust(None).check(PATH, None, never) is Signed.NO


def test_a_run_that_must_sign_is_refused_before_it_starts_without_a_key():
    Trust(KEY, "--require-signature").check_can_sign()
    Trust(None).check_can_sign()
    with pytest.raises(
        UsageError,
        match=r"^TOOLSURFACE_REQUIRE_SIGNATURE=1 demands signed results, but TOOLSURFACE_SIGNING_KEY is not set",
    ):
        Trust(None, "TOOLSURFACE_REQUIRE_SIGNATURE=1").check_can_sign()
