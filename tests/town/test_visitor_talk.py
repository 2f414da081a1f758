"""An agent may start a conversation with a visitor at its place: the visitor is among the
people it may choose to talk to, by name; its line goes through the dialogue's turn, is
logged and remembered, and waits one tick for the visitor's reply, which continues the
conversation; without one, the conversation ends unanswered."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.engine.test_conformance import SCENARIOS, small
from tests.town.test_visitors import TICK, VERA, _world

from simulacra.core import Action, Address
from simulacra.experiments import load_scenario, run
from simulacra.experiments.kinds.town import TOWN
from simulacra.runlog import Event, read_events


def test_an_agent_that_asks_to_talk_to_a_visitor_there_speaks_first() -> None:
    world = _world()
    world.intervene({**VERA, "place": "Alder Cottage", "text": "Vera arrives"}, TICK)
    seen = world.look("marta")
    assert seen.facts["visitors"] == ["visitor:vera"]
    assert seen.facts["names"]["visitor:vera"] == "Vera"
    asked = {
        "marta": Action("talk", "the party", target="visitor:vera"),
        "theo": Action("talk", "hello", target="visitor:vera"),  # Theo is elsewhere
    }
    resolved = world.resolve("decide", asked, TICK)
    assert list(resolved.addresses) == [
        Address("marta", "visitor:vera", "Vera", VERA["description"], "", "the party")
    ]
    assert not resolved.encounters
    # Busy with the visitor this tick: the act phase says so, and talking keeps her there.
    facts = world.observe("marta", "act", TICK).facts
    assert facts == {"talking_with": "visitor:vera", "partner_name": "Vera"}
    done = world.resolve(
        "act", {"marta": Action("talk", "talking with Vera", args={"with": "visitor:vera"})}, TICK
    )
    assert done.outcomes["marta"].ok and world.agents["marta"].place == "Alder Cottage"


def _run(root: Path, reply: bool) -> list[Event]:
    """A small town where a visitor joins the first agent at home at 07:40, after Marta's
    party thought (the scripted stand-in talks when something weighty is on its mind), and,
    with `reply`, answers it at 07:50; the run's events."""
    base = load_scenario(SCENARIOS / "town.yaml", small("town", root))
    first = TOWN.roster(base)[0]
    home = TOWN.personas(base)[0].home
    visits: list[dict[str, Any]] = [
        {
            "at": "07:40",
            "type": "event",
            "text": "Vera arrives",
            "change": {"visitor": "Vera", "place": home, "description": "a traveller"},
        }
    ]
    if reply:
        visits.append(
            {
                "at": "07:50",
                "type": "event",
                "text": "I am new in town, is there anything on today?",
                "change": {"visitor": "Vera", "to": first},
            }
        )
    config = base.model_dump(mode="json")
    config["interventions"] = [*config["interventions"], *visits]
    done = run(load_scenario(config), progress=False)
    return list(read_events(done.events_path))


def _first_line(events: list[Event]) -> tuple[Event, str]:
    (opening,) = [
        e
        for e in events
        if e.kind == "message" and e.data["to"] == ["visitor:vera"] and e.data["turn"] == 0
    ]
    return opening, str(opening.data["text"])


def test_an_agent_speaks_first_to_a_visitor_and_the_reply_continues_it(tmp_path: Path) -> None:
    events = _run(tmp_path, reply=True)
    opening, line = _first_line(events)
    first = opening.agent
    assert first is not None and opening.t is not None and opening.t.endswith("07:40:00")
    decided = [e for e in events if e.kind == "llm.call" and e.agent == first]
    assert any(c.data["purpose"] == "converse.turn" for c in decided)
    # Its line is in its memory at once, before any reply.
    remembered = [e for e in events if e.kind == "memory.add" and e.agent == first]
    early = [
        m for m in remembered if m.t == opening.t and "Conversation with Vera" in m.data["text"]
    ]
    assert early and line in early[0].data["text"]
    (talk,) = [
        e for e in events if e.kind == "conversation" and "visitor:vera" in e.data["participants"]
    ]
    assert talk.data["id"] == opening.data["conversation"]
    assert talk.data["participants"] == [first, "visitor:vera"]
    assert [t["speaker"] for t in talk.data["turns"]] == [first, "visitor:vera", first]
    assert talk.data["turns"][0]["text"] == line
    assert talk.data["turns"][1]["text"] == "I am new in town, is there anything on today?"
    (answer,) = [
        e
        for e in events
        if e.kind == "message" and e.data["to"] == ["visitor:vera"] and e.data["turn"] == 2
    ]
    assert answer.data["conversation"] == talk.data["id"]
    assert answer.data["text"] == talk.data["turns"][2]["text"]
    assert talk.data["ended_by"] == "turn_limit"


def test_a_visitor_who_says_nothing_for_a_tick_leaves_it_unanswered(tmp_path: Path) -> None:
    events = _run(tmp_path, reply=False)
    opening, line = _first_line(events)
    (talk,) = [
        e for e in events if e.kind == "conversation" and "visitor:vera" in e.data["participants"]
    ]
    assert talk.data["ended_by"] == "unanswered"
    assert talk.data["turns"] == [{"speaker": opening.agent, "text": line, "raised": False}]
    assert talk.t is not None and opening.t is not None
    assert talk.t > opening.t  # closed at the next tick, when no reply came
    assert not [
        e
        for e in events
        if e.kind == "message" and e.data["turn"] == 2 and e.data["to"] == ["visitor:vera"]
    ]
