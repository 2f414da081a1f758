"""The town's tile map in the viewer, measured in headless Chromium at both window sizes with 5
and 25 agents (the shipped town, scripted, to its first conversations): every marker of an
agent at a place lies inside that place's building, no speech bubble covers a place's name or
another bubble, no agent's label (initials, emoji, the selected agent's action) covers another
agent's label or a place's name, the map opens with its text large enough to read, and an
agent is seen walking its logged tiles from one step to the next as the replay plays."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import NEEDS_CHROMIUM
from tests.engine.test_conformance import SCENARIOS

from simulacra.experiments import load_scenario, run
from simulacra.report import build_outputs

from .browser import artifacts
from .test_every_world_browser import SIZES
from .test_viewer_layout import GO, _covers

pytestmark = NEEDS_CHROMIUM

# In the page: each shown marker's centre and its agent's place, each place's box, each name's
# and bubble's box, all on screen (px); the markers a bubble's tail keeps from a click.
DRAWN = """() => {
  const box = (n) => {
    const r = n.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  };
  const all = (selector) => [...document.querySelectorAll(selector)];
  const places = {};
  all("#map g.place").forEach((g) => { places[g.dataset.place] = box(g.querySelector("rect")); });
  const markers = all("#map g.agent:not([visibility=hidden]) circle").map((c) => {
    const [l, t, r, b] = box(c);
    return [c.parentNode.dataset.agent, (l + r) / 2, (t + b) / 2];
  });
  const names = all("#map text.place-name, #map text.place-kind").map(box);
  // Each agent's shown labels: its initials, its emoji, the selected agent's action.
  const labels = all("#map g.agent:not([visibility=hidden]) text")
    .filter((t) => t.textContent.trim() && t.getAttribute("visibility") !== "hidden")
    .map((t) => [t.parentNode.dataset.agent, t.getAttribute("class") || "initials", box(t)]);
  const bubbles = all("#map g.bubble rect").map((r) => [r.parentNode.dataset.agent, box(r)]);
  // Markers whose centre a speech bubble's tail takes the click from.
  const tailed = all("#map g.agent:not([visibility=hidden]) circle").filter((c) => {
    const [l, t, r, b] = box(c), hit = document.elementFromPoint((l + r) / 2, (t + b) / 2);
    return hit && hit.closest(".tails");
  }).map((c) => c.parentNode.dataset.agent);
  return { places, markers, names, labels, bubbles, tailed };
}"""

# In the page: a marker's point on the map (its translate) by agent, and whether it walks.
POINTS = """() => Object.fromEntries([...document.querySelectorAll("#map g.agent")].map((g) => {
  const m = /translate\\(([-\\d.e]+) ([-\\d.e]+)\\)/.exec(g.getAttribute("transform") || "");
  return [g.dataset.agent, m ? [Number(m[1]), Number(m[2]), g.dataset.walking === "1"] : null];
}))"""


# Walking and off its first tile: the flag is set as the walk starts, before the marker moves
# (on a loaded machine the test read it there once).
WALKING = """([agent, x, y]) => {
  const g = document.querySelector(`#map g.agent[data-agent="${agent}"]`);
  const m = /translate\\(([-\\d.e]+) ([-\\d.e]+)\\)/.exec(g ? g.getAttribute("transform") : "");
  return g && g.dataset.walking === "1" && m && (Number(m[1]) !== x || Number(m[2]) !== y);
}"""


def settings(root: Path, count: int, start: str = "07:00", ticks: int = 10) -> list[str]:
    """The shipped town, scripted, with `count` agents, from `start` for `ticks` ticks (by
    default to its first conversations: with 5 agents Marta tells Theo at the cafe at 08:30,
    the tenth tick)."""
    return [
        "model.spec=scripted",
        "memory.embedder=hashing",
        f"output.root={root}",
        f"clock.start=2024-02-14T{start}",
        f"clock.duration={ticks * 10}m",
        f"agents.count={count}",
    ]


def _town(root: Path, count: int) -> Path:
    scenario = load_scenario(SCENARIOS / "town.yaml", settings(root, count))
    return run(scenario, progress=False).path


@pytest.fixture(scope="module")
def towns(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[int, Path]]:
    root = tmp_path_factory.mktemp("tiles")
    with ThreadPoolExecutor(1) as thread:  # Playwright's sync API may hold an event loop here
        found = {n: thread.submit(_town, root / str(n), n).result() for n in (5, 25)}
    for path in found.values():
        build_outputs(path)
    yield found


LEGIBLE_PX = 9  # the least height on screen of an agent's initials or a place's name


def misdrawn(drawn: dict[str, Any], frame: dict[str, Any]) -> dict[str, list[str]]:
    """What `drawn` (DRAWN's answer) shows wrong of `frame`: markers of agents at a place
    outside its building; bubbles over a place's name or another bubble; a tail that takes
    the click meant for its speaker's marker; an agent's label over another's or a name."""
    step, outside, covered = frame["step"], [], []
    for agent, x, y in drawn["markers"]:
        place = frame["agents"][agent]["place"]
        if place is None:
            continue  # on the way between places
        left, top, right, bottom = drawn["places"][place]
        if not (left <= x <= right and top <= y <= bottom):
            outside.append(f"step {step}: {agent} outside {place}")
    boxes = [b for _, b in drawn["bubbles"]]
    for i, bubble in enumerate(boxes):
        covered += [
            f"step {step}: a bubble covers a name" for n in drawn["names"] if _covers(bubble, n)
        ]
        covered += [f"step {step}: two bubbles" for o in boxes[i + 1 :] if _covers(bubble, o)]
    covered += [f"step {step}: a tail over {agent}'s marker" for agent in drawn["tailed"]]
    labels = drawn["labels"]
    for i, (agent, kind, label) in enumerate(labels):
        covered += [
            f"step {step}: {agent}'s {kind} covers {other}'s {what}"
            for other, what, box in labels[i + 1 :]
            if other != agent and _covers(label, box)
        ]
        covered += [
            f"step {step}: {agent}'s {kind} covers a name"
            for n in drawn["names"]
            if _covers(label, n)
        ]
    return {"outside": outside, "covered": covered}


def too_small(drawn: dict[str, Any]) -> list[str]:
    """Initials and names drawn less than LEGIBLE_PX high."""
    heights = [("name", n[3] - n[1]) for n in drawn["names"]]
    heights += [(a, b[3] - b[1]) for a, kind, b in drawn["labels"] if kind == "initials"]
    return [f"{what} {height:.1f} px" for what, height in heights if height < LEGIBLE_PX]


def world_frames(path: Path) -> list[dict[str, Any]]:
    events = (json.loads(line) for line in (path / "events.jsonl").open(encoding="utf-8"))
    return [e["data"] for e in events if e["kind"] == "world"]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("count", [5, 25])
def test_markers_stay_in_their_buildings_and_bubbles_cover_no_name_or_bubble(
    browser: Any, towns: dict[int, Path], count: int, size: tuple[int, int], tmp_path: Path
) -> None:
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    try:
        # Marta selected, so that her action is spelled out beside her marker.
        page.goto((towns[count] / "viewer.html").as_uri() + "#step=0&agent=marta_okafor")
        page.wait_for_timeout(30)
        assert too_small(page.evaluate(DRAWN)) == []
        outside, covered, said = [], [], 0
        for frame in world_frames(towns[count]):
            step = frame["step"]
            page.evaluate(GO, f"#step={step}&agent=marta_okafor")
            page.wait_for_timeout(30)
            drawn = page.evaluate(DRAWN)
            wrong = misdrawn(drawn, frame)
            outside += wrong["outside"]
            covered += wrong["covered"]
            said += len(drawn["bubbles"])
            if drawn["bubbles"] and step % 5 == 0:
                page.screenshot(
                    path=str(artifacts(tmp_path) / f"town-{count}-{size[0]}-{step}.png")
                )
        assert said > 0  # something was said to check
        assert outside == []
        assert covered == []
    finally:
        page.close()


def test_an_agent_is_seen_walking_its_tiles_between_two_steps(
    browser: Any, towns: dict[int, Path]
) -> None:
    frames = world_frames(towns[5])
    index = next(
        i for i, f in enumerate(frames) if any(len(w["tiles"]) > 4 for w in f.get("walks", []))
    )
    walk = next(w for w in frames[index]["walks"] if len(w["tiles"]) > 4)
    agent, tiles = walk["agent"], [(x + 0.5, y + 0.5) for x, y in walk["tiles"]]
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    try:
        page.goto((towns[5] / "viewer.html").as_uri())
        page.evaluate(GO, f"#step={frames[index - 1]['step']}")
        before = page.evaluate(POINTS)[agent]
        page.select_option("#speed", "1")  # a step a second; a walk is drawn over 900 ms
        page.click("#play")
        page.wait_for_function(WALKING, arg=[agent, before[0], before[1]])
        x, y, walking = page.evaluate(POINTS)[agent]
        page.click("#pause")
        page.wait_for_timeout(1200)
        end = page.evaluate(POINTS)[agent]
    finally:
        page.close()
    assert walking and not end[2]
    # On its way: on the line through its walked tiles, neither where it was nor where it ends.
    assert min(abs(x - tx) + abs(y - ty) for tx, ty in tiles) <= 1.0
    assert (x, y) != (before[0], before[1]) and (x, y) != (end[0], end[1])
    assert re.match(r"^\w+$", agent)


def test_the_agent_panel_shows_the_places_it_knows(browser: Any, towns: dict[int, Path]) -> None:
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    try:
        page.goto((towns[5] / "viewer.html").as_uri() + "#step=0&agent=marta_okafor")
        page.wait_for_selector("#panel [data-section=known]")
        known = page.inner_text("#panel [data-section=known]")
    finally:
        page.close()
    # Her home, whole, and the cafe her persona says she runs.
    assert "Alder Cottage" in known and "bedroom: bed, wardrobe" in known
    assert "Hobbs Cafe" in known and "Riverside Park" not in known


def test_following_a_speaker_keeps_every_bubble_inside_the_map_s_window(
    browser: Any, towns: dict[int, Path]
) -> None:
    # The first step something is said, its first speaker followed: the map closes in on them,
    # and the bubbles are laid out in that closer view, none cut at its edge.
    events = [json.loads(line) for line in (towns[25] / "events.jsonl").open(encoding="utf-8")]
    said = next(i for i, e in enumerate(events) if e["kind"] == "message")
    speaker = events[said]["agent"]
    step = next(e["data"]["step"] for e in events[said:] if e["kind"] == "world")  # its frame
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    try:
        page.goto((towns[25] / "viewer.html").as_uri() + f"#step={step}&agent={speaker}")
        page.check("#follow")
        page.click(f"#map g.agent[data-agent={speaker}] circle")
        page.wait_for_timeout(100)
        drawn = page.evaluate(DRAWN)
        window = page.evaluate(
            "() => { const r = document.getElementById('map').getBoundingClientRect();"
            " return [r.left, r.top, r.right, r.bottom]; }"
        )
    finally:
        page.close()
    assert drawn["bubbles"]
    left, top, right, bottom = window
    cut = [
        b for _, b in drawn["bubbles"] if b[0] < left or b[1] < top or b[2] > right or b[3] > bottom
    ]
    assert cut == []


# In the page: the map tools' box, and each place name's box as the map's window shows it (cut
# to the window: the map hides what lies outside its box), on screen (px).
TOOLS_AND_NAMES = """() => {
  const box = (n) => {
    const r = n.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  };
  const map = box(document.getElementById("map"));
  const cut = (b) => [Math.max(b[0], map[0]), Math.max(b[1], map[1]),
    Math.min(b[2], map[2]), Math.min(b[3], map[3])];
  const names = [...document.querySelectorAll("#map text.place-name")]
    .map((t) => [t.textContent, cut(box(t))]).filter(([, b]) => b[0] < b[2] && b[1] < b[3]);
  return { tools: box(document.getElementById("map-tools")), names, map: map[1] };
}"""

# In the page: the top of Alder Cottage's name and of the map's window, on screen (px).
ALDER_TOP = """() => ({
  name: [...document.querySelectorAll("#map text.place-name")]
    .find((t) => t.textContent === "Alder Cottage").getBoundingClientRect().top,
  map: document.getElementById("map").getBoundingClientRect().top,
})"""

# In the page: what the map's window shows (what may be wider than the view, its viewBox) and
# the town's tiles, each [left, top, right, bottom] in the map's units; the map's box (px);
# an agent's marker centre in the map's units, where one is named.
SHOWN = """(agent) => {
  const map = document.getElementById("map"), r = map.getBoundingClientRect();
  const inverse = map.getScreenCTM().inverse(), at = (x, y) => {
    const p = map.createSVGPoint(); p.x = x; p.y = y; return p.matrixTransform(inverse);
  };
  const [a, b] = [at(r.left, r.top), at(r.right, r.bottom)];
  const t = map.querySelector("image.tiles").getBBox();
  const g = agent && document.querySelector(`#map g.agent[data-agent="${agent}"]`);
  const m = g && /translate\\(([-\\d.e]+) ([-\\d.e]+)\\)/.exec(g.getAttribute("transform"));
  return { view: map.getAttribute("viewBox"), seen: [a.x, a.y, b.x, b.y],
    town: [t.x, t.y, t.x + t.width, t.y + t.height], box: [r.width, r.height],
    agent: m ? [Number(m[1]), Number(m[2])] : null };
}"""
# In the page: whether the map's box is no longer `box` (SHOWN's), and two frames waited.
RESIZED = """(box) => {
  const r = document.getElementById("map").getBoundingClientRect();
  return r.width !== box[0] || r.height !== box[1];
}"""
TWO_FRAMES = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"


def blank_beside(shown: dict[str, Any]) -> list[str]:
    """Window shown blank beyond the town's tiles (SHOWN's answer): on an axis where the town
    is longer than the window, none; where it is shorter, the town centred."""
    seen, town, blank = shown["seen"], shown["town"], []
    for axis, (low, high) in enumerate((("left", "right"), ("top", "bottom"))):
        before, after = town[axis] - seen[axis], seen[axis + 2] - town[axis + 2]
        if seen[axis + 2] - seen[axis] <= town[axis + 2] - town[axis]:
            blank += [f"{before:.1f} tiles blank {low}"] if before > 0.05 else []
            blank += [f"{after:.1f} tiles blank {high}"] if after > 0.05 else []
        elif abs(before - after) > 0.05:
            blank.append(f"the town off centre: {before:.1f} {low}, {after:.1f} {high}")
    return blank


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_map_s_tools_cover_no_place_name(
    browser: Any, towns: dict[int, Path], size: tuple[int, int]
) -> None:
    # Laid over the map's top left corner, the tools hid the names that came under them (at
    # the opening view of the docs' picture, Alder Cottage's); in a strip of their own above
    # the map they cover none: not at the opening view, nor with Alder Cottage's name dragged
    # to the map's top edge, nor at "fit".
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    try:
        page.goto((towns[5] / "viewer.html").as_uri() + "#step=0")
        views = [page.evaluate(TOOLS_AND_NAMES)]
        top = page.evaluate(ALDER_TOP)
        x, y = page.evaluate(
            "() => { const r = document.getElementById('map').getBoundingClientRect();"
            " return [r.left + r.width / 2, r.top + r.height / 2]; }"
        )
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x, y + top["map"] + 12 - top["name"], steps=4)
        page.mouse.up()
        views.append(page.evaluate(TOOLS_AND_NAMES))
        page.click("#map-tools button[title='the whole town']")
        views.append(page.evaluate(TOOLS_AND_NAMES))
    finally:
        page.close()
    assert all(view["names"] for view in views)
    dragged = dict(views[1]["names"])["Alder Cottage"]
    assert abs(dragged[1] - (views[1]["map"] + 12)) < 2  # dragged where it was meant to go
    covered = [n for view in views for n, b in view["names"] if _covers(view["tools"], b)]
    assert covered == []


