"""Calibrations from Python: run one (ABC-SMC, experiments/calibrate.py), open one, and read
its posterior and checks as pandas DataFrames."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from simulacra.api.runs import Settings, overrides
from simulacra.errors import UserError
from simulacra.experiments.calibrate import Executor
from simulacra.experiments.calibrate import calibrate as run_calibration


class NotACalibration(UserError):
    """A folder that `simulacra calibrate` did not write."""


@dataclass(frozen=True)
class Calibration:
    """A calibration's folder: the posterior sample, each parameter's median and 95%
    interval, the fit per target, the held-out check and the ABC-SMC's generations."""

    path: Path

    def __post_init__(self) -> None:
        path = Path(self.path)
        if not (path / "calibration.json").is_file():
            raise NotACalibration(
                f"{path}: not a calibration folder (no calibration.json); pass a folder that "
                "`simulacra calibrate` wrote, such as runs/<scenario>-calibration-<date>-<id>"
            )
        object.__setattr__(self, "path", path)

    @property
    def info(self) -> dict[str, Any]:
        """calibration.json: settings, summaries, runs used and wall time."""
        found: dict[str, Any] = json.loads((self.path / "calibration.json").read_text("utf-8"))
        return found

    def posterior(self) -> pd.DataFrame:
        """The last generation's particles: a column per parameter, `weight` (summing to 1),
        `distance`, and each fitted target's statistic of the particle's run."""
        return pd.read_csv(self.path / "posterior.csv")

    def parameters(self) -> pd.DataFrame:
        """One row per parameter: median, low and high (its 95% interval), the prior's 95%
        interval, the reference value and whether the interval holds it."""
        rows = [{k: v for k, v in p.items() if k != "prior"} for p in self.info["parameters"]]
        return pd.DataFrame(rows).set_index("parameter")

    def fit(self) -> pd.DataFrame:
        """One row per fitted target: observed, and the posterior predictive's median and 95%
        interval under the calibration's settings."""
        return pd.DataFrame(self.info["fit"]).set_index("target")

    def held_out(self) -> pd.DataFrame:
        """The same for the held-out targets (empty when the file set none aside)."""
        rows = self.info.get("held_out") or []
        columns = ["target", "metric", "observed", "median", "low", "high", "inside", "source"]
        return pd.DataFrame(rows, columns=columns).set_index("target")

    def predictive(self) -> pd.DataFrame:
        """One row per posterior draw: its parameters and every statistic of its runs."""
        return pd.read_csv(self.path / "predictive.csv")

    def generations(self) -> pd.DataFrame:
        return pd.read_csv(self.path / "generations.csv")


def open_calibration(path: str | Path) -> Calibration:
    """A calibration folder written by `simulacra calibrate` (or `calibrate`)."""
    return Calibration(Path(path))


def calibrate(
    scenario: str | Path,
    targets: str | Path,
    *,
    set: Settings = None,
    model: str | None = None,
    executor: Executor = "local",
    workers: int | None = None,
    root: str | Path | None = None,
    keep_runs: bool = False,
) -> Calibration:
    """Fit the targets file's parameters by ABC-SMC; the calibration it wrote. `set` and
    `model` override fields of every run, as in `run`."""
    out = run_calibration(
        scenario,
        targets,
        overrides(set, model),
        executor=executor,
        workers=workers,
        root=root,
        keep_runs=keep_runs,
    )
    return Calibration(out)
