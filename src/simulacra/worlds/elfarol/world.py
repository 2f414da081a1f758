"""El Farol (W. Brian Arthur, 1994): every week each agent goes to the bar or stays home, all
at once; the evening is enjoyable when at most `seats` of them go.

A tick is one week, in one phase, `choose`. An agent's observation carries `facts`, the
contract with the minds that read it: `week` (the tick's step), `agents` (how many decide),
`seats` (the most that may go before the bar is crowded) and `history` (attendance of the
last `memory_weeks` weeks, oldest first, the weeks before the run included).

An action is `Action("go")` or `Action("stay")`; anything else, or no action, keeps the agent
at home.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from simulacra.core import Action, Observation, Outcome, Phase, Resolution, Tick
from simulacra.worlds.elfarol.config import ElFarolConfig

BAR, HOME = "bar", "home"
GO, STAY = "go", "stay"
CHOOSE = Phase("choose")
_GAP = 2  # cells between the bar and the homes in the drawing


class ElFarolWorld:
    """Who went where each week, and the attendance history (see the module's docstring)."""

    def __init__(self, config: ElFarolConfig, agents: Sequence[str]) -> None:
        self.config = config
        self.agents = tuple(agents)
        self.seats = config.seats(len(self.agents))
        self.history = config.past_attendance(len(self.agents))
        self.week = 0
        self.where: dict[str, str] = {a: HOME for a in self.agents}
        self._side = max(1, math.ceil(math.sqrt(len(self.agents))))  # both places are square
        self._actions: dict[str, str] = {}

    @property
    def attendance(self) -> int | None:
        """This week's attendance once resolved; None before the run's first week."""
        return sum(place == BAR for place in self.where.values()) if self.week else None

    def crowded(self, attendance: int) -> bool:
        return attendance > self.seats

    # --- the World protocol -------------------------------------------------------------

    def layout(self) -> dict[str, Any]:
        side = self._side
        bar = {"name": BAR, "kind": BAR, "x": 0, "y": 0, "w": side, "h": side}
        home = {"name": HOME, "kind": HOME, "x": side + _GAP, "y": 0, "w": side, "h": side}
        return {
            "kind": "elfarol",
            "agents": len(self.agents),
            "seats": self.seats,
            "places": [{**bar, "capacity": self.seats}, home],
        }

    def begin(self, tick: Tick) -> None:
        self.week = tick.step

    def phases(self, tick: Tick) -> Sequence[Phase]:
        return [CHOOSE]

    def observe(self, agent: str, phase: str, tick: Tick) -> Observation:
        shown = self.history[-self.config.memory_weeks :]
        facts = {"week": tick.step, "agents": len(self.agents), "seats": self.seats}
        return Observation(agent, self.where[agent], facts={**facts, "history": shown})

    def resolve(self, phase: str, actions: Mapping[str, Action], tick: Tick) -> Resolution:
        self.where = {a: BAR if _goes(actions.get(a)) else HOME for a in self.agents}
        attendance = sum(place == BAR for place in self.where.values())
        self.history.append(attendance)
        crowded = self.crowded(attendance)
        outcomes = {}
        for agent, action in actions.items():
            self._actions[agent] = action.kind
            facts = {"place": self.where[agent], "attendance": attendance, "crowded": crowded}
            if action.kind in (GO, STAY):
                outcomes[agent] = Outcome(True, facts=facts)
            else:
                reason = f"unknown action {action.kind!r}; stayed home"
                outcomes[agent] = Outcome(False, reason, facts)
        return Resolution(outcomes=outcomes)

    def frame(self) -> dict[str, Any]:
        agents = {}
        for index, agent in enumerate(self.agents):
            place = self.where[agent]
            left = 0 if place == BAR else self._side + _GAP
            row, column = divmod(index, self._side)
            agents[agent] = {
                "place": place,
                "x": left + column + 0.5,
                "y": row + 0.5,
                "action": self._actions.get(agent),
            }
        attendance = self.attendance
        return {
            "agents": agents,
            "week": self.week,
            "attendance": attendance,
            "crowded": None if attendance is None else self.crowded(attendance),
        }

    def advance(self, tick: Tick) -> None:
        self._actions = {}

    def snapshot(self) -> dict[str, Any]:
        return {"week": self.week, "history": list(self.history), "where": dict(self.where)}

    def restore(self, snapshot: Mapping[str, Any]) -> None:
        self.week = int(snapshot["week"])
        self.history = [int(n) for n in snapshot["history"]]
        self.where = {a: str(snapshot["where"][a]) for a in self.agents}


def _goes(action: Action | None) -> bool:
    return action is not None and action.kind == GO
