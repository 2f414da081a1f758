"""The embodied world of SD-AgentFoundry-3D: agents in a USD scene, each seeing a rendered
first-person image, moving by commands a deterministic interpreter reads from free text.

A tick is one decision. Phases: `talk` (only when `talk_radius_m` is set: agents near each
other exchange a message, delivered from pre-movement positions) and `move`.

An observation in `move` carries `facts`, the contract with the minds: `step`, `setting`,
`task` (the instruction), `target_label`, `target_colour` (rgb 0..1), `pose` (`x`, `y`, `yaw`,
`pitch`), `fov_deg`, `image` (the first-person PNG's bytes), `pixels` (the same image as an
(h, w, 3) uint8 array), `image_path` (where it was saved in the run, or None), `visible` (what
the id pass shows, largest first: `label`, `share`, `distance_m`, `bearing_deg` positive left),
`route` (the geodesic path from the agent's position to the goal, its corners only) and
`target_centre` (x, y, z), both
privileged, for the oracle, `eye_height_m`, `last` (what
became of the previous action: `outcome` in words, `pose`, `idle`), `messages` (received this
tick: `from`, `text`) and `done` (the agent has finished; it decides no more).

An action is `Action("reply", args={"text": ...})`, free text the world interprets, or
`Action("command", args=Command.to_dict())`; in `talk`, `Action("say", args={"text": ...})`.
A stay ends the agent's episode when it succeeds: within `success_m` of the target with the
target covering at least `visible_share` of the id pass. The last tick checks the rest.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simulacra.core import Action, Observation, Outcome, Phase, Resolution, Tick, WorldEvent
from simulacra.runlog.events import MessageSent
from simulacra.worlds.embodied.config import EmbodiedConfig, TaskConfig
from simulacra.worlds.embodied.interpret import Command, interpret
from simulacra.worlds.embodied.motion import move
from simulacra.worlds.embodied.render import (
    Renderer,
    View,
    bearing_at,
    encode_png,
    id_stats,
)
from simulacra.worlds.embodied.shipped import load_scene, setting_of, task_of
from simulacra.worlds.embodied.shortest import ShortestPath
from simulacra.worlds.embodied.walkable import Geodesic, Walkable

MOVE = Phase("move")
TALK = Phase("talk")
VIEWS = "views"
_CAPTION_SKIP = ("floor", "ceiling")


@dataclass
class Episode:
    """One agent's progress: its pose, counters and how it ended."""

    view: View
    start_m: float  # SPL's shortest path from the start (shortest.py)
    trail: list[tuple[float, float]] = field(default_factory=list)
    steps: int = 0
    path_m: float = 0.0
    collisions: int = 0
    bounds: int = 0
    clamps: int = 0
    unreadable: int = 0
    done: bool = False
    success: bool = False
    last: dict[str, Any] | None = None
    action: str | None = None


