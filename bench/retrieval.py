"""Memory-stream latency: add and top-k retrieval at 1k-1M records, against the source's way.

The baseline is retrieval as the original Generative Agents code does it: a Python loop over
node objects computing recency, importance and cosine relevance, normalising with Python
min/max and sorting. Embeddings come from a pool of precomputed random unit vectors, so that
the figures measure the stream and not an embedding model. Prints one JSON line.

The stream keeps its vectors as 8-bit codes (simulacra.memory.quantized) and the baseline as
float32, so the two rankings may differ where relevance differs by less than a quantization
step: the check is the share of the baseline's top k that the stream also returns for a first
query (`baseline_recall_at_k`), not equality. On a shared machine compare the CPU figures
(process time) beside the wall-clock ones, with the load average.
"""

from __future__ import annotations

import os

# One BLAS thread unless told otherwise: on a shared machine, BLAS threads that spin waiting
# for a busy core make a matrix-vector product ten times slower, not faster.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import asyncio
import json
import resource
import statistics
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from simulacra.memory import MemoryStream
from simulacra.memory.int8_product import kernel_name
from simulacra.memory.quantized import dot, quantize

SIZES = (1_000, 10_000, 100_000, 1_000_000)
BASELINE_MAX = 100_000  # the loop needs seconds a query and a node object per record beyond
BATCH = 1_000
SINGLE_ADDS = 100
START = datetime(2023, 2, 13, 7, 0)
DECAY = 0.995
K = 30
SEED = 7

Vectors = npt.NDArray[np.float32]


class PoolEmbedder:
    """A fixed embedder: "routine observation i" gets record vector i mod the pool size and
    "query n" gets query vector n, all precomputed random unit vectors."""

    name = "bench-pool"

    def __init__(self, dim: int, records: int = 65_536, queries: int = 1_024) -> None:
        rng = np.random.default_rng(1)
        self.dim = dim
        self.records = _unit(rng.standard_normal((records, dim), dtype=np.float32))
        self.queries = _unit(rng.standard_normal((queries, dim), dtype=np.float32))

    def embed(self, texts: Sequence[str]) -> Vectors:
        numbers = np.asarray([int(text.rpartition(" ")[2]) for text in texts], dtype=np.intp)
        pool = self.queries if texts and texts[0].startswith("query") else self.records
        picked: Vectors = pool[numbers % pool.shape[0]]
        return picked


def _unit(rows: Vectors) -> Vectors:
    result: Vectors = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    return result


@dataclass
class Node:
    """A memory as the original implementation holds it."""

    node_id: str
    last_accessed: datetime
    poignancy: float
    embedding: Vectors


def cos_sim(a: Vectors, b: Vectors) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


def normalize_dict_floats(d: dict[str, float]) -> dict[str, float]:
    low, high = min(d.values()), max(d.values())
    span = high - low
    if span == 0:
        return dict.fromkeys(d, 1.0)
    return {key: (value - low) / span for key, value in d.items()}


def baseline_retrieve(nodes: list[Node], query: Vectors, now: datetime, k: int) -> list[str]:
    recency, importance, relevance = {}, {}, {}
    for node in nodes:
        hours = max(0.0, (now - node.last_accessed).total_seconds() / 3600)
        recency[node.node_id] = DECAY**hours
        importance[node.node_id] = node.poignancy
        relevance[node.node_id] = cos_sim(node.embedding, query)
    recency = normalize_dict_floats(recency)
    importance = normalize_dict_floats(importance)
    relevance = normalize_dict_floats(relevance)
    total = {key: recency[key] + importance[key] + relevance[key] for key in recency}
    best = [key for key, _ in sorted(total.items(), key=lambda item: -item[1])[:k]]
    by_id = {node.node_id: node for node in nodes}
    for key in best:
        by_id[key].last_accessed = now
    return best


@dataclass
class Timings:
    """Wall-clock and CPU seconds of each run: on a shared machine the two part ways."""

    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)

    @contextmanager
    def clock(self) -> Iterator[None]:
        wall, cpu = time.perf_counter(), time.process_time()
        yield
        self.wall.append(time.perf_counter() - wall)
        self.cpu.append(time.process_time() - cpu)

    def wall_ms(self) -> tuple[float, float]:
        return _ms(self.wall)

    def cpu_ms(self) -> tuple[float, float]:
        return _ms(self.cpu)


