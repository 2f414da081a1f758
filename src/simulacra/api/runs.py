"""Runs from Python: start one, resume one, open one, and read it as DataFrames."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from html import escape
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd
import yaml

from simulacra.api.export import run_tables, write_parquet
from simulacra.api.tables import TABLES
from simulacra.core import InterviewAnswer
from simulacra.engine import ProgressHook
from simulacra.experiments import Scenario, load_scenario, read_interventions
from simulacra.experiments import fork as fork_run
from simulacra.experiments import interview as interview_agent
from simulacra.experiments import resume as resume_run
from simulacra.experiments import run as run_scenario
from simulacra.report.prompts import kept_prompts, prompt_dicts
from simulacra.runlog import RunDir, children, fork_point, history

ScenarioSource = str | Path | Mapping[str, Any] | Scenario
"""A scenario YAML file, a mapping of its fields (files it names are read relative to the
current folder), or a `Scenario`."""

T = TypeVar("T")
Settings = Mapping[str, Any] | Sequence[str] | None
"""Field overrides: `{"agents.count": 3}`, or `["agents.count=3"]` as `--set` takes them."""


def overrides(set: Settings = None, model: str | None = None, seed: int | None = None) -> list[str]:
    """`set`, `model` and `seed` as `key.path=value` overrides (values as JSON, which YAML
    reads back unchanged)."""
    if isinstance(set, str):
        found = [set]
    elif isinstance(set, Mapping):
        found = [f"{key}={_yaml(value)}" for key, value in set.items()]
    else:
        found = list(set or [])
    if model is not None:
        found.append(f"model.spec={_yaml(model)}")
    if seed is not None:
        found.append(f"seed={seed}")
    return found


@dataclass(frozen=True)
class Run:
    """A run directory, finished, failed or still being written.

    The tables are read from its event log each time they are asked for, so a run still
    going shows what it has written so far. `Run(path)` refuses a folder that is not a run.
    """

    path: Path

    def __post_init__(self) -> None:
        # Resolved: a run opened by a relative path is the same run as its child's parent.
        object.__setattr__(self, "path", RunDir.open(self.path).path.resolve())

    @property
    def name(self) -> str:
        """The run directory's name: `<scenario>-<date>-<time>-<id>`."""
        return self.path.name

    @property
    def info(self) -> dict[str, Any]:
        """run.json: scenario, seed, model, versions, start and end times, status, summary."""
        return RunDir(self.path).info()

    @property
    def status(self) -> str:
        """running, completed, failed or interrupted."""
        return str(self.info.get("status"))

    @property
    def scenario(self) -> Scenario:
        """The resolved scenario the run was started with."""
        return load_scenario(RunDir(self.path).config())

    @property
    def report(self) -> Path:
        """report.html: plots, timelines and the model budget (written when the run ends)."""
        return self.path / "report.html"

    @property
    def viewer(self) -> Path:
        """viewer.html: the replay (`simulacra view` serves it)."""
        return self.path / "viewer.html"

    def summary(self) -> dict[str, float]:
        """The headline figures a sweep compares (empty until the run completes)."""
        return {str(k): float(v) for k, v in self.info.get("summary", {}).items()}

    def events(self, kinds: str | Iterable[str] | None = None) -> pd.DataFrame:
        """Every event, or those of `kinds` ("plan", ["message", "conversation"]): `seq`,
        `t` (simulated time), `wall` (UTC), `kind`, `agent`, and `data`, the payload as a dict
        (`pd.json_normalize(events["data"].tolist())` spreads it into columns)."""
        chosen = {kinds} if isinstance(kinds, str) else None if kinds is None else set(kinds)
        return TABLES["events"].build(history(self.path, chosen))

    def agents(self) -> pd.DataFrame:
        """One row per agent: `agent` (its id), `name` and its persona's fields (traits as a
        list, relationships as a dict)."""
        return self._table("agents")

    def memories(self) -> pd.DataFrame:
        """Every memory record with its provenance and whether it is still valid."""
        return self._table("memories")

    def retrievals(self) -> pd.DataFrame:
        """One row per record each retrieval returned, with its score components."""
        return self._table("retrievals")

    def calls(self, prompts: bool = False) -> pd.DataFrame:
        """Every model call: purpose, tokens, latency, cache, attempts, fallback, the hash
        its prompt is kept under (`prompt_ref`) and, with `prompts`, the prompt itself
        (`prompt`: [{"role", "text"}, ...]; None where the run kept none)."""
        frame = self._table("calls")
        if prompts:
            store = kept_prompts(self.path)
            kept = [prompt_dicts(store, ref) for ref in frame["prompt_ref"]]
            frame["prompt"] = pd.Series(kept, index=frame.index, dtype="object")
        return frame

    def prompt(self, seq: int) -> list[dict[str, str]]:
        """The messages of the model call logged as event `seq`: [{"role", "text"}, ...]."""
        found = self.calls()
        row = found[found["seq"] == seq]
        if row.empty:
            seqs = found["seq"].tolist()
            near = ", ".join(str(s) for s in sorted(seqs, key=lambda s: abs(s - seq))[:3])
            raise ValueError(
                f"{self.name}: event {seq} is no model call"
                + (f"; the nearest calls are events {near}" if seqs else "; the run made none")
            )
        kept = prompt_dicts(kept_prompts(self.path), row["prompt_ref"].iloc[0])
        if kept is None:
            raise ValueError(
                f"{self.name}: event {seq}'s prompt was not kept (output.prompts was off, or "
                "the run predates the prompt log)"
            )
        return kept

    def metrics(self) -> pd.DataFrame:
        """The measures the run logged: awareness at each interview, the headline figures."""
        return self._table("metrics")

    def interview(
        self,
        agent: str,
        question: str,
        *,
        model: str | None = None,
        at: datetime | None = None,
    ) -> InterviewAnswer:
        """Ask an agent a question; it answers from a copy of its saved memory (the run is
        left as it is) with the run's model, or `model` (a spec). `at`: the simulated time
        it answers at (default: the run's last tick). The answer names the memories used."""
        return _blocking(lambda: interview_agent(self.path, agent, question, model=model, now=at))

    def fork(
        self,
        at: int | str | datetime,
        *,
        set: Settings = None,
        interventions: Sequence[Mapping[str, Any]] | str | Path = (),
        replicates: int = 0,
        progress: bool = True,
    ) -> Run:
        """A counterfactual branch: a child run that is this run up to `at` (a step, or the
        time a tick starts: "12:00") and then goes on with `interventions` (scenario entries,
        or a YAML file of them) and `set` (model.* and output.* only); `replicates` more
        children draw fresh random numbers from `at` on (see `children()`). The steps before
        `at` make no model call and are not copied: the child's tables read them from here."""
        items = (
            read_interventions(interventions)
            if isinstance(interventions, str | Path)
            else list(interventions)
        )
        made = _blocking(
            lambda: fork_run(
                self.path,
                at=at,
                sets=overrides(set),
                interventions=items,
                replicates=replicates,
                progress=progress,
            )
        )
        return Run(made[0].path)

    @property
    def parent(self) -> Run | None:
        """The run this one was forked from, or None."""
        point = fork_point(self.path)
        return None if point is None else Run(point.parent)

    def children(self) -> list[Run]:
        """The runs forked from this one (beside it, where forks are written), oldest first."""
        found = [Run(path) for path in children(self.path)]
        return sorted(found, key=lambda r: float(r.info.get("started") or 0))

    def export(self, out: str | Path | None = None) -> Path:
        """Write every table as Parquet (`<name>.parquet`) into `out` (default
        `<run>/tables/`); return the folder."""
        folder = Path(out) if out is not None else self.path / "tables"
        for name, frame in run_tables(RunDir(self.path).events_path).items():
            write_parquet(frame, folder / f"{name}.parquet")
        return folder

    def _table(self, name: str) -> pd.DataFrame:
        table = TABLES[name]
        kinds = None if table.kinds is None else set(table.kinds)
        return table.build(history(self.path, kinds))

    def _repr_html_(self) -> str:
        info = self.info
        rows = {
            "run": str(self.path),
            "status": info.get("status"),
            "model": info.get("model"),
            "seed": info.get("seed"),
            **self.summary(),
        }
        cells = "".join(
            f"<tr><th>{escape(str(k))}</th><td>{escape(str(v))}</td></tr>" for k, v in rows.items()
        )
        return f"<table>{cells}</table>"


