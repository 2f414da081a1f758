"""A rule-following stand-in for a language model, for tests, benchmarks and offline demos.

`script_commuters(model)` registers responders for the five commute purposes on a scripted
model. They read only the prompt, exactly as a language model would: the identity (age,
income, weights, flexibility, usual departure, the trip and the allowed modes), the week's
episodes and reflections, the lessons in long-term memory; never Table 4's expectation, even
where a scenario shows it. Their rules are simple, so an ablation run with them shows what
each memory adds without any model noise:

- the first weekly plan scores each allowed mode by the commuter's first guesses and its own
  identity (choice.py, as the logit model does before any experience) and draws each day's
  mode with the logit probabilities (scale 4, seeded by the request): a commuter for whom two
  modes are close tries both, one for whom one mode is far better keeps to it; it leaves at
  its usual time, or earlier when the mode's expected time would not leave 5 minutes;
- a later weekly plan keeps the latest lesson's mode and departure;
- a reflection asks to leave earlier after a late arrival beyond the flexibility, to leave a
  taxi queue for the bus, to leave later after a long early wait, to drop a mode that costs
  more than one cares to pay or a walk too hard; otherwise to keep the plan;
- the daily re-plan follows the weekly plan until a reflection of the week asks for a change,
  and from then on yesterday's trip with the change asked;
- a lesson keeps the week's trip that arrived nearest the deadline without being late; a
  merge keeps what the weeks agreed on most.
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from typing import Any

from simulacra.core import DayWindow, format_hhmm, parse_hhmm
from simulacra.llm import Request, ScriptedModel
from simulacra.mind.commuter.choice import departure, disutility, first_guess
from simulacra.mind.commuter.profiles import PRIORITIES, Person

_ALLOWED = re.compile(r"Modes allowed: ([a-z, ]+)\.")
_WHO = re.compile(r"I am an? [^,]+, (\d+), (\w+):")
_INCOME = re.compile(r"income (\d+) EUR a month")
_WEIGHTS = re.compile(r"What matters to me: ([^.]*)\.")
_WEIGHT = re.compile(r"(\w+) (\d+)%")
_FLEXIBLE = re.compile(r"up to (\d+) min late does no harm")
_WINDOW = re.compile(r"Depart between (\d\d:\d\d) and (\d\d:\d\d)")
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

# How sharply the first plan prefers the better mode: the logit model's default scale.
_SCALE = 4.0
_MARGIN_MIN = 5.0
# How long a late arrival must be for a commuter who cares nothing for punctuality to give up
# a mode even odds: an hour.
_PATIENCE_MIN = 60.0
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


def _number(pattern: re.Pattern[str], text: str, default: float = 0.0) -> float:
    found = pattern.search(text)
    return float(found.group(1)) if found else default


def person_of(text: str) -> Person:
    """The commuter the prompt's identity block describes."""
    who, habit = _WHO.search(text), _HABIT.search(text)
    weights_text = _WEIGHTS.search(text)
    assert who and habit and weights_text, "the prompt lost its identity block"
    shares = {k: float(v) for k, v in _WEIGHT.findall(weights_text.group(1)) if k in PRIORITIES}
    total = sum(shares.values()) or 1.0
    return Person(
        age=int(who.group(1)),
        gender=who.group(2),
        income_eur=int(_number(_INCOME, text)),
        weights=tuple((k, shares.get(k, 0.0) / total) for k in PRIORITIES),
        flexibility_min=int(_number(_FLEXIBLE, text)),
        habit_min=parse_hhmm(habit.group(1)),
    )


def _first_plan(text: str, seed: int) -> list[tuple[str, str]]:
    """Five days drawn from the first guesses' logit probabilities (see the module)."""
    person = person_of(text)
    km = _number(_DISTANCE, text)
    deadline = _DEADLINE.search(text)
    window = _WINDOW.search(text)
    assert deadline and window, "the prompt lost its deadline or window"
    day = DayWindow.of(window.group(1), window.group(2))
    plans = {}
    for mode in _modes(_ALLOWED, text):
        guess = first_guess(mode, km)
        leave = departure(person, parse_hhmm(deadline.group(1)), guess.minutes, _MARGIN_MIN, day)
        plans[mode] = (leave, -_SCALE * disutility(person, mode, guess, leave))
    top = max(v for _, v in plans.values())
    weights = [math.exp(v - top) for _, v in plans.values()]
    rng = random.Random(seed)
    days = []
    for _ in range(5):
        mode = rng.choices(list(plans), weights=weights)[0]
        days.append((mode, _clip(plans[mode][0])))
    return days


