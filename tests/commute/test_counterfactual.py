"""The memory ablation runs through what each variant remembers, and through nothing else:
Full whose weekly responder ignores the lessons it is shown makes B1's trips, trip for trip;
B1 whose daily responder ignores the week's reflections makes A1's. Nothing is keyed on the
ablation's name, and with their memory read, each differs from the variant below it."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from simulacra.experiments import run
from simulacra.experiments.models import load_run_model
from simulacra.llm import Message, Request
from simulacra.mind.commuter import scripted
from simulacra.runlog import read_events

from .conftest import commute

# 16 commuters over two weeks, the taxis struck on days 6-8: something worth remembering.
SMALL = (
    "agents.mix={student: 4, administrative_worker: 4, elderly_resident: 4, factory_worker: 4}",
    "clock.ticks=10",
    "world.city.taxi_strikes=[{days: [6, 7, 8], out_of_service: 0.8}]",
    "output.report=false",
)
Trips = dict[tuple[str, int], tuple[str, float]]


def forgetting(
    responder: Callable[[Request], dict[str, Any]], block: str, end: str, empty: str
) -> Callable[[Request], dict[str, Any]]:
    """`responder` shown `empty` where the prompt holds what lies between `block` and `end`."""
    pattern = re.compile(f"({re.escape(block)}).*?(?={re.escape(end)})", re.DOTALL)

    def answer(request: Request) -> dict[str, Any]:
        user = request.messages[-1]
        text, n = pattern.subn(lambda m: m.group(1) + empty, user.text)
        assert n == 1, "the prompt lost its memory block"
        messages = (*request.messages[:-1], Message(user.role, text))
        return responder(Request(messages=messages, seed=request.seed))

    return answer


def trips(root: Path, ablation: str, **forget: Callable[[Request], dict[str, Any]]) -> Trips:
    scenario = commute(*SMALL, f"ablation={ablation}", f"output.root={root / ablation}")
    model = load_run_model(scenario)
    for purpose, responder in forget.items():
        model.on(f"commute.{purpose}", responder)
    done = run(scenario, model=model, progress=False)
    return {
        (str(e.agent), int(e.data["day"])): (str(e.data["mode"]), float(e.data["departure_min"]))
        for e in read_events(done.events_path, {"action"})
        if e.data["phase"] == "travel"
    }


def test_each_variant_ignoring_its_memory_makes_the_trips_of_the_one_below(tmp_path: Path) -> None:
    a1, b1, full = (trips(tmp_path, v) for v in ("A1", "B1", "Full"))
    no_lessons = forgetting(scripted.weekly, "Lessons from past weeks:\n", "\nPlan ", "(none)")
    no_week = forgetting(
        scripted.daily, "This week so far:\n", "\nToday is ", "(nothing yet this week)"
    )
    full_forgetting = trips(tmp_path / "forget", "Full", weekly=no_lessons)
    b1_forgetting = trips(tmp_path / "forget", "B1", daily=no_week)
    assert len(a1) == 16 * 10
    assert full_forgetting == b1
    assert b1_forgetting == a1
    # Read, the memory changes trips: the week's reflections from the first Tuesday, the
    # lessons from the second week's plan on.
    changed_by_reflections = {k for k in a1 if a1[k] != b1[k]}
    changed_by_lessons = {k for k in b1 if b1[k] != full[k]}
    assert changed_by_reflections and min(day for _, day in changed_by_reflections) >= 2
    assert changed_by_lessons and min(day for _, day in changed_by_lessons) >= 6
