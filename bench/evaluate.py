"""A full evaluation of a 25-agent, two-day run with the scripted model: wall time and model
calls, per condition and per question (the interview study, fact checks, rankings, TrueSkill
with its bootstrap, acquaintance and diffusion). Embeddings are hashed, so the figures are the
pipeline's own. Prints one JSON line.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

from simulacra.experiments import load_scenario, run
from simulacra.experiments.evaluate import evaluate
from simulacra.llm import load_model
from simulacra.mind.town.scripted import sociable

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "town-2day.yaml"


class Stages:
    """Wall time per stage of the evaluation."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._stage = ""
        self._since = time.perf_counter()

    def start(self, stage: str, total: int) -> None:
        self._close()
        self._stage = stage.split(":")[0].split(" at ")[0].split(" (")[0]

    def advance(self) -> None:
        pass

    def _close(self) -> None:
        now = time.perf_counter()
        if self._stage:
            self.seconds[self._stage] = round(
                self.seconds.get(self._stage, 0) + now - self._since, 2
            )
        self._since = now


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-evaluate-") as root:
        scenario = load_scenario(SCENARIO, ["memory.embedder=hashing", f"output.root={root}"])
        started = time.perf_counter()
        done = run(scenario, model=sociable(load_model("scripted")), progress=False)
        run_s = time.perf_counter() - started
        stages = Stages()
        started = time.perf_counter()
        out = evaluate(done.path, model=sociable(load_model("scripted")), steps=stages)
        wall = time.perf_counter() - started
        stages.start("", 0)
        found = json.loads(out.read_text(encoding="utf-8"))
    items = len(found["items"])
    conditions = found["conditions"]
    calls = found["calls"]
    answered = sum(v for k, v in calls.items() if k.startswith("answer:"))
    print(
        json.dumps(
            {
                "agents": 25,
                "days": 2,
                "run_wall_s": round(run_s, 2),
                "evaluate_wall_s": round(wall, 2),
                "items": items,
                "conditions": len(conditions),
                "calls": sum(calls.values()),
                "calls_by_stage": calls,
                "calls_per_condition": round(answered / len(conditions), 1),
                "calls_per_question": round(sum(calls.values()) / items, 2),
                "wall_s_per_question": round(wall / items, 4),
                "wall_s_by_stage": stages.seconds,
                "bootstrap": found["bootstrap"],
            }
        )
    )


if __name__ == "__main__":
    main()
