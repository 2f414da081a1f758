"""Grid hazard benchmark: framework overhead with the scripted model (frames and report off),
then seconds per step with the embedded model for a few steps. Prints one JSON line.

    python bench/grid.py [--repeats 3] [--embedded-steps 3]   (--embedded-steps 0 skips it)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from simulacra.llm import Gateway, ScriptedModel, load_model
from simulacra.runlog import read_events
from simulacra.worlds.grid import GridScenario, load_scenario, run_grid, script_grid_agents

HAZARD = Path(__file__).parents[1] / "scenarios" / "hazard.yaml"


def _quiet(scenario: GridScenario, steps: int) -> GridScenario:
    output = scenario.output.model_copy(update={"frames": False, "report": False})
    return scenario.model_copy(update={"steps": steps, "output": output})


def _timed(scenario: GridScenario, model: Gateway, root: Path) -> tuple[float, Path]:
    started = time.perf_counter()
    run = asyncio.run(run_grid(scenario, model, root=root))
    return time.perf_counter() - started, run.path


def scripted_figures(scenario: GridScenario, repeats: int, root: Path) -> dict[str, Any]:
    seconds = 0.0
    calls = 0
    for _ in range(repeats):
        model = script_grid_agents(ScriptedModel())
        elapsed, _ = _timed(scenario, model, root)
        seconds += elapsed
        calls += model.ledger.total.calls
    steps = scenario.steps * repeats
    return {"steps_per_s": round(steps / seconds, 2), "calls_per_step": calls / steps}


def embedded_figures(scenario: GridScenario, root: Path) -> dict[str, Any]:
    try:
        # A generous timeout: on a busy machine a timed-out call would turn into a fallback.
        model = load_model("embedded", timeout_s=600)
    except Exception as exc:  # the embedded model is optional here: report why it is absent
        return {"embedded_s_per_step": None, "embedded_note": f"{type(exc).__name__}: {exc}"}
    elapsed, path = _timed(scenario, model, root)
    decisions = list(read_events(path / "events.jsonl", kinds={"decision"}))
    fallbacks = sum(1 for d in decisions if d.data["fallback"])
    return {
        "embedded_s_per_step": round(elapsed / scenario.steps, 2),
        "embedded_steps": scenario.steps,
        "embedded_model": model.name,
        "embedded_fallback_rate": round(fallbacks / max(1, len(decisions)), 3),
        "embedded_run": str(path),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--embedded-steps", type=int, default=3)
    parser.add_argument("--keep", type=Path, default=None, help="keep runs under this folder")
    args = parser.parse_args()
    scenario = load_scenario(HAZARD)
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        figures: dict[str, Any] = {"agents": scenario.agents.count, "steps": scenario.steps}
        figures["frames"] = False
        figures |= scripted_figures(_quiet(scenario, scenario.steps), args.repeats, root)
        if args.embedded_steps > 0:
            figures |= embedded_figures(_quiet(scenario, args.embedded_steps), root)
        else:
            figures |= {"embedded_s_per_step": None, "embedded_note": "skipped"}
        if args.keep is None:
            figures.pop("embedded_run", None)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
