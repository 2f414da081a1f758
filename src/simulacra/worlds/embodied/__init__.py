"""The embodied world of SD-AgentFoundry-3D: USD scenes, first-person rendering, the
deterministic movement interpreter, success and SPL.

Importing this package is light; the scene, walkable floor and renderer load usd-core and
pyvista/VTK (the `3d` extra) when a world is built.
"""

from simulacra.worlds.embodied.config import (
    CameraConfig,
    EmbodiedConfig,
    LimitsConfig,
    Pose,
    TaskConfig,
)
from simulacra.worlds.embodied.interpret import Command, interpret
from simulacra.worlds.embodied.metrics import embodied_metrics, expected_steps, soft_spl, spl

__all__ = [
    "CameraConfig",
    "Command",
    "EmbodiedConfig",
    "LimitsConfig",
    "Pose",
    "TaskConfig",
    "embodied_metrics",
    "expected_steps",
    "interpret",
    "soft_spl",
    "spl",
]
