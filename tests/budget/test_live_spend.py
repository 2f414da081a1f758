"""The live viewer, in a real headless Chromium, shows the model calls and tokens a run still
being written has spent and the total they project to, and once the run ends, what it spent."""

from __future__ import annotations

import re

import pytest
from tests.conftest import NEEDS_CHROMIUM
from tests.report.test_live_view import TICKS, paced, site  # noqa: F401  (fixtures)

from simulacra.runlog import read_events

pytestmark = NEEDS_CHROMIUM


def test_the_live_viewer_shows_the_spend_and_its_projection(browser, paced, site):  # noqa: F811
    expect = pytest.importorskip("playwright.sync_api").expect
    page = browser.new_page(viewport={"width": 1400, "height": 860})
    page.goto(site)
    paced.allow(2)
    expect(page.locator("#scrubber")).to_have_attribute("max", "3", timeout=30_000)
    calls = sum(1 for _ in read_events(paced.path / "events.jsonl", {"llm.call"}))
    meta = page.inner_text("#run-meta")
    said = re.search(r"model: (\d+) calls, [\d.]+k tokens; ~(\d+) calls", meta)
    assert said is not None, meta
    assert int(said.group(1)) == calls  # the three ticks' calls, as the log holds them
    assert int(said.group(2)) == round(calls * TICKS / 3)
    paced.allow(TICKS)
    expect(page.locator("#live")).to_contain_text("completed", timeout=60_000)
    meta = page.inner_text("#run-meta")
    assert "model: " in meta and "~" not in meta  # ended: no projection
    page.close()
