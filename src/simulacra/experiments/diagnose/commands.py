"""`simulacra diagnose RUN` and `simulacra trace RUN FACT`: print what they find, write it into
the run (diagnose.json, trace.json) and rebuild the report, which shows both."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

console = Console()
MARKS = {True: "[green]held[/]", False: "[red]broke[/]", None: "[dim]n/a[/]"}


def register(app: typer.Typer) -> None:
    """Add both commands to the `simulacra` command."""
    app.command()(diagnose)
    app.command()(trace)


def diagnose(
    run: Annotated[Path, typer.Argument(help="a finished run directory")],
    model: Annotated[
        str | None,
        typer.Option(help="the model that judges interview answers; default: the run's"),
    ] = None,
) -> None:
    """Check a finished run for the source's seven failure modes; print each finding with the
    events that show it, and write diagnose.json and the report."""
    from simulacra.experiments.diagnose.run import diagnose as diagnose_run

    out = diagnose_run(run, spec=model)
    found = json.loads(out.read_text(encoding="utf-8"))
    console.print(f"answers judged by {escape(found['aware_method'])}")
    for mode in found["modes"]:
        status = {"found": "[red]found[/]", "clear": "[green]clear[/]"}.get(
            mode["status"], "[dim]not checked[/]"
        )
        console.print(
            f"\n[bold]{escape(mode['symptom'])}[/] ({escape(mode['layer'])}): {status}; "
            f"{escape(mode['looked'])}"
        )
        if mode["findings"]:
            console.print(f"  inspect first: {escape(mode['inspect'])}")
        for finding in mode["findings"]:
            console.print(f"  - {escape(str(finding['t']))} {escape(finding['summary'])}")
            _print_lines(finding["events"], "      ")
    _written(out)


def trace(
    run: Annotated[Path, typer.Argument(help="a finished run directory")],
    fact: Annotated[str, typer.Argument(help="a planted fact of the scenario, e.g. party")],
) -> None:
    """Follow a planted fact through each agent: stored, expressed, stored by the agent,
    retrieved when planning, kept in the schedule, executed; print where it first broke."""
    from simulacra.experiments.diagnose.trace import trace as trace_run

    out = trace_run(run, fact)
    found = json.loads(out.read_text(encoding="utf-8"))[fact]
    planted = found["planted"]
    if planted:
        console.print(
            f"{escape(fact)}: planted in {escape(planted['owner'])} at {planted['at']}: "
            f"{escape(planted['text'])}"
        )
    table = Table(title=f"{fact}: where the chain held, agent by agent")
    table.add_column("agent")
    for stage in found["stages"]:
        table.add_column(stage)
    for row in found["agents"]:
        table.add_row(escape(row["name"]), *(MARKS[s["held"]] for s in row["stages"]))
    console.print(table)
    owner = planted["owner"] if planted else None
    untold = [
        r["name"] for r in found["agents"] if r["broke"] == "expressed" and r["agent"] != owner
    ]
    if untold:
        console.print(f"never told ({len(untold)}): {escape(', '.join(untold))}")
    for row in found["agents"]:
        if row["broke"] is None or (row["broke"] == "expressed" and row["agent"] != owner):
            continue
        stages = row["stages"]
        at = next(i for i, s in enumerate(stages) if s["stage"] == row["broke"])
        console.print(
            f"{escape(row['name'])}: broke at {escape(row['broke'])}: {escape(stages[at]['why'])}"
        )
        # The last event that held, and the one that shows the break (if anything happened).
        held = [s["event"] for s in stages[:at] if s["held"] and s["event"]][-1:]
        _print_lines(held + ([stages[at]["event"]] if stages[at]["event"] else []), "    ")
    _written(out)


def _print_lines(lines: Sequence[dict[str, Any]], indent: str) -> None:
    for line in lines:
        who = f" {line['agent']}" if line["agent"] else ""
        console.print(
            f"{indent}[dim]seq {line['seq']} {line['t']} {line['kind']}{escape(who)}:[/] "
            f"{escape(line['what'])}"
        )


def _written(out: Path) -> None:
    from simulacra.report import build_outputs

    paths = build_outputs(out.parent)
    console.print(f"\nwritten: {out}\n  report: {paths['report']}")
