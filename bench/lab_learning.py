"""Does learning raise held-out completion? The scripted policy (a stand-in, not a model)
learns from the seed for N iterations under several learning seeds; each learned library is
benched on v1 and v2 beside the seed library. Per learning seed: verified tasks per suite and
condition, the tasks gained over the seed and the learned items that made them pass; over the
seeds: the mean paired difference (full - seed, task by task) on each suite with a 95%
t-interval over the learning seeds. The first seed runs every condition (the 2 x 2 ablation),
the others full and seed. One JSON line.

    python bench/lab_learning.py --seeds 0 1 2 --iterations 30 --all-conditions
    python bench/lab_learning.py --combine run-a.log run-b.log   # pool per-seed lines
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from simulacra.lab.bench import run_bench
from simulacra.lab.config import CONDITIONS, LabConfig
from simulacra.lab.library import SEED, Library
from simulacra.lab.loop import learn
from simulacra.lab.results import gains, interaction, summary
from simulacra.lab.scripted import script_lab
from simulacra.llm import load_model
from simulacra.runlog import RunDir

# Two-sided 95% quantiles of Student's t by degrees of freedom.
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262}


def interval(values: list[float]) -> dict[str, Any]:
    mean = statistics.fmean(values)
    if len(values) < 2:
        return {"mean": round(mean, 3), "n": len(values)}
    half = T95.get(len(values) - 1, 1.96) * statistics.stdev(values) / math.sqrt(len(values))
    return {"mean": round(mean, 3), "low": round(mean - half, 3), "high": round(mean + half, 3),
            "n": len(values)}  # fmt: skip


def one_seed(
    seed: int, iterations: int, root: Path, conditions: list[str], suites: list[str]
) -> dict[str, Any]:
    model = script_lab(load_model("scripted"))
    library = Library.create(root / f"lib-{seed}", SEED)
    config = LabConfig(seed=seed)
    learning = RunDir.create(root, "lab-learn", seed=seed, model=model.name, config={})
    started = time.perf_counter()
    learn(library, model, config, learning, iterations)
    learn_s = time.perf_counter() - started
    run = run_bench(suites, conditions, library, model, config, root)
    rows = json.loads((run.path / "results.json").read_text())
    table = summary(rows)
    return {
        "seed": seed,
        "learn_s": round(learn_s, 1),
        "library": f"{len(library.skills())} skills, {len(library.pages())} pages",
        "learned": sorted(
            [f"skill {s.meta.name}" for s in library.skills() if s.meta.name.startswith("use-")]
            + [f"page {p.name}" for p in library.pages() if p.name.startswith("tool-")]
        ),
        "verified": {
            suite: {c: f"{s['verified']}/{s['tasks']} [{s['accepted']}]" for c, s in by.items()}
            for suite, by in table.items()
        },
        "interaction": {suite: interaction(by) for suite, by in table.items()},
        "gains": gains(rows),
        "paired": {
            suite: sum(
                int(r["verified"]) - int(s["verified"])
                for r in rows
                for s in rows
                if r["suite"] == s["suite"] == suite
                and r["task"] == s["task"]
                and (r["condition"], s["condition"]) == ("full", "seed")
            )
            for suite in table
        },
        "run": str(run.path),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--root", type=Path, default=None)
    parser.add_argument("--suites", nargs="+", default=["v1", "v2"])
    parser.add_argument("--all-conditions", action="store_true", help="for the first seed")
    parser.add_argument(
        "--combine", type=Path, nargs="+", help="per-seed lines of earlier runs to pool"
    )
    args = parser.parse_args()
    results = []
    if args.combine:
        for path in args.combine:
            lines = path.read_text().splitlines()
            results += [json.loads(line) for line in lines if line.startswith('{"seed"')]
    else:
        root = args.root or Path(tempfile.mkdtemp())
        for k, seed in enumerate(args.seeds):
            conditions = list(CONDITIONS) if k == 0 and args.all_conditions else ["seed", "full"]
            folder = root / f"seed-{seed}"
            results.append(one_seed(seed, args.iterations, folder, conditions, args.suites))
            print(json.dumps(results[-1]), flush=True)
    suites = sorted({suite for r in results for suite in r["paired"]})
    print(
        json.dumps(
            {
                "bench": "lab_learning",
                "policy": "scripted (a stand-in, not a language model)",
                "paired_full_minus_seed": {
                    suite: interval(
                        [float(r["paired"][suite]) for r in results if suite in r["paired"]]
                    )
                    for suite in suites
                },
                "seeds": [r["seed"] for r in results],
            }
        )
    )


if __name__ == "__main__":
    main()
