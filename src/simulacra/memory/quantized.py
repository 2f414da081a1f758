"""Embeddings kept as 8-bit codes with one scale per row: a quarter of float32's bytes.

Relevance at 100,000 records is a pass over the whole matrix, and reading it is most of a
retrieval (25.8 ms in float32 at 384 dimensions). Symmetric per-row quantization keeps each
row's cosine to within about 0.4% of its value; the rows are turned back into float32 a
block at a time, small enough to stay in the CPU's cache, for BLAS's matrix-vector product.
bench/retrieval.py measures the time, and the planted-fact check the recall
(simulacra.embed.retrieval_check).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

Int8s = npt.NDArray[np.int8]
Scales = npt.NDArray[np.float32]
Vectors = npt.NDArray[np.float32]

# Rows turned back to float32 at a time: 512 x 384 floats (768 KB) stay in the L2 cache.
_BLOCK_BYTES = 768 * 1024


def quantize(vectors: npt.NDArray[np.floating]) -> tuple[Int8s, Scales]:
    """Codes in -127..127 and the scale that multiplies them back, per row."""
    rows = np.asarray(vectors, dtype=np.float32)
    peak = np.abs(rows).max(axis=1) if rows.size else np.zeros(len(rows), np.float32)
    scales = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    codes = np.rint(rows / scales[:, None]).astype(np.int8)
    return codes, scales


def dot(codes: Int8s, scales: Scales, query: Vectors) -> Vectors:
    """Each row's dot product with `query` (float32), as if the rows were unquantized."""
    count, dim = codes.shape
    out = np.empty(count, dtype=np.float32)
    step = max(1, _BLOCK_BYTES // (4 * max(dim, 1)))
    block = np.empty((min(step, count), dim), dtype=np.float32)
    q = np.asarray(query, dtype=np.float32)
    for start in range(0, count, step):
        part = codes[start : start + step]
        rows = block[: len(part)]
        rows[...] = part
        np.dot(rows, q, out=out[start : start + len(part)])
    out *= scales
    return out
