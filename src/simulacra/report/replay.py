"""Build the replay from a run's events (docs/events.md), tolerating missing fields."""

from __future__ import annotations

from bisect import bisect_left
from collections import ChainMap, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from simulacra.llm.prompt_log import PromptStore, prompt_of
from simulacra.report.cost import spend_text
from simulacra.report.evidence import evidence_tree
from simulacra.report.per_world import world_report
from simulacra.report.prompts import prompt_text
from simulacra.report.replay_layout import on_screen
from simulacra.report.replay_model import (
    AgentTrack,
    Conversation,
    DecisionStep,
    Frame,
    Insight,
    Memory,
    Message,
    Note,
    Plan,
    PlanItem,
    Position,
    Reflection,
    Replay,
    Retrieval,
    RunSummary,
    Score,
)
from simulacra.runlog import Event, model_label

# Every other key of a world event is a world-specific extra; the grid's `positions` repeat the
# agents' x and y, so the replay leaves them out.
_NOT_EXTRAS = {"step", "agents", "positions"}


def build_replay(
    events: Iterable[Event],
    run_info: Mapping[str, Any] | None = None,
    price: Mapping[str, Any] | None = None,
    prompts: PromptStore | None = None,
) -> Replay:
    """The replay of a run's events; `price` (its config's model.price) adds dollars to the
    spend line; `prompts` (the run's kept prompts) shows each decision's prompt."""
    events = list(events)
    info = dict(run_info or {})
    start = next((e.data for e in events if e.kind == "run" and "world" in e.data), {})
    statuses = [
        e.data["status"] for e in events if e.kind in ("run.end", "run") and "status" in e.data
    ]
    world_seqs = [e.seq for e in events if e.kind == "world"]
    frames = tuple(_frame(e, i) for i, e in enumerate(x for x in events if x.kind == "world"))

    def frame_of(event: Event) -> int:
        # An event belongs to the tick whose world state is written after it.
        return min(bisect_left(world_seqs, event.seq), max(len(frames) - 1, 0))

    tracks = _agent_tracks(start.get("agents"), frames)
    parts: dict[str, dict[str, list[Any]]] = defaultdict(lambda: defaultdict(list))
    messages: list[Message] = []
    conversations: list[Conversation] = []
    notes: list[Note] = []
    cites: dict[str, dict[str, tuple[str, ...]]] = defaultdict(dict)
    reflection_events: list[tuple[str, Event]] = []
    kind = start["world"].get("kind") if isinstance(start.get("world"), Mapping) else None
    stepwise = world_report(str(info.get("world") or kind or "")).decisions
    actions: dict[tuple[str, int], Mapping[str, Any]] = {}
    if stepwise:
        actions = {
            (e.agent, int(e.data["step"])): e.data
            for e in events
            if e.kind == "action" and e.agent is not None and isinstance(e.data.get("step"), int)
        }
    invalid: dict[tuple[str, str], tuple[int, str]] = {}
    asked: dict[str, object] = {}  # each agent's latest call's prompt: what its decision read
    for event in events:
        frame, agent = frame_of(event), event.agent
        data = event.data
        if event.kind == "llm.call" and agent is not None:
            asked[agent] = data.get("prompt")
        if agent is not None and agent not in tracks and event.kind != "llm.call":
            tracks[agent] = _track(agent, {})
        if event.kind == "memory.add" and agent is not None:
            memory = _memory(data, frame)
            cites[agent][memory.id] = memory.evidence_ids
            parts[agent]["memories"].append(memory)
        elif event.kind == "memory.invalidate" and agent is not None:
            root, reason = _text(data.get("id")), _text(data.get("reason"))
            invalid.setdefault((agent, root), (frame, reason))
            for above in _ids(data.get("invalidated")):
                invalid.setdefault((agent, above), (frame, f"rests on {root}, which was {reason}"))
        elif event.kind == "retrieval" and agent is not None:
            parts[agent]["retrievals"].append(_retrieval(data, frame, event.t))
        elif event.kind == "reflection" and agent is not None:
            reflection_events.append((agent, event))
        elif stepwise and event.kind == "decision" and agent is not None:
            step = data.get("step")
            acted = actions.get((agent, step), {}) if isinstance(step, int) else {}
            shown = _prompt(prompts, asked.pop(agent, None)) if data.get("raw") else ""
            parts[agent]["decisions"].append(_decision(data, acted, frame, event.t, shown))
        elif event.kind == "plan" and agent is not None:
            parts[agent]["plans"].append(_plan(data, frame, event.t))
        elif event.kind == "message" and agent is not None:
            messages.append(_message(data, frame, event.t, agent))
        elif event.kind == "conversation":
            conversations.append(_conversation(data, frame, event.t))
        elif event.kind in ("intervention", "interview", "place.learned") or (
            event.kind == "action" and data.get("ok") is False
        ):
            note = _note(event, frame)
            (parts[agent]["notes"] if agent is not None else notes).append(note)
            if event.kind == "intervention" and agent is not None:
                notes.append(note)

    everyone: dict[str, tuple[str, ...]] = {}
    for agent_cites in cites.values():
        everyone.update(agent_cites)
    for agent, event in reflection_events:
        lookup = ChainMap(cites[agent], everyone)  # an agent's own records first
        frame = frame_of(event)
        parts[agent]["reflections"].append(_reflection(event.data, frame, event.t, lookup))

    agents = {
        agent_id: replace(
            track,
            memories=tuple(
                _invalidated(m, invalid.get((agent_id, m.id))) for m in parts[agent_id]["memories"]
            ),
            retrievals=tuple(parts[agent_id]["retrievals"]),
            reflections=tuple(parts[agent_id]["reflections"]),
            plans=tuple(parts[agent_id]["plans"]),
            notes=tuple(parts[agent_id]["notes"]),
            decisions=tuple(parts[agent_id]["decisions"]),
        )
        for agent_id, track in tracks.items()
    }
    screen = on_screen(start.get("world"), frames)
    world = start.get("world")
    backdrop = world.get("backdrop") if isinstance(world, Mapping) else None
    return Replay(
        run=replace(
            _summary(info, start, statuses, len(events)), spend=spend_text(events, start, price)
        ),
        places=screen.places,
        layers=screen.layers,
        bounds=screen.bounds,
        frames=screen.frames,
        agents=agents,
        messages=tuple(messages),
        conversations=tuple(conversations),
        notes=tuple(notes),
        backdrop=dict(backdrop) if isinstance(backdrop, Mapping) else {},
    )


