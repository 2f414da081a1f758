"""A branch study: one parent run forked at one point into branches x replicates, beside
an unchanged branch, with each headline figure per branch and its paired difference from the
unchanged branch (replicate r of every branch shares its random numbers: the parent's for
r = 0, fresh ones from the fork point on for r > 0). The results are a sweep's: results.csv,
summary.json and summary.md (experiments/sweep_results.py).
"""

from __future__ import annotations

import json
import secrets
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from simulacra.experiments.fork import branch
from simulacra.experiments.fork_plan import ForkError, Plan, check_sets, plan
from simulacra.experiments.kinds import binding_of
from simulacra.experiments.pipeline import run
from simulacra.experiments.scenario import BranchConfig, Scenario
from simulacra.experiments.sweep_results import JobResult, write_json, write_outputs
from simulacra.report.sweep_page import write_sweep_report
from simulacra.runlog import RunDir, versions

UNCHANGED = "unchanged"


def run_branch_study(
    scenario: Scenario, *, root: str | Path | None = None, progress: bool = True
) -> Path:
    """Run the study in `scenario.sweep.fork` and return its folder under `root` (default
    the scenario's output.root): the sweep's outputs and report, the parent when the study
    ran it, and every branch's run."""
    study = scenario.sweep.fork
    assert study is not None
    if UNCHANGED in study.branches:
        raise ForkError(f'sweep.fork.branches: "{UNCHANGED}" is the branch with no change')
    for item in study.branches.values():  # before the parent runs
        check_sets(list(item.set), world=binding_of(scenario).forkable)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    name = f"{scenario.name}-branches-{stamp}-{secrets.token_hex(3)}"
    out = Path(root or scenario.output.root) / name
    out.mkdir(parents=True, exist_ok=False)
    (out / "config.yaml").write_text(
        yaml.safe_dump(scenario.model_dump(mode="json"), sort_keys=False), encoding="utf-8"
    )
    started = time.perf_counter()
    parent = (
        RunDir.open(study.parent)
        if study.parent is not None
        else run(_base(scenario, out), progress=progress)
    )
    changes: dict[str, dict[str, Any]] = {}
    plans: dict[str, Plan] = {}
    where = f"output.root={json.dumps(str(out))}"
    for name, item in {UNCHANGED: BranchConfig(), **study.branches}.items():
        sets = [f"{k}={json.dumps(v)}" for k, v in item.set.items()]
        plans[name] = plan(
            parent.path, study.at, sets=[*sets, where], interventions=item.interventions
        )
        changes[name] = item.model_dump(exclude_defaults=True)
    spec = plans[UNCHANGED].scenario.model.spec  # a branch's own model is one of its changes
    results = [
        _result(name, made, replicate, spec, progress)
        for replicate in range(scenario.sweep.replicates or 1)
        for name, made in plans.items()
    ]
    studied = scenario.model_copy(
        update={"sweep": scenario.sweep.model_copy(update={"reference": UNCHANGED})}
    )
    wall_s = round(time.perf_counter() - started, 2)
    summary = write_outputs(out, studied, changes, results, wall_s)
    info = {
        "scenario": scenario.name,
        "world": scenario.world.kind,
        "executor": "local",
        "workers": 1,
        "variants": list(changes),
        "models": [spec],
        "seeds": [scenario.seed],
        "fork": {"parent": str(parent.path), "at": study.at},
        "versions": versions(),
        "status": "completed",
        "wall_s": wall_s,
        "ended": time.time(),
    }
    write_json(out / "sweep.json", info)
    write_sweep_report(out, summary)
    return out


def _base(scenario: Scenario, out: Path) -> Scenario:
    """The scenario run first as the study's parent: written inside the study's folder."""
    return scenario.model_copy(
        update={"output": scenario.output.model_copy(update={"root": str(out)})}
    )


def _result(name: str, made: Plan, replicate: int, spec: str, progress: bool) -> JobResult:
    started = time.perf_counter()
    child = branch(made, replicate, progress=progress)
    info = child.info()
    return JobResult(
        variant=name,
        model=spec,
        replicate=replicate,
        seed=made.scenario.seed,
        run=str(child.path),
        summary={k: float(v) for k, v in info.get("summary", {}).items()},
        wall_s=round(time.perf_counter() - started, 2),
    )
