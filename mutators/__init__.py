"""Mutation generators: controlled changes to the tool list (and messages) of a live request.

Each mutator is one small class keyed `kind.variant`, with before/after examples that are also
its tests. `MUTATORS` holds one of each in planning order; the Hypothesis strategies generate
surfaces, scenarios, owner facts and composed edit sequences for property tests (in
`_strategies`, imported only by what needs Hypothesis).
"""

from ._base import Delivery, Edit, Example, Expect, Kind, Mutation, MutationNotApplicable, Mutator
from ._registry import MUTATORS, by_key

__all__ = [
    "MUTATORS",
    "Delivery",
    "Edit",
    "Example",
    "Expect",
    "Kind",
    "Mutation",
    "MutationNotApplicable",
    "Mutator",
    "by_key",
]
