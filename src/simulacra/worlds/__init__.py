"""The worlds agents live in: each implements `simulacra.core.World` and holds no prompts."""
