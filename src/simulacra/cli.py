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

from simulacra.llm import Request, chat, load_model
from simulacra.runlog import RunDir, read_events

app = typer.Typer(
    help="Run LLM-driven agent-based simulations offline, inspect them, question their agents.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)
models_app = typer.Typer(help="Language models: check that one loads and answers.")
app.add_typer(models_app, name="models")
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


def main() -> None:
    app()
