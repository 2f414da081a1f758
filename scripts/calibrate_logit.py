"""Fit the logit model's constants so that its no-strike modal split per profile is the
source's (section 6.1).

    python scripts/calibrate_logit.py [SCENARIO]

Prints one JSON line: the constants per profile and mode (put them in the scenario's
`agents.options.logit.constants`), the split they give beside the source's, and the largest
gap in percentage points. See simulacra.experiments.calibration.
"""

from __future__ import annotations

import json
import sys

from simulacra.experiments import load_scenario
from simulacra.experiments.calibration import (
    SOURCE_BASELINE_SPLIT,
    calibrate_logit,
    split_error,
)

if __name__ == "__main__":
    path = sys.argv[1] if len(sys.argv) > 1 else "scenarios/commute.yaml"
    scenario = load_scenario(path, ["model.spec=scripted", "memory.embedder=hashing"])
    constants, split = calibrate_logit(scenario)
    print(
        json.dumps(
            {
                "constants": constants,
                "split": split,
                "source": {p: SOURCE_BASELINE_SPLIT[p] for p in split},
                "largest_gap_points": round(split_error(split), 2),
            }
        )
    )
