"""A live console's interventions in the scenario format: composed from what a person sends,
checked as a scenario's are before they are queued, written into the log's `console` events,
and read back from them (a resumed run takes them up again; `scheduled` is the run's config
with them scheduled, which reproduces the run).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from simulacra.engine import Intervention
from simulacra.errors import UserError
from simulacra.experiments.explain import explained
from simulacra.experiments.kinds import binding_of
from simulacra.experiments.kinds.base import CORRECT, TALK, THINK
from simulacra.experiments.load import cross_check
from simulacra.experiments.scenario import InterventionConfig, Scenario
from simulacra.runlog import read_events
from simulacra.runlog.events import ConsoleAction

CONSOLE = ConsoleAction.KIND
_NEEDS = {"thought": THINK, "conversation": TALK, "correction": CORRECT}


class Refused(UserError, ValueError):
    """A console action that the run cannot take, with the reason in the scenario's words."""


def intervention_of(scenario: Scenario, item: InterventionConfig) -> Intervention:
    """The engine's intervention for one the scenario format writes."""
    return Intervention(
        scenario.when(item.at),
        item.type,
        item.text,
        tuple(item.who),
        item.change,
        item.importance,
        tuple(tuple(group) for group in item.contradicts),
    )


def written(item: Intervention) -> dict[str, Any]:
    """`item` as a scenario writes an intervention (its empty fields left out)."""
    found: dict[str, Any] = {"at": item.at.isoformat(), "type": item.type, "text": item.text}
    if item.agents:
        found["agents"] = list(item.agents)
    if item.change:
        found["change"] = dict(item.change)
    if item.importance is not None:
        found["importance"] = item.importance
    if item.contradicts:
        found["contradicts"] = [list(group) for group in item.contradicts]
    return found


def types_taken(scenario: Scenario) -> list[str]:
    """The intervention types this run's world and minds take, in the format's order."""
    kind = binding_of(scenario)
    abilities = kind.abilities(scenario)
    taken = [t for t, need in _NEEDS.items() if need in abilities]
    if kind.changes:
        taken.insert(1, "event")
    return taken


def compose(scenario: Scenario, raw: Mapping[str, Any], now: datetime) -> Intervention:
    """The intervention a console sent (`raw` as a scenario writes one, without `at`), checked
    as the scenario's own are; Refused names the field that is wrong."""
    if "at" in raw:
        raise Refused("at: a console's intervention fires at the next tick; give no time")
    try:
        item = InterventionConfig.model_validate({**raw, "at": now})
    except ValidationError as exc:
        found = explained(exc.errors(), InterventionConfig, prefix="intervention")
        raise Refused("; ".join(found)) from None
    if item.type not in types_taken(scenario):
        raise Refused(f"type: {_takes_none(scenario, item.type)}")
    problems = cross_check(scenario.model_copy(update={"interventions": [item]}))
    if problems:
        raise Refused(
            "; ".join(p.replace("scenario.interventions[0]", "intervention") for p in problems)
        )
    return intervention_of(scenario, item)


def _takes_none(scenario: Scenario, kind: str) -> str:
    name = binding_of(scenario).name
    taken = types_taken(scenario)
    if not taken:
        return f"the {name} world takes no interventions"
    return f"the {name} world takes no {kind}; it takes {', '.join(taken)}"


def recorded(log: Path) -> list[dict[str, Any]]:
    """The interventions a console sent, as the log's `console` events hold them, in order."""
    if not log.is_file():
        return []
    return [
        dict(e.data["intervention"])
        for e in read_events(log, {CONSOLE})
        if e.data.get("intervention") is not None
    ]


def cut_off(log: Path, end: int) -> list[tuple[ConsoleAction, str | None]]:
    """The `console` events past byte `end` of the log, with their times: a resume cuts the
    log back to its checkpoint and logs these again, so a second kill loses none either."""
    if not log.is_file():
        return []
    kept = sum(1 for _ in read_events(log, {CONSOLE}, end=end))
    return [
        (
            ConsoleAction(
                who=e.data["who"],
                action=e.data["action"],
                step=e.data["step"],
                intervention=e.data.get("intervention"),
                speed=e.data.get("speed"),
            ),
            e.t,
        )
        for e in list(read_events(log, {CONSOLE}))[kept:]
    ]


def recorded_interventions(scenario: Scenario, log: Path) -> list[Intervention]:
    """What `recorded` holds, as the engine's interventions (a resumed run adds them back)."""
    return [
        intervention_of(scenario, InterventionConfig.model_validate(raw)) for raw in recorded(log)
    ]


def scheduled(config: Mapping[str, Any], log: Path) -> dict[str, Any]:
    """The run's config with its console's interventions scheduled after its own: running it
    writes the same log (`simulacra diff` finds no difference)."""
    found = dict(config)
    found["interventions"] = [*config.get("interventions", []), *recorded(log)]
    return found
