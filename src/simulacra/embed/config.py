"""Choosing an embedder by configuration; every choice sits behind a text cache."""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from simulacra.embed.base import CachedEmbedder, Embedder
from simulacra.embed.hashing import HashingEmbedder
from simulacra.embed.minilm import MiniLMEmbedder
from simulacra.embed.static import Model2VecEmbedder
from simulacra.errors import UserError

EmbedderKind = Literal["minilm", "model2vec", "hashing"]


class EmbedderError(UserError, ValueError):
    """An embedder that does not exist."""


class EmbedderConfig(BaseModel):
    """minilm: the default, all-MiniLM-L6-v2's quality without torch, and the slowest;
    model2vec: the fast option (about 100 times faster; 9 of 12 reworded facts found where
    MiniLM finds 11, see retrieval_check); hashing: for tests only (it knows no synonyms)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: EmbedderKind = "minilm"
    cache_size: int = Field(default=200_000, ge=1, description="texts kept in the cache")
    # 1 suits a process pool or a busy machine, where two threads per process fight for cores.
    minilm_threads: int = Field(default=2, ge=1, description="onnxruntime intra-op threads")


def build_embedder(config: EmbedderConfig) -> CachedEmbedder:
    inner: Embedder
    if config.kind == "minilm":
        inner = MiniLMEmbedder(threads=config.minilm_threads)
    elif config.kind == "model2vec":
        inner = Model2VecEmbedder()
    else:
        inner = HashingEmbedder()
    return CachedEmbedder(inner, max_entries=config.cache_size)


def default_embedder(kind: str = "minilm") -> Embedder:
    """The embedder a run uses unless its configuration says otherwise."""
    try:
        config = EmbedderConfig.model_validate({"kind": kind})
    except ValidationError:
        raise EmbedderError(
            f"unknown embedder {kind!r}; expected one of {', '.join(get_args(EmbedderKind))}"
        ) from None
    return build_embedder(config)
