from pathlib import Path

import pytest

from simulacra.experiments import ScenarioError, load_scenario
from simulacra.worlds.grid import GridConfig, GridPerson, build_world, layout_from_config

from .conftest import HAZARD


def problems(overrides: list[str]) -> list[str]:
    with pytest.raises(ScenarioError) as refused:
        load_scenario(HAZARD, overrides)
    return refused.value.problems


def test_hazard_scenario_reproduces_table_1_of_the_source() -> None:
    scenario = load_scenario(HAZARD)
    assert isinstance(scenario.world, GridConfig)
    layout = layout_from_config(scenario.world)
    assert scenario.agents.count == 20 and scenario.clock.ticks == 7
    assert len(scenario.clock.calendar().times()) == 7
    assert layout.half_size == 25
    assert scenario.model.temperature == 0.2
    assert (scenario.memory.mode, scenario.memory.recall, scenario.memory.messages) == (
        "bounded",
        5,
        10,
    )
    places = {p.name: (p.center, p.capacity) for p in layout.places}
    assert places == {"cafe": ((-15, 0), 12), "library": ((15, 0), 10)}
    fires = {f.name: (f.start_step, f.intensity, f.radius) for f in layout.fires}
    assert fires == {"fire1": (3, 0.8, 15), "fire2": (5, 0.5, 8)}


def test_the_seed_fixes_personas_and_start_cells_outside_every_place() -> None:
    scenario = load_scenario(HAZARD)
    assert isinstance(scenario.world, GridConfig)
    first = build_world(scenario.world, [], 20, scenario.seed)
    again = build_world(scenario.world, [], 20, scenario.seed)
    assert first.positions == again.positions and first.personas == again.personas
    assert len(first.agents) == 20
    assert all(first.place_of(a) is None for a in first.agents)
    assert {p.gender for p in first.personas.values()} <= {"female", "male"}
    other = build_world(scenario.world, [], 20, 7)
    assert other.positions != first.positions


def test_explicit_people_come_first_and_keep_their_cells() -> None:
    scenario = load_scenario(HAZARD)
    assert isinstance(scenario.world, GridConfig)
    people = [GridPerson(id="0", gender="f", position=(1, 2)), GridPerson(id="ann", gender="f")]
    world = build_world(scenario.world, people, 4, scenario.seed)
    assert world.agents == ("0", "ann", "1", "2")  # generated ids skip the one taken
    assert world.positions["0"] == (1, 2) and world.place_of("ann") is None


def test_an_unknown_field_is_named_in_the_error() -> None:
    place = "{name: x, type: cafe, center: [0, 0], extent: [1, 1], capacity: 3, capacty: 3}"
    assert problems([f"world.places=[{place}]"]) == [
        "scenario.world.places[0].capacty: unknown field; allowed fields: "
        "name, type, center, extent, capacity"
    ]


def test_a_fire_intensity_above_one_is_named_in_the_error() -> None:
    fire = "{name: f, start_step: 1, position: [0, 0], intensity: 1.5, radius: 3}"
    [problem] = problems([f"world.fires=[{fire}]"])
    assert problem.startswith("scenario.world.fires[0].intensity: ")
    assert problem.endswith("expected at most 1, got 1.5")


def test_a_place_beyond_the_field_is_refused() -> None:
    place = "{name: far, type: cafe, center: [24, 0], extent: [3, 3], capacity: 1}"
    [problem] = problems([f"world.places=[{place}]"])
    assert "place 'far' reaches beyond the field -25..25" in problem


def test_an_explicit_agent_outside_the_field_is_named() -> None:
    person = "[{id: a, gender: f, position: [30, 0]}]"
    assert problems(["agents.count=1", f"agents.personas={person}"]) == [
        "scenario.agents.personas[0].position: [30, 0] is outside the field -25..25"
    ]


def test_a_fire_outside_the_field_is_named() -> None:
    fire = "{name: f, start_step: 1, position: [0, 40], intensity: 0.5, radius: 3}"
    assert problems([f"world.fires=[{fire}]"]) == [
        "scenario.world.fires[0].position: f is outside the field -25..25"
    ]


def test_interviews_need_the_memory_stream() -> None:
    interviews = '{times: ["2000-01-01T02:00"], question: "Any fire?"}'
    [problem] = problems([f"interviews={interviews}"])
    assert problem.startswith("scenario.interviews: cannot be held: its agents keep no memory")
    assert problem.endswith("run the scenario with --set memory.mode=stream to interview them")
    stream = load_scenario(HAZARD, ["memory.mode=stream", f"interviews={interviews}"])
    assert stream.interviews is not None and stream.memory.mode == "stream"


def test_a_missing_file_says_so(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="file not found"):
        load_scenario(tmp_path / "nope.yaml")