def _summary(
    info: dict[str, Any], start: Mapping[str, Any], statuses: list[Any], count: int
) -> RunSummary:
    seed = info.get("seed", start.get("seed"))
    world = start.get("world")
    kind = info.get("world") or (world.get("kind") if isinstance(world, Mapping) else None)
    return RunSummary(
        scenario=str(info.get("scenario") or start.get("scenario") or "unnamed"),
        world=_text(kind),
        model=model_label(info) if info.get("model") else str(start.get("model") or "unknown"),
        seed=int(seed) if isinstance(seed, int | float | str) and str(seed).isdigit() else None,
        status=str(info.get("status") or (statuses[-1] if statuses else "unknown")),
        started=_num(info.get("started")),
        ended=_num(info.get("ended")),
        events=count,
        tick_minutes=_tick_minutes(start.get("clock")),
    )


def _tick_minutes(clock: Any) -> float | None:
    tick = clock.get("tick_minutes") if isinstance(clock, Mapping) else None
    return float(tick) if isinstance(tick, int | float) and tick > 0 else None


def _frame(event: Event, index: int) -> Frame:
    data = event.data
    positions = {}
    raw_agents = data.get("agents")
    for agent_id, raw in (raw_agents if isinstance(raw_agents, Mapping) else {}).items():
        raw = raw if isinstance(raw, Mapping) else {}
        positions[str(agent_id)] = Position(
            place=_text(raw.get("place")),
            area=_text(raw.get("area")),
            x=_num(raw.get("x")),
            y=_num(raw.get("y")),
            action=_text(raw.get("action")),
        )
    step = data.get("step")
    extras = {k: v for k, v in data.items() if k not in _NOT_EXTRAS}
    number = step if isinstance(step, int) and not isinstance(step, bool) else index
    return Frame(step=number, t=event.t, agents=positions, extras=extras)


