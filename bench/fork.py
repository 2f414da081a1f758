"""What a fork costs against running again: its wall time, the model requests it sends and
the disk it takes, beside a rerun of the same scenario from the start.

Two worlds: the scripted town (25 agents, 07:00-21:00, sociable so that news spreads and
agents talk; the engine's own cost), forked at 18:00 (a kept checkpoint) and at 17:30 (the
nearest kept checkpoint is later, so the fork replays from the start, still without a
model call); and El Farol on a stand-in served model (the fault server on 127.0.0.1,
answering after LATENCY_S), forked at week 15. Each fork makes no change, so it ends with
the parent's log (`same`). Prints one JSON line.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from simulacra.experiments import fork, load_scenario, run
from simulacra.llm import load_model
from simulacra.llm.fault_server import FaultServer
from simulacra.mind.town.scripted import sociable
from simulacra.runlog import RunDir, compare_runs

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
AGENTS = 25
LATENCY_S = 0.02
CHOICE = '{"reason": "a hunch", "choice": "go"}'


def _disk(run: RunDir) -> int:
    return sum(p.stat().st_size for p in run.path.rglob("*") if p.is_file())


def _timed(call: Callable[[], Any]) -> tuple[Any, float]:
    started = time.perf_counter()
    found = call()
    return found, round(time.perf_counter() - started, 2)


def _side_by_side(parent: RunDir, again_s: float, child: RunDir, fork_s: float) -> dict[str, Any]:
    return {
        "rerun_s": again_s,
        "fork_s": fork_s,
        "fork_share_of_rerun": round(fork_s / again_s, 3),
        "parent_disk_bytes": _disk(parent),
        "fork_disk_bytes": _disk(child),
        "fork_disk_share": round(_disk(child) / _disk(parent), 3),
        # The rest is the state a run keeps: its memories and its own last checkpoints.
        "parent_log_bytes": parent.events_path.stat().st_size,
        "fork_log_bytes": child.events_path.stat().st_size,
        "replayed_from_step": _replayed_from(child),
        "same": compare_runs(parent.path, child.path).same,
    }


def _replayed_from(child: RunDir) -> int:
    """The checkpoint step the fork restored (0: it replayed from the start)."""
    point = child.info()["parent"]
    states = sorted(Path(point["path"], "checkpoint").glob("state-*.json"))
    steps = [int(p.stem.removeprefix("state-")) for p in states]
    return max((s for s in steps if s <= point["step"]), default=0)


def town(root: Path) -> dict[str, Any]:
    sets = [f"agents.count={AGENTS}", "memory.embedder=hashing", "output.report=false"]
    scenario = load_scenario(SCENARIOS / "town.yaml", [*sets, f"output.root={root}"])

    def model() -> Any:
        return sociable(load_model("scripted"))

    parent, parent_s = _timed(lambda: run(scenario, model=model(), progress=False))
    _, again_s = _timed(lambda: run(scenario, model=model(), progress=False))
    found: dict[str, Any] = {"agents": AGENTS, "parent_s": parent_s}
    for at in ("18:00", "17:30"):
        (child,), fork_s = _timed(
            lambda at=at: fork(parent.path, at=at, model=model(), progress=False)
        )
        found[at] = _side_by_side(parent, again_s, child, fork_s)
    return found


def elfarol(root: Path) -> dict[str, Any]:
    with FaultServer("ok", content=CHOICE, latency_s=LATENCY_S) as server:
        sets = [
            f"model.spec=openai:{server.url}?model=stand-in",
            "agents.count=50",
            "clock.ticks=20",
            "clock.checkpoint_every=2",
            "output.report=false",
            f"output.root={root}",
        ]
        scenario = load_scenario(SCENARIOS / "elfarol.yaml", sets)
        parent, parent_s = _timed(lambda: run(scenario, progress=False))
        asked = server.requests
        _, again_s = _timed(lambda: run(scenario, progress=False))
        rerun_requests = server.requests - asked
        asked = server.requests
        (child,), fork_s = _timed(lambda: fork(parent.path, at=15, progress=False))
        fork_requests = server.requests - asked
    found = _side_by_side(parent, again_s, child, fork_s)
    # The no-change fork's calls are the parent's, answered from its cache: only `cached`
    # tells them apart, so `same` is false here by that one field.
    found["first_difference"] = str(compare_runs(parent.path, child.path).difference)
    return {
        "agents": 50,
        "latency_s": LATENCY_S,
        "parent_s": parent_s,
        "rerun_requests": rerun_requests,
        "fork_requests": fork_requests,
        "at": 15,
        **found,
    }


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-fork-") as root:
        figures = {
            "town_scripted": town(Path(root) / "town"),
            "elfarol_served_stand_in": elfarol(Path(root) / "elfarol"),
        }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
