"""One command applied to one pose: the world's limits clamp it, the walkable floor stops
it, and every clamp and boundary effect is recorded.

Order: the body turns, then translates in its new heading, then the gaze tilts; a command
whose `order` puts the translation first (a reply that said "move forward 1 m, then turn right
90 degrees") translates in the old heading and turns after.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from simulacra.worlds.embodied.config import LimitsConfig
from simulacra.worlds.embodied.interpret import Command
from simulacra.worlds.embodied.render import View
from simulacra.worlds.embodied.walkable import Walkable


@dataclass(frozen=True)
class Moved:
    """Where a command took the agent, and what held it back."""

    view: View
    turned_deg: float = 0.0
    moved_m: float = 0.0
    pitched_deg: float = 0.0
    clamps: tuple[str, ...] = ()
    boundary: str | None = None  # "collision" or "bound"
    blocked_by: str | None = None
    notes: tuple[str, ...] = field(default=())

    def describe(self, command: Command) -> str:
        """The outcome in words, as the next prompt's history shows it."""
        if not command.readable:
            return "no movement could be read, so you did not move"
        if command.stay:
            return "you stayed where you were"
        done = []
        if self.turned_deg:
            side = "left" if self.turned_deg > 0 else "right"
            done.append(f"turned {side} {abs(self.turned_deg):g} deg")
        if self.moved_m:
            done.insert(0 if not command.turns_first else len(done), f"moved {self.moved_m:.2f} m")
        if self.pitched_deg:
            way = "up" if self.pitched_deg > 0 else "down"
            done.append(f"looked {way} {abs(self.pitched_deg):g} deg")
        text = ", ".join(done) or "nothing changed"
        if self.boundary == "collision":
            text += f"; blocked by {_a(self.blocked_by or 'an obstacle')}"
        elif self.boundary == "bound":
            text += "; stopped at the edge of the floor"
        if self.clamps:
            text += "; limited: " + "; ".join(self.clamps)
        return text


def move(view: View, command: Command, limits: LimitsConfig, walkable: Walkable) -> Moved:
    if command.stay or not command.readable:
        return Moved(view)
    clamps: list[str] = []
    turn = command.turn_deg
    if abs(turn) > limits.turn_deg:
        turn = math.copysign(limits.turn_deg, turn)
        clamps.append(f"turn {command.turn_deg:g} deg to {turn:g} (limits.turn_deg)")
    yaw = (view.yaw + turn) % 360.0
    heading = math.radians(yaw if command.turns_first else view.yaw)
    forward, right = command.forward_m, command.right_m
    length = math.hypot(forward, right)
    if length > limits.move_m:
        scale = limits.move_m / length
        forward, right = forward * scale, right * scale
        clamps.append(f"move {length:.2f} m to {limits.move_m:g} m (limits.move_m)")
    dx = forward * math.cos(heading) + right * math.sin(heading)
    dy = forward * math.sin(heading) - right * math.cos(heading)
    step = walkable.walk(view.x, view.y, dx, dy)
    pitch_step = command.pitch_deg
    if abs(pitch_step) > limits.pitch_step_deg:
        pitch_step = math.copysign(limits.pitch_step_deg, pitch_step)
        clamps.append(
            f"gaze change {command.pitch_deg:g} deg to {pitch_step:g} (limits.pitch_step_deg)"
        )
    pitch = view.pitch + pitch_step
    if abs(pitch) > limits.pitch_deg:
        bounded = math.copysign(limits.pitch_deg, pitch)
        clamps.append(f"gaze {pitch:+g} deg to {bounded:+g} (limits.pitch_deg)")
        pitch = bounded
    after = View(round(step.x, 4), round(step.y, 4), round(yaw, 4), round(pitch, 4))
    return Moved(
        after,
        turned_deg=turn,
        moved_m=round(step.moved_m, 4),
        pitched_deg=round(pitch - view.pitch, 4),
        clamps=tuple(clamps),
        boundary=step.blocked,
        blocked_by=step.by,
    )


def _a(label: str) -> str:
    return label if label.startswith(("a ", "an ", "the ")) else f"the {label}"
