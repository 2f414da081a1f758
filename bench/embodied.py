"""Embodied benchmark: render and id-pass times at the source's 512 x 384, the overhead of a
decision apart from the model, and success and SPL per agent kind on the task suite. Prints
one JSON line.

    python bench/embodied.py [--frames 30] [--decisions 20] [--caption-tasks 2]

Goals on this machine: a first-person render under 50 ms, a decision's overhead under 100 ms.
The baselines run every suite task once (seeded); the caption agent runs on the embedded
model for the first `--caption-tasks` tasks only, `--caption-ticks` decisions each (each of
its calls takes seconds; 0 tasks skips it).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from simulacra.core import Action, Tick
from simulacra.experiments import load_scenario, run
from simulacra.mind.embodied import Situation, decision_messages, describe
from simulacra.worlds.embodied import EmbodiedConfig
from simulacra.worlds.embodied.render import View, encode_png
from simulacra.worlds.embodied.world import EmbodiedWorld

ROOT = Path(__file__).parents[1] / "scenarios"
REPLY = (
    "I see racks on both sides and the logo far ahead. turn left 10 degrees and move forward 1 m"
)


def _world() -> EmbodiedWorld:
    scenario = load_scenario(ROOT / "embodied.yaml")
    assert isinstance(scenario.world, EmbodiedConfig)
    return EmbodiedWorld(scenario.world, ["agent"])


def render_figures(frames: int) -> dict[str, float]:
    world = _world()
    renderer = world.renderer
    views = [View(4.0 - 0.3 * k, 20.1, 180.0 + 5 * (k % 5), 0.0) for k in range(frames)]
    rgb, ids, png, cpu = [], [], [], []
    for view in views:
        started, cpu_started = time.perf_counter(), time.process_time()
        pixels = renderer.first_person(view, "agent", {})
        rgb.append(time.perf_counter() - started)
        cpu.append(time.process_time() - cpu_started)
        started = time.perf_counter()
        renderer.id_pass(view, "agent", {})
        ids.append(time.perf_counter() - started)
        started = time.perf_counter()
        encode_png(pixels)
        png.append(time.perf_counter() - started)
    world.close()
    return {
        "render_ms": round(1000 * statistics.median(rgb), 1),
        "render_cpu_ms": round(1000 * statistics.median(cpu), 1),
        "id_pass_ms": round(1000 * statistics.median(ids), 1),
        "png_ms": round(1000 * statistics.median(png), 1),
    }


def decision_overhead(decisions: int) -> tuple[float, float]:
    """Median ms of one decision without the model: render, id pass, PNG, what is visible,
    the route, the caption and prompt, then interpreting, clamping and applying the reply."""
    world = _world()
    times, cpu = [], []
    for step in range(1, decisions + 1):
        tick = Tick(step, _now(), _now(), _TICK, step == 1, False, step == decisions)
        started, cpu_started = time.perf_counter(), time.process_time()
        world.phases(tick)
        facts = world.observe("agent", "move", tick).facts
        situation = Situation(facts["setting"], facts["task"], facts["pose"],
                              caption=describe(facts["visible"]))  # fmt: skip
        decision_messages(situation, facts["image"])
        world.resolve("move", {"agent": Action("reply", args={"text": REPLY})}, tick)
        world.frame()
        world.advance(tick)
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - cpu_started)
    world.close()
    return round(1000 * statistics.median(times), 1), round(1000 * statistics.median(cpu), 1)


def suite(root: Path, caption_tasks: int, caption_ticks: int) -> dict[str, Any]:
    base = load_scenario(ROOT / "embodied-suite.yaml")
    tasks = list(base.sweep.vary["world.task"])
    kinds: dict[str, list[dict[str, Any]]] = {}
    for kind in ("oracle", "seeker", "random", "caption"):
        chosen = tasks[:caption_tasks] if kind == "caption" else tasks
        for task in chosen:
            scenario = load_scenario(
                ROOT / "embodied-suite.yaml",
                [f"world.task={task}", f"agents.mind={kind}", f"output.root={root}",
                 "model.timeout_s=600",
                 *([f"clock.ticks={caption_ticks}"] if kind == "caption" else [])],
            )  # fmt: skip
            done = run(scenario, progress=False)
            metrics = json.loads((done.path / "metrics.json").read_text())
            kinds.setdefault(kind, []).append(metrics["embodied"]["episodes"]["agent"])
    return {
        kind: {
            "tasks": len(episodes),
            "success": round(statistics.fmean(float(e["success"]) for e in episodes), 3),
            "spl": round(statistics.fmean(e["spl"] for e in episodes), 3),
            "soft_spl": round(statistics.fmean(e["soft_spl"] for e in episodes), 3),
            "cut": round(statistics.fmean(e["cut"] for e in episodes), 2),
            "unreadable": round(statistics.fmean(e["unreadable"] for e in episodes), 2),
            "model_s_per_episode": round(statistics.fmean(e["latency_s"] for e in episodes), 1),
        }
        for kind, episodes in kinds.items()
    }


def _now() -> datetime:
    return datetime(2000, 1, 1, 9, 0)


_TICK = timedelta(seconds=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--frames", type=int, default=30)
    parser.add_argument("--decisions", type=int, default=20)
    parser.add_argument("--caption-tasks", type=int, default=2)
    parser.add_argument("--caption-ticks", type=int, default=10, help="decisions per episode")
    args = parser.parse_args()
    figures: dict[str, Any] = {"bench": "embodied", "size": [512, 384]}
    figures |= render_figures(args.frames)
    wall, cpu = decision_overhead(args.decisions)
    figures["decision_overhead_ms"] = wall
    figures["decision_overhead_cpu_ms"] = cpu  # less sensitive to other work on the machine
    figures["load_average"] = round(os.getloadavg()[0], 2)
    with tempfile.TemporaryDirectory(prefix="simulacra-bench-") as scratch:
        per_kind = suite(Path(scratch), args.caption_tasks, args.caption_ticks)
    figures["success"] = {k: v["success"] for k, v in per_kind.items()}
    figures["spl"] = {k: v["spl"] for k, v in per_kind.items()}
    figures["suite"] = per_kind
    figures["goals"] = {"render_ms": 50, "decision_overhead_ms": 100}
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
