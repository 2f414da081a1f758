"""What a fork will be, decided before anything runs: the fork point (a step, or a tick's
time), the run whose own log holds it, the checkpoint to start from, the child's scenario
(the parent's, with interventions from the fork point on and settings that may change
mid-run), and whether the parent's model calls can be replayed. Anything that cannot be
branched is refused here, with its reason.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml
from pydantic import TypeAdapter, ValidationError

from simulacra.core.times import Moment
from simulacra.errors import UserError
from simulacra.experiments.kinds import binding_of
from simulacra.experiments.load import load_scenario
from simulacra.experiments.models import LLM_CACHE
from simulacra.experiments.scenario import Scenario
from simulacra.runlog import ForkPoint, RunDir, fork_point, prefix_digest

# What may change at a fork point: the model and where the child is written. Everything
# else built the world and the minds at the start, and the child takes those from the
# parent's state; a change to the world or an agent is an intervention.
FORKABLE = ("model.", "output.")
STATE = "checkpoint"


class ForkError(UserError):
    """A branch that cannot be made as asked."""


@dataclass(frozen=True)
class Plan:
    """A fork, ready to make. `owner`: the run whose own log holds the fork point (the
    parent, or an ancestor when the parent is itself a fork from a later step). `start`: the
    checkpoint to restore (None: from the first step), `start_seq` the `seq` its replay's
    first event takes; `point` what the child's run.json records."""

    owner: RunDir
    owner_scenario: Scenario
    scenario: Scenario
    point: ForkPoint
    start: dict[str, Any] | None
    start_offset: int
    start_seq: int
    changes: tuple[str, ...]
    cache: Path | None  # the owner's response cache, when its model is served


def plan(
    parent: str | Path,
    at: int | str | datetime,
    *,
    sets: Sequence[str] = (),
    interventions: Sequence[Mapping[str, Any]] = (),
) -> Plan:
    """Check a fork of `parent` at `at` and say how it will be made; raise ForkError (or a
    ScenarioError naming the field) when it cannot be."""
    run = RunDir.open(parent)
    raw = run.config()  # read once: a town's resolved config.yaml holds its map and personas
    scenario = load_scenario(raw)
    step = _step(scenario, at)
    owner = RunDir(run.path.resolve())
    point = fork_point(owner.path)
    while point is not None and step <= point.step:  # that step is the ancestor's
        owner = RunDir(point.parent)
        point = fork_point(owner.path)
    if owner.path != run.path.resolve():
        raw = owner.config()
        scenario = load_scenario(raw)
    owner_scenario = scenario
    check_sets(sets, f"at step {step}", binding_of(owner_scenario).forkable)
    child = _child(owner, raw, owner_scenario, sets, interventions, step)
    offset, lines = _prefix(owner, step)
    base = point.seq if point is not None else 0
    start, start_offset = _checkpoint(owner, step, point)
    with owner.events_path.open("rb") as fh:
        start_lines = fh.read(start_offset).count(b"\n")
    at_time = child.clock.calendar().times()[step]
    digest = prefix_digest(owner.events_path, offset)
    assert digest is not None  # _prefix found those bytes
    return Plan(
        owner=owner,
        owner_scenario=owner_scenario,
        scenario=child,
        point=ForkPoint(owner.path, step, at_time.isoformat(), offset, digest, base + lines),
        start=start,
        start_offset=start_offset,
        start_seq=base + start_lines if start is not None else 0,
        changes=(*sets, *(f"{i['type']} at {i['at']}" for i in interventions)),
        cache=_cache(owner, owner_scenario),
    )


def check_sets(
    sets: Sequence[str], where: str = "at the fork point", world: Sequence[str] = ()
) -> None:
    """Refuse a setting that cannot change mid-run; `world`: the world's own that can
    (Binding.forkable)."""
    allowed = (*FORKABLE, *world)
    for item in sets:
        key = item.partition("=")[0].strip()
        if not any(key == a.rstrip(".") or key.startswith(a.rstrip(".") + ".") for a in allowed):
            raise ForkError(
                f'--set "{item}": {key} cannot change mid-run: the child takes the world and the '
                f"minds as the parent left them {where}, and that setting built them at the "
                f"start. A fork may change {', '.join(a.rstrip('.') for a in allowed)}; a change "
                "to the world or to an agent goes in as an intervention (--intervention FILE: a "
                "thought, event, conversation or correction), or run the changed scenario from "
                "the start"
            )


