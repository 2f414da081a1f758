"""The console's map of the tile town (`simulacra run --console`), measured as a person steps
the run: one console run with 5 agents and one with 25 (the shipped town, scripted, to its
first conversations), each followed by two pages at once, 1440 x 900 and 800 x 1000. After
each tick: every marker of an agent at a place inside its building, no speech bubble over a
place's name or another bubble; and an agent that walks far in a tick is seen on its way,
on its walked tiles, before it lands (the live page draws the next tick as a step played)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.conftest import NEEDS_CHROMIUM
from tests.console.driver import ConsoleRun
from tests.engine.test_conformance import SCENARIOS

from simulacra.experiments import load_scenario

from .browser import artifacts
from .test_every_world_browser import SIZES
from .test_town_tiles_browser import DRAWN, misdrawn, settings, world_frames

pytestmark = NEEDS_CHROMIUM
# The clock's start and its ticks, by the number of agents, to the town's first words: with 5
# Marta tells Theo at the cafe at 08:30, the tenth tick from 07:00; with 25, begun as her news
# is planted at 07:30, she tells Daniel at home in the first tick (three ticks, for walks).
FIRST_WORDS = {5: ("07:00", 10), 25: ("07:30", 3)}
WAIT_MS = 60_000

# Every point an agent's marker is drawn at while it walks, with the step the page shows.
WATCH = """() => {
  window.walked = [];
  const clock = document.getElementById("clock");
  const shown = () => Number((/step (\\d+)/.exec(clock.textContent) || [])[1]);
  new MutationObserver((changes) => changes.forEach(({ target: g }) => {
    const m = /translate\\(([-\\d.e]+) ([-\\d.e]+)\\)/.exec(g.getAttribute("transform") || "");
    if (g.dataset.walking !== "1" || !m) return;
    window.walked.push([g.dataset.agent, +m[1], +m[2], shown()]);
  })).observe(document.getElementById("map"), { subtree: true, attributeFilter: ["transform"] });
}"""

# The page shows `step` and has landed every walk.
LANDED = """(step) => {
  const clock = document.getElementById("clock").textContent;
  return new RegExp(`^step ${step}\\\\b`).test(clock)
    && !document.querySelector('#map g.agent[data-walking="1"]');
}"""


@pytest.mark.parametrize("count", [5, 25])
def test_the_console_map_keeps_markers_in_buildings_bubbles_clear_and_shows_walks(
    browser: Any, tmp_path: Path, count: int
) -> None:
    start, ticks = FIRST_WORDS[count]
    scenario = load_scenario(SCENARIOS / "town.yaml", settings(tmp_path, count, start, ticks))
    console = ConsoleRun(scenario)
    pages = {
        size: browser.new_page(viewport={"width": size[0], "height": size[1]}) for size in SIZES
    }
    wrong: list[str] = []
    said, seen_walking, long_walks = 0, 0, 0
    try:
        for page in pages.values():
            page.goto(console.served.url)
            page.select_option("#speed", "1")  # a step a second: a walk is drawn over 900 ms
            page.wait_for_function(LANDED, arg=0, timeout=WAIT_MS)
            page.evaluate(WATCH)
        (path,) = [p for p in tmp_path.iterdir() if (p / "run.json").exists()]
        for step in range(1, ticks + 1):  # the town's first words are said by its last tick
            console.act(action="step")
            if step < ticks:
                console.paused_at(step + 1)
            else:
                console.finish()
            frame = next(f for f in world_frames(path) if f["step"] == step)
            for size, page in pages.items():
                page.wait_for_function(LANDED, arg=step, timeout=WAIT_MS)
                drawn = page.evaluate(DRAWN)
                found = misdrawn(drawn, frame)
                wrong += found["outside"] + found["covered"]
                said += len(drawn["bubbles"])
                if drawn["bubbles"]:
                    shot = artifacts(tmp_path) / f"console-town-{count}-{size[0]}-{step}.png"
                    page.screenshot(path=str(shot))
                walked = page.evaluate("() => window.walked")
                for walk in frame.get("walks", []):
                    if len(walk["tiles"]) <= 4:
                        continue
                    long_walks += 1
                    tiles = [(x + 0.5, y + 0.5) for x, y in walk["tiles"]]
                    points = {(x, y) for a, x, y, at in walked if a == walk["agent"] and at == step}
                    on_way = [
                        p
                        for p in points
                        if min(abs(p[0] - x) + abs(p[1] - y) for x, y in tiles) <= 1
                    ]
                    # Seen at more than one point on its way, most on its walked tiles.
                    if len(points) >= 2 and len(on_way) * 2 >= len(points):
                        seen_walking += 1
                    else:
                        wrong.append(f"step {step}, {size}: {walk['agent']} not seen walking")
    finally:
        for page in pages.values():
            page.close()
        console.close()
    assert said > 0 and long_walks > 0  # something was said and walked to check
    assert wrong == []
    assert seen_walking == long_walks
