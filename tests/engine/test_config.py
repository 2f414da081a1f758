from datetime import datetime, time, timedelta
from pathlib import Path

import pytest
import yaml

from simulacra.experiments import ScenarioError, load_scenario

TOWN = Path(__file__).resolve().parents[2] / "scenarios" / "town.yaml"


def problems(overrides: list[str], path: Path = TOWN) -> list[str]:
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path, overrides)
    return caught.value.problems


def test_the_shipped_town_scenario_is_valid_with_five_agents_by_default() -> None:
    scenario = load_scenario(TOWN)
    assert scenario.agents.roster[0].id == "marta_okafor"
    assert len(scenario.agents.roster) == 5
    assert scenario.schedule.tick_minutes == 10
    assert scenario.interventions[0].type == "thought"


def test_setting_agents_count_takes_the_first_n_of_the_roster() -> None:
    scenario = load_scenario(TOWN, ["agents.count=25"])
    assert len(scenario.agents.roster) == 25
    assert problems(["agents.count=26"]) == [
        "scenario.agents.count: 26 agents asked for but the roster has 25"
    ]


def test_overrides_are_read_as_yaml_and_reach_nested_fields() -> None:
    scenario = load_scenario(
        TOWN,
        [
            "schedule.tick_minutes=15",
            "seed=42",
            "schedule.duration=5h",
            'interviews.times=["09:00", "11:00"]',
            "agents.personas.0.age=39",
        ],
    )
    assert scenario.schedule.tick_minutes == 15 and scenario.seed == 42
    assert scenario.schedule.duration == timedelta(hours=5)
    assert scenario.interviews is not None and scenario.interviews.times == [time(9), time(11)]
    assert scenario.agents.personas[0].age == 39


def test_an_unknown_key_is_named_with_the_fields_allowed_there() -> None:
    (line,) = problems(["schedule.tik=5"])
    assert line.startswith("scenario.schedule.tik: unknown field; allowed fields: start, duration")


def test_an_unknown_home_names_the_persona_and_the_known_places() -> None:
    (line,) = problems(["agents.personas.3.home=Hobs Cafe"])
    assert line.startswith('scenario.agents.personas[3].home: unknown place "Hobs Cafe"')
    assert 'did you mean "Hobbs Cafe"' in line and "known places: Alder Cottage" in line


def test_a_bad_time_names_the_field_and_the_expected_form() -> None:
    (line,) = problems(['interventions.0.at="half past seven"'])
    assert line.startswith("scenario.interventions[0].at: expected a time like")
    (line,) = problems(["schedule.start=tomorrow"])
    assert line.startswith("scenario.schedule.start:")
    (line,) = problems(["schedule.duration=forever"])
    assert 'expected a duration like "14h"' in line


def test_an_intervention_for_an_agent_not_taking_part_is_refused() -> None:
    (line,) = problems(["interventions.0.agent=daniel_okafor"])
    assert line.startswith('scenario.interventions[0].agent: unknown agent "daniel_okafor"')
    assert "beyond agents.count" in line
    load_scenario(TOWN, ["interventions.0.agent=daniel_okafor", "agents.count=6"])


def test_an_intervention_outside_the_schedule_is_refused() -> None:
    (line,) = problems(['interventions.0.at="23:00"'])
    assert "scenario.interventions[0].at: 2024-02-14 23:00:00 is outside the schedule" in line


def test_a_world_event_must_name_an_object_of_its_place() -> None:
    event = "{at: '09:00', type: event, text: fire!, place: Hobbs Cafe, object: stove, state: hot}"
    (line,) = problems([f"interventions=[{event}]"])
    assert line.startswith('scenario.interventions[0].object: unknown object "stove"')
    assert "oven" in line


def test_an_unquoted_clock_time_in_yaml_is_read_as_that_time(tmp_path: Path) -> None:
    raw = yaml.safe_load(TOWN.read_text())
    raw["world"]["map"] = str(TOWN.parent / "town" / "map.yaml")
    raw["agents"]["personas"] = str(TOWN.parent / "town" / "personas.yaml")
    text = yaml.safe_dump(raw).replace("at: 07:30", "at: 17:00").replace("at: '07:30'", "at: 17:00")
    path = tmp_path / "s.yaml"
    path.write_text(text)
    scenario = load_scenario(path)
    assert scenario.when(scenario.interventions[0].at) == datetime(2024, 2, 14, 17)


def test_a_missing_scenario_file_says_so(tmp_path: Path) -> None:
    (line,) = problems([], tmp_path / "nope.yaml")
    assert line.startswith("file not found:") and "nope.yaml" in line


def test_a_missing_map_file_names_the_field(tmp_path: Path) -> None:
    (line,) = problems(["world.map=elsewhere.yaml"])
    assert line.startswith("scenario.world.map: file not found:")
