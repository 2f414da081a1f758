"""What the viewer draws over the map, measured in headless Chromium at the two window sizes
every world is checked at: no agent's marker or speech bubble covers a place's name, a fire's
name, another marker or another bubble, at any step, and no bubble runs off the map; a
320-agent commute is drawn as one counted circle a zone, split by mode, not as a blob."""

from __future__ import annotations

import io
import json
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image
from tests.conftest import NEEDS_CHROMIUM
from tests.engine.test_conformance import SCENARIOS

from simulacra.experiments import load_scenario, run
from simulacra.experiments.stats import CONFIDENCE, MARKS, METHOD
from simulacra.experiments.sweep_results import JobResult, summarize_sweep
from simulacra.report import build_outputs
from simulacra.report.sweep_page import write_sweep_report

from .browser import artifacts
from .conftest import write_town_run
from .test_every_world_browser import SIZES
from .worlds import write_commute_run, write_grid_run

pytestmark = NEEDS_CHROMIUM

# In the page: every name, count, marker and bubble drawn on the map as [kind, whose, box] with the
# box on screen (px), and the map's own box.
BOXES = """() => {
  const box = (n) => {
    const r = n.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  };
  const all = (selector) => [...document.querySelectorAll(selector)];
  const out = [];
  const names = "#map text.place-name, #map text.place-kind, #map text.place-count";
  all(names + ", #map g.extra text").forEach((t) => {
    out.push(["name", (t.closest("[data-place]") || t).dataset.place || t.textContent, box(t)]);
  });
  all("#map g.agent:not([visibility=hidden]) circle").forEach((c) => {
    out.push(["marker", c.parentNode.dataset.agent, box(c)]);
  });
  all("#map g.bubble rect").forEach((r) => {
    out.push(["bubble", r.parentNode.dataset.agent, box(r)]);
  });
  all("#map g.crowd").forEach((g) => {  // its wedges, not the line back to its zone
    const parts = [...g.querySelectorAll("[data-action]")].map(box);
    const union = [0, 1, 2, 3].map((i) => (i < 2 ? Math.min : Math.max)(...parts.map((p) => p[i])));
    out.push(["crowd", g.dataset.place, union]);
  });
  return { boxes: out, map: box(document.querySelector("#map")) };
}"""

# In the page: go to a step and return once the viewer has drawn it (the viewer's own
# hashchange listener, registered first, runs first).
GO = """(hash) => new Promise((done) => {
  if (location.hash === hash) return done();
  addEventListener("hashchange", () => done(), { once: true });
  location.hash = hash;
})"""


def _covers(a: list[float], b: list[float]) -> bool:
    """Two boxes share more than a pixel each way (touching is not covering)."""
    return min(a[2], b[2]) - max(a[0], b[0]) > 1 and min(a[3], b[3]) - max(a[1], b[1]) > 1


def _overlaps(drawn: dict[str, Any]) -> list[str]:
    """Each pair that covers one another, names apart (their own layout is another test's)."""
    boxes = drawn["boxes"]
    return [
        f"{k1} {w1} covers {k2} {w2}"
        for i, (k1, w1, b1) in enumerate(boxes)
        for k2, w2, b2 in boxes[i + 1 :]
        if not k1 == k2 == "name" and _covers(b1, b2)
    ]


def _corners(box: Any) -> list[float]:
    """A page box (x, y, width, height) as its corners, as _covers takes them."""
    return [box["x"], box["y"], box["x"] + box["width"], box["y"] + box["height"]]


def _inside(a: list[float], b: list[float]) -> bool:
    """Box `a` lies within box `b` (corners, as _covers takes them)."""
    return b[0] <= a[0] and b[1] <= a[1] and a[2] <= b[2] and a[3] <= b[3]


def _off_the_map(drawn: dict[str, Any]) -> list[str]:
    x0, y0, x1, y1 = drawn["map"]
    return [
        f"{kind} {whose}"
        for kind, whose, (a, b, c, d) in drawn["boxes"]
        if kind in ("bubble", "crowd") and (a < x0 - 1 or b < y0 - 1 or c > x1 + 1 or d > y1 + 1)
    ]


