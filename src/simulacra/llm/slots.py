"""Where the embedded backend runs a call: on which model instance, in which slot, and whether
it may reuse that slot's prompt cache.

A llama.cpp prompt processed after a cached prefix comes out slightly different from the same
prompt processed whole, so the same seed gives the same answers only if each cached slot sees
the same calls in the same order. So an agent's slot is chosen from the order in which agents
first call, never from timing: the first `parallel - 1` agents get a slot of their own (with
the cache), dealt round robin over the instances; each instance adds one shared slot without
the cache, for agents beyond those, calls of no agent and probes. A call without the cache
starts from an empty slot, so its answer cannot depend on which shared slot takes it: it goes
to the least busy instance. With one slot there is nothing to share it with: every call takes
it, cache and all, on one instance.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Slot:
    """A slot of one instance: `index` is llama.cpp's `id_slot` there."""

    instance: int
    index: int
    cached: bool


def slots_per_instance(parallel: int, instances: int) -> tuple[int, ...]:
    """How many slots each instance loads: its share of the `parallel - 1` own slots, dealt
    round robin, and its shared slot."""
    if parallel == 1:
        return (1,)
    own = parallel - 1
    return tuple(len(range(i, own, instances)) + 1 for i in range(instances))


class Placement:
    """The slots of `parallel - 1` agents and the shared ones, over `instances` instances."""

    def __init__(self, parallel: int, instances: int) -> None:
        if parallel < 1 or instances < 1:
            raise ValueError(f"parallel ({parallel}) and instances ({instances}) must be >= 1")
        if parallel == 1 and instances > 1:
            raise ValueError("one slot keeps its cache for every call, so it needs one instance")
        self.sizes = slots_per_instance(parallel, instances)
        self._own = parallel - 1
        self._agents: dict[str, Slot] = {}

    def slot(self, agent: str | None, probe: bool, busy: Sequence[int]) -> Slot:
        """The slot for a call of `agent` (None: no agent's); `busy[i]` is how many calls
        instance i runs now, which picks the shared slot (and nothing else)."""
        if self._own == 0:
            return Slot(0, 0, True)
        if not probe and agent is not None:
            own = self._agents.get(agent)
            if own is None and len(self._agents) < self._own:
                order = len(self._agents)
                instances = len(self.sizes)
                own = self._agents[agent] = Slot(order % instances, order // instances, True)
            if own is not None:
                return own
        instance = min(range(len(self.sizes)), key=lambda i: busy[i])
        return Slot(instance, self.sizes[instance] - 1, False)
