"""What an agent sees, rendered offscreen by pyvista/VTK: the first-person RGB image, the
object-id pass (each prim and each avatar its own flat colour) and an overview of the scene.

VTK renders through EGL, or OSMesa where EGL is missing, with no window and no display. The
same pose renders the same bytes: no multisampling, and the camera's clipping range is reset
before every render.
"""

from __future__ import annotations

import ctypes.util
import io
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from simulacra.worlds.embodied.config import CameraConfig
from simulacra.worlds.embodied.scene import Scene

BACKGROUND = (0.1, 0.11, 0.13)
AVATAR_COLOURS = [(0.82, 0.2, 0.22), (0.1, 0.5, 0.6), (0.9, 0.62, 0.2), (0.35, 0.6, 0.4),
                  (0.55, 0.4, 0.55), (0.2, 0.35, 0.6)]  # fmt: skip
AVATAR_HEIGHT = 1.7
AVATAR_RADIUS = 0.22


def choose_gl_window() -> str | None:
    """Pick VTK's offscreen window before VTK loads: EGL, else OSMesa; left alone when a
    display is attached or the environment already names one."""
    if os.environ.get("VTK_DEFAULT_OPENGL_WINDOW") or os.environ.get("DISPLAY"):
        return os.environ.get("VTK_DEFAULT_OPENGL_WINDOW")
    for library, window in (("EGL", "vtkEGLRenderWindow"), ("OSMesa", "vtkOSOpenGLRenderWindow")):
        if ctypes.util.find_library(library):
            os.environ["VTK_DEFAULT_OPENGL_WINDOW"] = window
            return window
    return None


@dataclass(frozen=True)
class View:
    """An agent's pose as the camera takes it: feet at (x, y), yaw and pitch in degrees."""

    x: float
    y: float
    yaw: float
    pitch: float


def id_colour(index: int) -> tuple[float, float, float]:
    """The flat colour of id `index` (1-based; 0 is nothing) in the id pass."""
    return ((index >> 16) & 255) / 255, ((index >> 8) & 255) / 255, (index & 255) / 255


def encode_png(pixels: np.ndarray) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="PNG", compress_level=3)
    return buffer.getvalue()


def avatar_colour(index: int) -> tuple[float, float, float]:
    return AVATAR_COLOURS[index % len(AVATAR_COLOURS)]


class Renderer:
    """First-person RGB and id passes of one scene for any number of agents, each drawn as
    an avatar in the others' views. Ids 1..len(prims) are the prims in scene order; the
    avatars follow in `agents` order."""

    def __init__(
        self,
        scene: Scene,
        camera: CameraConfig,
        agents: Sequence[str] = (),
        *,
        floor_z: float = 0.0,
        width: int | None = None,
        height: int | None = None,
    ) -> None:
        choose_gl_window()
        import pyvista as pv

        self.scene, self.camera, self.floor_z = scene, camera, floor_z
        self.width = width or camera.width
        self.height = height or camera.height
        self.agents = tuple(agents)
        self.plotter = pv.Plotter(
            off_screen=True, window_size=(self.width, self.height), lighting="none"
        )
        self.plotter.ren_win.SetMultiSamples(0)
        # Two lights, a headlight and one from above: a light kit costs three times as much.
        self.plotter.add_light(pv.Light(light_type="headlight", intensity=0.6))
        overhead = pv.Light(position=(0.3, 0.2, 1.0), focal_point=(0.0, 0.0, 0.0), intensity=0.6)
        overhead.positional = False
        self.plotter.add_light(overhead)
        self.renderer = self.plotter.renderer
        self._rgb: list[Any] = []
        self._ids: list[Any] = []
        for index, prim in enumerate(scene.prims, start=1):
            faces = np.hstack([np.full((len(prim.triangles), 1), 3), prim.triangles]).ravel()
            mesh = pv.PolyData(prim.points, faces)
            self._rgb.append(self._actor(mesh, prim.colour, lit=True))
            self._ids.append(self._actor(mesh, id_colour(index), lit=False))
        self.avatars: dict[str, tuple[Any, Any]] = {}
        body = avatar_mesh()
        for k, agent in enumerate(self.agents):
            rgb = self._actor(body, avatar_colour(k), lit=True)
            ids = self._actor(body, id_colour(len(scene.prims) + 1 + k), lit=False)
            self.avatars[agent] = (rgb, ids)
        self.cam = self.renderer.GetActiveCamera()
        self.cam.SetViewAngle(camera.fov_deg)

    def _actor(self, mesh: Any, colour: tuple[float, float, float], *, lit: bool) -> Any:
        actor = self.plotter.add_mesh(mesh, color=colour, lighting=lit, show_edges=False)
        prop = actor.GetProperty()
        if lit:
            prop.SetAmbient(0.35)
            prop.SetDiffuse(0.7)
            prop.SetSpecular(0.0)
        else:
            prop.SetAmbient(1.0)
            prop.SetDiffuse(0.0)
            prop.SetSpecular(0.0)
        actor.SetVisibility(False)
        return actor

    # --- passes -------------------------------------------------------------------------

    def first_person(
        self, view: View, agent: str | None = None, others: Mapping[str, View] | None = None
    ) -> np.ndarray:
        """The RGB image (height, width, 3) uint8 of `agent` at `view`."""
        self._show(ids=False, agent=agent, others=others or {})
        self.renderer.SetBackground(*BACKGROUND)
        return self._render(view)

    def id_pass(
        self, view: View, agent: str | None = None, others: Mapping[str, View] | None = None
    ) -> np.ndarray:
        """Each pixel's id (height, width) int32: 0 nothing, 1..n prims, then avatars."""
        self._show(ids=True, agent=agent, others=others or {})
        self.renderer.SetBackground(0.0, 0.0, 0.0)
        pixels = self._render(view).astype(np.int32)
        return (pixels[..., 0] << 16) | (pixels[..., 1] << 8) | pixels[..., 2]

    def _show(self, *, ids: bool, agent: str | None, others: Mapping[str, View]) -> None:
        for rgb, idp in zip(self._rgb, self._ids, strict=True):
            rgb.SetVisibility(not ids)
            idp.SetVisibility(ids)
        for name, (rgb, idp) in self.avatars.items():
            where = others.get(name)
            shown = name != agent and where is not None
            for actor, on in ((rgb, shown and not ids), (idp, shown and ids)):
                actor.SetVisibility(on)
                if on and where is not None:
                    actor.SetPosition(where.x, where.y, self.floor_z)
                    actor.SetOrientation(0.0, 0.0, where.yaw)

    def _render(self, view: View) -> np.ndarray:
        eye = self.floor_z + self.camera.eye_height_m
        yaw, pitch = math.radians(view.yaw), math.radians(view.pitch)
        direction = (
            math.cos(pitch) * math.cos(yaw),
            math.cos(pitch) * math.sin(yaw),
            math.sin(pitch),
        )
        self.cam.SetPosition(view.x, view.y, eye)
        self.cam.SetFocalPoint(view.x + direction[0], view.y + direction[1], eye + direction[2])
        self.cam.SetViewUp(0.0, 0.0, 1.0)
        self.renderer.ResetCameraClippingRange()
        return read_pixels(self.plotter, self.width, self.height)

    def close(self) -> None:
        self.plotter.close()


