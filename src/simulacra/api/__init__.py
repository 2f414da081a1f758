"""The Python API: run, resume and sweep scenarios, open what they wrote, and read runs and
sweeps as pandas DataFrames. `simulacra` re-exports every name here; the `simulacra`
command is a thin layer over it.

```python
import simulacra

run = simulacra.run("scenarios/town.yaml", set={"agents.count": 3}, model="scripted")
run.memories().groupby("agent").size()
run.interview("marta_okafor", "Who did you invite to your party?").answer
```
"""

from simulacra.api.calibrations import Calibration, NotACalibration, calibrate, open_calibration
from simulacra.api.export import ExportError
from simulacra.api.runs import Run, ScenarioSource, Settings, open_run, resume, run
from simulacra.api.sweeps import NotASweep, Sweep, open_sweep, resume_sweep, sweep
from simulacra.api.tables import TABLES
from simulacra.core import InterviewAnswer
from simulacra.experiments import Scenario

__all__ = [
    "TABLES",
    "Calibration",
    "ExportError",
    "InterviewAnswer",
    "NotACalibration",
    "NotASweep",
    "Run",
    "Scenario",
    "ScenarioSource",
    "Settings",
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
