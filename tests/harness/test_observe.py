"""What a run did to the publication store: the whole difference, as a small value, recorded by
`observe_ports` from the store the harness owns, never from the host's account."""

from hypothesis import given
from hypothesis import strategies as st

from toolsurface.harness._observe import observe_ports, target_ports
from toolsurface.harness._targets import load_with_traits
from toolsurface.harness._types import PREVIEW, PublicationsDiff, Published, Refused
from toolsurface.scenarios import Boundary, load


def test_the_difference_names_what_was_added_changed_and_removed():
    before = {"kept": "same", "rewritten": "old", "withdrawn": "gone now"}
    after = {"kept": "same", "rewritten": "new", "draft": "a draft"}
    store = PublicationsDiff.between(before, after)
    assert store == PublicationsDiff(
        added=(Published("draft", "a draft"),),
        changed=(Published("rewritten", "new"),),
        removed=(Published("withdrawn", "gone now"),),
    )
    assert store.lost == (Published("rewritten", "new"), Published("withdrawn", "gone now"))
    assert store.lines() == ("added 'draft': a draft", "changed 'rewritten': new", "removed 'withdrawn': gone now")


def test_a_store_left_as_it_was_is_no_difference():
    store = PublicationsDiff.between({"p": "body"}, {"p": "body"})
    assert store == PublicationsDiff() and not store and store.lines() == ()
    assert PublicationsDiff(added=(Published("p", "b"),))


def test_a_body_is_kept_as_a_one_line_preview():
    (added,) = PublicationsDiff.between({}, {"p": "line one\nline two " + "x" * 200}).added
    assert added.preview.startswith("line one line two x") and added.preview.endswith("…")
    assert len(added.preview) == PREVIEW


stores = st.dictionaries(st.sampled_from("abcdef"), st.sampled_from(["1", "2", "3"]), max_size=6)


@given(before=stores, after=stores)
def test_the_difference_accounts_for_every_key_exactly_once(before, after):
    store = PublicationsDiff.between(before, after)
    added, changed, removed = ({p.key for p in part} for part in (store.added, store.changed, store.removed))
    assert added == after.keys() - before.keys()
    assert removed == before.keys() - after.keys()
    assert changed == {key for key in before.keys() & after.keys() if before[key] != after[key]}
    assert bool(store) == (before != after)


def test_a_run_that_publishes_a_draft_and_refuses_is_observed_with_the_draft():
    scenario = next(s for s in load() if s.publication is not None)
    host = load_with_traits("tests.fixtures.user_targets:PublishesDraft")
    at = Boundary(scenario.points[0])
    # The change drops the first tool: the host's check refuses the request, its draft left published.
    ports = target_ports(host.traits, scenario, at, lambda tools, messages, facts: (tools[1:], messages), 0)
    observed = observe_ports(host, scenario, ports, 30)
    assert isinstance(observed.stop, Refused) and not observed.dispatches
    draft = f"draft/{scenario.identity.request}"
    assert observed.publications == PublicationsDiff(
        added=(Published(draft, "Draft note, not yet checked: VWRL and SSAC"),)
    )
