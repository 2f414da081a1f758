"""Shortening a run is one change: whatever a scenario sets for after the run's last tick
(interventions, interviews, an attendance window, a fire, a strike day ...) never happens, so
it is left out and named in one line, instead of refused section by section.

A time before the first tick, or while the clock sleeps, is still refused: that is a mistake,
not a shorter run.
"""

from __future__ import annotations

from datetime import datetime, time
from typing import Any

from simulacra.experiments.kinds import binding_of
from simulacra.experiments.scenario import Scenario


def within_the_clock(scenario: Scenario) -> tuple[Scenario, list[str]]:
    """The scenario without what it sets after its last tick, and each item left out, in
    words ("interviews at 13:00, 16:00")."""
    last = scenario.clock.calendar().times()[-1]

    def late(moment: datetime | time) -> bool:
        return scenario.when(moment) > last

    dropped: list[str] = []
    update: dict[str, Any] = {}
    gone = [(i, item) for i, item in enumerate(scenario.interventions) if late(item.at)]
    if gone:
        update["interventions"] = [item for item in scenario.interventions if not late(item.at)]
        dropped += [
            f"interventions[{i}] ({item.type} at {scenario.written(item.at)})" for i, item in gone
        ]
    plan = scenario.interviews
    if plan is not None and any(late(t) for t in plan.times):
        kept = [t for t in plan.times if not late(t)]
        shown = ", ".join(scenario.written(t) for t in plan.times if late(t))
        dropped.append(f"interviews at {shown}")
        update["interviews"] = plan.model_copy(update={"times": kept}) if kept else None
    evaluation = scenario.evaluation
    changes: dict[str, Any] = {}
    if evaluation.at is not None and late(evaluation.at):
        dropped.append(f"evaluation.at {scenario.written(evaluation.at)} (the run's end instead)")
        changes["at"] = None
    if evaluation.times and any(late(t) for t in evaluation.times):
        shown = ", ".join(scenario.written(t) for t in evaluation.times if late(t))
        dropped.append(f"evaluation.times {shown}")
        changes["times"] = [t for t in evaluation.times if not late(t)] or None
    if changes:
        update["evaluation"] = evaluation.model_copy(update=changes)
    trimmed = scenario.model_copy(update=update) if update else scenario
    trimmed, more = binding_of(trimmed).trim(trimmed, last)
    return trimmed, dropped + more


def dropped_line(scenario: Scenario, dropped: list[str]) -> str:
    """The one warning a trimmed scenario gives."""
    times = scenario.clock.calendar().times()
    return (
        f"the run's last tick is tick {len(times)}, at {scenario.written(times[-1])}, so these "
        f"never happen and are left out: {'; '.join(dropped)}"
    )
