"""`simulacra run --console` and `simulacra view RUN --live --console`: the live console's
commands, apart from cli.py (experiments/console.py does the work)."""

from __future__ import annotations

import time
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from simulacra.errors import UserError

console = Console(highlight=False)
SCHEDULED = "scheduled.yaml"


def run_with_console(
    scenario: Path | None, resume: Path | None, sets: list[str], port: int, paused: bool
) -> None:
    """Run (or resume) with a console; once the run ends, serve it read-only until Ctrl+C."""
    from simulacra.experiments import load_scenario
    from simulacra.experiments.console import Served, run_console

    def ready(url: str) -> None:
        console.print(f"console: [bold]{escape(url)}[/]", soft_wrap=True)
        console.print("  open it in a browser on this machine; the address holds its token")
        if paused:
            console.print("  the run waits before its first tick: press Resume or Step")

    served = Served(ready=ready)
    try:  # Ctrl+C in the run stops it as in a plain run: the boundary says how to resume
        if resume is not None:
            done = run_console(
                served=served, resume=resume, port=port, paused=paused, overrides=sets
            )
        else:
            assert scenario is not None
            valid = load_scenario(scenario, sets)
            done = run_console(valid, served=served, port=port, paused=paused)
        try:  # the run is over: Ctrl+C from here on is the normal end of its console
            console.print(f"[bold green]run finished:[/] {escape(str(done.path))}", soft_wrap=True)
            again = write_scheduled(done.path)
            console.print(
                "  the same run, the console's actions scheduled: "
                f"simulacra run {escape(str(again))}",
                soft_wrap=True,
            )
            console.print("the console stays up, read-only; press Ctrl+C to stop")
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
    finally:
        served.stop()


def write_scheduled(run: Path) -> Path:
    """SCHEDULED in the run: its config with the console's interventions scheduled."""
    import yaml

    from simulacra.experiments.console_actions import scheduled
    from simulacra.runlog import RunDir

    found = RunDir.open(run)
    config = scheduled(found.config(), found.events_path)
    path = found.path / SCHEDULED
    path.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True), "utf-8")
    return path


def show_console(run: Path, live: bool) -> None:
    """Say where a run's own console is served (it lives in the process that runs it)."""
    from simulacra.experiments.console import console_url

    if not live:
        raise UserError("--console follows a run while it runs: add --live")
    url = console_url(run)
    if url is None:
        raise UserError(
            f"{run} has no console now: start a run with `simulacra run SCENARIO --console`; "
            f"`simulacra view {run} --live` follows any run read-only"
        )
    console.print(f"console of {escape(str(run))}: [bold]{escape(url)}[/]", soft_wrap=True)