def _small(name: str, root: Path, *more: str) -> Path:
    sets = ["model.spec=scripted", "memory.embedder=hashing", f"output.root={root}", *more]
    return run(load_scenario(SCENARIOS / f"{name}.yaml", sets), progress=False).path


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """Runs with crowded places and much said: the shipped town (scripted) until its first
    conversations, the shipped hazard grid (warnings fly from step 3), the hand-made town and
    grid, the shipped 320-agent commute's first day (the logit commuters) and the shipped
    100-agent El Farol's first weeks (Arthur's predictors)."""
    root = tmp_path_factory.mktemp("layout")
    with ThreadPoolExecutor(1) as thread:  # Playwright's sync API may hold an event loop here
        made = {
            "town": thread.submit(_small, "town", root, "clock.duration=100m"),
            "hazard": thread.submit(_small, "hazard", root),
            "commute": thread.submit(_small, "commute", root, "agents.mind=logit", "clock.ticks=1"),
            "elfarol": thread.submit(_small, "elfarol", root, "clock.ticks=3"),
        }
        found = {name: future.result() for name, future in made.items()}
    found["hand-made town"] = write_town_run(root / "hand-made-town")
    found["hand-made grid"] = write_grid_run(root / "hand-made-grid")
    found["hand-made commute"] = write_commute_run(root / "hand-made-commute")
    for path in found.values():
        build_outputs(path)
    yield found


def _frames(path: Path) -> list[int]:
    events = (json.loads(line) for line in (path / "events.jsonl").open(encoding="utf-8"))
    return [e["data"]["step"] for e in events if e["kind"] == "world"]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("world", ["town", "hazard", "hand-made town", "hand-made grid"])
def test_no_marker_or_bubble_covers_a_name_a_marker_or_a_bubble(
    browser: Any, sites: dict[str, Path], world: str, size: tuple[int, int]
) -> None:
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    try:
        page.goto((sites[world] / "viewer.html").as_uri())
        covered, off, seen = [], [], Counter[str]()
        for step in _frames(sites[world]):
            page.evaluate(GO, f"#step={step}")
            drawn = page.evaluate(BOXES)
            seen.update(kind for kind, _, _ in drawn["boxes"])
            covered += [f"step {step}: {o}" for o in _overlaps(drawn)]
            off += [f"step {step}: {o}" for o in _off_the_map(drawn)]
        assert seen["marker"] and seen["bubble"] and seen["name"], seen  # something to check
        assert covered == []
        assert off == []
    finally:
        page.close()


def test_a_crowd_of_320_commuters_is_one_counted_circle_a_zone_split_by_mode(
    browser: Any, sites: dict[str, Path], tmp_path: Path
) -> None:
    path = sites["commute"]
    events = [json.loads(line) for line in (path / "events.jsonl").open(encoding="utf-8")]
    day = next(
        e["data"]["agents"] for e in events if e["kind"] == "world" and e["data"]["step"] == 1
    )
    assert len(day) == 320
    want = Counter((a["place"], a["action"] or "no action") for a in day.values())
    shots = artifacts(tmp_path)
    for width, height in SIZES:
        page = browser.new_page(viewport={"width": width, "height": height})
        try:
            page.goto((path / "viewer.html").as_uri() + "#step=1")
            assert page.locator("#map g.agent[visibility=visible]").count() == 0
            wedges = page.evaluate(
                """() => [...document.querySelectorAll('#map g.crowd [data-action]')].map((w) =>
                   [w.closest('g.crowd').dataset.place, w.dataset.action, +w.dataset.count])"""
            )
            assert Counter({(place, mode): n for place, mode, n in wedges}) == want
            numbers = page.locator("#map g.crowd text").all_text_contents()
            places = Counter(a["place"] for a in day.values())
            assert sorted(map(int, numbers)) == sorted(places.values())
            drawn = page.evaluate(BOXES)
            assert _overlaps(drawn) == []
            assert _off_the_map(drawn) == []
            legend = page.locator("#map g.crowd-legend text").all_text_contents()
            assert set(legend) == {mode for _, mode in want}
            page.screenshot(path=str(shots / f"commute-crowds-{width}.png"))
        finally:
            page.close()


def test_a_hundred_el_farol_agents_each_keep_a_marker_at_the_bar_or_at_home(
    browser: Any, sites: dict[str, Path], tmp_path: Path
) -> None:
    path = sites["elfarol"]
    events = [json.loads(line) for line in (path / "events.jsonl").open(encoding="utf-8")]
    seats = next(e for e in events if e["kind"] == "run")["data"]["world"]["seats"]
    shots = artifacts(tmp_path)
    for width, height in SIZES:
        page = browser.new_page(viewport={"width": width, "height": height})
        try:
            page.goto((path / "viewer.html").as_uri())
            for step in _frames(path)[1:]:
                page.evaluate(GO, f"#step={step}")
                day = next(
                    e["data"] for e in events if e["kind"] == "world" and e["data"]["step"] == step
                )
                assert page.locator("#map g.agent[visibility=visible]").count() == 100
                assert page.locator("#map g.crowd").count() == 0
                at_bar = sum(a["place"] == "bar" for a in day["agents"].values())
                assert at_bar == day["attendance"]
                count = page.locator('#map text.place-count[data-place="bar"]').text_content()
                assert count == f"{at_bar} of {seats}" + (", crowded" if at_bar > seats else "")
                home = page.locator('#map text.place-count[data-place="home"]').text_content()
                assert home == str(100 - at_bar)
                drawn = page.evaluate(BOXES)
                assert _overlaps(drawn) == [], step
                assert _off_the_map(drawn) == []
            page.locator('#map g.agent[data-agent="42"]').click()
            assert page.inner_text("#agent-name") == "42"
            page.screenshot(path=str(shots / f"elfarol-{width}.png"))
        finally:
            page.close()


