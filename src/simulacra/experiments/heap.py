"""Garbage collection tuned for a long run, and restored after it.

A run keeps many small objects alive for its whole length (agents' state, plans, buffered
events) and makes few reference cycles. CPython's default young-generation threshold (700
allocations) then starts a collection every few hundred objects, and each full collection walks
the whole heap: on the 1,000-agent town of bench/scale.py that was 9% of the wall time.
Collections still run, only less often; what the run set up before it started is frozen out of
them altogether.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG = 20_000  # allocations between young collections (CPython's default: 700)
OLDER = 20  # young collections per middle one, and middle per full one (default: 10, 10)


@contextmanager
def fewer_collections() -> Iterator[None]:
    before = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(YOUNG, OLDER, OLDER)
    try:
        yield
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()
