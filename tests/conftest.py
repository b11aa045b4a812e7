import importlib.abc
import os
import sys

from hypothesis import settings


class _CheckoutFolders(importlib.abc.MetaPathFinder):
    """Refuses the checkout's folders by their bare names.

    From the repository root they are importable as `harness`, `scenarios`, …, which would load a
    second copy of the package beside the installed `toolsurface`, with enums that compare
    unequal to its own: in a test, `import harness` is a bug.
    """

    FOLDERS = frozenset({"harness", "mutators", "scenarios", "reports", "examples"})

    def find_spec(self, name, path, target=None):
        if name.partition(".")[0] in self.FOLDERS:
            raise ImportError(f"import toolsurface.{name}, not the checkout's folder {name!r}", name=name)
        return None


sys.meta_path.insert(0, _CheckoutFolders())

# CI runs are derandomized: the same commit gives the same examples.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
