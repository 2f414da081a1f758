"""A scripted stand-in for a model, for tests and the benchmark: it reads what each prompt
gives it and acts on that, by fixed rules, whatever the news is about.

- Weight: it judges a memory's weight as the keyword rule does (`rule_importance`): a sight
  of someone working weighs 2, a party or an election more.
- Talk (react.decide): waits when it is offered wait (the mind offers it when what the
  step uses is among what was noticed) and an object is seen in use, nothing grave; reacts
  to a grave
  sight where it is; replans when something on its mind names a time and a place today that
  the plan shown does not hold; talks to the first person free when something weighty is on
  its mind; otherwise carries on.
- A turn (converse.turn): answers news it was just told (with a yes when the news names a
  time and a place), else passes on the weightiest memory the listener has not heard: not
  from a conversation with the listener, not already said in this one.
- After news (plan.revise): the weightiest line it heard is its thought, and it replans when
  a memory or the news names a time and a place today that the plan does not hold.
- Plans (plan.daily, plan.replan, plan.react): the day or the plan it is shown as the form
  of the reply, within the output model's limits, with each appointment its memories name
  for today laid over it.
- An hour's actions (plan.actions): as many steps as the prompt asks (3 to 6, none longer
  than 15 minutes), the activity's parts in order ("waking up", "getting ready"), each at an
  object the output model offers where the phrase has room for it: the one whose name shares
  a word with the activity, used all hour in a state made of the activity's words ("making
  coffee"), else each offered in turn, from one the call's seed picks; without objects, the
  parts alone.
- A reaction's window (plan.react): the reaction, then the step it interrupted, using the
  object the reaction names, else the one the step names.
- Interviews: answers from the memory that shares most words with the question.
- Reflection: one insight from the two statements that share most words with the question.
- As an evaluation's judge: ranks answers by how many of their words the character's
  memories relevant to the question hold, and flags names and numbers no source holds.

Everything else gets the declared fallback.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from enum import Enum
from typing import Any, Literal, get_args, get_origin

from simulacra.core import at_a_word
from simulacra.llm import Request, ScriptedModel
from simulacra.memory import rule_importance
from simulacra.mind.interview import MEMORY_IDS
from simulacra.mind.town.converse_prompts import SMALL_TALK
from simulacra.mind.town.plan import CLOCK_TIME
from simulacra.mind.town.plan_prompts import (
    MAX_ACTIONS,
    MAX_BLOCKS,
    NONE,
    STATE_CHARS,
    THOUGHT_CHARS,
)
from simulacra.mind.town.react_prompts import NOBODY, NOTHING
from simulacra.mind.town.routine import clock_of, minutes_of

_KNOW = re.compile(r"Do you know (.+?)\?")
_WORD = re.compile(r"[a-z0-9']{3,}")
_STATEMENT = re.compile(r"^(\d+)\. (.*)$", re.MULTILINE)
_PROPER = re.compile(r"(?<![.!?:]\s)(?<!^)\b([A-Z][a-z]+|\d+(?::\d+)?)\b")
_PLACE = re.compile(r"\bat ((?:[A-Z][\w']*)(?: (?:[A-Z][\w']*|of|and))*)")
_DATE = re.compile(
    r"\b(January|February|March|April|May|June|July|August|September|October|November|"
    r"December) (\d{1,2})\b"
)
_PLAN_JSON = re.compile(r'\{"blocks": ?\[.*?\]\}', re.DOTALL)
_PLAN_LINE = re.compile(r"^- (\d\d:\d\d)-(\d\d:\d\d) (.*) at (.+)$", re.MULTILINE)
_SPEAKER = re.compile(r"^([A-Z][\w'-]*(?: [A-Z][\w'-]*)*): (.*)$")
# A memory line's provenance (mind/provenance.py), the prompt's words, not the memory's.
_LABEL = re.compile(r"^\[(?:seen|heard(?: from [^\]]*)?|planned|inferred|thought)\] ")
# Words a question asks with, not about.
_ASKING = frozenset(
    re.findall(
        r"\w+",
        "you your know does did the and any are who what when where which whether anyone "
        "happening town for with about have has this that there",
    )
)
ORDINARY = 2  # rule_importance of a line without weighty words: not news
GRAVE = 5  # a sight this weighty is reacted to
TURNS = 4
ANSWER_CHARS = 200
APPOINTMENT_MINUTES = 90
APPOINTMENTS = 2  # laid over one plan at most
MIN_DAY_BLOCKS = 5  # DailyPlanOutput's least
ACTION_CHARS = 36  # ActionsOutput's most, a phrase
MIN_STEPS = 3  # an hour's steps, as ACTIONS_SYSTEM asks: 3 to MAX_ACTIONS
MAX_STEP_MINUTES = 15
BREAK_MINUTES = 30


def sociable(model: ScriptedModel) -> ScriptedModel:
    """Register the town's responders on a scripted model; returns it."""
    model.on("react.decide", _react)
    model.on("converse.turn", _turn)
    model.on("plan.revise", _revise)
    model.on("plan.daily", _plan)
    model.on("plan.replan", _plan)
    model.on("plan.react", _react_window)
    model.on("plan.actions", _hour_actions)
    model.on("interview.answer", _interview)
    model.on("reflect.insights", _insights)
    model.on("judge.rank", _rank)
    model.on("judge.check", _check)
    return model


