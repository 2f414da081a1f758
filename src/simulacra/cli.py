"""The `simulacra` command."""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer
from pydantic import BaseModel, Field
from rich.console import Console
from rich.table import Table

from simulacra.lab.commands import lab_app
from simulacra.llm import Request, chat, load_model
from simulacra.runlog import RunDir, read_events

app = typer.Typer(
    help="Run LLM-driven agent-based simulations offline, inspect them, question their agents.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)
models_app = typer.Typer(help="Language models: check that one loads and answers.")
app.add_typer(models_app, name="models")
scenario_app = typer.Typer(help="Scenarios: their format's schema, and checking one.")
app.add_typer(scenario_app, name="scenario")
app.add_typer(lab_app, name="lab")
console = Console()
DEFAULT_SPEC = "embedded"


class _CheckAnswer(BaseModel):
    activity: str = Field(description="what the person does next, in a few words")
    place: str = Field(description="where it happens")
    start: str = Field(description="24-hour start time, HH:MM")


_CHECK_FALLBACK = _CheckAnswer(activity="(fallback) read at home", place="home", start="08:00")


def _fail(message: str) -> typer.Exit:
    console.print(f"[bold red]error:[/] {message}")
    return typer.Exit(code=2)


@models_app.command("check")
def models_check(
    spec: Annotated[
        str, typer.Argument(help="model spec, e.g. embedded, scripted, openai:URL?model=NAME")
    ] = DEFAULT_SPEC,
    embedder: Annotated[
        str, typer.Option(help="embedder kind: minilm, model2vec or hashing")
    ] = "minilm",
) -> None:
    """Load a model and the embedder, ask for one structured answer, print it with its cost."""
    from simulacra.embed import default_embedder

    try:
        model = load_model(spec)
    except ValueError as exc:
        raise _fail(str(exc)) from exc
    request = Request(
        chat(
            "You plan the next activity of a person in a small town. Answer in JSON.",
            "Isabella Rodriguez runs Hobbs Cafe and wants to plan a party. "
            "What does she do next, where, and at what time?",
        ),
        output=_CheckAnswer,
        fallback=_CHECK_FALLBACK,
        max_tokens=96,
        purpose="models.check",
    )
    started = time.perf_counter()
    completion = asyncio.run(model.complete(request))
    model_s = time.perf_counter() - started
    started = time.perf_counter()
    vectors = default_embedder(embedder).embed(
        ["a party at the cafe", "a celebration at the coffee shop"]
    )
    embed_s = time.perf_counter() - started
    similarity = float(vectors[0] @ vectors[1])

    table = Table(title=f"model check: {model.name}", show_header=False)
    table.add_row("answer", completion.text)
    table.add_row("valid", "no: declared fallback used" if completion.fallback else "yes")
    table.add_row("latency", f"{completion.latency_s:.2f} s (with load: {model_s:.2f} s)")
    usage = completion.usage
    table.add_row("tokens", f"{usage.prompt_tokens} prompt + {usage.completion_tokens} completion")
    table.add_row("attempts", str(completion.attempts))
    table.add_row("embedder", f"{embedder}: dim {vectors.shape[1]}, {embed_s:.2f} s")
    table.add_row("paraphrase cosine", f"{similarity:.3f}")
    if completion.error:
        table.add_row("errors", completion.error)
    console.print(table)
    if completion.fallback:
        raise typer.Exit(code=1)


@app.command()
def inspect(run: Annotated[Path, typer.Argument(help="a run directory")]) -> None:
    """Summarise a run directory: status, model, events by kind, model budget."""
    try:
        run_dir = RunDir.open(run)
    except FileNotFoundError as exc:
        raise _fail(str(exc)) from exc
    info = run_dir.info()
    kinds: Counter[str] = Counter()
    calls = tokens = fallbacks = cached = 0
    first_t = last_t = None
    for event in read_events(run_dir.events_path):
        kinds[event.kind] += 1
        if event.t is not None:
            first_t = first_t or event.t
            last_t = event.t
        if event.kind == "llm.call":
            calls += 1
            tokens += int(event.data.get("prompt_tokens", 0)) + int(
                event.data.get("completion_tokens", 0)
            )
            fallbacks += int(bool(event.data.get("fallback")))
            cached += int(bool(event.data.get("cached")))
    table = Table(title=f"run {run_dir.path.name}", show_header=False)
    table.add_row("scenario", str(info.get("scenario")))
    table.add_row("status", str(info.get("status")))
    table.add_row("model", str(info.get("model")))
    table.add_row("seed", str(info.get("seed")))
    if info.get("ended") and info.get("started"):
        table.add_row("wall time", f"{info['ended'] - info['started']:.1f} s")
    table.add_row("simulated time", f"{first_t} -> {last_t}")
    table.add_row(
        "model calls", f"{calls} ({cached} cached, {fallbacks} fallbacks), {tokens} tokens"
    )
    table.add_row("events", ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
    for name in ("metrics.json", "report.html", "viewer.html"):
        path = run_dir.path / name
        table.add_row(name, str(path) if path.exists() else "(absent)")
    console.print(table)
    metrics = run_dir.path / "metrics.json"
    if metrics.exists():
        console.print_json(json.dumps(json.loads(metrics.read_text())))


def _override(set_: list[str] | None, model: str | None, seed: int | None) -> list[str]:
    """`--model` and `--seed` as the overrides they are (JSON is YAML, so any text is safe)."""
    found = list(set_ or [])
    if model is not None:
        found.append(f"model.spec={json.dumps(model)}")
    if seed is not None:
        found.append(f"seed={seed}")
    return found


SetOption = Annotated[
    list[str] | None, typer.Option("--set", help="override a field: key.path=value (repeatable)")
]
ModelOption = Annotated[str | None, typer.Option(help="model spec; overrides the scenario's")]


@app.command()
def run(
    scenario: Annotated[
        Path | None, typer.Argument(help="a scenario YAML, e.g. scenarios/town.yaml")
    ] = None,
    set_: SetOption = None,
    model: ModelOption = None,
    seed: Annotated[
        int | None, typer.Option(help="the run's seed; overrides the scenario's")
    ] = None,
    resume: Annotated[
        Path | None, typer.Option(help="continue a stopped run from its last checkpoint")
    ] = None,
) -> None:
    """Run a scenario of any world to the end (or resume a stopped run); say where it went."""
    from simulacra.experiments import ScenarioError, load_scenario
    from simulacra.experiments import resume as resume_run
    from simulacra.experiments import run as run_scenario

    if (scenario is None) == (resume is None):
        raise _fail("give either a SCENARIO file or --resume RUN")
    try:
        if resume is not None:
            run_dir = resume_run(resume)
        else:
            assert scenario is not None
            run_dir = run_scenario(load_scenario(scenario, _override(set_, model, seed)))
    except ScenarioError as exc:
        raise _fail(str(exc)) from exc
    except (FileNotFoundError, ValueError) as exc:
        raise _fail(str(exc)) from exc
    _print_outputs(run_dir)


def _print_outputs(run_dir: RunDir) -> None:
    console.print(f"[bold green]run finished:[/] {run_dir.path}")
    for name in ("report.html", "viewer.html", "metrics.json", "events.jsonl"):
        path = run_dir.path / name
        if path.exists():
            console.print(f"  {name:13} {path}")
    console.print(f"  inspect it:    simulacra inspect {run_dir.path}")
    console.print(f"  watch it:      simulacra view {run_dir.path}")


@app.command()
def sweep(
    scenario: Annotated[
        Path, typer.Argument(help="a scenario; its sweep section says what varies")
    ],
    set_: SetOption = None,
    model: ModelOption = None,
    executor: Annotated[
        str | None, typer.Option(help="local (process pool) or ray; default the scenario's")
    ] = None,
    workers: Annotated[
        int | None, typer.Option(help="parallel runs (default: the scenario's)")
    ] = None,
) -> None:
    """Run every variant x model x replicate of a scenario; write results.csv and a report."""
    from simulacra.experiments import ScenarioError
    from simulacra.experiments.sweep import run_sweep

    if executor not in (None, "local", "ray"):
        raise _fail(f"--executor: expected local or ray, got {executor!r}")
    try:
        out = run_sweep(
            scenario,
            _override(set_, model, None),
            executor="ray" if executor == "ray" else "local" if executor else None,
            workers=workers,
        )
    except (ScenarioError, FileNotFoundError, ValueError, RuntimeError) as exc:
        raise _fail(str(exc)) from exc
    console.print(f"[bold green]sweep finished:[/] {out}")
    for name in ("results.csv", "summary.md", "report.html"):
        if (out / name).exists():
            console.print(f"  {name:13} {out / name}")


@app.command()
def view(
    run: Annotated[Path, typer.Argument(help="a run directory")],
    port: Annotated[int, typer.Option(help="port on 127.0.0.1 (0 picks a free one)")] = 0,
) -> None:
    """Serve a run's viewer and report on 127.0.0.1 until interrupted."""
    from simulacra.report import serve_run

    try:
        RunDir.open(run)
        server, url = serve_run(run, port=port)
    except (FileNotFoundError, ValueError) as exc:
        raise _fail(str(exc)) from exc
    console.print(f"viewer: [bold]{url}[/]   report: {url.rsplit('/', 1)[0]}/report.html")
    console.print("press Ctrl+C to stop")
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
        server.server_close()


@app.command()
def interview(
    run: Annotated[Path, typer.Argument(help="a run directory (of any world that keeps memory)")],
    agent: Annotated[str, typer.Argument(help="the agent's id, e.g. marta_okafor")],
    question: Annotated[str, typer.Argument(help="what to ask")],
) -> None:
    """Ask an agent a question; it answers from its saved memory and names what it used."""
    from simulacra.experiments import ScenarioError
    from simulacra.experiments import interview as interview_agent

    try:
        answer = interview_agent(run, agent, question)
    except (FileNotFoundError, KeyError, ValueError, ScenarioError) as exc:
        raise _fail(str(exc).strip('"')) from exc
    console.print(f"[bold]{agent}:[/] {answer.answer}")
    if answer.fallback:
        console.print("[yellow](the model failed; this is the declared fallback answer)[/]")
    console.print(f"memories used: {', '.join(answer.memory_ids) or '(none)'}")


@app.command()
def frames(
    run: Annotated[Path, typer.Argument(help="a run directory")],
    video: Annotated[bool, typer.Option(help="assemble the frames into a video or GIF")] = False,
) -> None:
    """Draw a run's PNG frames from its log; with --video, join them into one file."""
    from simulacra.report import assemble_video, render_frames

    try:
        run_dir = RunDir.open(run)
        drawn = render_frames(run_dir)
        console.print(f"{len(drawn)} frames in {run_dir.path / 'frames'}")
        if video:
            console.print(f"video: {assemble_video(run_dir.path)}")
    except (FileNotFoundError, ValueError) as exc:
        raise _fail(str(exc)) from exc


@scenario_app.command("schema")
def scenario_schema() -> None:
    """Print the scenario format's JSON Schema, for editors that validate YAML."""
    from simulacra.experiments import Scenario

    typer.echo(json.dumps(Scenario.model_json_schema(), indent=2))


@scenario_app.command("check")
def scenario_check(
    scenario: Annotated[Path, typer.Argument(help="a scenario YAML")],
    set_: SetOption = None,
) -> None:
    """Validate a scenario (and its --set overrides) without loading a model or running it."""
    from simulacra.experiments import ScenarioError, load_scenario
    from simulacra.experiments.kinds import kind_of

    try:
        valid = load_scenario(scenario, set_)
    except ScenarioError as exc:
        raise _fail(str(exc)) from exc
    kind = kind_of(valid)
    console.print(
        f"[bold green]valid:[/] {valid.name}: world {valid.world.kind}, "
        f"{len(kind.roster(valid))} agents ({kind.mind(valid)}), "
        f"{len(valid.clock.calendar().times())} ticks, model {valid.model.spec}"
    )


def main() -> None:
    app()
