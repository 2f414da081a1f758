"""Sweeps of any scenario: every variant x every model x every replicate, one run each, on
local processes or Ray.

`run_sweep(path)` writes `<root>/<name>-sweep-<stamp>-<id>/` with each run's directory,
`results.csv` (one row per run: variant, model, replicate, seed and the world's headline
figures), `summary.json` and `summary.md` (per variant and model, each figure's mean with its
95% interval over replicates, Student's t, the figures grouped by the world's signature; with
`sweep.reference`, each group's paired difference from the reference: paired.py),
`sweep.json` (the plan, times and status) and a self-contained report.html.

The parent validates every variant before any run starts and never loads a model: each
worker builds its own from the spec, so an embedded model is loaded once per worker.
"""

from __future__ import annotations

import itertools
import json
import re
import secrets
import shutil
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import yaml
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from simulacra.core.budget import STOPPED, OverBudget
from simulacra.errors import Interrupted, UserError
from simulacra.experiments.branch_study import run_branch_study
from simulacra.experiments.load import ScenarioError, apply_override, load_scenario
from simulacra.experiments.paired import check_reference
from simulacra.experiments.pool import on_processes
from simulacra.experiments.scenario import Scenario
from simulacra.experiments.sweep_budget import Waves
from simulacra.experiments.sweep_jobs import SweepJob, run_job
from simulacra.experiments.sweep_results import JobResult, write_json, write_outputs
from simulacra.report.sweep_page import write_sweep_report
from simulacra.runlog import versions

SweepExecutor = Literal["local", "ray"]
RAY_RETRIES = 2


class SweepError(UserError, RuntimeError):
    """A sweep that could not start, or runs of it that failed."""


class SweepStopped(OverBudget):
    """A sweep that stopped starting runs before its budget would be passed."""


def variants(scenario: Scenario) -> dict[str, dict[str, Any]]:
    """Each variant's name and its field overrides: the named `variants`, then every
    combination of `vary`; one variant, "base", when the sweep names none."""
    plan = scenario.sweep
    found = dict(plan.variants)
    keys = list(plan.vary)
    # With nothing to vary the product is one empty combination: no variant of its own.
    for values in itertools.product(*(plan.vary[k] for k in keys)) if keys else ():
        if len(keys) == 1:
            name = str(values[0])
        else:
            name = ",".join(f"{k}={v}" for k, v in zip(keys, values, strict=True))
        found[name] = dict(zip(keys, values, strict=True))
    return found or {"base": {}}


def plan_jobs(scenario: Scenario) -> list[SweepJob]:
    """Validate every variant and model; the jobs in replicate, variant, model order."""
    plan = scenario.sweep
    models = _models(scenario)
    resolved: dict[tuple[str, str], dict[str, Any]] = {}
    for variant, overrides in variants(scenario).items():
        for model in models:
            raw = scenario.model_dump(mode="json")
            sets = [f"{path}={json.dumps(value)}" for path, value in overrides.items()]
            sets.append(f"model.spec={json.dumps(model)}")
            for override in sets:
                apply_override(raw, override, f"sweep variant {variant}")
            try:
                resolved[variant, model] = load_scenario(raw).model_dump(mode="json")
            except ScenarioError as exc:
                raise ScenarioError(f"sweep variant {variant} ({model})", exc.problems) from None
    jobs = []
    several = len(models) > 1
    for replicate, seed in enumerate(plan.replicate_seeds(scenario.seed), start=1):
        for (variant, model), raw in resolved.items():
            label = f"{variant}-{model}" if several else variant
            name = _safe(f"{scenario.name}-{label}-r{replicate}")
            jobs.append(SweepJob({**raw, "seed": seed}, variant, model, replicate, seed, name))
    return jobs


