"""report.html: one self-contained page of a run's summary, metrics and plots."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import datetime
from html import escape
from importlib.resources import files
from itertools import combinations
from typing import Any
from urllib.parse import quote

from simulacra.report.budget import BudgetLine, budget_lines, by_agent, by_purpose, total
from simulacra.report.figures import FigureImage
from simulacra.report.plots import DiffusionPoint, budget_svg, diffusion_svg
from simulacra.report.replay_model import Replay
from simulacra.report.tables import AgentLink, rows_table, scalar_html, value_html
from simulacra.report.timeline import day_timeline_svg
from simulacra.runlog import Event

VIEWER = "viewer.html"
# Drawn in their own sections, not repeated.
_SHOWN_ABOVE = ("diffusion", "attendance", "figures", "tables")
_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'"


def render_report(
    replay: Replay,
    events: Sequence[Event],
    metrics: Mapping[str, Any] | None,
    figures: Sequence[FigureImage] = (),
) -> str:
    css = files("simulacra.report").joinpath("report.css").read_text(encoding="utf-8")
    title = f"simulacra report: {replay.run.scenario}"
    sections = [
        _summary(replay, metrics),
        _tables(replay, metrics),
        _figures(figures),
        _agents(replay, events),
        _diffusion(replay, metrics),
        _section("Each agent's day", day_timeline_svg(replay, VIEWER), "timeline"),
        _attendance(replay, metrics),
        _conversations(replay),
        _budget(replay, events, metrics),
        _all_metrics(replay, metrics),
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


def viewer_link(replay: Replay, tick: int | None = None, agent: str | None = None) -> str:
    parts = [f"t={tick if tick is not None else replay.tick_of_frame(0)}"]
    if agent is not None:
        parts.append(f"agent={quote(agent, safe='')}")
    return f"{VIEWER}#{'&'.join(parts)}"


def tick_at(replay: Replay, t: Any) -> int:
    """The tick showing simulated time `t` (an ISO time, or already a tick number)."""
    if isinstance(t, int) and not isinstance(t, bool):
        return t
    when = _parse(t)
    frame = 0
    for i, f in enumerate(replay.frames):
        ft = _parse(f.t)
        if when is not None and ft is not None and ft <= when:
            frame = i
    return replay.tick_of_frame(frame)


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
        ("model", model),
        ("seed", scalar_html(run.seed, _no_link)),
        ("status", f'<span class="status-{escape(run.status)}">{escape(run.status)}</span>'),
        ("wall-clock duration", _duration(run.duration_s)),
        ("simulated time", f"{escape(first or '?')} → {escape(last or '?')}"),
        ("ticks", str(len(replay.frames))),
        ("agents", str(len(replay.agents))),
        ("events", f"{run.events:,}"),
        ("metrics.json", "present" if metrics is not None else "missing (not written)"),
    ]
    cells = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
    return _section("Run", f'<table class="pairs summary">{cells}</table>', "summary")


def _tables(replay: Replay, metrics: Mapping[str, Any] | None) -> str:
    raw = metrics.get("tables") if metrics else None
    tables = [t for t in raw if isinstance(t, Mapping)] if isinstance(raw, list) else []
    body = ""
    for table in tables:
        rows = [r for r in table.get("rows") or () if isinstance(r, Mapping)]
        body += f"<h3>{escape(str(table.get('title') or 'table'))}</h3>"
        body += rows_table(rows, _link(replay)) if rows else '<p class="empty">No rows.</p>'
        if table.get("note"):
            body += f"<p>{escape(str(table['note']))}</p>"
    return _section("Results", body, "tables") if body else ""


def _figures(figures: Sequence[FigureImage]) -> str:
    body = ""
    for figure in figures:
        if figure.uri:
            image = f'<img src="{figure.uri}" alt="{escape(figure.title)}" style="max-width:100%">'
        else:
            image = f'<p class="empty">Not shown: {escape(figure.problem)}</p>'
        caption = f"<figcaption>{escape(figure.caption)}</figcaption>" if figure.caption else ""
        body += f'<figure class="plot"><h3>{escape(figure.title)}</h3>{image}{caption}</figure>'
    return _section("Figures", body, "figures") if body else ""


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
    return _section("Agents", table + "</table>", "agents")


def _diffusion(replay: Replay, metrics: Mapping[str, Any] | None) -> str:
    raw = metrics.get("diffusion") if metrics else None
    rows = [r for r in raw if isinstance(r, Mapping)] if isinstance(raw, list) else []
    if not rows:
        return _section("Diffusion", '<p class="empty">No diffusion measured.</p>', "diffusion")
    points = []
    table = []
    for row in rows:
        tick = tick_at(replay, row.get("t"))
        link = viewer_link(replay, tick)
        points.append(
            DiffusionPoint(
                _parse(row.get("t")), _num(row.get("aware")), _num(row.get("agents")), link
            )
        )
        table.append({**row, "t": row.get("t"), "viewer": f"tick {tick}"})
    body = f'<div class="plot">{diffusion_svg(points)}</div>'
    body += rows_table(table, _link(replay, {f"tick {tick_at(replay, r.get('t'))}" for r in rows}))
    note = (
        "<p>How many agents know, by interviewing each at fixed times. Click a point to replay.</p>"
    )
    return _section("Diffusion over time", note + body, "diffusion")


def _attendance(replay: Replay, metrics: Mapping[str, Any] | None) -> str:
    value = metrics.get("attendance") if metrics else None
    if value is None:
        return _section(
            "Attendance", '<p class="empty">Not measured in this run.</p>', "attendance"
        )
    return _section("Attendance", value_html(value, _link(replay)), "attendance")


def _conversations(replay: Replay) -> str:
    pairs: dict[tuple[str, str], list[int]] = {}
    for conversation in replay.conversations:
        for a, b in combinations(sorted(set(conversation.participants)), 2):
            tally = pairs.setdefault((a, b), [0, 0, conversation.frame])
            tally[0] += 1
            tally[1] += conversation.turns
    if not pairs:
        return _section("Conversations per pair", '<p class="empty">No conversations.</p>', "pairs")
    rows = []
    for (a, b), (count, turns, frame) in sorted(pairs.items(), key=lambda kv: -kv[1][0]):
        names = " & ".join(
            f'<a href="{escape(viewer_link(replay, replay.tick_of_frame(frame), x))}">'
            f"{escape(replay.agents[x].name if x in replay.agents else x)}</a>"
            for x in (a, b)
        )
        rows.append(f"<tr><td>{names}</td><td>{count}</td><td>{turns}</td></tr>")
    head = "<th>pair</th><th>conversations</th><th>turns</th>"
    table = f'<table class="rows"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody>'
    return _section("Conversations per pair", table + "</table>", "pairs")


def _budget(replay: Replay, events: Sequence[Event], metrics: Mapping[str, Any] | None) -> str:
    purposes = budget_lines(events, by_purpose)
    if not purposes:
        value = metrics.get("budget") if metrics else None
        body = (
            value_html(value, _link(replay))
            if value is not None
            else '<p class="empty">No model calls were logged.</p>'
        )
        return _section("Model budget", body, "budget")
    body = f'<div class="plot">{budget_svg(purposes)}</div>'
    body += "<h3>Per purpose</h3>" + _budget_table((*purposes, total(purposes)), "purpose", replay)
    body += "<h3>Per agent</h3>" + _budget_table(budget_lines(events, by_agent), "agent", replay)
    return _section("Model budget", body, "budget")


_BUDGET_FIELDS = (
    "calls",
    "prompt_tokens",
    "completion_tokens",
    "latency_s",
    "cached",
    "fallbacks",
    "errors",
)


def _budget_table(lines: Sequence[BudgetLine], key: str, replay: Replay) -> str:
    link = _link(replay) if key == "agent" else _no_link
    rows = [
        {key: line.key, **{f.replace("_", " "): getattr(line, f) for f in _BUDGET_FIELDS}}
        for line in lines
    ]
    return rows_table(rows, link)


def _all_metrics(replay: Replay, metrics: Mapping[str, Any] | None) -> str:
    if metrics is None:
        body = '<p class="empty">metrics.json was not written for this run.</p>'
    else:
        link = _link(replay)
        shown = [k for k in _SHOWN_ABOVE if k in metrics]
        body = "".join(
            f"<h3>{escape(str(k))}</h3>{value_html(v, link)}"
            for k, v in metrics.items()
            if k not in _SHOWN_ABOVE
        )
        if shown:
            body += f'<p class="empty">{", ".join(shown)}: shown in their own sections above.</p>'

    return _section("All metrics (metrics.json)", body, "metrics")


def _section(title: str, body: str, anchor: str) -> str:
    return f'<section id="{anchor}"><h2>{escape(title)}</h2>{body}</section>\n'


def _link(replay: Replay, ticks: set[str] | None = None) -> AgentLink:
    """Agent ids link to the viewer on that agent; "tick N" cells link to that tick."""
    ticks = ticks or set()

    def link(text: str) -> str | None:
        if text in replay.agents:
            return viewer_link(replay, agent=text)
        if text in ticks:
            return viewer_link(replay, int(text.split()[1]))
        return None

    return link


def _no_link(_text: str) -> None:
    return None


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "unknown (the run has not ended)"
    minutes, secs = divmod(seconds, 60)
    return f"{int(minutes)} min {secs:.1f} s" if minutes else f"{secs:.1f} s"


def _num(value: Any) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def _parse(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None
