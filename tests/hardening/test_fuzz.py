"""Fuzzing `simulacra run` with every shipped scenario: broken scenario files and `--set`
overrides (valid and broken YAML, wrong types, unknown keys, out-of-range values). Whatever
comes in, the command never shows a traceback, exits 0 or 2, and never leaves a run directory
behind a start that failed (every run directory left holds a log that starts with the `run`
event).

Bounded for CI: a fixed number of examples per scenario, derandomised, no deadline (a valid
example runs a small scenario to the end on the scripted model). It adds about half a minute
to the suite.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from simulacra.cli import app
from simulacra.runlog import read_events

from .conftest import SCENARIOS, sets

runner = CliRunner()
EXAMPLES = 30

# Each shipped scenario made small and offline; the fuzzed overrides come after these.
SMALL = {
    "town": [
        "memory.embedder=hashing",
        "agents.count=2",
        "clock.start=2024-02-14T07:20",
        "clock.duration=20m",
        'interviews.times=["07:30"]',
        'world.attendance.start="07:20"',
        'world.attendance.end="07:40"',
    ],
    "hazard": [
        "agents.count=4",
        "clock.ticks=2",
        "world.fires.0.start_step=1",
        "world.fires.1.start_step=2",
    ],
    "commute": [
        "memory.embedder=hashing",
        "agents.mix={student: 1, factory_worker: 1}",
        "clock.ticks=2",
        "world.city.taxi_strikes.0.days=[2]",
    ],
    "elfarol": ["agents.count=10", "clock.ticks=3"],
}
QUIET = ["output.root=runs", "output.report=false", "output.frames=false"]
# Fields left alone: where runs go and what they write (a fuzzed path could be anywhere on
# this machine), the model (always scripted here) and the embedder (the fast one).
UNTOUCHED = ("output", "model", "memory.embedder", "sweep")
UNKNOWN_KEYS = ["clock.tik", "world.nowhere", "agents.0", "extra", "memory.importance.x", "a..b"]
BROKEN_YAML = [
    "[1",
    "{a: 1",
    ": :",
    "*alias",
    "&a [*a]",
    "!!python/object:os.system x",
    "'open",
    "- - -\n  x",
    "a: b: c",
    "[[[[[[[[",
    "2024-02-30",
    "\t",
]
TOKENS = [
    "",
    "x",
    "null",
    "~",
    "true",
    "07:30",
    "25:00",
    "10m",
    "0m",
    "-1h",
    "1d",
    "7d",
    "stream",
    "bounded",
    "hashing",
    "A1",
    "full",
    "female",
    "builtin",
    "sumo",
    "walk",
    "2024-02-14T07:00",
    "marta_okafor",
    "student",
    "Hobbs Cafe",
    "fire1",
    "1e999",
    "nan",
]


def _paths(value: Any, prefix: str = "") -> Iterator[tuple[str, bool]]:
    """Every field path of a resolved scenario, and whether it holds a scalar."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _paths(inner, f"{prefix}{key}.")
    elif isinstance(value, list):
        for i, inner in enumerate(value[:3]):
            yield from _paths(inner, f"{prefix}{i}.")
    if prefix:
        yield prefix[:-1], not isinstance(value, dict | list)


def _fields(name: str) -> list[str]:
    raw = yaml.safe_load((SCENARIOS / f"{name}.yaml").read_text())
    return sorted(path for path, _ in _paths(raw) if not path.startswith(UNTOUCHED)) + UNKNOWN_KEYS


scalars = st.one_of(
    st.integers(-3, 12),
    st.floats(-2, 2, allow_nan=False),
    st.booleans(),
    st.none(),
    st.sampled_from(TOKENS),
    st.text(alphabet="abcxyz019 :-_.[]{}#&*!|>'\"%@", max_size=12),
)
values = st.one_of(
    scalars.map(json.dumps),
    st.lists(scalars, max_size=3).map(json.dumps),
    st.dictionaries(st.sampled_from(["a", "name", "days", "at", "kind"]), scalars, max_size=2).map(
        json.dumps
    ),
    st.sampled_from(TOKENS),
    st.sampled_from(BROKEN_YAML),
)


