"""A rule-based stand-in for the model, for tests and the framework-overhead benchmark.

It reads only what the prompts show an agent (the source's prompts, with or without our extras):
it warns about fires it perceives, relays warnings it receives, steps away from the nearest
fire and otherwise wanders by the request's seed. It is a fixture with visible behaviour, not a
model of people.
"""

from __future__ import annotations

import math
import re

from simulacra.llm import Request, ScriptedModel
from simulacra.mind.grid.prompts import MessageChoice, MoveChoice

_FIRE = re.compile(r'Fire "(?P<name>[^"]+)":\n  Position: \((?P<x>-?\d+), (?P<y>-?\d+)\)')
_POSITION = re.compile(r"^Position: \((?P<x>-?\d+), (?P<y>-?\d+)\)", re.MULTILINE)
_RECEIVED = "=== MESSAGES FROM OTHERS ==="
_WARNING = re.compile(r"(?:Warning|Relayed): .*$", re.MULTILINE)
_WANDER = ("stay", "up", "down", "left", "right")


def _user(request: Request) -> str:
    return request.messages[-1].text


def _message(request: Request) -> MessageChoice:
    user = _user(request)
    fires = list(_FIRE.finditer(user))
    if fires:
        names = ", ".join(f"{m['name']} at ({m['x']}, {m['y']})" for m in fires)
        return MessageChoice(message=f"Warning: {names}.", reasoning="I perceive a fire.")
    heard = _WARNING.findall(user.split(_RECEIVED, 1)[-1].split("=== YOUR TASK ===", 1)[0])
    if heard:
        relayed = heard[-1].split(": ", 1)[1]
        return MessageChoice(message=f"Relayed: {relayed}", reasoning="Passing on a warning.")
    return MessageChoice(message="", reasoning="Nothing to report.")


def _move(request: Request) -> MoveChoice:
    user = _user(request)
    here = _POSITION.search(user)
    fires = list(_FIRE.finditer(user))
    if here and fires:
        x, y = int(here["x"]), int(here["y"])
        nearest = min(fires, key=lambda m: math.hypot(x - int(m["x"]), y - int(m["y"])))
        dx, dy = x - int(nearest["x"]), y - int(nearest["y"])
        if abs(dx) >= abs(dy):
            direction = "right" if dx >= 0 else "left"
        else:
            direction = "up" if dy > 0 else "down"
        return MoveChoice(
            action="move",
            direction=direction,
            memory=f"{nearest['name']} burns at ({nearest['x']}, {nearest['y']}).",
            reasoning="Moving away from the nearest fire.",
        )
    choice = _WANDER[request.seed % len(_WANDER)]
    if choice == "stay":
        return MoveChoice(action="stay", reasoning="Wandering: staying.")
    return MoveChoice(action="move", direction=choice, reasoning="Wandering.")


def script_grid_agents(model: ScriptedModel) -> ScriptedModel:
    """Register the rule-based answers for "grid.message" and "grid.action" on `model`."""
    model.on("grid.message", _message)
    model.on("grid.action", _move)
    return model
