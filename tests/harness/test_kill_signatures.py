"""The kill signatures shipped beside the reference defects: complete, readable, and not stale.

The data is made by `python -m toolsurface.harness._make_kill_signatures` on the whole default
matrix; here a few defects' signatures are made again on a selection, which must find nothing the
shipped data lacks: a renamed ending, verdict or settlement, a defect failing anew, or a changed
mutator fails this test until the data is made again.
"""

import pytest

from toolsurface.harness._kill_signatures import (
    FIELDS,
    WHERE,
    KillSignature,
    KillSignatures,
    bundled,
    decode,
    encode,
)
from toolsurface.harness._make_kill_signatures import make
from toolsurface.harness._reference import DEFECTS
from toolsurface.harness._reference._flaws import FLAWS

#: Defects of the final check, of settlement and of later model calls, on a child and a main recording.
RECHECKED = ("hook-only-final", "no-settle", "second-receipt", "wrong-lane-settle", "first-call-only")
SELECTION = (
    "price-history-child-hooked/*/post_seal/*",
    "etf-compare-main-openai/*/async_prep/*",
    "etf-compare-main-tool-loop/*/hook@2/*",
)


def test_every_defect_has_a_flaw_in_words_and_shipped_signatures_in_defect_order():
    assert list(FLAWS) == list(DEFECTS)
    assert all(0 < len(flaw) <= 100 and not flaw.endswith(".") for flaw in FLAWS.values())
    shipped = bundled()
    assert [defect.defect for defect in shipped.defects] == list(DEFECTS)
    assert all(defect.signatures for defect in shipped.defects)
    assert all(len(signature) == len(FIELDS) for defect in shipped.defects for signature in defect.signatures)
    assert shipped.seed == 0 and shipped.cases > 8000


@pytest.fixture(scope="module")
def remade():
    return make(RECHECKED, SELECTION, jobs=0)


def test_signatures_made_again_on_a_selection_are_all_in_the_shipped_data(remade):
    shipped = bundled()
    for defect in remade.defects:
        assert defect.signatures, f"{defect.defect} fails none of {SELECTION}: pick a selection that kills it"
        known = shipped.named(defect.defect).signatures
        stale = {signature: count for signature, count in defect.signatures.items() if known.get(signature, 0) < count}
        assert not stale, (
            f"{defect.defect}: the shipped kill signatures are stale, run python -m "
            f"toolsurface.harness._make_kill_signatures ({stale})"
        )


def test_the_settlement_tells_an_unsettled_refusal_from_one_settled_twice_or_on_another_lane(remade):
    settled = {defect.defect: {signature[-1] for signature in defect.signatures} for defect in remade.defects}
    assert settled["no-settle"] == {"none"}
    assert settled["second-receipt"] == {"pre_dispatch_rejected+failed(refused)"}
    assert settled["wrong-lane-settle"] == {"pre_dispatch_rejected@main(refused)"}
    assert {signature[WHERE:] for signature in remade.named("hook-only-final").signatures} == {
        ("survived", "dispatched", "dispatched")
    }


def test_the_data_file_reads_back_as_written_and_refuses_data_of_other_fields():
    data = KillSignatures(
        7, 12, (KillSignature("no-settle", FLAWS["no-settle"], {("a",) * len(FIELDS): 3, ("b",) * len(FIELDS): 1}),)
    )
    raw = encode(data)
    assert decode(raw) == data
    assert raw.count(b"\n") == 4  # the head, the defects' opening, one line per defect, the close
    with pytest.raises(ValueError, match="regenerate it"):
        decode(raw.replace(b'"settled"', b'"settlement"'))
