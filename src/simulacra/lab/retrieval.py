"""Metadata-first retrieval: score names, descriptions, summaries and keywords; load the full
content only of the few candidates chosen.

The score is the mean of a lexical one (BM25 over metadata words, scaled to 0..1 by the best
match) and an embedding one (cosine of the query and the metadata, floored at 0). At most 10
candidates come back, the source's bound on active context.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from simulacra.embed import Embedder

MAX_CANDIDATES = 10
_WORD = re.compile(r"[a-z0-9]+")
_K1 = 1.2
_B = 0.75

Kind = Literal["skill", "page"]


@dataclass(frozen=True)
class Entry:
    """One artifact's metadata, as retrieval sees it."""

    kind: Kind
    name: str
    text: str


@dataclass(frozen=True)
class Candidate:
    entry: Entry
    lexical: float
    embedding: float
    total: float


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


class MetadataIndex:
    """BM25 and embeddings over entries' metadata, built once, queried many times."""

    def __init__(self, entries: Sequence[Entry], embedder: Embedder) -> None:
        self.entries = list(entries)
        self.embedder = embedder
        self._postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        lengths = []
        for i, entry in enumerate(self.entries):
            counts = Counter(words(entry.text))
            lengths.append(sum(counts.values()))
            for word, count in counts.items():
                self._postings[word].append((i, count))
        self._lengths = np.asarray(lengths, dtype=np.float64)
        self._mean_length = float(self._lengths.mean()) if lengths else 1.0
        texts = [e.text for e in self.entries]
        self._vectors = embedder.embed(texts) if texts else np.zeros((0, embedder.dim), np.float32)

    def search(
        self, query: str, k: int = MAX_CANDIDATES, kinds: Sequence[Kind] = ("skill", "page")
    ) -> list[Candidate]:
        """The best `k` (at most 10) entries of the given kinds for `query`."""
        k = min(k, MAX_CANDIDATES)
        if not self.entries or k <= 0:
            return []
        lexical = self._bm25(query)
        if lexical.max() > 0:
            lexical = lexical / lexical.max()
        query_vector = self.embedder.embed([query])[0]
        embedding = np.clip(self._vectors @ query_vector, 0.0, 1.0)
        total = (lexical + embedding) / 2
        allowed = np.asarray([e.kind in kinds for e in self.entries])
        total = np.where(allowed, total, -1.0)
        top = np.argsort(-total, kind="stable")[:k]
        return [
            Candidate(self.entries[i], float(lexical[i]), float(embedding[i]), float(total[i]))
            for i in top
            if total[i] > 0
        ]

    def _bm25(self, query: str) -> np.ndarray:
        scores = np.zeros(len(self.entries))
        n = len(self.entries)
        for word in set(words(query)):
            postings = self._postings.get(word)
            if not postings:
                continue
            idf = math.log(1 + (n - len(postings) + 0.5) / (len(postings) + 0.5))
            for i, count in postings:
                norm = _K1 * (1 - _B + _B * self._lengths[i] / self._mean_length)
                scores[i] += idf * count * (_K1 + 1) / (count + norm)
        return scores