def _agent_tracks(personas: Any, frames: tuple[Frame, ...]) -> dict[str, AgentTrack]:
    if isinstance(personas, list):  # tolerate a list of personas with ids
        personas = {str(p.get("id")): p for p in personas if isinstance(p, Mapping)}
    tracks = {
        str(agent_id): _track(str(agent_id), persona if isinstance(persona, Mapping) else {})
        for agent_id, persona in (personas if isinstance(personas, Mapping) else {}).items()
    }
    for frame in frames:
        for agent_id in frame.agents:
            tracks.setdefault(agent_id, _track(agent_id, {}))
    return tracks


def _track(agent_id: str, persona: Mapping[str, Any]) -> AgentTrack:
    name = _text(persona.get("name")) or agent_id
    return AgentTrack(id=agent_id, name=name, initials=initials(name), persona=dict(persona))


def initials(name: str) -> str:
    """Two letters of a name (Ada Lin: AL); a numbered id keeps its number (student_007: S7)."""
    words = [w for w in name.replace("_", " ").replace("-", " ").split() if w]
    number = str(int(words.pop())) if words and words[-1].isdigit() else ""
    if len(words) >= 2:
        return (words[0][0] + words[1][0]).upper() + number
    if number:
        return (words[0][0] if words else "").upper() + number
    return (words[0][:2] if words else "?").upper()


def _prompt(prompts: PromptStore | None, ref: object) -> str:
    """The kept prompt under `ref` for reading; "" where none was kept."""
    if not prompts or not isinstance(ref, str):
        return ""
    try:
        return prompt_text(prompt_of(prompts, ref))
    except KeyError:
        return ""


def _decision(
    data: Mapping[str, Any], acted: Mapping[str, Any], frame: int, t: str | None, prompt: str = ""
) -> DecisionStep:
    step = data.get("step")
    inference = data.get("latency_s")
    before, after = acted.get("pose_before"), acted.get("pose_after")
    parsed = (
        acted.get("command") if isinstance(acted.get("command"), Mapping) else data.get("parsed")
    )
    return DecisionStep(
        frame=frame,
        t=t,
        step=step if isinstance(step, int) else 0,
        mind=_text(data.get("mind")),
        raw=_text(data.get("raw")),
        caption=_text(data.get("caption")),
        command=_text(acted.get("description") or data.get("choice")),
        parsed=dict(parsed) if isinstance(parsed, Mapping) else None,
        notes=tuple(_text(n) for n in _list(acted.get("notes"))),
        outcome=_text(acted.get("outcome")),
        pose_before=dict(before) if isinstance(before, Mapping) else None,
        pose_after=dict(after) if isinstance(after, Mapping) else None,
        clamps=tuple(_text(c) for c in _list(acted.get("clamps"))),
        boundary=_text(acted.get("boundary")),
        latency_s=float(inference) if isinstance(inference, int | float) else None,
        nudged=bool(data.get("nudged")),
        image=_text(data.get("image")),
        prompt=prompt,
    )


def _memory(data: Mapping[str, Any], frame: int) -> Memory:
    return Memory(
        id=_text(data.get("id")),
        kind=_text(data.get("kind")),
        text=_text(data.get("text")),
        importance=_num(data.get("importance")),
        importance_source=_text(data.get("importance_source")),
        evidence_ids=_ids(data.get("evidence_ids")),
        created_at=_opt_text(data.get("created_at")),
        frame=frame,
    )