def weekly(request: Request) -> dict[str, Any]:
    text = _user(request)
    lessons = _KEEP.findall(text)
    if lessons:
        mode, leave = lessons[-1]
        days = [(mode, leave)] * 5
    else:
        days = _first_plan(text, request.seed)
    return {"days": [{"departure": dep, "mode": mode} for mode, dep in days]}


def reflect(request: Request) -> dict[str, Any]:
    text = _user(request)
    found = _OUTCOME.search(text)
    if found is None:
        return {"summary": "Nothing to judge."}
    mode, rest = found.group(1), found.group(3)
    waited = int(w.group(1)) if (w := _WAITED.search(rest)) else 0
    if "did not arrive" in rest:
        better = "bus" if mode != "bus" else "walk"
        return {"summary": f"Never arrived by {mode}; switch to {better} and leave 30 min earlier."}
    if late := _LATE.search(rest):
        minutes = int(late.group(1))
        flexibility = _number(_FLEXIBLE, text)
        if minutes <= flexibility:
            return {"summary": f"Late by {minutes} min, within what does no harm; keep it."}
        if mode == "taxi" and waited > 20 and _gives_up(text, minutes - flexibility, request.seed):
            return {
                "summary": f"Late after a {waited} min taxi wait; switch to bus and leave "
                f"{minutes + 10} min earlier."
            }
        return {"summary": f"Late by {minutes} min; leave {minutes + 5} min earlier."}
    if (early := _EARLY.search(rest)) and int(early.group(1)) > 30:
        return {"summary": f"Early by {early.group(1)} min; leave 15 min later."}
    change = _unsatisfied(mode, text)
    if change:
        return {"summary": change}
    return {"summary": "The plan worked; keep it."}


def _gives_up(text: str, late_min: float, seed: int) -> bool:
    """Whether a late taxi rider gives the taxi up for the bus today rather than leaving
    earlier: likelier the later it was, the more punctuality matters to it (`late` over
    `late + patience`, patience an hour less the share punctuality has), drawn with the
    request's seed."""
    patience = _PATIENCE_MIN * (1.0 - person_of(text).weight("punctuality"))
    return random.Random(seed).random() < late_min / (late_min + patience)


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
    assert planned, "the daily prompt lost today's plan"
    allowed = _modes(_ALLOWED, text)
    episodes = _EPISODE.findall(text)
    reflections = [part.split("\n")[0] for part in text.split("Reflection:")[1:]]
    asked = any(p.search(r) for r in reflections for p in (_SWITCH, _EARLIER, _LATER))
    if not asked or not episodes:
        return {"departure": planned.group(2), "mode": planned.group(1)}
    # A change asked this week carries on from yesterday's trip, which already made it.
    mode, leave = episodes[-1]
    minutes = parse_hhmm(leave)
    last = reflections[-1] if reflections else ""
    if (switch := _SWITCH.search(last)) and switch.group(1) in allowed:
        mode = switch.group(1)
    if earlier := _EARLIER.search(last):
        minutes -= int(earlier.group(1))
    if later := _LATER.search(last):
        minutes += int(later.group(1))
    return {"departure": _clip(minutes), "mode": mode}


def abstract(request: Request) -> dict[str, Any]:
    episodes = re.findall(
        r"Day \d+: (bus|taxi|walk) departing (\d\d:\d\d): (?:arrived \d\d:\d\d \(([^)]*)\))?",
        _user(request),
    )
    best: tuple[float, str, str] | None = None
    for mode, leave, result in episodes:
        if not result:
            continue
        score = 100.0 if "late" in result else 0.0
        score += float(re.sub(r"\D", "", result) or 0)
        if best is None or score < best[0]:
            best = (score, mode, leave)
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
