"""`simulacra trace RUN FACT`: one planted fact followed, agent by agent, through the source's
causal chain (its "complete run" of the party): the intention stored, expressed to the agent,
stored by the agent, retrieved when it planned, kept in the schedule, executed (at the place
in time). Each stage holds or breaks with the event that shows it; the first break answers
"why did this agent not come?".

Everything is read from the log. A stage states the fact when its text holds the fact's words
(`facts.knows_by_words`). Planning, the schedule and arrival apply to a fact whose event is
the world's attendance (`Fact.attendance`): the plan that counts is the one in force when the
event starts, and arrival is the world's attendance measure.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from simulacra.experiments.diagnose.log import FactWords, Line, RunLog, at
from simulacra.experiments.facts import knows_by_words
from simulacra.experiments.kinds import binding_of
from simulacra.runlog import Event
from simulacra.worlds.town import TownConfig

TRACE_JSON = "trace.json"
STAGES = (
    "stored",
    "expressed",
    "stored by the agent",
    "retrieved when planning",
    "kept in the schedule",
    "executed",
)
PLANNING = ("plan.daily", "plan.replan", "plan.revise")  # revise: whether news changes the day


@dataclass(frozen=True)
class Stage:
    """`held`: True, False, or None where the stage does not apply (`why` says)."""

    stage: str
    held: bool | None
    why: str
    event: Line | None = None


@dataclass(frozen=True)
class Chain:
    agent: str
    name: str
    stages: tuple[Stage, ...]

    @property
    def broke(self) -> str | None:
        """The first stage that did not hold."""
        return next((s.stage for s in self.stages if s.held is False), None)


@dataclass(frozen=True)
class Window:
    place: str
    start: datetime
    end: datetime


def trace(path: str | Path, fact_name: str) -> Path:
    """Trace `fact_name` in a finished run; returns trace.json's path (one entry per fact)."""
    log = RunLog.read(path)
    fact = log.fact(fact_name)
    window = _window(log, fact)
    agents = binding_of(log.scenario).roster(log.scenario)
    chains = [chain(log, fact, agent, window) for agent in agents]
    out = log.run_dir.path / TRACE_JSON
    found: dict[str, Any] = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
    planted = fact.planted
    found[fact.name] = {
        "fact": fact.name,
        "planted": None
        if planted is None
        else {"owner": planted.owner, "at": planted.at.isoformat(), "text": planted.text},
        "window": None if window is None else _window_json(window),
        "stages": list(STAGES),
        "agents": [
            {
                "agent": c.agent,
                "name": c.name,
                "broke": c.broke,
                "stages": [asdict(s) for s in c.stages],
            }
            for c in chains
        ],
    }
    out.write_text(json.dumps(found, indent=1, ensure_ascii=False), encoding="utf-8")
    return out


def chain(log: RunLog, fact: FactWords, agent: str, window: Window | None) -> Chain:
    """Where `fact` held and broke for `agent`, stage by stage."""
    planted = fact.planted
    owner = planted.owner if planted is not None else None
    stages: list[Stage] = []
    seed = _seed(log, fact)
    stages.append(
        Stage("stored", True, f"{log.name(owner)} holds it", log.line(seed))
        if seed is not None
        else Stage("stored", False, "no thought of the scenario plants it, and no record states it")
    )
    since = at(seed) if seed is not None else datetime.min
    if agent == owner:
        told = _first(_statements(log, fact, since, speaker=agent))
        why = "its owner told someone" if told else "its owner never told anyone"
        stages.append(Stage("expressed", told is not None, why, _line(log, told)))
        stored = seed
        stages.append(Stage("stored by the agent", True, "its own thought", _line(log, seed)))
    else:
        told = _first(_statements(log, fact, since, listener=agent))
        teller = log.name(told.agent) if told is not None else "no one"
        stages.append(
            Stage(
                "expressed", told is not None, f"{teller} told {log.name(agent)}", _line(log, told)
            )
        )
        stored = _stored(log, fact, agent, at(told)) if told is not None else None
        if told is None:
            stages.append(Stage("stored by the agent", None, "never told"))
        else:
            why = "in its memory" if stored else "not in its memory"
            stages.append(Stage("stored by the agent", stored is not None, why, _line(log, stored)))
    stages += _planning(log, fact, agent, stored, window)
    return Chain(agent, log.name(agent), tuple(stages))


