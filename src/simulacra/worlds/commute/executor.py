"""The one interface both executors share, and how a scenario picks one."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from simulacra.worlds.commute.city import City
from simulacra.worlds.commute.outcomes import Trip, TripOutcome

EXECUTORS = ("builtin", "sumo")


@runtime_checkable
class TripExecutor(Protocol):
    """Runs one simulated day of trips in the city and reports every trip's outcome.

    Outcomes come back in the order of `trips`; days are independent (each starts with every
    bus at its terminal and every taxi in service at its stand).
    """

    name: str

    def execute_day(self, day: int, trips: Sequence[Trip]) -> list[TripOutcome]: ...


def executor_problem(name: str) -> str | None:
    """Why the executor `name` cannot run here, or None."""
    if name == "sumo":
        missing = [m for m in ("sumo", "libsumo") if importlib.util.find_spec(m) is None]
        if missing:
            return (
                f"sumo needs Eclipse SUMO, and {', '.join(missing)} cannot be imported; install "
                "the sumo extra (pip install 'simulacra[sumo]') or use executor: builtin"
            )
    return None


def open_executor(name: str, city: City, workdir: str | Path | None = None) -> TripExecutor:
    """`builtin` (SimPy, in-process) or `sumo` (Eclipse SUMO through libsumo; the sumo extra)."""
    if name == "builtin":
        from simulacra.worlds.commute.builtin import BuiltinExecutor

        return BuiltinExecutor(city)
    if name == "sumo":
        from simulacra.worlds.commute.sumo import SumoExecutor

        return SumoExecutor(city, workdir=workdir)
    raise ValueError(f"unknown executor {name!r}; expected one of {', '.join(EXECUTORS)}")
