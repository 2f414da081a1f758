"""Reading a finished run for what went wrong: `diagnose` checks the source's seven failure
modes; `trace` follows one planted fact, agent by agent, through the source's causal chain."""

from simulacra.experiments.diagnose.checks import MODES, Checked, Finding, Mode
from simulacra.experiments.diagnose.log import DiagnoseError, Line, RunLog
from simulacra.experiments.diagnose.run import DIAGNOSE_JSON, diagnose

__all__ = [
    "DIAGNOSE_JSON",
    "MODES",
    "Checked",
    "DiagnoseError",
    "Finding",
    "Line",
    "Mode",
    "RunLog",
    "diagnose",
]
