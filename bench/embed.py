"""Embedder speed and reworded-fact retrieval, every embedder on the same sentences.

Prints one JSON line: sentences/s on 2,000 routine observations (after loading), the load
time, each speed as a ratio to MiniLM's, and how many of 12 planted facts each ranks in the
top 5 among 3,000 observations when queried in other words.
"""

from __future__ import annotations

import json
import time

from simulacra.embed import Embedder, HashingEmbedder, MiniLMEmbedder, Model2VecEmbedder
from simulacra.embed.retrieval_check import planted_fact_hits, routine_observations

SENTENCES = 2000
OBSERVATIONS = 3000


def main() -> None:
    # Raw embedders, not cached ones: the figure is the model's speed, not the cache's.
    embedders: dict[str, Embedder] = {
        "minilm": MiniLMEmbedder(),
        "model2vec": Model2VecEmbedder(),
        "hashing": HashingEmbedder(),
    }
    sentences = routine_observations(SENTENCES, seed=1)
    speed: dict[str, float] = {}
    load: dict[str, float] = {}
    hits: dict[str, int] = {}
    for kind, embedder in embedders.items():
        start = time.perf_counter()
        embedder.embed(["warm up"])
        load[kind] = round(time.perf_counter() - start, 3)
        start = time.perf_counter()
        embedder.embed(sentences)
        speed[kind] = round(SENTENCES / (time.perf_counter() - start), 1)
        hits[kind] = planted_fact_hits(embedder, OBSERVATIONS, top=5)
    figures = {
        "sentences": SENTENCES,
        "sentences_per_s": speed,
        "speed_vs_minilm": {kind: round(s / speed["minilm"], 1) for kind, s in speed.items()},
        "load_s": load,
        "observations": OBSERVATIONS,
        "top5_hits_of_12": hits,
    }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