def interviewees(model: ScriptedModel) -> ScriptedModel:
    """Register the interview responder alone, for any world whose minds keep a memory
    stream: they answer from the memories the interview shows them; returns the model."""
    model.on("interview.answer", _interview)
    return model


def _prompt(request: Request) -> str:
    return request.messages[-1].text


def offered(request: Request, field: str) -> list[str]:
    """The values an enum or literal field of the request's output model allows, in order."""
    fields = request.output.model_fields if request.output is not None else {}
    kind = getattr(fields.get(field), "annotation", None)
    if get_origin(kind) is Literal:
        return [str(v) for v in get_args(kind)]
    return [str(m.value) for m in kind] if isinstance(kind, type) and issubclass(kind, Enum) else []


def _between(text: str, start: str, end: str) -> str:
    return text.split(start, 1)[-1].split(end, 1)[0] if start in text else ""


def _stems(text: str) -> set[str]:
    """A text's words, crudely stemmed ("running" and "run" meet), asking words aside."""
    out = set()
    for word in _WORD.findall(text.lower()):
        if word in _ASKING:
            continue
        for suffix in ("ning", "ing", "ed", "es", "s"):
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                word = word[: -len(suffix)]
                break
        out.add(word)
    return out


def _weight(line: str) -> int:
    return rule_importance(line)


# --- memories as the prompt shows them -------------------------------------------------------


def _records(section: str) -> list[list[str]]:
    """The records of a memory section, each as its lines ("- " starts a record)."""
    records: list[list[str]] = []
    for line in section.splitlines():
        if line.startswith("- ") or (line.strip() and not records):
            records.append([_LABEL.sub("", line.removeprefix("- ").strip())])
        elif line.strip():
            records[-1].append(line.strip())
    return records


def _told(line: str, me: str) -> str:
    """A line of a remembered conversation in the voice of one who passes it on."""
    said = _SPEAKER.match(line)
    if said is None:
        return line
    who, text = said.groups()
    text = text.removeprefix("Have you heard? ").strip()
    if who == me:
        return text
    # Who told me, and whose words they passed on: the tellers in between drop out.
    *tellers, core = text.split(" told me: ")
    origin = f"{tellers[-1]} told me: " if tellers else ""
    return f"{who} told me: {origin}{core}"


def _whole(topic: str, memories: str, me: str) -> str:
    """The sentence a topic offered to raise stands for: the memory line it cuts ("…") whole,
    as one who passes it on says it (a cut one lost its time and place); none for a topic
    that names a conversation rather than saying something."""
    if topic.startswith("talked with "):
        return ""
    if not topic.endswith("…"):
        return topic
    head = topic[:-1].rstrip()
    lines = (line for record in _records(memories) for line in record)
    return next((_told(line, me) for line in lines if line.startswith(head)), "")