def read_interventions(path: str | Path) -> list[dict[str, Any]]:
    """The interventions in a YAML file: a list of them, one of them, or a mapping with an
    `interventions` list (a scenario's own section)."""
    file = Path(path)
    try:
        raw = yaml.safe_load(file.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ForkError(f"--intervention {file}: cannot be read ({exc})") from None
    if isinstance(raw, dict) and isinstance(raw.get("interventions"), list):
        raw = raw["interventions"]
    items = raw if isinstance(raw, list) else [raw]
    if not all(isinstance(item, dict) for item in items):
        raise ForkError(
            f"--intervention {file}: expected interventions (mappings with at, type and "
            "text), as a scenario's `interventions` section holds them"
        )
    return items


# --- inside ----------------------------------------------------------------------------------


def _step(scenario: Scenario, at: int | str | datetime) -> int:
    """The step `at` names: a number of ticks, or the time a tick starts at."""
    times = scenario.clock.calendar().times()
    if isinstance(at, int) or (isinstance(at, str) and at.strip().isdigit()):
        step = int(at)
    else:
        try:
            when = scenario.when(TypeAdapter(Moment).validate_python(at))
        except ValidationError:
            raise ForkError(
                f"--at {at}: neither a step (a whole number) nor a time (18:00, or "
                "2024-02-13T18:00)"
            ) from None
        if when not in times:
            later = next((i for i, t in enumerate(times) if t > when), None)
            near = f"; the next tick starts at {times[later]:%Y-%m-%d %H:%M}" if later else ""
            raise ForkError(f"--at {at}: no tick starts at {when:%Y-%m-%d %H:%M}{near}")
        step = times.index(when)
    if not 0 <= step < len(times):
        raise ForkError(
            f"--at {at}: the run has steps 0 to {len(times) - 1} (a fork runs its own "
            "from the fork point on, so it cannot start at the run's end)"
        )
    return step


def _child(
    owner: RunDir,
    raw: dict[str, Any],
    owner_scenario: Scenario,
    sets: Sequence[str],
    interventions: Sequence[Mapping[str, Any]],
    step: int,
) -> Scenario:
    """The child's scenario: the owner's, with the new interventions after its own (so the
    indices its checkpoint records as fired still name the same ones) and the settings."""
    raw = {**raw, "interventions": [*raw.get("interventions", []), *map(dict, interventions)]}
    root = [f"output.root={json.dumps(str(owner.path.parent))}"]
    child = load_scenario(raw, [*root, *sets])
    when = child.clock.calendar().times()[step]
    for item in child.interventions[len(owner_scenario.interventions) :]:
        if child.when(item.at) < when:
            raise ForkError(
                f"the intervention at {child.written(item.at)} ({item.type}) comes before the "
                f"fork point ({child.written(when)}, step {step}), in the part the child "
                "shares with its parent; set it at the fork point or later"
            )
    return child


def _prefix(owner: RunDir, step: int) -> tuple[int, int]:
    """The bytes and lines of the owner's own log that come before tick `step` runs: up to
    the world's state at that step, and the checkpoint taken there if one was."""
    offset = lines = 0
    found = False
    with owner.events_path.open("rb") as fh:
        for line in fh:
            if not line.endswith(b"\n"):
                break
            if found:
                if b'"kind":"checkpoint"' in line:
                    offset, lines = offset + len(line), lines + 1
                break
            offset, lines = offset + len(line), lines + 1
            if b'"kind":"world"' in line and json.loads(line)["data"]["step"] == step:
                found = True
    if not found:
        raise ForkError(
            f"{owner.path} has not reached step {step}: its log holds no world state for it"
        )
    return offset, lines


def _checkpoint(
    owner: RunDir, step: int, point: ForkPoint | None
) -> tuple[dict[str, Any] | None, int]:
    """The owner's newest intact checkpoint at or before `step`, and its log offset; None
    and 0 for a run with none (the child replays from the first step)."""
    for path in sorted((owner.path / STATE).glob("state-*.json"), reverse=True):
        try:
            state = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if int(state["step"]) > step:
            continue
        offset = int(state["offset"])
        memory = state.get("memory")
        if prefix_digest(owner.events_path, offset) != state["digest"]:
            continue
        if memory and not (owner.path / STATE / memory).is_file():
            continue
        return state, offset
    if point is not None:
        raise ForkError(
            f"{owner.path} is itself a fork (at step {point.step}) and keeps no checkpoint "
            f"between that step and step {step}; fork it at a later step, or fork its parent "
            f"{point.parent}"
        )
    return None, 0


def _cache(owner: RunDir, scenario: Scenario) -> Path | None:
    """The owner's response cache, where its model was served; refuses one without."""
    spec = scenario.model.spec
    if spec == "scripted" or spec.startswith("replay:"):
        return None  # the scripted model answers again for free; a replay reads its own
    own = owner.path / LLM_CACHE
    if own.is_file():
        return own
    if scenario.model.cache is not None and Path(scenario.model.cache).is_file():
        return Path(scenario.model.cache)
    raise ForkError(
        f"{owner.path} ran on the served model {spec} without a response cache, so the "
        "steps before the fork point cannot be replayed without calling the model again; "
        "fork a run made with a cache (the default: runs keep llm_cache.sqlite)"
    )
