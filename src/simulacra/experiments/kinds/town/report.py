"""The town's report: how the news spread (interviews at fixed times) and who came to the
event. Its frames are the common map of places; its day timeline and conversations are the
report's own."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from html import escape
from importlib.resources import files
from itertools import pairwise
from typing import Any

from simulacra.report.per_world import WorldReport
from simulacra.report.plots import DiffusionPoint, diffusion_svg
from simulacra.report.replay_model import Replay
from simulacra.report.sections import (
    as_list,
    as_mapping,
    as_rows,
    links,
    number,
    parse_time,
    section,
    step_at,
    viewer_link,
)
from simulacra.report.tables import rows_table, value_html

Metrics = Mapping[str, Any]


def _town(replay: Replay, metrics: Metrics) -> list[str]:
    return [_story(replay, metrics), _diffusion(replay, metrics), _attendance(replay, metrics)]


def _many(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _percent(share: float) -> str:
    """A share as a percentage, one decimal under 10% (so 0.5% is not read as 1%)."""
    percent = 100 * share
    return f"{percent:.1f}%" if percent < 10 else f"{percent:.0f}%"


def _story(replay: Replay, metrics: Metrics) -> str:
    """What happened, at a glance: the model and its fallbacks, the conversations, each
    planted fact, who knew of the event at each interview and whom they heard it from, and
    who came."""

    def name(agent: object) -> str:
        track = replay.agents.get(str(agent))
        return escape(track.name if track is not None else str(agent))

    fell = as_mapping(metrics.get("fallbacks"))
    rows = [
        ("model", escape(", ".join(map(str, as_list(metrics.get("models")))) or replay.run.model)),
        (
            "fallbacks",
            f"{_many(int(number(fell.get('total'))), 'call')}, "
            f"{_percent(number(fell.get('rate')))} of the model's",
        ),
    ]
    when = _clock(replay)
    talks = [
        f"{when(c.t)} {' and '.join(name(p) for p in c.participants)}: "
        f"{escape(c.topic)} ({_many(c.turns, 'turn')})"
        for c in replay.conversations
    ]
    rows.append((f"conversations ({len(talks)})", "<br>".join(talks) or "none"))
    for fact in as_rows(metrics.get("planted")):
        rows.append(_planted(fact, name, when, len(replay.agents)))
    for row in as_rows(metrics.get("diffusion")):
        heard, claims = as_mapping(row.get("heard_from")), as_mapping(row.get("claims"))
        knew = [
            f"{name(a)} (its source)"
            if a == row.get("owner")
            else f"{name(a)} ({_from(name, heard.get(a), as_mapping(claims.get(a)))})"
            if a in heard or a in claims
            else name(a)
            for a in as_list(row.get("agents"))
        ]
        answers = as_mapping(row.get("answers"))
        total = len(answers) or len(replay.agents)
        rows.append(
            (f"knew at {when(row.get('t'))} ({len(knew)} of {total})", ", ".join(knew) or "nobody")
        )
    came = as_mapping(metrics.get("attendance"))
    if came:
        hours = "-".join(when(came.get(k)) for k in ("start", "end"))
        where = escape(f"{came.get('place')} {hours}".strip(" -"))
        guests = ", ".join(name(a) for a in as_list(came.get("attended"))) or "nobody"
        rows.append((f"came to {where}", guests))
    cells = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
    return section("What happened", f'<table class="pairs">{cells}</table>', "story")


def _clock(replay: Replay) -> Callable[[object], str]:
    """A simulated time as the report shows it: its clock time, with its day where the run
    spans more than one ("14 Feb 16:00"), escaped."""
    days = {t.date() for t in (parse_time(f.t) for f in replay.frames) if t is not None}

    def when(value: object) -> str:
        t = parse_time(value)
        if t is None:
            return escape(str(value or ""))
        return f"{t:%d %b %H:%M}" if len(days) > 1 else f"{t:%H:%M}"

    return when


def _planted(
    fact: Mapping[str, Any], name: Callable[[object], str], when: Callable[[object], str], of: int
) -> tuple[str, str]:
    """A planted fact's line: who was given it, when and in which words; whether the
    interviews ask about it; who held it in what they saw or heard at each interview time."""
    called = f" ({escape(str(fact['fact']))})" if fact.get("fact") else ""
    words = escape(str(fact.get("text")))
    said = f"{when(fact.get('at'))}, {name(fact.get('owner'))}: \u201c{words}\u201d"
    if fact.get("asked"):
        asked = "asked about at the interviews (below)"
    elif fact.get("fact"):
        asked = "not asked at this run's interviews; <code>simulacra evaluate</code> asks about it"
    else:
        asked = (
            "no words describe it (interviews.aware_when, or the evaluation's facts): not measured"
        )
    held = [
        f"{when(row.get('t'))}: {len(as_list(row.get('agents')))} of {of - 1} others"
        + (
            f" ({', '.join(name(a) for a in as_list(row.get('agents')))})"
            if row.get("agents")
            else ""
        )
        for row in as_rows(fact.get("held"))
    ]
    heard = f"<br>held in what others saw or heard: {'; '.join(held)}" if held else ""
    return (f"planted fact{called}", f"{said}<br>{asked}{heard}")


def _from(name: Callable[[object], str], teller: object, claim: Mapping[str, Any]) -> str:
    """Whom an aware agent heard it from: the conversation's teller, and what a closed answer
    claims, with whether its memories confirm the claim."""
    said = [f"from {name(teller)}"] if teller is not None else []
    if claim:
        check = "confirmed by its memories" if claim.get("confirmed") else "not in its memories"
        said.append(f"says from {escape(str(claim.get('from_whom')))}, {check}")
    return "; ".join(said)


def _diffusion(replay: Replay, metrics: Metrics) -> str:
    rows = as_rows(metrics.get("diffusion"))
    if not rows:
        return section("Diffusion", '<p class="empty">No diffusion measured.</p>', "diffusion")
    points, table = [], []
    for row in rows:
        step = step_at(replay, row.get("t"))
        answers = row.get("answers")
        population = len(answers) if isinstance(answers, Mapping) and answers else None
        points.append(
            DiffusionPoint(
                parse_time(row.get("t")),
                number(row.get("aware")),
                float(population or len(replay.agents)),
                viewer_link(replay, step),
            )
        )
        table.append(
            {
                "t": row.get("t"),
                "aware": row.get("aware"),
                "who": row.get("agents"),
                "viewer": f"step {step}",
                "answers": answers,
            }
        )
    steps = {str(r["viewer"]) for r in table}
    body = f'<div class="plot">{diffusion_svg(points, _skipped(replay))}</div>'
    body += rows_table(table, links(replay, steps))
    note = (
        "<p>How many agents know, by interviewing each at fixed times. Click a point to replay.</p>"
    )
    return section("Diffusion over time", note + body, "diffusion")


def _skipped(replay: Replay) -> list[tuple[datetime, datetime]]:
    """The spans the clock skipped (a night): a frame is the world at its tick's end, so
    one more than a tick after the frame before leaves the time between unsimulated."""
    tick = timedelta(minutes=replay.run.tick_minutes or 0)
    times = [parse_time(f.t) for f in replay.frames]
    return [
        (a, b - tick)
        for a, b in pairwise(times)
        if a is not None and b is not None and tick and b - tick > a
    ]


def _attendance(replay: Replay, metrics: Metrics) -> str:
    value = metrics.get("attendance")
    if value is None:
        return section("Attendance", '<p class="empty">Not measured in this run.</p>', "attendance")
    return section("Attendance", value_html(value, links(replay)), "attendance")


REPORT = WorldReport(
    "town",
    sections=_town,
    shown=("diffusion", "attendance", "planted"),
    units={"conversations": "conversations", "attended": "agents"},
    # The tile map, walks, emoji, pan, zoom and follow (town_view.js).
    script=files(__package__).joinpath("town_view.js").read_text(encoding="utf-8"),
)