def _ms(seconds: list[float]) -> tuple[float, float]:
    """Median and 95th percentile, in milliseconds."""
    values = sorted(s * 1000 for s in seconds)
    p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
    return round(statistics.median(values), 3), round(p95, 3)


def moment(count: int) -> datetime:
    """Records arrive at one per simulated 36 seconds: 1M records span about 10,000 hours."""
    return START + timedelta(seconds=36 * count)


async def grow(
    stream: MemoryStream, target: int, importance: np.random.Generator
) -> tuple[Timings, Timings]:
    """Fill `stream` to `target` records: batches, then single adds. Returns their timings."""
    batches, singles = Timings(), Timings()
    while len(stream) < target - SINGLE_ADDS:
        count = min(BATCH, target - SINGLE_ADDS - len(stream))
        texts = [f"routine observation {len(stream) + i}" for i in range(count)]
        values = importance.integers(1, 11, count).astype(float).tolist()
        with batches.clock():
            await stream.add_many("observation", texts, moment(len(stream)), values)
    while len(stream) < target:
        text = f"routine observation {len(stream)}"
        value = float(importance.integers(1, 11))
        with singles.clock():
            await stream.add("observation", text, moment(len(stream)), value)
    return batches, singles


def time_retrieval(stream: MemoryStream, size: int, repeats: int) -> Timings:
    now = moment(size) + timedelta(hours=1)
    for n in range(3):  # warm caches up
        stream.retrieve(f"query {n}", now, k=K)
    took = Timings()
    for n in range(3, repeats + 3):
        with took.clock():
            stream.retrieve(f"query {n}", now + timedelta(minutes=n), k=K)
    return took


def time_matrix_pass(embedder: PoolEmbedder, size: int, repeats: int) -> tuple[Timings, Timings]:
    """Relevance alone, the floor of a retrieval: every row's dot product with a query, on
    the stream's 8-bit codes and on float32 rows with BLAS."""
    rows = embedder.records[np.arange(size) % embedder.records.shape[0]]
    codes, scales = quantize(rows)
    coded, plain = Timings(), Timings()
    for n in range(repeats):
        query = embedder.queries[n % embedder.queries.shape[0]]
        with coded.clock():
            dot(codes, scales, query)
        with plain.clock():
            rows @ query
    return coded, plain


def time_baseline(embedder: PoolEmbedder, size: int, repeats: int) -> tuple[Timings, float]:
    """Build the records of a stream grown from empty as nodes, time the loop, and measure
    how much of its answer to a first query that stream returns too (recall at k)."""
    values = _importances(size, np.random.default_rng(SEED))
    nodes = [
        Node(
            f"bench-{i + 1:05d}",
            moment(i - i % BATCH if i < size - SINGLE_ADDS else i),
            values[i],
            embedder.records[i % embedder.records.shape[0]],
        )
        for i in range(size)
    ]
    now = moment(size) + timedelta(hours=1)
    check = MemoryStream("bench", embedder, importance=1)
    asyncio.run(grow(check, size, np.random.default_rng(SEED)))
    expected = [r.record.id for r in check.retrieve("query 999", now, k=K)]
    check.close()
    truth = baseline_retrieve(nodes, embedder.queries[999], now, K)
    recall = len(set(truth) & set(expected)) / len(truth)
    took = Timings()
    for n in range(repeats):
        with took.clock():
            baseline_retrieve(nodes, embedder.queries[n], now + timedelta(minutes=n), K)
    return took, recall


def _importances(size: int, rng: np.random.Generator) -> list[float]:
    """The importance values `grow` draws, in the same order."""
    values: list[float] = []
    while len(values) < size - SINGLE_ADDS:
        count = min(BATCH, size - SINGLE_ADDS - len(values))
        values += rng.integers(1, 11, count).astype(float).tolist()
    while len(values) < size:
        values.append(float(rng.integers(1, 11)))
    return values


def _stored_bytes(dim: int) -> int:
    """Bytes the stream keeps for one record's vector: codes and scale."""
    codes, scales = quantize(np.zeros((1, dim), dtype=np.float32))
    return int(codes.nbytes + scales.nbytes)