class EmbodiedWorld:
    """Agents, a scene, a task (see the module's docstring)."""

    def __init__(
        self, config: EmbodiedConfig, agents: Sequence[str], *, workdir: Path | None = None
    ) -> None:
        self.config = config
        self.agents = tuple(agents)
        self.workdir = workdir
        self.task: TaskConfig = task_of(config)
        self.setting = setting_of(config)
        self.scene = load_scene(config)
        self.walkable = Walkable(self.scene, cell=config.cell_m, radius=config.agent_radius_m)
        self.target = self.scene.index(self.task.target)
        self.target_prim = self.scene.prims[self.target]
        # The oracle's route (cell by cell); SPL's shortest path, which no walk beats.
        self.geodesic = Geodesic(self.walkable, self.target, config.success_m)
        self.shortest = ShortestPath(
            self.walkable, self.target, config.success_m, config.camera.eye_height_m
        )
        self.renderer = Renderer(
            self.scene, config.camera, self.agents, floor_z=self.walkable.floor_z
        )
        self.episodes: dict[str, Episode] = {}
        for agent, view in zip(self.agents, self._starts(), strict=True):
            self.episodes[agent] = Episode(view, self.shortest.metres(view.x, view.y))
            self.episodes[agent].trail.append((view.x, view.y))
        self.inbox: dict[str, list[dict[str, str]]] = {a: [] for a in self.agents}
        self.step = 0
        self._seen: dict[str, np.ndarray] = {}

    def _starts(self) -> list[View]:
        """The task's start for the first agent; the others beside it, `spacing_m` apart."""
        start = self.task.start
        views = []
        heading = math.radians(start.yaw)
        for k in range(len(self.agents)):
            side = (k + 1) // 2 * (1 if k % 2 else -1) * self.config.spacing_m
            x = start.x + side * math.sin(heading)
            y = start.y - side * math.cos(heading)
            x, y = self.walkable.nearest_free(x, y)
            views.append(View(round(x, 4), round(y, 4), start.yaw % 360.0, start.pitch))
        return views

    # --- the World protocol -------------------------------------------------------------

    def layout(self) -> dict[str, Any]:
        return {
            "kind": "embodied",
            "scene": self.config.scene,
            "task": self.config.task,
            "instruction": self.task.instruction,
            "setting": self.setting,
            "target": self.task.target,
            "target_label": self.target_prim.label,
            "success_m": self.config.success_m,
            "camera": self.config.camera.model_dump(),
            "starts": {a: asdict(e.view) for a, e in self.episodes.items()},
            "geodesic_m": {a: round(e.start_m, 3) for a, e in self.episodes.items()},
            "y_axis": "up",
            "places": self._places(),
        }

    def _places(self) -> list[dict[str, Any]]:
        """Footprints for a floor plan: the floor, then what stands on it (walls left out)."""
        w = self.walkable
        found = [{"name": "floor", "kind": "floor", "x": w.x0, "y": w.y0,
                  "w": w.nx * w.cell, "h": w.ny * w.cell}]  # fmt: skip
        owners = {int(i) for i in np.unique(w.owner) if i >= 0}
        for index in sorted(owners | {self.target}):
            prim = self.scene.prims[index]
            size = prim.high - prim.low
            if "wall" in prim.label or size[0] * size[1] > 10.0:
                continue
            kind = "target" if index == self.target else ""  # a second label would clutter
            found.append({"name": prim.label, "kind": kind, "x": round(float(prim.low[0]), 3),
                          "y": round(float(prim.low[1]), 3), "w": round(float(size[0]), 3),
                          "h": round(float(size[1]), 3)})  # fmt: skip
        return found

    def begin(self, tick: Tick) -> None:
        self.step = tick.step

    def phases(self, tick: Tick) -> Sequence[Phase]:
        return [TALK, MOVE] if self.config.talk_radius_m else [MOVE]

    def observe(self, agent: str, phase: str, tick: Tick) -> Observation:
        episode = self.episodes[agent]
        pose = asdict(episode.view)
        if phase == TALK.name:
            self.inbox[agent] = []
            facts = {"step": tick.step, "pose": pose, "nearby": self._near(agent),
                     "done": episode.done, "task": self.task.instruction,
                     "setting": self.setting}  # fmt: skip
            return Observation(agent, self.config.scene, facts=facts)
        if episode.done:
            return Observation(agent, self.config.scene, facts={"done": True, "step": tick.step})
        others = {a: e.view for a, e in self.episodes.items()}
        pixels = self.renderer.first_person(episode.view, agent, others)
        ids = self.renderer.id_pass(episode.view, agent, others)
        self._seen[agent] = ids
        image = encode_png(pixels)
        facts = {
            "step": tick.step,
            "setting": self.setting,
            "task": self.task.instruction,
            "target_label": self.target_prim.label,
            "target_colour": self.target_prim.colour,
            "pose": pose,
            "fov_deg": self.config.camera.fov_deg,
            "image": image,
            "pixels": pixels,
            "image_path": self._save(agent, tick.step, image),
            "visible": self._visible(agent, ids),
            "route": self.geodesic.waypoints(episode.view.x, episode.view.y),
            "target_centre": [round(float(v), 3) for v in self.target_prim.centre],
            "eye_height_m": self.config.camera.eye_height_m,
            "last": episode.last,
            "messages": list(self.inbox[agent]),
            "done": False,
        }
        return Observation(agent, self.config.scene, nearby_agents=tuple(self._near(agent)),
                           facts=facts)  # fmt: skip

    def resolve(self, phase: str, actions: Mapping[str, Action], tick: Tick) -> Resolution:
        if phase == TALK.name:
            return self._talk(actions)
        outcomes = {agent: self._apply(agent, action) for agent, action in actions.items()}
        if tick.last:
            for agent, episode in self.episodes.items():
                if not episode.done:
                    episode.done = True
                    episode.success = self._succeeds(agent, fresh=True)
        return Resolution(outcomes=outcomes)

    def frame(self) -> dict[str, Any]:
        agents = {}
        for agent, e in self.episodes.items():
            agents[agent] = {
                "place": self.config.scene,
                "x": e.view.x,
                "y": e.view.y,
                "yaw": e.view.yaw,
                "pitch": e.view.pitch,
                "action": e.action,
                "steps": e.steps,
                "path_m": round(e.path_m, 4),
                "geodesic_m": round(self.shortest.metres(e.view.x, e.view.y), 3),
                "collisions": e.collisions,
                "bounds": e.bounds,
                "clamps": e.clamps,
                "unreadable": e.unreadable,
                "done": e.done,
                "success": e.success,
            }
        return {"agents": agents, "task": self.config.task}

    def advance(self, tick: Tick) -> None:
        self._seen = {}

    def snapshot(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "episodes": {
                a: {**asdict(e), "view": asdict(e.view), "trail": [list(p) for p in e.trail]}
                for a, e in self.episodes.items()
            },
            "inbox": self.inbox,
        }

    def restore(self, snapshot: Mapping[str, Any]) -> None:
        self.step = int(snapshot["step"])
        for agent, raw in snapshot["episodes"].items():
            data = dict(raw)
            data["view"] = View(**data["view"])
            data["trail"] = [(float(x), float(y)) for x, y in data["trail"]]
            self.episodes[agent] = Episode(**data)
        self.inbox = {a: list(v) for a, v in snapshot["inbox"].items()}

    def close(self) -> None:
        self.renderer.close()

    # --- inside -------------------------------------------------------------------------

    def _apply(self, agent: str, action: Action) -> Outcome:
        episode = self.episodes[agent]
        before = episode.view
        if action.kind == "reply":
            raw = str(action.args.get("text", ""))
            command = interpret(raw)
        elif action.kind == "command":
            command = Command.from_dict(dict(action.args))
        else:
            return Outcome(False, f"unknown action {action.kind!r}; expected reply or command")
        moved = move(before, command, self.config.limits, self.walkable)
        episode.view = moved.view
        episode.steps += 1
        episode.path_m += moved.moved_m
        episode.clamps += len(moved.clamps)
        episode.collisions += moved.boundary == "collision"
        episode.bounds += moved.boundary == "bound"
        episode.unreadable += not command.readable
        if moved.moved_m:
            episode.trail.append((moved.view.x, moved.view.y))
        success = None
        if command.stay:
            success = self._succeeds(agent, fresh=False)
            if success:
                episode.done = episode.success = True
        outcome = moved.describe(command)
        if command.stay and success is False:
            outcome += " (not there yet: the task goes on)"
        episode.action = command.describe()
        after = asdict(moved.view)
        episode.last = {"outcome": outcome, "pose": after, "idle": command.idle}
        facts: dict[str, Any] = {
            "description": command.describe(),
            "command": command.to_dict(),
            "readable": command.readable,
            "notes": list(command.notes),
            "pose_before": asdict(before),
            "pose_after": after,
            "moved_m": moved.moved_m,
            "clamps": list(moved.clamps),
            "boundary": moved.boundary,
            "blocked_by": moved.blocked_by,
            "outcome": outcome,
        }
        if success is not None:
            facts["success"] = success
        reason = "" if command.readable else "no movement could be read from the reply"
        return Outcome(command.readable, reason, facts)

    def _succeeds(self, agent: str, *, fresh: bool) -> bool:
        """Near enough to the target, and seeing it in the id pass."""
        view = self.episodes[agent].view
        if self.target_prim.distance_xy(view.x, view.y) > self.config.success_m:
            return False
        ids = self._seen.get(agent)
        if fresh or ids is None:
            others = {a: e.view for a, e in self.episodes.items()}
            ids = self.renderer.id_pass(view, agent, others)
        share = float(np.count_nonzero(ids == self.target + 1)) / ids.size
        return share > 0 and share >= self.config.visible_share

    def _visible(self, agent: str, ids: np.ndarray) -> list[dict[str, Any]]:
        view = self.episodes[agent].view
        found = []
        prims = self.scene.prims
        height, width = ids.shape
        fov = self.config.camera.fov_deg
        for index, seen in sorted(id_stats(ids).items(), key=lambda kv: -kv[1].share):
            if index <= len(prims):
                prim = prims[index - 1]
                label, distance = prim.label, prim.distance_xy(view.x, view.y)
            else:
                other = self.agents[index - len(prims) - 1]
                label = f"agent {other}"
                o = self.episodes[other].view
                distance = math.hypot(o.x - view.x, o.y - view.y)
            if label in _CAPTION_SKIP:
                continue
            found.append({
                "label": label,
                "share": round(seen.share, 5),
                "distance_m": round(distance, 2),
                "bearing_deg": round(bearing_at(seen.column, width, height, fov), 1),
            })  # fmt: skip
        return found

    def _save(self, agent: str, step: int, image: bytes) -> str | None:
        if self.workdir is None or not self.config.save_views:
            return None
        relative = Path(VIEWS) / agent / f"step_{step:03d}.png"
        path = self.workdir / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(image)
        return relative.as_posix()

    def _near(self, agent: str) -> list[str]:
        radius = self.config.talk_radius_m
        if not radius:
            return []
        me = self.episodes[agent].view
        return [
            other
            for other, e in self.episodes.items()
            if other != agent and math.hypot(e.view.x - me.x, e.view.y - me.y) <= radius
        ]

    def _talk(self, actions: Mapping[str, Action]) -> Resolution:
        events = []
        outcomes = {}
        for agent, action in actions.items():
            text = str(action.args.get("text", "")).strip()
            if action.kind != "say" or not text:
                continue
            to = self._near(agent)
            for other in to:
                self.inbox[other].append({"from": agent, "text": text})
            events.append(WorldEvent(MessageSent(to=to, text=text, step=self.step), agent))
            outcomes[agent] = Outcome(True, facts={"to": to}, logged=False)
        return Resolution(outcomes=outcomes, events=events)
