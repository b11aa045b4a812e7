"""Each reference defect's flaw in a few words, as a diagnosis names it to a person.

The classes' docstrings say how each flaw is built; these say what a host that fails the same way
gets wrong, short enough to follow a defect's name on one terminal line.
"""

from __future__ import annotations

#: Defect name → its flaw, in words a host author recognizes in their own code.
FLAWS: dict[str, str] = {
    "shared-ref": "the baseline shares the request's tool objects, so an in-place edit changes both",
    "seal-baseline": "the final check compares the request with a seal made from that same request",
    "hook-only-final": "no final check on the no-hook path",
    "early-only": "no final check: nothing after the hooks is checked",
    "no-settle": "a refusal is raised but never settled in the owner's ledger",
    "topn-drop": "context fitting keeps the first tools that fit the uncompressed conversation",
    "hook-control": "a control tool a hook adds is taken for an admitted one",
    "name-keyed": "the check compares tools by name, blind to their order",
    "description-pin": "the check pins descriptions by name: blind to schema edits and renames",
    "wire-blind": "the check reads name, description and schema only: blind to wire fields",
    "converts-after-check": "a provider conversion rewrites the tools after the final check",
    "final-only-laundering": "no early check, and re-validation re-bases the check on what it re-validated",
    "wrong-lane-settle": "a refusal is settled in the main lane's ledger, whichever lane opened it",
    "second-receipt": "a refusal is settled twice: by the owner, then by a receipt of the guard's own",
    "drops-publication": "a refusal withdraws a body that was already publishable",
    "final-only": "no early check: a re-validation that rebuilds the tools launders a hook's edit",
    "diagnostic-authority": "diagnostics in tool results are taken for availability and hide tools",
    "identity-blind": "every availability fact is trusted, whoever made it and whomever it binds",
    "any-known-owner": "a fact from any known owner is trusted, whatever its kind",
    "last-scope-segment": "a fact's scope is matched on its last path segment only",
    "child-obeys-parent": "a child request obeys the facts bound to its parent",
    "facts-read-once": "owner facts are read once: a trusted fact that arrives mid-run is never obeyed",
    "budget-hides-read": "an exhausted search budget hides web read too",
    "recovery-reparse": "recovery rebuilds availability from the transcript, not the sealed receipt",
    "silent-capacity-drop": "tools that do not fit are dropped silently instead of a capacity result",
    "entry-overclaim": "an entry request's capability summary is never checked",
    "first-page-only": "only the first tools/list page is read: later pages are lost",
    "list-change-ignored": "an MCP list change is never heard: a withdrawn tool is still sent",
    "list-change-adopted": "an MCP list change is taken into the request in flight",
    "cap-after-check": "the list is cut to 40 tools after the final check",
    "description-cut-after-check": "descriptions are cut to 1,024 characters after the final check",
    "name-cut-after-check": "names are cut to 48 characters after the final check",
    "selector-trim": "over the provider's tool limit, a selector keeps the first tools instead of a capacity result",
    "first-call-only": "only the first model call of a request is checked",
    "frozen-at-first-call": (
        "later model calls are held to the first call's tools, so a fact between calls reads as a change"
    ),
}
