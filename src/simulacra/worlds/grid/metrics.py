"""Grid run metrics, derived from events.jsonl alone.

Per step (steps 1..N, positions after the step's moves unless said otherwise): agents within
each fire's radius, place occupancy, message deliveries (one per recipient: a message heard by
three agents is three deliveries, as the source's "per-recipient message-delivery records"
count them) and the agents whose message someone heard (a message no agent is near enough to
hear is delivered to no one and logged nowhere), clustering (mean distance to the
nearest other agent; connected components of the communication graph), and movement
(towards or away from fires, into places, and how often agents change what they do:
movement.py). Warning propagation: who learned of each fire by sight (inside its radius at the
start of a step) and who first by message, in how many hops.

The headline is the grid's signature, what a sweep compares across models and minds: warnings
and hops, exposure to fire, clustering, movement preference and action stability.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from simulacra.runlog import Event
from simulacra.worlds.grid.fires import Cell, read
from simulacra.worlds.grid.layout import Layout, euclidean
from simulacra.worlds.grid.movement import Frame, movement

# A message with no fire's name but one of these words warns about every fire its sender knows.
_FIRE_WORDS = re.compile(r"\b(fires?|smoke|flames?|burn\w*|blaze)\b", re.IGNORECASE)


def fires_mentioned(text: str, known: Iterable[str]) -> set[str]:
    """The fires a message warns about: those it names, else all the sender knows if it speaks
    of fire at all."""
    known = set(known)
    named = {f for f in known if re.search(rf"\b{re.escape(f)}\b", text, re.IGNORECASE)}
    if named:
        return named
    return known if _FIRE_WORDS.search(text) else set()


def components(layout: Layout, positions: Mapping[str, Cell]) -> int:
    """Connected components of the communication graph (an isolated agent counts as one)."""
    links = layout.neighbours(positions)
    seen: set[str] = set()
    count = 0
    for start in positions:
        if start in seen:
            continue
        count += 1
        stack = [start]
        seen.add(start)
        while stack:
            for other in links[stack.pop()]:
                if other not in seen:
                    seen.add(other)
                    stack.append(other)
    return count


def mean_nearest_neighbour(positions: Mapping[str, Cell]) -> float | None:
    cells = list(positions.values())
    if len(cells) < 2:
        return None
    nearest = [
        min(euclidean(a, b) for j, b in enumerate(cells) if j != i) for i, a in enumerate(cells)
    ]
    return round(sum(nearest) / len(nearest), 4)


class _Propagation:
    """Who knows of which fire, since when and through how many hops (0: by sight)."""

    def __init__(self) -> None:
        self.hops: dict[str, dict[str, int]] = defaultdict(dict)
        self.sight: dict[str, dict[str, int]] = defaultdict(dict)
        self.by_message: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)

    def see(self, step: int, perceived: Mapping[str, list[str]]) -> None:
        for fire, agents in perceived.items():
            for agent in agents:
                self.sight[fire].setdefault(agent, step)
                self.hops[fire].setdefault(agent, 0)

    def hear(self, step: int, messages: list[tuple[str, str, str]]) -> None:
        # Senders spoke before anyone heard this step's messages: judge them on what they knew.
        known_before = {fire: dict(agents) for fire, agents in self.hops.items()}
        for sender, recipient, text in messages:
            sender_knows = [f for f, agents in known_before.items() if sender in agents]
            for fire in sorted(fires_mentioned(text, sender_knows)):
                hops = known_before[fire][sender] + 1
                learned = self.hops[fire].get(recipient)
                if recipient in known_before[fire] or (learned is not None and learned <= hops):
                    continue
                self.hops[fire][recipient] = hops
                self.by_message[fire][recipient] = {"step": step, "hops": hops, "from": sender}

    def report(self, fires: Iterable[str]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for fire in fires:
            warned = self.by_message.get(fire, {})
            seen = self.sight.get(fire, {})
            out[fire] = {
                "by_sight": dict(sorted(seen.items())),
                "by_message": dict(sorted(warned.items())),
                "by_message_only": sorted(a for a in warned if a not in seen),
                "max_hops": max((w["hops"] for w in warned.values()), default=0),
            }
        return out


def grid_metrics(events: Iterable[Event]) -> dict[str, Any]:
    """Metrics of one grid run from its events (the `run` event first, then `world` events)."""
    layout: Layout | None = None
    steps: list[int] = []
    within: dict[str, list[int]] = {}
    within_any: list[int] = []
    occupancy: dict[str, list[int]] = {}
    nearest: list[float | None] = []
    parts: list[int] = []
    deliveries: dict[int, list[tuple[str, str, str]]] = defaultdict(list)
    frames: list[Frame] = []
    spread = _Propagation()
    for event in events:
        if event.kind == "run" and "world" in event.data:
            layout = Layout.from_dict(event.data["world"])
            within = {f.name: [] for f in layout.fires}
            occupancy = {p.name: [] for p in layout.places}
        elif event.kind == "message" and event.agent is not None:
            step = int(event.data["step"])
            deliveries[step].append((event.agent, event.data["to"][0], event.data["text"]))
        elif event.kind == "world" and layout is not None:
            step = int(event.data["step"])
            positions = {a: (int(x), int(y)) for a, (x, y) in event.data["positions"].items()}
            actions = {a: s.get("action") for a, s in event.data["agents"].items()}
            perceived = event.data.get("perceived", {})
            if step > 0:
                for placed in (f for f in event.data.get("fires", ()) if isinstance(f, dict)):
                    layout = layout.with_fire(read(placed))  # moved or added by an intervention
                    within.setdefault(placed["name"], [0] * len(steps))
            fires = {f.name: f for f in layout.fires}  # where each is in this step
            frames.append(Frame(step, positions, actions, perceived, fires))
            if step == 0:
                continue
            steps.append(step)
            inside_any: set[str] = set()
            for fire in layout.fires:
                near = {
                    a
                    for a, cell in positions.items()
                    if fire.active(step) and euclidean(cell, fire.position) <= fire.radius
                }
                within[fire.name].append(len(near))
                inside_any |= near
            within_any.append(len(inside_any))
            for place, count in event.data["occupancy"].items():
                occupancy.setdefault(place, []).append(int(count))
            nearest.append(mean_nearest_neighbour(positions))
            parts.append(components(layout, positions))
            spread.see(step, event.data.get("perceived", {}))
            spread.hear(step, deliveries.get(step, []))
    if layout is None:
        raise ValueError("no grid `run` event with a `world` layout: not a grid run's events")
    delivered = [len(deliveries.get(s, [])) for s in steps]
    senders = [len({d[0] for d in deliveries.get(s, [])}) for s in steps]
    warnings = spread.report(f.name for f in layout.fires)
    moves = movement(layout, frames)
    burning = [
        n for s, n in zip(steps, within_any, strict=True) if any(f.active(s) for f in layout.fires)
    ]
    headline: dict[str, float] = {
        "steps": len(steps),
        "message_deliveries": sum(delivered),
        "messages_heard": sum(senders),
        "agents_within_any_fire_radius_at_end": within_any[-1] if within_any else 0,
        "mean_exposure": round(sum(burning) / len(burning), 4) if burning else 0.0,
        "agents_in_places_at_end": sum(v[-1] for v in occupancy.values() if v),
        "warned_by_message_only": sum(len(w["by_message_only"]) for w in warnings.values()),
        "max_warning_hops": max((w["max_hops"] for w in warnings.values()), default=0),
        "nearest_neighbour_at_end": (nearest[-1] or 0.0) if nearest else 0.0,
        "components_at_end": parts[-1] if parts else 0,
        "moves_towards_fire": moves["summary"]["towards_fire"],
        "moves_away_from_fire": moves["summary"]["away_from_fire"],
        "places_entered": moves["summary"]["entered_place"],
    }
    for name in ("away_share", "change_rate"):
        if moves["summary"][name] is not None:
            headline[name] = moves["summary"][name]
    return {
        "steps": steps,
        "agents_within_fire_radius": within,
        "agents_within_any_fire_radius": within_any,
        "place_occupancy": occupancy,
        "deliveries_per_step": delivered,
        "senders_per_step": senders,
        "clustering": {
            "mean_nearest_neighbour_distance": nearest,
            "communication_components": parts,
        },
        "warnings": warnings,
        "movement": moves,
        "headline": headline,
    }
