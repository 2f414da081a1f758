"""The viewer at every map size, in headless Chromium: each place's label fits inside the
place (the shipped town's long names in small houses, a grid's cells, the hand-made town),
and the world's state reads as a list of names and values, not as JSON."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import NEEDS_CHROMIUM

from simulacra.experiments import load_scenario, run
from simulacra.report import build_outputs, serve_run

from .browser import Page
from .conftest import write_town_run
from .worlds import write_grid_run

pytestmark = NEEDS_CHROMIUM
TOWN = Path(__file__).parents[2] / "scenarios" / "town.yaml"

# In the page: for each place drawn with its label inside, how far the label sticks out of
# the place's rectangle (SVG units; 0 when it fits), its font size and its text.
OVERFLOW = """() => [...document.querySelectorAll('#map g.place')].flatMap((g) => {
  const rect = g.querySelector('rect').getBBox();
  return [...g.querySelectorAll('text')].map((t) => {
    const b = t.getBBox();
    const out = Math.max(0, rect.x - b.x, rect.y - b.y,
      b.x + b.width - (rect.x + rect.width), b.y + b.height - (rect.y + rect.height));
    return [g.dataset.place, t.textContent, out, parseFloat(t.getAttribute('font-size'))];
  });
})"""
UNIT = "() => Number(document.querySelector('#map').dataset.unit)"


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The shipped town for half an hour (scripted), the hand-made town and a grid."""
    root = tmp_path_factory.mktemp("maps")
    scenario = load_scenario(
        TOWN,
        [
            "model.spec=scripted",
            "memory.embedder=hashing",
            "clock.duration=20m",
            "world.attendance=null",
            "interventions=[]",
            "interviews=null",
            f"output.root={root}",
        ],
    )
    # In a thread of its own: Playwright's sync API may already run an event loop here.
    with ThreadPoolExecutor(1) as thread:
        shipped = thread.submit(run, scenario, progress=False).result().path
    runs = {
        "shipped town": shipped,
        "hand-made town": write_town_run(root / "town"),
        "grid": write_grid_run(root / "grid"),
    }
    servers, found = [], {}
    for name, path in runs.items():
        build_outputs(path)
        server, url = serve_run(path)
        servers.append(server)
        found[name] = url
    yield found
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("world", ["shipped town", "hand-made town", "grid"])
@pytest.mark.parametrize("viewport", [(1400, 860), (800, 600)])
def test_every_place_label_fits_inside_its_place(
    tab: Page, sites: dict[str, str], world: str, viewport: tuple[int, int]
) -> None:
    tab.page.set_viewport_size({"width": viewport[0], "height": viewport[1]})
    page = tab.open(sites[world])
    labels: list[Any] = page.evaluate(OVERFLOW)
    unit = page.evaluate(UNIT)
    assert labels, "no label drawn inside a place"
    outside = [(place, text, round(out, 3)) for place, text, out, _ in labels if out > 1e-6]
    assert outside == []
    tiny = [(place, text) for place, text, _, size in labels if size < unit * 0.8 - 1e-6]
    assert tiny == []  # the kind may be 0.8 of a name's size; a name is at least one unit
    assert tab.errors == []


def test_the_shipped_towns_long_names_stay_whole_or_say_they_are_cut(
    tab: Page, sites: dict[str, str]
) -> None:
    page = tab.open(sites["shipped town"])
    names = {  # each line is a tspan
        g.get_attribute("data-place"): " ".join(
            g.locator("text.place-name tspan").all_text_contents()
        )
        for g in page.locator("#map g.place").all()
    }
    studio = names["Kiln and Canvas Studio"]
    assert studio == "Kiln and Canvas Studio" or (
        studio.endswith("\u2026") and "Kiln and Canvas Studio".startswith(studio[:-1])
    )
    assert names["Hobbs Cafe"] == "Hobbs Cafe"
    title = page.locator('#map g.place[data-place="Kiln and Canvas Studio"] title')
    assert title.text_content() == "Kiln and Canvas Studio (studio)"


def test_the_world_state_is_a_readable_list_not_json(tab: Page, sites: dict[str, str]) -> None:
    page = tab.open(sites["shipped town"] + "#step=2")
    occupancy = page.locator('#now-list li.state[data-key="occupancy"]')
    assert occupancy.count() == 1
    text = occupancy.inner_text()
    assert text.startswith("occupancy")
    assert not any(mark in text for mark in '{}"[]')
    rows = occupancy.locator("ul.state-list > li").all_inner_texts()
    assert rows and all(":" in row for row in rows)
    assert tab.errors == []
