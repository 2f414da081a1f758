"""A classical baseline for the grid: a rule agent, no language model.

- It flees a fire it perceives: it steps away from the nearest one, along the axis on which it
  is farther from it (the other axis at the field's edge), and keeps that heading.
- It warns its neighbours once: the first step it perceives a fire, it says so ("Warning:
  fire1 at (15, 10)."), once per fire; the first warning it hears of a fire it has not seen,
  it passes on ("Relayed: ..."), once. These are the words the scripted grid uses, so the
  warning measures read both alike.
- Otherwise it keeps its course: a heading drawn from its seed at the start, turned around at
  the field's edge and turned aside when a full place refuses it.

Each move is logged as a `decision` ("grid.rule") with the rule that chose it.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from simulacra.core import Action, Observation
from simulacra.mind.decision import rule_decision
from simulacra.runlog import EventSink

PURPOSE = "grid.rule"
HEADINGS = {"up": (0, 1), "down": (0, -1), "left": (-1, 0), "right": (1, 0)}
_TURN = {"up": ("left", "right"), "down": ("left", "right"), "left": ("up", "down")}
_TURN["right"] = _TURN["left"]
_BACK = {"up": "down", "down": "up", "left": "right", "right": "left"}
_FIRE_WORDS = re.compile(r"\b(fire\w*|smoke|flames?|burn\w*|blaze)\b", re.IGNORECASE)
_PREFIX = re.compile(r"^(?:(?:Warning|Relayed):\s*)+")


class RuleAgent:
    """The grid's `rule` mind (see the module docstring)."""

    def __init__(self, agent: str, seed: int, sink: EventSink | None = None) -> None:
        self.id = agent
        self.seed = seed
        self.heading = random.Random(f"{seed}|{agent}|heading").choice(sorted(HEADINGS))
        self.sink = sink
        self.warned: list[str] = []  # fires it has warned of
        self.relayed = False
        self.heard: list[str] = []  # last step's messages, passed on at the next

    async def decide(self, phase: str, observation: Observation, now: datetime) -> Action | None:
        facts = observation.facts
        if phase == "message":
            said = self.warning(facts.get("fires", ()))
            return Action("say", said) if said else None
        if phase == "action":
            self.heard = [str(m["text"]) for m in facts.get("received", ())]
            return self.move(facts, now)
        return None

    def warning(self, fires: Sequence[Mapping[str, Any]]) -> str:
        """What it says this step: the fires it sees for the first time, else the first fire
        warning it heard, passed on once; else nothing."""
        new = [f for f in fires if f["name"] not in self.warned]
        if new:
            self.warned += [str(f["name"]) for f in new]
            seen = ", ".join(
                f"{f['name']} at ({f['position'][0]}, {f['position'][1]})" for f in new
            )
            return f"Warning: {seen}."
        if self.relayed or self.warned:
            return ""
        for text in self.heard:
            if _FIRE_WORDS.search(text):
                self.relayed = True
                return f"Relayed: {_PREFIX.sub('', text)}"
        return ""

    def move(self, facts: Mapping[str, Any], now: datetime) -> Action:
        here = (int(facts["position"][0]), int(facts["position"][1]))
        limit = int(facts["half_size"])
        fires = facts.get("fires", ())
        step = int(facts["step"])
        heading: str | None
        if fires:
            nearest = min(fires, key=lambda f: float(f["distance"]))
            heading = _away(here, nearest["position"], limit)
            why = f"fleeing {nearest['name']}" if heading else "cornered by a fire: staying"
        else:
            why = "keeping its course"
            if facts.get("refusal"):
                turn = random.Random(f"{self.seed}|{self.id}|{step}").choice(_TURN[self.heading])
                self.heading, why = turn, "turned aside: a full place refused it"
            if not _inside(here, self.heading, limit):
                self.heading, why = _BACK[self.heading], "turned back at the field's edge"
            heading = self.heading
        if heading is not None:
            self.heading = heading
        choice = f"move {heading}" if heading else "stay"
        if self.sink is not None:
            parsed = {"direction": heading, "rule": why}
            decided = rule_decision(PURPOSE, choice, parsed, step=step)
            self.sink.emit(decided, t=now, agent=self.id)
        if heading is None:
            return Action("stay", choice)
        return Action("move", choice, target=heading)

    def state(self) -> dict[str, Any]:
        return {
            "heading": self.heading,
            "warned": list(self.warned),
            "relayed": self.relayed,
            "heard": list(self.heard),
        }

    def restore(self, state: Mapping[str, Any]) -> None:
        self.heading = str(state["heading"])
        self.warned = [str(w) for w in state["warned"]]
        self.relayed = bool(state["relayed"])
        self.heard = [str(h) for h in state["heard"]]


def _inside(here: tuple[int, int], heading: str, limit: int) -> bool:
    dx, dy = HEADINGS[heading]
    return max(abs(here[0] + dx), abs(here[1] + dy)) <= limit


def _away(here: tuple[int, int], fire: Sequence[int], limit: int) -> str | None:
    """The step away from `fire` along the axis it is farther on, else along the other; None
    when the field's edge blocks both."""
    dx, dy = here[0] - int(fire[0]), here[1] - int(fire[1])
    along_x = "right" if dx >= 0 else "left"
    along_y = "up" if dy >= 0 else "down"
    order = [along_x, along_y] if abs(dx) >= abs(dy) else [along_y, along_x]
    return next((h for h in order if _inside(here, h, limit)), None)
