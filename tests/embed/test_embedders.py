"""Every embedder: float32 unit rows of its width, batching that changes nothing, meaning."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulacra.embed import Embedder, default_embedder

SENTENCES = [
    "Isabella is throwing a Valentine's party at Hobbs Cafe",
    "Klaus is reading about gentrification at the library",
    "The stove is turned off",
    "Maria is drinking a cup of coffee",
    "a text longer than any model reads " * 120,
]
KINDS = [
    "hashing",
    "model2vec",
    pytest.param("minilm", marks=pytest.mark.slow),
]
SEMANTIC_KINDS = ["model2vec", pytest.param("minilm", marks=pytest.mark.slow)]


@pytest.mark.parametrize("kind", KINDS)
def test_rows_are_float32_unit_vectors_of_the_declared_width(kind: str) -> None:
    embedder = default_embedder(kind)
    vectors = embedder.embed(SENTENCES)
    assert isinstance(embedder, Embedder)
    assert vectors.shape == (len(SENTENCES), embedder.dim)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize("kind", KINDS)
def test_no_texts_give_an_empty_matrix(kind: str) -> None:
    embedder = default_embedder(kind)
    assert embedder.embed([]).shape == (0, embedder.dim)


@pytest.mark.parametrize("kind", KINDS)
def test_a_batch_equals_the_texts_embedded_one_at_a_time(kind: str) -> None:
    # A fresh embedder each time, so the text cache cannot hide a difference.
    together = default_embedder(kind).embed(SENTENCES)
    alone = np.vstack([default_embedder(kind).embed([text]) for text in SENTENCES])
    np.testing.assert_allclose(together, alone, atol=1e-5)


@pytest.mark.parametrize("kind", SEMANTIC_KINDS)
def test_a_paraphrase_scores_higher_than_an_unrelated_sentence(kind: str) -> None:
    party, paraphrase, unrelated = default_embedder(kind).embed(
        [
            "Isabella is throwing a Valentine's party at Hobbs Cafe",
            "There will be a celebration at the cafe hosted by Isabella",
            "The stove is turned off",
        ]
    )
    assert party @ paraphrase > party @ unrelated + 0.2


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(max_size=60), max_size=6))
def test_model2vec_gives_unit_or_zero_rows_whatever_the_batch(texts: list[str]) -> None:
    vectors = default_embedder("model2vec").embed(texts)
    norms = np.linalg.norm(vectors, axis=1)
    assert np.all((np.abs(norms - 1.0) < 1e-5) | (norms == 0.0))
    alone = [default_embedder("model2vec").embed([text]) for text in texts]
    if texts:
        np.testing.assert_allclose(vectors, np.vstack(alone), atol=1e-5)
