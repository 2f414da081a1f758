"""`simulacra lab ...`: learn, solve, bench, lint, show and check."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from simulacra.lab.checker import check_attempt
from simulacra.lab.config import CONDITIONS, LabConfig
from simulacra.lab.library import Library, LibraryError
from simulacra.lab.sandbox import SandboxError
from simulacra.lab.tasks import Category, Task, TaskError
from simulacra.llm import LanguageModel, ModelSpecError, load_model

SEED = Path(__file__).parent / "seed"
lab_app = typer.Typer(
    help="The SUMO lab: lifelong skill learning with a sandbox and verified suites."
)
console = Console()
LibraryOption = Annotated[
    Path, typer.Option(help="the library folder (made from the seed if absent)")
]
ModelOption = Annotated[
    str, typer.Option(help="model spec: scripted, embedded, openai:URL?model=NAME")
]
RunsOption = Annotated[Path, typer.Option(help="where run folders go")]


def _fail(message: str) -> typer.Exit:
    console.print(f"[bold red]error:[/] {message}")
    return typer.Exit(code=2)


def _library(path: Path) -> Library:
    if not path.exists() or not any(path.iterdir()):
        console.print(f"creating the library {path} from the seed")
        return Library.create(path, SEED)
    return Library(path)


def _model(spec: str) -> LanguageModel:
    if spec == "scripted":
        from simulacra.lab.scripted import script_lab

        return script_lab(load_model("scripted"))
    return load_model(spec)


@lab_app.command()
def learn(
    iterations: Annotated[int, typer.Option(min=1, help="learning iterations")] = 10,
    library: LibraryOption = Path("lab-library"),
    model: ModelOption = "embedded",
    runs: RunsOption = Path("runs"),
    resume: Annotated[Path | None, typer.Option(help="continue a killed learning run")] = None,
    lint_every: Annotated[int, typer.Option(min=1)] = 10,
    idle_limit: Annotated[int, typer.Option(min=1)] = 10,
) -> None:
    """Learn: propose tasks, solve them, write skills and pages from reusable evidence."""
    from simulacra.lab.loop import learn as learn_loop
    from simulacra.runlog import RunDir

    try:
        lib = _library(library)
        lm = _model(model)
        config = LabConfig(lint_every=lint_every, idle_limit=idle_limit)
        run = (
            RunDir.open(resume)
            if resume
            else RunDir.create(
                runs,
                "lab-learn",
                seed=config.seed,
                model=lm.name,
                config=config.model_dump(mode="json"),
            )
        )
        outcome = learn_loop(lib, lm, config, run, iterations)
    except (LibraryError, SandboxError, ModelSpecError, FileNotFoundError) as exc:
        raise _fail(str(exc)) from exc
    state = "paused: no memory change for the idle limit" if outcome.paused else "done"
    console.print(f"{outcome.iterations} iterations, {outcome.changes} memory changes ({state})")
    console.print(
        f"run: {run.path}\nlibrary: {lib.root} "
        f"({len(lib.skills())} skills, {len(lib.pages())} pages)"
    )


@lab_app.command()
def solve(
    text: Annotated[str, typer.Argument(help="the task, in words")],
    output: Annotated[
        list[str], typer.Option("--output", help="a required output path (repeatable)")
    ],
    library: LibraryOption = Path("lab-library"),
    model: ModelOption = "embedded",
    runs: RunsOption = Path("runs"),
    category: Annotated[Category, typer.Option()] = Category.simulation,
    tier: Annotated[int, typer.Option(min=1, max=4)] = 2,
    set_: Annotated[list[str] | None, typer.Option("--set", help="an input: name=value")] = None,
) -> None:
    """Solve one task in test mode: memory is read, never changed."""
    from simulacra.lab.loop import agent_for, solve_frozen
    from simulacra.runlog import RunDir

    inputs = dict(item.split("=", 1) for item in set_ or [] if "=" in item)
    try:
        task = Task(
            id="user-task",
            tier=tier,
            category=category,
            text=text,
            inputs=inputs,
            required_outputs=output,
        )
        lib = _library(library)
        lm = _model(model)
        config = LabConfig()
        run = RunDir.create(
            runs, "lab-solve", seed=0, model=lm.name, config=config.model_dump(mode="json")
        )
        with run.writer() as writer:
            agent = agent_for(lib, lm, config, writer, "full")
            episode = asyncio.run(solve_frozen(agent, task, run.path / "episodes"))
        run.set_status("completed")
    except (LibraryError, SandboxError, ModelSpecError, ValueError) as exc:
        raise _fail(str(exc)) from exc
    console.print(
        f"{'accepted' if episode.accepted else 'rejected'} after {episode.attempts} attempt(s)"
    )
    console.print(f"episode: {episode.folder}")


@lab_app.command()
def bench(
    suite: Annotated[str, typer.Argument(help="a suite folder, or a shipped suite's name (v1)")],
    condition: Annotated[
        list[str] | None, typer.Option(help=f"one of {', '.join(CONDITIONS)}; repeatable")
    ] = None,
    library: LibraryOption = Path("lab-library"),
    model: ModelOption = "embedded",
    runs: RunsOption = Path("runs"),
) -> None:
    """Run a suite in test mode under each condition; verify with each task's verify.py."""
    from simulacra.lab.bench import run_bench, summary

    try:
        lib = _library(library)
        lm = _model(model)
        run = run_bench(
            suite, condition or list(CONDITIONS), lib, lm, LabConfig(), runs, console.print
        )
    except (LibraryError, SandboxError, ModelSpecError, TaskError, ValueError) as exc:
        raise _fail(str(exc)) from exc
    rows = json.loads((run.path / "results.json").read_text())
    table = Table(title=f"verified completion ({lm.name})")
    for name in ("condition", "verified", "per tier", "accepted", "self-reported", "agreement"):
        table.add_column(name)
    for name, s in summary(rows).items():
        tiers = ", ".join(f"T{t} {v}/{n}" for t, (v, n) in s["by_tier"].items())
        table.add_row(
            name,
            f"{s['verified']}/{s['tasks']}",
            tiers,
            str(s["accepted"]),
            str(s["self_reported"]),
            str(s["agreement"]),
        )
    console.print(table)
    console.print(f"report: {run.path / 'report.html'}")


