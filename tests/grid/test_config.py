from pathlib import Path

import pytest

from simulacra.worlds.grid import (
    ScenarioError,
    layout_from_scenario,
    load_scenario,
    parse_scenario,
    world_from_scenario,
)

HAZARD = Path(__file__).parents[2] / "scenarios" / "hazard.yaml"


def test_hazard_scenario_reproduces_table_1_of_the_source() -> None:
    scenario = load_scenario(HAZARD)
    layout = layout_from_scenario(scenario)
    assert scenario.agents.count == 20 and scenario.steps == 7
    assert layout.half_size == 25
    assert scenario.model.temperature == 0.2
    places = {p.name: (p.center, p.capacity) for p in layout.places}
    assert places == {"cafe": ((-15, 0), 12), "library": ((15, 0), 10)}
    fires = {f.name: (f.start_step, f.intensity, f.radius) for f in layout.fires}
    assert fires == {"fire1": (3, 0.8, 15), "fire2": (5, 0.5, 8)}


def test_the_seed_fixes_personas_and_start_cells_outside_every_place() -> None:
    scenario = load_scenario(HAZARD)
    first = world_from_scenario(scenario, scenario.seed)
    again = world_from_scenario(scenario, scenario.seed)
    assert first.positions == again.positions and first.personas == again.personas
    assert all(first.place_of(a) is None for a in first.agents)
    assert {p.gender for p in first.personas.values()} <= {"female", "male"}


def test_an_unknown_field_is_named_in_the_error() -> None:
    place = {"name": "x", "type": "cafe", "center": [0, 0], "extent": [1, 1], "capacty": 3}
    with pytest.raises(ScenarioError, match=r"world\.places\.0\.capacty: Extra inputs"):
        parse_scenario({"world": {"places": [place]}})


def test_a_fire_intensity_above_one_is_named_in_the_error() -> None:
    fire = {"name": "f", "start_step": 1, "position": [0, 0], "intensity": 1.5, "radius": 3}
    with pytest.raises(
        ScenarioError, match=r"world\.fires\.0\.intensity: .*less than or equal to 1"
    ):
        parse_scenario({"world": {"fires": [fire]}})


def test_a_place_beyond_the_field_is_refused() -> None:
    place = {"name": "far", "type": "cafe", "center": [24, 0], "extent": [3, 3], "capacity": 1}
    with pytest.raises(ScenarioError, match=r"place 'far' reaches beyond the field -25\.\.25"):
        parse_scenario({"world": {"places": [place]}})


def test_an_explicit_agent_outside_the_field_is_named() -> None:
    scenario = parse_scenario(
        {"agents": {"count": 1, "people": [{"id": "a", "gender": "f", "position": [30, 0]}]}}
    )
    with pytest.raises(ScenarioError, match=r"agents\.people\.0\.position"):
        world_from_scenario(scenario, 0)


def test_a_missing_file_says_so(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="no such scenario file"):
        load_scenario(tmp_path / "nope.yaml")
