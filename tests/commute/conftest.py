from __future__ import annotations

from pathlib import Path

import pytest

from simulacra.commuter import CommuteConfig, load_commute_config
from simulacra.worlds.commute import ProfileCount

SCENARIO = Path(__file__).parents[2] / "scenarios" / "commute.yaml"


@pytest.fixture
def small_config() -> CommuteConfig:
    """The shipped scenario with one agent per profile and one week plus one day."""
    mix = tuple(
        ProfileCount(profile=p, count=1)
        for p in ("student", "administrative_worker", "elderly_resident", "factory_worker")
    )
    return load_commute_config(SCENARIO, population=mix, days=6)
