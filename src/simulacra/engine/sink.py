"""Events of concurrent work, written in a fixed order whatever order the work finished in.

Each agent gets an `AgentSink` (its mind and memory emit through it). While jobs run
concurrently, every sink points at its job's batch; after they all finish the batches are
written in job order. Outside concurrent phases a sink writes straight to the log.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import TypeVar

from simulacra.runlog import EventWriter
from simulacra.runlog.events import Payload

T = TypeVar("T")
Pending = tuple[Payload, datetime | str | None, str | None]


class AgentSink:
    def __init__(self, writer: EventWriter) -> None:
        self.writer = writer
        self.batch: list[Pending] | None = None

    def emit(
        self,
        payload: Payload,
        *,
        t: datetime | None = None,
        agent: str | None = None,
    ) -> None:
        if self.batch is None:
            self.writer.emit(payload, t=t, agent=agent)
        else:
            self.batch.append((payload, t, agent))


class EventRouter:
    """The sinks of all agents of a run, and the one log they end up in."""

    def __init__(self, writer: EventWriter, agents: Sequence[str]) -> None:
        self.writer = writer
        self.sinks = {agent: AgentSink(writer) for agent in agents}
        self.loose = AgentSink(writer)  # events of no agent (a model call without one)

    def sink(self, agent: str | None) -> AgentSink:
        return self.sinks.get(agent or "", self.loose)

    async def gather(
        self, jobs: Sequence[tuple[Sequence[str], Callable[[], Awaitable[T]]]]
    ) -> list[T]:
        """Run `jobs` (the agents whose events a job owns, and the job) concurrently; write
        each job's events as one block, in the order of `jobs`."""
        batches: list[list[Pending]] = []
        for owners, _ in jobs:
            batch: list[Pending] = []
            for owner in owners:
                self.sinks[owner].batch = batch
            batches.append(batch)
        try:
            results = await asyncio.gather(*(job() for _, job in jobs))
        finally:
            for owners, _ in jobs:
                for owner in owners:
                    self.sinks[owner].batch = None
        for batch in batches:
            for payload, t, agent in batch:
                self.writer.emit(payload, t=t, agent=agent)
        return list(results)