def _cpu_has(*flags: str) -> bool | None:
    """Whether /proc/cpuinfo lists any of `flags` (None where there is no such file)."""
    try:
        listed = set(Path("/proc/cpuinfo").read_text().split())
    except OSError:
        return None
    return any(flag in listed for flag in flags)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--dim", type=int, default=384, help="384: all-MiniLM-L6-v2's width")
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--baseline-repeats", type=int, default=5)
    args = parser.parse_args()
    sizes = sorted(args.sizes)
    embedder = PoolEmbedder(args.dim)
    figures: dict[str, Any] = {
        "bench": "retrieval",
        "dim": args.dim,
        "k": K,
        "add_batch_size": BATCH,
        "single_adds_per_size": SINGLE_ADDS,
        "sizes": sizes,
        "cpus": os.cpu_count(),
        "blas_threads": os.environ["OPENBLAS_NUM_THREADS"],
        # The 8-bit product's path and the CPU features that decide MLAS's kernel.
        "product_kernel": kernel_name(),
        "cpu_vnni": _cpu_has("avx512_vnni", "avx_vnni"),
        "cpu_avx512": _cpu_has("avx512bw"),
        "load_avg_1min_at_start": round(os.getloadavg()[0], 2),
        "vector_bytes_per_record": _stored_bytes(args.dim),
        "float32_bytes_per_record": 4 * args.dim,
    }
    table: dict[str, dict[int, Any]] = {
        name: {}
        for name in (
            "retrieve_ms_median",
            "retrieve_ms_p95",
            "retrieve_cpu_ms_median",
            "relevance_int8_cpu_ms_median",
            "relevance_float32_cpu_ms_median",
            "baseline_ms_median",
            "baseline_cpu_ms_median",
            "baseline_recall_at_k",
            "baseline_skipped",
            "add_ms_median",
            "add_ms_p95",
            "add_cpu_ms_median",
            "add_batch_ms_median",
            "add_batch_ms_p95",
        )
    }
    with tempfile.TemporaryDirectory() as scratch:
        db = Path(scratch) / "memory.sqlite"
        stream = MemoryStream("bench", embedder, db=db, importance=1)
        importance = np.random.default_rng(SEED)
        for size in sizes:
            # The stream grows from the previous size; the baseline is rebuilt for each.
            batches, singles = asyncio.run(grow(stream, size, importance))
            if batches.wall:
                table["add_batch_ms_median"][size], table["add_batch_ms_p95"][size] = (
                    batches.wall_ms()
                )
            table["add_ms_median"][size], table["add_ms_p95"][size] = singles.wall_ms()
            table["add_cpu_ms_median"][size] = singles.cpu_ms()[0]
            repeats = args.repeats if size <= BASELINE_MAX else max(10, args.repeats // 5)
            took = time_retrieval(stream, size, repeats)
            table["retrieve_ms_median"][size], table["retrieve_ms_p95"][size] = took.wall_ms()
            table["retrieve_cpu_ms_median"][size] = took.cpu_ms()[0]
            if size <= BASELINE_MAX:
                coded, plain = time_matrix_pass(embedder, size, repeats)
                table["relevance_int8_cpu_ms_median"][size] = coded.cpu_ms()[0]
                table["relevance_float32_cpu_ms_median"][size] = plain.cpu_ms()[0]
                loop, table["baseline_recall_at_k"][size] = time_baseline(
                    embedder, size, args.baseline_repeats
                )
                table["baseline_ms_median"][size] = loop.wall_ms()[0]
                table["baseline_cpu_ms_median"][size] = loop.cpu_ms()[0]
            else:
                table["baseline_skipped"][size] = (
                    "not run: the loop needs a Python object per record and scales linearly "
                    "(about 10x the 100,000 figure)"
                )
        stream.close()
    figures.update(table)
    at = 100_000
    if at in table["retrieve_ms_median"] and at in table["baseline_ms_median"]:
        wall = table["baseline_ms_median"][at] / table["retrieve_ms_median"][at]
        cpu = table["baseline_cpu_ms_median"][at] / table["retrieve_cpu_ms_median"][at]
        figures["speedup_at_100000"] = round(wall, 1)
        figures["speedup_cpu_at_100000"] = round(cpu, 1)
        figures["goal_10ms_at_100000"] = table["retrieve_ms_median"][at] <= 10
        figures["goal_10ms_cpu_at_100000"] = table["retrieve_cpu_ms_median"][at] <= 10
        figures["goal_50x_at_100000"] = wall >= 50
    figures["load_avg_1min_at_end"] = round(os.getloadavg()[0], 2)
    figures["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
