"""Read a scenario, apply `--set key.path=value` overrides, validate, and explain every fault.

Nothing loads before a scenario is valid: the YAML, the files it names, each section's fields,
and the references between sections (agents on the roster, times inside the clock, abilities
the minds have). Every fault names its field path and what is allowed.
"""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from simulacra.errors import UserError, unknown
from simulacra.experiments.explain import explained
from simulacra.experiments.kinds import binding_of
from simulacra.experiments.kinds.base import CORRECT, INTERVIEW, TALK, THINK
from simulacra.experiments.scenario import WORLD_CONFIGS, Scenario
from simulacra.experiments.trim import dropped_line, within_the_clock

log = logging.getLogger(__name__)

# Fields whose value may be the path of a YAML file (relative to the scenario's folder), and
# the key such a file may keep its content under.
NAMED_FILES = (
    ("world", "map", None),
    ("agents", "personas", "personas"),
    ("agents", "profiles", "profiles"),
    ("evaluation", "questions", "questions"),
)


class ScenarioError(UserError, ValueError):
    """A scenario that cannot run; `problems` holds one line per fault, each naming its field."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = problems
        lines = "\n".join(f"  {p}" for p in problems)
        super().__init__(f"{source} is not a valid scenario:\n{lines}")


# JSON files named by a scenario (a Tiled map, .tmj) are read as JSON: PyYAML takes seconds
# over a map's hundred thousand numbers.
JSON_SUFFIXES = (".json", ".tmj")


def read_yaml(path: Path, source: str | None = None) -> Any:
    """A YAML (or JSON) file's content; a missing file or a syntax error says where."""
    where = source or str(path)
    if path.is_dir():
        raise ScenarioError(where, [f"{path} is a folder; give a YAML file inside it"])
    if not path.is_file():
        raise ScenarioError(where, [f"file not found: {path.resolve()}"])
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError(where, [f"{path}: cannot be read as UTF-8 text ({exc})"]) from None
    if path.suffix.lower() in JSON_SUFFIXES:
        try:
            return json.loads(text)
        except ValueError as exc:
            raise ScenarioError(where, [f"{path}: not valid JSON: {exc}"]) from None
    try:
        return parse_yaml(text)
    except ValueError as exc:
        raise ScenarioError(where, [f"{path}: {exc}"]) from None


def parse_yaml(text: str) -> Any:
    """YAML text's value; a fault raises ValueError saying where (line and column) and how
    to fix it."""
    try:
        return yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "not YAML"
        if mark is None:
            raise ValueError(f"YAML syntax error: {problem}") from None
        lines = text.splitlines()
        shown = lines[mark.line].strip() if mark.line < len(lines) else ""
        opened = exc.context_mark
        since = ""  # where the unclosed bracket or quote began, when that is another line
        if exc.context and opened is not None and opened.line != mark.line:
            since = f" ({exc.context} that began at line {opened.line + 1})"
        raise ValueError(
            f"YAML syntax error at line {mark.line + 1}, column {mark.column + 1} "
            f"({shown[:60]!r}): {problem}{since}; fix the YAML there (text holding ': ', '#', "
            "or starting with [ { * & ! needs quotes)"
        ) from None
    except yaml.YAMLError as exc:
        raise ValueError(f"YAML syntax error: {exc}") from None
    except ValueError as exc:  # a timestamp that is no date: 2024-02-30
        raise ValueError(f"not a valid YAML value: {exc}; quote it to keep it as text") from None
    except RecursionError:
        raise ValueError("YAML nested too deeply to read") from None


def read_raw(path: str | Path) -> dict[str, Any]:
    """A scenario file's fields, unvalidated."""
    raw = read_yaml(Path(path))
    if not isinstance(raw, dict):
        raise ScenarioError(str(path), ["scenario: expected a YAML mapping of fields"])
    return raw


def load_scenario(
    source: str | Path | Mapping[str, Any] | Scenario,
    overrides: Sequence[str] | None = None,
    *,
    base: Path | None = None,
) -> Scenario:
    """A valid scenario from a YAML path, a mapping (files it names are read relative to
    `base`, default the current folder) or a Scenario, with `key.path=value` overrides."""
    if isinstance(source, Scenario):
        if not overrides:
            return source
        source = source.model_dump(mode="json")
    if isinstance(source, Mapping):
        raw, name, folder = copy.deepcopy(dict(source)), "scenario", base or Path.cwd()
    else:
        raw, name, folder = read_raw(source), str(source), base or Path(source).parent
    # Files are read before overrides, so that `--set agents.personas.3.home=...` reaches them.
    problems = read_named_files(raw, folder)
    if problems:
        raise ScenarioError(name, problems)
    for override in overrides or ():
        apply_override(raw, override, name)
    problems = read_named_files(raw, folder)  # a file an override named
    if problems:
        raise ScenarioError(name, problems)
    return validate_scenario(raw, name)


def validate_scenario(raw: dict[str, Any], source: str) -> Scenario:
    """Validate a raw mapping whose named files are already read in. What it sets after the
    run's last tick is left out, with one warning naming it (experiments/trim.py)."""
    try:
        scenario = Scenario.model_validate(raw)
    except ValidationError as exc:
        raise ScenarioError(source, explained(exc.errors(), Scenario, WORLD_CONFIGS)) from None
    scenario, dropped = within_the_clock(binding_of(scenario).resolve(scenario))
    if dropped:
        log.warning("%s: %s", source, dropped_line(scenario, dropped))
    problems = cross_check(scenario)
    if problems:
        raise ScenarioError(source, problems)
    return scenario


