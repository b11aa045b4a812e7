"""Reference hosts to copy from, each behind its own extra: `mcp_host` (`toolsurface[mcp-host]`)."""
