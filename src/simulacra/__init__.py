"""simulacra: a local-first platform for LLM-driven agent-based simulation.

The public API (`simulacra.api`) is re-exported here: `run`, `resume`, `sweep`,
`resume_sweep`, `open_run`, `open_sweep`, `Run`, `Sweep`, `Scenario`, and `calibrate`,
`open_calibration`, `Calibration`. Each is imported on
first use, so that `import simulacra.runlog` (or the command line's `--help`) does not
load the whole stack.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from simulacra.api import (
        Calibration,
        InterviewAnswer,
        Run,
        Scenario,
        Sweep,
        calibrate,
        open_calibration,
        open_run,
        open_sweep,
        resume,
        resume_sweep,
        run,
        sweep,
    )

__version__ = "0.1.0"
__all__ = [
    "Calibration",
    "InterviewAnswer",
    "Run",
    "Scenario",
    "Sweep",
    "calibrate",
    "open_calibration",
    "open_run",
    "open_sweep",
    "resume",
    "resume_sweep",
    "run",
    "sweep",
]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(importlib.import_module("simulacra.api"), name)
    if name == "errors":  # simulacra.errors.UserError, which every failure a user can fix is
        return importlib.import_module("simulacra.errors")
    raise AttributeError(f"module 'simulacra' has no attribute {name!r}")


def __dir__() -> list[str]:
    # The public API, its errors and the version: not the names this module imports (Any,
    # importlib ...) nor the inner layers imported so far.
    return sorted([*__all__, "__version__", "errors"])
