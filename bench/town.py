"""The town engine's speed and model budget: 25 agents, one simulated day, the scripted model.

The scripted model is made sociable (agents who meet talk, news of the party spreads) so that
conversations and interviews cost what they would; embeddings are hashed, so the figures are
the engine's own. `overhead_share` is the share of wall time when no backend call is running
(with the scripted backend, nearly all of it: the gateway, memory, world, log and report).
Prints one JSON line.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

from scale import InFlight
from simulacra.experiments import load_scenario, run
from simulacra.llm import load_model
from simulacra.mind.town.scripted import sociable
from simulacra.runlog import read_events

AGENTS = 25
SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "town.yaml"


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-town-") as root:
        scenario = load_scenario(
            SCENARIO,
            [f"agents.count={AGENTS}", "memory.embedder=hashing", f"output.root={root}"],
        )
        model = sociable(load_model("scripted"))
        timer = InFlight(model.backend)
        model.backend = timer
        started = time.perf_counter()
        done = run(scenario, model=model, progress=False)
        wall = time.perf_counter() - started
        events = list(read_events(done.events_path))
    calls = [e for e in events if e.kind == "llm.call"]
    ticks = sum(1 for e in events if e.kind == "world" and e.data["step"] > 0)
    hours = ticks * scenario.clock.tick.total_seconds() / 3600
    print(
        json.dumps(
            {
                "agents": AGENTS,
                "simulated_hours": hours,
                "wall_s": round(wall, 2),
                "agent_ticks_per_s": round(AGENTS * ticks / wall, 1),
                "calls": len(calls),
                "calls_per_agent_hour": round(len(calls) / (AGENTS * hours), 2),
                "conversations": sum(1 for e in events if e.kind == "conversation"),
                "events": len(events),
                "overhead_share": round(1 - timer.busy_s / wall, 4),
            }
        )
    )


if __name__ == "__main__":
    main()
