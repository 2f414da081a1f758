"""Embodied baselines that call no model; each hands the world a command directly.

- `seeker`: looks for the target's colour in the RGB image, turns towards it and walks to
  it; it says stay when the colour fills enough of the view or it can go no further.
- `oracle`: follows the geodesic path the world shows it (privileged), then faces the
  target and says stay. The ceiling for SPL.
- `random`: a seeded random walk of turns, steps and the odd stay.

A command is the `Command` fields as plain args: `forward_m`, `right_m`, `turn_deg`
(positive left), `pitch_deg` (positive up), `stay`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import numpy as np

from simulacra.core import Action, Observation
from simulacra.mind.decision import rule_decision
from simulacra.runlog import EventSink


def command(
    forward: float = 0.0, right: float = 0.0, turn: float = 0.0, pitch: float = 0.0,
    stay: bool = False,
) -> dict[str, Any]:  # fmt: skip
    return {"forward_m": round(forward, 4), "right_m": round(right, 4),
            "turn_deg": round(turn, 2), "pitch_deg": round(pitch, 2), "stay": stay}  # fmt: skip


def words(args: Mapping[str, Any]) -> str:
    if args["stay"]:
        return "stay"
    parts = []
    for key, positive, negative, unit in (
        ("turn_deg", "turn left", "turn right", "deg"),
        ("forward_m", "move forward", "move backward", "m"),
        ("right_m", "move right", "move left", "m"),
        ("pitch_deg", "look up", "look down", "deg"),
    ):
        value = float(args[key])
        if value:
            size = f"{abs(value):.2f}" if unit == "m" else f"{abs(value):g}"
            parts.append(f"{positive if value > 0 else negative} {size} {unit}")
    return ", then ".join(parts) or "no movement"


def wrap(angle: float) -> float:
    """An angle in degrees within (-180, 180]."""
    wrapped = (angle + 180.0) % 360.0 - 180.0
    return 180.0 if wrapped == -180.0 else wrapped


class _Baseline:
    mind = "baseline"

    def __init__(self, agent: str, *, seed: int, sink: EventSink | None = None) -> None:
        self.id = agent
        self.seed = seed
        self.sink = sink

    async def decide(self, phase: str, observation: Observation, now: datetime) -> Action | None:
        facts = observation.facts
        if phase != "move" or facts.get("done"):
            return None
        args, why = self.choose(facts)
        said = words(args)
        if self.sink is not None:
            decided = rule_decision(
                f"embodied.{self.mind}",
                said,
                args,
                reason=why,
                step=int(facts["step"]),
                extra={
                    "image": facts.get("image_path"),
                    "mind": self.mind,
                    "latency_s": 0.0,
                    "nudged": False,
                },
            )
            self.sink.emit(decided, t=now, agent=self.id)
        return Action("command", said, args=args)

    def choose(self, facts: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
        raise NotImplementedError

    def state(self) -> dict[str, Any]:
        return {}

    def restore(self, state: Mapping[str, Any]) -> None:
        pass


class Seeker(_Baseline):
    """Colour-seeking (see the module's docstring)."""

    mind = "seeker"
    STOP_SHARE = 0.12
    TOLERANCE = 0.06  # of chromaticity, r / (r + g + b) and g / (r + g + b)
    SCAN_DEG = 45.0

    def __init__(self, agent: str, *, seed: int, sink: EventSink | None = None) -> None:
        super().__init__(agent, seed=seed, sink=sink)
        self.scans = 0

    def choose(self, facts: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
        pixels = np.asarray(facts["pixels"])
        mask = colour_mask(pixels, facts["target_colour"], self.TOLERANCE)
        share = float(mask.mean())
        last = facts.get("last") or {}
        stuck = "blocked" in str(last.get("outcome", "")) or "edge" in str(last.get("outcome", ""))
        if share == 0.0:
            self.scans += 1
            if self.scans % 8 == 0:  # a full turn without it: look elsewhere
                return command(forward=1.5), "the target's colour is nowhere in sight; exploring"
            return command(turn=self.SCAN_DEG), "the target's colour is not in view; scanning"
        self.scans = 0
        height, width = mask.shape
        rows, columns = np.nonzero(mask)
        fov = math.radians(float(facts["fov_deg"]))
        half_w = math.tan(fov / 2) * width / height
        x = (columns.mean() + 0.5 - width / 2) / (width / 2)
        y = (rows.mean() + 0.5 - height / 2) / (height / 2)
        bearing = -math.degrees(math.atan(x * half_w))
        tilt = -math.degrees(math.atan(y * math.tan(fov / 2)))
        pitch = tilt if abs(tilt) > 12.0 else 0.0
        centred = abs(bearing) < 10.0
        if share >= self.STOP_SHARE or (stuck and centred):
            return command(stay=True), f"the target fills {share:.1%} of the view; arrived"
        step = 1.5 if share < 0.01 else 1.0 if share < 0.04 else 0.5
        turn = bearing if abs(bearing) > 3.0 else 0.0
        side = "left" if bearing > 0 else "right"
        why = f"the target's colour is {abs(bearing):.0f} deg to the {side}"
        if abs(bearing) < 1.0:
            why = "the target's colour is straight ahead"
        return command(forward=step, turn=turn, pitch=pitch), why

    def state(self) -> dict[str, Any]:
        return {"scans": self.scans}

    def restore(self, state: Mapping[str, Any]) -> None:
        self.scans = int(state.get("scans", 0))


def colour_mask(pixels: np.ndarray, colour: Sequence[float], tolerance: float) -> np.ndarray:
    """Pixels of the target's hue: close in chromaticity and saturated (shading scales a
    colour's channels together, so chromaticity survives it)."""
    rgb = pixels.astype(np.float32)
    total = rgb.sum(axis=2) + 1e-6
    r, g = rgb[..., 0] / total, rgb[..., 1] / total
    c = np.asarray(colour, dtype=np.float32)
    cr, cg = c[0] / c.sum(), c[1] / c.sum()
    saturation = (rgb.max(axis=2) - rgb.min(axis=2)) / (rgb.max(axis=2) + 1e-6)
    close = np.hypot(r - cr, g - cg) < tolerance
    return np.asarray(close & (saturation > 0.45) & (rgb.max(axis=2) > 30))


class Oracle(_Baseline):
    """Follows the geodesic route (see the module's docstring)."""

    mind = "oracle"
    MOVE_M = 2.0
    FACING_DEG = 5.0

    def choose(self, facts: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
        pose = facts["pose"]
        route = [tuple(p) for p in facts["route"]]
        here = (float(pose["x"]), float(pose["y"]))
        if len(route) <= 1:
            cx, cy, cz = facts["target_centre"]
            turn = wrap(math.degrees(math.atan2(cy - here[1], cx - here[0])) - pose["yaw"])
            flat = math.hypot(cx - here[0], cy - here[1])
            pitch = math.degrees(math.atan2(cz - float(facts["eye_height_m"]), max(flat, 0.1)))
            pitch = max(-45.0, min(45.0, pitch)) - float(pose["pitch"])
            if abs(turn) <= self.FACING_DEG and abs(pitch) <= self.FACING_DEG:
                return command(stay=True), "at the goal and facing the target"
            return command(turn=turn, pitch=pitch), "at the goal; facing the target"
        goal = (float(route[1][0]), float(route[1][1]))
        heading = math.degrees(math.atan2(goal[1] - here[1], goal[0] - here[0]))
        turn = wrap(heading - float(pose["yaw"]))
        distance = math.hypot(goal[0] - here[0], goal[1] - here[1])
        return command(forward=min(distance, self.MOVE_M), turn=turn), "following the shortest path"


class RandomWalker(_Baseline):
    """A seeded random walk (see the module's docstring)."""

    mind = "random"

    def __init__(self, agent: str, *, seed: int, sink: EventSink | None = None) -> None:
        super().__init__(agent, seed=seed, sink=sink)
        self.rng = random.Random(seed)

    def choose(self, facts: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
        roll = self.rng.random()
        if roll < 0.05:
            return command(stay=True), "a random stay"
        if roll < 0.45:
            return command(
                turn=self.rng.choice((-1, 1)) * self.rng.uniform(15, 120)
            ), "a random turn"
        if roll < 0.5:
            return command(pitch=self.rng.uniform(-20, 20)), "a random glance"
        return command(forward=self.rng.uniform(0.3, 2.0)), "a random step"

    def state(self) -> dict[str, Any]:
        version, internal, gauss = self.rng.getstate()
        return {"rng": [version, list(internal), gauss]}

    def restore(self, state: Mapping[str, Any]) -> None:
        if "rng" in state:
            version, internal, gauss = state["rng"]
            self.rng.setstate((version, tuple(internal), gauss))
