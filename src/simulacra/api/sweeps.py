"""Sweeps from Python: run one, open one, read every run as one tidy table, query with SQL."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from simulacra.api.export import ExportError, fresh, run_tables, write_parquet
from simulacra.api.runs import Run, ScenarioSource, Settings, overrides
from simulacra.api.tables import TABLES, union_columns
from simulacra.errors import UserError
from simulacra.experiments import load_scenario
from simulacra.experiments.kinds import BINDINGS
from simulacra.experiments.stats import CONFIDENCE, figure_ci
from simulacra.experiments.sweep import resume_sweep as finish_sweep
from simulacra.experiments.sweep import run_sweep

_KEYS = {"run": "str", "variant": "str", "model": "str", "replicate": "int64"}


class NotASweep(UserError):
    """A folder that `simulacra sweep` did not write."""


@dataclass(frozen=True)
class Sweep:
    """A sweep directory: its runs (one per variant x model x replicate), one table over
    them, intervals per variant, and SQL over every run's tables."""

    path: Path

    def __post_init__(self) -> None:
        path = Path(self.path)
        if not (path / "sweep.json").is_file():
            raise NotASweep(
                f"{path}: not a sweep directory (no sweep.json); pass a folder that "
                "`simulacra sweep` wrote, such as runs/<scenario>-sweep-<date>-<time>-<id>"
            )
        object.__setattr__(self, "path", path)

    @property
    def info(self) -> dict[str, Any]:
        """sweep.json: the plan (variants, models, seeds), executor, times and status."""
        found: dict[str, Any] = json.loads((self.path / "sweep.json").read_text("utf-8"))
        return found

    def runs(self) -> list[Run]:
        """Every run written so far, in replicate, variant, model order."""
        found = [Run(p) for p in sorted(self.path.iterdir()) if (p / "run.json").is_file()]
        return sorted(found, key=_order)

    def table(self) -> pd.DataFrame:
        """One row per run: `run`, `variant`, `model`, `replicate`, `seed`, `status`, then
        each headline figure (a column per figure; NaN where a run has none)."""
        rows = []
        for run in self.runs():
            info = run.info
            rows.append(
                {
                    "run": run.name,
                    "variant": info.get("variant", "base"),
                    "model": info.get("model"),
                    "replicate": info.get("replicate", 1),
                    "seed": info.get("seed"),
                    "status": info.get("status"),
                    **run.summary(),
                }
            )
        columns = [*_KEYS, "seed", "status"]
        frame = pd.DataFrame.from_records(rows, columns=union_columns(columns, rows))
        dtypes = {**_KEYS, "seed": "int64", "status": "str"}
        return frame.astype({c: dtypes.get(c, "float64") for c in frame.columns})

    def summary(self, confidence: float = CONFIDENCE) -> pd.DataFrame:
        """Per variant, model and figure: the mean over completed replicates with its
        two-sided interval (`low`, `high`; none from a single replicate), `n` and `method`
        (stats.METHOD says each in words): "t", Student's; stats.T_AGREED, Student's from
        replicates that all agree (no width, and no certainty); "wilson", a share's (a
        proportion or percentage), which stays in its range; or stats.WILSON_COUNT, a share
        whose replicates all agree, each counted as one trial."""
        kind = BINDINGS.get(str(self.info.get("world")))
        shares = kind.share_scales() if kind is not None else {}
        table = self.table()
        done = table[table["status"] == "completed"]
        figures = [c for c in table.columns if c not in (*_KEYS, "seed", "status")]
        rows = []
        for (variant, model), group in done.groupby(["variant", "model"], sort=False):
            for figure in figures:
                values = group[figure].dropna().tolist()
                if values:
                    ci = figure_ci(str(figure), values, shares, confidence)
                    row = (variant, model, figure, ci.mean, ci.low, ci.high, ci.n, ci.method)
                    rows.append(row)
        columns = ["variant", "model", "figure", "mean", "low", "high", "n", "method"]
        frame = pd.DataFrame.from_records(rows, columns=columns)
        types = {"variant": "str", "model": "str", "figure": "str", "n": "int64", "method": "str"}
        return frame.astype({**types, "mean": "float64", "low": "float64", "high": "float64"})

    def export(self, out: str | Path | None = None) -> Path:
        """Write `runs.parquet` (the table) and each run's tables as `<table>/<run>.parquet`,
        each row keyed by run, variant and replicate, into `out` (default `<sweep>/tables/`);
        a run whose files are newer than its log is not written again. One run is in memory
        at a time."""
        folder = Path(out) if out is not None else self.path / "tables"
        for run in self.runs():
            paths = {name: folder / name / f"{run.name}.parquet" for name in TABLES}
            log = run.path / "events.jsonl"
            if fresh(list(paths.values()), log):
                continue
            info = run.info
            keys = {
                "run": run.name,
                "variant": str(info.get("variant", "base")),
                "replicate": int(info.get("replicate", 1)),
            }
            for name, frame in run_tables(log, keys).items():
                write_parquet(frame, paths[name])
        write_parquet(self.table(), folder / "runs.parquet")
        return folder

    def sql(self, query: str) -> pd.DataFrame:
        """Query the sweep with DuckDB: `runs` (the table) and every run's `events`, `agents`,
        `memories`, `retrievals`, `calls` and `metrics` (each with `run`, `variant`,
        `replicate`), read from the Parquet export (written first where out of date), so a
        sweep larger than memory can be queried. There an event's `data` (and any other
        mapping) is JSON text, for DuckDB's JSON functions (`data->>'choice'`)."""
        try:
            import duckdb
        except ImportError as exc:
            raise ExportError(
                'Sweep.sql needs duckdb, which is not installed: pip install "simulacra[data]"'
            ) from exc
        folder = self.export()
        connection = duckdb.connect()
        try:
            views = {"runs": folder / "runs.parquet"}
            for name in TABLES:  # a sweep with no run yet has only `runs`
                if any((folder / name).glob("*.parquet")):
                    views[name] = folder / name / "*.parquet"
            for name, files in views.items():
                quoted = str(files).replace("'", "''")
                connection.execute(
                    f"CREATE VIEW {name} AS SELECT * FROM read_parquet('{quoted}', "
                    "union_by_name = true)"
                )
            return connection.execute(query).df()
        finally:
            connection.close()


