"""A run's family in its report and viewer: the tree of forks it belongs to (each run
linked, its fork point and change), and for a fork, where it first parts from its parent,
its headline figures beside the parent's, its world's figures over time beside the parent's
(the world's `over_time` on the per-world registry, else the agents at each place), and the
two branches' events side by side from the fork point with the first difference marked.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from datetime import datetime
from html import escape
from itertools import zip_longest
from pathlib import Path
from typing import Any

from simulacra.report.per_world import OverTime
from simulacra.report.plots import branches_svg
from simulacra.report.replay_model import Replay
from simulacra.report.sections import figure, number, parse_time, section, step_at
from simulacra.runlog import Event, children, compare_runs, fork_point, history, lineage
from simulacra.runlog.compare import without_wall

Series = Mapping[str, Sequence[tuple[datetime, float]]]  # what a world's OverTime gives
SIDE_BY_SIDE = 24  # events of each branch shown from the fork point
SHOWN_SERIES = 4  # the figures over time that part the most


def places_over_time(events: Sequence[Event]) -> dict[str, list[tuple[datetime, float]]]:
    """How many agents are at each place at each step, and how many are aware at each
    interview: what every world's log holds."""
    aware: list[tuple[datetime, float]] = []
    frames: list[tuple[datetime, dict[str, int]]] = []
    for event in events:
        when = parse_time(event.t)
        if when is None:
            continue
        if event.kind == "metric" and event.data.get("name") == "aware":
            aware.append((when, number(event.data["value"])))
        if event.kind != "world":
            continue
        counts: dict[str, int] = {}
        for agent in event.data.get("agents", {}).values():
            place = agent.get("place") if isinstance(agent, dict) else None
            if place:
                counts[str(place)] = counts.get(str(place), 0) + 1
        frames.append((when, counts))
    places = sorted({place for _, counts in frames for place in counts})
    found = {f"at {p}": [(when, float(c.get(p, 0))) for when, c in frames] for p in places}
    return found | ({"aware (interviews)": aware} if aware else {})


def family_section(
    run: Path, events: Sequence[Event], over_time: OverTime = places_over_time
) -> str:
    """The report's Family section ("" for a run with no parent and no child)."""
    point = fork_point(run)
    if point is None and not children(run):
        return ""
    parts = [tree_html(run, "report.html")]
    if point is not None:
        theirs = list(history(point.parent))
        found = compare_runs(point.parent, run)
        first = found.first_event or found.difference
        parts.append(
            f"<p>Forked from <code>{escape(point.parent.name)}</code> at step {point.step} "
            f"({escape(point.at)}). First difference from the parent: "
            f'<span class="first-difference">{escape(str(first) if first else "none")}</span>'
            "</p>"
        )
        parts.append(_headlines(run, point.parent))
        parts.append(_over_time(over_time(theirs), over_time(events), parse_time(point.at)))
        parts.append(_side_by_side(theirs, events, point.seq))
    return section("Family", "".join(parts), "family")


def viewer_family(run: Path, replay: Replay, events: Sequence[Event]) -> str:
    """The viewer's family: the tree, linking each run's viewer, and for a fork, marks on
    the time scrubber at the fork point and at the first event that differs from the parent."""
    point = fork_point(run)
    if point is None and not children(run):
        return ""
    marks = []
    if point is not None:
        marks.append((replay.frame_of_step(point.step), "fork point"))
        apart = _first_apart(list(history(point.parent)), events, point.seq)
        if apart is not None:
            marks.append((replay.frame_of_step(step_at(replay, apart.t)), "first difference"))
    options = "".join(
        f'<option value="{f}" label="{escape(label)}"></option>' for f, label in marks
    )
    said = "".join(
        f'<li><a href="#step={replay.step_of_frame(f)}">{escape(label)}: step '
        f"{replay.step_of_frame(f)}</a></li>"
        for f, label in marks
    )
    return (
        f'<nav id="family" aria-label="the run\'s family">'
        f"{tree_html(run, 'viewer.html', side_by_side=True)}"
        f'<ul class="branch-marks">{said}</ul><datalist id="branch-marks">{options}</datalist>'
        "</nav>"
    )


def tree_html(run: Path, page: str, *, side_by_side: bool = False) -> str:
    """The family tree from the first ancestor down, each run linking to its `page`; with
    `side_by_side`, each other run has a button that shows it beside this one (the viewer's
    viewer_side.js), from the step where the two part."""
    root = lineage(run)[-1]
    here = run.resolve()
    return f'<ul class="family-tree">{_node(root, here, page, side_by_side)}</ul>'


def family_pages(run: Path, page: str) -> dict[str, Path]:
    """Every other run of `run`'s family that has its `page`, by the link to it that `run`'s
    own pages carry (relative to them): what `simulacra view` serves beside the run's pages,
    so that the tree's links and the side-by-side frames open there too."""
    here = run.resolve()
    found: dict[str, Path] = {}
    todo = [lineage(run)[-1]]
    while todo:
        node = todo.pop()
        todo += children(node)
        if node.resolve() != here and (node / page).is_file():
            found[_link(node, here, page)] = (node / page).resolve()
    return found


