"""`simulacra lab ...`: learn, solve, bench, lint, show and check.

The commands handle no error themselves: the library raises `UserError`s and the command
line's one error boundary (`simulacra.cli`) reports them.
"""

from __future__ import annotations

import asyncio
import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from simulacra.lab.checker import check_attempt
from simulacra.lab.config import CONDITIONS, LabConfig
from simulacra.lab.library import SEED, Library
from simulacra.lab.tasks import Category, Task
from simulacra.llm import Gateway, load_model
from simulacra.llm.config import ModelConfig

lab_app = typer.Typer(
    help="The SUMO lab: lifelong skill learning with a sandbox and verified suites."
)
console = Console()
LibraryOption = Annotated[
    Path, typer.Option(help="the library folder (made from the seed if absent)")
]
ExistingLibrary = Annotated[Path, typer.Option(help="an existing library folder")]
ModelOption = Annotated[
    str, typer.Option(help="model spec: scripted, embedded, openai:URL?model=NAME")
]
RunsOption = Annotated[Path, typer.Option(help="where run folders go")]
InnerOption = Annotated[int, typer.Option(min=1, max=10, help="inner tries per attempt")]
OuterOption = Annotated[int, typer.Option(min=1, max=10, help="outer attempts per task")]
StepsOption = Annotated[
    int, typer.Option(min=1, max=200, help="steps of the action loop per attempt")
]
CandidatesOption = Annotated[
    int, typer.Option(min=1, max=10, help="retrieval candidates offered (the source's bound: 10)")
]
LintOption = Annotated[int, typer.Option(min=1, help="memory changes between lints")]
LimitsOption = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        help="a model budget or price: model.budget.calls=40 (calls, tokens, dollars, hours), "
        "model.price.input=0.15; the run stops cleanly where a limit is reached (exit 3); or a "
        "served model's setting: model.timeout_s=300 (also attempts, context_tokens, "
        "temperature)",
    ),
]
IdleOption = Annotated[
    int, typer.Option(min=1, help="pause learning after this many iterations without a change")
]


class Mode(StrEnum):
    test = "test"  # memory frozen
    normal = "normal"  # memory learns from the task


def _library(path: Path) -> Library:
    if not path.exists() or not any(path.iterdir()):
        console.print(f"creating the library {path} from the seed")
        return Library.create(path, SEED)
    return Library(path)


def _model(settings: ModelConfig) -> Gateway:
    """The model a lab command uses, with the settings its `--set model.NAME=...` gave (the
    per-call timeout of a served model, `model.timeout_s`, among them)."""
    if settings.spec == "scripted":
        from simulacra.lab.scripted import script_lab

        return script_lab(load_model("scripted"))
    return settings.load()


def _config(**settings: Any) -> LabConfig:
    return LabConfig.model_validate(settings)


