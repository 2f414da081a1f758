"""Embeddings stored as 8-bit codes: a quarter of the bytes, the same answers."""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from simulacra.embed import default_embedder
from simulacra.embed.retrieval_check import PLANTED_FACTS, planted_fact_hits, routine_observations
from simulacra.memory import MemoryStream
from simulacra.memory.quantized import dot, quantize

NOW = datetime(2024, 2, 14, 9, 0)
OBSERVATIONS = 2000

rows = arrays(
    np.float32,
    st.tuples(st.integers(1, 40), st.integers(1, 64)),
    elements=st.floats(-1, 1, width=32),
)


@given(rows)
def test_quantized_dot_products_stay_within_half_a_step_of_each_coordinate(
    vectors: np.ndarray,
) -> None:
    codes, scales = quantize(vectors)
    assert codes.dtype == np.int8 and codes.nbytes * 4 == vectors.nbytes
    query = np.ones(vectors.shape[1], dtype=np.float32) / np.sqrt(vectors.shape[1])
    # Each coordinate is off by at most half a step (scale / 2); the query's 1-norm bounds
    # what that does to the dot product.
    bound = scales / 2 * np.abs(query).sum() + 1e-5
    assert np.all(np.abs(dot(codes, scales, query) - vectors @ query) <= bound)


def test_a_matrix_larger_than_one_block_is_read_whole() -> None:
    vectors = np.random.default_rng(0).standard_normal((3000, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    codes, scales = quantize(vectors)
    exact = vectors @ vectors[1234]
    found = dot(codes, scales, vectors[1234])
    assert found.shape == (3000,) and int(np.argmax(found)) == 1234
    assert np.max(np.abs(found - exact)) < 0.01


@pytest.mark.parametrize("kind", ["model2vec", pytest.param("minilm", marks=pytest.mark.slow)])
async def test_the_stream_finds_as_many_planted_facts_as_float32_vectors_do(kind: str) -> None:
    embedder = default_embedder(kind)
    exact = planted_fact_hits(embedder, OBSERVATIONS)  # float32, cosine, top 5
    stream = MemoryStream("reader", embedder, importance=1)
    memories = routine_observations(OBSERVATIONS) + [p.fact for p in PLANTED_FACTS]
    await stream.add_many("observation", memories, NOW)
    relevance_only = (0.0, 0.0, 1.0)
    found = 0
    for planted in PLANTED_FACTS:
        best = stream.retrieve(planted.query, NOW, k=5, weights=relevance_only)
        found += planted.fact in [r.record.text for r in best]
    assert found >= exact
