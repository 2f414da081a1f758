"""The commute sweep: every variant x every replicate, one run each, on local processes or Ray.

`run_sweep(path)` writes `runs/<name>-sweep-<stamp>-<id>/` with each run's directory,
`ablation.csv` (one row per variant and replicate), `ablation.json` and `summary.md` (per
variant, the mean of each Table-5 column with its 95% confidence interval over replicates,
Student's t), `sweep.json` (the plan, times and status) and a self-contained report.html.

Each worker process builds its own model from the spec: the parent validates the scenario and
never loads a model, so an embedded model is loaded once per worker, not in the parent.
"""

from __future__ import annotations

import csv
import json
import math
import multiprocessing
import secrets
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import yaml
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from simulacra.commuter.experiment import run_commute_scenario
from simulacra.commuter.metrics import TABLE5_COLUMNS, on_time_window, strike_days
from simulacra.commuter.scenario import CommuteScenario, load_commute_scenario
from simulacra.commuter.sweep_page import write_sweep_report
from simulacra.runlog import versions

SweepExecutor = Literal["local", "ray"]
CSV_COLUMNS = ("variant", "replicate", "seed", *TABLE5_COLUMNS)
CONFIDENCE = 0.95


class SweepError(RuntimeError):
    """A sweep that could not start, or runs of it that failed."""


@dataclass(frozen=True)
class Interval:
    """A mean and its confidence interval; no interval from fewer than two values."""

    mean: float
    low: float | None
    high: float | None
    n: int

    def as_dict(self) -> dict[str, float | int | None]:
        return {"mean": self.mean, "low": self.low, "high": self.high, "n": self.n}

    def text(self, digits: int = 2) -> str:
        if self.low is None or self.high is None:
            return f"{self.mean:.{digits}f} (CI n/a)"
        return f"{self.mean:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"


def mean_ci(values: Sequence[float], confidence: float = CONFIDENCE) -> Interval:
    """Mean with a two-sided Student-t interval: mean +- t(df=n-1) * sd / sqrt(n)."""
    n = len(values)
    if n == 0:
        raise ValueError("mean_ci needs at least one value")
    mean = math.fsum(values) / n
    if n < 2:
        return Interval(mean, None, None, n)
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    half = t_quantile(0.5 + confidence / 2, n - 1) * sd / math.sqrt(n)
    return Interval(mean, mean - half, mean + half, n)


def t_quantile(p: float, df: int) -> float:
    """The p-quantile of Student's t with `df` degrees of freedom (0.5 < p < 1), by bisection
    on its distribution function."""
    if not 0.5 < p < 1 or df < 1:
        raise ValueError(f"t_quantile needs 0.5 < p < 1 and df >= 1, got p={p}, df={df}")
    low, high = 0.0, 1.0
    while _t_cdf(high, df) < p:
        high *= 2
    for _ in range(200):
        mid = (low + high) / 2
        low, high = (mid, high) if _t_cdf(mid, df) < p else (low, mid)
        if high - low < 1e-12:
            break
    return (low + high) / 2


@dataclass(frozen=True)
class SweepJob:
    """One run of the sweep; plain data, so that it crosses process and Ray boundaries."""

    scenario: dict[str, Any]  # the resolved scenario, JSON-ready
    variant: str
    replicate: int
    seed: int
    root: str


@dataclass(frozen=True)
class JobResult:
    variant: str
    replicate: int
    seed: int
    run: str  # the run directory
    table5: dict[str, float]
    wall_s: float
    calls_per_agent_day: float
    fallbacks: int
    error: str | None = None


def run_job(job: SweepJob) -> JobResult:
    """Run one variant and replicate in this process (a pool or Ray worker)."""
    started = time.perf_counter()
    try:
        scenario = CommuteScenario.model_validate(job.scenario)
        run = run_commute_scenario(
            scenario,
            seed=job.seed,
            variant=job.variant,  # type: ignore[arg-type]
            root=job.root,
            name=f"{scenario.name}-{job.variant}-r{job.replicate}",
            progress=False,
            extra_info={"replicate": job.replicate},
        )
    except Exception:
        error = traceback.format_exc(limit=8)
        return JobResult(job.variant, job.replicate, job.seed, "", {}, 0.0, 0.0, 0, error)
    info = run.info()
    table = {k: float(info["table5"][k]) for k in TABLE5_COLUMNS}
    return JobResult(
        job.variant,
        job.replicate,
        job.seed,
        str(run.path),
        table,
        round(time.perf_counter() - started, 3),
        float(info["calls_per_agent_day"]),
        int(info["fallbacks"]),
    )


