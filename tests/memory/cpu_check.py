"""Run under an emulated CPU (tests/memory/test_other_cpus.py): what the 8-bit product and
relevance compute there, as one JSON line. Not a test module: a program the test runs."""

from __future__ import annotations

import json

import numpy as np

from simulacra.memory.int8_product import (
    COLUMN_LIMIT,
    int8_product,
    kernel_name,
    onnx_product,
)
from simulacra.memory.quantized import dot, quantize, split_query


def main() -> None:
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 256, (2000, 384), dtype=np.uint8)
    full = rng.integers(-127, 128, (384, 2)).astype(np.int8)
    legal = rng.integers(-COLUMN_LIMIT, COLUMN_LIMIT + 1, (384, 2)).astype(np.int8)

    def exact(columns: np.ndarray) -> np.ndarray:
        return (codes.astype(np.int64) - 128) @ columns.astype(np.int64)

    vectors = rng.standard_normal((2000, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    rows, scales = quantize(vectors)
    query = vectors[17]
    restored = scales[:, None] * (rows.astype(np.float32) - 128)
    _, parts = split_query(query)
    bound = scales / 2 * np.abs(query).sum() + np.abs(restored).sum(axis=1) * parts[1] / 2
    error = np.abs(dot(rows, scales, query) - vectors @ query)
    print(
        json.dumps(
            {
                "kernel": kernel_name(),
                "onnx_wrong_rows_full_range": _wrong_rows(onnx_product(codes, full), exact(full)),
                "wrong_rows": _wrong_rows(int8_product(codes, legal), exact(legal)),
                "relevance_error_max": float(error.max()),
                "relevance_outside_bound": int((error > bound + 1e-5).sum()),
            }
        )
    )


def _wrong_rows(found: np.ndarray, expected: np.ndarray) -> int:
    return int((found != expected).any(axis=1).sum())


if __name__ == "__main__":
    main()
