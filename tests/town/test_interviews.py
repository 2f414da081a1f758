"""Interviews during a run measure it without changing it: the same run with and without
them does the same things, and only the interviews' own events tell them apart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from simulacra.experiments import load_scenario, run
from simulacra.llm import ScriptedModel, load_model
from simulacra.mind.town.scripted import sociable
from simulacra.runlog import RunDir, read_events
from simulacra.runlog.compare import without_wall

TOWN = Path(__file__).resolve().parents[2] / "scenarios" / "town.yaml"
SMALL = [
    "agents.count=4",
    "clock.duration=4h",
    "memory.embedder=hashing",
    'world.attendance.start="09:00"',
    'world.attendance.end="10:00"',
]
# Every event an interview makes: its answer and aware count, its retrieval and its call.
PROBES = {"interview.answer"}  # the purpose of every call an interview makes


def _run(root: Path, *overrides: str) -> RunDir:
    model: ScriptedModel = sociable(load_model("scripted"))
    scenario = load_scenario(TOWN, [*SMALL, *overrides, f"output.root={root}"])
    return run(scenario, model=model, progress=False)


def _played(found: RunDir) -> list[dict[str, Any]]:
    """The run's events without the interviews' and without what counts lines (seq)."""
    kept = []
    for event in read_events(found.events_path):
        if event.kind == "interview" or (event.kind == "metric" and event.data["name"] == "aware"):
            continue
        if event.kind in ("retrieval", "llm.call") and event.data.get("purpose") in PROBES:
            continue
        if event.kind in ("metric", "run.end"):  # the headline figures include awareness
            continue
        kept.append(
            {"t": event.t, "kind": event.kind, "agent": event.agent, **without_wall(event.data)}
        )
    return kept


def test_a_run_interviewed_hourly_does_what_the_same_run_does_without_interviews(
    tmp_path: Path,
) -> None:
    asked = _run(
        tmp_path / "asked",
        'interviews.times=["08:00", "09:00", "09:30", "10:00"]',
    )
    quiet = _run(tmp_path / "quiet", "interviews=null")
    answers = list(read_events(asked.events_path, {"interview"}))
    assert len(answers) == 16  # four agents, four times
    played, unasked = _played(asked), _played(quiet)
    assert len(played) == len(unasked)
    first = next((i for i, (a, b) in enumerate(zip(played, unasked, strict=True)) if a != b), None)
    assert first is None, f"the runs part at event {first}: {played[first]} != {unasked[first]}"
