"""Does learning raise held-out completion? The scripted policy (a stand-in, not a model)
learns from the seed for N iterations under several learning seeds; each learned library is
benched on v1 and v2 beside the seed library. Per learning seed: verified tasks per suite and
condition, the tasks gained over the seed and the learned items that made them pass; over the
seeds: verified completion per suite and condition, a share of the suite's tasks, with a 95%
interval by experiments' rule for shares (Wilson's; where the seeds all agree, one trial a
seed), and the mean paired difference (full - seed, task by task) with a 95% t-interval over
the learning seeds (where they all agree, said so, and the interval over every task of every
seed beside it). With --all-conditions every seed runs every condition (the 2 x 2 ablation
and its interaction contrast), else full and seed. One JSON line a seed, then the pooled one.

    python bench/lab_learning.py --seeds 0 1 2 --iterations 30 --all-conditions
    python bench/lab_learning.py --combine run-a.log run-b.log   # pool per-seed lines
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from simulacra.experiments.stats import METHOD, mean_ci, share_ci
from simulacra.lab.bench import run_bench
from simulacra.lab.config import CONDITIONS, LabConfig
from simulacra.lab.library import SEED, Library
from simulacra.lab.loop import learn
from simulacra.lab.results import gains, interaction, summary
from simulacra.lab.scripted import script_lab
from simulacra.llm import load_model
from simulacra.runlog import RunDir


def interval(values: list[float]) -> dict[str, Any]:
    """A mean and its 95% t-interval; `agree` when every value is the same (no spread)."""
    found = mean_ci(values)
    return {
        "mean": round(found.mean, 3),
        "low": None if found.low is None else round(found.low, 3),
        "high": None if found.high is None else round(found.high, 3),
        "n": found.n,
        "agree": len(set(values)) == 1,
    }


def completion(counts: list[int], tasks: int) -> dict[str, Any]:
    """Verified completion over the seeds, a share of `tasks`, by experiments' rule."""
    found = share_ci([c / tasks for c in counts])
    return {
        "verified": counts,
        "tasks": tasks,
        "share": round(found.mean, 3),
        "low": None if found.low is None else round(found.low, 3),
        "high": None if found.high is None else round(found.high, 3),
        "method": found.method,
    }


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
        "counts": {suite: {c: s["verified"] for c, s in by.items()} for suite, by in table.items()},
        "tasks": {suite: next(iter(by.values()))["tasks"] for suite, by in table.items()},
        "interaction": {suite: interaction(by) for suite, by in table.items()},
        "gains": gains(rows),
        "paired_tasks": {
            suite: [
                int(r["verified"]) - int(s["verified"])
                for r in rows
                for s in rows
                if r["suite"] == s["suite"] == suite
                and r["task"] == s["task"]
                and (r["condition"], s["condition"]) == ("full", "seed")
            ]
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
    parser.add_argument("--all-conditions", action="store_true", help="on every seed")
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
        for seed in args.seeds:
            conditions = list(CONDITIONS) if args.all_conditions else ["seed", "full"]
            folder = root / f"seed-{seed}"
            results.append(one_seed(seed, args.iterations, folder, conditions, args.suites))
            print(json.dumps(results[-1]), flush=True)
    print(json.dumps(pooled(results)))


def pooled(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Over the learning seeds: completion per suite and condition, the paired difference."""
    suites = sorted({suite for r in results for suite in r["paired_tasks"]})
    found: dict[str, Any] = {
        "bench": "lab_learning",
        "policy": "scripted (a stand-in, not a language model)",
        "seeds": [r["seed"] for r in results],
        "method": METHOD,
        "completion": {},
        "interaction": {},
        "paired_full_minus_seed": {},
    }
    for suite in suites:
        mine = [r for r in results if suite in r["counts"]]
        conditions = sorted({c for r in mine for c in r["counts"][suite]})
        found["completion"][suite] = {
            c: completion([r["counts"][suite][c] for r in mine], mine[0]["tasks"][suite])
            for c in conditions
            if all(c in r["counts"][suite] for r in mine)
        }
        contrasts = [r["interaction"][suite] for r in mine if r["interaction"][suite] is not None]
        if contrasts:
            found["interaction"][suite] = interval([float(v) for v in contrasts])
        per_seed = [float(sum(r["paired_tasks"][suite])) for r in mine]
        per_task = [float(d) for r in mine for d in r["paired_tasks"][suite]]
        found["paired_full_minus_seed"][suite] = {
            "per_seed": interval(per_seed),
            "per_task": interval(per_task),
        }
    return found


if __name__ == "__main__":
    main()