def apply_override(raw: dict[str, Any], override: str, source: str = "--set") -> None:
    """`clock.tick=15m`: the value is read as YAML, so numbers, lists and mappings work."""
    key, sep, value = override.partition("=")
    if not sep or not key.strip():
        raise ScenarioError(source, [f'--set "{override}": expected key.path=value'])
    try:
        parsed = parse_yaml(value) if value.strip() else None
    except ValueError as exc:
        raise ScenarioError(source, [f'--set "{override}": the value: {exc}']) from None
    parts = key.strip().split(".")
    node: Any = raw
    for i, part in enumerate(parts[:-1]):
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict):
            if not isinstance(node.get(part), dict | list):
                node[part] = {}  # a section left empty (`interviews:`) is set field by field
            node = node[part]
        else:
            where = ".".join(parts[: i + 1])
            raise ScenarioError(source, [f'--set "{override}": scenario.{where} is not a mapping'])
    last = parts[-1]
    if isinstance(node, list) and last.isdigit() and int(last) < len(node):
        node[int(last)] = parsed
    elif isinstance(node, dict):
        node[last] = parsed
    else:
        raise ScenarioError(source, [f'--set "{override}": scenario.{key} cannot be set'])


def read_named_files(raw: dict[str, Any], base: Path) -> list[str]:
    """Replace each file-valued field of NAMED_FILES by the YAML the file holds."""
    problems: list[str] = []
    for section, field, key in NAMED_FILES:
        holder = raw.get(section)
        if not (isinstance(holder, dict) and isinstance(holder.get(field), str)):
            continue
        name = holder[field]
        found = next((p for p in (base / name, Path(name)) if p.is_file()), None)
        if found is None:
            problems.append(
                f"scenario.{section}.{field}: file not found: {(base / name).resolve()} "
                "(paths are relative to the scenario file's folder)"
            )
            continue
        try:
            content = read_yaml(found)
        except ScenarioError as exc:
            problems += [f"scenario.{section}.{field}: {p}" for p in exc.problems]
            continue
        if key is not None and isinstance(content, dict) and key in content:
            content = content[key]
        holder[field] = content
    return problems


def cross_check(scenario: Scenario) -> list[str]:
    """References between sections, and what the world kind says of its own."""
    kind = binding_of(scenario)
    problems = []
    for field, allowed, given in (
        ("agents.mind", kind.minds, scenario.agents.mind),
        ("ablation", kind.ablations, scenario.ablation),
        ("memory.mode", kind.memory_modes, scenario.memory.mode),
    ):
        if given is not None and given not in allowed:
            if not allowed:
                problems.append(f"scenario.{field}: the {kind.name} world takes none")
            else:
                problems.append(
                    f"scenario.{field}: {unknown(field.split('.')[-1], given, list(allowed))}"
                )
    if scenario.ablation is not None and kind.is_baseline(scenario):
        problems.append(
            f"scenario.ablation: the {kind.mind(scenario)} mind calls no language model and "
            "has no faculties to switch off; drop the ablation (ablation: null)"
        )
    problems += kind.check_options(scenario)
    problems += kind.check(scenario)
    if problems:
        return problems
    roster = kind.roster(scenario)
    abilities = kind.abilities(scenario)
    needs = {"thought": THINK, "conversation": TALK, "correction": CORRECT}
    for i, item in enumerate(scenario.interventions):
        where = f"scenario.interventions[{i}]"
        for who in item.who:
            if who not in roster:
                problems.append(f"{where}.agent: {unknown('agent', who, roster)}")
        count = {"thought": 1, "conversation": 2, "event": 0}.get(item.type)
        if count is not None and len(item.who) != count:
            problems.append(f"{where}: a {item.type} needs {count} agent(s), got {len(item.who)}")
        elif count is not None and len(set(item.who)) < count:
            problems.append(f"{where}.agents: a conversation needs two different agents")
        if item.type in needs and needs[item.type] not in abilities:
            problems.append(
                f"{where}.type: the {kind.name} world's minds cannot take a {item.type}"
            )
        if item.type == "event" and not kind.changes:
            problems.append(f"{where}.type: the {kind.name} world takes no event interventions")
        if item.type != "event" and item.change:
            problems.append(f"{where}.change: only an event intervention takes a change")
        off = scenario.off_the_clock(item.at)
        if off:
            problems.append(f"{where}.at: {off}")
    if scenario.interviews is not None:
        if INTERVIEW not in abilities:
            problems.append(
                f"scenario.interviews: cannot be held: {kind.why_no_interviews(scenario)}"
            )
        for i, moment in enumerate(scenario.interviews.times):
            off = scenario.off_the_clock(moment)
            if off:
                problems.append(f"scenario.interviews.times[{i}]: {off}")
    return problems + _evaluation_problems(scenario, roster, abilities)


def _evaluation_problems(scenario: Scenario, roster: list[str], abilities: set[str]) -> list[str]:
    plan = scenario.evaluation
    kind = binding_of(scenario)
    where = "scenario.evaluation"
    problems = []
    for condition in plan.conditions or ():
        if condition not in kind.ablations:
            found = unknown("condition", condition, list(kind.ablations))
            problems.append(f"{where}.conditions: {found}")
    for agent in plan.agents or ():
        if agent not in roster:
            problems.append(f"{where}.agents: {unknown('agent', agent, roster)}")
    moments = [("at", plan.at)] + [(f"times[{i}]", t) for i, t in enumerate(plan.times or ())]
    for field, moment in moments:
        off = None if moment is None else scenario.off_the_clock(moment)
        if off:
            problems.append(f"{where}.{field}: {off}")
    if plan.questions is not None and INTERVIEW not in abilities:
        problems.append(f"{where}: cannot be held: {kind.why_no_interviews(scenario)}")
    return problems