def _news(section: str, me: str, listener: str = "", said: str = "") -> list[str]:
    """What the memories hold worth telling, weightiest first (ties: in the order shown):
    headings aside, and what the listener heard with me or was already said."""
    found: list[str] = []
    for record in _records(section):
        if listener and listener in record[0] and record[0].startswith("Conversation"):
            continue  # the listener was there
        for line in record:
            if line.rstrip().endswith(":"):
                continue
            text = _told(line, me)
            core = text.rsplit(" told me: ", 1)[-1][:60].lower()
            theirs = bool(listener) and f"{listener} told me" in text
            if core in said.lower() or text in found or theirs:
                continue  # said already, or the listener's own news
            found.append(text)
    weighty = [t for t in found if _weight(t) > ORDINARY]
    return sorted(weighty, key=lambda t: -_weight(t))


def _appointments(text: str, today: str) -> list[tuple[str, str, str]]:
    """(clock, place, what) of each line naming a clock time and a place for `today` ("today",
    "tonight", or today's month and day, e.g. "February 14")."""
    day = _DATE.search(today)
    found = []
    for line in text.splitlines():
        if line.rstrip().endswith(":") or "Conversation with" in line:
            continue  # a heading: when a record was made, not what it says
        dated = _DATE.search(line)
        is_today = (
            day is not None and dated is not None and dated.groups() == day.groups()
        ) or re.search(r"\b(today|tonight)\b", line, re.IGNORECASE)
        clock, place = CLOCK_TIME.search(line), _PLACE.search(line)
        if not is_today or clock is None or place is None:
            continue
        before = line[: place.start()].rsplit(":", 1)[-1].split()
        what = " ".join(w for w in before[-3:] if w.lower() not in {"a", "an", "the"})
        found.append((clock_of(minutes_of(clock.group(0))), place.group(1), what))
    return found


def _held(plan: Sequence[tuple[str, str, str, str]], clock: str, place: str) -> bool:
    """Whether a plan's lines (start, end, activity, place) put it at `place` at `clock`."""
    at = minutes_of(clock)
    return any(
        p == place and minutes_of(s) <= at < (minutes_of(e) or 24 * 60) for s, e, _, p in plan
    )


def _missing(text: str, today: str, plan_lines: str) -> list[tuple[str, str, str]]:
    """Today's appointments the plan shown (from now on) does not hold; one begun already
    counts from now, and one over is no longer missed."""
    plan = _PLAN_LINE.findall(plan_lines)
    start = minutes_of(plan[0][0]) if plan else 0
    missing = []
    for clock, place, what in _appointments(text, today):
        at = minutes_of(clock)
        if at < start <= at + APPOINTMENT_MINUTES:
            clock = plan[0][0]
        if at + APPOINTMENT_MINUTES > start and not _held(plan, clock, place):
            missing.append((clock, place, what))
    return missing


# --- decisions --------------------------------------------------------------------------------


def _react(request: Request) -> dict[str, Any]:
    prompt = _prompt(request)
    people, topics = offered(request, "target"), offered(request, "about")
    situation = re.search(r"It is \S+ on (.+?)\. .+ is (.+) at (.+)\.\n", prompt)
    today, _, place = situation.groups() if situation else ("", "", "")
    noticed = [n[2:] for n in _between(prompt, "notices:\n", "\nNearby").splitlines()]
    plan = _between(prompt, "plan for the rest of the day:\n", "\nWhat does")
    free = people[:-1]  # the last is "nobody"

    def about(text: str) -> str:
        return max(topics, key=lambda t: len(_stems(t) & _stems(text)), default=NOTHING)

    waits = "wait" in offered(request, "choice")  # what my step uses is busy
    for sight in noticed:
        thing = re.match(r"the (.+?) in the .* is (?!idle)", sight)
        if thing and waits and _weight(sight) < GRAVE:
            return {"choice": "wait", "target": NOBODY, "about": about(sight)}
    for sight in noticed:
        if _weight(sight) >= GRAVE and place in sight and not any(p in sight for p in people):
            return {"choice": "react", "target": NOBODY, "about": about(sight)}
    for topic in topics:
        if _missing(topic, today, plan):
            return {"choice": "replan", "target": NOBODY, "about": topic}
    weighty = [t for t in topics if t != NOTHING and _weight(t) > ORDINARY]
    if free and weighty:
        return {"choice": "talk", "target": free[0], "about": weighty[0]}
    return {"choice": "continue", "target": NOBODY, "about": NOTHING}


