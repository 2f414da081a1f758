"""bench/served_town.py reads schedules' wall times off a log (`chains`): the critical path,
per-agent clocks bounded by neighbours within a reach, and lockstep's tick barriers. Checked
on logs small enough to schedule by hand, one call costing its completion tokens in seconds."""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from simulacra.runlog import Event

BENCH = Path(__file__).parents[2] / "bench"

T1, T2, T3 = "2024-02-13T07:00:00", "2024-02-13T07:10:00", "2024-02-13T07:20:00"
# a and c stand 3 tiles apart; b 100 tiles from both
WHERE = {"a": (0.0, 0.0), "b": (100.0, 0.0), "c": (3.0, 0.0)}


@pytest.fixture(scope="module")
def chains() -> Callable[..., float]:
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(BENCH))
        served: ModuleType = importlib.import_module("served_town")
    found: Callable[..., float] = served.chains
    return found


def _log(*entries: tuple[str, str, str | None, dict[str, Any]]) -> list[Event]:
    return [Event(n, t, 0.0, kind, agent, data) for n, (t, kind, agent, data) in enumerate(entries)]


def _call(t: str, agent: str, seconds: int, purpose: str = "react.decide") -> Any:
    return (t, "llm.call", agent, {"purpose": purpose, "completion_tokens": seconds})


def _world(t: str) -> Any:
    return (t, "world", None, {"agents": {a: {"x": x, "y": y} for a, (x, y) in WHERE.items()}})


def _two_ticks(*between: Any) -> list[Event]:
    """Tick 1: b is slow (3 s), a and c quick (1 s); tick 2: a is slow, b and c quick."""
    return _log(
        _world(T1),
        _call(T1, "a", 1),
        _call(T1, "b", 3),
        _call(T1, "c", 1),
        _world(T2),
        *between,
        _call(T2, "a", 3),
        _call(T2, "b", 1),
        _call(T2, "c", 1),
        _world(T3),
    )


def test_each_schedule_of_two_ticks_takes_what_it_takes_by_hand(
    chains: Callable[..., float],
) -> None:
    log = _two_ticks()
    # Alone, each agent's chain is 4 s (a: 1 + 3, b: 3 + 1, c: 1 + 1).
    assert chains(log, 0.0, 1.0) == 4.0
    # Every tick a barrier: tick 1 ends at 3 s (b), tick 2 at 3 + 3 (a).
    assert chains(log, 0.0, 1.0, math.inf) == 6.0
    # Clocks within 10 tiles: a waits only for c (done at 1 s), not for far b.
    assert chains(log, 0.0, 1.0, 10.0) == 4.0
    # Within 200 tiles everyone is a neighbour: as lockstep.
    assert chains(log, 0.0, 1.0, 200.0) == 6.0


def test_a_neighbour_still_busy_holds_an_agent(chains: Callable[..., float]) -> None:
    # c is 3 tiles from a; if c is slow in tick 1, a's tick 2 waits for it.
    log = _log(
        _world(T1),
        _call(T1, "a", 1),
        _call(T1, "c", 5),
        _world(T2),
        _call(T2, "a", 1),
        _world(T3),
    )
    assert chains(log, 0.0, 1.0) == 5.0  # a's own chain is 2 s; c's is 5 s
    assert chains(log, 0.0, 1.0, 10.0) == 6.0  # a starts tick 2 at 5 s


def test_a_checkpoint_waits_for_everyone_only_where_barriers_are_kept(
    chains: Callable[..., float],
) -> None:
    log = _two_ticks((T2, "checkpoint", None, {"step": 1}))
    assert chains(log, 0.0, 1.0, 10.0) == 4.0
    assert chains(log, 0.0, 1.0, 10.0, barriers=True) == 6.0


def test_interviews_at_one_time_wait_for_everyone_once(chains: Callable[..., float]) -> None:
    interviews: list[Any] = [(T2, "interview", who, {}) for who in "abc"]
    asked = [_call(T2, who, 2, "interview.answer") for who in "abc"]
    log = _two_ticks(*(x for pair in zip(interviews, asked, strict=True) for x in pair))
    # All wait for b's 3 s, then answer side by side (2 s), then tick 2 (a: 3 s).
    assert chains(log, 0.0, 1.0, 10.0, barriers=True) == 8.0


