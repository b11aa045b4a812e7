"""The scan rules, one class per file; `RULES` holds one of each in id order."""

from .bad_suppression import BadSuppression
from .conditional_check import ConditionalCheck
from .diagnostic_authority import DiagnosticAuthority
from .hook_admits_control import HookAdmitsControl
from .hook_edits_schema_in_place import HookEditsSchemaInPlace
from .self_derived_baseline import SelfDerivedBaseline
from .shared_baseline import SharedBaseline
from .silent_truncation import SilentTruncation
from .unguarded_dispatch import UnguardedDispatch
from .unsettled_rejection import UnsettledRejection

RULES = tuple(
    rule()
    for rule in (
        BadSuppression,
        UnguardedDispatch,
        ConditionalCheck,
        SelfDerivedBaseline,
        SharedBaseline,
        UnsettledRejection,
        DiagnosticAuthority,
        SilentTruncation,
        HookAdmitsControl,
        HookEditsSchemaInPlace,
    )
)

__all__ = [
    "RULES",
    "BadSuppression",
    "ConditionalCheck",
    "DiagnosticAuthority",
    "HookAdmitsControl",
    "HookEditsSchemaInPlace",
    "SelfDerivedBaseline",
    "SharedBaseline",
    "SilentTruncation",
    "UnguardedDispatch",
    "UnsettledRejection",
]
