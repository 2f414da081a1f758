"""One run of a sweep: the job (plain data, so that it crosses process and Ray boundaries)
and running it in whichever process picked it up."""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simulacra.errors import UserError
from simulacra.experiments.load import load_scenario
from simulacra.experiments.pipeline import resume, run
from simulacra.experiments.sweep_results import JobResult
from simulacra.runlog import RunDir


@dataclass(frozen=True)
class SweepJob:
    """One run of the sweep; plain data, so that it crosses process and Ray boundaries."""

    scenario: dict[str, Any]  # the variant's resolved scenario, JSON-ready
    variant: str
    model: str
    replicate: int
    seed: int
    name: str


def run_job(job: SweepJob, root: str) -> JobResult:
    """Run one job in this process (a pool or Ray worker). A job whose run is already in
    `root` is not run again: a completed run is read back (a resumed sweep), a stopped one is
    resumed from its last checkpoint (Ray's retry of a run whose worker died)."""
    started = time.perf_counter()
    try:
        earlier = _run_of(job, root)
        if earlier is not None and earlier.info().get("status") == "completed":
            run_dir = earlier
        elif earlier is not None:
            run_dir = resume(earlier.path, progress=False)
        else:
            scenario = load_scenario(
                {**job.scenario, "output": {**job.scenario["output"], "root": root}}
            )
            extra = {"job": job.name, "variant": job.variant, "replicate": job.replicate}
            run_dir = run(scenario, progress=False, run_name=job.name, extra_info=extra)
    except UserError as exc:  # it says what went wrong; a traceback would only hide it
        return JobResult(job.variant, job.model, job.replicate, job.seed, "", error=str(exc))
    except Exception:
        error = traceback.format_exc(limit=8)
        return JobResult(job.variant, job.model, job.replicate, job.seed, "", error=error)
    summary = {k: float(v) for k, v in run_dir.info().get("summary", {}).items()}
    wall = round(time.perf_counter() - started, 3)
    return JobResult(
        job.variant, job.model, job.replicate, job.seed, str(run_dir.path), summary, wall
    )


def _run_of(job: SweepJob, root: str) -> RunDir | None:
    """The run directory a job already has in the sweep, if any (the latest)."""
    found = None
    for path in sorted(Path(root).glob(f"{job.name}-*/run.json")):
        run_dir = RunDir(path.parent)
        if run_dir.info().get("job") == job.name:
            found = run_dir
    return found