def _planning(
    log: RunLog, fact: FactWords, agent: str, stored: Event | None, window: Window | None
) -> list[Stage]:
    if window is None:
        none = "the fact has no event in the world (Fact.attendance)"
        found = _first(_plan_retrievals(log, fact, agent, at(stored))) if stored else None
        why = "a plan's retrieval brought it up" if found else "no plan's retrieval brought it up"
        return [
            Stage(
                "retrieved when planning",
                found is not None if stored else None,
                why,
                _line(log, found),
            ),
            Stage("kept in the schedule", None, none),
            Stage("executed", None, none),
        ]
    plan = _in_force(log, agent, window)
    if plan is None:
        why = f"no plan of {log.name(agent)} made on {window.start:%A} by {window.start:%H:%M}"
        stages = [
            Stage("retrieved when planning", False, why),
            Stage("kept in the schedule", False, why),
        ]
    else:
        retrieval = _retrieval_for(log, plan)
        saw = retrieval is not None and _states(log, fact, retrieval, agent)
        made = f"the plan in force then ({plan.data['level']}, {at(plan):%a %H:%M})"
        if saw:
            why = f"{made} was made with it in view"
        elif stored is not None and at(plan) < at(stored):
            why = f"{made} was made before it was told ({at(stored):%a %H:%M}) and not remade"
        else:
            why = f"{made} was made without it: its retrieval did not bring it up"
        planned = Stage("retrieved when planning", saw, why, _line(log, retrieval or plan))
        item = _item_at(plan, window)
        kept_why = (
            f"{item['description']} at {window.place} from {str(item['start'])[11:16]}"
            if item
            else f"nothing at {window.place} then"
        )
        kept = Stage("kept in the schedule", item is not None, kept_why, _line(log, plan))
        stages = [planned, kept]
    came, arrival = _came(log, agent, window)
    span = f"{window.place} between {window.start:%H:%M} and {window.end:%H:%M}"
    stages.append(
        Stage("executed", came, ("at " if came else "not at ") + span, _line(log, arrival))
    )
    return stages


def _seed(log: RunLog, fact: FactWords) -> Event | None:
    planted = fact.planted
    if planted is None:
        return None
    return next(
        (
            e
            for e in log.of({"memory.add"}, planted.owner)
            if e.data.get("text") == planted.text and at(e) >= planted.at
        ),
        None,
    )


def _statements(
    log: RunLog,
    fact: FactWords,
    since: datetime,
    *,
    speaker: str | None = None,
    listener: str | None = None,
) -> list[Event]:
    """Turns of conversations from `since` that state the fact (by the speaker's words)."""
    return [
        e
        for e in log.of({"message"}, speaker)
        if at(e) >= since
        and (listener is None or listener in e.data.get("to", []))
        and knows_by_words(str(e.data.get("text", "")), fact.groups, log.name(e.agent))
    ]


def _stored(log: RunLog, fact: FactWords, agent: str, since: datetime) -> Event | None:
    """The agent's first record from `since` that states the fact (whatever befell it later)."""
    return _first(
        [e for e in log.of({"memory.add"}, agent) if at(e) >= since and log.states(e, fact)]
    )


def _plan_retrievals(log: RunLog, fact: FactWords, agent: str, since: datetime) -> list[Event]:
    return [
        e
        for e in log.of({"retrieval"}, agent)
        if at(e) >= since and e.data.get("purpose") in PLANNING and _states(log, fact, e, agent)
    ]


def _states(log: RunLog, fact: FactWords, retrieval: Event, agent: str) -> bool:
    """Whether the retrieval brought up a record that states the fact."""
    found = (log.records.get(str(r["id"])) for r in retrieval.data.get("results", []))
    return any(record is not None and log.states(record, fact) for record in found)


def _in_force(log: RunLog, agent: str, window: Window) -> Event | None:
    """The agent's latest day plan or replan made on the event's day by its start."""
    plans = [
        e
        for e in log.of({"plan"}, agent)
        if e.data.get("level") in ("day", "replan")
        and at(e).date() == window.start.date()
        and at(e) <= window.start
    ]
    return plans[-1] if plans else None


def _retrieval_for(log: RunLog, plan: Event) -> Event | None:
    """The retrieval the plan was made from: the agent's last planning one before it."""
    found = None
    for event in log.of({"retrieval"}, plan.agent):
        if event.seq > plan.seq:
            break
        if event.t == plan.t and event.data.get("purpose") in PLANNING:
            found = event
    return found


def _item_at(plan: Event, window: Window) -> dict[str, Any] | None:
    for item in plan.data.get("items", []):
        start = datetime.fromisoformat(str(item["start"]))
        end = start.timestamp() + 60 * float(item.get("duration_min", 0))
        if (
            item.get("place") == window.place
            and start < window.end
            and end > window.start.timestamp()
        ):
            return dict(item)
    return None


def _came(log: RunLog, agent: str, window: Window) -> tuple[bool, Event | None]:
    metrics_path = log.run_dir.path / "metrics.json"
    metrics = json.loads(metrics_path.read_text(encoding="utf-8")) if metrics_path.exists() else {}
    attended = (metrics.get("attendance") or {}).get("attended") or []
    arrival = next(
        (
            e
            for e in log.of({"action"}, agent)
            if e.data.get("place") == window.place and window.start <= at(e) <= window.end
        ),
        None,
    )
    return agent in attended, arrival


def _window(log: RunLog, fact: FactWords) -> Window | None:
    world = log.scenario.world
    party = world.attendance if isinstance(world, TownConfig) else None
    if party is None or not fact.attendance:
        return None
    return Window(party.place, log.scenario.when(party.start), log.scenario.when(party.end))


def _window_json(window: Window) -> dict[str, str]:
    return {"place": window.place, "start": window.start.isoformat(), "end": window.end.isoformat()}


def _first(events: Sequence[Event]) -> Event | None:
    return events[0] if events else None


def _line(log: RunLog, event: Event | None) -> Line | None:
    return log.line(event) if event is not None else None
