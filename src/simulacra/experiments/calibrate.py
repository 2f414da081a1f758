"""`simulacra calibrate SCENARIO --targets targets.yaml`: named scenario parameters fitted to
observed statistics by ABC-SMC (experiments/abc.py), with their uncertainty, and checked on
targets held out of the fit.

The targets file (validated; a fault names its field):

    set: [agents.mind=logit, "world.city.taxi_strikes=[]"]   # every calibration run
    parameters:                                # scenario paths and their priors
      agents.options.logit.constants.student.bus: {uniform: [-2, 4], reference: 1.183}
    targets:                                   # fitted: statistics of a run's metrics.json
      student_bus: {metric: modal_share.student.bus, observed: 66}
    held_out:                                  # not fitted: compared with the prediction
      set: ["clock.ticks=15"]
      draws: 20
      targets:
        admin_bus_shift: {metric: "modal_split.administrative_worker.{day}.bus",
                          days: [13, 14], minus_days: [1, 2, 3, 4, 5], observed: 27.5}
    abc: {particles: 100, generations: 5, runs: 1000}

A metric is a dotted path into a run's metrics.json; with `days`, "{day}" in it stands for
each day and the statistic is their mean, less the mean over `minus_days` where given (a
shift). `reference` is a value to show beside the posterior (a fit made another way).

Every run goes through the sweep machinery (local processes or Ray, experiments/sweep.py), a
batch at a time, each with a seed of its own (the scenario's, plus the run's number), so the
posterior carries the runs' own noise. `abc.runs` is the run budget of the fit; the posterior
predictive then runs `held_out.draws` parameter sets drawn from the posterior twice: under the
calibration's settings (the fit per target) and under the held-out settings (the check).

Written into `<root>/<name>-calibration-<stamp>-<id>/`: calibration.json (priors, posterior
medians and 95% intervals, the fit per target, the held-out check, runs, wall time),
posterior.csv (the last generation: parameters, weight, distance, statistics),
generations.csv, predictive.csv, pairs.svg and report.html.
"""

from __future__ import annotations

import csv
import json
import math
import secrets
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from simulacra.errors import UserError, unknown
from simulacra.experiments.abc import AbcResult, Generation, Prior, abc_smc, weighted_quantiles
from simulacra.experiments.load import apply_override, load_scenario
from simulacra.experiments.scenario import Scenario
from simulacra.experiments.sweep import launch_jobs
from simulacra.experiments.sweep_jobs import SweepJob
from simulacra.experiments.yaml_model import read_model
from simulacra.report.calibration_page import pairs_svg, write_calibration_report

Executor = Literal["local", "ray"]
INTERVAL = (0.025, 0.5, 0.975)


class CalibrationError(UserError, ValueError):
    """A targets file or calibration that cannot run; the message names the field."""


class Statistic(BaseModel):
    """One figure of a run compared with what was observed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    metric: str = Field(min_length=1, description="a dotted path into metrics.json")
    days: list[int] | None = Field(default=None, min_length=1)
    minus_days: list[int] | None = Field(default=None, min_length=1)
    observed: float
    scale: float = Field(default=1.0, gt=0, description="the gap that counts as 1")
    source: str = ""

    @model_validator(mode="after")
    def _days_in_the_path(self) -> Statistic:
        if (self.days is None) == ("{day}" in self.metric):
            raise ValueError('give days exactly when the metric has "{day}" in its path')
        if self.minus_days is not None and self.days is None:
            raise ValueError("minus_days needs days: a shift is from one set of days to another")
        return self

    def value(self, metrics: Mapping[str, Any]) -> float:
        if self.days is None:
            return _at(metrics, self.metric)
        mean = float(np.mean([_at(metrics, self.metric.format(day=d)) for d in self.days]))
        if self.minus_days is None:
            return mean
        return mean - float(
            np.mean([_at(metrics, self.metric.format(day=d)) for d in self.minus_days])
        )


class Parameter(Prior):
    """A scenario parameter's prior, and a value to show beside its posterior."""

    reference: float | None = None


