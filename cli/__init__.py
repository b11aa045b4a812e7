"""The `toolsurface` command: flags in, the engine, the scan and the reports run, exit codes out."""

from ._app import app, main

__all__ = ["app", "main"]
