"""`simulacra estimate SCENARIO`: what a run will cost, before it runs, as a table or JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from simulacra.experiments.estimate import Estimate, Figure

console = Console()


def register(app: typer.Typer) -> None:
    app.command()(estimate)


def estimate(
    scenario: Annotated[
        Path | None, typer.Argument(help="a scenario YAML, e.g. scenarios/town.yaml")
    ] = None,
    set_: Annotated[
        list[str] | None,
        typer.Option("--set", help="override a field: key.path=value (repeatable)"),
    ] = None,
    model: Annotated[str | None, typer.Option(help="model spec; overrides the scenario's")] = None,
    pilot: Annotated[
        int | None,
        typer.Option(min=1, help="ticks of the scripted pilot (default: the clock's first day)"),
    ] = None,
    model_pilot: Annotated[
        int, typer.Option(min=1, help="ticks the run's own model is tried on first")
    ] = 2,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
    run: Annotated[
        Path | None,
        typer.Option(help="estimate a run from its own scenario; its report shows both"),
    ] = None,
) -> None:
    """Predict a run's model calls, tokens, wall time and cost (at model.price), each with a
    95% interval, from short pilot runs of the scenario's first ticks."""
    from simulacra.errors import UserError
    from simulacra.experiments.estimate import estimate as estimate_run
    from simulacra.experiments.load import load_scenario
    from simulacra.runlog import RunDir

    if (scenario is None) == (run is None):
        raise UserError("give either a SCENARIO file or --run RUN")
    sets = [*(set_ or []), *([f"model.spec={json.dumps(model)}"] if model else [])]
    source = scenario if run is None else RunDir.open(run).config()
    assert source is not None
    valid = load_scenario(source, sets)
    found = estimate_run(valid, pilot_ticks=pilot, model_pilot_ticks=model_pilot)
    if run is not None:
        _beside_the_run(run, found)
    if as_json:
        console.print_json(json.dumps(found.as_dict()))
        return
    console.print(table(found))


def _beside_the_run(run: Path, found: Estimate) -> None:
    """estimate.json into the run, and its report rebuilt to show it beside what it spent."""
    from simulacra.report import build_outputs
    from simulacra.report.cost import ESTIMATE

    (run / ESTIMATE).write_text(json.dumps(found.as_dict(), indent=2), encoding="utf-8")
    if (run / "report.html").exists():
        build_outputs(run)


def table(found: Estimate) -> Table:
    pilots = f"scripted pilot {found.pilot_ticks} of {found.ticks} ticks"
    if found.model_pilot_ticks:
        pilots += f", {found.model_pilot_ticks} on {found.model}"
    out = Table(title=f"estimate: {escape(found.scenario)} on {escape(found.model)} ({pilots})")
    out.add_column("")
    out.add_column("estimate", justify="right")
    out.add_column("95% interval", justify="right")
    rows: list[tuple[str, Figure | None, str]] = [
        ("model calls", found.calls, "{:,.0f}"),
        ("prompt tokens", found.prompt_tokens, "{:,.0f}"),
        ("completion tokens", found.completion_tokens, "{:,.0f}"),
        ("tokens", found.tokens, "{:,.0f}"),
        ("wall time (s)", found.wall_s, "{:,.1f}"),
        ("cost (USD, at model.price)", found.dollars, "${:,.4f}"),
    ]
    for name, figure, form in rows:
        if figure is None:
            out.add_row(name, "no model.price", "")
            continue
        interval = f"{form.format(figure.low)} - {form.format(figure.high)}"
        bound = "≤ " if found.at_most and name != "wall time (s)" else ""
        out.add_row(name, bound + form.format(figure.value), interval)
    if found.at_most:
        out.caption = (
            "at most: an episode may end before its last tick, and then calls no more; the"
            " interval runs from what the pilot spent to a run that goes to its last tick"
        )
    elif found.by_progress:
        out.caption = (
            "an episode may end before its last tick: the estimate follows the pilot's progress"
            " toward the goal; the interval runs from what the pilot spent to a run that goes"
            " to its last tick"
        )
    out.add_row("prompt share from the cache", f"{found.cached_share:.0%}", "")
    out.add_row("pilots took (s)", f"{found.pilot_wall_s:.1f}", "")
    return out
