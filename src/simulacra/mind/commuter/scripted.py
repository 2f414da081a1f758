"""A rule-following stand-in for a language model, for tests, benchmarks and offline demos.

`script_commuters(model)` registers responders for the five commute purposes on a scripted
model. They read only the prompt, exactly as a language model would: the identity, the
week's episodes and reflections, the lessons in long-term memory. Their rules are simple
(start from one's usual departure, leave earlier after a late arrival, leave a taxi queue for
the bus, drop a mode that costs more than one cares to pay, keep what worked, merge the weeks
by what they agreed on most), so an ablation run with them shows what each memory adds
without any model noise.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from simulacra.core import format_hhmm, parse_hhmm
from simulacra.llm import Request, ScriptedModel

_USUAL = re.compile(r"Usual modes: ([a-z, ]+)\.")
_ALLOWED = re.compile(r"Modes allowed: ([a-z, ]+)\.")
_DEADLINE = re.compile(r"Arrive by (\d\d:\d\d)")
_DESTINATION = re.compile(r"Trip: \S+ to (\S+),")
_HABIT = re.compile(r"I usually leave at (\d\d:\d\d)")
_DISTANCE = re.compile(r"Trip: \S+ to \S+, ([\d.]+) km")
_SATISFIED = re.compile(r"satisfaction ([\d.]+) of 1 \(([^)]*)\)")
_KEEP = re.compile(r"keep (bus|taxi|walk) at (\d\d:\d\d)")
_EPISODE = re.compile(r"Day \d+: (bus|taxi|walk) departing (\d\d:\d\d)")
_PLANNED = re.compile(r"Planned for today: (bus|taxi|walk) at (\d\d:\d\d)")
_OUTCOME = re.compile(r"What happened: (bus|taxi|walk) departing (\d\d:\d\d): (.*)")
_LATE = re.compile(r"\((\d+) min late\)")
_EARLY = re.compile(r"\((\d+) min early\)")
_WAITED = re.compile(r"waited (\d+) min")
_EARLIER = re.compile(r"leave (\d+) min earlier")
_LATER = re.compile(r"leave (\d+) min later")
_SWITCH = re.compile(r"switch to (bus|taxi|walk)")

# A first guess at door-to-door time, before any experience, when no habit is stated.
_FIRST_GUESS_MIN = 40
# Below this satisfaction a trip that arrived in time is judged on its weakest part.
_CONTENT = 0.5
# The longest walk a commuter takes up when a ride costs too much.
_WALKABLE_KM = 2.0
_EARLIEST, _LATEST = parse_hhmm("06:00"), parse_hhmm("11:55")


def _user(request: Request) -> str:
    return request.messages[-1].text


def _modes(pattern: re.Pattern[str], text: str) -> list[str]:
    found = pattern.search(text)
    return [m.strip() for m in found.group(1).split(",")] if found else []


def _clip(minutes: float) -> str:
    return format_hhmm(min(_LATEST, max(_EARLIEST, minutes)))


def weekly(request: Request) -> dict[str, Any]:
    text = _user(request)
    allowed = _modes(_ALLOWED, text)
    usual = [m for m in _modes(_USUAL, text) if m in allowed] or allowed
    destination = _DESTINATION.search(text)
    deadline = _DEADLINE.search(text)
    assert destination and deadline, "the weekly prompt lost its identity block"
    lessons = _KEEP.findall(text)
    if lessons:
        mode, departure = lessons[-1]
        days = [(mode, departure)] * 5
    else:
        habit = _HABIT.search(text)
        start = (
            parse_hhmm(habit.group(1))
            if habit
            else parse_hhmm(deadline.group(1)) - _FIRST_GUESS_MIN
        )
        # Exploration as in the source's first week: small departure changes, a second mode once.
        days = [(usual[0], _clip(start + 5 * ((request.seed + d) % 3 - 1))) for d in range(5)]
        if len(usual) > 1:
            days[3] = (usual[1], days[3][1])
    return {
        "days": [
            {"departure": dep, "mode": mode, "destination": destination.group(1)}
            for mode, dep in days
        ]
    }


def reflect(request: Request) -> dict[str, Any]:
    found = _OUTCOME.search(_user(request))
    if found is None:
        return {"summary": "Nothing to judge."}
    mode, rest = found.group(1), found.group(3)
    waited = int(w.group(1)) if (w := _WAITED.search(rest)) else 0
    if "did not arrive" in rest:
        better = "bus" if mode != "bus" else "walk"
        return {"summary": f"Never arrived by {mode}; switch to {better} and leave 30 min earlier."}
    if late := _LATE.search(rest):
        minutes = int(late.group(1))
        if mode == "taxi" and waited > 20:
            return {
                "summary": f"Late after a {waited} min taxi wait; switch to bus and leave "
                f"{minutes + 10} min earlier."
            }
        return {"summary": f"Late by {minutes} min; leave {minutes + 5} min earlier."}
    if (early := _EARLY.search(rest)) and int(early.group(1)) > 30:
        return {"summary": f"Early by {early.group(1)} min; leave 15 min later."}
    change = _unsatisfied(mode, _user(request))
    if change:
        return {"summary": change}
    return {"summary": "The plan worked; keep it."}


def _unsatisfied(mode: str, text: str) -> str | None:
    """In time but unhappy: a ride too dear goes to a cheaper mode, a walk too hard to the bus."""
    found = _SATISFIED.search(text)
    if found is None or float(found.group(1)) >= _CONTENT:
        return None
    parts = {
        k: float(v) for k, v in (p.rsplit(" ", 1) for p in found.group(2).split(", ") if " " in p)
    }
    allowed = _modes(_ALLOWED, text)
    distance = _DISTANCE.search(text)
    short = distance is not None and float(distance.group(1)) <= _WALKABLE_KM
    if mode == "taxi" and parts.get("cost", 1.0) == 0.0:
        cheaper = "walk" if short and "walk" in allowed else "bus"
        if cheaper in allowed:
            return f"Satisfaction {found.group(1)}: the taxi cost too much; switch to {cheaper}."
    if mode == "walk" and parts.get("comfort", 1.0) < 0.2 and "bus" in allowed:
        return f"Satisfaction {found.group(1)}: the walk was too hard; switch to bus."
    return None


def daily(request: Request) -> dict[str, Any]:
    text = _user(request)
    planned = _PLANNED.search(text)
    destination = _DESTINATION.search(text)
    assert planned and destination, "the daily prompt lost its plan or identity"
    allowed = _modes(_ALLOWED, text)
    episodes = _EPISODE.findall(text)
    mode, departure = episodes[-1] if episodes else (planned.group(1), planned.group(2))
    minutes = parse_hhmm(departure)
    reflections = text.split("Reflection:")
    last = reflections[-1].split("\n")[0] if len(reflections) > 1 else ""
    if (switch := _SWITCH.search(last)) and switch.group(1) in allowed:
        mode = switch.group(1)
    if earlier := _EARLIER.search(last):
        minutes -= int(earlier.group(1))
    if later := _LATER.search(last):
        minutes += int(later.group(1))
    return {"departure": _clip(minutes), "mode": mode, "destination": destination.group(1)}


def abstract(request: Request) -> dict[str, Any]:
    episodes = re.findall(
        r"Day \d+: (bus|taxi|walk) departing (\d\d:\d\d): (?:arrived \d\d:\d\d \(([^)]*)\))?",
        _user(request),
    )
    best: tuple[float, str, str] | None = None
    for mode, departure, result in episodes:
        if not result:
            continue
        score = 100.0 if "late" in result else 0.0
        score += float(re.sub(r"\D", "", result) or 0)
        if best is None or score < best[0]:
            best = (score, mode, departure)
    if best is None:
        return {"pattern": "No trip arrived this week; try another mode."}
    return {"pattern": f"Best this week: keep {best[1]} at {best[2]}."}


def merge(request: Request) -> dict[str, Any]:
    """The lesson the weeks agreed on most; the latest of equals."""
    kept = _KEEP.findall(_user(request))
    if not kept:
        return {"pattern": "The weeks taught no single plan; keep trying."}
    counts = Counter(kept)
    mode, departure = max(reversed(kept), key=lambda k: counts[k])
    return {"pattern": f"Across the weeks: keep {mode} at {departure}."}


def script_commuters(model: ScriptedModel) -> ScriptedModel:
    """Register the five commute responders on `model` and return it."""
    model.on("commute.weekly", weekly)
    model.on("commute.reflect", reflect)
    model.on("commute.daily", daily)
    model.on("commute.abstract", abstract)
    model.on("commute.merge", merge)
    return model
