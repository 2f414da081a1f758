"""Sentence embeddings for relevance: an offline semantic default and a hashing test double."""

from simulacra.embed.base import CachedEmbedder, Embedder, Vectors, normalise
from simulacra.embed.hashing import HashingEmbedder

__all__ = ["CachedEmbedder", "Embedder", "HashingEmbedder", "Vectors", "normalise"]
