"""Reference targets: the guarded design, the legacy path, and one-flaw defect variants."""

from ._defects import DEFECTS
from ._guarded import GuardedPipeline
from ._legacy import LegacyPipeline

#: Every built-in target spec → its pipeline class.
REFERENCE_TARGETS: dict[str, type[GuardedPipeline]] = {
    GuardedPipeline.name: GuardedPipeline,
    LegacyPipeline.name: LegacyPipeline,
    **{cls.name: cls for cls in DEFECTS.values()},
}

__all__ = ["DEFECTS", "REFERENCE_TARGETS", "GuardedPipeline", "LegacyPipeline"]
