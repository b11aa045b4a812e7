"""Mutation generators: controlled changes to the tool list (and messages) of a live request.

Each mutator is one small class keyed `kind.variant`, with before/after examples that are also
its tests. What a mutation hits is a typed aim (`Tool`, `Insert`, `SchemaPath`…; the union is
`Aim`). `MUTATORS` holds one of each in planning order; the Hypothesis strategies generate
surfaces, scenarios, owner facts and composed edit sequences for property tests (in
`_strategies`, imported only by what needs Hypothesis).
"""

from ._aims import (
    Aim,
    Claim,
    Cut,
    Diagnostic,
    FactField,
    ForeignOwner,
    Forgery,
    Form,
    Insert,
    Keep,
    LookAlike,
    LooksLike,
    Messages,
    Narrowing,
    NearText,
    ParentBound,
    Reverse,
    Rotate,
    SchemaPath,
    Selection,
    Steps,
    Swap,
    Tool,
    Where,
    WireField,
)
from ._base import (
    Delivery,
    Edit,
    Example,
    Kind,
    Must,
    Mutation,
    MutationNotApplicable,
    Mutator,
    NotCarried,
)
from ._registry import EXPLORING, MUTATORS, by_key

__all__ = [
    "EXPLORING",
    "MUTATORS",
    "Aim",
    "Claim",
    "Cut",
    "Delivery",
    "Diagnostic",
    "Edit",
    "Example",
    "FactField",
    "ForeignOwner",
    "Forgery",
    "Form",
    "Insert",
    "Keep",
    "Kind",
    "LookAlike",
    "LooksLike",
    "Messages",
    "Must",
    "Mutation",
    "MutationNotApplicable",
    "Mutator",
    "Narrowing",
    "NearText",
    "NotCarried",
    "ParentBound",
    "Reverse",
    "Rotate",
    "SchemaPath",
    "Selection",
    "Steps",
    "Swap",
    "Tool",
    "Where",
    "WireField",
    "by_key",
]