@lab_app.command()
def learn(
    iterations: Annotated[int, typer.Option(min=1, help="learning iterations")] = 10,
    library: LibraryOption = Path("lab-library"),
    model: ModelOption = "embedded",
    runs: RunsOption = Path("runs"),
    resume: Annotated[Path | None, typer.Option(help="continue a killed learning run")] = None,
    lint_every: LintOption = 10,
    idle_limit: IdleOption = 10,
    inner_tries: InnerOption = 5,
    outer_attempts: OuterOption = 3,
    max_steps: StepsOption = 30,
    candidates: CandidatesOption = 10,
    set_: LimitsOption = None,
) -> None:
    """Learn: propose tasks, solve them, write skills and pages from reusable evidence;
    within `--set model.budget...`, checked after every iteration."""
    from simulacra.lab.config import model_limits
    from simulacra.lab.loop import learn as learn_loop
    from simulacra.runlog import RunDir

    limits = model_limits(model, set_ or [])
    lib = _library(library)
    lm = _model(limits)
    config = _config(
        lint_every=lint_every,
        idle_limit=idle_limit,
        inner_tries=inner_tries,
        outer_attempts=outer_attempts,
        max_steps=max_steps,
        candidates=candidates,
    )
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
    outcome = learn_loop(lib, lm, config, run, iterations, limits)
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
    file: Annotated[
        list[Path] | None,
        typer.Option(
            "--file",
            exists=True,
            dir_okay=False,
            help="an input file, put into the attempt's outputs/ (repeatable)",
        ),
    ] = None,
    library: LibraryOption = Path("lab-library"),
    model: ModelOption = "embedded",
    runs: RunsOption = Path("runs"),
    category: Annotated[Category, typer.Option()] = Category.simulation,
    tier: Annotated[int, typer.Option(min=1, max=4)] = 2,
    set_: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            help="an input: name=value; or a model budget or price (model.budget.calls=40, "
            "model.price.input=0.15), checked before every outer attempt after the first "
            "(exit 3); or a served model's setting (model.timeout_s=300)",
        ),
    ] = None,
    mode: Annotated[
        Mode, typer.Option(help="test: memory frozen; normal: memory learns from the task")
    ] = Mode.test,
    inner_tries: InnerOption = 5,
    outer_attempts: OuterOption = 3,
    max_steps: StepsOption = 30,
    candidates: CandidatesOption = 10,
    lint_every: LintOption = 10,
) -> None:
    """Solve one task, in test mode (memory is read, never changed) or normal mode; within
    `--set model.budget...`, checked between outer attempts."""
    from simulacra.core.budget import BudgetStopped, Meter, stop
    from simulacra.lab.config import model_limits
    from simulacra.lab.loop import agent_for, solve_frozen, solve_normal
    from simulacra.runlog import RunDir

    sets = set_ or []
    budget_sets = [item for item in sets if item.startswith("model.")]
    limits = model_limits(model, budget_sets)
    inputs = dict(item.split("=", 1) for item in sets if "=" in item and item not in budget_sets)
    files = [f.resolve() for f in file or []]
    task = Task(
        id="user-task",
        tier=tier,
        category=category,
        text=text,
        inputs=inputs,
        files=[f.name for f in files],
        required_outputs=output,
    )
    lib = _library(library)
    lm = _model(limits)
    config = _config(
        inner_tries=inner_tries,
        outer_attempts=outer_attempts,
        max_steps=max_steps,
        candidates=candidates,
        lint_every=lint_every,
    )
    run = RunDir.create(
        runs, "lab-solve", seed=0, model=lm.name, config=config.model_dump(mode="json")
    )
    changed: list[str] = []
    meter = Meter(run, limits, lm)
    stopped: BudgetStopped | None = None
    writer = run.writer()
    try:
        agent = agent_for(lib, lm, config, writer, "full", run)
        watch = meter.watch()
        if mode is Mode.normal:
            episode, changed = asyncio.run(
                solve_normal(agent, task, over_budget=watch, files=files)
            )
        else:
            episode = asyncio.run(
                solve_frozen(agent, task, run.path / "episodes", over_budget=watch, files=files)
            )
        if episode.stopped is not None:  # stop closes the log
            stopped = stop(run, writer, meter, episode.stopped, "simulacra lab solve again")
    finally:
        if not writer.closed:
            writer.close()
    if stopped is None:
        run.set_status("completed")
    console.print(
        f"{'accepted' if episode.accepted else 'rejected'} after {episode.attempts} attempt(s)"
    )
    console.print(f"episode: {episode.folder}")
    if mode is Mode.normal:
        console.print(f"memory changed: {', '.join(changed) or 'nothing'}")
    if stopped is not None:
        raise stopped


