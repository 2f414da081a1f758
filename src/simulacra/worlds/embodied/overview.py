"""The overview: the scene seen from above, semi-transparent, with every agent as an avatar,
its heading and its trajectory, and an inset re-rendered from one agent's own camera (the
image the model was shown, from the same pose and settings)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from simulacra.worlds.embodied.config import CameraConfig
from simulacra.worlds.embodied.render import (
    BACKGROUND,
    Renderer,
    View,
    avatar_colour,
    avatar_mesh,
    choose_gl_window,
    read_pixels,
)
from simulacra.worlds.embodied.scene import Scene

TRAIL_Z = 0.03


class Overview:
    def __init__(
        self,
        scene: Scene,
        camera: CameraConfig,
        agents: Sequence[str],
        *,
        target: int,
        floor_z: float,
        floor: tuple[float, float, float, float],  # x0, y0, x1, y1 of the walkable floor
        width: int = 640,
        height: int = 480,
    ) -> None:
        choose_gl_window()
        import pyvista as pv

        self.agents = tuple(agents)
        self.width, self.height = width, height
        self.floor_z = floor_z
        self.plotter = pv.Plotter(off_screen=True, window_size=(width, height), lighting="none")
        self.plotter.ren_win.SetMultiSamples(0)
        self.plotter.add_light(pv.Light(light_type="headlight", intensity=0.9))
        self.plotter.set_background(BACKGROUND)
        x0, y0, x1, y1 = floor
        eye = floor_z + camera.eye_height_m
        for index, prim in enumerate(scene.prims):
            low, high = prim.low, prim.high
            outside = high[0] < x0 - 1 or low[0] > x1 + 1 or high[1] < y0 - 1 or low[1] > y1 + 1
            if outside or low[2] > eye:  # the ceiling and what hangs from it hide the view
                continue
            faces = np.hstack([np.full((len(prim.triangles), 1), 3), prim.triangles]).ravel()
            mesh = pv.PolyData(prim.points, faces)
            solid = index == target or high[2] - low[2] < 0.1
            self.plotter.add_mesh(mesh, color=prim.colour, opacity=1.0 if solid else 0.45)
        self.body = avatar_mesh()
        self.inset = Renderer(scene, camera, agents, floor_z=floor_z)
        span = max(x1 - x0, y1 - y0)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        cam = self.plotter.renderer.GetActiveCamera()
        cam.SetFocalPoint(cx, cy, floor_z)
        cam.SetPosition(cx, cy - 0.45 * span, floor_z + 1.15 * span)
        cam.SetViewUp(0.0, 1.0, 0.0)
        cam.SetViewAngle(50.0)
        self.plotter.renderer.ResetCamera()
        cam.Zoom(1.25)

    def render(
        self,
        views: Mapping[str, View],
        trails: Mapping[str, Sequence[tuple[float, float]]],
        inset: str | None = None,
    ) -> np.ndarray:
        """RGB (height, width, 3): the agents at `views` with their `trails`, and the inset
        of agent `inset`'s first-person view in the lower right."""
        import pyvista as pv

        for k, agent in enumerate(self.agents):
            colour = avatar_colour(k)
            view = views.get(agent)
            trail = list(trails.get(agent, ()))
            if view is None:
                for name in (f"body-{agent}", f"arrow-{agent}", f"trail-{agent}"):
                    self.plotter.remove_actor(name)
                continue
            body = self.body.rotate_z(view.yaw, inplace=False).translate(
                (view.x, view.y, self.floor_z), inplace=False
            )
            self.plotter.add_mesh(body, color=colour, name=f"body-{agent}")
            heading = math.radians(view.yaw)
            arrow = pv.Arrow(
                start=(view.x, view.y, self.floor_z + 1.9),
                direction=(math.cos(heading), math.sin(heading), 0.0),
                scale=0.9,
            )
            self.plotter.add_mesh(arrow, color=colour, name=f"arrow-{agent}")
            if len(trail) >= 2:
                points = np.array([(x, y, self.floor_z + TRAIL_Z) for x, y in trail])
                line = pv.lines_from_points(points)
                self.plotter.add_mesh(line, color=colour, line_width=4, name=f"trail-{agent}")
            else:
                self.plotter.remove_actor(f"trail-{agent}")
        self.plotter.renderer.ResetCameraClippingRange()
        image = read_pixels(self.plotter, self.width, self.height)
        if inset is not None and inset in views:
            image = _paste(image, self.inset.first_person(views[inset], inset, views))
        return image

    def close(self) -> None:
        self.plotter.close()
        self.inset.close()


def _paste(image: np.ndarray, inset: np.ndarray) -> np.ndarray:
    from PIL import Image

    height, width = image.shape[:2]
    w = width // 3
    h = max(1, round(inset.shape[0] * w / inset.shape[1]))
    small = np.asarray(Image.fromarray(inset).resize((w, h), Image.Resampling.BILINEAR))
    out = image.copy()
    top, left = height - h - 8, width - w - 8
    out[top - 2 : top + h + 2, left - 2 : left + w + 2] = 255
    out[top : top + h, left : left + w] = small
    return out