def _turn(request: Request) -> dict[str, Any]:
    prompt = _prompt(request)
    me = _between(prompt, "What does ", " say next?")
    listener = _between(prompt, f"{me} is talking with ", ".\n")
    topic = _between(prompt, f"On {me}'s mind: ", "\n")
    transcript = _between(prompt, "Conversation so far:\n", "\nWhat does")
    said = [line for line in transcript.splitlines() if line and line != "(nothing yet)"]
    memories = _between(prompt, "remembers:\n", "\n\nIt is ")
    last = said[-1].split(": ", 1)[-1] if said else ""
    if said and not said[-1].startswith(f"{me}: ") and _weight(last) > ORDINARY:
        # Told news: a yes to something with a time and a place, thanks for the rest.
        timed = CLOCK_TIME.search(last) and _PLACE.search(last)
        text = "That sounds lovely; I will try to come." if timed else "Thank you for telling me."
        told = last
    else:
        # What is on the speaker's mind comes first where it is news not yet said (a sentence
        # it was given to raise, not a subject such as "the election"), then the weightiest
        # memory the listener has not heard.
        raised = _whole(topic, memories, me)
        sentence = len(raised.split()) >= 5 and raised[:60] not in transcript
        mine = [raised] if sentence and _weight(raised) > ORDINARY else []
        news = mine + _news(memories, me, listener, transcript)
        told = news[0] if news else ""
        text = f"Have you heard? {told}" if told else "Nice to see you. How is your day going?"
    raises = SMALL_TALK
    if told and topic and len(_stems(topic) & _stems(told)) >= 2:
        raises = next((t for t in offered(request, "raises") if t != SMALL_TALK), SMALL_TALK)
    return {"raises": raises, "text": text[:ANSWER_CHARS], "end": len(said) + 1 >= TURNS}


def _revise(request: Request) -> dict[str, Any]:
    """What the news means for the agent's plans, and whether the rest of the day changes."""
    prompt = _prompt(request)
    me = _between(prompt, "What does this mean for ", "'s plans")
    today = _between(prompt, "rest of today (", "):")
    plan = _between(prompt, "):\n", "\nWhat ")
    memories = _between(prompt, "remembers:\n", "\n\nIt is ")
    happened = _between(prompt, "What just happened:\n", "\nWhat does this mean")
    others = "\n".join(line for line in happened.splitlines() if not line.startswith(f"{me}: "))
    heard = _news(others, me)
    missing = _missing(f"{memories}\n{happened}", today, plan)
    none = {"what": "", "start": NONE, "place": NONE}
    if missing:  # the appointment the plan lacks is what the news means for it
        clock, place, what = missing[0]
        day = _DATE.search(today)  # dated, not "today": the thought outlives the day
        when = f"on {day.group(0)}" if day else "today"
        thought = f"I should go to the {what or 'event'} at {place} at {clock} {when}."
        # An appointment begun already was moved to now; the news named its own time.
        times = [t for t in offered(request, "start") if t != NONE]
        # The times are offered as the news wrote them ("9:30" for 09:30).
        same = [t for t in times if minutes_of(t) == minutes_of(clock)]
        start = next(iter(same or times), NONE)
        if place in offered(request, "place") and start != NONE:
            none = {"what": (what or "event")[:ACTION_CHARS], "start": start, "place": place}
    else:
        thought = heard[0] if heard else "Nothing in it changes my day."
    return {
        "thought": at_a_word(thought, THOUGHT_CHARS),
        **none,
        "plans": "replan" if missing else "continue",
    }


