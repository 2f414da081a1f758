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
from simulacra.memory.int8_product import (
    COLUMN_LIMIT,
    int8_product,
    kernel_is_exact,
    numpy_product,
)
from simulacra.memory.quantized import dot, quantize, split_query

NOW = datetime(2024, 2, 14, 9, 0)
OBSERVATIONS = 2000

rows = arrays(
    np.float32,
    st.tuples(st.integers(1, 40), st.integers(1, 64)),
    elements=st.floats(-1, 1, width=32),
)


@given(rows)
def test_codes_take_a_quarter_of_the_bytes_and_stay_within_half_a_step(
    vectors: np.ndarray,
) -> None:
    codes, scales = quantize(vectors)
    assert codes.dtype == np.uint8 and codes.nbytes * 4 == vectors.nbytes
    restored = scales[:, None] * (codes.astype(np.float32) - 128)
    assert np.all(np.abs(restored - vectors) <= scales[:, None] / 2 + 1e-7)


@given(arrays(np.float32, st.integers(1, 64), elements=st.floats(-1, 1, width=32)))
def test_a_query_split_in_two_bytes_keeps_about_thirteen_bits(query: np.ndarray) -> None:
    columns, parts = split_query(query)
    assert columns.dtype == np.int8 and columns.shape == (query.size, 2)
    assert np.abs(columns.astype(np.int16)).max() <= COLUMN_LIMIT
    restored = columns.astype(np.float32) @ parts
    assert np.all(np.abs(restored - query) <= parts[1] / 2 + 1e-7)
    # The second byte's step is at most 1/128 of the first's (1 where nothing remains).
    assert parts[1] == 1 or parts[1] <= parts[0] / (2 * COLUMN_LIMIT) * (1 + 1e-5)


products = st.integers(0, 30).flatmap(
    lambda n: st.integers(1, 50).flatmap(
        lambda d: st.tuples(
            arrays(np.uint8, (n, d)),
            arrays(np.int8, (d, 2), elements=st.integers(-COLUMN_LIMIT, COLUMN_LIMIT)),
        )
    )
)


def _exact(codes: np.ndarray, columns: np.ndarray) -> np.ndarray:
    return (codes.astype(np.int64) - 128) @ columns.astype(np.int64)


@given(products)
def test_the_integer_product_is_exact(pair: tuple[np.ndarray, np.ndarray]) -> None:
    codes, columns = pair
    assert np.array_equal(int8_product(codes, columns), _exact(codes, columns))


@given(products)
def test_the_numpy_fallback_is_exact(pair: tuple[np.ndarray, np.ndarray]) -> None:
    codes, columns = pair
    assert np.array_equal(numpy_product(codes, columns), _exact(codes, columns))


@pytest.mark.parametrize("fill", [0, 255])
@pytest.mark.parametrize("sign", [1, -1])
def test_the_product_is_exact_at_the_ends_of_its_range(fill: int, sign: int) -> None:
    # The cases where a kernel with 16-bit pair sums would saturate first, at d = 384.
    codes = np.full((64, 384), fill, np.uint8)
    codes[::2, ::2] = 255 - fill
    columns = np.full((384, 2), sign * COLUMN_LIMIT, np.int8)
    columns[::3, 1] = -sign * COLUMN_LIMIT
    assert np.array_equal(int8_product(codes, columns), _exact(codes, columns))


def test_columns_beyond_the_exact_range_are_refused() -> None:
    with pytest.raises(ValueError, match=r"within \+-64 .* up to 65"):
        int8_product(np.zeros((3, 4), np.uint8), np.full((4, 2), 65, np.int8))


def _saturating_pairs(rows: np.ndarray, columns: np.ndarray, lane: int) -> np.ndarray:
    """What a kernel that adds products in pairs, each pair clipped to +-lane, computes
    (with lane = 32767 it is AVX2's vpmaddubsw; raw uint8 rows, the zero point taken out
    after, as MLAS does)."""
    raw = rows.astype(np.int64)[:, :, None] * columns.astype(np.int64)[None, :, :]
    if raw.shape[1] % 2:
        raw = np.concatenate([raw, np.zeros_like(raw[:, :1])], axis=1)
    pairs = np.clip(raw[:, 0::2] + raw[:, 1::2], -lane - 1, lane).sum(axis=1)
    return (pairs - 128 * columns.astype(np.int64).sum(axis=0)).astype(np.int32)


def test_the_probe_refuses_kernels_that_are_wrong_in_the_range() -> None:
    assert kernel_is_exact(numpy_product)
    assert kernel_is_exact(lambda r, c: _saturating_pairs(r, c, 32767))  # +-64 fits its lanes
    assert not kernel_is_exact(lambda r, c: _saturating_pairs(r, c, 16383))
    assert not kernel_is_exact(lambda r, c: numpy_product(r, c) + (r[:, :1] == 255))
    assert not kernel_is_exact(lambda r, c: r.astype(np.int32) @ c.astype(np.int32))


def test_the_full_int8_range_would_saturate_16_bit_pairs() -> None:
    # Why the range is +-64: at +-127 the same pair sums overflow (the bug on CPUs without VNNI).
    codes = np.full((2, 384), 255, np.uint8)
    columns = np.full((384, 1), 127, np.int8)
    assert not np.array_equal(_saturating_pairs(codes, columns, 32767), _exact(codes, columns))


def test_a_product_of_mismatched_shapes_names_both() -> None:
    with pytest.raises(ValueError, match=r"\(3, 4\) and \(5, 2\)"):
        int8_product(np.zeros((3, 4), np.uint8), np.zeros((5, 2), np.int8))


@given(rows, st.integers(0, 2**32 - 1))
def test_quantized_dot_products_stay_within_half_a_step_of_each_coordinate(
    vectors: np.ndarray, seed: int
) -> None:
    codes, scales = quantize(vectors)
    draw = np.random.default_rng(seed).standard_normal((vectors.shape[1],), dtype=np.float32)
    query = draw / np.float32(np.linalg.norm(draw))
    # Each coordinate of a row is off by at most half its step (scale / 2), each of the
    # query by half of its second step; the other side's 1-norm bounds what that does.
    restored = scales[:, None] * (codes.astype(np.float32) - 128)
    _, parts = split_query(query)
    bound = scales / 2 * np.abs(query).sum() + np.abs(restored).sum(axis=1) * parts[1] / 2
    found = dot(codes, scales, query)
    assert np.all(np.abs(found - vectors @ query) <= bound + 1e-5)


def test_a_large_matrix_is_read_whole() -> None:
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