def overrides(name: str) -> st.SearchStrategy[list[str]]:
    one = st.tuples(st.sampled_from(_fields(name)), values).map(lambda kv: f"{kv[0]}={kv[1]}")
    odd = st.sampled_from(["=1", "noequals", "clock.tick", " = ", "clock..tick=1"])
    return st.lists(st.one_of(one, one, one, odd), min_size=1, max_size=3)


@st.composite
def mutated(draw: st.DrawFn, name: str) -> str:
    """The scenario file's text with one to three edits: lines lost, doubled or swapped,
    characters that matter to YAML put anywhere, or the file cut short."""
    lines = (SCENARIOS / f"{name}.yaml").read_text().splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(lines) - 1))
        edit = draw(st.sampled_from(["drop", "double", "swap", "char", "cut"]))
        if edit == "drop":
            del lines[at]
        elif edit == "double":
            lines.insert(at, lines[at])
        elif edit == "swap":
            other = draw(st.integers(0, len(lines) - 1))
            lines[at], lines[other] = lines[other], lines[at]
        elif edit == "char":
            column = draw(st.integers(0, len(lines[at])))
            char = draw(st.sampled_from([*":[]{}-#&*!|>'\"\t %,", "  "]))
            lines[at] = lines[at][:column] + char + lines[at][column:]
        else:
            lines = lines[: at + 1]
            lines[-1] = lines[-1][: draw(st.integers(0, len(lines[-1])))]
        if not lines:
            break
    return "".join(lines)


@contextmanager
def workspace(name: str) -> Iterator[Path]:
    """A fresh folder holding a copy of the scenario's side files, as the current folder."""
    before = Path.cwd()
    with tempfile.TemporaryDirectory(prefix="simulacra-fuzz-") as folder:
        here = Path(folder)
        for side in ("town", "commute"):
            if (SCENARIOS / side).is_dir():
                shutil.copytree(SCENARIOS / side, here / side)
        os.chdir(here)
        try:
            yield here
        finally:
            os.chdir(before)


def check(here: Path, args: list[str]) -> None:
    result = runner.invoke(app, args)
    shown = f"simulacra {' '.join(args)}\n{result.output}"
    assert result.exit_code in (0, 2), shown
    assert "Traceback" not in result.output and "internal error" not in result.output, shown
    if result.exit_code == 2:
        assert result.output.startswith("error: ") or "\nerror: " in result.output, shown
    runs = [p.parent for p in here.rglob("run.json")]
    if result.exit_code == 0:
        assert len(runs) == 1, shown
    for run_dir in runs:  # a run directory left behind must be of a run that started
        first = next(read_events(run_dir / "events.jsonl"), None)
        assert first is not None and first.kind == "run", shown


FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.mark.parametrize("name", list(SMALL))
def test_set_overrides_never_end_in_a_traceback_or_a_stray_run_directory(name: str) -> None:
    @FUZZ
    @given(fuzzed=overrides(name))
    def fuzz(fuzzed: list[str]) -> None:
        with workspace(name) as here:
            scenario = str(SCENARIOS / f"{name}.yaml")
            args = ["run", scenario, *sets([*SMALL[name], *QUIET, *fuzzed]), "--model", "scripted"]
            check(here, args)

    fuzz()


@pytest.mark.parametrize("name", list(SMALL))
def test_broken_scenario_files_never_end_in_a_traceback_or_a_stray_run_directory(
    name: str,
) -> None:
    @FUZZ
    @given(text=mutated(name))
    def fuzz(text: str) -> None:
        with workspace(name) as here:
            (here / "scenario.yaml").write_text(text)
            args = ["run", "scenario.yaml", *sets([*SMALL[name], *QUIET]), "--model", "scripted"]
            check(here, args)

    fuzz()