def _changed(before: bytes, after: bytes) -> tuple[int, int, int, int] | None:
    """The box (left, top, right, bottom, px) of the pixels that differ, None when none do.
    A shade is no difference: redrawn at the town's closer opening view, an untouched marker's
    antialiased edge moved by up to 72 (of 765, summed over red, green and blue); the ring
    and label that a selection draws differ by 400 and more."""
    a, b = (
        np.asarray(Image.open(io.BytesIO(shot)).convert("RGB"), int) for shot in (before, after)
    )
    ys, xs = np.nonzero(np.abs(a - b).sum(axis=2) > 96)
    return (xs.min(), ys.min(), xs.max() + 1, ys.max() + 1) if len(xs) else None


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("world", ["town", "hazard", "hand-made commute", "elfarol"])
def test_selecting_an_agent_marks_its_marker_and_changes_nothing_else_on_the_map(
    browser: Any, sites: dict[str, Path], world: str, size: tuple[int, int]
) -> None:
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    try:
        page.goto((sites[world] / "viewer.html").as_uri() + "#step=1")
        # A marker the reader sees in the map's opening view, clicked on its circle (the
        # middle of its group may be its label, or the leader line of a marker moved off a
        # name, over the place beneath).
        shown = _corners(page.locator("#map").bounding_box())
        circles = page.locator("#map g.agent[visibility=visible] circle").all()
        marker = next(c for c in circles if _inside(_corners(c.bounding_box()), shown))
        before = page.locator("#map").screenshot()
        marker.click()
        assert page.locator("#map g.agent.selected").count() == 1
        after = page.locator("#map").screenshot()
        x0, y0, _, _ = page.locator("#map").bounding_box().values()
        # The selected marker: its ring, and where a world spells out the agent's action (the
        # town), that label beside it, which must leave every place name clear.
        ring = page.locator("#map g.agent.selected").bounding_box()
        label = page.locator("#map g.agent.selected text.doing")
        if label.count() and (label.text_content() or "").strip():
            spelled = _corners(label.bounding_box())
            names = [n.bounding_box() for n in page.locator("#map text.place-name").all()]
            assert not any(_covers(spelled, _corners(n)) for n in names if n is not None)
        changed = _changed(before, after)
        assert changed is not None, "the selection is not shown on the map"
        left, top, right, bottom = (
            ring["x"] - x0,
            ring["y"] - y0,
            ring["x"] - x0 + ring["width"],
            ring["y"] - y0 + ring["height"],
        )
        slack = 4  # the ring's stroke, half outside the circle, and anti-aliasing
        assert changed[0] >= left - slack and changed[1] >= top - slack, (changed, ring)
        assert changed[2] <= right + slack and changed[3] <= bottom + slack, (changed, ring)
    finally:
        page.close()