def run(
    scenario: ScenarioSource,
    *,
    set: Settings = None,
    model: str | None = None,
    seed: int | None = None,
    progress: bool = True,
    on_progress: ProgressHook | None = None,
) -> Run:
    """Run a scenario of any world to its end and return the run.

    `set` overrides fields (`{"agents.count": 3, "clock.duration": "2h"}`); `model` is a
    model spec (`scripted`, `embedded`, `openai:http://127.0.0.1:8000/v1?model=NAME`) and
    `seed` the run's seed, each overriding the scenario's. `progress` draws a bar when a
    terminal is attached; `on_progress` is called after every tick. Raises a
    `simulacra.errors.UserError` naming the fault for an invalid scenario or a run that
    cannot go on (`RunFailed` says how to resume it)."""
    valid = load_scenario(scenario, overrides(set, model, seed))
    done = _blocking(lambda: run_scenario(valid, progress=progress, on_progress=on_progress))
    return Run(done.path)


def resume(
    path: str | Path,
    *,
    set: Settings = None,
    progress: bool = True,
    on_progress: ProgressHook | None = None,
) -> Run:
    """Continue a stopped run from its last checkpoint that still matches its log; it ends
    with the same log an uninterrupted run writes. `set` may raise its budget
    (`{"model.budget.calls": 500}`) or change its price, nothing else."""
    sets = overrides(set)
    done = _blocking(
        lambda: resume_run(path, progress=progress, on_progress=on_progress, overrides=sets)
    )
    return Run(done.path)


def open_run(path: str | Path) -> Run:
    """A run directory written before (or being written now)."""
    return Run(Path(path))


def _yaml(value: Any) -> str:
    """A value as YAML text that reads back as the same value (YAML's own quoting, on one
    line, so characters JSON would split into surrogate pairs survive)."""
    return (
        yaml.safe_dump(value, default_flow_style=True, width=1 << 30)
        .removesuffix("\n...\n")
        .strip()
    )


def _blocking(call: Callable[[], T]) -> T:
    """Call `call`, which runs its own event loop; where this thread already runs one (a
    Jupyter kernel does), asyncio refuses a second, so it runs in a thread of its own."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return call()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="simulacra") as pool:
        return pool.submit(call).result()
