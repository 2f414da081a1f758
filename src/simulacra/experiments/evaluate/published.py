"""The Generative Agents study's published figures, printed beside ours (Park et al., 2023)."""

from __future__ import annotations

from typing import Any

PUBLISHED: dict[str, Any] = {
    "source": "Park et al., Generative Agents (UIST 2023): 25 agents, two days, 100 raters",
    "trueskill_mu": {
        "full": 29.9,
        "no_reflection": 26.9,
        "no_reflection_no_planning": 25.6,
        "no_observation_reflection_planning": 21.2,
        "human_written": 23.0,
    },
    "density": {"start": 0.167, "end": 0.74},
    "party_aware_share": {"start": 0.04, "end": 0.52},
    "party_invited": 12,
    "party_came": 5,
    "embellished_share": 0.013,
}
