"""Read a scenario file, apply `--set key.path=value` overrides, validate, and explain faults."""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any, Union, get_args, get_origin

import yaml
from pydantic import BaseModel, ValidationError

from simulacra.experiments.config import Scenario
from simulacra.worlds.town.map import unknown


class ScenarioError(ValueError):
    """A scenario that cannot run; `problems` holds one line per fault, each naming its field."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.problems = problems
        lines = "\n".join(f"  {p}" for p in problems)
        super().__init__(f"{source} is not a valid scenario:\n{lines}")


def read_raw(path: str | Path) -> dict[str, Any]:
    """A scenario file's fields, unvalidated; a missing file or a non-mapping says so."""
    path = Path(path)
    if not path.is_file():
        raise ScenarioError(
            str(path), [f"file not found: {path.resolve()} (give the path of a scenario YAML)"]
        )
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(raw, dict):
        raise ScenarioError(str(path), ["scenario: expected a YAML mapping of fields"])
    return raw


def load_scenario(path: str | Path, overrides: list[str] | None = None) -> Scenario:
    path = Path(path)
    raw = read_raw(path)
    # Files are read before overrides, so that `--set agents.personas.3.home=...` reaches them.
    problems = _read_named_files(raw, path.parent)
    if problems:
        raise ScenarioError(str(path), problems)
    for override in overrides or []:
        apply_override(raw, override, str(path))
    return validate_scenario(raw, str(path), base=path.parent)


def validate_scenario(raw: dict[str, Any], source: str, base: Path | None = None) -> Scenario:
    """Validate a raw scenario mapping; files it names are read relative to `base`."""
    problems = _read_named_files(raw, base or Path.cwd())
    if problems:
        raise ScenarioError(source, problems)
    try:
        scenario = Scenario.model_validate(raw)
    except ValidationError as exc:
        raise ScenarioError(source, [_explain(e) for e in exc.errors()]) from None
    problems = cross_check(scenario)
    if problems:
        raise ScenarioError(source, problems)
    return scenario


def apply_override(raw: dict[str, Any], override: str, source: str = "--set") -> None:
    """`schedule.tick_minutes=15`: the value is read as YAML, so numbers and lists work."""
    key, sep, value = override.partition("=")
    if not sep or not key.strip():
        raise ScenarioError(source, [f'--set "{override}": expected key.path=value'])
    parts = key.strip().split(".")
    node: Any = raw
    for i, part in enumerate(parts[:-1]):
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict):
            node = node.setdefault(part, {})
        else:
            where = ".".join(parts[: i + 1])
            raise ScenarioError(source, [f'--set "{override}": scenario.{where} is not a mapping'])
    last = parts[-1]
    parsed = yaml.safe_load(value) if value.strip() else None
    if isinstance(node, list) and last.isdigit() and int(last) < len(node):
        node[int(last)] = parsed
    elif isinstance(node, dict):
        node[last] = parsed
    else:
        raise ScenarioError(source, [f'--set "{override}": scenario.{key} cannot be set'])


def _read_named_files(raw: dict[str, Any], base: Path) -> list[str]:
    """Replace `world.map` and `agents.personas` paths by the YAML they name."""
    problems: list[str] = []
    targets = [("world", "map"), ("agents", "personas")]
    for section, field in targets:
        holder = raw.get(section)
        if isinstance(holder, dict) and isinstance(holder.get(field), str):
            name = holder[field]
            found = next((p for p in (base / name, Path(name)) if p.is_file()), None)
            if found is None:
                problems.append(
                    f"scenario.{section}.{field}: file not found: {(base / name).resolve()} "
                    "(paths are relative to the scenario file's folder)"
                )
                continue
            content = yaml.safe_load(found.read_text(encoding="utf-8"))
            if field == "personas" and isinstance(content, dict) and "personas" in content:
                content = content["personas"]
            holder[field] = content
    return problems


