"""Reference targets: the guarded design, the same guard as a framework's middleware, the legacy
path, and one-flaw defect variants."""

from ._defects import DEFECTS
from ._framework import FrameworkPipeline
from ._guarded import GuardedPipeline
from ._legacy import LegacyPipeline

#: Every built-in target spec → its pipeline class.
REFERENCE_TARGETS: dict[str, type[GuardedPipeline]] = {
    GuardedPipeline.name: GuardedPipeline,
    FrameworkPipeline.name: FrameworkPipeline,
    LegacyPipeline.name: LegacyPipeline,
    **{cls.name: cls for cls in DEFECTS.values()},
}

__all__ = ["DEFECTS", "REFERENCE_TARGETS", "FrameworkPipeline", "GuardedPipeline", "LegacyPipeline"]
