"""Sentence embeddings for relevance: an offline semantic default and a hashing test double."""

from simulacra.embed.base import CachedEmbedder, Embedder, Vectors, normalise
from simulacra.embed.config import (
    EmbedderConfig,
    EmbedderError,
    EmbedderKind,
    build_embedder,
    default_embedder,
)
from simulacra.embed.files import ModelFileError
from simulacra.embed.hashing import HashingEmbedder
from simulacra.embed.minilm import MiniLMEmbedder
from simulacra.embed.static import Model2VecEmbedder

__all__ = [
    "CachedEmbedder",
    "Embedder",
    "EmbedderConfig",
    "EmbedderError",
    "EmbedderKind",
    "HashingEmbedder",
    "MiniLMEmbedder",
    "Model2VecEmbedder",
    "ModelFileError",
    "Vectors",
    "build_embedder",
    "default_embedder",
    "normalise",
]