def run_sweep(
    path: str | Path,
    overrides: Sequence[str] | None = None,
    *,
    model_spec: str | None = None,
    executor: SweepExecutor = "local",
    workers: int | None = None,
    root: str | Path = "runs",
    progress: bool = True,
) -> Path:
    """Run the scenario's sweep (variants x replicates) and return the sweep directory.

    `overrides` are `key.path=value` settings (`sweep.replicates=2`, `commute.days=10`);
    `model_spec` replaces the scenario's model; `executor` is "local" (a process pool of
    `workers`, default the scenario's `sweep.workers`, 2) or "ray" (the `ray` extra; started
    locally with `workers` CPUs, or joined at the scenario's `sweep.ray_address`, whose nodes
    must all see `root`). Raises SweepError after writing the outputs if any run failed.
    """
    if executor not in ("local", "ray"):
        raise SweepError(f'unknown sweep executor {executor!r}; expected "local" or "ray"')
    ray = _ray() if executor == "ray" else None
    scenario = load_commute_scenario(path, overrides, model_spec=model_spec)
    plan = scenario.sweep
    seeds = plan.replicate_seeds(scenario.commute.seed)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    out = Path(root) / f"{scenario.name}-sweep-{stamp}-{secrets.token_hex(3)}"
    out.mkdir(parents=True, exist_ok=False)
    resolved = scenario.model_dump(mode="json")
    (out / "config.yaml").write_text(yaml.safe_dump(resolved, sort_keys=False), encoding="utf-8")
    jobs = [
        SweepJob(resolved, variant, replicate, seed, str(out))
        for replicate, seed in enumerate(seeds, start=1)
        for variant in plan.variants
    ]
    count = workers or plan.workers
    info: dict[str, Any] = {
        "scenario": scenario.name,
        "model": scenario.model.spec,
        "executor": executor,
        "workers": count,
        "variants": list(plan.variants),
        "seeds": list(seeds),
        "versions": versions(),
        "started": time.time(),
        "status": "running",
    }
    _write_json(out / "sweep.json", info)
    started = time.perf_counter()
    results: list[JobResult] = []
    with _job_bar(f"{scenario.name} sweep", len(jobs), progress) as done:
        if ray is not None:
            fan_out = _on_ray(ray, jobs, count, plan.ray_address)
        else:
            fan_out = _on_processes(jobs, count)
        for result in fan_out:
            results.append(result)
            done()
    order: dict[str, int] = {v: i for i, v in enumerate(plan.variants)}
    results.sort(key=lambda r: (order[r.variant], r.replicate))
    failed = [r for r in results if r.error is not None]
    wall_s = round(time.perf_counter() - started, 2)
    summary = _write_outputs(out, scenario, results, wall_s)
    info |= {"ended": time.time(), "wall_s": wall_s, "status": "failed" if failed else "completed"}
    info["failed"] = [f"{r.variant} r{r.replicate}: {r.error}" for r in failed]
    _write_json(out / "sweep.json", info)
    write_sweep_report(out, summary, _runs_by_variant(results))
    if failed:
        detail = "\n".join(info["failed"])
        raise SweepError(f"{len(failed)} of {len(results)} runs failed (see {out}):\n{detail}")
    return out


def summarize_sweep(results: Sequence[JobResult]) -> dict[str, dict[str, Any]]:
    """Per variant: replicates and each Table-5 column's mean with its interval."""
    by_variant: dict[str, list[JobResult]] = {}
    for result in results:
        if result.error is None:
            by_variant.setdefault(result.variant, []).append(result)
    return {
        variant: {
            "replicates": len(runs),
            **{k: mean_ci([r.table5[k] for r in runs]).as_dict() for k in TABLE5_COLUMNS},
            "calls_per_agent_day": mean_ci([r.calls_per_agent_day for r in runs]).as_dict(),
            "fallbacks": sum(r.fallbacks for r in runs),
        }
        for variant, runs in by_variant.items()
    }


