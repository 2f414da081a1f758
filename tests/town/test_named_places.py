"""A persona knows from the start the places its own words name, by whole name: someone who
works at Workplace 12 does not know Workplace 1 because one name begins the other."""

from __future__ import annotations

from pathlib import Path

import yaml
from hypothesis import given
from hypothesis import strategies as st

from simulacra.experiments import load_scenario
from simulacra.experiments.kinds import Services
from simulacra.experiments.kinds.town import TOWN
from simulacra.experiments.models import load_run_model
from simulacra.mind.town.places import named
from simulacra.worlds.town import TownWorld


def _place(name: str, x: int) -> dict[str, object]:
    return {
        "name": name,
        "kind": "work",
        "x": x,
        "y": 2,
        "w": 6,
        "h": 4,
        "areas": [{"name": "floor"}],
    }


def test_a_persona_knows_the_workplace_it_names_and_not_one_whose_name_is_a_prefix(
    tmp_path: Path,
) -> None:
    sketch = {
        "name": "Rows",
        "width": 40,
        "height": 10,
        "places": [
            _place(n, x) for n, x in (("Home", 2), ("Workplace 1", 12), ("Workplace 12", 22))
        ],
        "roads": [
            {"between": ["Home", "Workplace 1"], "minutes": 3},
            {"between": ["Workplace 1", "Workplace 12"], "minutes": 3},
        ],
    }
    persona = {
        "id": "ines",
        "name": "Ines Duarte",
        "age": 40,
        "traits": ["steady"],
        "background": "Ines keeps the books at Workplace 12.",
        "lifestyle": "Walks to workplace 12 at 8:00 and home at 17:00.",
        "home": "Home",
    }
    (tmp_path / "map.yaml").write_text(yaml.safe_dump(sketch))
    scenario_file = tmp_path / "rows.yaml"
    scenario_file.write_text(
        yaml.safe_dump(
            {
                "name": "rows",
                "seed": 1,
                "model": {"spec": "scripted"},
                "clock": {"start": "2024-02-14T07:00", "tick": "10m", "duration": "1h"},
                "world": {"kind": "town", "map": "map.yaml"},
                "agents": {"mind": "generative", "personas": [persona], "count": 1},
                "memory": {"embedder": "hashing"},
                "output": {"root": str(tmp_path / "runs")},
            }
        )
    )
    scenario = load_scenario(scenario_file, [])
    assert TOWN.check(scenario) == []
    model = load_run_model(scenario, cache=None)
    services = Services(model, None, tmp_path / "memory.db", scenario, tmp_path)
    world = TOWN.build(scenario, services).world
    assert isinstance(world, TownWorld)
    assert sorted(world.known.tree("ines")) == ["Home", "Workplace 12"]


@given(st.integers(0, 99), st.integers(0, 9))
def test_a_name_is_named_only_whole(number: int, digit: int) -> None:
    """A place's name followed by more of a word or number is another place's name."""
    places = [f"Workplace {number}", f"Workplace {number}{digit}"]
    assert named(f"I work at Workplace {number}{digit}.", places) == [places[1]]
    assert named(f"I work at workplace {number}, by the river.", places) == [places[0]]
