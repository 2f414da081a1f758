"""simulacra: a local-first platform for LLM-driven agent-based simulation."""

__version__ = "0.1.0"