def _link(node: Path, here: Path, page: str) -> str:
    return os.path.relpath(node / page, here)


def parts_at(run: Path, other: Path) -> int:
    """The first step at which two runs of one family may differ: the earliest fork point
    on the way from their nearest common ancestor to either."""
    ours = [p.resolve() for p in lineage(run)]
    theirs = [p.resolve() for p in lineage(other)]
    common = next(p for p in ours if p in theirs)
    steps = [
        point.step
        for line in (ours, theirs)
        if (i := line.index(common)) > 0 and (point := fork_point(line[i - 1])) is not None
    ]
    return min(steps, default=0)


def _node(node: Path, here: Path, page: str, side_by_side: bool) -> str:
    point = fork_point(node)
    info = _info(node)
    said = ""
    if point is not None:
        changes = ", ".join(info.get("fork", {}).get("changes", [])) or "no change"
        replicate = info.get("fork", {}).get("replicate", 0)
        said = f" (step {point.step}, {point.at}: {changes}" + (
            f"; replicate {replicate})" if replicate else ")"
        )
    link = _link(node, here, page)
    name = escape(node.name)
    label = (
        f'<strong aria-current="page">{name}</strong>'
        if node.resolve() == here
        else f'<a href="{escape(link)}">{name}</a>'
    )
    if side_by_side and node.resolve() != here:
        label += (
            f'<button type="button" class="side-by-side" data-viewer="{escape(link)}" '
            f'data-name="{name}" data-from="{parts_at(here, node)}">side by side</button>'
        )
    below = "".join(_node(child, here, page, side_by_side) for child in children(node))
    return f"<li>{label}{escape(said)}" + (f"<ul>{below}</ul>" if below else "") + "</li>"


def _info(run: Path) -> dict[str, Any]:
    try:
        found = json.loads((run / "run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _headlines(run: Path, parent: Path) -> str:
    ours, theirs = _info(run).get("summary", {}), _info(parent).get("summary", {})
    names = [n for n in ours if n in theirs]
    if not names:
        return ""
    rows = "".join(
        f"<tr><th>{escape(n)}</th><td>{number(theirs[n]):.3g}</td><td>{number(ours[n]):.3g}"
        f"</td><td>{number(ours[n]) - number(theirs[n]):+.3g}</td></tr>"
        for n in names
    )
    return (
        '<table class="branch-figures"><thead><tr><th>figure</th><th>parent</th>'
        f"<th>this run</th><th>difference</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def _over_time(theirs: Series, ours: Series, at: datetime | None) -> str:
    def apart(name: str) -> float:
        pairs = zip(theirs.get(name, ()), ours.get(name, ()), strict=False)
        return sum(abs(a[1] - b[1]) for a, b in pairs)

    names = sorted(set(theirs) & set(ours), key=lambda n: (-apart(n), n))[:SHOWN_SERIES]
    if not names:
        return ""
    svg = branches_svg({n: (theirs[n], ours[n]) for n in names}, at)
    return figure(
        svg,
        "the figures over time of the parent and of this run",
        "The figures that part the most over time: the parent dashed, this run solid; the "
        "line marks the fork point.",
    )


def _first_apart(theirs: Sequence[Event], ours: Sequence[Event], seq: int) -> Event | None:
    """This run's first event from `seq` on that is not the parent's."""
    after = (e for e in theirs if e.seq >= seq)
    for a, b in zip_longest(after, (e for e in ours if e.seq >= seq)):
        if _seen(a) != _seen(b):
            return b if b is not None else a
    return None


def _side_by_side(theirs: Sequence[Event], ours: Sequence[Event], seq: int) -> str:
    """The two branches' events from the fork point, the first that differs marked."""
    after = [e for e in theirs if e.seq >= seq][:SIDE_BY_SIDE]
    mine = [e for e in ours if e.seq >= seq][:SIDE_BY_SIDE]
    rows, marked = [], False
    for a, b in zip_longest(after, mine):
        differs = _seen(a) != _seen(b)
        mark = differs and not marked
        marked = marked or differs
        cls = ' class="first-difference-row"' if mark else (' class="differs"' if differs else "")
        rows.append(f"<tr{cls}><td>{_cell(a)}</td><td>{_cell(b)}</td></tr>")
    return (
        '<table class="branches"><thead><tr><th>parent, from the fork point</th>'
        f"<th>this run, from the fork point</th></tr></thead><tbody>{''.join(rows)}</tbody>"
        "</table>"
    )


def _seen(event: Event | None) -> Any:
    if event is None:
        return None
    return (event.t, event.kind, event.agent, without_wall(event.data))


def _cell(event: Event | None) -> str:
    if event is None:
        return "(no more events)"
    data = json.dumps(without_wall(event.data), ensure_ascii=False, default=str)
    shown = data if len(data) <= 160 else data[:157] + "..."
    who = f" {event.agent}" if event.agent else ""
    return f"<code>{escape(event.t or '')} {escape(event.kind)}{escape(who)}</code> {escape(shown)}"
