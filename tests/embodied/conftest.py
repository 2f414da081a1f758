"""Fixtures of the embodied tests: the shipped scenes, loaded once, and a check that VTK can
render offscreen here (EGL or OSMesa, which `make test` installs), made in a child process
so that a missing OpenGL cannot take pytest down with it."""

from __future__ import annotations

import subprocess
import sys
from functools import cache
from typing import Any

import pytest

PROBE = """
from simulacra.worlds.embodied.render import choose_gl_window
choose_gl_window()
import pyvista as pv
p = pv.Plotter(off_screen=True, window_size=(32, 24))
p.add_mesh(pv.Cube())
assert p.screenshot(return_img=True).shape == (24, 32, 3)
"""


@cache
def _renders() -> str | None:
    try:
        import pxr  # noqa: F401
        import pyvista  # noqa: F401
    except ImportError as exc:
        return f"needs the 3d extra (usd-core and pyvista): {exc}"
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120
    )
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
        return f"VTK cannot render offscreen here (install EGL or OSMesa): {tail[0]}"
    return None


@pytest.fixture(scope="session")
def renders() -> None:
    """Skip, saying why, where offscreen rendering is impossible."""
    reason = _renders()
    if reason is not None:
        pytest.skip(reason)


@pytest.fixture(scope="session")
def module_scene(renders: None) -> Any:
    from simulacra.worlds.embodied.scene import scene_of
    from simulacra.worlds.embodied.shipped import SHIPPED

    return scene_of(SHIPPED["module"].write(), "module", ["/Module/EarthBackdrop"])


@pytest.fixture(scope="session")
def flat_scene(renders: None) -> Any:
    from simulacra.worlds.embodied.scene import scene_of
    from simulacra.worlds.embodied.shipped import SHIPPED

    return scene_of(SHIPPED["flat"].write(), "flat")
