"""The scenario reference the documentation site shows, generated from `Scenario`."""

from simulacra.experiments.reference import scenario_reference


def _row(page: str, section: str, field: str) -> str:
    part = page.split(f"## `{section}`", 1)[1].split("\n## ", 1)[0]
    return next(line for line in part.splitlines() if line.startswith(f"| `{field}` |"))


def test_every_world_kind_has_its_own_section_and_nested_sections_name_their_path():
    page = scenario_reference()
    for kind in ("town", "grid", "commute", "elfarol", "embodied"):
        assert f"## `world` ({kind} world)" in page
    assert "## `world.city.taxi_strikes` (commute world)" in page
    assert "## `memory.embedder`" in page


def test_a_row_gives_the_type_default_and_meaning():
    page = scenario_reference()
    assert _row(page, "memory", "importance") == (
        '| `importance` | "model" or "rule" or number | `"model"` |  |'
    )
    row = _row(page, "clock", "checkpoint_every")
    assert "| integer | `6` | ticks between checkpoints |" in row
    assert "one of the world sections" in _row(page, "scenario", "world")
    assert "required" in _row(page, "scenario", "clock")