# In the page: each element drawn past the left or right edge of its card (`selector`),
# unless a box between them scrolls it (a table in its own scrolling box, an SVG's insides).
PAST_THE_CARD = """(selector) => {
  const out = [];
  document.querySelectorAll(selector).forEach((card) => {
    const c = card.getBoundingClientRect();
    const name = card.querySelector("h2") ? card.querySelector("h2").textContent : card.id;
    card.querySelectorAll("*").forEach((el) => {
      for (let a = el.parentElement; a && a !== card; a = a.parentElement) {
        if (getComputedStyle(a).overflowX !== "visible") return;
      }
      const r = el.getBoundingClientRect();
      if (r.width && (r.right > c.right + 1 || r.left < c.left - 1)) {
        out.push(`${name}: <${el.tagName.toLowerCase()}> ${Math.round(r.right - c.right)} px`);
      }
    });
  });
  return out;
}"""
# In the page: the timeline's legend as [name, fill, box], each segment's fill, and each agent
# name's box with the drawing's.
TIMELINE = """() => {
  const box = (n) => {
    const r = n.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  };
  const svg = document.querySelector("#timeline svg");
  if (!svg) return null;
  return {
    legend: [...svg.querySelectorAll("text.legend")].map((t) =>
      [t.textContent, t.previousElementSibling.getAttribute("fill"), box(t)]),
    fills: [...svg.querySelectorAll("rect.segment")].map((r) => r.getAttribute("fill")),
    names: [...svg.querySelectorAll("text.agent-name")].map(box),
    drawing: box(svg),
  };
}"""


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
# The 320-agent commute's report is the hand-made commute's with longer tables (10 s more).
@pytest.mark.parametrize("world", ["town", "hazard", "elfarol", "hand-made commute"])
def test_each_report_fits_its_cards_and_its_timeline_gives_each_place_a_colour(
    browser: Any, sites: dict[str, Path], world: str, size: tuple[int, int], tmp_path: Path
) -> None:
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    try:
        page.goto((sites[world] / "report.html").as_uri())
        assert page.evaluate(PAST_THE_CARD, "main section") == []
        drawn = page.evaluate(TIMELINE)
        if drawn is not None:
            names = [name for name, _, _ in drawn["legend"]]
            fills = [fill for _, fill, _ in drawn["legend"]]
            assert len(set(fills)) == len(fills) == len(set(names)), drawn["legend"]
            assert set(drawn["fills"]) <= set(fills)
            boxes = [b for _, _, b in drawn["legend"]]
            assert not [
                (a, b) for i, a in enumerate(boxes) for b in boxes[i + 1 :] if _covers(a, b)
            ]
            left, _, right, _ = drawn["drawing"]
            assert all(left - 1 <= b[0] and b[2] <= right + 1 for b in drawn["names"])
        page.screenshot(
            path=str(artifacts(tmp_path) / f"{world}-report-{size[0]}.png"), full_page=True
        )
    finally:
        page.close()


def _sweep_page(root: Path) -> Path:
    """A sweep's page from hand-made replicates (three per variant, long variant names, a
    share and a count whose replicates all agree), summarized by the sweep's own code."""
    variants = [f"world.threshold={t},world.memory_weeks={w}" for t in (0.4, 0.6) for w in (3, 8)]
    names = ["mean_attendance", "attendance_std", "crowded_share", "fallback_rate", "weeks"]
    results = [
        JobResult(
            variant,
            "scripted",
            r,
            1994 + r,
            f"elfarol-{variant.replace(',', '_')}-r{r}-run",
            {"mean_attendance": 50.0 + i + r, "attendance_std": 9.0 - r, "crowded_share": 0.5}
            | {"fallback_rate": 0.0, "weeks": 4.0},
        )
        for i, variant in enumerate(variants)
        for r in (1, 2, 3)
    ]
    summary = {
        "scenario": "elfarol", "world": "elfarol", "agents": 100, "ticks": 30, "wall_s": 80.0,
        "confidence": CONFIDENCE, "interval_method": METHOD, "marks": MARKS,
        "figures": names, "columns": [["attendance", names[:3]], ["model", names[3:]]],
        "minds": dict.fromkeys(variants, "elfarol"), "baselines": [], "reference": None,
        "rows": summarize_sweep(results, {"crowded_share": 1.0, "fallback_rate": 1.0}),
        "comparison": [], "runs": [vars(r) for r in results],
    }  # fmt: skip
    root.mkdir(parents=True, exist_ok=True)
    return write_sweep_report(root, summary)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_sweep_page_fits_its_cards_says_its_method_and_plots_each_figure(
    browser: Any, tmp_path: Path, size: tuple[int, int]
) -> None:
    path = _sweep_page(tmp_path / "sweep")
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    try:
        page.goto(path.as_uri())
        assert page.evaluate(PAST_THE_CARD, "main section") == []
        if size[0] >= 1440:  # wide, the tables fit whole: nothing left to scroll to
            widths = page.evaluate(
                "() => [...document.querySelectorAll('div.scroll')]"
                ".map((d) => [d.scrollWidth, d.clientWidth])"
            )
            assert widths and all(wide <= seen + 1 for wide, seen in widths), widths
        text = page.inner_text("section:has(h2:text('Results'))")
        assert METHOD in text and "Student's t" in text
        # A share from three agreeing replicates is no certainty: a width, marked *; nor is a
        # count's zero-width t interval, marked \u2020; the method says what each mark means.
        words = " ".join(text.split())
        assert "0.50 [0.13, 0.87]*" in words and "4.00 [4.00, 4.00]\u2020" in words
        assert "50.00 [50.00, 50.00]" not in words  # a spread of values is no mark
        assert "(marked *)" in METHOD and "(marked \u2020)" in METHOD
        assert page.locator("section:has(h2:text('Results')) figure.plot img").count() == 1
        page.screenshot(path=str(artifacts(tmp_path) / f"sweep-{size[0]}.png"), full_page=True)
    finally:
        page.close()
