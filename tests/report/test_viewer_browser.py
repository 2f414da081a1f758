"""The viewer and the report in a real headless Chromium (Debian's), driven by Playwright."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import NEEDS_CHROMIUM

from simulacra.report import serve_run

from .conftest import IMG_PAYLOAD, SCRIPT_PAYLOAD

pytestmark = NEEDS_CHROMIUM


@pytest.fixture(scope="module")
def site(built_run: Path) -> Iterator[str]:
    server, url = serve_run(built_run)
    yield url.rsplit("/", 1)[0]
    server.shutdown()
    server.server_close()


def agent_at(page: Any, agent: str) -> tuple[str, str]:
    dot = page.locator(f'#map g.agent[data-agent="{agent}"]')
    return dot.get_attribute("data-x"), dot.get_attribute("data-y")


def test_the_viewer_loads_with_no_error_and_fetches_nothing_else(tab, site):
    page = tab.open(f"{site}/viewer.html")
    assert page.locator("#map g.place").count() == 7
    assert page.locator("#map g.agent").count() == 3
    assert "step 0" in page.inner_text("#clock")
    assert tab.errors == []
    assert all(url.startswith(site) for url in tab.requests), tab.requests


def test_moving_the_scrubber_moves_the_agents(tab, site):
    page = tab.open(f"{site}/viewer.html#step=0")
    before = agent_at(page, "bo")
    page.focus("#scrubber")
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    assert "step 5" in page.inner_text("#clock")
    assert agent_at(page, "bo") != before  # from the Diaz house to the college
    assert "attending a lecture" in page.inner_text("#now-list")
    assert page.evaluate("location.hash") == "#step=5"
    assert tab.errors == []


def test_play_advances_time_and_pause_stops_it(tab, site):
    page = tab.open(f"{site}/viewer.html#step=0")
    page.select_option("#speed", "8")
    page.click("#play")
    # Polled from Python: the page's CSP forbids the eval that wait_for_function(str) needs.
    for _ in range(100):
        if int(page.input_value("#scrubber")) >= 3:
            break
        page.wait_for_timeout(50)
    page.click("#pause")
    assert int(page.input_value("#scrubber")) >= 3
    stopped = page.input_value("#scrubber")
    page.wait_for_timeout(400)
    assert page.input_value("#scrubber") == stopped
    assert tab.errors == []


def test_clicking_an_agent_opens_its_memory_retrieval_scores_and_evidence(tab, site):
    page = tab.open(f"{site}/viewer.html#step=11")
    page.click('#map g.agent[data-agent="ada"]')
    panel = page.locator("#panel")
    assert panel.locator("#agent-name").inner_text() == "Ada Lin"
    assert panel.locator(".memory").count() == 5
    scores = panel.locator(".retrieval td.score").all_inner_texts()
    assert scores[:4] == ["0.900", "1.000", "0.800", "2.700"]
    insight = panel.locator('.insight[data-memory="ada-r2"]')
    assert "Ada is planning a party" in insight.inner_text()
    assert "(no such record in the log)" in insight.inner_text()  # ghost-9
    insight.locator('li[data-memory="ada-r1"] > details > summary').click()
    assert insight.locator('li[data-memory="ada-2"]').is_visible()
    assert "I want to hold a party at 17:00" in insight.inner_text()
    assert page.evaluate("location.hash") == "#step=11&agent=ada"
    assert tab.errors == []


def test_the_panel_shows_only_what_the_agent_knew_at_that_time(tab, site):
    page = tab.open(f"{site}/viewer.html#step=2&agent=ada")
    panel = page.locator("#panel")
    assert panel.locator(".memory").count() == 2
    assert "No reflection yet." in panel.inner_text()
    assert panel.locator(".plan tr.current").inner_text().endswith("run the cafe")


def test_markup_in_agent_text_is_shown_as_text_and_never_runs(tab, site):
    page = tab.open(f"{site}/viewer.html#step=10&agent=cy")
    text = page.inner_text("body")
    assert SCRIPT_PAYLOAD in text  # the persona's traits, as text
    assert IMG_PAYLOAD in text  # the message Cy says at step 10, as text
    assert page.evaluate("window.__pwned") is None
    assert page.locator("img").count() == 0
    assert page.locator("script").count() == 2
    assert tab.errors == []


def test_the_report_loads_with_no_error_and_links_into_the_viewer(tab, site):
    page = tab.open(f"{site}/report.html")
    assert tab.errors == []
    assert page.locator("svg").count() >= 3
    page.click('#agents a:text("Bo Diaz")')
    page.wait_for_selector("#agent-name")
    assert page.inner_text("#agent-name") == "Bo Diaz"
    assert tab.errors == []


@pytest.fixture(scope="module")
def world_sites(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The hand-made grid and commute runs, built and served."""
    from simulacra.report import build_outputs

    from .worlds import write_commute_run, write_grid_run

    servers, sites = [], {}
    for name, write in (("grid", write_grid_run), ("commute", write_commute_run)):
        run = write(tmp_path_factory.mktemp(name) / "run")
        build_outputs(run)
        server, url = serve_run(run)
        servers.append(server)
        sites[name] = url.rsplit("/", 1)[0]
    yield sites
    for server in servers:
        server.shutdown()
        server.server_close()


def test_the_grid_viewer_shows_the_start_then_the_fire_once_it_burns(tab, world_sites):
    site = world_sites["grid"]
    page = tab.open(f"{site}/viewer.html#step=0")
    assert "step 0" in page.inner_text("#clock")
    assert page.locator("#map g.place").count() == 1
    assert page.locator("#map g.agent[visibility=visible]").count() == 3
    assert page.locator('#map g.extra[data-layer="fires"]').count() == 0
    page.focus("#scrubber")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert "step 2" in page.inner_text("#clock")
    assert page.locator('#map g.extra[data-layer="fires"]').count() == 1
    assert tab.errors == []


def test_the_commute_viewer_draws_the_corridor_and_moves_commuters_to_work(tab, world_sites):
    site = world_sites["commute"]
    page = tab.open(f"{site}/viewer.html#step=0")
    assert page.locator('#map g.static-layer[data-layer="stops"] rect.stop').count() == 11
    assert page.locator("#map g.static-layer polyline.route").count() == 1
    assert page.locator("#map .place-name.slanted").count() == 3
    assert page.locator("#map g.agent[visibility=visible]").count() == 4
    home = agent_at(page, "student_001")
    page.focus("#scrubber")
    page.keyboard.press("ArrowRight")
    assert agent_at(page, "student_001") != home  # from riverside to the university
    assert "walk" in page.inner_text("#now-list")
    assert tab.errors == []
