"""ISO 8601 stamps of simulated times, each formatted once: a big town's tick writes
thousands of events and memory records that share a handful of times."""

from __future__ import annotations

import functools
from datetime import datetime, timedelta


def stamp(moment: datetime) -> str:
    """`moment.isoformat()`, cached. Equal instants in other zones print differently, so the
    offset is part of the key."""
    return _formatted(moment, moment.utcoffset())


@functools.lru_cache(maxsize=1024)
def _formatted(moment: datetime, offset: timedelta | None) -> str:
    return moment.isoformat()
