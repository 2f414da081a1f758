"""A run's saved memories as they stood at a chosen time, opened for interviews.

The run's memory.sqlite holds the end of the run. For an earlier time the copy is rewound:
records written later are dropped, records invalidated later are valid again, and each
record's last access is read back from the log's retrievals. Minds are then built over the
copy with retrieval that records no access, so every condition answers from the same state.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from simulacra.core import Interviewee
from simulacra.embed import Embedder
from simulacra.engine import copy_database
from simulacra.experiments.kinds import Services, binding_of
from simulacra.experiments.scenario import Scenario
from simulacra.experiments.session import MEMORY_DB
from simulacra.llm import Gateway
from simulacra.memory.store import Store
from simulacra.runlog import RunDir, history


def copy_memory_at(run_dir: RunDir, at: datetime, target: Path) -> int:
    """Copy the run's memory database to `target` as it stood at `at` (tick `at` included);
    returns how many records written after `at` were dropped."""
    source = run_dir.path / MEMORY_DB
    if not source.exists():
        raise ValueError(
            f"{run_dir.path.name} keeps no memory stream, so its agents cannot be interviewed"
        )
    copy_database(source, target)
    accessed: dict[str, datetime] = {}
    revalidate: set[str] = set()
    for event in history(run_dir.path, {"retrieval", "memory.invalidate"}):
        if event.t is None:
            continue
        t = datetime.fromisoformat(event.t)
        if event.kind == "retrieval" and t <= at:
            for result in event.data.get("results", []):
                record = str(result.get("id"))
                accessed[record] = max(t, accessed.get(record, t))
        elif event.kind == "memory.invalidate" and t > at:
            revalidate.add(str(event.data["id"]))
            revalidate.update(str(i) for i in event.data.get("invalidated", []))
    store = Store(target)
    try:
        return store.rewind(at, accessed, revalidate)
    finally:
        store.close()


@contextmanager
def interviewees(
    scenario: Scenario, memory: Path, model: Gateway, embedder: Embedder, condition: str | None
) -> Iterator[Mapping[str, Interviewee]]:
    """The run's minds under `condition` (an ablation; None: the run's own), over `memory`."""
    kind = binding_of(scenario)
    if condition is not None:
        scenario = scenario.model_copy(update={"ablation": condition})
    services = Services(model, None, memory, scenario, record_access=False, _embedder=embedder)
    cast = kind.build(scenario, services)
    try:
        minds: dict[str, Interviewee] = {
            a: m for a, m in cast.minds.items() if isinstance(m, Interviewee)
        }
        if not minds:
            raise ValueError(
                f"the {kind.name} world's {kind.mind(scenario)} minds cannot be interviewed"
            )
        yield minds
    finally:
        cast.close()


def memory_texts(memory: Path, ids: set[str]) -> dict[str, str]:
    store = Store(memory)
    try:
        return store.texts_by_id(ids)
    finally:
        store.close()