def run_sweep(
    path: str | Path | Scenario,
    overrides: Sequence[str] | None = None,
    *,
    executor: str | None = None,
    workers: int | None = None,
    root: str | Path | None = None,
    progress: bool = True,
) -> Path:
    """Run the scenario's sweep and return the sweep directory.

    `overrides` are `key.path=value` settings (`sweep.replicates=2`); `executor` is "local" (a
    process pool of `workers`) or "ray" (the `ray` extra; started locally with `workers` CPUs,
    or joined at `sweep.ray_address`, whose nodes must all see `root`); each defaults to the
    scenario's sweep section. On Ray, a run whose worker dies is retried and resumes from its
    last checkpoint. Raises SweepError after writing the outputs if any run failed.
    """
    scenario = load_scenario(path, overrides)
    if scenario.sweep.fork is not None:  # branches of one run (experiments/branch_study.py)
        return run_branch_study(scenario, root=root, progress=progress)
    executor = _executor(executor or scenario.sweep.executor)
    jobs = plan_jobs(scenario)
    faults = check_reference(scenario.sweep.reference, list(variants(scenario)), _models(scenario))
    if faults:
        raise ScenarioError(str(path) if not isinstance(path, Scenario) else "scenario", faults)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    out = (
        Path(root or scenario.output.root) / f"{scenario.name}-sweep-{stamp}-{secrets.token_hex(3)}"
    )
    out.mkdir(parents=True, exist_ok=False)
    resolved = scenario.model_dump(mode="json")
    (out / "config.yaml").write_text(yaml.safe_dump(resolved, sort_keys=False), encoding="utf-8")
    count = workers or scenario.sweep.workers
    info: dict[str, Any] = {
        "scenario": scenario.name,
        "world": scenario.world.kind,
        "executor": executor,
        "workers": count,
        "variants": list(variants(scenario)),
        "models": _models(scenario),
        "seeds": scenario.sweep.replicate_seeds(scenario.seed),
        "versions": versions(),
        "started": time.time(),
    }
    try:
        return _fan_out(out, scenario, jobs, info, progress)
    except BaseException as exc:
        if any((path / "run.json").is_file() for path in out.iterdir()):
            raise
        shutil.rmtree(out, ignore_errors=True)  # no run started: nothing to resume
        if isinstance(exc, KeyboardInterrupt):
            raise Interrupted("the sweep stopped before any of its runs started") from None
        raise


def resume_sweep(
    path: str | Path,
    *,
    executor: str | None = None,
    workers: int | None = None,
    progress: bool = True,
) -> Path:
    """Finish a stopped sweep in its own directory: runs that completed are read back, not
    redone; stopped runs resume from their checkpoints; missing runs start."""
    out = Path(path)
    if not (out / "sweep.json").is_file() or not (out / "config.yaml").is_file():
        raise SweepError(f"{out}: not a sweep directory (no sweep.json and config.yaml)")
    info: dict[str, Any] = json.loads((out / "sweep.json").read_text(encoding="utf-8"))
    scenario = load_scenario(yaml.safe_load((out / "config.yaml").read_text(encoding="utf-8")))
    info["executor"] = _executor(executor or info.get("executor", scenario.sweep.executor))
    info["workers"] = workers or info.get("workers", scenario.sweep.workers)
    info["resumed"] = int(info.get("resumed", 0)) + 1
    return _fan_out(out, scenario, plan_jobs(scenario), info, progress)


def launch_jobs(
    jobs: Sequence[SweepJob],
    root: Path,
    executor: SweepExecutor,
    workers: int,
    ray_address: str | None = None,
) -> Iterator[JobResult]:
    """Run `jobs` into `root` on local processes or Ray; yield each result as its run ends."""
    if executor == "ray":
        return _on_ray(_ray(), jobs, str(root), workers, ray_address)
    return on_processes(jobs, str(root), workers)


def _executor(name: str) -> SweepExecutor:
    if name not in ("local", "ray"):
        raise SweepError(f'unknown sweep executor {name!r}; expected "local" or "ray"')
    if name == "ray":
        _ray()  # refuse before anything runs when Ray is missing
    return "ray" if name == "ray" else "local"


