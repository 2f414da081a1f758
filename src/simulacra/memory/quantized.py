"""Embeddings kept as 8-bit codes with one scale per row: a quarter of float32's bytes.

Relevance at 100,000 records is a pass over the whole matrix, and reading it is most of a
retrieval (25.8 ms in float32 at 384 dimensions). Symmetric per-row quantization keeps each
row's cosine to within about 0.4% of its value. The product runs on 8-bit integer kernels
(see `int8_product`); the query is split into two parts of 7 bits and a sign (the kernels'
exact range), a coarse one and its remainder, so that it keeps about 13 bits and only the
rows' quantization is felt.
bench/retrieval.py measures the time, and the planted-fact check the recall
(simulacra.embed.retrieval_check).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from simulacra.memory.int8_product import COLUMN_LIMIT, ZERO_POINT, Int8s, UInt8s, int8_product

Scales = npt.NDArray[np.float32]
Vectors = npt.NDArray[np.float32]


def quantize(vectors: npt.NDArray[np.floating]) -> tuple[UInt8s, Scales]:
    """Codes and the scale that multiplies them back, per row: a row is
    scale * (codes - 128), with codes in 1..255."""
    codes, scales = _symmetric(vectors)
    return (codes.view(np.uint8) ^ np.uint8(ZERO_POINT)), scales


def split_query(query: Vectors) -> tuple[Int8s, Scales]:
    """The query as columns (d, 2) of int8 within +-COLUMN_LIMIT and their two scales: query
    is about scales[0] * columns[:, 0] + scales[1] * columns[:, 1], within scales[1] / 2 a
    coordinate."""
    q = np.asarray(query, dtype=np.float32).reshape(1, -1)
    coarse, coarse_scale = _symmetric(q, COLUMN_LIMIT)
    remainder = q - coarse_scale[:, None] * coarse
    fine, fine_scale = _symmetric(remainder, COLUMN_LIMIT)
    columns: Int8s = np.concatenate([coarse, fine]).T
    return columns, np.concatenate([coarse_scale, fine_scale])


def dot(codes: UInt8s, scales: Scales, query: Vectors) -> Vectors:
    """Each row's dot product with `query` (float32), as if the rows were unquantized."""
    columns, parts = split_query(query)
    # Sums stay below 2**24 (127 * 64 * d for d up to 2,064), so float32 holds them exactly.
    out: Vectors = int8_product(codes, columns).astype(np.float32) @ parts
    out *= scales
    return out


def _symmetric(vectors: npt.NDArray[np.floating], limit: int = 127) -> tuple[Int8s, Scales]:
    """Codes in -limit..limit and their scale, per row; a row of zeros gets scale 1."""
    rows = np.asarray(vectors, dtype=np.float32)
    peak = np.abs(rows).max(axis=1) if rows.size else np.zeros(len(rows), np.float32)
    scales = peak / np.float32(limit)
    scales[scales == 0] = 1  # zeros, or a peak so small that its step underflows
    codes: Int8s = np.clip(np.rint(rows / scales[:, None]), -limit, limit).astype(np.int8)
    return codes, scales
