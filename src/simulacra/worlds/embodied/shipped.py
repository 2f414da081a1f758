"""The scenes our code writes, with their tasks: no external assets.

`module`: a long laboratory-module interior, 11 x 4.4 m, z up, in metres: racks along both
walls, a hatch at each end and a logo panel beside the far hatch, the target of the source's
task ("Find the logo and get close to it"), and a distant backdrop outside (the source leaves
Earth out of its Kibo scene; `scenarios/embodied.yaml` excludes ours the same way).

`flat`: four rooms of a 10 x 8 m flat with furniture and six targets of distinct colours,
written y up in centimetres so that loading exercises both conversions. Twelve tasks: each
target from a start in its own room and from one in another room.

Both use transforms (`XformCache` must place them), display colours and, for some prims,
UsdPreviewSurface materials.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simulacra.worlds.embodied.config import EmbodiedConfig, Pose, TaskConfig
from simulacra.worlds.embodied.scene import Scene, SceneError, load_usd, scene_of

Box = tuple[tuple[float, float, float], tuple[float, float, float]]  # low, high corners (m)
Colour = tuple[float, float, float]

WOOD: Colour = (0.55, 0.45, 0.35)
WALL: Colour = (0.88, 0.87, 0.84)


@dataclass(frozen=True)
class ShippedScene:
    write: Callable[[], Any]  # -> Usd.Stage, in memory
    setting: str
    tasks: dict[str, TaskConfig]


class _Writer:
    """Boxes as USD meshes, in the stage's own units and up axis."""

    def __init__(self, root: str, *, up: str, meters: float) -> None:
        from pxr import Usd, UsdGeom

        self.stage = Usd.Stage.CreateInMemory()
        UsdGeom.SetStageUpAxis(self.stage, UsdGeom.Tokens.y if up == "Y" else UsdGeom.Tokens.z)
        UsdGeom.SetStageMetersPerUnit(self.stage, meters)
        self.up, self.scale = up, 1.0 / meters
        self.root = root
        self.stage.SetDefaultPrim(UsdGeom.Xform.Define(self.stage, root).GetPrim())
        self._materials: dict[Colour, Any] = {}

    def _stage_point(self, x: float, y: float, z: float) -> tuple[float, float, float]:
        s = self.scale
        return (x * s, z * s, -y * s) if self.up == "Y" else (x * s, y * s, z * s)

    def group(self, path: str, offset: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> str:
        from pxr import Gf, UsdGeom

        xform = UsdGeom.Xform.Define(self.stage, path)
        if any(offset):
            UsdGeom.XformCommonAPI(xform).SetTranslate(Gf.Vec3d(*self._stage_point(*offset)))
        return path

    def box(
        self,
        path: str,
        box: Box,
        colour: Colour,
        label: str,
        *,
        offset: tuple[float, float, float] = (0.0, 0.0, 0.0),
        material: bool = False,
    ) -> None:
        """A box from `box` (metres, z up, relative to the parent's `offset`), placed by a
        translate on the mesh so that its points are local."""
        from pxr import Gf, UsdGeom

        (x0, y0, z0), (x1, y1, z1) = box
        cx, cy, cz = (x0 + x1) / 2, (y0 + y1) / 2, (z0 + z1) / 2
        hx, hy, hz = (x1 - x0) / 2, (y1 - y0) / 2, (z1 - z0) / 2
        corners = [
            self._stage_point(sx * hx, sy * hy, sz * hz)
            for sz in (-1, 1)
            for sy in (-1, 1)
            for sx in (-1, 1)
        ]
        mesh = UsdGeom.Mesh.Define(self.stage, path)
        mesh.CreatePointsAttr([Gf.Vec3f(*c) for c in corners])
        mesh.CreateFaceVertexCountsAttr([4] * 6)
        mesh.CreateFaceVertexIndicesAttr(
            [0, 2, 3, 1, 4, 5, 7, 6, 0, 1, 5, 4, 2, 6, 7, 3, 0, 4, 6, 2, 1, 3, 7, 5]
        )
        ox, oy, oz = offset
        UsdGeom.XformCommonAPI(mesh).SetTranslate(
            Gf.Vec3d(*self._stage_point(cx - ox, cy - oy, cz - oz))
        )
        mesh.GetPrim().SetDisplayName(label)
        if material:
            self._bind(mesh.GetPrim(), colour)
        else:
            mesh.CreateDisplayColorAttr([Gf.Vec3f(*colour)])

    def _bind(self, prim: Any, colour: Colour) -> None:
        from pxr import Gf, Sdf, UsdShade

        material = self._materials.get(colour)
        if material is None:
            name = f"{self.root}/Looks/Surface{len(self._materials)}"
            material = UsdShade.Material.Define(self.stage, name)
            shader = UsdShade.Shader.Define(self.stage, name + "/Preview")
            shader.CreateIdAttr("UsdPreviewSurface")
            shader.CreateInput("diffuseColor", Sdf.ValueTypeNames.Color3f).Set(Gf.Vec3f(*colour))
            material.CreateSurfaceOutput().ConnectToSource(shader.ConnectableAPI(), "surface")
            self._materials[colour] = material
        UsdShade.MaterialBindingAPI.Apply(prim).Bind(material)


def write_module() -> Any:
    """The laboratory module (see the module's docstring), as an in-memory Usd.Stage."""
    w = _Writer("/Module", up="Z", meters=1.0)
    x0, x1, y0, y1, top = -6.0, 5.0, 17.9, 22.3, 2.4
    w.box("/Module/Floor", ((x0, y0, -0.05), (x1, y1, 0.0)), (0.62, 0.63, 0.66), "floor")
    w.box("/Module/Ceiling", ((x0, y0, top), (x1, y1, top + 0.05)), (0.93, 0.93, 0.92), "ceiling")
    w.box("/Module/WallPort", ((x0, y0 - 0.05, 0), (x1, y0, top)), WALL, "wall")
    w.box("/Module/WallStarboard", ((x0, y1, 0), (x1, y1 + 0.05, top)), WALL, "wall")
    w.box("/Module/WallAft", ((x0 - 0.05, y0, 0), (x0, y1, top)), WALL, "end wall")
    w.box("/Module/WallFwd", ((x1, y0, 0), (x1 + 0.05, y1, top)), WALL, "end wall")
    offset = (0.0, y0, 0.0)
    w.group("/Module/Racks", offset)
    for i in range(8):
        left = -5.0 + i * 1.125
        colour = (0.86, 0.85, 0.8) if i % 2 == 0 else (0.7, 0.72, 0.75)
        for side, (ya, yb) in (("Port", (y0, y0 + 0.6)), ("Starboard", (y1 - 0.6, y1))):
            box = ((left, ya, 0.0), (left + 1.1, yb, top))
            w.box(f"/Module/Racks/{side}Rack{i}", box, colour, "rack", offset=offset, material=True)
    for i, x in enumerate((-3.4, 0.0, 3.4)):
        w.box(
            f"/Module/Handrail{i}",
            ((x - 0.4, y0 + 0.6, 1.05), (x + 0.4, y0 + 0.66, 1.1)),
            (0.82, 0.74, 0.32),
            "handrail",
        )
    w.box(
        "/Module/Laptop",
        ((0.6, y1 - 0.7, 1.15), (1.0, y1 - 0.6, 1.45)),
        (0.15, 0.15, 0.17),
        "laptop",
    )
    for i, x in enumerate((-3.5, 0.0, 3.5)):
        panel = ((x - 0.6, 19.7, top - 0.02), (x + 0.6, 20.5, top))
        w.box(f"/Module/Light{i}", panel, (0.98, 0.98, 0.93), "light panel")
    hatch = (0.36, 0.37, 0.4)
    w.box("/Module/HatchAft", ((x0, 19.5, 0.6), (x0 + 0.1, 20.7, 1.8)), hatch, "hatch")
    w.box("/Module/HatchFwd", ((x1 - 0.1, 19.5, 0.6), (x1, 20.7, 1.8)), hatch, "hatch")
    w.box(
        "/Module/LogoPanel",
        ((x0, 20.9, 1.2), (x0 + 0.08, 21.7, 1.8)),
        (0.05, 0.22, 0.8),
        "logo panel",
    )
    w.box(
        "/Module/EarthBackdrop",
        ((60.0, -20.0, -30.0), (62.0, 60.0, 30.0)),
        (0.2, 0.35, 0.7),
        "earth",
    )
    return w.stage


MODULE = ShippedScene(
    write_module,
    "You are an agent standing inside a long laboratory module.",
    {
        "logo": TaskConfig(
            instruction="Find the logo and get close to it.",
            target="/Module/LogoPanel",
            start=Pose(x=4.0, y=20.1, yaw=180.0, pitch=0.0),
        )
    },
)

# The flat's targets: prim name, label, box (metres, z up), colour.
FLAT_TARGETS: dict[str, tuple[str, str, Box, Colour]] = {
    "armchair": ("RedArmchair", "red armchair", ((4.4, 3.4, 0), (5.2, 4.2, 0.9)), (0.8, 0.1, 0.12)),
    "plant": ("GreenPlant", "green plant", ((5.3, 0.2, 0), (5.8, 0.7, 1.4)), (0.15, 0.65, 0.2)),
    "fridge": ("OrangeFridge", "orange fridge", ((6.2, 0.1, 0), (6.9, 0.8, 1.8)), (0.95, 0.5, 0.1)),
    "bed": ("PurpleBed", "purple bed", ((0.2, 6.0, 0), (2.2, 7.9, 0.55)), (0.55, 0.15, 0.75)),
    "lamp": ("YellowLamp", "yellow lamp", ((2.5, 7.5, 0), (2.8, 7.8, 1.6)), (0.95, 0.85, 0.1)),
    "bookshelf": (
        "BlueBookshelf",
        "blue bookshelf",
        ((6.5, 7.6, 0), (8, 7.95, 1.9)),
        (0.1, 0.3, 0.85),
    ),
}

# Two starts per target: in its own room (near) and in another room (far).
FLAT_STARTS: dict[str, tuple[Pose, Pose]] = {
    "armchair": (Pose(x=2.5, y=1.5, yaw=0.0), Pose(x=8.0, y=1.5, yaw=90.0)),
    "plant": (Pose(x=3.0, y=3.0, yaw=90.0), Pose(x=3.5, y=6.5, yaw=270.0)),
    "fridge": (Pose(x=8.5, y=4.0, yaw=0.0), Pose(x=3.0, y=2.0, yaw=180.0)),
    "bed": (Pose(x=4.4, y=5.0, yaw=90.0), Pose(x=7.5, y=6.0, yaw=180.0)),
    "lamp": (Pose(x=4.3, y=5.0, yaw=180.0), Pose(x=4.0, y=2.0, yaw=90.0)),
    "bookshelf": (Pose(x=9.5, y=5.2, yaw=180.0), Pose(x=8.0, y=2.0, yaw=90.0)),
}


def write_flat() -> Any:
    """The flat (see the module's docstring), as an in-memory Usd.Stage."""
    w = _Writer("/Flat", up="Y", meters=0.01)
    t = 0.05  # half a wall's thickness
    h = 2.6
    w.box("/Flat/Floor", ((0, 0, -0.05), (10, 8, 0)), (0.72, 0.62, 0.48), "floor")
    w.box("/Flat/Ceiling", ((0, 0, h), (10, 8, h + 0.05)), (0.95, 0.95, 0.94), "ceiling")
    walls: list[Box] = [
        ((-0.1, -0.1, 0), (10.1, 0, h)),
        ((-0.1, 8, 0), (10.1, 8.1, h)),
        ((-0.1, 0, 0), (0, 8, h)),
        ((10, 0, 0), (10.1, 8, h)),
        ((6 - t, 0, 0), (6 + t, 1.5, h)),
        ((6 - t, 2.5, 0), (6 + t, 4.5 - t, h)),
        ((0, 4.5 - t, 0), (2, 4.5 + t, h)),
        ((3, 4.5 - t, 0), (7.5, 4.5 + t, h)),
        ((8.5, 4.5 - t, 0), (10, 4.5 + t, h)),
        ((5 - t, 4.5 + t, 0), (5 + t, 6, h)),
        ((5 - t, 7, 0), (5 + t, 8, h)),
    ]
    w.group("/Flat/Walls")
    for i, wall in enumerate(walls):
        w.box(f"/Flat/Walls/Wall{i}", wall, WALL, "wall", material=True)
    rooms: dict[str, list[tuple[str, str, Box, Colour]]] = {
        "Living": [
            ("Sofa", "sofa", ((0.2, 3.5, 0), (1.8, 4.3, 0.8)), (0.45, 0.42, 0.4)),
            ("CoffeeTable", "coffee table", ((1.0, 2.2, 0), (2.0, 2.9, 0.45)), WOOD),
            ("TvStand", "tv stand", ((0.8, 0.1, 0), (2.6, 0.5, 0.6)), (0.25, 0.25, 0.27)),
            ("Tv", "television", ((1.1, 0.2, 0.6), (2.3, 0.3, 1.3)), (0.08, 0.08, 0.09)),
        ],
        "Kitchen": [
            ("Counter", "kitchen counter", ((9.3, 0.2, 0), (9.9, 3.5, 0.9)), (0.8, 0.8, 0.78)),
            ("Table", "dining table", ((7.0, 2.5, 0), (8.2, 3.5, 0.75)), WOOD),
            ("Chair", "chair", ((7.3, 3.6, 0), (7.8, 4.1, 0.9)), (0.4, 0.36, 0.32)),
        ],
        "Bedroom": [
            ("Wardrobe", "wardrobe", ((3.8, 7.3, 0), (4.9, 7.95, 2.0)), WOOD),
        ],
        "Study": [
            ("Desk", "desk", ((8.5, 7.2, 0), (9.9, 7.9, 0.75)), WOOD),
            ("DeskChair", "chair", ((8.9, 6.6, 0), (9.4, 7.1, 0.9)), (0.3, 0.3, 0.32)),
        ],
    }
    homes = {"armchair": "Living", "plant": "Living", "fridge": "Kitchen", "bed": "Bedroom",
             "lamp": "Bedroom", "bookshelf": "Study"}  # fmt: skip
    for room, items in rooms.items():
        w.group(f"/Flat/{room}")
        for name, label, box, colour in items:
            w.box(f"/Flat/{room}/{name}", box, colour, label)
    for key, (name, label, box, colour) in FLAT_TARGETS.items():
        w.box(f"/Flat/{homes[key]}/{name}", box, colour, label, material=key == "fridge")
    return w.stage


def _flat_tasks() -> dict[str, TaskConfig]:
    homes = {"armchair": "Living", "plant": "Living", "fridge": "Kitchen", "bed": "Bedroom",
             "lamp": "Bedroom", "bookshelf": "Study"}  # fmt: skip
    tasks = {}
    for key, (name, label, _, _) in FLAT_TARGETS.items():
        for where, start in zip(("near", "far"), FLAT_STARTS[key], strict=True):
            tasks[f"{key}_{where}"] = TaskConfig(
                instruction=f"Find the {label} and get close to it.",
                target=f"/Flat/{homes[key]}/{name}",
                start=start,
            )
    return tasks


FLAT = ShippedScene(
    write_flat, "You are an agent standing inside a flat with four rooms.", _flat_tasks()
)
SHIPPED: dict[str, ShippedScene] = {"module": MODULE, "flat": FLAT}


def export(name: str, path: str | Path) -> Path:
    """Write a shipped scene to a USD file (.usda, .usdc or .usdz)."""
    from pxr import Sdf, UsdUtils

    out = Path(path)
    stage = SHIPPED[name].write()
    if out.suffix == ".usdz":
        layer = out.with_suffix(".usdc")
        stage.GetRootLayer().Export(str(layer))
        if not UsdUtils.CreateNewUsdzPackage(Sdf.AssetPath(str(layer)), str(out)):
            raise OSError(f"could not package {layer} as {out}")
        layer.unlink()
    elif not stage.GetRootLayer().Export(str(out)):
        raise OSError(f"could not write {out}")
    return out


GENERAL_SETTING = "You are an agent standing inside a three-dimensional scene."


def load_scene(config: EmbodiedConfig) -> Scene:
    """The configured scene: a shipped one by name, or a USD file by path."""
    shipped = SHIPPED.get(config.scene)
    if shipped is not None:
        return scene_of(shipped.write(), config.scene, config.exclude)
    return load_usd(config.scene, config.exclude)


def tasks_of(config: EmbodiedConfig) -> dict[str, TaskConfig]:
    """The tasks a scenario may name: the shipped scene's, then its own."""
    shipped = SHIPPED.get(config.scene)
    return {**(shipped.tasks if shipped is not None else {}), **config.tasks}


def task_of(config: EmbodiedConfig) -> TaskConfig:
    tasks = tasks_of(config)
    if config.task not in tasks:
        known = ", ".join(sorted(tasks)) or "none: add one under world.tasks"
        raise SceneError(f"world.task: no task {config.task!r} for this scene; known: {known}")
    return tasks[config.task]


def setting_of(config: EmbodiedConfig) -> str:
    if config.setting is not None:
        return config.setting
    shipped = SHIPPED.get(config.scene)
    return shipped.setting if shipped is not None else GENERAL_SETTING