@lab_app.command("lint")
def lint_command(library: LibraryOption = Path("lab-library")) -> None:
    """A full lint of the library: every check, every certain repair, logged and committed."""
    from simulacra.lab.lint import lint

    try:
        report = lint(Library(library))
    except LibraryError as exc:
        raise _fail(str(exc)) from exc
    for finding in report.findings:
        mark = "repaired" if finding.repaired else "open"
        console.print(f"[{mark}] {finding.artifact}: {finding.check}: {finding.message}")
    console.print(
        f"{report.checked} artifacts, {len(report.repairs)} repairs, {len(report.open)} open"
    )


@lab_app.command()
def show(library: LibraryOption = Path("lab-library")) -> None:
    """The library: skills, pages, episodes and its recent history."""
    try:
        lib = Library(library)
    except LibraryError as exc:
        raise _fail(str(exc)) from exc
    table = Table(title=f"skills in {lib.root}")
    table.add_column("skill")
    table.add_column("description")
    for skill in lib.skills():
        table.add_row(skill.meta.name, skill.meta.description[:100])
    console.print(table)
    console.print("pages: " + ", ".join(p.name for p in lib.pages()))
    episodes = sorted((lib.root / "episodes").glob("*/task.yaml"))
    console.print(f"episodes: {len(episodes)}; digest {lib.digest()[:12]}")
    for commit, message in lib.history(10):
        console.print(f"  {commit} {message}")


@lab_app.command()
def check(attempt: Annotated[Path, typer.Argument(help="an attempt folder")]) -> None:
    """Run the programmatic checks on an attempt; print one JSON object."""
    if not attempt.is_dir():
        raise _fail(f"{attempt}: not a folder")
    typer.echo(json.dumps(check_attempt(attempt).to_json()))
