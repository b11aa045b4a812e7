"""Provider adapters and the gateway they send through."""

from .anthropic_compat import AnthropicAdapter, AnthropicLane
from .base import AdapterSet, BaseAdapter
from .gateway import Gateway
from .openai_compat import OpenAIAdapter, OpenAIBinding

__all__ = ["AdapterSet", "AnthropicAdapter", "AnthropicLane", "BaseAdapter", "Gateway", "OpenAIAdapter",
           "OpenAIBinding"]
