from typing import Any

from simulacra.worlds.grid import GridScenario, parse_scenario


def scenario(
    people: list[dict[str, Any]],
    *,
    steps: int = 2,
    places: list[dict[str, Any]] | None = None,
    fires: list[dict[str, Any]] | None = None,
    frames: bool = False,
) -> GridScenario:
    """A small hand-built scenario: explicit agents, no generated ones."""
    return parse_scenario(
        {
            "scenario": "grid-test",
            "seed": 1,
            "steps": steps,
            "world": {"half_size": 10, "places": places or [], "fires": fires or []},
            "agents": {"count": len(people), "people": people},
            "output": {"frames": frames, "report": False},
        }
    )
