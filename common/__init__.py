"""What every layer above the contract shares: input errors, files written whole, TOML and
pyproject tables, printable text, the installed version."""
