"""The commute run report's sections: Table 5 with its on-time window, the satisfaction and
modal share, the modal split against Table 4's expectation, the modal split per profile per
day (Figure 6 where no day is struck), the taxi wait in all and per profile under the strike
(Figure 7), the origins and destinations on the corridor (Figure 4), one profile's trips on
one day (Figure 5) and one agent's weekly trace (Appendix B)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

from simulacra.experiments.kinds.commute.plots import (
    choices_svg,
    modal_split_svg,
    origins_svg,
    profile_strike_svg,
    taxi_wait_svg,
)
from simulacra.report.frame_maps import Painter
from simulacra.report.per_world import WorldReport
from simulacra.report.replay_model import Replay
from simulacra.report.sections import (
    as_list,
    as_mapping,
    as_rows,
    figure,
    links,
    no_link,
    number,
    section,
)
from simulacra.report.tables import rows_table
from simulacra.worlds.commute import TABLE5_COLUMNS

Metrics = Mapping[str, Any]
# The metrics.json keys these sections show, so "All metrics" does not repeat them.
_SHOWN = (
    "punctuality",
    "modal_split",
    "taxi_wait",
    "modal_share",
    "satisfaction",
    "expectation",
    "figures",
    "headline",
)


def _sections(replay: Replay, metrics: Metrics) -> list[str]:
    taxi = as_mapping(metrics.get("taxi_wait"))
    strikes = [int(number(d)) for d in taxi.get("strike_days") or ()]
    strike_text = f"days {_days(strikes)}" if strikes else "none"
    label = f"{replay.run.scenario}, seed {replay.run.seed}"
    stops = [marker.x for marker in replay.layers.get("stops", ())]
    drawn = as_mapping(metrics.get("figures"))
    return [
        _punctuality(metrics, strike_text),
        _shares(metrics),
        _expectation(metrics),
        _modal_split(metrics, strikes, strike_text, label),
        _taxi_wait(taxi, strikes, strike_text, label),
        _by_profile(metrics, taxi, strikes, strike_text, label),
        _origins(drawn, stops, label),
        _choices(drawn, stops, label),
        _trace(replay, drawn),
    ]


def _punctuality(metrics: Metrics, strike_text: str) -> str:
    raw = metrics.get("punctuality")
    if not isinstance(raw, Mapping):
        return section("Punctuality", '<p class="empty">Not measured.</p>', "punctuality")
    columns = ("trips", *TABLE5_COLUMNS)
    groups: list[tuple[str, Any]] = [("all trips", raw.get("table"))]
    by_profile = raw.get("by_profile")
    groups += list(by_profile.items()) if isinstance(by_profile, Mapping) else []
    if strike_text != "none":
        groups.append(("strike days only", raw.get("strike_days_only")))
    rows = [
        {"trips of": name, **{c.replace("_", " "): values.get(c) for c in columns}}
        for name, values in groups
        if isinstance(values, Mapping)
    ]
    note = (
        f"<p>Percent of trips (trips: their number). {escape(str(raw.get('on_time_window', '')))}."
        f" Taxi strike: {escape(strike_text)}.</p>"
    )
    body = rows_table(rows, no_link) + note
    return section("Punctuality (Table 5 of the source)", body, "punctuality")


def _shares(metrics: Metrics) -> str:
    shares = as_mapping(metrics.get("modal_share"))
    satisfied = as_mapping(metrics.get("satisfaction"))
    if not shares:
        return section("Modal share", '<p class="empty">No trips.</p>', "modal-share")
    rows = [
        {"trips of": name, **dict(as_mapping(split)), "mean satisfaction": satisfied.get(name)}
        for name, split in shares.items()
    ]
    note = (
        "<p>Percent of all the run's trips by mode, and the mean satisfaction (0 to 1) that "
        "the world scored from each traveller's own weights of time, cost, comfort and "
        "punctuality.</p>"
    )
    return section("Modal share and satisfaction", note + rows_table(rows, no_link), "modal-share")


def _expectation(metrics: Metrics) -> str:
    found = as_mapping(metrics.get("expectation"))
    title = "Modal split against the expectation (Table 4 of the source)"
    if not found:
        return section(title, '<p class="empty">No profile with expected modes.</p>', "expect")
    rows = [
        {
            "profile": name,
            "expected": ", ".join(map(str, as_list(row.get("expected")))),
            **dict(as_mapping(row.get("split"))),
            "in expected modes": row.get("in_expected_modes"),
            "in the first expected": row.get("in_first_expected"),
            "most used": row.get("most_used"),
            "as expected": "yes" if row.get("as_expected") else "no",
        }
        for name, row in found.items()
        if isinstance(row, Mapping)
    ]
    note = (
        "<p>Percent of each profile's trips by mode beside the modes the source expected of "
        "it (Table 4's Expectation, the first the most expected). The agents are not told it "
        "unless the scenario sets <code>agents.options.commuter.show_expectation</code>. "
        "<i>As expected</i>: the most used mode is the first expected.</p>"
    )
    return section(title, note + rows_table(rows, no_link), "expect")


def _modal_split(metrics: Metrics, strikes: list[int], strike_text: str, label: str) -> str:
    split = metrics.get("modal_split")
    if not isinstance(split, Mapping) or not split:
        return section("Modal split", '<p class="empty">No trips.</p>', "modal-split")
    svg = modal_split_svg(split, strikes, f"Modal split per profile ({label})")
    caption = f"Percent of each profile's trips by mode; shaded: taxi strike ({strike_text})."
    # The source's Figure 6 is its baseline scenario: a run with no strike day.
    title = "Modal split per profile per day"
    title += (
        " under the strike (Figure 6 of the source is the run without one: the sweep's "
        "available100)"
        if strikes
        else " (Figure 6 of the source: no strike)"
    )
    return section(title, figure(svg, "modal split per profile per day", caption), "modal-split")


def _taxi_wait(taxi: Mapping[str, Any], strikes: list[int], strike_text: str, label: str) -> str:
    by_day = as_rows(taxi.get("by_day"))
    if not by_day:
        return section("Taxi wait", '<p class="empty">No days measured.</p>', "taxi-wait")
    svg = taxi_wait_svg(by_day, strikes, f"Mean taxi wait ({label})")
    caption = f"Mean wait of the day's taxi trips; red bars and shade: strike ({strike_text})."
    body = figure(svg, "mean taxi wait per day", caption) + rows_table(by_day, no_link)
    return section("Mean taxi wait per day", body, "taxi-wait")


def _by_profile(
    metrics: Metrics, taxi: Mapping[str, Any], strikes: list[int], strike_text: str, label: str
) -> str:
    split, waits = as_mapping(metrics.get("modal_split")), as_mapping(taxi.get("by_profile"))
    if not split or not waits:
        return section("Taxi wait per profile", '<p class="empty">No taxi trips.</p>', "fig7")
    svg = profile_strike_svg(split, waits, strikes, f"Modes and taxi wait per profile ({label})")
    caption = (
        "Lines: each profile's trips by mode per day; bars: its mean taxi wait that day "
        f"(minutes, right axis); shaded: the strike ({strike_text})."
    )
    title = "Modes and taxi wait per profile"
    title += " under the strike (Figure 7 of the source)" if strikes else " (no strike)"
    return section(title, figure(svg, "modes and taxi wait per profile", caption), "fig7")


def _origins(drawn: Mapping[str, Any], stops: Sequence[float], label: str) -> str:
    rows = as_rows(drawn.get("origins"))
    if not rows:
        return section("Origins and destinations", '<p class="empty">No agents.</p>', "fig4")
    svg = origins_svg(rows, stops, f"Origins and destinations by profile ({label})")
    caption = (
        "Each agent's home and destination along the corridor, one band per profile; agents "
        "are spread across the band only, so distances stay true. Red: bus stops."
    )
    return section(
        "Origins and destinations on the corridor (Figure 4 of the source)",
        figure(svg, "origins and destinations by profile", caption),
        "fig4",
    )


def _choices(drawn: Mapping[str, Any], stops: Sequence[float], label: str) -> str:
    shown = as_mapping(drawn.get("choices"))
    rows = as_rows(shown.get("trips"))
    profile, day = str(shown.get("profile", "")), shown.get("day")
    title = f"{profile.replace('_', ' ')} trips on day {day}"
    if not rows:
        return section(title.capitalize(), '<p class="empty">No trips that day.</p>', "fig5")
    svg = choices_svg(rows, stops, f"{title.capitalize()} ({label})")
    caption = "Each agent's trip from home to destination, coloured by the mode it chose."
    body = figure(svg, title, caption) + rows_table(rows, no_link)
    return section(f"{title.capitalize()} (Figure 5 of the source)", body, "fig5")


def _trace(replay: Replay, drawn: Mapping[str, Any]) -> str:
    followed = as_mapping(drawn.get("trace"))
    agent, weeks = followed.get("agent"), as_rows(followed.get("weeks"))
    if not agent or not weeks:
        return section("Weekly trace", '<p class="empty">No agent to follow.</p>', "trace")
    body = (
        f"<p>{escape(str(agent))}'s weeks, as the source's Appendix B follows one agent: each "
        "day's trip and the reflection on it, each week's lesson for long-term memory.</p>"
    )
    for week in weeks:
        days = [
            {
                "day": d.get("day"),
                "mode": d.get("mode"),
                "departure": d.get("departure"),
                "arrival": d.get("arrival") or "did not arrive",
                "punctuality": d.get("punctuality"),
                "satisfaction": d.get("satisfaction"),
                "reflection": d.get("reflection", ""),
            }
            for d in as_list(week.get("days"))
            if isinstance(d, Mapping)
        ]
        body += f"<h3>Week {escape(str(week.get('week')))}</h3>"
        body += rows_table(days, links(replay))
        for key, name in (("lesson", "Lesson"), ("merged", "Merged with the weeks before")):
            if week.get(key):
                body += f"<p><b>{name}:</b> {escape(str(week[key]))}</p>"
    return section(f"Weekly trace of {agent} (Appendix B of the source)", body, "trace")


def _days(days: Sequence[int]) -> str:
    if list(days) == list(range(days[0], days[-1] + 1)):
        return f"{days[0]}-{days[-1]}" if len(days) > 1 else str(days[0])
    return ", ".join(map(str, days))


def _painter(replay: Replay, layout: Mapping[str, Any]) -> Painter:
    from simulacra.experiments.kinds.commute.frames import commute_painter

    return commute_painter(replay)


def _sweep(out: Path, summary: Mapping[str, Any]) -> list[str]:
    from simulacra.experiments.kinds.commute.sweep import commute_sweep_sections

    return commute_sweep_sections(out, summary)


REPORT = WorldReport(
    "commute",
    sections=_sections,
    shown=_SHOWN,
    units={
        **{k: "% of trips" for k in ("early", "late", "on_time", "incomplete", "completion")},
        **{k: "% of trips" for k in ("bus_share", "taxi_share", "walk_share")},
        "taxi_wait_normal_min": "min",
        "taxi_wait_strike_min": "min",
        "satisfaction": "mean score of the scored trips",
    },
    painter=_painter,
    sweep_sections=_sweep,
)
