"""Scenes from USD: any file format, transforms, units and up axis, colours, exclusions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from simulacra.worlds.embodied.scene import SceneError, label_of, load_usd, scene_of
from simulacra.worlds.embodied.shipped import FLAT_TARGETS, SHIPPED, export


@pytest.mark.parametrize("suffix", [".usda", ".usdc", ".usdz"])
def test_a_written_scene_loads_back_from_every_usd_format(
    tmp_path: Path, suffix: str, flat_scene: Any
) -> None:
    path = export("flat", tmp_path / f"flat{suffix}")
    loaded = load_usd(path)
    assert [p.path for p in loaded.prims] == [p.path for p in flat_scene.prims]
    fridge = loaded.prim("/Flat/Kitchen/OrangeFridge")
    assert np.allclose(fridge.points, flat_scene.prim("/Flat/Kitchen/OrangeFridge").points)


def test_a_y_up_stage_in_centimetres_comes_out_z_up_in_metres(flat_scene: Any) -> None:
    assert (flat_scene.up_axis, flat_scene.meters_per_unit) == ("Y", 0.01)
    _, _, box, _ = FLAT_TARGETS["lamp"]
    lamp = flat_scene.prim("/Flat/Bedroom/YellowLamp")
    assert np.allclose(lamp.low, box[0], atol=1e-4)
    assert np.allclose(lamp.high, box[1], atol=1e-4)


def test_transforms_of_parents_place_the_points(module_scene: Any) -> None:
    rack = module_scene.prim("/Module/Racks/PortRack0")  # under a translated Xform
    assert np.allclose(rack.low, (-5.0, 17.9, 0.0), atol=1e-4)
    assert np.allclose(rack.high, (-3.9, 18.5, 2.4), atol=1e-4)


def test_colours_come_from_display_colour_or_a_preview_surface(module_scene: Any) -> None:
    assert module_scene.prim("/Module/LogoPanel").colour == pytest.approx((0.05, 0.22, 0.8))
    rack = module_scene.prim("/Module/Racks/PortRack1")  # a UsdPreviewSurface material
    assert rack.colour == pytest.approx((0.7, 0.72, 0.75))


def test_excluded_prims_are_left_out_with_their_children(renders: None) -> None:
    stage = SHIPPED["module"].write()
    whole = scene_of(stage, "module")
    assert any(p.path == "/Module/EarthBackdrop" for p in whole.prims)
    without = scene_of(stage, "module", ["/Module/EarthBackdrop", "/Module/Racks"])
    paths = [p.path for p in without.prims]
    assert "/Module/EarthBackdrop" not in paths
    assert not any(p.startswith("/Module/Racks/") for p in paths)


def test_labels_are_display_names_or_words_from_the_name(module_scene: Any) -> None:
    assert module_scene.prim("/Module/LogoPanel").label == "logo panel"
    assert label_of("LogoPanel_2") == "logo panel"
    assert label_of("rack_03") == "rack"


def test_errors_name_the_file_or_the_prim(tmp_path: Path, module_scene: Any) -> None:
    with pytest.raises(SceneError, match="no such file"):
        load_usd(tmp_path / "missing.usda")
    with pytest.raises(SceneError, match="not a USD file"):
        load_usd(tmp_path / "scene.obj")
    with pytest.raises(SceneError, match="no mesh prim '/Module/Nope'"):
        module_scene.prim("/Module/Nope")
