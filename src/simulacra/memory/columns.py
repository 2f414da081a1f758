"""The numeric side of a memory stream: one row per record in preallocated numpy columns that
grow by doubling, so that appending is amortised O(1) and retrieval never touches Python objects."""

from __future__ import annotations

from typing import TypeVar

import numpy as np
import numpy.typing as npt

from simulacra.embed import Vectors
from simulacra.memory.int8_product import UInt8s
from simulacra.memory.quantized import Scales, dot, quantize
from simulacra.memory.scoring import Floats, Indices

Bools = npt.NDArray[np.bool_]
Codes = npt.NDArray[np.int16]
_T = TypeVar("_T", bound=np.generic)


class Columns:
    """Embeddings and scores of records 0..len-1, in creation order (row = record number - 1).
    Embeddings are kept quantized (see `quantized`): codes and a scale per row."""

    def __init__(self, dim: int, capacity: int = 16) -> None:
        self.dim = dim
        self.size = 0
        self.codes: UInt8s = np.zeros((capacity, dim), dtype=np.uint8)
        self.scales: Scales = np.ones(capacity, dtype=np.float32)
        self.accessed_h: Floats = np.zeros(capacity)
        self.importance: Floats = np.zeros(capacity)
        self.valid: Bools = np.zeros(capacity, dtype=np.bool_)
        self.kind: Codes = np.zeros(capacity, dtype=np.int16)
        self.invalid_count = 0

    def append(
        self,
        quantized: tuple[UInt8s, Scales] | None,
        accessed_h: Floats,
        importance: Floats,
        valid: Bools,
        kind: Codes,
    ) -> None:
        """Rows for new records, with their embeddings' codes and scales (`quantize`);
        None: not embedded yet (see `set_vectors`)."""
        count = accessed_h.shape[0]
        self._reserve(self.size + count)
        rows = slice(self.size, self.size + count)
        if quantized is not None:
            self.codes[rows], self.scales[rows] = quantized
        self.accessed_h[rows] = accessed_h
        self.importance[rows] = importance
        self.valid[rows] = valid
        self.kind[rows] = kind
        self.invalid_count += int(count - np.count_nonzero(valid))
        self.size += count

    def set_vectors(self, rows: list[int], vectors: Vectors) -> tuple[UInt8s, Scales]:
        """Embeddings of rows appended before they were embedded; returns them as kept."""
        codes, scales = quantize(vectors)
        self.codes[rows], self.scales[rows] = codes, scales
        return codes, scales

    def relevance(self, query: Vectors, rows: Indices | None = None) -> Vectors:
        """The cosine of each of `rows` (all if None) with a unit `query`, rows being unit
        vectors too."""
        if rows is None:
            return dot(self.codes[: self.size], self.scales[: self.size], query)
        # Gathering scattered rows costs more than reading them in order: past about a
        # quarter of the matrix, one pass over all of it is faster (measured at 100,000).
        if 4 * rows.size <= self.size:
            return dot(self.codes[rows], self.scales[rows], query)
        return dot(self.codes[: self.size], self.scales[: self.size], query)[rows]

    def invalidate(self, row: int) -> None:
        if self.valid[row]:
            self.valid[row] = False
            self.invalid_count += 1

    def _reserve(self, needed: int) -> None:
        capacity = self.codes.shape[0]
        if needed <= capacity:
            return
        while capacity < needed:
            capacity *= 2
        self.codes = _grown(self.codes, capacity, self.size)
        self.scales = _grown(self.scales, capacity, self.size)
        self.accessed_h = _grown(self.accessed_h, capacity, self.size)
        self.importance = _grown(self.importance, capacity, self.size)
        self.valid = _grown(self.valid, capacity, self.size)
        self.kind = _grown(self.kind, capacity, self.size)


def _grown(column: npt.NDArray[_T], capacity: int, used: int) -> npt.NDArray[_T]:
    shape = (capacity, *column.shape[1:])
    out = np.zeros(shape, dtype=column.dtype)
    out[:used] = column[:used]
    return out
