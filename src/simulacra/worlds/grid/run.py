"""Entry points: run a grid scenario into a run directory (events, memory records, metrics,
frames, and the report when the report package is there)."""

from __future__ import annotations

import asyncio
import importlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from simulacra.llm import Gateway, ScriptedModel, load_model
from simulacra.runlog import RunDir, read_events
from simulacra.worlds.grid.config import GridScenario, load_scenario
from simulacra.worlds.grid.frames import render_frames
from simulacra.worlds.grid.metrics import grid_metrics
from simulacra.worlds.grid.recall import Recall, stream_recalls
from simulacra.worlds.grid.scripted import script_grid_agents
from simulacra.worlds.grid.sim import GridSimulation
from simulacra.worlds.grid.world import world_from_scenario


async def run_grid(
    scenario: GridScenario,
    model: Gateway,
    *,
    root: str | Path = "runs",
    model_spec: str | None = None,
) -> RunDir:
    """Run `scenario` (its own seed and step count) into a new run directory under `root`."""
    world = world_from_scenario(scenario, scenario.seed)
    run = RunDir.create(
        root,
        scenario.scenario,
        seed=scenario.seed,
        model=model_spec or model.name,
        config=scenario.model_dump(mode="json"),
    )
    writer = run.writer()
    status = "failed"
    try:
        writer.emit(
            "run",
            {
                "scenario": scenario.scenario,
                "seed": scenario.seed,
                "model": model_spec or model.name,
                "world": world.layout.to_dict(),
                "agents": {a: p.to_dict() for a, p in world.personas.items()},
                "steps": scenario.steps,
            },
        )
        recalls: dict[str, Recall] = {}
        if scenario.memory.mode == "stream":
            recalls = stream_recalls(
                world.agents,
                scenario.memory.size,
                scenario.memory.embedder,
                run.path / "memory.sqlite",
                writer,
                scenario.seed,
            )
        with (run.path / "memory.jsonl").open("w", encoding="utf-8") as memory_log:
            sim = GridSimulation(
                scenario, world, model, writer, memory_log, seed=scenario.seed, recalls=recalls
            )
            sim.emit_world(started=[], perceived={}, refused=[])
            writer.flush()
            try:
                await sim.run(scenario.steps)
            finally:
                for recall in recalls.values():
                    recall.close()
        metrics = grid_metrics(read_events(run.events_path))
        metrics["llm"] = model.ledger.to_dict()
        (run.path / "metrics.json").write_text(json.dumps(metrics, indent=2), encoding="utf-8")
        for name, value in metrics["summary"].items():
            writer.emit("metric", {"name": name, "value": value})
        status = "completed"
    finally:
        writer.emit("run", {"status": status})
        writer.close()
        run.set_status(status)
    if scenario.output.frames:
        render_frames(run)
    if scenario.output.report:
        _build_report(run)
    return run


def _build_report(run: RunDir) -> None:
    """report.html and viewer.html, when the report package provides them."""
    report = importlib.import_module("simulacra.report")
    build: Callable[[Path], object] | None = getattr(report, "build_outputs", None)
    if build is not None:
        build(run.path)


def run_hazard(
    config: str | Path | GridScenario,
    *,
    model: str | Gateway | None = None,
    seed: int | None = None,
    steps: int | None = None,
    frames: bool | None = None,
    report: bool | None = None,
    root: str | Path = "runs",
) -> RunDir:
    """Run a grid scenario file (or a parsed scenario) to completion and return its run directory.

    `model` is a spec for `load_model` or a ready Gateway (default: the scenario's
    `model.spec`); a scripted model loaded here gets the grid's rule-based answers
    (`script_grid_agents`). `seed`, `steps`, `frames` and `report` override the scenario.
    """
    scenario = config if isinstance(config, GridScenario) else load_scenario(config)
    overrides: dict[str, Any] = {}
    if seed is not None:
        overrides["seed"] = seed
    if steps is not None:
        overrides["steps"] = steps
    output = {k: v for k, v in (("frames", frames), ("report", report)) if v is not None}
    overrides["output"] = scenario.output.model_copy(update=output)
    if isinstance(model, Gateway):
        gateway, spec = model, model.name
    else:
        spec = model or scenario.model.spec
        gateway = load_model(spec)
        if isinstance(gateway, ScriptedModel):
            # A scripted run of this world should show movement and warnings, not fallbacks.
            script_grid_agents(gateway)
    overrides["model"] = scenario.model.model_copy(update={"spec": spec})
    scenario = scenario.model_copy(update=overrides)
    return asyncio.run(run_grid(scenario, gateway, root=root, model_spec=spec))
