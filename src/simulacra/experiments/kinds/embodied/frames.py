"""Frames of an embodied run, re-rendered from its log (the source's replay path): for every
`world` event an overview with each agent, its heading, its trajectory so far and the inset
of the first agent's view, and each agent's first-person view from its logged pose.

The scene comes from the run's config.yaml, the poses from events.jsonl; nothing is taken
from a live window.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from simulacra.runlog import Event
from simulacra.worlds.embodied import EmbodiedConfig

FIRST_PERSON = "first_person"


@dataclass(frozen=True)
class Pose:
    x: float
    y: float
    yaw: float
    pitch: float


def poses(events: Sequence[Event]) -> list[dict[str, Pose]]:
    """Every agent's pose in each `world` event, in order."""
    found = []
    for event in events:
        if event.kind != "world":
            continue
        agents = event.data.get("agents") or {}
        found.append({
            str(a): Pose(float(s["x"]), float(s["y"]), float(s.get("yaw", 0.0)),
                         float(s.get("pitch", 0.0)))
            for a, s in agents.items()
            if isinstance(s, dict) and s.get("x") is not None
        })  # fmt: skip
    return found


class Stage:
    """The run's scene, ready to render the frames of its log."""

    def __init__(self, root: Path, events: Sequence[Event], *, width: int, height: int) -> None:
        from simulacra.worlds.embodied.overview import Overview
        from simulacra.worlds.embodied.shipped import load_scene, task_of
        from simulacra.worlds.embodied.walkable import Walkable

        config = _config(root)
        scene = load_scene(config)
        walkable = Walkable(scene, cell=config.cell_m, radius=config.agent_radius_m)
        start = next((e for e in events if e.kind == "run"), None)
        agents = list((start.data.get("agents") or {}) if start else {})
        self.poses = poses(events)
        self.agents = agents or sorted({a for frame in self.poses for a in frame})
        floor = (
            walkable.x0,
            walkable.y0,
            walkable.x0 + walkable.nx * walkable.cell,
            walkable.y0 + walkable.ny * walkable.cell,
        )
        self.overview = Overview(
            scene,
            config.camera,
            self.agents,
            target=scene.index(task_of(config).target),
            floor_z=walkable.floor_z,
            floor=floor,
            width=width,
            height=height,
        )

    def overviews(self) -> list[Any]:
        """An overview image (RGB array) per frame, trails growing frame by frame."""
        from simulacra.worlds.embodied.render import View

        trails: dict[str, list[tuple[float, float]]] = {a: [] for a in self.agents}
        images = []
        for frame in self.poses:
            views = {a: View(p.x, p.y, p.yaw, p.pitch) for a, p in frame.items()}
            for agent, view in views.items():
                trail = trails.setdefault(agent, [])
                if not trail or trail[-1] != (view.x, view.y):
                    trail.append((view.x, view.y))
            inset = self.agents[0] if self.agents else None
            images.append(self.overview.render(views, trails, inset))
        return images

    def first_person(self) -> dict[str, list[Any]]:
        """Each agent's first-person image (RGB array) per frame, from its logged pose."""
        from simulacra.worlds.embodied.render import View

        found: dict[str, list[Any]] = {a: [] for a in self.agents}
        renderer = self.overview.inset
        for frame in self.poses:
            views = {a: View(p.x, p.y, p.yaw, p.pitch) for a, p in frame.items()}
            for agent, view in views.items():
                found[agent].append(renderer.first_person(view, agent, views))
        return found

    def close(self) -> None:
        self.overview.close()


def render_embodied_frames(root: Path, events: Sequence[Event], out: Path) -> list[Path]:
    """out/step_NNN.png (overview with inset) per frame, and each agent's first-person view
    as out/first_person/<agent>/step_NNN.png; returns the overview frames' paths."""
    from simulacra.worlds.embodied.render import encode_png

    stage = Stage(root, events, width=800, height=600)
    try:
        overviews = stage.overviews()
        digits = max(3, len(str(len(overviews) - 1)))
        written = []
        for step, image in enumerate(overviews):
            path = out / f"step_{step:0{digits}d}.png"
            path.write_bytes(encode_png(image))
            written.append(path)
        for agent, images in stage.first_person().items():
            folder = out / FIRST_PERSON / agent
            folder.mkdir(parents=True, exist_ok=True)
            for stale in folder.glob("step_*.png"):
                stale.unlink()
            for step, image in enumerate(images):
                (folder / f"step_{step:0{digits}d}.png").write_bytes(encode_png(image))
        return written
    finally:
        stage.close()


def overview_pngs(
    root: Path, events: Sequence[Event], *, width: int = 480, height: int = 360
) -> list[bytes]:
    """An overview PNG per frame, for the viewer."""
    from simulacra.worlds.embodied.render import encode_png

    stage = Stage(root, events, width=width, height=height)
    try:
        return [encode_png(image) for image in stage.overviews()]
    finally:
        stage.close()


def _config(root: Path) -> EmbodiedConfig:
    path = root / "config.yaml"
    if not path.is_file():
        raise FileNotFoundError(f"{root}: no config.yaml, so the scene of this run is unknown")
    raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    world = raw.get("world") if isinstance(raw, dict) else None
    if not isinstance(world, dict) or world.get("kind") != "embodied":
        raise ValueError(f"{path}: not an embodied run's configuration")
    return EmbodiedConfig.model_validate(world)
