"""Visitors: characters a person plays in the town from a live console. A visitor has a name, a
short description and a place; agents there see them as they see each other (nothing says a
person plays them), notice what they say, and the one spoken to answers.

A visitor comes and goes through `event` interventions whose `change` names them:
- `{"visitor": NAME, "place": PLACE, "description": TEXT}` joins (or, for one already here,
  moves) them to PLACE; the intervention's text is what the agents there notice;
- `{"visitor": NAME, "to": AGENT}` says the intervention's text to AGENT, who answers when
  at the same place.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

MAX_NAME = 40
MAX_DESCRIPTION = 200
VISITOR_FIELDS = frozenset({"visitor", "place", "description", "to"})


@dataclass(frozen=True)
class Visitor:
    id: str
    name: str
    description: str
    place: str

    def seen(self) -> str:
        """How agents at the visitor's place see them, as they see each other."""
        return f"{self.name} ({self.description}) is at {self.place}: visiting"


def visitor_id(name: str) -> str:
    """The visitor's id in the log: never an agent's, as no persona id holds a colon."""
    return "visitor:" + re.sub(r"[^a-z0-9]+", "-", name.strip().lower()).strip("-")


def change_problem(change: Mapping[str, Any], places: list[str], agents: list[str]) -> str:
    """Why a visitor's change is malformed, or "" (where the visitor stands is checked when it
    fires: the world then knows)."""
    extra = sorted(set(change) - VISITOR_FIELDS)
    if extra:
        return (
            f"unknown field {extra[0]!r}; a visitor's event takes visitor, place, description, to"
        )
    name = str(change.get("visitor") or "").strip()
    if not name or len(name) > MAX_NAME or not visitor_id(name).removeprefix("visitor:"):
        return f"visitor: a name of 1 to {MAX_NAME} characters, with a letter or digit"
    if ("place" in change) == ("to" in change):
        return "a visitor's event gives either place (join or move) or to (say something)"
    if "place" in change and change["place"] not in places:
        return f"place: {change['place']!r} is no place of this town; choose one of {places}"
    if "to" in change and change["to"] not in agents:
        return f"to: {change['to']!r} is no agent of this run; choose one of {agents}"
    if len(str(change.get("description", ""))) > MAX_DESCRIPTION:
        return f"description: at most {MAX_DESCRIPTION} characters"
    return ""


class Visitors(dict[str, Visitor]):
    """The visitors in town by id."""

    def come(self, change: Mapping[str, Any]) -> Visitor:
        """Join or move the visitor `change` names to its place."""
        name = str(change["visitor"]).strip()
        key = visitor_id(name)
        before = self.get(key)
        description = str(change.get("description") or (before.description if before else ""))
        self[key] = Visitor(key, name, description or "a visitor", str(change["place"]))
        return self[key]

    def at(self, place: str) -> list[Visitor]:
        return [v for _, v in sorted(self.items()) if v.place == place]

    def snapshot(self) -> list[list[str]]:
        return [[v.id, v.name, v.description, v.place] for _, v in sorted(self.items())]

    @classmethod
    def restored(cls, rows: list[list[str]]) -> Visitors:
        return cls({row[0]: Visitor(*row) for row in rows})