def test_a_resized_window_opens_the_map_again_unless_the_reader_moved_it(
    browser: Any, towns: dict[int, Path]
) -> None:
    url = (towns[5] / "viewer.html").as_uri() + "#step=0"
    (wide, tall) = SIZES
    changed = "(v) => document.getElementById('map').getAttribute('viewBox') !== v"
    page = browser.new_page(viewport={"width": tall[0], "height": tall[1]})
    try:
        page.goto(url)
        fresh = page.evaluate(SHOWN)  # the view a tall window opens with
    finally:
        page.close()
    page = browser.new_page(viewport={"width": wide[0], "height": wide[1]})
    try:
        page.goto(url)
        opened = page.evaluate(SHOWN)
        # Opened wide, then made tall: the view is the one a tall window opens with.
        page.set_viewport_size({"width": tall[0], "height": tall[1]})
        page.wait_for_function(changed, arg=opened["view"], timeout=5000)
        resized = page.evaluate(SHOWN)
        # Zoomed in by the reader, then made wide again: the reader's view stays.
        page.click("#map-tools button[title='zoom in']")
        zoomed = page.evaluate(SHOWN)
        page.set_viewport_size({"width": wide[0], "height": wide[1]})
        page.wait_for_timeout(200)
        kept = page.evaluate(SHOWN)
    finally:
        page.close()
    assert opened["view"] != fresh["view"]  # the two sizes open differently
    assert blank_beside(fresh) == [] and blank_beside(opened) == []
    assert resized["view"] == fresh["view"]
    assert kept["view"] == zoomed["view"]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_following_an_agent_at_the_town_s_edge_shows_no_blank_beside_the_town(
    browser: Any, towns: dict[int, Path], size: tuple[int, int]
) -> None:
    # Marta wakes in Alder Cottage, at the town's top left corner: followed, the view closed
    # in centred on her, and half the window was blank above and left of the town (the
    # console's picture in docs/console.md). It keeps within the tiles as the opening view
    # does, on her while she is away from the edge; and again when the window is resized,
    # after the reader has zoomed in (a view the reader moved is not opened again, but a
    # followed one is made again for the new box).
    agent = "marta_okafor"
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    try:
        page.goto((towns[5] / "viewer.html").as_uri() + f"#step=0&agent={agent}")
        view = "() => document.getElementById('map').getAttribute('viewBox')"
        changed = f"(v) => ({view})() !== v"
        page.check("#follow")
        opened = page.evaluate(view)
        page.click(f"#map g.agent[data-agent={agent}] circle")
        page.wait_for_function(changed, arg=opened, timeout=5000)  # closed in on her
        followed = page.evaluate(SHOWN, agent)
        page.click("#map-tools button[title='zoom in']")  # the reader's view, still following
        wide, tall = SIZES
        other = tall if size == wide else wide
        page.set_viewport_size({"width": other[0], "height": other[1]})
        page.wait_for_function(RESIZED, arg=followed["box"], timeout=5000)
        page.evaluate(TWO_FRAMES)  # the resize observed, the frame drawn again
        resized = page.evaluate(SHOWN, agent)
    finally:
        page.close()
    for shown in (followed, resized):
        x, y = shown["agent"]
        left, top, right, bottom = shown["seen"]
        assert left < x < right and top < y < bottom  # she is in view
        assert right - left < (shown["town"][2] - shown["town"][0]) / 2  # closed in
    assert blank_beside(followed) == []
    assert blank_beside(resized) == []
