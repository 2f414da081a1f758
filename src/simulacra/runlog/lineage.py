"""A run's family: a fork names its parent and its fork point in run.json, and its own
events.jsonl holds only what happened from the fork point on. Its whole history is the
parent's history up to the fork point (the parent's own log's first `offset` bytes, read in
place, never copied) followed by its own events, whose `seq` numbers go on from there.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from simulacra.runlog.events import Event
from simulacra.runlog.reader import LogError, read_events

PARENT = "parent"  # run.json: where a fork comes from
EVENTS = "events.jsonl"
HEADER = "header.json"  # a fork's own `run` event data: its world's layout, its cast


@dataclass(frozen=True)
class ForkPoint:
    """Where a fork leaves its parent: the parent's folder, the step (the fork runs tick
    `step` on) and its simulated time, how many bytes of the parent's own log are the fork's
    prefix, the digest of those bytes, and the `seq` of the fork's first event."""

    parent: Path
    step: int
    at: str
    offset: int
    digest: str
    seq: int

    def as_info(self) -> dict[str, Any]:
        return {
            "path": str(self.parent),
            "step": self.step,
            "at": self.at,
            "offset": self.offset,
            "digest": self.digest,
            "seq": self.seq,
        }


def fork_point(run: str | Path) -> ForkPoint | None:
    """Where the run at `run` was forked from, or None for a run that is no fork."""
    path = Path(run) / "run.json"
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # no run.json, or a damaged one: the run's own readers say so
    found = info.get(PARENT) if isinstance(info, dict) else None
    if not isinstance(found, dict):
        return None
    return ForkPoint(
        Path(found["path"]),
        int(found["step"]),
        str(found["at"]),
        int(found["offset"]),
        str(found["digest"]),
        int(found["seq"]),
    )


def lineage(run: str | Path) -> list[Path]:
    """The run, its parent, the parent's parent ... (the run first)."""
    found = [Path(run)]
    point = fork_point(run)
    while point is not None:
        if point.parent in found:
            raise LogError(f"{run}: its run.json names a parent that is its own descendant")
        found.append(point.parent)
        point = fork_point(point.parent)
    return found


def children(run: str | Path) -> list[Path]:
    """The runs forked from `run` that sit beside it (where forks are written), by name."""
    here = Path(run).resolve()
    if not here.parent.is_dir():
        return []
    return [
        path
        for path in sorted(here.parent.iterdir())
        if path.is_dir() and (point := fork_point(path)) is not None and point.parent == here
    ]


def history(
    run: str | Path, kinds: set[str] | None = None, *, end: int | None = None
) -> Iterator[Event]:
    """A run's whole history in order (of `kinds` only, if given): for a fork, its parent's
    up to the fork point (opening with the fork's own header), then its own; `end` cuts the
    run's own log after that many bytes."""
    point = fork_point(run)
    if point is not None:
        _check_parent(Path(run), point)
        own = Path(run) / HEADER
        header = json.loads(own.read_text(encoding="utf-8")) if own.is_file() else None
        for event in history(point.parent, kinds, end=point.offset):
            # The history opens with the fork's own header: a setting changed at the fork (a
            # fire moved) shows in the layout that measures and the viewer read.
            yield replace(event, data=header) if header and event.kind == "run" else event
    yield from read_events(Path(run) / EVENTS, kinds, end=end)


def _check_parent(run: Path, point: ForkPoint) -> None:
    log = point.parent / EVENTS
    size = log.stat().st_size if log.is_file() else -1
    if size < point.offset:
        raise LogError(
            f"{run} is a fork of {point.parent} at step {point.step}, but that run's log "
            f"{'is missing' if size < 0 else f'holds {size} bytes'}, fewer than the "
            f"{point.offset} of the fork's prefix: the parent was moved, removed or cut; "
            "put it back where run.json's `parent.path` says"
        )