# --- plans -----------------------------------------------------------------------------------


def _plan(request: Request) -> dict[str, Any]:
    """The day (or the plan) shown as the form of the reply, each appointment of today laid
    over it, at most MAX_BLOCKS blocks."""
    prompt = "\n".join(m.text for m in request.messages)
    shown = _PLAN_JSON.search(prompt)
    blocks: list[dict[str, str]] = json.loads(shown.group(0))["blocks"] if shown else []
    places = [p.strip() for p in _between(prompt, "Places: ", "\n").split(",")]
    replanned = re.search(r"It is \S+ on (.+?)\. What changed", prompt)
    today = _between(prompt, "Today is ", ".") or (replanned.group(1) if replanned else "")
    shown_memories = re.search(r"remembers[^\n]*:\n(.*?)\n\n", prompt, re.DOTALL)
    memories = shown_memories.group(1) if shown_memories else ""
    memories += "\n" + _between(prompt, "changed: ", "\n")
    found = [a for a in _appointments(memories, today) if a[1] in places]
    kept = list({(clock, place): (clock, place, what) for clock, place, what in found}.values())
    kept = kept[:APPOINTMENTS]
    while len(blocks) > MAX_BLOCKS - 2 * len(kept):  # each appointment may add two blocks
        blocks = _without_shortest(blocks)
    for clock, place, what in kept:
        if blocks:
            blocks = _laid_over(blocks, clock, place, what or "meeting people")
    while "Today is" in prompt and blocks and len(blocks) < MIN_DAY_BLOCKS:
        blocks = _with_break(blocks)
    return {"blocks": blocks}


def _laid_over(
    blocks: list[dict[str, str]], clock: str, place: str, what: str
) -> list[dict[str, str]]:
    """`blocks` with one appointment over them; the block it interrupts resumes after it."""
    start, end = minutes_of(clock), minutes_of(clock) + APPOINTMENT_MINUTES
    if start < minutes_of(blocks[0]["start"]) or end >= 24 * 60:
        return blocks
    before = [b for b in blocks if minutes_of(b["start"]) < start]
    after = [b for b in blocks if minutes_of(b["start"]) > end]
    running = [b for b in blocks if minutes_of(b["start"]) <= end][-1]
    resume = {**running, "start": clock_of(end)}
    visit = {"start": clock, "place": place, "activity": what[:36]}
    return [*before, visit, resume, *after]


def _with_break(blocks: list[dict[str, str]]) -> list[dict[str, str]]:
    """A break in the middle of the longest waking block: a day needs MIN_DAY_BLOCKS."""
    lengths = _lengths(blocks)
    waking = [i for i in range(len(blocks)) if "sleep" not in blocks[i]["activity"].lower()]
    i = max(waking or range(len(blocks)), key=lambda i: lengths[i])
    middle = minutes_of(blocks[i]["start"]) + lengths[i] // 2
    pause = {**blocks[i], "start": clock_of(middle), "activity": "a break"}
    back = middle + BREAK_MINUTES
    resume = {**blocks[i], "start": clock_of(back)}
    return [*blocks[: i + 1], pause, resume, *blocks[i + 1 :]]


def _lengths(blocks: list[dict[str, str]]) -> list[int]:
    ends = [minutes_of(b["start"]) for b in blocks[1:]] + [24 * 60]
    return [e - minutes_of(b["start"]) for b, e in zip(blocks, ends, strict=True)]


def _without_shortest(blocks: list[dict[str, str]]) -> list[dict[str, str]]:
    lengths = _lengths(blocks)
    waking = [i for i in range(1, len(blocks)) if "sleep" not in blocks[i]["activity"].lower()]
    drop = min(waking or range(1, len(blocks)), key=lambda i: lengths[i])
    return blocks[:drop] + blocks[drop + 1 :]


