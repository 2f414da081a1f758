"""Who talks with whom in a town's tick: agents that asked to talk are paired, or speak first
to a visitor, in the given order, each in at most one conversation a tick (`talking` holds
who talks with whom this tick), and only with someone free at the same place; and what a
visitor's coming or saying something does (the change visitors.py describes)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from simulacra.core import Action, Address, Encounter, Resolution
from simulacra.worlds.town.presence import Roster
from simulacra.worlds.town.visitors import Visitors, visitor_id
from simulacra.worlds.town.whereabouts import Whereabouts


def paired(
    actions: Mapping[str, Action], agents: Roster[Whereabouts], talking: dict[str, str]
) -> list[Encounter]:
    """Each agent that asked to talk with an agent, with its target, when both are free and
    at the same place."""
    pairs = []
    for a, action in actions.items():
        b = action.target
        if action.kind != "talk" or b is None or b not in agents:
            continue
        if a in talking or b in talking:
            continue
        there = agents[b]
        if there.place != agents[a].place or there.trip is not None:
            continue
        talking[a], talking[b] = b, a
        pairs.append(Encounter(a, b, action.description))
    return pairs


def approached(
    actions: Mapping[str, Action],
    agents: Roster[Whereabouts],
    visitors: Visitors,
    talking: dict[str, str],
) -> list[Address]:
    """Each agent that asked to talk to a visitor at its place, when free: it speaks first
    (an address without a line), and the visitor may answer in a later tick."""
    found = []
    for a, action in actions.items():
        visitor = visitors.get(str(action.target))
        me = agents[a]
        if action.kind != "talk" or visitor is None or a in talking:
            continue
        if me.trip is not None or visitor.place != me.place:
            continue
        talking[a] = visitor.id
        found.append(
            Address(a, visitor.id, visitor.name, visitor.description, "", action.description)
        )
    return found


def here(who: str, place: str, agents: Roster[Whereabouts], visitors: Visitors) -> str | None:
    """The name of the agent or visitor `who` at `place`, or None."""
    agent, visitor = agents.get(who), visitors.get(who)
    if agent is not None and agent.place == place:
        return agent.name
    return visitor.name if visitor is not None and visitor.place == place else None


def visited(
    change: Mapping[str, Any], agents: Roster[Whereabouts], visitors: Visitors
) -> tuple[tuple[str, str] | None, Resolution]:
    """A visitor comes or moves (agents there notice `text`), or says `text` to an agent:
    everyone there hears it, and the agent, if there, answers. What is heard where (a place
    and the text; None: nothing), and the resolution."""
    text = str(change.get("text", ""))
    if "place" in change:
        return (visitors.come(change).place, text), Resolution()
    visitor = visitors.get(visitor_id(str(change["visitor"])))
    if visitor is None:  # the console refuses this; a scenario may still write it
        return None, Resolution()
    agent = str(change["to"])
    me = agents.get(agent)
    to = me.name if me is not None else agent
    heard = (visitor.place, f'{visitor.name} says to {to}: "{text}"')
    if me is None or me.trip is not None or me.place != visitor.place:
        return heard, Resolution()
    said = Address(agent, visitor.id, visitor.name, visitor.description, text)
    return heard, Resolution(addresses=[said])