def _retrieval(data: Mapping[str, Any], frame: int, t: str | None) -> Retrieval:
    results = tuple(
        Score(
            id=_text(r.get("id")),
            recency=_score(r.get("recency")),
            importance=_score(r.get("importance")),
            relevance=_score(r.get("relevance")),
            total=_score(r.get("total")),
        )
        for r in _dicts(data.get("results"))
    )
    k = data.get("k")
    return Retrieval(
        frame, t, _text(data.get("query")), k if isinstance(k, int) else len(results), results
    )


def _invalidated(memory: Memory, found: tuple[int, str] | None) -> Memory:
    if found is None:
        return memory
    return replace(memory, invalid_frame=found[0], invalid_reason=found[1])


def _score(value: Any) -> float:
    # Four decimals are more than the viewer shows, and keep a day's replay small.
    return round(_num(value) or 0.0, 4)


def _reflection(
    data: Mapping[str, Any], frame: int, t: str | None, cites: Mapping[str, tuple[str, ...]]
) -> Reflection:
    insights = []
    for raw in _dicts(data.get("insights")):
        evidence = _ids(raw.get("evidence_ids"))
        tree = evidence_tree(evidence, cites)
        insights.append(Insight(_text(raw.get("id")), _text(raw.get("text")), evidence, tree))
    return Reflection(
        frame=frame,
        t=t,
        questions=tuple(_text(q) for q in _list(data.get("questions"))),
        insights=tuple(insights),
        rejected=tuple(_rejected(r) for r in _list(data.get("rejected"))),
    )


def _rejected(value: Any) -> str:
    """A rejected insight in words: its text and why (older logs list the ids it cited)."""
    if not isinstance(value, Mapping):
        return _text(value)
    reason = _text(value.get("reason"))
    return _text(value.get("text")) + (f" ({reason})" if reason else "")


def _plan(data: Mapping[str, Any], frame: int, t: str | None) -> Plan:
    items = tuple(
        PlanItem(
            start=_text(r.get("start")),
            duration_min=_num(r.get("duration_min")) or 0.0,
            place=_text(r.get("place")),
            description=_text(r.get("description")),
        )
        for r in _dicts(data.get("items"))
    )
    return Plan(frame=frame, t=t, level=_text(data.get("level")), items=items)


def _message(data: Mapping[str, Any], frame: int, t: str | None, agent: str) -> Message:
    turn = data.get("turn")
    return Message(
        frame,
        t,
        agent,
        _ids(data.get("to")),
        _text(data.get("text")),
        _text(data.get("conversation")),
        turn if isinstance(turn, int) else 0,
    )


def _conversation(data: Mapping[str, Any], frame: int, t: str | None) -> Conversation:
    turns = data.get("turns")
    count = turns if isinstance(turns, int) else len(turns) if isinstance(turns, list) else 0
    return Conversation(
        frame,
        t,
        _text(data.get("id")),
        _ids(data.get("participants")),
        _text(data.get("topic")),
        count,
        _text(data.get("ended_by")),
    )


def _note(event: Event, frame: int) -> Note:
    data = event.data
    if event.kind == "interview":
        return Note(
            frame,
            event.t,
            event.agent,
            "interview",
            _text(data.get("question")),
            _text(data.get("answer")),
        )
    if event.kind == "place.learned":  # the town's viewer adds it to the agent's tree
        return Note(frame, event.t, event.agent, "told of a place", _text(data.get("place")))
    if event.kind == "action":
        return Note(
            frame,
            event.t,
            event.agent,
            "rejected action",
            _text(data.get("description")),
            _text(data.get("reason")),
        )
    return Note(
        frame,
        event.t,
        event.agent,
        f"intervention: {_text(data.get('type'))}",
        _text(data.get("text")),
    )


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _opt_text(value: Any) -> str | None:
    return None if value is None else str(value)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _dicts(value: Any) -> list[Mapping[str, Any]]:
    return [v for v in _list(value) if isinstance(v, Mapping)]


def _ids(value: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in _list(value))
