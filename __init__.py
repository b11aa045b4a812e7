"""toolsurface: prove that the tools an LLM agent host sends are exactly the tools it admitted."""