def test_a_conversation_holds_both_speakers_turn_by_turn(chains: Callable[..., float]) -> None:
    log = _log(
        _call(T1, "a", 2),
        _call(T1, "c", 1),
        _call(T1, "a", 1, "converse.turn"),
        _call(T1, "c", 1, "converse.turn"),
        (T1, "conversation", None, {"participants": ["a", "c"]}),
        _call(T1, "b", 1),
    )
    # The first turn waits for a (2 s); two turns of 1 s each: both end at 4 s.
    assert chains(log, 0.0, 1.0) == 4.0
    # Each call costs the base as well: a 2.5 s, then two turns of 1.5 s.
    assert chains(log, 0.5, 1.0) == pytest.approx(5.5)


def test_a_neighbour_holds_an_agent_only_until_it_has_decided(
    chains: Callable[..., float],
) -> None:
    """a at home, c, d and e at the cafe next door; c and d talk in tick 1 (two turns of 3 s)
    after e, who does not talk, has decided (4 s): their pairing reads e's request too."""
    cafe = {"a": (0.0, 0.0, "home"), "c": (3.0, 0.0, "cafe"), "d": (4.0, 0.0, "cafe")}
    cafe["e"] = (5.0, 0.0, "cafe")

    def world(t: str) -> Any:
        agents = {k: {"x": x, "y": y, "place": p} for k, (x, y, p) in cafe.items()}
        return (t, "world", None, {"agents": agents})

    log = _log(
        world(T1),
        _call(T1, "a", 1),
        _call(T1, "c", 1),
        _call(T1, "d", 2),
        _call(T1, "e", 4),
        _call(T1, "c", 3, "converse.turn"),
        _call(T1, "d", 3, "converse.turn"),
        (T1, "conversation", None, {"participants": ["c", "d"]}),
        world(T2),
        _call(T2, "a", 5),
        _call(T2, "c", 1),
        _call(T2, "d", 1),
        world(T3),
    )
    # Alone: the talk starts when both have decided (2 s), ends at 8; c and d at 9; a at 6.
    assert chains(log, 0.0, 1.0) == 9.0
    # Waiting for neighbours' whole ticks: a's tick 2 starts after the talk, at 8: 13 s.
    assert chains(log, 0.0, 1.0, 10.0) == 13.0
    # Waiting for their decisions only: the talk starts once the whole cafe has decided (e,
    # 4 s) and ends at 10 (c and d at 11); a starts tick 2 at 4, with the cafe decided: 9 s.
    assert chains(log, 0.0, 1.0, 10.0, decided=True) == 11.0
    assert chains(log, 0.0, 1.0, math.inf, decided=True) == 11.0


def test_ratings_asked_at_once_run_side_by_side(chains: Callable[..., float]) -> None:
    """A look's sights are rated together (memory/importance.py gathers them): the log writes
    the calls one after another, then the records; ratings asked apart have a record between."""
    rate = "memory.importance"
    added: Any = (T1, "memory.add", "a", {})
    together = _log(_call(T1, "a", 2, rate), _call(T1, "a", 3, rate), _call(T1, "a", 1, rate))
    apart = _log(_call(T1, "a", 2, rate), added, _call(T1, "a", 3, rate))
    decided = _log(_call(T1, "a", 2, "react.decide"), _call(T1, "a", 3, "react.decide"))
    assert chains(together, 0.0, 1.0) == 3.0
    assert chains(apart, 0.0, 1.0) == 5.0
    assert chains(decided, 0.0, 1.0) == 5.0


def test_a_conversation_holds_both_speakers_until_both_have_remembered_it(
    chains: Callable[..., float],
) -> None:
    log = _log(
        _call(T1, "a", 1),
        _call(T1, "c", 1),
        _call(T1, "a", 1, "converse.turn"),
        _call(T1, "c", 1, "converse.turn"),
        (T1, "conversation", None, {"participants": ["a", "c"]}),
        _call(T1, "a", 2, "memory.importance"),
        _call(T1, "c", 3, "memory.importance"),
    )
    # Talk from 1 s to 3 s; a remembers it (to 5 s), then c (to 8 s), in one job.
    assert chains(log, 0.0, 1.0) == 8.0
    # Remembering it side by side: c is done at 6 s.
    assert chains(log, 0.0, 1.0, apart=True) == 6.0


def test_lockstep_s_floor_waits_for_everyone_between_phases(
    chains: Callable[..., float],
) -> None:
    log = _log(
        _world(T1),
        _call(T1, "a", 1),
        _call(T1, "b", 3),
        _call(T1, "a", 3, "reflect.questions"),
        _call(T1, "b", 1, "reflect.questions"),
        _world(T2),
    )
    # A barrier at the tick's end only: a and b each take 4 s.
    assert chains(log, 0.0, 1.0, math.inf) == 4.0
    # Everyone decides by 3 s, then a reflects for 3 s.
    assert chains(log, 0.0, 1.0, math.inf, phases=True) == 6.0