def read_pixels(plotter: Any, width: int, height: int) -> np.ndarray:
    from vtkmodules.util.numpy_support import vtk_to_numpy
    from vtkmodules.vtkCommonCore import vtkUnsignedCharArray

    window = plotter.ren_win
    window.Render()
    data = vtkUnsignedCharArray()
    window.GetPixelData(0, 0, width - 1, height - 1, 0, data, 0)
    pixels = vtk_to_numpy(data).reshape(height, width, 3)
    return np.ascontiguousarray(pixels[::-1])


def avatar_mesh() -> Any:
    """A simple figure, feet at the origin, facing +x: a body, a head and a nose."""
    import pyvista as pv

    body = pv.Cylinder(
        center=(0, 0, 0.7), direction=(0, 0, 1), radius=AVATAR_RADIUS, height=1.4, resolution=16
    )
    head = pv.Sphere(radius=0.14, center=(0, 0, 1.55), theta_resolution=12, phi_resolution=12)
    nose = pv.Cone(center=(0.2, 0, 1.55), direction=(1, 0, 0), height=0.12, radius=0.05)
    return body.triangulate() + head.triangulate() + nose.triangulate()


@dataclass(frozen=True)
class Seen:
    """One id in the id pass: the share of the view it covers and the mean column of its
    pixels (0 is the left edge)."""

    share: float
    column: float


def id_stats(ids: np.ndarray) -> dict[int, Seen]:
    """Every id the view shows (0, nothing, left out), in one pass over the pixels."""
    flat = ids.ravel()
    counts = np.bincount(flat)
    columns = np.bincount(flat, weights=_columns(*ids.shape))
    total = flat.size
    return {
        int(i): Seen(float(counts[i]) / total, float(columns[i]) / float(counts[i]))
        for i in np.nonzero(counts)[0]
        if i
    }


@cache
def _columns(height: int, width: int) -> np.ndarray:
    return np.tile(np.arange(width, dtype=np.float64), height)


def bearing_at(column: float, width: int, height: int, fov_deg: float) -> float:
    """The horizontal angle (degrees, positive left) of a column of the image."""
    half_h = math.tan(math.radians(fov_deg) / 2) * width / height
    offset = (column + 0.5 - width / 2) / (width / 2)
    return -math.degrees(math.atan(offset * half_h))


def visible_shares(ids: np.ndarray) -> dict[int, float]:
    """The share of the view each id covers (0, nothing, left out)."""
    values, counts = np.unique(ids, return_counts=True)
    total = ids.size
    return {int(v): int(c) / total for v, c in zip(values, counts, strict=True) if v}


def bearing_of(ids: np.ndarray, index: int, fov_deg: float) -> float:
    """The horizontal angle (degrees, positive left) of the centre of id `index`'s pixels."""
    height, width = ids.shape
    columns = np.nonzero(ids == index)[1]
    if len(columns) == 0:
        return 0.0
    return bearing_at(float(columns.mean()), width, height, fov_deg)
