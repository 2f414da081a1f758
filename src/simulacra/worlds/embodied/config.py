"""The embodied section of a scenario: the scene, the task, the camera, the movement limits
and what counts as success.

Defaults are the source's (SD-AgentFoundry-3D, Table 2): a 512 x 384 camera with a 70 degree
vertical field of view at an eye height of 1.6 m.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Pose(_Strict):
    """Where an agent stands on the floor and where it looks: `x`, `y` in metres, `yaw` in
    degrees counter-clockwise from +x, `pitch` in degrees (positive looks up)."""

    x: float
    y: float
    yaw: float = 0.0
    pitch: float = 0.0


class TaskConfig(_Strict):
    """One task: what the agent is told, the target's prim path, and where it starts."""

    instruction: str = Field(min_length=1)
    target: str = Field(pattern=r"^/", description="the target's USD prim path")
    start: Pose


class CameraConfig(_Strict):
    width: int = Field(default=512, ge=16, le=4096)
    height: int = Field(default=384, ge=16, le=4096)
    fov_deg: float = Field(default=70.0, gt=1.0, lt=179.0, description="vertical field of view")
    eye_height_m: float = Field(default=1.6, gt=0.0)


class LimitsConfig(_Strict):
    """What one decision may do; the world clamps anything beyond and records the clamp."""

    move_m: float = Field(default=2.0, gt=0.0, description="longest translation per decision")
    turn_deg: float = Field(default=180.0, gt=0.0, le=360.0, description="largest body turn")
    pitch_step_deg: float = Field(default=45.0, gt=0.0, description="largest gaze change")
    pitch_deg: float = Field(
        default=60.0, gt=0.0, lt=90.0, description="gaze bounds: never straight up or down"
    )


class EmbodiedConfig(_Strict):
    kind: Literal["embodied"] = "embodied"
    scene: str = Field(
        default="module",
        description='a shipped scene ("module" or "flat") or the path of a USD file '
        "(.usd, .usda, .usdc, .usdz)",
    )
    exclude: tuple[str, ...] = Field(
        default=(), description="prim paths left out of the scene, with everything under them"
    )
    setting: str | None = Field(
        default=None,
        description="the prompt's first sentence, where the agent is; default: the shipped "
        "scene's, or a general one for a USD file",
    )
    task: str = Field(default="logo", description="a task of `tasks` or of the shipped scene")
    tasks: dict[str, TaskConfig] = Field(
        default_factory=dict, description="tasks of this scenario, beside the scene's own"
    )
    camera: CameraConfig = CameraConfig()
    limits: LimitsConfig = LimitsConfig()
    success_m: float = Field(
        default=1.5, gt=0.0, description="success: this close to the target, and seeing it"
    )
    visible_share: float = Field(
        default=0.0005, ge=0.0, lt=1.0, description="share of the view the target must cover"
    )
    agent_radius_m: float = Field(default=0.25, gt=0.0, description="the body, for collisions")
    cell_m: float = Field(default=0.1, gt=0.0, le=1.0, description="walkable grid resolution")
    spacing_m: float = Field(default=0.8, gt=0.0, description="between agents at the start")
    talk_radius_m: float | None = Field(
        default=None, gt=0.0, description="agents this close exchange messages; None: no talk"
    )
    save_views: bool = Field(
        default=True, description="keep every first-person image under <run>/views/"
    )

    @model_validator(mode="after")
    def _bounded_gaze(self) -> EmbodiedConfig:
        for name, task in self.tasks.items():
            if abs(task.start.pitch) > self.limits.pitch_deg:
                raise ValueError(
                    f"tasks.{name}.start.pitch: {task.start.pitch} is beyond the gaze bounds "
                    f"+-{self.limits.pitch_deg}"
                )
        return self
