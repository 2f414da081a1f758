"""The report's evaluation section, from eval.json: believability per condition beside the
source's figures, embellishment, acquaintance, diffusion, coordination, and every answer."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from simulacra.report.plots import acquaintance_svg, over_time_svg, ratings_svg
from simulacra.report.sections import no_link, section
from simulacra.report.tables import rows_table


def evaluation_section(found: Mapping[str, Any]) -> str:
    published = found.get("published", {})
    parts = [_intro(found)]
    for source, rows in found.get("ratings", {}).items():
        parts.append(f"<h3>Believability: TrueSkill from the rankings of {escape(source)}</h3>")
        parts.append(
            f'<div class="plot">{ratings_svg(rows, published.get("trueskill_mu", {}))}</div>'
        )
        parts.append(rows_table([_rating_row(r, published) for r in rows], no_link))
    if found.get("agreement"):
        parts.append("<h3>People and the judge</h3>" + rows_table([found["agreement"]], no_link))
    parts.append(_embellishment(found, published))
    parts.append(_acquaintance(found, published))
    parts.append(_diffusion(found, published))
    parts.append(_coordination(found, published))
    parts.append(_answers(found))
    return section("Evaluation (simulacra evaluate)", "".join(parts), "evaluation")


def _intro(found: Mapping[str, Any]) -> str:
    note = ""
    if found.get("scripted"):
        note = (
            ' <span class="badge">scripted: canned answers and a rule for a judge; the figures '
            "test the pipeline, not what a model would do</span>"
        )
    calls = ", ".join(f"{escape(k)} {v}" for k, v in found.get("calls", {}).items())
    source = escape(str(found.get("published", {}).get("source", "")))
    return (
        f"<p>Interviews at {escape(str(found.get('at')))} by {escape(str(found.get('model')))}, "
        f"judged by {escape(str(found.get('judge')))}; conditions: "
        f"{escape(', '.join(found.get('conditions', [])))}.{note}</p>"
        f"<p>Model calls: {calls or 'none'}. Source: {source}</p>"
    )


def _rating_row(row: Mapping[str, Any], published: Mapping[str, Any]) -> dict[str, Any]:
    low, high = row.get("low"), row.get("high")
    paper = published.get("trueskill_mu", {}).get(row["condition"])
    return {
        "condition": row["condition"],
        "mu": round(row["mu"], 2),
        "sigma": round(row["sigma"], 2),
        "95% interval": f"{low:.2f} to {high:.2f}" if low is not None else "-",
        "rankings": row.get("rankings", 0),
        "source's mu": paper if paper is not None else "-",
    }


def _embellishment(found: Mapping[str, Any], published: Mapping[str, Any]) -> str:
    rows = [{"condition": c, **v} for c, v in found.get("embellishment", {}).items()]
    share = published.get("embellished_share")
    return (
        "<h3>Embellishment: answers with a claim no memory supports</h3>"
        + rows_table(rows, no_link)
        + (f"<p>The source: about {share:.1%} of answers embellished.</p>" if share else "")
    )


def _acquaintance(found: Mapping[str, Any], published: Mapping[str, Any]) -> str:
    rows = found.get("acquaintance") or []
    if not rows:
        return ""
    table = [
        {
            "t": r["t"],
            "density": r["density"],
            "pairs who both say so": len(r.get("pairs", [])),
            "directed density": r.get("directed_density", "-"),
            "one-way claims": len(r["edges"]),
        }
        for r in rows
    ]
    source = published.get("density", {})
    series = {"density": [r["density"] for r in rows]}
    agents = sorted({a for r in rows for e in r["edges"] for a in e})
    return (
        "<h3>Relationship formation: network density over time</h3>"
        f'<div class="plot">{over_time_svg([r["t"] for r in rows], series, "density")}</div>'
        + rows_table(table, no_link)
        + "<p>Density as the source counts it: the share of pairs of agents who both say they "
        f"know each other. The source: {source.get('start')} at the start, {source.get('end')} "
        "after two days.</p>"
        + '<div class="plot">'
        + acquaintance_svg(agents, rows[0]["edges"], rows[-1]["edges"])
        + "</div>"
    )


def _diffusion(found: Mapping[str, Any], published: Mapping[str, Any]) -> str:
    facts = found.get("diffusion") or {}
    if not facts:
        return ""
    planted = found.get("planted") or {}
    parts = ["<h3>Information diffusion: share of agents who know each planted fact</h3>"]
    for name, points in facts.items():
        if not points:
            continue
        where = planted.get(name)
        origin = (
            f"planted in {where['owner']} at {where['at']}, who counts as aware from then"
            if where
            else "no thought of the scenario plants it: counted from the first probe"
        )
        series = {name: [p["share"] for p in points]}
        table = [{"t": p["t"], "aware": f"{p['aware']} ({p['share']:.0%})"} for p in points]
        parts.append(
            f"<h4>{escape(name)} ({escape(origin)})</h4>"
            f'<div class="plot">{over_time_svg([p["t"] for p in points], series, "share aware")}'
            "</div>" + rows_table(table, no_link)
        )
    source = published.get("party_aware_share", {})
    method = found.get("diffusion_method") or "keywords"
    parts.append(
        f"<p>Aware: {escape(str(method))}. The source's party: {source.get('start', 0):.0%} "
        f"then {source.get('end', 0):.0%} of agents.</p>"
    )
    return "".join(parts)


def _coordination(found: Mapping[str, Any], published: Mapping[str, Any]) -> str:
    facts = found.get("coordination") or {}
    parts = ["<h3>Coordination: who was told, by whom, when, who said yes, who came</h3>"]
    for name, entry in facts.items():
        parts.append(f"<h4>{escape(name)}</h4>" + rows_table([entry["summary"]], no_link))
        if entry["rows"]:
            parts.append(rows_table(entry["rows"], no_link))
    parts.append(
        f"<p>The source's party: {published.get('party_came')} of "
        f"{published.get('party_invited')} invitees came.</p>"
    )
    return "".join(parts)


def _answers(found: Mapping[str, Any]) -> str:
    by_item: dict[str, list[Mapping[str, Any]]] = {}
    for answer in found.get("answers", []):
        by_item.setdefault(answer["item"], []).append(answer)
    blocks = []
    for item in found.get("items", []):
        rows = [_answer_row(a) for a in by_item.get(item["id"], [])]
        head = f"{item['agent']} · {item['category']}: {item['question']}"
        blocks.append(
            f"<details><summary>{escape(head)}</summary>{rows_table(rows, no_link)}</details>"
        )
    return "<h3>Answers per question and condition</h3>" + "".join(blocks)


def _answer_row(answer: Mapping[str, Any]) -> dict[str, Any]:
    verdict = answer.get("verdict") or "not checked"
    if answer.get("claim") and verdict == "embellished":
        verdict += f": {answer['claim']}"
    return {
        "condition": answer["condition"],
        "answer": answer["text"] + (" (fallback)" if answer.get("fallback") else ""),
        "memories used": ", ".join(answer.get("memory_ids", [])) or "-",
        "fact check": verdict,
    }
