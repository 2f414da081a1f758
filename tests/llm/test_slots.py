"""Where the embedded backend runs a call: an agent's slot from the order agents first call,
dealt round robin over the instances; the rest to a shared slot without the cache."""

from __future__ import annotations

import pytest

from simulacra.llm.slots import Placement, Slot, slots_per_instance


def test_each_agent_keeps_its_own_slot_and_the_rest_share_one_without_the_cache() -> None:
    placement = Placement(parallel=3, instances=1)
    agents = ("ada", "bob", "cy", "dee", "ada", "bob")
    slots = [placement.slot(a, False, [0]) for a in agents]
    assert slots == [Slot(0, i, c) for i, c in ((0, 1), (1, 1), (2, 0), (2, 0), (0, 1), (1, 1))]
    assert placement.slot(None, False, [0]) == Slot(0, 2, False)
    assert placement.slot("ada", True, [0]) == Slot(0, 2, False)  # a probe keeps no cache


def test_one_slot_takes_every_call_with_its_cache() -> None:
    placement = Placement(parallel=1, instances=1)
    calls = (("ada", False), (None, False), ("ada", True))
    assert {placement.slot(a, p, [5]) for a, p in calls} == {Slot(0, 0, True)}
    with pytest.raises(ValueError, match="one instance"):
        Placement(parallel=1, instances=2)


def test_agents_are_dealt_round_robin_in_the_order_they_first_call() -> None:
    # Five own slots over two instances: 3 and 2, each instance adding its shared slot.
    assert slots_per_instance(6, 2) == (4, 3)
    placement = Placement(parallel=6, instances=2)
    order = ("eve", "ada", "cy", "bob", "dee", "fay")
    busy = [9, 0]  # timing never moves an agent's slot
    slots = {a: placement.slot(a, False, busy) for a in order}
    assert slots == {
        "eve": Slot(0, 0, True),
        "ada": Slot(1, 0, True),
        "cy": Slot(0, 1, True),
        "bob": Slot(1, 1, True),
        "dee": Slot(0, 2, True),
        "fay": Slot(1, 2, False),  # beyond the own slots: the least busy instance's shared one
    }
    assert placement.slot("ada", False, [0, 9]) == Slot(1, 0, True)
    # Each own slot is one instance's, below its shared slot, and no two agents share one.
    own = [s for s in slots.values() if s.cached]
    assert len(set(own)) == len(own)
    assert all(s.index < placement.sizes[s.instance] - 1 for s in own)


@pytest.mark.parametrize(("busy", "instance"), [([0, 0], 0), ([2, 1], 1), ([1, 3], 0)])
def test_a_call_without_the_cache_goes_to_the_least_busy_instances_shared_slot(
    busy: list[int], instance: int
) -> None:
    placement = Placement(parallel=6, instances=2)
    assert placement.slot("ada", True, busy) == Slot(instance, placement.sizes[instance] - 1, False)
    assert placement.slot(None, False, busy) == Slot(instance, placement.sizes[instance] - 1, False)


def test_more_instances_than_own_slots_give_the_rest_a_shared_slot_only() -> None:
    assert slots_per_instance(2, 3) == (2, 1, 1)
    placement = Placement(parallel=2, instances=3)
    assert placement.slot("ada", False, [0, 0, 0]) == Slot(0, 0, True)
    assert placement.slot("bob", False, [1, 0, 0]) == Slot(1, 0, False)