def _write_outputs(
    out: Path, scenario: CommuteScenario, results: Sequence[JobResult], wall_s: float
) -> dict[str, Any]:
    done = [r for r in results if r.error is None]
    with (out / "ablation.csv").open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(CSV_COLUMNS)
        for r in done:
            writer.writerow(
                [r.variant, r.replicate, r.seed, *(r.table5[k] for k in TABLE5_COLUMNS)]
            )
    summary = {
        "scenario": scenario.name,
        "model": scenario.model.spec,
        "agents": sum(line.count for line in scenario.commute.population),
        "days": scenario.commute.days,
        "strike_days": strike_days(scenario.commute),
        "on_time_window": on_time_window(scenario.commute),
        "confidence": CONFIDENCE,
        "wall_s": wall_s,
        "variants": summarize_sweep(results),
        "runs": [asdict(r) | {"run": Path(r.run).name if r.run else None} for r in results],
    }
    _write_json(out / "ablation.json", summary)
    (out / "summary.md").write_text(_markdown(summary), encoding="utf-8")
    return summary


def _markdown(summary: dict[str, Any]) -> str:
    head = "| variant | replicates | " + " | ".join(TABLE5_COLUMNS) + " |"
    lines = [
        f"# {summary['scenario']}: ablation ({summary['model']})",
        "",
        f"{summary['agents']} agents x {summary['days']} days; taxi strike on days "
        f"{_day_list(summary['strike_days'])}. Percent of trips, mean "
        f"[{summary['confidence']:.0%} CI over replicates, Student's t]. "
        f"{summary['on_time_window']}.",
        "",
        head,
        "|" + " --- |" * (len(TABLE5_COLUMNS) + 2),
    ]
    for variant, row in summary["variants"].items():
        cells = [_interval_text(row[k]) for k in TABLE5_COLUMNS]
        lines.append(f"| {variant} | {row['replicates']} | " + " | ".join(cells) + " |")
    lines += ["", f"Wall time: {summary['wall_s']} s.", ""]
    return "\n".join(lines)


def _interval_text(value: dict[str, Any]) -> str:
    return Interval(value["mean"], value["low"], value["high"], value["n"]).text()


def _runs_by_variant(results: Sequence[JobResult]) -> dict[str, list[Path]]:
    runs: dict[str, list[Path]] = {}
    for r in results:
        if r.error is None:
            runs.setdefault(r.variant, []).append(Path(r.run))
    return runs


def _on_processes(jobs: Sequence[SweepJob], workers: int) -> Iterator[JobResult]:
    # spawn, not fork: a worker starts clean, without the parent's threads or loaded libraries.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=context) as pool:
        futures = [pool.submit(run_job, job) for job in jobs]
        for future in as_completed(futures):
            yield future.result()


def _ray() -> Any:
    """The ray module, imported only when a sweep asks for it (it is large and optional)."""
    try:
        import ray
    except ImportError:
        raise SweepError(
            "--executor ray needs Ray, which is not installed; install the ray extra "
            '(pip install "simulacra[ray]", or pip install "ray[default]") or use --executor local'
        ) from None
    return ray


def _on_ray(
    ray: Any, jobs: Sequence[SweepJob], workers: int, address: str | None
) -> Iterator[JobResult]:
    started_here = not ray.is_initialized()
    if started_here:
        if address:
            ray.init(address=address)
        else:
            ray.init(num_cpus=workers, include_dashboard=False)
    try:
        remote = ray.remote(num_cpus=1)(run_job)
        pending = [remote.remote(job) for job in jobs]
        while pending:
            finished, pending = ray.wait(pending, num_returns=1)
            yield ray.get(finished[0])
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


def _write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2, default=str), encoding="utf-8")


def _t_cdf(t: float, df: int) -> float:
    """P(T <= t) for t >= 0: 1 - I_x(df/2, 1/2) / 2 with x = df / (df + t^2)."""
    return 1.0 - 0.5 * _betainc(df / 2, 0.5, df / (df + t * t))


def _betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta I_x(a, b), by its continued fraction (Lentz)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x > (a + 1) / (a + b + 2):  # the fraction converges fast only on this side
        return 1.0 - _betainc(b, a, 1.0 - x)
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 300):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return front * result / a


def _day_list(days: Sequence[int]) -> str:
    return ", ".join(str(d) for d in days) if days else "none"
