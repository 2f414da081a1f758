"""Events of concurrent work, written in a fixed order whatever order the work finished in.

Each agent gets an `AgentSink` (its mind and memory emit through it). While jobs run
concurrently, each job's events go to its own batch (the batch travels with the job's task,
in a context variable, so that work run ahead of the tick in another task keeps its own);
after they all finish the batches are written in job order. Outside concurrent work a sink
writes straight to the log.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextvars import ContextVar
from datetime import datetime
from typing import TypeVar

from simulacra.runlog import EventWriter
from simulacra.runlog.events import Payload

T = TypeVar("T")
Pending = tuple[Payload, datetime | str | None, str | None]

# The batch of each agent whose work the current task does, and the simulated time of that
# work when it runs ahead of the engine's clock.
_BATCHES: ContextVar[Mapping[str, list[Pending]] | None] = ContextVar("batches", default=None)
_NOW: ContextVar[datetime | None] = ContextVar("now", default=None)


class AgentSink:
    def __init__(self, writer: EventWriter, agent: str | None = None) -> None:
        self.writer = writer
        self.agent = agent

    def emit(
        self,
        payload: Payload,
        *,
        t: datetime | None = None,
        agent: str | None = None,
    ) -> None:
        batch = _batch(self.agent)
        if batch is None:
            self.writer.emit(payload, t=t, agent=agent)
        else:
            batch.append((payload, t, agent))


class EventRouter:
    """The sinks of all agents of a run, and the one log they end up in."""

    def __init__(self, writer: EventWriter, agents: Sequence[str]) -> None:
        self.writer = writer
        self.sinks = {agent: AgentSink(writer, agent) for agent in agents}
        self.loose = AgentSink(writer)  # events of no agent (a model call without one)

    def sink(self, agent: str | None) -> AgentSink:
        return self.sinks.get(agent or "", self.loose)

    @staticmethod
    def now() -> datetime | None:
        """The simulated time of the work running ahead in this task, if it is such work."""
        return _NOW.get()

    async def gather(
        self, jobs: Sequence[tuple[Sequence[str], Callable[[], Awaitable[T]]]]
    ) -> list[T]:
        """Run `jobs` (the agents whose events a job owns, and the job) concurrently; write
        each job's events as one block, in the order of `jobs`."""
        batches: list[list[Pending]] = [[] for _ in jobs]
        results = await asyncio.gather(
            *(
                _within(owners, batch, job)
                for (owners, job), batch in zip(jobs, batches, strict=True)
            )
        )
        for batch in batches:
            for payload, t, agent in batch:
                self.writer.emit(payload, t=t, agent=agent)
        return list(results)

    @staticmethod
    async def held(
        owner: str, job: Callable[[], Awaitable[T]], now: datetime
    ) -> tuple[T, list[Pending]]:
        """Run `job` as work of `owner` at simulated time `now` and keep its events, unwritten
        (for work done ahead of its turn in the log)."""
        batch: list[Pending] = []
        _NOW.set(now)  # this task's own context: the caller runs it as a task of its own
        return await _within((owner,), batch, job), batch

    def replay(self, owner: str, events: Sequence[Pending]) -> None:
        """Events kept by `held`, in their turn: into the block of `owner`'s current job."""
        batch = _batch(owner)
        for payload, t, agent in events:
            if batch is None:
                self.writer.emit(payload, t=t, agent=agent)
            else:
                batch.append((payload, t, agent))


async def _within(
    owners: Sequence[str], batch: list[Pending], job: Callable[[], Awaitable[T]]
) -> T:
    """`job`, its owners' events going to `batch` (in this task's context only)."""
    _BATCHES.set({**(_BATCHES.get() or {}), **dict.fromkeys(owners, batch)})
    return await job()


def _batch(agent: str | None) -> list[Pending] | None:
    """Where the current task's events of `agent` go (None: straight to the log)."""
    batches = _BATCHES.get()
    return None if batches is None or agent is None else batches.get(agent)
