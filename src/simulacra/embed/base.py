"""The Embedder interface and the text cache every embedder sits behind."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    """Maps texts to float32 unit rows of width `dim`."""

    dim: int
    name: str

    def embed(self, texts: Sequence[str]) -> Vectors: ...


def normalise(vectors: npt.NDArray[np.floating]) -> Vectors:
    """Scale rows to unit length; an all-zero row stays zero."""
    out = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    result: Vectors = np.divide(out, norms, out=np.zeros_like(out), where=norms > 0)
    return result


class CachedEmbedder:
    """Embeds each distinct text once: simulations observe the same sentences over and over."""

    def __init__(self, inner: Embedder, max_entries: int = 200_000) -> None:
        self.inner = inner
        self.dim = inner.dim
        self.name = inner.name
        self.max_entries = max_entries
        self._cache: dict[str, Vectors] = {}

    def embed(self, texts: Sequence[str]) -> Vectors:
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if missing and len(self._cache) + len(missing) > self.max_entries:
            # Full: start afresh, with every text of this call (those it held went too; a
            # ten-thousand-agent town day reached the limit and lost them mid-call).
            self._cache.clear()
            missing = list(dict.fromkeys(texts))
        if missing:
            for text, row in zip(missing, self.inner.embed(missing), strict=True):
                self._cache[text] = row
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._cache[t] for t in texts])