def _fan_out(
    out: Path, scenario: Scenario, jobs: Sequence[SweepJob], info: dict[str, Any], progress: bool
) -> Path:
    """Run `jobs` into `out` on the sweep's executor; write the results, summaries and
    report; raise SweepError if any run failed."""
    info["status"] = "running"
    write_json(out / "sweep.json", info)
    started = time.perf_counter()
    results: list[JobResult] = []
    count = int(info["workers"])
    waves = Waves(scenario.sweep.budget, jobs, count)

    def launch(batch: Sequence[SweepJob]) -> Iterator[JobResult]:
        return launch_jobs(batch, out, info["executor"], count, scenario.sweep.ray_address)

    try:
        with _job_bar(f"{scenario.name} sweep", len(jobs), progress) as done:
            for result in waves.run(launch):
                results.append(result)
                done()
    except BaseException as exc:
        stopped = isinstance(exc, KeyboardInterrupt)
        info |= {"ended": time.time(), "status": "interrupted" if stopped else "failed"}
        info["error"] = "Ctrl+C" if stopped else f"{type(exc).__name__}: {exc}"
        write_json(out / "sweep.json", info)
        if stopped:
            raise Interrupted(
                f"sweep {out} stopped after {len(results)} of {len(jobs)} runs; continue it: "
                f"simulacra sweep --resume {out}"
            ) from None
        raise
    order = {(j.variant, j.model, j.replicate): i for i, j in enumerate(jobs)}
    results.sort(key=lambda r: order[r.variant, r.model, r.replicate])
    failed = [r for r in results if r.error is not None]
    wall_s = round(time.perf_counter() - started, 2)
    summary = write_outputs(out, scenario, variants(scenario), results, wall_s)
    status = "failed" if failed else STOPPED if waves.stopped else "completed"
    info |= {"ended": time.time(), "wall_s": wall_s, "status": status}
    for key in ("error", "completed", "spent"):
        info.pop(key, None)  # an earlier stop, now resumed
    info["failed"] = [f"{r.variant} {r.model} r{r.replicate}: {r.error}" for r in failed]
    if waves.stopped:
        spent = waves.total().as_dict()
        info |= {"error": waves.stopped, "completed": len(results), "spent": spent}
    write_json(out / "sweep.json", info)
    write_sweep_report(out, summary)
    if waves.stopped and not failed:
        raise SweepStopped(
            f"sweep {out} {STOPPED} ({waves.stopped}): it completed {len(results)} of "
            f"{len(jobs)} runs; to finish it, raise sweep.budget in {out / 'config.yaml'} "
            f"and run: simulacra sweep --resume {out}"
        )
    if failed:
        detail = "\n".join(info["failed"])
        raise SweepError(f"{len(failed)} of {len(results)} runs failed (see {out}):\n{detail}")
    return out


def _models(scenario: Scenario) -> list[str]:
    return scenario.sweep.models or [scenario.model.spec]


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_")[:120]


def _ray() -> Any:
    """The ray module, imported only when a sweep asks for it (it is large and optional)."""
    try:
        import ray
    except ImportError:
        raise SweepError(
            "--executor ray needs Ray, which is not installed; install the ray extra "
            '(pip install "simulacra[ray]") or use --executor local'
        ) from None
    return ray


def _on_ray(
    ray: Any, jobs: Sequence[SweepJob], root: str, workers: int, address: str | None
) -> Iterator[JobResult]:
    started_here = not ray.is_initialized()
    if started_here:
        if address:
            ray.init(address=address)
        else:
            ray.init(num_cpus=workers, include_dashboard=False)
    try:
        # A run whose worker dies (killed, out of memory) is retried; it resumes, see run_job.
        remote = ray.remote(num_cpus=1, max_retries=RAY_RETRIES)(run_job)
        of_ref = {remote.remote(job, root): job for job in jobs}
        pending = list(of_ref)
        while pending:
            finished, pending = ray.wait(pending, num_returns=1)
            try:
                yield ray.get(finished[0])
            except ray.exceptions.RayError as exc:  # retries spent
                job = of_ref[finished[0]]
                yield JobResult(job.variant, job.model, job.replicate, job.seed, "", error=str(exc))
    finally:
        if started_here:
            ray.shutdown()


@contextmanager
def _job_bar(title: str, total: int, progress: bool) -> Iterator[Callable[[], None]]:
    if not progress or not sys.stderr.isatty():
        yield lambda: None
        return
    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("runs"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
    )
    task = bar.add_task(title, total=total)
    with bar:
        yield lambda: bar.advance(task)
