"""Near misses: for each lossy comparison, a change it cannot see; and the diff names the comparison
blind to a change whoever made it."""

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolsurface.contract._diff import diff
from toolsurface.contract._facts import Binding, FactKind, OwnerFact, WebTools, rule
from toolsurface.contract._lossy import Lossy, blind_to
from toolsurface.mutators._near_miss import TEXT_COMPARISONS, near_miss

NAME = "market__get_instrument_profile"
TEXT = "Read the public profile of one instrument."

#: What each comparison's near miss makes of NAME and TEXT (None: it makes none), and the lossy
#: comparison a host would write that takes it for the original.
MADE = [
    (Lossy.CASEFOLD, NAME, "Market__get_instrument_profile", str.casefold),
    (Lossy.NFKC, NAME, "\uff4darket__get_instrument_profile", lambda t: unicodedata.normalize("NFKC", t)),
    (Lossy.STRIP, NAME, f"{NAME} ", str.strip),
    (Lossy.COLLAPSE, TEXT, "Read\u00a0the public profile of one instrument.", lambda t: " ".join(t.split())),
    (Lossy.COLLAPSE, NAME, None, None),
    (Lossy.ZERO_WIDTH, NAME, "m\u200barket__get_instrument_profile", lambda t: t.replace("\u200b", "")),
    (Lossy.PREFIX, NAME, f"{NAME}_v2", lambda t: t[: len(NAME)]),
    (Lossy.SUFFIX, NAME, f"proxy__{NAME}", lambda t: t[-len(NAME) :]),
    (Lossy.LAST_SEGMENT, NAME, "market2__get_instrument_profile", lambda t: t.rpartition("__")[2]),
    (Lossy.LAST_SEGMENT, TEXT, None, None),
    (Lossy.HEAD, NAME, "market__get_instrument_profilf", lambda t: (len(t), t[:-1])),
]


@pytest.mark.parametrize(("lossy", "text", "made", "host"), MADE, ids=lambda value: str(value)[:24])
def test_each_near_miss_is_one_the_comparison_a_host_writes_takes_for_the_original(lossy, text, made, host) -> None:
    assert near_miss(text, lossy) == made
    if made is not None:
        assert host(made) == host(text) and made != text


@given(st.text(max_size=40), st.sampled_from(TEXT_COMPARISONS))
def test_a_near_miss_differs_and_its_comparison_cannot_tell(text: str, lossy: Lossy) -> None:
    made = near_miss(text, lossy)
    if made is not None:
        assert made != text and lossy.same(text, made)
        assert lossy in blind_to(text, made)


def test_equal_values_are_no_near_miss_and_loose_equality_is_told_apart_by_type() -> None:
    assert blind_to("a", "a") == () and blind_to(1, 1) == ()
    assert blind_to(1, 1.0) == (Lossy.LOOSE_EQUALITY,) and blind_to(True, 1) == (Lossy.LOOSE_EQUALITY,)
    assert blind_to({"minimum": 1}, {"minimum": 1.0}) == (Lossy.LOOSE_EQUALITY,)
    assert blind_to("abc", "xyz") == ()


def test_the_diff_names_the_comparison_blind_to_a_change_whoever_made_it() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}}
    retyped = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1.0}}}
    (renamed,) = diff([[NAME, TEXT, schema]], [[NAME.upper(), TEXT, schema]])
    assert str(renamed).endswith("(invisible to casefold)")
    (described,) = diff([[NAME, TEXT, schema]], [[NAME, f"{TEXT} ", schema]])
    assert str(described) == f"description of {NAME!r} changed (invisible to strip())"
    (changed,) = diff([[NAME, TEXT, schema]], [[NAME, TEXT, retyped]])
    assert str(changed) == f"schema of {NAME!r} changed at /properties/n/minimum (1 → 1.0: invisible to ==)"
    (removed,) = diff(
        [[NAME, TEXT, retyped]], [[NAME, TEXT, {"type": "object", "properties": {"n": {"type": "integer"}}}]]
    )
    assert str(removed).endswith("changed at /properties/n/minimum (removed)")


def test_a_fact_bound_to_a_near_miss_is_refused_trust_naming_what_a_lossy_host_would_miss() -> None:
    ours = Binding("run-1", "scope:research/etf", "inv-1", "conn-1")
    theirs = Binding("run-1", "Scope:research/etf", "inv-1", "conn-1")
    web = WebTools("web_search", "web_read")
    ruling = rule(OwnerFact(FactKind.SEARCH_BUDGET_EXHAUSTED, "web_gateway", theirs), ours, web)
    assert not ruling.trusted and ruling.ignored_because.endswith("(invisible to casefold)")
    impostor = rule(OwnerFact(FactKind.SEARCH_BUDGET_EXHAUSTED, "web_gateway ", ours), ours, web)
    assert not impostor.trusted and impostor.ignored_because.endswith("(invisible to strip())")
