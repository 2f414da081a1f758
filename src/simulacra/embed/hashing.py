"""A word-hashing embedder: fast and dependency-free, for tests only (it knows no synonyms)."""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Sequence

import numpy as np

from simulacra.embed.base import Vectors, normalise

_WORD = re.compile(r"[a-z0-9]+")


class HashingEmbedder:
    name = "hashing"

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim

    def embed(self, texts: Sequence[str]) -> Vectors:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                index, sign = _bucket(word, self.dim)
                out[row, index] += sign
        return normalise(out)


@functools.lru_cache(maxsize=65536)  # a simulation's vocabulary is small and hashed over and over
def _bucket(word: str, dim: int) -> tuple[int, float]:
    digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
    value = int.from_bytes(digest, "little")
    return value % dim, 1.0 if (value >> 63) & 1 else -1.0
