import os
import sys

from hypothesis import settings

# The checkout's folders are importable from the repository root under their bare names, which
# would load a second copy of the package beside the installed `toolsurface` (with enums that
# compare unequal to its own). Refuse them outright: `import harness` here is a bug in a test.
for _folder in ("harness", "mutators", "scenarios", "reports"):
    sys.modules[_folder] = None  # type: ignore[assignment]

# CI runs are derandomized: the same commit gives the same examples.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
