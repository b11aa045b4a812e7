"""Reason codes: the closed set of ways the oracle reaches a verdict, one per branch of `_oracles`.

A verdict carries its code beside its reason (as LibCST's `SkipReason` sits beside its
description). The code decides: `_integrity` holds a recorded verdict to its evidence by its code,
and results.json carries it, so a reader never has to recover what happened from the words of a
reason. The reason describes: it names the particulars (tools, counts, a host's own message) for a
person, and its wording may change without changing what any program reads.

Each member's comment says which verdict it comes with; docs/commands.md (Reason codes) lists them for users.
"""

from __future__ import annotations

import enum


class ReasonCode(enum.StrEnum):
    """Why a case got its verdict, as one of the oracle's branches: `dispatched_changed_surface`."""

    # The case's change was never exercised, by design.
    #: equivalent: the mutation leaves the surface canonically unchanged, so the case is not run.
    EQUIVALENT = "equivalent"
    #: equivalent: the mutation changes a wire field the target's tool format does not carry.
    NOT_CARRIED = "not_carried"
    #: equivalent: an MCP list change on a target that never lists tools from the MCP server.
    MCP_UNREACHED = "mcp_unreached"
    #: equivalent: the change acts on a tool the agent's admission left out of the model call.
    NOT_SELECTED = "not_selected"

    # A change a guard must refuse.
    #: killed: refused before dispatch and settled as pre_dispatch_rejected.
    REFUSED_SETTLED = "refused_settled"
    #: survived: refused, but the ledger shows another settlement, a refused event or an open reservation.
    REFUSED_UNSETTLED = "refused_unsettled"
    #: survived: refused and settled, but a publication was changed or removed.
    REFUSED_PUBLICATION_LOST = "refused_publication_lost"
    #: survived: refused and settled, none lost, but a publication was added (a draft published, then refused).
    REFUSED_PUBLICATION_ADDED = "refused_publication_added"
    #: survived: the request went out with the change (or with a different number of model calls).
    DISPATCHED_WITH_CHANGE = "dispatched_with_change"
    #: survived: the expected surface went out: the change was repaired instead of refused.
    DISPATCHED_REPAIRED = "dispatched_repaired"
    #: survived: on an MCP list change, the host sent the list from before it and missed the change.
    DISPATCHED_MISSED_CHANGE = "dispatched_missed_change"
    #: survived: a model call before the case's own sent a surface that differs from its expected one.
    EARLIER_CALL_DIFFERS = "earlier_call_differs"

    # A request that must end in an explicit capacity result.
    #: passed: an explicit capacity result, settled as pre_dispatch_rejected, nothing sent.
    CAPACITY_RESULT = "capacity_result"
    #: survived: a capacity result, but the ledger shows something amiss.
    CAPACITY_UNSETTLED = "capacity_unsettled"
    #: survived: a capacity result, settled, but a publication was changed or removed.
    CAPACITY_PUBLICATION_LOST = "capacity_publication_lost"
    #: survived: a capacity result, settled, none lost, but a publication was added.
    CAPACITY_PUBLICATION_ADDED = "capacity_publication_added"
    #: survived: a shortened surface was dispatched instead of a capacity result.
    DISPATCHED_OVER_CAPACITY = "dispatched_over_capacity"
    #: false_reject: refused (or nothing sent) instead of an explicit capacity result.
    REFUSED_NOT_CAPACITY = "refused_not_capacity"

    # A model call the provider fails: the request must end there, settled once.
    #: passed: ended in the provider's failure, settled once: as dispatched where an earlier model
    #: call went out, else as failed.
    PROVIDER_FAILURE_SETTLED = "provider_failure_settled"
    #: survived: ended in the provider's failure, but the ledger shows another settlement, a refused
    #: event or an open reservation.
    PROVIDER_FAILURE_UNSETTLED = "provider_failure_unsettled"
    #: survived: ended in the provider's failure and settled, but a publication was changed or removed.
    PROVIDER_FAILURE_PUBLICATION_LOST = "provider_failure_publication_lost"
    #: survived: ended in the provider's failure before any model call went out, settled, none
    #: lost, but a publication was added.
    PROVIDER_FAILURE_PUBLICATION_ADDED = "provider_failure_publication_added"

    # A change a guard must let through.
    #: passed: dispatched with the expected surface and settled as dispatched.
    DISPATCHED_AS_EXPECTED = "dispatched_as_expected"
    #: survived: dispatched as expected, but the ledger shows something amiss.
    DISPATCHED_UNSETTLED = "dispatched_unsettled"
    #: survived: dispatched as expected and settled, but a publication was changed or removed (one
    #: added is the request's own, and allowed).
    DISPATCHED_PUBLICATION_LOST = "dispatched_publication_lost"
    #: survived: more model calls were made than the recording makes.
    DISPATCHED_TOO_OFTEN = "dispatched_too_often"
    #: survived: a model call sent a surface that differs from its expected one.
    DISPATCHED_CHANGED_SURFACE = "dispatched_changed_surface"
    #: survived: a model call sent a capability summary the contract does not state.
    DISPATCHED_CHANGED_SUMMARY = "dispatched_changed_summary"
    #: false_reject: the request was refused, or ended in a capacity result, with the host's message.
    FALSE_REJECTION = "false_rejection"
    #: false_reject: nothing was dispatched and the host gave no refusal.
    NEVER_DISPATCHED = "never_dispatched"
    #: error: the host made fewer model calls than the recording and never answered a reply's tool calls.
    CALLS_UNANSWERED = "calls_unanswered"

    # The case could not be exercised: always an error.
    #: error: the target timed out (its worker killed if it ignored the interrupt).
    TIMED_OUT = "timed_out"
    #: error: the target's worker process died or was interrupted while the case ran.
    WORKER_STOPPED = "worker_stopped"
    #: error: the target raised an exception.
    CRASHED = "crashed"
    #: error: the host forked while the case ran.
    FORKED = "forked"
    #: error: the host started from state an earlier case left.
    STALE_HOST = "stale_host"
    #: error: the target's unchanged request on the recording failed, so nothing holds the case to one.
    NO_CLEAN_RUN = "no_clean_run"
    #: error: the mutation could not be applied at the injection point.
    INJECTION_FAILED = "injection_failed"
    #: error: the target never offered the case's injection point.
    POINT_NOT_OFFERED = "point_not_offered"
    #: error: the target ended in its own capacity result before it reached the injection point.
    CAPACITY_BEFORE_POINT = "capacity_before_point"
    #: error: the target refused its unchanged request in an earlier model call than the injection point's.
    REFUSED_BEFORE_POINT = "refused_before_point"
    #: error: the target touched neither the gateway nor the ledger.
    NOTHING_OBSERVED = "nothing_observed"
    #: error: the case's first run went wrong before its change; run again on a fresh host, it passed.
    FIRST_RUN_FAILED = "first_run_failed"

    # What the case did after its request; each overrides the verdict its request got.
    #: survived (or the failing verdict it overrides): the change leaked into the next request on the same host.
    OUTLIVED_REQUEST = "outlived_request"
    #: error: the follow-up request on the same host failed, so whether the change outlived its request is unknown.
    UNFOLLOWED = "unfollowed"
    #: survived (or the failing verdict it overrides): an effect on the ports after `run` returned.
    LATE_EFFECT = "late_effect"
    #: error: the host left threads running past the watch, so a later effect cannot be ruled out.
    UNWATCHED = "unwatched"


#: The codes of a verdict failed for what its case did after its request (`Evidence.aftermath`).
AFTER = frozenset({ReasonCode.OUTLIVED_REQUEST, ReasonCode.UNFOLLOWED, ReasonCode.LATE_EFFECT, ReasonCode.UNWATCHED})
#: The codes of the oracle's own `error` verdicts on a request: the case could not be exercised,
#: or the host did not follow the recording it ran.
ERRORS = frozenset(
    {
        ReasonCode.TIMED_OUT,
        ReasonCode.WORKER_STOPPED,
        ReasonCode.CRASHED,
        ReasonCode.FORKED,
        ReasonCode.STALE_HOST,
        ReasonCode.NO_CLEAN_RUN,
        ReasonCode.FIRST_RUN_FAILED,
        ReasonCode.INJECTION_FAILED,
        ReasonCode.POINT_NOT_OFFERED,
        ReasonCode.CAPACITY_BEFORE_POINT,
        ReasonCode.REFUSED_BEFORE_POINT,
        ReasonCode.NOTHING_OBSERVED,
        ReasonCode.CALLS_UNANSWERED,
    }
)
