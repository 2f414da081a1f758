"""Small USD stages for tests."""

from __future__ import annotations

from typing import Any


def open_floor() -> Any:
    """A 3 x 3 m floor with nothing on it and no walls: its edge is the only bound."""
    from pxr import Gf, Usd, UsdGeom

    stage = Usd.Stage.CreateInMemory()
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z)
    mesh = UsdGeom.Mesh.Define(stage, "/Floor")
    mesh.CreatePointsAttr(
        [Gf.Vec3f(0, 0, 0), Gf.Vec3f(3, 0, 0), Gf.Vec3f(3, 3, 0), Gf.Vec3f(0, 3, 0)]
    )
    mesh.CreateFaceVertexCountsAttr([4])
    mesh.CreateFaceVertexIndicesAttr([0, 1, 2, 3])
    return stage
