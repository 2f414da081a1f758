"""Choosing an embedder by configuration, and the text cache in front of it."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from simulacra.embed import (
    CachedEmbedder,
    EmbedderConfig,
    EmbedderError,
    HashingEmbedder,
    MiniLMEmbedder,
    Model2VecEmbedder,
    Vectors,
    build_embedder,
    default_embedder,
)


class CountingEmbedder(HashingEmbedder):
    """The real hashing embedder, recording which texts reach it."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.seen.extend(texts)
        return super().embed(texts)


def test_the_cache_embeds_each_distinct_text_once() -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner)
    first = cached.embed(["a cafe", "a park", "a cafe"])
    second = cached.embed(["a park", "a library", "a cafe"])
    assert sorted(inner.seen) == ["a cafe", "a library", "a park"]
    np.testing.assert_array_equal(first[0], second[2])
    np.testing.assert_array_equal(first[0], inner.embed(["a cafe"])[0])


def test_a_full_cache_starts_afresh_and_still_answers_for_texts_it_held() -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, max_entries=2)
    cached.embed(["a cafe", "a park"])
    both = cached.embed(["a cafe", "a library"])  # full: "a cafe" goes with the rest
    np.testing.assert_array_equal(both, inner.embed(["a cafe", "a library"]))
    assert inner.seen[:4] == ["a cafe", "a park", "a cafe", "a library"]


@pytest.mark.parametrize(
    ("kind", "inner_type", "dim"),
    [
        ("minilm", MiniLMEmbedder, 384),
        ("model2vec", Model2VecEmbedder, 256),
        ("hashing", HashingEmbedder, 256),
    ],
)
def test_build_embedder_wraps_the_chosen_kind_in_a_cache(
    kind: str, inner_type: type, dim: int
) -> None:
    embedder = build_embedder(EmbedderConfig.model_validate({"kind": kind, "cache_size": 10}))
    assert isinstance(embedder, CachedEmbedder)
    assert isinstance(embedder.inner, inner_type)
    assert (embedder.dim, embedder.max_entries) == (dim, 10)


def test_the_default_embedder_is_minilm() -> None:
    embedder = default_embedder()
    assert embedder.name == "all-MiniLM-L6-v2-int8"
    assert embedder.dim == 384


def test_an_unknown_kind_is_refused_with_the_known_kinds() -> None:
    with pytest.raises(EmbedderError, match="'bert'; expected one of minilm, model2vec, hashing"):
        default_embedder("bert")


def test_minilm_threads_come_from_the_config() -> None:
    embedder = build_embedder(EmbedderConfig(kind="minilm", minilm_threads=1))
    assert isinstance(embedder.inner, MiniLMEmbedder)
    assert embedder.inner.threads == 1