def sweep(
    scenario: ScenarioSource,
    *,
    set: Settings = None,
    model: str | None = None,
    seed: int | None = None,
    executor: str | None = None,
    workers: int | None = None,
    root: str | Path | None = None,
    progress: bool = True,
) -> Sweep:
    """Run every variant x model x replicate of the scenario's `sweep` section and return
    the sweep.

    `set`, `model` and `seed` override the scenario's fields as in `run`
    (`{"sweep.replicates": 5}`); `executor` is "local" (a process pool of `workers`) or "ray";
    `root` is the folder the sweep directory goes in (default the scenario's output.root).
    Raises `SweepError` after writing the outputs when any run failed."""
    valid = load_scenario(scenario, overrides(set, model, seed))
    out = run_sweep(valid, executor=executor, workers=workers, root=root, progress=progress)
    return Sweep(out)


def resume_sweep(
    path: str | Path,
    *,
    executor: str | None = None,
    workers: int | None = None,
    progress: bool = True,
) -> Sweep:
    """Finish a stopped sweep in its own directory: completed runs are read back, not redone;
    stopped runs resume from their checkpoints; runs never started start. `executor` and
    `workers` default to those the sweep was started with."""
    return Sweep(finish_sweep(path, executor=executor, workers=workers, progress=progress))


def open_sweep(path: str | Path) -> Sweep:
    """A sweep directory written before."""
    return Sweep(Path(path))


def _order(run: Run) -> tuple[int, str, str]:
    info = run.info
    return int(info.get("replicate", 1)), str(info.get("variant", "")), str(info.get("model"))