def _react_window(request: Request) -> dict[str, Any]:
    """The window rewritten around the reaction: the reaction, then the step it interrupted,
    using the object the reaction names, else the one the step names."""
    prompt = _prompt(request)
    reaction = _between(prompt, "Reaction: ", "\n")
    planned = _between(prompt, "was doing: ", "\n")
    first = reaction[:ACTION_CHARS]
    things = _objects(request)
    texts = [first, first, planned[:ACTION_CHARS] or "carrying on"]
    return {"actions": texts, **_using(reaction if _naming(reaction, things) else planned, things)}


def _hour_actions(request: Request) -> dict[str, Any]:
    """The hour in as many steps as the prompt asks (3 to 6, of 15 minutes at most): the
    activity's parts in order, each step at an object of the place. Where the activity names
    an offered object the hour uses it, in what the activity does as its state; else the steps
    go round the objects offered (the hour's object none: each uses the one it names)."""
    prompt = _prompt(request)
    activity = _between(prompt, " plans: ", "\n")
    place = _between(prompt, " is at ", ". Objects here")
    window = re.search(r"\((\d+) minutes\)", prompt)
    minutes = int(window.group(1)) if window else 60
    count = max(MIN_STEPS, min(MAX_ACTIONS, -(-minutes // MAX_STEP_MINUTES)))
    things = _objects(request)
    chosen = _naming(activity, things)
    used = [chosen] if chosen else things
    # What is done, the place left out: the step says where it is done.
    here = rf"\s+at (the )?{re.escape(place)}\b" if place else r"(?!)"
    done = re.sub(here, "", activity, flags=re.IGNORECASE).strip() or activity
    parts = _parts(done)
    # Where to begin the round: the call's seed, so that those working at one place do not
    # all go to the same object at once.
    first = request.seed % len(used) if used else 0
    texts = [
        _at(parts[i * len(parts) // count], used[(first + i) % len(used)] if used else None)
        for i in range(count)
    ]
    return {"actions": texts, **_using(activity, used[:1] if chosen else [], done)}


def _parts(activity: str) -> list[str]:
    """An activity's parts in order ("waking up and getting ready": two)."""
    parts = [p.strip() for p in re.split(r",|\band\b|\bthen\b", activity) if p.strip()]
    return parts or [activity.strip() or "carrying on"]


def _at(part: str, thing: str | None) -> str:
    """A step: `part` at `thing` where its words do not name it already and the phrase has
    room for it; else `part` alone: cut to make room, "getting ready for the party" would lose
    the party."""
    phrase = part if thing is None or _naming(part, [thing]) else f"{part} at the {thing}"
    return phrase if len(phrase) <= ACTION_CHARS else at_a_word(part, ACTION_CHARS)


def _objects(request: Request) -> list[str]:
    """The objects an hour may use, as the output model's enum offers them ("none" aside)."""
    return [o for o in offered(request, "object") if o != NONE]


def _naming(text: str, things: Sequence[str]) -> str | None:
    """The object whose name shares most words with `text` (None: none shares one)."""
    words = _stems(text)
    best = max(things, key=lambda t: len(_stems(t) & words), default=None)
    return best if best is not None and _stems(best) & words else None


def _using(activity: str, things: Sequence[str], state: str = "") -> dict[str, str]:
    """The object offered that `activity` names, in `state`'s words (else the activity's)
    as its state."""
    thing = _naming(activity, things)
    if thing is None:
        return {"object": NONE, "state": ""}
    words = ""
    for word in (state or activity).split():  # whole words, within the state's limit
        if len(f"{words} {word}".strip()) > STATE_CHARS:
            break
        words = f"{words} {word}".strip()
    return {"object": thing, "state": words}


# --- interviews, reflection, judging ---------------------------------------------------------


def _insights(request: Request) -> dict[str, Any]:
    prompt = _prompt(request)
    question = prompt.split("Question: ", 1)[-1].split("\n", 1)[0]
    statements = _STATEMENT.findall(prompt.split("Statements:\n", 1)[-1])
    asked = _stems(question)
    ranked = sorted(statements, key=lambda s: -len(asked & _stems(s[1])))
    chosen = ranked[:2]
    if not chosen:
        return {"insights": []}
    text = "Lately: " + "; ".join(said for _, said in chosen)
    return {"insights": [{"text": text[:190], "evidence": sorted(int(n) for n, _ in chosen)}]}


def _cited(memories: str) -> list[tuple[str, str]]:
    """(id, line) of each line of each memory shown with its id, headings aside."""
    found = []
    for record in _records(memories):
        cited = re.match(r"\[([^\]]+)\] (.*)", record[0])
        if cited is None:
            continue
        lines = [_LABEL.sub("", cited.group(2)), *record[1:]]
        found += [(cited.group(1), _told(line, "")) for line in lines if not line.endswith(":")]
    return found


def _relevant(question: str, cited: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """The lines sharing a word with the question, most shared first (ties: as shown)."""
    asked = _stems(question)
    scored = [(len(asked & _stems(text)), i, (mid, text)) for i, (mid, text) in enumerate(cited)]
    return [c for n, _, c in sorted(scored, key=lambda s: (-s[0], s[1])) if n]


def _interview(request: Request) -> dict[str, Any]:
    prompt = _prompt(request)
    memories, _, question = prompt.partition("Interviewer:")
    question = question.split("\n", 1)[0]
    closed = request.output is not None and "choice" in request.output.model_fields
    sources = offered(request, "from_whom")
    relevant = _relevant(question, _cited(memories))
    if closed and sources:
        return _heard(relevant, sources, offered(request, "choice"))
    known = _KNOW.search(question) if closed else None
    if known is not None:
        return _knows(known.group(1).strip(), memories)
    if not relevant:
        background = re.search(r"Background: ([^.\n]+)", memories)
        said = background.group(1) if background else "I keep to myself"
        return {"answer": f"I do not recall anything about that. {said}.", "memory_ids": []}
    line = relevant[0][1][:ANSWER_CHARS]
    return {"answer": f"I remember this: {line}", "memory_ids": [relevant[0][0]]}


def _knows(name: str, memories: str) -> dict[str, Any]:
    slug = name.lower().replace(" ", "_")
    lowered = memories.lower()
    if name.lower() in lowered or f"knows {slug}:" in lowered:
        return {"choice": "yes", "answer": f"Yes, I know {name}.", "memory_ids": []}
    return {"choice": "no", "answer": f"No, I do not know {name}.", "memory_ids": []}


def _heard(
    relevant: Sequence[tuple[str, str]], sources: list[str], choices: list[str]
) -> dict[str, Any]:
    """A closed question: yes when a memory shares words with it, from the first of
    `sources` who speaks in those memories (else the last source: nobody)."""
    if not relevant:
        return {"choice": choices[-1], "from_whom": sources[-1], "answer": "No.", "memory_ids": []}
    texts = [text for _, text in relevant]
    teller = next(
        (s for s in sources[:-1] if any(t.startswith(f"{s} told me") for t in texts)), sources[-1]
    )
    ids = list(dict.fromkeys(i for i, _ in relevant))
    return {
        "choice": choices[0],
        "from_whom": teller,
        "answer": f"Yes: {texts[0]}"[:150],
        "memory_ids": ids[:MEMORY_IDS],
    }


def _rank(request: Request) -> dict[str, Any]:
    """Best first: the answer most of whose words the character's memories hold."""
    prompt = _prompt(request)
    remembered = _stems(_between(prompt, "remembers about this:\n", "\n\nInterviewer"))
    answers = re.findall(r"^([A-Z]): (.*)$", prompt, re.MULTILINE)

    def support(text: str) -> float:
        words = _stems(text)
        return len(words & remembered) / len(words) if words else 0.0

    ordered = sorted(answers, key=lambda a: (-support(a[1]), a[0]))
    return {"ranking": ">".join(label for label, _ in ordered)}


def _check(request: Request) -> dict[str, Any]:
    prompt = _prompt(request)
    sources, _, answer = prompt.partition("\nAnswer: ")
    unsupported = [w for w in _PROPER.findall(answer) if w.lower() not in sources.lower()]
    if unsupported:
        return {"verdict": "embellished", "claim": unsupported[0]}
    return {"verdict": "faithful", "claim": ""}
