"""First-person rendering and the id pass, at a small size: the target's share of the view,
identical bytes for the same pose, and avatars in each other's views."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from simulacra.worlds.embodied.config import CameraConfig

CAMERA = CameraConfig(width=128, height=96)


@pytest.fixture(scope="module")
def renderer(module_scene: Any) -> Iterator[Any]:
    from simulacra.worlds.embodied.render import Renderer

    made = Renderer(module_scene, CAMERA, ["a", "b"])
    yield made
    made.close()


def _share(renderer: Any, scene: Any, view: Any) -> float:
    ids = renderer.id_pass(view, "a", {"a": view})
    return float(np.count_nonzero(ids == scene.index("/Module/LogoPanel") + 1)) / ids.size


def test_the_target_covers_part_of_the_view_facing_it_and_none_facing_away(
    renderer: Any, module_scene: Any
) -> None:
    from simulacra.worlds.embodied.render import View

    assert _share(renderer, module_scene, View(-3.5, 21.0, 180.0, 0.0)) > 0.02
    assert _share(renderer, module_scene, View(-3.5, 21.0, 0.0, 0.0)) == 0.0


def test_the_same_pose_renders_the_same_bytes(renderer: Any) -> None:
    from simulacra.worlds.embodied.render import View, encode_png

    here, there = View(4.0, 20.1, 180.0, 0.0), View(0.0, 19.0, 90.0, 20.0)
    first = encode_png(renderer.first_person(here, "a", {"a": here}))
    renderer.first_person(there, "a", {"a": there})  # another pose between the two
    renderer.id_pass(there, "a", {"a": there})
    assert encode_png(renderer.first_person(here, "a", {"a": here})) == first


def test_the_first_person_image_has_the_configured_size(renderer: Any) -> None:
    from simulacra.worlds.embodied.render import View

    pixels = renderer.first_person(View(4.0, 20.1, 180.0, 0.0), "a", {})
    assert pixels.shape == (96, 128, 3) and pixels.dtype == np.uint8
    assert pixels.std() > 5  # a scene, not a blank


def test_an_agent_sees_the_others_avatar_but_never_its_own(
    renderer: Any, module_scene: Any
) -> None:
    from simulacra.worlds.embodied.render import View

    a, b = View(3.0, 20.1, 180.0, 0.0), View(1.0, 20.1, 0.0, 0.0)
    both = {"a": a, "b": b}
    b_id = len(module_scene.prims) + 2  # avatars follow the prims, in agent order
    a_id = b_id - 1
    seen_by_a = renderer.id_pass(a, "a", both)
    assert np.count_nonzero(seen_by_a == b_id) > 0
    assert np.count_nonzero(seen_by_a == a_id) == 0


def test_the_bearing_of_an_object_is_positive_to_the_left(renderer: Any, module_scene: Any) -> None:
    from simulacra.worlds.embodied.render import View, bearing_of

    logo = module_scene.index("/Module/LogoPanel") + 1
    # From (-3.5, 20.1) the logo's centre lies at a heading of about 154 degrees.
    ids = renderer.id_pass(View(-3.5, 20.1, 165.0, 0.0), "a", {})
    assert bearing_of(ids, logo, CAMERA.fov_deg) < 0
    ids = renderer.id_pass(View(-3.5, 20.1, 140.0, 0.0), "a", {})
    assert bearing_of(ids, logo, CAMERA.fov_deg) > 0
