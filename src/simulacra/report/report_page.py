"""report.html: one self-contained page of a run's summary, metrics and plots."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from html import escape
from importlib.resources import files
from itertools import combinations
from typing import Any

from simulacra.report.budget import BudgetLine, budget_lines, by_agent, by_purpose, total
from simulacra.report.cost import cost_section
from simulacra.report.diagnosis import diagnosis_section, memory_section, trace_sections
from simulacra.report.evaluation import evaluation_section
from simulacra.report.per_world import kind_of_run, report_of_run
from simulacra.report.plots import budget_svg
from simulacra.report.replay_model import Replay
from simulacra.report.sections import VIEWER, links, no_link, section, viewer_link
from simulacra.report.tables import rows_table, scalar_html, value_html
from simulacra.report.timeline import day_timeline_svg
from simulacra.runlog import Event

_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'"


def render_report(
    replay: Replay,
    events: Sequence[Event],
    metrics: Mapping[str, Any] | None,
    evaluation: Mapping[str, Any] | None = None,
    diagnosis: Mapping[str, Any] | None = None,
    traces: Mapping[str, Any] | None = None,
    cost: Mapping[str, Any] | None = None,
    family: str = "",
) -> str:
    css = files("simulacra.report").joinpath("report.css").read_text(encoding="utf-8")
    title = f"simulacra report: {replay.run.scenario}"
    world = report_of_run(replay, metrics)
    own = world.sections(replay, metrics or {}) if world.sections is not None else []
    shown = world.shown
    sections = [
        _summary(replay, metrics),
        _headline(metrics, world.units),
        family,  # a fork's tree and differences from its parent (report/family.py)
        *own,
        _agents(replay, events),
        section("Each agent's day", day_timeline_svg(replay), "timeline") if world.timeline else "",
        _conversations(replay, world.conversations),
        _budget(replay, events, metrics),
        cost_section(replay, events, cost),
        memory_section(metrics),
        diagnosis_section(diagnosis, replay) if diagnosis else "",
        trace_sections(traces, replay) if traces else "",
        evaluation_section(evaluation) if evaluation else "",
        _all_metrics(replay, metrics, ("summary", "memory", *shown, *_budget_shown(events))),
    ]
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">\n'
        f'<title>{escape(title)}</title>\n<link rel="icon" href="data:,">\n'
        f"<style>{css}</style>\n</head>\n<body>\n<header><h1>{escape(title)}</h1>"
        f'<a class="open-viewer" href="{VIEWER}">Open the replay viewer</a></header>\n'
        f"<main>{''.join(sections)}</main>\n</body>\n</html>\n"
    )


def _summary(replay: Replay, metrics: Mapping[str, Any] | None) -> str:
    run = replay.run
    model = escape(run.model)
    if run.scripted:
        model += (
            ' <span class="badge">scripted: canned answers, not a language model; the figures'
            " test the pipeline, not what a model would do</span>"
        )
    first, last = (replay.frames[0].t, replay.frames[-1].t) if replay.frames else (None, None)
    rows = [
        ("scenario", escape(run.scenario)),
        ("world", escape(kind_of_run(replay, metrics) or "unknown")),
        ("model", model),
        ("seed", escape(str(run.seed)) if run.seed is not None else "—"),
        ("status", f'<span class="status-{escape(run.status)}">{escape(run.status)}</span>'),
        ("wall-clock duration", _duration(run.duration_s)),
        ("simulated time", f"{escape(first or '?')} → {escape(last or '?')}"),
        ("ticks", str(replay.frames[-1].step if replay.frames else 0)),
        ("agents", str(len(replay.agents))),
        ("events", f"{run.events:,}"),
        ("metrics.json", "present" if metrics is not None else "missing (not written)"),
    ]
    cells = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
    return section("Run", f'<table class="pairs summary">{cells}</table>', "summary")


# The figures every run adds to its world's (experiments/measures.py).
_COMMON_UNITS = {
    "calls_per_agent_tick": "model calls per agent per tick",
    "fallback_rate": "share of model calls (0 to 1)",
    "aware_final": "agents aware at the last interview",
    "off_final": "agents who know the fact is called off",
}


def _headline(metrics: Mapping[str, Any] | None, units: Mapping[str, str]) -> str:
    """metrics.json's `summary`: the run's headline figures, one number each, with its unit."""
    figures = metrics.get("summary") if metrics else None
    if not isinstance(figures, Mapping) or not figures:
        return ""
    known = {**_COMMON_UNITS, **units}
    cells = "".join(
        f"<tr><th>{escape(str(name).replace('_', ' '))}</th><td>{scalar_html(value, no_link)}</td>"
        f'<td class="unit">{escape(known.get(str(name), ""))}</td></tr>'
        for name, value in figures.items()
    )
    return section("Headline figures", f'<table class="pairs">{cells}</table>', "headline")


def _agents(replay: Replay, events: Sequence[Event]) -> str:
    calls: dict[str, int] = defaultdict(int)
    for event in events:
        if event.kind == "llm.call" and event.agent is not None:
            calls[event.agent] += 1
    said: dict[str, int] = defaultdict(int)
    for message in replay.messages:
        said[message.agent] += 1
    rows = []
    for track in replay.agents.values():
        last = replay.frames[-1].agents.get(track.id) if replay.frames else None
        name = f'<a href="{escape(viewer_link(replay, agent=track.id))}">{escape(track.name)}</a>'
        rows.append(
            f"<tr><td>{name}</td><td><code>{escape(track.id)}</code></td>"
            f"<td>{escape((last.place or 'between places') if last else '—')}</td>"
            f"<td>{len(track.memories)}</td>"
            f"<td>{len(track.reflections)}</td><td>{said[track.id]}</td>"
            f"<td>{calls[track.id]}</td></tr>"
        )
    head = "<th>agent</th><th>id</th><th>place at the end</th><th>memories</th>"
    head += "<th>reflections</th><th>messages said</th><th>model calls</th>"
    table = f'<table class="rows"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody>'
    return section("Agents", table + "</table>", "agents")


def _conversations(replay: Replay, expected: bool) -> str:
    """Conversations per pair; where agents send messages outside conversations (the grid's
    broadcasts), messages per sender and recipient; where neither is the world's way and none
    took place, nothing."""
    if not replay.conversations and any(not m.conversation for m in replay.messages):
        return _messages(replay)
    if not replay.conversations and not expected:
        return ""
    pairs: dict[tuple[str, str], list[int]] = {}
    for conversation in replay.conversations:
        for a, b in combinations(sorted(set(conversation.participants)), 2):
            tally = pairs.setdefault((a, b), [0, 0, conversation.frame])
            tally[0] += 1
            tally[1] += conversation.turns
    if not pairs:
        return section("Conversations per pair", '<p class="empty">No conversations.</p>', "pairs")
    rows = [
        (f"{_who(replay, a, frame)} &amp; {_who(replay, b, frame)}", count, turns)
        for (a, b), (count, turns, frame) in sorted(pairs.items(), key=lambda kv: -kv[1][0])
    ]
    table = _pairs_table(("pair", "conversations", "turns"), rows)
    return section("Conversations per pair", table, "pairs")


def _messages(replay: Replay) -> str:
    sent: dict[tuple[str, str], list[int]] = {}
    for message in replay.messages:
        for to in message.to:
            tally = sent.setdefault((message.agent, to), [0, message.frame])
            tally[0] += 1
    rows = [
        (_who(replay, a, frame), _who(replay, b, frame), count)
        for (a, b), (count, frame) in sorted(sent.items(), key=lambda kv: (-kv[1][0], kv[0]))
    ]
    table = _pairs_table(("from", "to", "messages delivered"), rows)
    note = f"<p>{len(replay.messages)} messages delivered, counted by sender and recipient.</p>"
    return section("Messages per sender and recipient", note + table, "pairs")


def _who(replay: Replay, agent: str, frame: int) -> str:
    """An agent's name, linked into the viewer at the frame."""
    name = replay.agents[agent].name if agent in replay.agents else agent
    link = viewer_link(replay, replay.step_of_frame(frame), agent)
    return f'<a href="{escape(link)}">{escape(name)}</a>'


