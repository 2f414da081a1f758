"""`simulacra population fit SAMPLE CONTROLS`: a commute population fitted by IPF to a zone's
control totals, drawn as whole persons and written as the commute's population file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

population_app = typer.Typer(help="Populations: fit commuters to census-style margins.")
console = Console()


@population_app.command()
def fit(
    sample: Annotated[Path, typer.Argument(help="the seed sample, a CSV of persons")],
    controls: Annotated[Path, typer.Argument(help="control totals per zone, a YAML file")],
    scenario: Annotated[
        Path, typer.Option(help="the commute scenario whose profiles and zones they use")
    ] = Path("scenarios/commute.yaml"),
    out: Annotated[
        Path | None, typer.Option(help="folder for population.yaml (default: beside CONTROLS)")
    ] = None,
    seed: Annotated[int, typer.Option(help="seeds the draw of whole persons")] = 0,
    allow_unmet: Annotated[
        bool, typer.Option(help="write the population even where a margin is not met")
    ] = False,
) -> None:
    """Fit weights to every margin of each zone by IPF (ipfn), draw whole persons, and write
    population.yaml (agents.personas), fit.csv (each cell) and margins.csv."""
    from simulacra.experiments.load import load_scenario
    from simulacra.experiments.population import (
        PopulationError,
        fit_population,
        read_controls,
        read_seed,
        write_population,
    )
    from simulacra.mind.commuter import Profile

    valid = load_scenario(scenario)
    if valid.world.kind != "commute":
        raise PopulationError(f"{scenario}: a {valid.world.kind} scenario has no commuters")
    profiles = {n: Profile.model_validate(raw) for n, raw in valid.agents.profiles.items()}
    zones = list(valid.world.city.zones)
    found = fit_population(
        read_seed(sample), read_controls(controls), profiles, zones, rng_seed=seed
    )
    table = Table(title=f"IPF fit: {len(found.people)} persons in {len(found.iterations)} zones")
    for column in ("margin", "cells", "target", "fitted", "drawn", "SRMSE fitted", "SRMSE drawn"):
        table.add_column(column, justify="left" if column == "margin" else "right", no_wrap=True)
    table.add_column("met")
    for row in found.margins().itertuples():
        table.add_row(
            escape(str(row.margin)),
            str(row.cells),
            f"{row.target:g}",
            f"{row.fitted:g}",
            str(row.drawn),
            f"{row.srmse_fitted:.4f}",
            f"{row.srmse_drawn:.4f}",
            "yes" if row.met else "[bold red]no[/]",
        )
    console.print(table)
    unmet = found.unmet()
    if unmet and not allow_unmet:
        raise PopulationError(
            f"{len(unmet)} cells of the margins cannot be met together (the seed has no "
            f"weighting that meets them all): {', '.join(unmet)}; --allow-unmet writes the "
            "population anyway"
        )
    folder = out or controls.parent
    write_population(found, folder)
    console.print(f"[bold green]population written:[/] {escape(str(folder / 'population.yaml'))}")
    console.print(
        "  run it: simulacra run SCENARIO --set agents.personas=PATH --set agents.mix=null"
        " (PATH from the scenario's folder)"
    )
