"""A small but complete reference MCP host, its guard, and the toolsurface target around both.

It imports nothing of toolsurface but the public API, so the folder can be copied into a project
as the template for a host of its own.
"""

_INSTALL = "the MCP host example needs mcp 2.x, openai 3.x and anthropic 2.x: pip install 'toolsurface[mcp-host]'"
try:
    import anthropic
    import httpx2
    import mcp
    import openai
    from mcp import Client
except ImportError as error:
    raise ImportError(f"{_INSTALL} ({error})") from error
if not (openai.__version__.startswith("3.") and anthropic.__version__.startswith("2.")):
    raise ImportError(f"{_INSTALL} (found openai {openai.__version__}, anthropic {anthropic.__version__})")
del anthropic, httpx2, mcp, openai, Client
