"""What a conversation does reaches no other agent's look in its tick: the world as the tick
leaves it (its frame, what the next looks read) is the same whatever the two said and
whatever they made of it. The two speakers' act is the talk the pairing made, where they
stand, and their thoughts and replans are taken at their next decision. bench/served_town.py's
`decided` bounds rest on this: a neighbour is waited for only until it has decided."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from simulacra.experiments import load_scenario, run
from simulacra.mind.town import agent
from simulacra.runlog import read_events

SCENARIO = Path(__file__).resolve().parents[2] / "scenarios" / "town-2day.yaml"


def _play(root: Path) -> tuple[dict[datetime, Any], list[tuple[datetime, int]]]:
    """The frames of a scripted morning by their time, and each conversation's time and turns."""
    scenario = load_scenario(
        SCENARIO,
        [
            "agents.count=25",
            "clock.duration=2h",
            "model.spec=scripted",
            "memory.embedder=hashing",
            f"output.root={root}",
            "output.report=false",
        ],
    )
    done = run(scenario, progress=False)
    frames = {
        datetime.fromisoformat(str(e.t)): e.data for e in read_events(done.events_path, {"world"})
    }
    talks = [
        (datetime.fromisoformat(str(e.t)), len(e.data["turns"]))
        for e in read_events(done.events_path, {"conversation"})
    ]
    return frames, talks


def test_a_conversation_changes_nothing_the_world_shows_in_its_tick(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    frames, talks = _play(tmp_path / "eight")
    monkeypatch.setattr(agent, "CONVERSATION_TURNS", 1)  # the same pairs, one line each
    short, cut = _play(tmp_path / "one")
    assert talks and all(turns > 1 for _, turns in talks)
    first = min(t for t, _ in talks)
    assert [t for t, _ in cut if t == first] and all(turns == 1 for t, turns in cut if t == first)
    # Every frame up to the end of the first conversation's tick is the same.
    ends = [t for t in frames if t > first]
    shown = [t for t in frames if t <= min(ends)]
    assert [frames[t] for t in shown] == [short[t] for t in shown]
