"""The report's sections from `simulacra diagnose` (diagnose.json: the source's seven failure
modes, each finding linked to its moment in the viewer) and `simulacra trace` (trace.json: a
row per agent, a cell per stage of the causal chain, each linked to the event that shows it),
and the memory section every run has (who rated each record's importance, reflections)."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from simulacra.report.replay_model import Replay
from simulacra.report.sections import as_list, as_mapping, section, step_at, viewer_link
from simulacra.report.tables import rows_table, scalar_html

_STATUS = {"found": "found", "clear": "clear", "not checked": "not checked"}
_MARK = {True: "held", False: "broke", None: "n/a"}


def _moment(replay: Replay, t: Any, agent: Any, text: str) -> str:
    """`text` linked to the viewer at `t`, on `agent` when it names one of the run's."""
    who = agent if isinstance(agent, str) and agent in replay.agents else None
    href = viewer_link(replay, step_at(replay, t) if t else None, who)
    return f'<a href="{escape(href)}">{escape(text)}</a>'


def diagnosis_section(found: Mapping[str, Any], replay: Replay) -> str:
    rows = []
    details = []
    for mode in as_list(found.get("modes")):
        mode = as_mapping(mode)
        findings = as_list(mode.get("findings"))
        status = _STATUS.get(str(mode.get("status")), "not checked")
        rows.append(
            f"<tr><td>{escape(str(mode.get('symptom')))}</td><td>{escape(str(mode.get('layer')))}"
            f'</td><td class="status-{escape(status.replace(" ", "-"))}">{escape(status)}'
            f"{f' ({len(findings)})' if findings else ''}</td>"
            f"<td>{escape(str(mode.get('looked')))}</td></tr>"
        )
        if not findings:
            continue
        items = []
        for finding in findings:
            finding = as_mapping(finding)
            events = "".join(
                f"<li>{_moment(replay, e.get('t'), e.get('agent'), _event_label(e))}</li>"
                for e in map(as_mapping, as_list(finding.get("events")))
            )
            head = _moment(replay, finding.get("t"), finding.get("agent"), str(finding.get("t")))
            items.append(f"<li>{head}: {escape(str(finding.get('summary')))}<ul>{events}</ul></li>")
        details.append(
            f"<details><summary>{escape(str(mode.get('symptom')))}: inspect first "
            f"{escape(str(mode.get('inspect')))}</summary><ul>{''.join(items)}</ul></details>"
        )
    head = "<th>symptom</th><th>layer</th><th>status</th><th>what was checked</th>"
    table = (
        f'<table class="rows"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
    )
    intro = (
        "<p>The source's debugging table, checked on this run's log. Interview answers "
        f"judged by {escape(str(found.get('aware_method', '?')))}. Each finding and event "
        "opens the viewer at its moment.</p>"
    )
    return section("Diagnosis (simulacra diagnose)", intro + table + "".join(details), "diagnosis")


def _event_label(event: Mapping[str, Any]) -> str:
    who = f" {event.get('agent')}" if event.get("agent") else ""
    return f"seq {event.get('seq')} {event.get('t')} {event.get('kind')}{who}: {event.get('what')}"


def trace_sections(found: Mapping[str, Any], replay: Replay) -> str:
    return "".join(_trace(name, as_mapping(entry), replay) for name, entry in found.items())


def _trace(name: str, entry: Mapping[str, Any], replay: Replay) -> str:
    stages = [str(s) for s in as_list(entry.get("stages"))]
    head = "<th>agent</th>" + "".join(f"<th>{escape(s)}</th>" for s in stages)
    rows = []
    for row in map(as_mapping, as_list(entry.get("agents"))):
        cells = []
        for stage in map(as_mapping, as_list(row.get("stages"))):
            mark = _MARK.get(stage.get("held"), "n/a")
            line = as_mapping(stage.get("event"))
            text = f"{mark}"
            title = escape(str(stage.get("why", "")))
            cell = _moment(replay, line.get("t"), line.get("agent"), text) if line else escape(text)
            cells.append(f'<td class="chain-{mark.replace("/", "")}" title="{title}">{cell}</td>')
        agent = str(row.get("agent"))
        name_cell = _moment(replay, None, agent, str(row.get("name", agent)))
        rows.append(f"<tr><td>{name_cell}</td>{''.join(cells)}</tr>")
    planted = as_mapping(entry.get("planted"))
    origin = (
        f"planted in {escape(str(planted.get('owner')))} at {escape(str(planted.get('at')))}: "
        f"{escape(str(planted.get('text')).rstrip('.'))}"
        if planted
        else "no thought of the scenario plants it"
    )
    broke = [as_mapping(r) for r in as_list(entry.get("agents")) if as_mapping(r).get("broke")]
    counts: dict[str, int] = {}
    for row in broke:
        counts[str(row["broke"])] = counts.get(str(row["broke"]), 0) + 1
    summary = ", ".join(f"{n} at {escape(s)}" for s, n in counts.items()) or "none"
    table = (
        f'<table class="rows"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
    )
    body = (
        f"<p>{origin}. Where the chain first broke: {summary}. A cell's title says why; its "
        "link opens the viewer at the event.</p>" + table
    )
    return section(f"Trace of {name} (simulacra trace)", body, f"trace-{escape(name)}")


def memory_section(metrics: Mapping[str, Any] | None) -> str:
    memory = as_mapping(metrics.get("memory") if metrics else None)
    if not memory:
        return ""
    by_kind = as_mapping(memory.get("importance_by_kind"))
    sources = sorted({s for v in by_kind.values() for s in as_mapping(v)})
    rows = [
        {"kind": kind, **{s: as_mapping(v).get(s, 0) for s in sources}}
        for kind, v in by_kind.items()
    ]
    share = memory.get("model_rated_share")
    text = (
        f"<p>{scalar_html(memory.get('records'), lambda _: None)} records; "
        f"{share:.0%} rated by the model (model), the rest by the rule (rule), a configured "
        "number (fixed) or the writer (given). Reflections: "
        f"{scalar_html(memory.get('reflections'), lambda _: None)}, "
        f"{memory.get('reflections_per_agent_day')} per agent-day (the source: two or three).</p>"
        if isinstance(share, float)
        else ""
    )
    return section(
        "Memory: importance and reflection",
        text
        + _retrieval_text(as_mapping(memory.get("retrieval")))
        + rows_table(rows, lambda _: None),
        "memory",
    )


def _retrieval_text(retrieval: Mapping[str, Any]) -> str:
    """How much retrieval selected: the share that returned every candidate, and whether
    recency told the candidates apart."""
    count = retrieval.get("retrievals")
    late = retrieval.get("whole_stream_share_after_first_hour")
    if not isinstance(count, int) or not count or not isinstance(late, float):
        return ""
    return (
        f"<p>Retrieval: {count} retrievals (interviews aside); {late:.1%} after the first hour "
        "returned every candidate, leaving nothing out (the goal: under 10%). Raw recency "
        f"among the candidates spread {retrieval.get('recency_spread_median')} at the "
        f"median, and could not tell them apart in {retrieval.get('recency_spread_flat')} "
        f"retrievals (within 0.005 in {retrieval.get('recency_spread_narrow')}).</p>"
    )