class HeldOut(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    set: list[str] = Field(default_factory=list, description="settings of the held-out runs")
    draws: int = Field(default=20, ge=2, description="posterior draws, one run each")
    targets: dict[str, Statistic] = Field(min_length=1)


class AbcSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    particles: int = Field(default=100, ge=5)
    generations: int = Field(default=5, ge=1)
    runs: int = Field(default=1000, ge=5, description="the run budget of the fit")
    quantile: float = Field(default=0.5, gt=0, lt=1)
    min_acceptance: float = Field(default=0.02, ge=0, lt=1)
    seed: int = 0


class Targets(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    set: list[str] = Field(default_factory=list, description="settings of every run")
    parameters: dict[str, Parameter] = Field(min_length=1)
    targets: dict[str, Statistic] = Field(min_length=1)
    held_out: HeldOut | None = None
    abc: AbcSettings = AbcSettings()


def read_targets(path: Path) -> Targets:
    return read_model(path, Targets, "targets file", CalibrationError, "targets")


class _Runs:
    """Batches of runs of one scenario with parameter values set, each its own seed, through
    the sweep machinery; each batch's statistics read back from its runs' metrics.json."""

    def __init__(
        self,
        base: Scenario,
        parameters: Sequence[str],
        root: Path,
        executor: Executor,
        workers: int,
        keep: bool,
    ) -> None:
        self.base, self.parameters, self.root = base, list(parameters), root
        self.executor, self.workers, self.keep = executor, workers, keep
        self.count = 0

    def statistics(
        self, theta: np.ndarray, targets: Mapping[str, Statistic], scenario: Scenario | None = None
    ) -> np.ndarray:
        jobs = [self._job(row, scenario or self.base) for row in theta]
        order = {job.variant: i for i, job in enumerate(jobs)}
        found = np.full((len(jobs), len(targets)), np.nan)
        self.root.mkdir(parents=True, exist_ok=True)
        for result in launch_jobs(jobs, self.root, self.executor, self.workers):
            if result.error is not None:
                raise CalibrationError(f"calibration run {result.variant} failed: {result.error}")
            run = Path(result.run)
            metrics = json.loads((run / "metrics.json").read_text(encoding="utf-8"))
            for j, (name, target) in enumerate(targets.items()):
                try:
                    found[order[result.variant], j] = target.value(metrics)
                except KeyError as exc:
                    raise CalibrationError(f"targets.{name}.metric: {exc.args[0]}") from None
            if not self.keep:
                shutil.rmtree(run, ignore_errors=True)
        return found

    def _job(self, row: np.ndarray, scenario: Scenario) -> SweepJob:
        self.count += 1
        raw = scenario.model_dump(mode="json")
        raw["output"]["report"] = False  # its statistics are read from metrics.json
        for path, value in zip(self.parameters, row, strict=True):
            apply_override(raw, f"{path}={json.dumps(float(value))}", "calibration")
        seed = scenario.seed + self.count
        label = f"c{self.count:05d}"
        resolved = load_scenario(raw).model_dump(mode="json")
        return SweepJob({**resolved, "seed": seed}, label, scenario.model.spec, 1, seed, label)


def calibrate(
    scenario_path: str | Path,
    targets_path: str | Path,
    overrides: Sequence[str] = (),
    *,
    executor: Executor = "local",
    workers: int | None = None,
    root: str | Path | None = None,
    keep_runs: bool = False,
    on_generation: Callable[[Generation], None] | None = None,
) -> Path:
    """Fit the targets file's parameters; return the calibration's folder. `on_generation`
    hears of each ABC-SMC generation as it completes."""
    started = time.perf_counter()
    targets = read_targets(Path(targets_path))
    base = load_scenario(scenario_path, [*targets.set, *overrides])
    names = list(targets.parameters)
    _check_parameters(base, targets)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    out = Path(root or base.output.root) / f"{base.name}-calibration-{stamp}-{secrets.token_hex(3)}"
    out.mkdir(parents=True)
    runs = _Runs(base, names, out / "runs", executor, workers or base.sweep.workers, keep_runs)
    settings = targets.abc
    observed = [t.observed for t in targets.targets.values()]
    result = abc_smc(
        [targets.parameters[n] for n in names],
        lambda theta: runs.statistics(theta, targets.targets),
        observed,
        scale=[t.scale for t in targets.targets.values()],
        particles=settings.particles,
        generations=settings.generations,
        max_runs=settings.runs,
        quantile=settings.quantile,
        min_acceptance=settings.min_acceptance,
        seed=settings.seed,
        on_generation=on_generation,
    )
    fit_runs = runs.count
    draws = targets.held_out.draws if targets.held_out else max(20, settings.particles // 5)
    rng = np.random.default_rng(settings.seed + 1)
    post = result.posterior
    picked = post.particles[rng.choice(len(post.weights), size=draws, p=post.weights)]
    predicted = runs.statistics(picked, targets.targets)
    held: np.ndarray | None = None
    if targets.held_out is not None:
        later = load_scenario(base, targets.held_out.set)
        held = runs.statistics(picked, targets.held_out.targets, later)
    if not keep_runs:
        shutil.rmtree(out / "runs", ignore_errors=True)
    outcome = _Outcome(targets, names, result, picked, predicted, held)
    summary = _summary(outcome)
    summary |= {
        "scenario": base.name,
        "scenario_path": str(scenario_path),
        "targets_path": str(targets_path),
        "settings": targets.model_dump(mode="json"),
        "executor": executor,
        "runs": {"fit": fit_runs, "predictive": runs.count - fit_runs, "total": runs.count},
        "stopped": result.stopped,
        "wall_s": round(time.perf_counter() - started, 2),
    }
    _write(out, outcome, summary)
    return out


def _check_parameters(base: Scenario, targets: Targets) -> None:
    """Each parameter set to a value of its prior must leave a valid scenario."""
    raw = base.model_dump(mode="json")
    for path, prior in targets.parameters.items():
        low, high = prior.bounds()
        apply_override(raw, f"{path}={json.dumps((low + high) / 2)}", f"targets.parameters.{path}")
    load_scenario(raw)


@dataclass(frozen=True)
class _Outcome:
    """What a calibration found: the ABC-SMC's generations, the posterior draws and the
    statistics of their runs under the calibration's and the held-out settings."""

    targets: Targets
    names: list[str]
    result: AbcResult
    picked: np.ndarray
    predicted: np.ndarray
    held: np.ndarray | None


def _summary(o: _Outcome) -> dict[str, Any]:
    targets, names, post, held = o.targets, o.names, o.result.posterior, o.held
    parameters = []
    for j, name in enumerate(names):
        prior = targets.parameters[name]
        low, median, high = weighted_quantiles(post.particles[:, j], post.weights, INTERVAL)
        reference = prior.reference
        parameters.append(
            {
                "parameter": name,
                "median": round(median, 4),
                "low": round(low, 4),
                "high": round(high, 4),
                "prior": prior.model_dump(exclude_none=True, exclude={"reference"}),
                "prior_low": round(prior.bounds()[0], 4),
                "prior_high": round(prior.bounds()[1], 4),
                "reference": reference,
                "reference_inside": None if reference is None else low <= reference <= high,
            }
        )
    summary: dict[str, Any] = {
        "parameters": parameters,
        "fit": _checked(targets.targets, o.predicted),
        "generations": [_generation(g) for g in o.result.generations],
        "held_out": None
        if held is None or targets.held_out is None
        else _checked(targets.held_out.targets, held),
        "draws": len(o.picked),
    }
    return summary


def _checked(targets: Mapping[str, Statistic], values: np.ndarray) -> list[dict[str, Any]]:
    """Each target beside the predictive median and 95% interval of its statistic."""
    rows = []
    for j, (name, target) in enumerate(targets.items()):
        low, median, high = (float(v) for v in np.quantile(values[:, j], INTERVAL))
        rows.append(
            {
                "target": name,
                "metric": target.metric,
                "observed": target.observed,
                "median": round(median, 3),
                "low": round(low, 3),
                "high": round(high, 3),
                "inside": low <= target.observed <= high,
                "source": target.source,
            }
        )
    return rows


def _generation(g: Generation) -> dict[str, Any]:
    return {
        "generation": g.index,
        "epsilon": None if math.isinf(g.epsilon) else round(g.epsilon, 4),
        "particles": len(g.weights),
        "runs": g.runs,
        "accepted": g.accepted,
        "acceptance": round(g.acceptance, 4),
    }


def _write(out: Path, o: _Outcome, summary: dict[str, Any]) -> None:
    targets, names, post, held = o.targets, o.names, o.result.posterior, o.held
    fitted = list(targets.targets)
    with (out / "posterior.csv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow([*names, "weight", "distance", *fitted])
        for i in range(len(post.weights)):
            writer.writerow(
                [*post.particles[i], post.weights[i], post.distances[i], *post.statistics[i]]
            )
    with (out / "generations.csv").open("w", newline="", encoding="utf-8") as f:
        table = csv.DictWriter(f, fieldnames=list(summary["generations"][0]))
        table.writeheader()
        table.writerows(summary["generations"])
    held_names = list(targets.held_out.targets) if targets.held_out and held is not None else []
    with (out / "predictive.csv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["draw", *names, *fitted, *held_names])
        for i, row in enumerate(o.picked):
            extra = list(held[i]) if held is not None else []
            writer.writerow([i + 1, *row, *o.predicted[i], *extra])
    references = [targets.parameters[n].reference for n in names]
    svg = pairs_svg(names, post.particles, post.weights, references)
    (out / "pairs.svg").write_text(svg, encoding="utf-8")
    (out / "calibration.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    write_calibration_report(out, summary, svg)


def _at(metrics: Mapping[str, Any], path: str) -> float:
    node: Any = metrics
    walked: list[str] = []
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            known = [str(k) for k in node] if isinstance(node, Mapping) else []
            where = ".".join(walked) or "metrics.json"
            raise KeyError(f"{path}: at {where}, {unknown('key', part, known)}")
        node = node[part]
        walked.append(part)
    if not isinstance(node, int | float):
        raise KeyError(f"{path}: is not a number but {type(node).__name__}")
    return float(node)
