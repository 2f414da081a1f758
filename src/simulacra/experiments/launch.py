"""One front door for every scenario file: find its world, validate it, run it."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from simulacra.experiments.load import ScenarioError, apply_override, load_scenario, read_raw
from simulacra.runlog import RunDir

WorldKind = Literal["town", "grid", "commute"]
WORLD_KINDS: tuple[WorldKind, ...] = ("town", "grid", "commute")


def world_kind(raw: dict[str, Any], source: str) -> WorldKind:
    """`world.kind` names the world; the commute experiment keeps its world in `commute:`."""
    if "commute" in raw:
        return "commute"
    world = raw.get("world")
    kind = world.get("kind") if isinstance(world, dict) else None
    if kind in WORLD_KINDS:
        return kind  # type: ignore[no-any-return]
    raise ScenarioError(
        source,
        [f"scenario.world.kind: expected one of {', '.join(WORLD_KINDS)}, got {kind!r}"],
    )


def run_scenario_file(
    path: str | Path,
    overrides: list[str] | None = None,
    *,
    model_spec: str | None = None,
    seed: int | None = None,
) -> RunDir:
    """Validate the scenario at `path` with its `--set` overrides, then run it to the end."""
    source = str(path)
    raw = read_raw(path)
    kind = world_kind(raw, source)
    if kind == "town":
        from simulacra.engine import run_scenario

        return run_scenario(load_scenario(path, overrides), model_spec=model_spec, seed=seed)
    if kind == "commute":
        from simulacra.commuter.experiment import run_commute_scenario

        return run_commute_scenario(path, overrides=overrides, model_spec=model_spec, seed=seed)
    from simulacra.worlds.grid import parse_scenario, run_hazard

    for override in overrides or []:
        apply_override(raw, override, source)
    return run_hazard(parse_scenario(raw, source=source), model=model_spec, seed=seed)
