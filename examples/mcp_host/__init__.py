"""A small but complete reference MCP host, its guard, and the toolsurface target around both."""

_INSTALL = "the MCP host example needs: pip install 'mcp>=2,<3' 'openai>=3,<4' 'anthropic>=2,<3'"
try:
    import anthropic
    import mcp
    import openai
    from mcp import Client  # noqa: F401  (mcp 2's client; 1.x has none)
except ImportError as error:
    raise ImportError(f"{_INSTALL} ({error})") from error
if not (openai.__version__.startswith("3.") and anthropic.__version__.startswith("2.")):
    raise ImportError(f"{_INSTALL} (found openai {openai.__version__}, anthropic {anthropic.__version__})")
del anthropic, mcp, openai