def _pairs_table(head: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """Cells are HTML already (names escaped by `_who`, counts)."""
    heads = "".join(f"<th>{escape(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="rows"><thead><tr>{heads}</tr></thead><tbody>{body}</tbody></table>'


def _budget(replay: Replay, events: Sequence[Event], metrics: Mapping[str, Any] | None) -> str:
    purposes = budget_lines(events, by_purpose)
    if not purposes:
        value = metrics.get("budget") if metrics else None
        body = (
            value_html(value, links(replay))
            if value is not None
            else '<p class="empty">No model calls were logged.</p>'
        )
        return section("Model budget", body, "budget")
    body = f'<div class="plot">{budget_svg(purposes)}</div>'
    body += "<h3>Per purpose</h3>" + _budget_table((*purposes, total(purposes)), "purpose", replay)
    body += "<h3>Per agent</h3>" + _budget_table(budget_lines(events, by_agent), "agent", replay)
    return section("Model budget", body, "budget")


def _budget_shown(events: Sequence[Event]) -> tuple[str, ...]:
    """metrics.json's `budget` repeats the model budget drawn from the llm.call events."""
    return ("budget",) if any(e.kind == "llm.call" for e in events) else ()


_BUDGET_FIELDS = (
    "calls",
    "prompt_tokens",
    "completion_tokens",
    "cached_prompt_tokens",
    "latency_s",
    "cached",
    "fallbacks",
    "errors",
)


def _budget_table(lines: Sequence[BudgetLine], key: str, replay: Replay) -> str:
    link = links(replay) if key == "agent" else no_link
    rows = [
        {key: line.key, **{f.replace("_", " "): getattr(line, f) for f in _BUDGET_FIELDS}}
        for line in lines
    ]
    return rows_table(rows, link)


def _all_metrics(
    replay: Replay, metrics: Mapping[str, Any] | None, shown_above: Sequence[str]
) -> str:
    if metrics is None:
        body = '<p class="empty">metrics.json was not written for this run.</p>'
    else:
        link = links(replay)
        shown = [k for k in shown_above if k in metrics]
        body = "".join(
            f"<h3>{escape(str(k))}</h3>{value_html(v, link)}"
            for k, v in metrics.items()
            if k not in shown_above
        )
        if shown:
            body += f'<p class="empty">{", ".join(shown)}: shown in their own sections above.</p>'
    return section("All metrics (metrics.json)", body, "metrics")


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "unknown (the run has not ended)"
    minutes, secs = divmod(seconds, 60)
    return f"{int(minutes)} min {secs:.1f} s" if minutes else f"{secs:.1f} s"
