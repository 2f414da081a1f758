from datetime import datetime, time, timedelta
from pathlib import Path

import pytest
import yaml

from simulacra.experiments import ScenarioError, load_scenario
from simulacra.experiments.kinds import binding_of

TOWN = Path(__file__).resolve().parents[2] / "scenarios" / "town.yaml"


def problems(overrides: list[str], path: Path = TOWN) -> list[str]:
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path, overrides)
    return caught.value.problems


def test_the_shipped_town_scenario_is_valid_with_five_agents_by_default() -> None:
    scenario = load_scenario(TOWN)
    roster = binding_of(scenario).roster(scenario)
    assert roster[0] == "marta_okafor" and len(roster) == 5
    assert scenario.clock.tick == timedelta(minutes=10)
    assert len(scenario.clock.calendar().times()) == 84
    assert scenario.interventions[0].type == "thought"


def test_setting_agents_count_takes_the_first_n_of_the_roster() -> None:
    scenario = load_scenario(TOWN, ["agents.count=25"])
    assert len(binding_of(scenario).roster(scenario)) == 25
    assert problems(["agents.count=26"]) == [
        "scenario.agents.count: 26 agents asked for but the roster has 25"
    ]


def test_overrides_are_read_as_yaml_and_reach_nested_fields() -> None:
    scenario = load_scenario(
        TOWN,
        [
            "clock.tick=15m",
            "seed=42",
            "clock.duration=5h",
            'interviews.times=["09:00", "11:00"]',
            "world.attendance=null",
            "agents.personas.0.age=39",
        ],
    )
    assert scenario.clock.tick == timedelta(minutes=15) and scenario.seed == 42
    assert scenario.clock.duration == timedelta(hours=5)
    assert scenario.interviews is not None and scenario.interviews.times == [time(9), time(11)]
    assert scenario.agents.personas[0]["age"] == 39


def test_an_unknown_key_is_named_with_the_fields_allowed_there() -> None:
    (line,) = problems(["clock.tik=5"])
    assert line.startswith("scenario.clock.tik: unknown field; allowed fields: start, tick")
    (line,) = problems(["world.mapp=x"])
    assert line.startswith("scenario.world.mapp: unknown field; allowed fields: kind, map")


def test_an_unknown_home_names_the_persona_and_the_known_places() -> None:
    (line,) = problems(["agents.personas.3.home=Hobs Cafe"])
    assert line.startswith('scenario.agents.personas[3].home: unknown place "Hobs Cafe"')
    assert 'did you mean "Hobbs Cafe"' in line and "known places: Alder Cottage" in line


def test_a_bad_time_names_the_field_and_the_expected_form() -> None:
    (line,) = problems(['interventions.0.at="half past seven"'])
    assert line.startswith("scenario.interventions[0].at: expected a time like")
    (line,) = problems(["clock.start=tomorrow"])
    assert line.startswith("scenario.clock.start:")
    (line,) = problems(["clock.duration=forever"])
    assert 'expected a duration like "10m", "14h"' in line


def test_an_intervention_for_an_agent_not_taking_part_is_refused() -> None:
    (line,) = problems(["interventions.0.agent=daniel_okafor"])
    assert line.startswith('scenario.interventions[0].agent: unknown agent "daniel_okafor"')
    load_scenario(TOWN, ["interventions.0.agent=daniel_okafor", "agents.count=6"])


def test_an_intervention_before_the_first_tick_is_refused() -> None:
    (line,) = problems(['interventions.0.at="06:30"'])
    assert line.startswith(
        "scenario.interventions[0].at: 2024-02-14 06:30 is before the run's first tick "
        "(2024-02-14 07:00)"
    )


def test_a_world_event_must_name_an_object_of_its_place() -> None:
    change = "{place: Hobbs Cafe, object: stove, state: hot}"
    event = f"{{at: '09:00', type: event, text: fire!, change: {change}}}"
    (line,) = problems([f"interventions=[{event}]"])
    assert line.startswith('scenario.interventions[0].change.object: unknown object "stove"')
    assert "oven" in line


def test_the_world_kind_is_named_and_each_section_is_checked_against_it() -> None:
    (line,) = problems(["world.kind=ocean"])
    assert line.startswith("scenario.world.kind: expected one of town, grid, commute")
    assert line.endswith("got 'ocean'")
    (line,) = problems(["ablation=A1"])
    assert line.startswith('scenario.ablation: unknown ablation "A1"; known ablations: full')
    (line,) = problems(["memory.mode=bounded"])
    assert line.startswith('scenario.memory.mode: unknown mode "bounded"')
    (line,) = problems(["agents.mix={student: 3}"])
    assert line == "scenario.agents.mix: the town takes no mix"


def test_interviews_need_minds_that_keep_a_memory_stream() -> None:
    hazard = TOWN.parent / "hazard.yaml"
    asked = 'interviews={times: ["02:00"], question: Where is the fire}'
    (line,) = problems([asked], hazard)
    assert line == (
        "scenario.interviews: cannot be held: its agents keep no memory stream (memory.mode: "
        "bounded); run the scenario with --set memory.mode=stream to interview them"
    )
    load_scenario(hazard, [asked, "memory.mode=stream"])


def test_an_unquoted_clock_time_in_yaml_is_read_as_that_time(tmp_path: Path) -> None:
    raw = yaml.safe_load(TOWN.read_text())
    raw["world"]["map"] = str(TOWN.parent / "town" / "map.yaml")
    raw["agents"]["personas"] = str(TOWN.parent / "town" / "personas.yaml")
    raw["evaluation"]["questions"] = str(TOWN.parent / "town" / "questions.yaml")
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


@pytest.mark.parametrize(
    ("override", "line"),
    [
        (
            "memory.importance=bogus",
            'scenario.memory.importance: expected "model" or "rule", or a number, got \'bogus\'',
        ),
        (
            "memory.importance=11",
            'scenario.memory.importance: expected "model" or "rule", or at most 10, got 11',
        ),
        (
            "clock.tick=10minutes",
            'scenario.clock.tick: expected a duration like "10m", "14h", "1d" or "1d 2h", '
            "got '10minutes'",
        ),
        ("model.temperature=hot", "scenario.model.temperature: expected a number, got 'hot'"),
        ("agents.count=0", "scenario.agents.count: expected at least 1, got 0"),
        ("seed=abc", "scenario.seed: expected a whole number, got 'abc'"),
        ("output.report=maybe", "scenario.output.report: expected true or false, got 'maybe'"),
        (
            "clock.start=tomorrow",
            "scenario.clock.start: expected a date and time like 2024-02-14T07:00, got 'tomorrow'",
        ),
        (
            "name=my town",
            'scenario.name: expected only letters, digits, "_", "." and "-" (no spaces), '
            "got 'my town'",
        ),
        (
            "world.attendance.start=25:00",
            "scenario.world.attendance.start: 25:00 is no time of day; a day runs from 00:00 "
            "to 23:59",
        ),
        ("agents.personas.0.age=old", "scenario.agents.personas[0].age: expected a whole number"),
    ],
)
def test_a_wrong_value_reads_in_the_user_s_words_once(override: str, line: str) -> None:
    (found,) = problems([override])
    assert found.startswith(line), found
    for jargon in ("Input should", "literal[", "constrained-", "String should", "Value error"):
        assert jargon not in found
    assert found.count("got ") <= 1
