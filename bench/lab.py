"""The lab: sandbox start-up, checker time per attempt (with and without the reproduction),
retrieval at 150 and 10,000 skills and pages, and the scripted policy on both shipped suites
under the five conditions and the seed-only library, after it has learned from the seed for
ten iterations: verified tasks per suite, tier and condition, median tokens and seconds per
task, and the 2 x 2 memory ablation's interaction contrast. One JSON line."""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from pathlib import Path

from simulacra.embed import EmbedderConfig, build_embedder
from simulacra.lab.bench import run_bench
from simulacra.lab.checker import check_attempt
from simulacra.lab.config import CONDITIONS, LabConfig
from simulacra.lab.library import SEED, Library
from simulacra.lab.loop import learn
from simulacra.lab.results import interaction, summary
from simulacra.lab.retrieval import Entry, MetadataIndex
from simulacra.lab.sandbox import Sandbox
from simulacra.lab.scripted import script_lab
from simulacra.llm import load_model
from simulacra.runlog import RunDir

LEARN_ITERATIONS = 10

WORDS = [
    "grid",
    "network",
    "demand",
    "trips",
    "signal",
    "cycle",
    "calibration",
    "tripinfo",
    "plot",
    "occupancy",
    "route",
]


def _entries(n: int) -> list[Entry]:
    out = []
    for i in range(n):
        words = " ".join(WORDS[(i * k) % len(WORDS)] for k in (1, 3, 7))
        out.append(Entry("skill", f"skill-{i}", f"skill {i} {words} variant {i % 97}"))
        out.append(Entry("page", f"page-{i}", f"page {i} about {words} note {i % 89}"))
    return out


def _retrieval_ms(n: int) -> float:
    index = MetadataIndex(_entries(n), build_embedder(EmbedderConfig(kind="model2vec")))
    times = []
    for query in ("simulate a signal cycle on a grid", "calibrate demand trips", "plot occupancy"):
        started = time.perf_counter()
        index.search(query)
        times.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(times), 2)


def main() -> None:
    root = Path(tempfile.mkdtemp())
    sandbox = Sandbox(root / "attempt")
    starts = []
    for i in range(5):
        started = time.perf_counter()
        sandbox.run("true", name=f"start-{i}")
        starts.append((time.perf_counter() - started) * 1000)
    library = Library.create(root / "lib", SEED)
    model = script_lab(load_model("scripted"))
    learning = RunDir.create(root, "lab-learn", seed=0, model=model.name, config={})
    learn(library, model, LabConfig(), learning, LEARN_ITERATIONS)
    run = run_bench(["v1", "v2"], list(CONDITIONS), library, model, LabConfig(), root)
    attempts = sorted(run.path.glob("episodes/v1/full/*/attempt-*"))
    checks, fast = [], []
    for attempt in attempts:
        started = time.perf_counter()
        check_attempt(attempt)
        checks.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        check_attempt(attempt, reproduce_outputs=False)
        fast.append((time.perf_counter() - started) * 1000)
    table = summary(json.loads((run.path / "results.json").read_text()))
    print(
        json.dumps(
            {
                "bench": "lab",
                "sandbox_start_ms": round(statistics.median(starts), 1),
                "checker_ms_per_attempt": round(statistics.median(checks), 1),
                "checker_ms_without_reproduction": round(statistics.median(fast), 1),
                "retrieval_ms_150": _retrieval_ms(150),
                "retrieval_ms_10000": _retrieval_ms(10_000),
                "scripted_learned": (
                    f"{LEARN_ITERATIONS} iterations: {len(library.skills())} skills, "
                    f"{len(library.pages())} pages"
                ),
                "scripted_verified": {
                    suite: {c: f"{s['verified']}/{s['tasks']}" for c, s in rows.items()}
                    for suite, rows in table.items()
                },
                "scripted_by_tier": {
                    suite: {
                        c: {str(t): f"{v}/{n}" for t, (v, n) in s["by_tier"].items()}
                        for c, s in rows.items()
                    }
                    for suite, rows in table.items()
                },
                "scripted_accepted": {
                    suite: {c: s["accepted"] for c, s in rows.items()}
                    for suite, rows in table.items()
                },
                "scripted_median_tokens": {
                    suite: {c: s["median_tokens"] for c, s in rows.items()}
                    for suite, rows in table.items()
                },
                "scripted_median_wall_s": {
                    suite: {c: s["median_wall_s"] for c, s in rows.items()}
                    for suite, rows in table.items()
                },
                "scripted_interaction": {suite: interaction(rows) for suite, rows in table.items()},
            }
        )
    )


if __name__ == "__main__":
    main()
