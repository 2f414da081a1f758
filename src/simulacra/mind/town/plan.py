"""Planning: a day of 5-8 blocks, decomposed lazily into hours and 5-15 minute actions.

Only the step about to run is decomposed, so a day costs one call for the day, one per waking
block longer than an hour, and one per waking hour. Sleep is never decomposed. Each level is
logged and written to memory as a plan record; the plan records of one phase are written
together (`flush`), so that the model rates them in one call. Under `memory.importance: rule`
a plan record's importance is its level's (PLAN_IMPORTANCE), as it was before plans were rated.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from simulacra.mind.context import Answer, MindContext, clock, end_of_day
from simulacra.mind.town import plan_prompts as p
from simulacra.mind.town.actions import fallback_actions, steps_from
from simulacra.mind.town.persona import Persona
from simulacra.mind.town.places import KnownPlaces
from simulacra.mind.town.plan_check import PlanRules, checked, placed, using
from simulacra.mind.town.routine import is_sleep, routine_plan, wake_hour
from simulacra.mind.town.schedule import (
    MAX_ACTION,
    PlanStep,
    Schedule,
    blocks_from,
    fit_durations,
    holds,
    laid_over,
    parse_clock,
    places_named,
    resolve_place,
    split_hours,
)
from simulacra.runlog.events import Planned

# The rule's importance of a plan record (and a failed rating's): a day plan matters more
# than one action.
PLAN_IMPORTANCE = {"day": 5.0, "replan": 6.0, "react": 3.0, "hour": 3.0, "action": 2.0}
DAILY_TOKENS = REPLAN_TOKENS = 320
REVISE_TOKENS = 96
REACT_WINDOW = timedelta(hours=2)  # what a reaction rewrites, as the source's does
# A clock time as news writes it ("9:30", "17:00"); the scripted stand-in reads with it too.
CLOCK_TIME = re.compile(r"\b(?:[01]?\d|2[0-3]):[0-5]\d\b")
APPOINTMENT = timedelta(hours=1)  # how long an appointment named without an end is kept
SHOWN_BLOCKS = p.MAX_BLOCKS  # the blocks ahead a decision sees: the rest of the day
NEXT_STEP_TOKENS = SUMMARY_TOKENS = 256  # the default of `MindContext.ask`
ACTIONS_TOKENS = 16 * p.MAX_ACTIONS + 40  # six phrases, then the hour's object and its state


def _items(steps: Sequence[PlanStep]) -> list[dict[str, Any]]:
    return [
        {
            "start": s.start.isoformat(),
            "duration_min": s.duration_min,
            "place": s.place,
            "description": s.description,
            **({"object": s.object, "object_state": s.object_state} if s.object else {}),
        }
        for s in steps
    ]


def _lines(steps: Sequence[PlanStep]) -> str:
    return "\n".join(
        f"- {clock(s.start)}-{clock(s.end)} {s.description} at {s.place}" for s in steps
    )


def _day(now: datetime) -> str:
    return now.strftime("%A %B %d, %Y")


HOURS_AHEAD = 3  # hours of a block broken down in one call


class Planner:
    """One agent's planning faculty and the schedule it keeps."""

    def __init__(
        self, ctx: MindContext[Persona], known: KnownPlaces, schedule: Schedule | None = None
    ) -> None:
        self.ctx = ctx
        self.known = known
        self.schedule = schedule or Schedule()
        self.unknown_places = 0
        self.laid = 0  # appointments laid over a replan that lacked them
        self._unwritten: list[tuple[str, str]] = []  # (level, text) of plans to remember

    @property
    def places(self) -> tuple[str, ...]:
        """The places the agent knows now: all a plan may name."""
        return self.known.places()

    @property
    def rules(self) -> PlanRules:
        """The plan's rules over the places known now (their enum grows as the agent learns)."""
        return PlanRules(self.places, self.ctx.persona.home, wake_hour(self.ctx.persona))

    def _objects(self, place: str, seen: Sequence[str]) -> tuple[str, ...]:
        """The objects the agent knows at `place`; without a spatial memory, those it sees."""
        known = self.known.objects(place)
        return tuple(seen if known is None else known)

    @property
    def _name(self) -> str:
        return self.ctx.persona.name

    def _prefix(self) -> dict[str, str]:
        persona = self.ctx.persona
        return {"name": persona.name, "places": ", ".join(self.places) or persona.home}

    def _blocks(
        self, items: Sequence[p.PlannedBlock], now: datetime, lead: p.PlannedBlock
    ) -> list[PlanStep]:
        home = self.ctx.persona.home
        steps, unknown = blocks_from(items, now, end_of_day(now), self.places, home, lead)
        if not steps:
            routine = routine_plan(self.ctx.persona, self.places).blocks
            steps, unknown = blocks_from(routine, now, end_of_day(now), self.places, home)
        self.unknown_places += unknown
        return steps

    def _from(self, blocks: Sequence[p.PlannedBlock], now: datetime) -> list[p.PlannedBlock]:
        """`blocks` from `now` to midnight: the routine as an example of the day left."""
        home = self.ctx.persona.home
        steps, _ = blocks_from(blocks, now, end_of_day(now), self.places, home)
        return [
            p.PlannedBlock(start=clock(s.start), place=s.place, activity=s.description)
            for s in steps
        ]

    def _record(self, level: str, text: str, steps: Sequence[PlanStep], now: datetime) -> None:
        self._unwritten.append((level, text))
        self.ctx.emit(Planned(level=level, items=_items(steps)), now)

    async def flush(self, now: datetime) -> None:
        """Write the plans made since the last flush as plan records, in one write."""
        if not self._unwritten:
            return
        levels, texts = zip(*self._unwritten, strict=True)
        self._unwritten = []
        await self.ctx.memory.add_many(
            "plan",
            texts,
            now,
            meta=[{"level": level} for level in levels],
            rule=[PLAN_IMPORTANCE[level] for level in levels],
        )

    async def plan_day(self, now: datetime, yesterday: str | None = None) -> list[PlanStep]:
        fallback = routine_plan(self.ctx.persona, self.places)
        # The usual day from now on as an example: small models copy a format they are shown
        # (given the whole day at 15:00, they copied its "sleeping" first block).
        usual = p.DailyPlanOutput.model_construct(blocks=self._from(fallback.blocks, now))
        task = p.DAILY_SYSTEM + p.DAILY_EXAMPLE.format(
            name=self._name, routine=usual.model_dump_json()
        )
        user = self.ctx.situation(
            "plan.daily",
            f"{self._name}'s plans, appointments, invitations and promises for {_day(now)}",
            now,
            task,
            p.DAILY_USER,
            DAILY_TOKENS,
            {
                **self._prefix(),
                "yesterday": yesterday or "(nothing to recall)",
                "date": _day(now),
                "start": clock(now),
            },
        )
        answer = await self.ctx.ask(
            "plan.daily",
            now,
            task,
            user,
            checked(p.DailyPlanOutput, self.rules),
            fallback,
            max_tokens=DAILY_TOKENS,
        )
        asleep = p.PlannedBlock(start=clock(now), place=self.ctx.persona.home, activity="sleeping")
        steps = self._blocks(answer.value.blocks, now, asleep)
        self.schedule.keep_day_of(now)
        self.schedule.cut_at(now)
        self.schedule.blocks += steps
        text = f"{self._name}'s plan for {_day(now)}:\n{_lines(steps)}"
        self._record("day", text, steps, now)
        return steps

    async def replan(
        self, now: datetime, reason: str = "", keep: PlanStep | None = None
    ) -> list[PlanStep]:
        """The rest of the day rebuilt from `now` by the model; an appointment the agent named
        (`keep`) and the new plan lacks is laid over it and counted (`laid`): SmolLM2-135M
        named the party's time and place when told of it, then copied its old day."""
        remaining = self.schedule.remaining(now)[:8]
        if remaining:
            fallback = p.ReplanOutput(
                blocks=[
                    p.PlannedBlock(start=clock(s.start), place=s.place, activity=s.description)
                    for s in remaining
                ]
            )
        else:
            fallback = p.ReplanOutput(blocks=routine_plan(self.ctx.persona, self.places).blocks)
        why = reason or "a new situation"
        # The plan held as an example of the reply's form, as the day plan shows the routine:
        # without one, SmolLM2-135M answered with clock times for places and "Minecraft 4.1".
        task = p.REPLAN_SYSTEM + p.REPLAN_EXAMPLE.format(
            name=self._name, plan=fallback.model_dump_json()
        )
        user = self.ctx.situation(
            "plan.replan",
            f"{why}; {self._name}'s plans and promises",
            now,
            task,
            p.REPLAN_USER,
            REPLAN_TOKENS,
            {
                **self._prefix(),
                "remaining": _lines(remaining) or "(no plan)",
                "now": clock(now),
                "date": _day(now),
                "reason": why,
            },
        )
        answer = await self.ctx.ask(
            "plan.replan",
            now,
            task,
            user,
            checked(p.ReplanOutput, self.rules),
            fallback,
            max_tokens=REPLAN_TOKENS,
        )
        running = remaining[0] if remaining else None
        hours, actions = list(self.schedule.hours), list(self.schedule.actions)
        carry_on = p.PlannedBlock(
            start=clock(now),
            place=running.place if running else self.ctx.persona.home,
            activity=running.description if running else "resting",
        )
        steps = self._blocks(answer.value.blocks, now, carry_on)
        if keep is not None and not holds(steps, keep):
            steps = laid_over(steps, keep)
            self.laid += 1
            why += f"; kept {keep.description} at {clock(keep.start)} at {keep.place}"
        self.schedule.cut_at(now)
        if running is not None and (steps[0].place, steps[0].description) == (
            running.place,
            running.description,
        ):
            # The running block goes on: its hours and actions already planned stand (to its
            # new end), and are not asked for again.
            self.schedule.hours, self.schedule.actions = hours, actions
            self.schedule.cut_steps_at(steps[0].end)
        self.schedule.blocks += steps
        text = f"{self._name} changed plans at {clock(now)} ({why}):\n{_lines(steps)}"
        self._record("replan", text, steps, now)
        return steps

    def ahead(self, now: datetime) -> str:
        """The rest of the day's blocks, as prompt lines."""
        return _lines(self.schedule.remaining(now)[:SHOWN_BLOCKS]) or "(no plan)"

    async def revise(self, now: datetime, news: str) -> Answer[p.RevisionOutput]:
        """What `news` means for the plans (a thought, in the first person), and whether the
        rest of the day changes, decided from the memories it recalls beside the plan."""
        user = self.ctx.situation(
            "plan.revise",
            f"{news[:300]} {self._name}'s plans and promises",
            now,
            p.REVISE_SYSTEM,
            p.REVISE_USER,
            REVISE_TOKENS,
            {
                "name": self._name,
                "remaining": self.ahead(now),
                "date": _day(now),
                "now": clock(now),
                "news": news,
            },
        )
        fallback = p.RevisionOutput(
            thought="", what="", start=p.NONE, place=p.NONE, plans="continue"
        )
        return await self.ctx.ask(
            "plan.revise",
            now,
            p.REVISE_SYSTEM,
            user,
            p.revision_output(
                tuple(places_named(news, self.places)),
                tuple(dict.fromkeys(CLOCK_TIME.findall(news))),
            ),
            fallback,
            max_tokens=REVISE_TOKENS,
        )

    def appointment(self, revision: p.RevisionOutput, now: datetime) -> PlanStep | None:
        """The appointment a revision named, from now on, today; None where it named none or
        one already over."""
        place = str(getattr(revision.place, "value", revision.place))
        at = str(getattr(revision.start, "value", revision.start))
        if p.NONE in (at, place):
            return None
        start = parse_clock(now, at)
        end = min(start + APPOINTMENT, end_of_day(now))
        if end <= now:
            return None
        start = max(start, now)
        what = revision.what.strip() or "an appointment"
        return PlanStep(start, int((end - start).total_seconds() // 60), place, what)

    async def react(self, now: datetime, reaction: str, objects: Sequence[str]) -> list[PlanStep]:
        """The next two hours of the running block (at most) rewritten around `reaction`, as
        the source's reaction rewrites its window of the schedule; what lies beyond is
        broken down again when the agent gets there."""
        block = self.schedule.block_at(now)
        if block is None:
            return []
        objects = self._objects(block.place, objects)
        end = min(block.end, now + REACT_WINDOW)
        minutes = int((end - now).total_seconds() // 60)
        doing = self.schedule.action_at(now) or self.schedule.hour_at(now) or block
        user = p.REACT_WINDOW_USER.format(
            name=self._name,
            place=block.place,
            objects=", ".join(objects) or "(none noticed)",
            activity=doing.description,
            reaction=reaction,
            start=clock(now),
            end=clock(end),
            minutes=minutes,
        )
        fallback = fallback_actions([reaction[:36] or "reacting", doing.description[:36]])
        answer = await self.ctx.ask(
            "plan.react",
            now,
            p.REACT_WINDOW_SYSTEM,
            user,
            using(objects),
            fallback,
            max_tokens=ACTIONS_TOKENS,
        )
        window = PlanStep(now, minutes, block.place, f"reacting to {reaction}"[:80])
        steps = steps_from(answer.value, window, objects)
        self.schedule.cut_steps_at(now)
        self.schedule.hours.append(window)
        self.schedule.actions += steps
        text = f"{self._name} reacted at {clock(now)} ({reaction}):\n{_lines(steps)}"
        self._record("react", text, steps, now)
        return steps

    async def current_action(self, now: datetime, objects: Sequence[str] = ()) -> PlanStep:
        block = self.schedule.block_at(now)
        if block is None:
            await self.plan_day(now)
            block = self.schedule.block_at(now)
        if block is None:  # planning always covers now until midnight; this guards a bad clock
            raise RuntimeError(f"{self.ctx.id}: no plan block covers {now.isoformat()}")
        if is_sleep(block.description):
            return block
        hour = self.schedule.hour_at(now) or await self._decompose_block(block, now)
        return self.schedule.action_at(now) or await self._decompose_hour(hour, now, objects)

    async def _decompose_block(self, block: PlanStep, now: datetime) -> PlanStep:
        # Lazily: only the next few hours of a block; the rest waits until the agent gets there.
        start = max(
            (h.end for h in self.schedule.hours if block.start <= h.start < block.end),
            default=block.start,
        )
        remaining = int((block.end - start).total_seconds() // 60)
        lengths = split_hours(remaining)[:HOURS_AHEAD]
        if len(lengths) == 1:  # an hour or less left: its own hour chunk, no call
            activities = [block.description]
        else:
            user = p.HOURLY_USER.format(
                **self._prefix(),
                activity=block.description,
                place=block.place,
                start=clock(start),
                end=clock(start + timedelta(minutes=sum(lengths))),
                hours=len(lengths),
            )
            fallback = p.HourlyOutput(activities=[block.description] * len(lengths))
            # A token budget sized to the answer: a small model otherwise fills 24 slots.
            answer = await self.ctx.ask(
                "plan.hourly",
                now,
                p.HOURLY_SYSTEM,
                user,
                p.HourlyOutput,
                fallback,
                max_tokens=16 * len(lengths) + 24,
            )
            activities = [a.strip() or block.description for a in answer.value.activities]
        chunks: list[PlanStep] = []
        at = start
        for i, minutes in enumerate(lengths):
            activity = activities[i] if i < len(activities) else block.description
            chunks.append(PlanStep(at, minutes, block.place, activity))
            at += timedelta(minutes=minutes)
        self.schedule.hours += chunks
        if len(chunks) > 1:
            text = f"{self._name}'s hours for {block.description}:\n{_lines(chunks)}"
            self._record("hour", text, chunks, now)
        return next(c for c in chunks if c.covers(now))

    async def _decompose_hour(
        self, hour: PlanStep, now: datetime, objects: Sequence[str]
    ) -> PlanStep:
        if hour.duration_min <= MAX_ACTION:  # already a short action: no call
            self.schedule.actions.append(hour)
            return hour
        objects = self._objects(hour.place, objects)
        user = p.ACTIONS_USER.format(
            **self._prefix(),
            place=hour.place,
            objects=", ".join(objects) or "(none noticed)",
            start=clock(hour.start),
            end=clock(hour.end),
            minutes=hour.duration_min,
            activity=hour.description,
        )
        steps_needed = len(fit_durations([], hour.duration_min))
        fallback = fallback_actions([hour.description] * min(steps_needed, p.MAX_ACTIONS))
        answer = await self.ctx.ask(
            "plan.actions",
            now,
            p.ACTIONS_SYSTEM,
            user,
            using(objects),
            fallback,
            max_tokens=ACTIONS_TOKENS,
        )
        steps = steps_from(answer.value, hour, objects)
        self.schedule.actions += steps
        text = f"{self._name}'s next steps for {hour.description}:\n{_lines(steps)}"
        self._record("action", text, steps, now)
        return next(s for s in steps if s.covers(now))

    async def improvise(self, now: datetime, current: PlanStep | None) -> PlanStep:
        """Without planning: keep the running step, sleep when the routine says so, otherwise
        ask what to do next (one call per step, 5-60 minutes)."""
        if current is not None and current.covers(now):
            return current
        routine, _ = blocks_from(
            routine_plan(self.ctx.persona, self.places).blocks,
            now,
            end_of_day(now),
            self.places,
            self.ctx.persona.home,
        )
        if is_sleep(routine[0].description):
            return routine[0]
        user = self.ctx.situation(
            "plan.now",
            f"what {self._name} should do now",
            now,
            p.NEXT_STEP_SYSTEM,
            p.NEXT_STEP_USER,
            NEXT_STEP_TOKENS,
            {
                **self._prefix(),
                "now": clock(now),
                "date": _day(now),
            },
        )
        until_then = min(60, routine[0].duration_min)
        fallback = p.NextStepOutput(
            place=routine[0].place, activity=routine[0].description, minutes=max(5, until_then)
        )
        answer = await self.ctx.ask(
            "plan.now",
            now,
            p.NEXT_STEP_SYSTEM,
            user,
            placed(p.NextStepOutput, self.places),
            fallback,
            max_tokens=NEXT_STEP_TOKENS,
        )
        place, known = resolve_place(answer.value.place, self.places, self.ctx.persona.home)
        self.unknown_places += not known
        left = int((end_of_day(now) - now).total_seconds() // 60)
        return PlanStep(now, min(answer.value.minutes, left), place, answer.value.activity)

    async def summarize_day(self, now: datetime) -> str:
        blocks = self.schedule.blocks
        day = blocks[0].start if blocks else now
        plan = _lines(blocks) or "(no plan)"
        fallback = p.DaySummaryOutput(
            summary=f"{self._name}'s day ({_day(day)}): "
            + ("; ".join(f"{s.description} at {s.place}" for s in blocks) or "an ordinary day")
        )
        if not self.ctx.ablation.plans:
            return fallback.summary
        user = self.ctx.situation(
            "summarize.day",
            f"what {self._name} did today, and what {self._name} promised or plans to do next",
            now,
            p.SUMMARY_SYSTEM,
            p.SUMMARY_USER,
            SUMMARY_TOKENS,
            {
                **self._prefix(),
                "plan": plan,
                "date": _day(day),
            },
        )
        answer = await self.ctx.ask(
            "summarize.day",
            now,
            p.SUMMARY_SYSTEM,
            user,
            p.DaySummaryOutput,
            fallback,
            max_tokens=SUMMARY_TOKENS,
        )
        return answer.value.summary.strip() or fallback.summary
