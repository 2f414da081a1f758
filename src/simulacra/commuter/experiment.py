"""One commute run in a run directory: `run_commute_scenario(scenario) -> RunDir`.

The directory holds the resolved config.yaml, run.json (status, seed, model, variant,
executor), events.jsonl (run, decision, llm.call, trip, world, metric events), the model's
response cache llm_cache.sqlite (none for the scripted model), metrics.json, the figures
(figures/*.svg) and report.html + viewer.html.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from simulacra.commuter.agent import Variant
from simulacra.commuter.metrics import commute_metrics, on_time_window, strike_days
from simulacra.commuter.plots import modal_split_svg, taxi_wait_svg, write_figure
from simulacra.commuter.run import CommuteResults, run_commute
from simulacra.commuter.scenario import CommuteScenario, Executor, load_commute_scenario
from simulacra.commuter.scripted import script_commuters
from simulacra.llm import (
    CACHE_FILE,
    Completion,
    Gateway,
    Request,
    ScriptedModel,
    SqliteCache,
    call_record,
)
from simulacra.runlog import EventWriter, RunDir
from simulacra.worlds.commute import City, build_population, open_executor

log = logging.getLogger(__name__)

FIGURES = "figures"


def run_commute_scenario(
    path_or_config: str | Path | Mapping[str, Any] | CommuteScenario,
    *,
    model_spec: str | None = None,
    seed: int | None = None,
    variant: Variant | None = None,
    executor: Executor | None = None,
    root: str | Path = "runs",
    overrides: Sequence[str] | None = None,
    base: Path | None = None,
    name: str | None = None,
    progress: bool = True,
    report: bool = True,
    extra_info: Mapping[str, Any] | None = None,
) -> RunDir:
    """Run one commute scenario (a YAML path, its mapping, or a loaded scenario) to completion.

    `model_spec`, `seed`, `variant` and `executor` override the scenario's; `overrides` are
    `key.path=value` settings applied before validation; files a mapping names are read
    relative to `base` (default: the current directory). The run directory is
    `<root>/<name or scenario name>-<stamp>-<id>/`; `extra_info` joins run.json (a sweep
    records the replicate there). A scripted model gets the commute's rule-following
    responders. `progress` draws a bar per day when a terminal is attached.
    """
    if isinstance(path_or_config, CommuteScenario):
        scenario = path_or_config
        if model_spec is not None:
            scenario = scenario.model_copy(
                update={"model": scenario.model.model_copy(update={"spec": model_spec})}
            )
    else:
        scenario = load_commute_scenario(
            path_or_config, overrides, model_spec=model_spec, base=base
        )
    commute = scenario.commute.model_copy(
        update={
            "seed": scenario.commute.seed if seed is None else seed,
            "variant": variant or scenario.commute.variant,
        }
    )
    scenario = scenario.model_copy(
        update={"commute": commute, "executor": executor or scenario.executor}
    )
    run = RunDir.create(
        root,
        name or scenario.name,
        seed=commute.seed,
        model=scenario.model.spec,
        config=scenario.model_dump(mode="json"),
    )
    info = run.info() | {"scenario": scenario.name, "variant": commute.variant}
    run.write_info(info | {"executor": scenario.executor, **(extra_info or {})})
    writer = run.writer()
    try:
        model = _model(scenario, run, writer)
        results = _drive(run, scenario, model, writer, progress)
        metrics = _finish(run, scenario, results, model, writer)
    except BaseException as exc:
        run.record_failure(writer, exc)
        raise
    writer.close()
    (run.path / "metrics.json").write_text(json.dumps(metrics, indent=2), encoding="utf-8")
    budget = metrics["budget"]
    run.set_status(
        "completed",
        calls=budget["total"]["calls"],
        calls_per_agent_day=budget["calls_per_agent_day"],
        fallbacks=int(metrics["fallbacks"]["total"]["fallbacks"]),
        table5=metrics["punctuality"]["table"][0],
    )
    if report:
        _build_outputs(run)
    return run


def _model(scenario: CommuteScenario, run: RunDir, writer: EventWriter) -> Gateway:
    spec = scenario.model.spec
    # The scripted model is free and deterministic, and a replay reads its own run's cache.
    cached = spec != "scripted" and not spec.startswith("replay:")
    model = scenario.model.load(on_call=_call_logger(writer))
    if cached and scenario.model.cache is None:
        model.cache = SqliteCache(run.path / CACHE_FILE)
    if isinstance(model, ScriptedModel):
        script_commuters(model)
    return model


def _call_logger(writer: EventWriter) -> Callable[[Request, Completion], None]:
    def record(request: Request, completion: Completion) -> None:
        writer.emit("llm.call", call_record(request, completion), agent=request.agent)

    return record


def _drive(
    run: RunDir, scenario: CommuteScenario, model: Gateway, writer: EventWriter, progress: bool
) -> CommuteResults:
    config = scenario.commute
    city = City(config.city)
    people = build_population(config.profiles, config.population)
    zones = config.city.zones
    writer.emit(
        "run",
        {
            "scenario": scenario.name,
            "seed": config.seed,
            "model": model.name,
            "variant": config.variant,
            "executor": scenario.executor,
            "days": config.days,
            "start": config.moment(1, city.window.start_min).isoformat(),
            "strike_days": strike_days(config),
            "on_time_window": on_time_window(config),
            "world": {
                "places": [
                    {"name": zone, "kind": "zone", "x": x - 0.1, "y": -0.1, "w": 0.2, "h": 0.2}
                    for zone, x in zones.items()
                ],
                "stops": [
                    {"name": f"stop {i}", "x": x, "y": 0.4} for i, x in enumerate(city.stops)
                ],
            },
            "agents": {p.id: {"name": p.id, "profile": p.profile_name} for p in people},
        },
        t=config.moment(1, city.window.start_min),
    )
    workdir = run.path / "sumo" if scenario.executor == "sumo" else None
    trips = open_executor(scenario.executor, city, workdir)
    with _day_bar(f"{scenario.name} {config.variant}", config.days, progress) as on_day:

        def day_done(day: int) -> None:
            writer.flush()
            if on_day is not None:
                on_day(day)

        return asyncio.run(run_commute(config, model, trips, log=writer, on_day=day_done))


def _finish(
    run: RunDir,
    scenario: CommuteScenario,
    results: CommuteResults,
    model: Gateway,
    writer: EventWriter,
) -> dict[str, Any]:
    config = scenario.commute
    metrics = commute_metrics(results, config, model.ledger)
    strikes = metrics["taxi_wait"]["strike_days"]
    label = f"{scenario.name} {config.variant}, seed {config.seed}"
    figures = run.path / FIGURES
    write_figure(
        figures / "modal_split.svg",
        modal_split_svg(metrics["modal_split"], strikes, f"Modal split per profile ({label})"),
    )
    write_figure(
        figures / "taxi_wait.svg",
        taxi_wait_svg(metrics["taxi_wait"]["by_day"], strikes, f"Mean taxi wait ({label})"),
    )
    strike_text = f"days {_days(strikes)}" if strikes else "none"
    metrics["tables"] = [
        {
            "title": "Punctuality (Table 5 of the source)",
            "rows": metrics["punctuality"]["table"],
            "note": f"Percent of trips. {on_time_window(config)}. Taxi strike: {strike_text}.",
        }
    ]
    metrics["figures"] = [
        {
            "title": "Modal split per profile per day (Figure 6 of the source)",
            "file": f"{FIGURES}/modal_split.svg",
            "caption": "Percent of each profile's trips by mode; shaded: taxi strike "
            f"({strike_text}).",
        },
        {
            "title": "Mean taxi wait per day (Figure 7 of the source)",
            "file": f"{FIGURES}/taxi_wait.svg",
            "caption": "Mean wait of the day's taxi trips; red bars and shade: strike "
            f"({strike_text}).",
        },
    ]
    end = config.moment(config.days, City(config.city).window.end_min)
    for key, value in metrics["punctuality"]["table"][0].items():
        if key != "variant":
            writer.emit("metric", {"name": key, "value": value}, t=end)
    writer.emit("run", {"status": "completed"}, t=end)
    return metrics


def _days(days: Sequence[int]) -> str:
    return (
        f"{days[0]}-{days[-1]}" if list(days) == list(range(days[0], days[-1] + 1)) else str(days)
    )


@contextmanager
def _day_bar(title: str, days: int, progress: bool) -> Iterator[Callable[[int], None] | None]:
    if not progress or not sys.stderr.isatty():
        yield None
        return
    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("day {task.completed}/{task.total}"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
    )
    task = bar.add_task(title, total=days)
    with bar:
        yield lambda day: bar.update(task, completed=day)


def _build_outputs(run: RunDir) -> None:
    """report.html and viewer.html; a fault there leaves the run complete."""
    report = importlib.import_module("simulacra.report")
    try:
        report.build_outputs(run.path)
    except Exception:
        log.exception("building report.html and viewer.html for %s failed", run.path)
