"""A classical baseline for the town: an agent that follows its routine and passes on what it
hears. No language model.

- Its day is its persona's routine (`routine.routine_plan`: home, the workplace its words
  name, home again), block by block; it does not change it for anything it hears.
- News is what it is told: a thought put into its mind, an event announced where it is, or
  what another agent tells it. It keeps each piece in its memory stream, once.
- When someone it has not yet told a piece of news is at the same place, it asks to talk, and
  in the conversation each side tells the other, one piece a turn, what it has not yet told
  it, until neither has anything new.
- Asked in an interview, it repeats the latest news it holds, naming the records.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from simulacra.core import Action, InterviewAnswer, Observation, parse_hhmm
from simulacra.memory import MemoryRecord, MemoryStream
from simulacra.mind.town.persona import Persona
from simulacra.mind.town.routine import routine_plan
from simulacra.runlog import EventSink
from simulacra.runlog.events import ConversationHeld, Interviewed, MessageSent

NEWS_IMPORTANCE = 6.0
MAX_TURNS = 6
ANSWERED = 3  # pieces of news an interview answer repeats
NOTHING = "Nothing new from me."


@dataclass(frozen=True)
class News:
    """Who said it, what they said, and the record that keeps it."""

    origin: str
    said: str
    record: str

    @property
    def key(self) -> str:
        return f"{self.origin}|{self.said}"

    def told_by(self, name: str) -> str:
        return f"I said: {self.said}" if self.origin == name else f"{self.origin} said: {self.said}"


class RoutineAgent:
    """The town's `routine` mind (see the module docstring)."""

    def __init__(
        self,
        persona: Persona,
        memory: MemoryStream,
        places: Sequence[str],
        sink: EventSink | None = None,
    ) -> None:
        self.id = persona.id
        self.persona = persona
        self.memory = memory
        self.sink = sink
        blocks = routine_plan(persona, places).blocks
        self.blocks = sorted((parse_hhmm(b.start), b.place, b.activity) for b in blocks)
        self.told: dict[str, list[str]] = {}  # agent -> keys of the news told to it
        self.heard_events: list[str] = []

    async def decide(self, phase: str, observation: Observation, now: datetime) -> Action | None:
        facts = observation.facts
        if phase == "decide":
            for text in facts.get("events", ()):
                if text and text not in self.heard_events:
                    self.heard_events.append(text)
                    await self._keep(f"the town at {observation.place}", str(text), now)
            for other in observation.nearby_agents:
                if self._untold(other):
                    return Action("talk", "passing on news", target=other)
        elif phase == "act":
            partner = facts.get("talking_with")
            if isinstance(partner, str):
                name = str(facts.get("partner_name", partner))
                return Action("talk", f"talking with {name}", args={"with": partner})
            _, place, activity = self.block_at(now)
            return Action("do", activity, target=place)
        return None

    def block_at(self, now: datetime) -> tuple[float, str, str]:
        minute = now.hour * 60 + now.minute
        return [b for b in self.blocks if b[0] <= minute][-1]

    # --- news ------------------------------------------------------------------------------

    def news(self) -> list[News]:
        """Every piece of news it holds, oldest first, from its memory stream (so a mind built
        after the run, for an interview, knows the same)."""
        found: dict[str, News] = {}
        for record in self.memory.recent(len(self.memory)):
            origin, said = record.meta.get("origin"), record.meta.get("said")
            if isinstance(origin, str) and isinstance(said, str):
                item = News(origin, said, record.id)
                found.setdefault(item.key, item)
        return list(found.values())

    def _untold(self, other: str) -> News | None:
        told = self.told.get(other, [])
        return next((n for n in self.news() if n.key not in told), None)

    async def _keep(self, origin: str, said: str, now: datetime) -> MemoryRecord | None:
        if any(n.origin == origin and n.said == said for n in self.news()):
            return None
        text = f"{origin} said: {said}" if origin != self.persona.name else said
        meta = {"origin": origin, "said": said}
        return await self.memory.add("observation", text, now, NEWS_IMPORTANCE, meta=meta)

    async def think(self, text: str, now: datetime, importance: float | None = None) -> None:
        """A thought put into its mind is news of its own to pass on."""
        await self._keep(self.persona.name, text, now)

    async def converse(self, other: RoutineAgent, now: datetime, topic: str) -> None:
        """Each tells the other, one piece a turn, the news it has not yet told it."""
        conversation = f"conv-{self.id}-{other.id}-{now:%Y%m%dT%H%M%S}"
        turns: list[dict[str, str]] = []
        quiet = 0
        for turn in range(MAX_TURNS):
            me, you = (self, other) if turn % 2 == 0 else (other, self)
            item = me._untold(you.id)
            text = NOTHING if item is None else f"Have you heard? {item.told_by(me.persona.name)}"
            turns.append({"speaker": me.id, "text": text})
            me._emit(MessageSent(to=[you.id], text=text, conversation=conversation, turn=turn), now)
            if item is None:
                quiet += 1
                if quiet == 2:
                    break
                continue
            quiet = 0
            me.told.setdefault(you.id, []).append(item.key)
            you.told.setdefault(me.id, []).append(item.key)  # no need to tell it back
            await you._keep(item.origin, item.said, now)
        ended_by = "decision" if quiet == 2 else "turn_limit"
        held = ConversationHeld(
            id=conversation,
            participants=[self.id, other.id],
            topic=topic or "news",
            turns=turns,
            ended_by=ended_by,
        )
        if self.sink is not None:
            self.sink.emit(held, t=now, agent=None)

    async def interview(
        self,
        question: str,
        now: datetime,
        choices: Sequence[str] = (),
        sources: Sequence[str] = (),
    ) -> InterviewAnswer:
        """The latest news it holds, in its words; it does not weigh the question. Asked a
        closed question, it picks the first choice when it holds news (else the last) and
        names the origin of its latest news where `sources` holds it (else the last)."""
        latest = self.news()[-ANSWERED:]
        if latest:
            answer = " ".join(f"{n.told_by(self.persona.name)}" for n in latest)
        else:
            answer = "I have not heard of anything."
        ids = tuple(n.record for n in latest)
        choice = (choices[0] if latest else choices[-1]) if choices else None
        source = None
        if choices and sources:
            origin = latest[-1].origin if latest else None
            source = origin if origin in sources else sources[-1]
        said = Interviewed(
            question=question, answer=answer, memory_ids=list(ids), choice=choice, source=source
        )
        self._emit(said, now)
        # Its news are what it heard (observation records), so each is evidence.
        evidence = tuple(self.memory.get(i).text for i in ids)
        return InterviewAnswer(question, answer, ids, False, choice, evidence, source)

    def _emit(self, payload: Any, now: datetime) -> None:
        if self.sink is not None:
            self.sink.emit(payload, t=now, agent=self.id)

    def state(self) -> dict[str, Any]:
        return {"told": {k: list(v) for k, v in self.told.items()}, "heard": self.heard_events}

    def restore(self, state: Mapping[str, Any]) -> None:
        self.told = {str(k): [str(x) for x in v] for k, v in state["told"].items()}
        self.heard_events = [str(h) for h in state["heard"]]
