"""`simulacra calibrate SCENARIO --targets targets.yaml`: ABC-SMC of scenario parameters to
observed statistics, with a held-out check (experiments/calibrate.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

console = Console()
errors = Console(stderr=True)


def register(app: typer.Typer) -> None:
    app.command()(calibrate)


def calibrate(
    scenario: Annotated[Path, typer.Argument(help="the scenario whose parameters are fitted")],
    targets: Annotated[
        Path, typer.Option(help="priors, observed targets and held-out targets (YAML)")
    ],
    set_: Annotated[
        list[str] | None,
        typer.Option("--set", help="override a field of every run: key.path=value"),
    ] = None,
    model: Annotated[str | None, typer.Option(help="model spec; overrides the scenario's")] = None,
    executor: Annotated[str, typer.Option(help="local (process pool) or ray")] = "local",
    workers: Annotated[
        int | None, typer.Option(min=1, help="parallel runs (default: the scenario's sweep)")
    ] = None,
    root: Annotated[Path | None, typer.Option(help="parent folder (default: output.root)")] = None,
    keep_runs: Annotated[bool, typer.Option(help="keep every run's folder")] = False,
) -> None:
    """Fit the parameters named in the targets file by ABC-SMC; write the posterior (samples,
    medians, 95% intervals, pairwise plots), the fit per target and the held-out check."""
    import json

    from simulacra.errors import UserError
    from simulacra.experiments.abc import Generation
    from simulacra.experiments.calibrate import calibrate as run_calibration

    def said(g: Generation) -> None:
        tolerance = "none" if g.index == 0 else f"{g.epsilon:.3g}"
        errors.print(
            f"generation {g.index}: {len(g.weights)} particles from {g.runs} runs "
            f"(tolerance {tolerance}, acceptance {g.acceptance:.2f})"
        )

    if executor not in ("local", "ray"):
        raise UserError(f'unknown executor {executor!r}; expected "local" or "ray"')
    out = run_calibration(
        scenario,
        targets,
        [*(set_ or []), *([f"model.spec={json.dumps(model)}"] if model else [])],
        executor="ray" if executor == "ray" else "local",
        workers=workers,
        root=root,
        keep_runs=keep_runs,
        on_generation=said,
    )
    summary = json.loads((out / "calibration.json").read_text(encoding="utf-8"))
    table = Table(title=f"posterior ({summary['runs']['fit']} runs, {summary['wall_s']:.0f} s)")
    for column in ("parameter", "median", "95% interval", "reference"):
        table.add_column(column)
    for p in summary["parameters"]:
        ref = "" if p["reference"] is None else f"{p['reference']:g}"
        inside = (
            "" if p["reference_inside"] is None else (" in" if p["reference_inside"] else " OUT")
        )
        table.add_row(
            escape(p["parameter"]),
            f"{p['median']:.3f}",
            f"[{p['low']:.3f}, {p['high']:.3f}]",
            ref + inside,
        )
    console.print(table)
    for title, rows in (("fit", summary["fit"]), ("held out", summary["held_out"] or [])):
        for r in rows:
            mark = "inside" if r["inside"] else "[bold red]outside[/]"
            console.print(
                f"  {title}: {escape(r['target'])}: observed {r['observed']:g}, predicted "
                f"{r['median']:.2f} [{r['low']:.2f}, {r['high']:.2f}] ({mark})"
            )
    console.print(f"[bold green]calibration written:[/] {escape(str(out))}")
    console.print(f"  report.html  {escape(str(out / 'report.html'))}")