@lab_app.command()
def bench(
    suites: Annotated[
        list[str], typer.Argument(help="suite folders, or shipped suites' names (v1 v2)")
    ],
    condition: Annotated[
        list[str] | None, typer.Option(help=f"one of {', '.join(CONDITIONS)}; repeatable")
    ] = None,
    library: LibraryOption = Path("lab-library"),
    model: ModelOption = "embedded",
    runs: RunsOption = Path("runs"),
    prices: Annotated[
        Path | None,
        typer.Option(
            help="a YAML price table, US$ per million tokens: NAME: {input, cached_input, "
            "output}; the model's entry is its model.price"
        ),
    ] = None,
    inner_tries: InnerOption = 5,
    outer_attempts: OuterOption = 3,
    max_steps: StepsOption = 30,
    candidates: CandidatesOption = 10,
    set_: LimitsOption = None,
) -> None:
    """Run suites in test mode under each condition; verify each task by reproduction and
    its verify.py; within `--set model.budget...`, checked after every task."""
    from simulacra.lab.bench import run_bench
    from simulacra.lab.config import model_limits
    from simulacra.lab.prices import load_prices, price_for
    from simulacra.lab.results import summary

    price_table = load_prices(prices) if prices else None
    lib = _library(library)
    # The model's own settings first: its name picks its price, which a budget may need.
    settings = model_limits(model, [s for s in set_ or [] if s.partition("=")[0].count(".") == 1])
    lm = _model(settings)
    limits = model_limits(model, set_ or [], price_for(price_table, lm.name))
    config = _config(
        inner_tries=inner_tries,
        outer_attempts=outer_attempts,
        max_steps=max_steps,
        candidates=candidates,
    )
    run = run_bench(
        suites, condition or list(CONDITIONS), lib, lm, config, runs, console.print, limits
    )
    rows = json.loads((run.path / "results.json").read_text())
    for suite, conditions in summary(rows).items():
        table = Table(title=f"verified completion on {suite} ({lm.name})")
        names = ("condition", "verified", "per tier", "accepted", "self-reported", "agreement")
        for name in (*names, "median tokens", "median $", "median s"):
            table.add_column(name)
        for name, s in conditions.items():
            tiers = ", ".join(f"T{t} {v}/{n}" for t, (v, n) in s["by_tier"].items())
            cost = s["median_cost_usd"]
            table.add_row(
                name,
                f"{s['verified']}/{s['tasks']}",
                tiers,
                str(s["accepted"]),
                str(s["self_reported"]),
                str(s["agreement"]),
                f"{s['median_tokens']:g}",
                "-" if cost is None else f"{cost:.4f}",
                f"{s['median_wall_s']:g}",
            )
        console.print(table)
    console.print(f"report: {run.path / 'report.html'}")


@lab_app.command("lint")
def lint_command(library: ExistingLibrary = Path("lab-library")) -> None:
    """A full lint of the library: every check, every certain repair, logged and committed."""
    from simulacra.lab.lint import lint

    report = lint(Library(library))
    for finding in report.findings:
        mark = "repaired" if finding.repaired else "open"
        console.print(f"[{mark}] {finding.artifact}: {finding.check}: {finding.message}")
    console.print(
        f"{report.checked} artifacts, {len(report.repairs)} repairs, {len(report.open)} open"
    )


@lab_app.command()
def show(library: ExistingLibrary = Path("lab-library")) -> None:
    """The library: skills, pages, episodes and its recent history."""
    lib = Library(library)
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
def check(
    attempt: Annotated[Path, typer.Argument(help="an attempt folder")],
    reproduce: Annotated[
        bool, typer.Option(help="replay the attempt and rerun SUMO's tools (slower)")
    ] = True,
) -> None:
    """Run the programmatic checks on an attempt; print one JSON object; exit 1 if rejected."""
    from simulacra.lab.checker import NotAnAttempt

    if not attempt.is_dir():
        raise NotAnAttempt(f"{attempt}: not a folder; give an attempt folder (.../attempt-N)")
    report = check_attempt(attempt, reproduce_outputs=reproduce)
    typer.echo(json.dumps(report.to_json()))
    if not report.passed:
        raise typer.Exit(code=1)
