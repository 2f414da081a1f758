"""Grid hazard benchmark: framework overhead with the scripted model (frames and report off),
then seconds per step with the embedded model for a few steps. Prints one JSON line.

    python bench/grid.py [--repeats 3] [--embedded-steps 3]   (--embedded-steps 0 skips it)
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from simulacra.experiments import Scenario, load_scenario, run
from simulacra.llm import load_model
from simulacra.runlog import read_events

HAZARD = Path(__file__).parents[1] / "scenarios" / "hazard.yaml"


def _scenario(root: Path, steps: int, spec: str) -> Scenario:
    return load_scenario(
        HAZARD,
        [
            f"clock.ticks={steps}",
            f"model.spec={spec}",
            f"output.root={root}",
            "output.frames=false",
            "output.report=false",
        ],
    )


def scripted_figures(root: Path, repeats: int) -> dict[str, Any]:
    scenario = _scenario(root, 7, "scripted")
    seconds, calls = 0.0, 0
    for _ in range(repeats):
        started = time.perf_counter()
        done = run(scenario, progress=False)
        seconds += time.perf_counter() - started
        calls += int(done.info()["calls"])
    steps = 7 * repeats
    return {"steps_per_s": round(steps / seconds, 2), "calls_per_step": calls / steps}


def embedded_figures(root: Path, steps: int) -> dict[str, Any]:
    # A generous timeout: on a busy machine a timed-out call would turn into a fallback.
    scenario = _scenario(root, steps, "embedded")
    scenario = scenario.model_copy(
        update={"model": scenario.model.model_copy(update={"timeout_s": 600.0})}
    )
    try:
        model = load_model("embedded", timeout_s=600)
    except Exception as exc:  # the embedded model is optional here: report why it is absent
        return {"embedded_s_per_step": None, "embedded_note": f"{type(exc).__name__}: {exc}"}
    started = time.perf_counter()
    done = run(scenario, model=model, progress=False)
    elapsed = time.perf_counter() - started
    decisions = list(read_events(done.events_path, kinds={"decision"}))
    fallbacks = sum(1 for d in decisions if d.data["fallback"])
    return {
        "embedded_s_per_step": round(elapsed / steps, 2),
        "embedded_steps": steps,
        "embedded_model": model.name,
        "embedded_fallback_rate": round(fallbacks / max(1, len(decisions)), 3),
        "embedded_run": str(done.path),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--embedded-steps", type=int, default=3)
    parser.add_argument("--keep", type=Path, default=None, help="keep runs under this folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        figures: dict[str, Any] = {"agents": 20, "steps": 7, "frames": False}
        figures |= scripted_figures(root, args.repeats)
        if args.embedded_steps > 0:
            figures |= embedded_figures(root, args.embedded_steps)
        else:
            figures |= {"embedded_s_per_step": None, "embedded_note": "skipped"}
        if args.keep is None:
            figures.pop("embedded_run", None)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