def cross_check(scenario: Scenario) -> list[str]:
    """References between sections: homes and places on the map, agents on the roster."""
    town = scenario.world.map
    problems = [f"scenario.world.map.{where}: {what}" for where, what in town.problems()]
    places = town.place_names
    personas = scenario.agents.personas
    ids = [p.id for p in personas]
    for i, persona in enumerate(personas):
        if persona.home not in places:
            problems.append(
                f"scenario.agents.personas[{i}].home: {unknown('place', persona.home, places)}"
            )
        if persona.id in ids[:i]:
            problems.append(f'scenario.agents.personas[{i}].id: duplicate id "{persona.id}"')
    count = scenario.agents.count
    if count is not None and count > len(personas):
        problems.append(
            f"scenario.agents.count: {count} agents asked for but the roster has {len(personas)}"
        )
    taking = [p.id for p in scenario.agents.roster]
    start, end = scenario.schedule.start, scenario.end
    for i, item in enumerate(scenario.interventions):
        where = f"scenario.interventions[{i}]"
        for who in item.who:
            if who not in taking:
                detail = " (beyond agents.count)" if who in ids else ""
                problems.append(f"{where}.agent: {unknown('agent', who, taking)}{detail}")
        needed = {"thought": 1, "conversation": 2, "event": 0}[item.type]
        if len(item.who) != needed:
            problems.append(f"{where}: a {item.type} needs {needed} agent(s), got {len(item.who)}")
        if item.type == "event":
            problems += _event_problems(where, item.place, item.object, item.state, scenario)
        if not start <= scenario.when(item.at) < end:
            problems.append(
                f"{where}.at: {scenario.when(item.at)} is outside the schedule ({start} to {end})"
            )
    if scenario.interviews is not None:
        for i, moment in enumerate(scenario.interviews.times):
            if not start <= scenario.when(moment) < end:
                problems.append(
                    f"scenario.interviews.times[{i}]: {scenario.when(moment)} is outside the "
                    f"schedule ({start} to {end})"
                )
    if scenario.attendance is not None and scenario.attendance.place not in places:
        problems.append(
            f"scenario.attendance.place: {unknown('place', scenario.attendance.place, places)}"
        )
    return problems


def _event_problems(
    where: str, place: str | None, thing: str | None, state: str | None, scenario: Scenario
) -> list[str]:
    town = scenario.world.map
    if place is None or thing is None or state is None:
        return [f"{where}: an event needs place, object and state"]
    spec = town.place(place)
    if spec is None:
        return [f"{where}.place: {unknown('place', place, town.place_names)}"]
    things = [t.name for a in spec.areas for t in a.objects]
    if thing not in things:
        return [f"{where}.object: {unknown('object', thing, things)} (at {place})"]
    return []


def _explain(error: Any) -> str:
    loc = tuple(error["loc"])
    path = "scenario" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc)
    if error["type"] == "extra_forbidden":
        allowed = _fields_at(loc[:-1])
        return f"{path}: unknown field; allowed fields: {', '.join(allowed)}"
    if error["type"] == "missing":
        return f"{path}: required field missing"
    message = str(error["msg"]).removeprefix("Value error, ")
    if error["type"] in ("literal_error", "enum"):
        return f"{path}: {message} (got {error['input']!r})"
    shown = repr(error["input"])
    if len(shown) > 60 or isinstance(error["input"], dict | list):
        return f"{path}: {message}"
    return f"{path}: {message} (got {shown})"


def _fields_at(loc: tuple[Any, ...]) -> list[str]:
    model: type[BaseModel] | None = Scenario
    for part in loc:
        if model is None:
            return []
        if isinstance(part, int):
            continue
        field = model.model_fields.get(str(part))
        model = _model_in(field.annotation) if field is not None else None
    return list(model.model_fields) if model is not None else []


def _model_in(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if get_origin(annotation) in (list, Union, types.UnionType):
        for arg in get_args(annotation):
            found = _model_in(arg)
            if found is not None:
                return found
    return None
