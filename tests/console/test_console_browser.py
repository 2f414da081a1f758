"""The console in a real headless Chromium, as a person uses it: a scripted town paused,
a thought sent, a visitor who joins, speaks and is answered, the run resumed and its log
read; a grid paused, a fire added and one moved, and both drawn where they burn; a commute
paused before its strike, which is announced; and El Farol stepped, saying it takes no
interventions. Screenshots
go to the test's artifacts (`SIMULACRA_ARTIFACTS`, else its temporary folder)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import NEEDS_CHROMIUM
from tests.console.driver import ConsoleRun
from tests.console.test_console_run import HOSTILE, _town
from tests.engine.test_conformance import SCENARIOS, small

from simulacra.experiments import load_scenario
from simulacra.experiments.kinds.town import TOWN
from simulacra.runlog import RunDir, read_events

pytestmark = NEEDS_CHROMIUM
WAIT_MS = 60_000


def _shots(tmp_path: Path) -> Path:
    root = Path(os.environ.get("SIMULACRA_ARTIFACTS") or tmp_path) / "screenshots"
    root.mkdir(parents=True, exist_ok=True)
    return root


def _status(page: Any, text: str) -> None:
    page.wait_for_function(
        "t => document.getElementById('console-status').textContent.startsWith(t)",
        arg=text,
        timeout=WAIT_MS,
    )


@contextmanager
def _paused(browser: Any, console: ConsoleRun) -> Iterator[tuple[Any, list[str]]]:
    """The console's page, opened paused before step 1, and the page's errors; the page and
    the console are closed after."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(console.served.url)
        _status(page, "paused before step 1")
        yield page, errors
    finally:
        page.close()
        console.close()


def test_a_person_pauses_a_town_sends_a_thought_visits_and_is_answered(
    browser: Any, tmp_path: Path
) -> None:
    scenario = _town(tmp_path / "town")
    first = TOWN.roster(scenario)[0]
    persona = TOWN.personas(scenario)[0]
    console = ConsoleRun(scenario)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    dialogs: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    try:
        page.goto(console.served.url)
        _status(page, "paused before step 1")
        page.fill("#console-who", "teacher")
        # A thought, composed with the world's own choices.
        page.select_option("#console-type", "thought")
        page.select_option("#console-agent", first)
        page.fill("#console-text", HOSTILE)
        page.click("#console-send")
        page.wait_for_selector("#console-log li:has-text('thought: queued')", timeout=WAIT_MS)
        # A visitor joins where the first agent is, and speaks to them.
        page.fill("#visitor-name", "Vera")
        page.fill("#visitor-description", "a tall woman in a green coat")
        page.select_option("#visitor-place", persona.home)
        page.click("#visitor-join")
        page.wait_for_selector("#console-log li:has-text('visitor join')", timeout=WAIT_MS)
        page.select_option("#visitor-to", first)
        page.fill("#visitor-line", "Good morning! Is the cafe open?")
        page.click("#visitor-say")
        page.wait_for_selector("#visitor-chat li:has-text('Is the cafe open?')", timeout=WAIT_MS)
        # A refused change says why, in the world's words, and is not queued.
        page.select_option("#console-type", "event")
        page.select_option("#console-place", "Hobbs Cafe")
        page.select_option("#console-object", "espresso machine")
        page.fill("#console-state", "")
        page.fill("#console-text", "the machine")
        page.click("#console-send")
        page.wait_for_selector("#console-log li.refused", timeout=WAIT_MS)
        # One tick: the agent answers through the dialogue, and the chat shows it.
        page.click("#console-step")
        _status(page, "paused before step 2")
        reply = page.wait_for_selector("#visitor-chat li.reply", timeout=WAIT_MS)
        assert reply.inner_text().startswith(persona.name + ":")
        # The reply's arrow names the visitor as the agent sees them, not by the run's id.
        page.wait_for_selector("#now-list .to:has-text('Vera')", timeout=WAIT_MS)
        assert "visitor:vera" not in page.inner_text("#now-list")
        # Vera is on the map, and the hostile thought is text, never markup.
        page.wait_for_selector("#map [data-layer=visitors]", state="attached", timeout=WAIT_MS)
        assert "Vera" in page.text_content("#layer-extras")
        note = page.wait_for_selector("#now-list li.note:has-text('alert')", timeout=WAIT_MS)
        assert HOSTILE in note.inner_text()  # shown as the words it is
        assert page.evaluate("document.querySelectorAll('script').length") == 3
        page.screenshot(path=str(_shots(tmp_path) / "console-town.png"), full_page=True)
        # A reload rebuilds the chat from the run's log: the visitor's line, then the reply.
        page.reload()
        _status(page, "paused before step 2")
        page.wait_for_selector("#visitor-chat li.reply", timeout=WAIT_MS)
        chat = page.inner_text("#visitor-chat").splitlines()
        assert chat[0].startswith("Vera:") and chat[0].endswith("Is the cafe open?"), chat
        assert chat[1].startswith(persona.name + ":"), chat
        page.fill("#console-who", "teacher")
        page.click("#console-resume")
        _status(page, "the run has ended")
        assert page.is_disabled("#console-send")
    finally:
        page.close()
        console.close()
    # The one refused change is the only failed request (the browser logs it as an error).
    assert errors == [
        "Failed to load resource: the server responded with a status of 400 (Bad Request)"
    ]
    assert not dialogs
    done = console.finish()
    assert isinstance(done, RunDir)
    actions = [
        (e.data["who"], e.data["action"], e.data["step"])
        for e in read_events(done.events_path, {"console"})
    ]
    assert actions == [
        ("teacher", "thought", 1),
        ("Vera", "event", 1),
        ("Vera", "event", 1),
        ("teacher", "step", 1),
        ("teacher", "resume", 2),
    ]
    fired = next(e for e in read_events(done.events_path, {"intervention"}) if e.agent == first)
    assert fired.data["text"] == HOSTILE


FIRE = "<img src=x onerror=alert(1)>"


def test_a_person_pauses_a_grid_adds_a_fire_moves_one_and_sees_it_drawn(
    browser: Any, tmp_path: Path
) -> None:
    console = ConsoleRun(load_scenario(SCENARIOS / "hazard.yaml", small("hazard", tmp_path)))
    with _paused(browser, console) as (page, errors):
        assert "the grid world takes: event" in page.inner_text("#console-note")
        assert page.is_hidden("#console-visitor") and page.is_hidden("#console-place-row")
        page.fill("#console-who", "teacher")
        page.select_option("#console-type", "event")
        # A new fire (hostile name) needs its reach; fire1 is moved, keeping its own.
        page.fill("#console-fire", FIRE)
        page.fill("#console-x", "20")
        page.fill("#console-y", "20")
        page.fill("#console-text", "a fire breaks out in the north-east")
        page.click("#console-send")
        page.wait_for_selector("#console-log li.refused:has-text('intensity and radius')")
        page.fill("#console-intensity", "0.4")
        page.fill("#console-radius", "6")
        page.click("#console-send")
        page.wait_for_selector("#console-log li:has-text('event: queued')", timeout=WAIT_MS)
        page.fill("#console-fire", "fire1")
        page.fill("#console-x", "-3")
        page.fill("#console-y", "-20")
        page.fill("#console-intensity", "")
        page.fill("#console-radius", "")
        page.fill("#console-text", "the wind turns")
        page.click("#console-send")
        page.wait_for_selector("#console-log li:nth-child(1):has-text('event: queued')")
        page.click("#console-step")
        _status(page, "paused before step 2")
        # Drawn where it burns, the grid's y mirrored on screen; its name is text.
        fire = page.wait_for_selector(
            "#layer-extras [data-layer=fires] circle.core", state="attached", timeout=WAIT_MS
        )
        assert (fire.get_attribute("cx"), fire.get_attribute("cy")) == ("20", "-20")
        assert FIRE in page.text_content("#layer-extras")
        assert page.evaluate("document.querySelectorAll('img').length") == 0
        page.screenshot(path=str(_shots(tmp_path) / "console-hazard-fire.png"), full_page=True)
        page.click("#console-resume")
        _status(page, "the run has ended")
    assert not errors
    done = console.finish()
    assert isinstance(done, RunDir)
    fired = [e.data["change"] for e in read_events(done.events_path, {"intervention"})]
    assert fired == [
        {"fire": FIRE, "position": [20, 20], "intensity": 0.4, "radius": 6},
        {"fire": "fire1", "position": [-3, -20]},
    ]
    frames = {e.data["step"]: e.data for e in read_events(done.events_path, {"world"})}
    assert frames[3]["fires"][0]["name"] == "fire1" and frames[3]["fires"][0]["y"] == -20


def test_a_person_pauses_a_commute_before_the_strike_and_announces_it(
    browser: Any, tmp_path: Path
) -> None:
    console = ConsoleRun(load_scenario(SCENARIOS / "commute.yaml", small("commute", tmp_path)))
    with _paused(browser, console) as (page, errors):
        page.fill("#console-who", "teacher")
        for step in (2, 3):  # the small commute's strike is on days 3 and 4
            page.click("#console-step")
            _status(page, f"paused before step {step}")
        page.select_option("#console-type", "event")
        # An announcement is its text alone: no place, object or fire to choose.
        assert page.is_hidden("#console-place-row") and page.is_hidden("#console-fire-row")
        page.fill("#console-text", HOSTILE)
        page.click("#console-send")
        page.wait_for_selector("#console-log li:has-text('event: queued')", timeout=WAIT_MS)
        page.click("#console-step")
        _status(page, "paused before step 4")
        page.screenshot(path=str(_shots(tmp_path) / "console-commute.png"), full_page=True)
        page.click("#console-resume")
        _status(page, "the run has ended")
    assert not errors
    done = console.finish()
    assert isinstance(done, RunDir)
    actions = [
        (e.data["action"], e.data["step"]) for e in read_events(done.events_path, {"console"})
    ]
    assert actions == [("step", 1), ("step", 2), ("event", 3), ("step", 3), ("resume", 4)]
    heard = [
        e.agent for e in read_events(done.events_path, {"memory.add"}) if HOSTILE in e.data["text"]
    ]
    assert len(heard) == 4


@pytest.mark.parametrize(("kind", "world"), [("elfarol", "elfarol")])
def test_a_world_without_interventions_is_stepped_and_says_so(
    kind: str, world: str, browser: Any, tmp_path: Path
) -> None:
    console = ConsoleRun(load_scenario(SCENARIOS / f"{kind}.yaml", small(kind, tmp_path)))
    with _paused(browser, console) as (page, _):
        note = page.inner_text("#console-note")
        assert f"the {world} world takes no interventions" in note
        assert page.is_disabled("#console-send") and page.is_hidden("#console-visitor")
        page.click("#console-step")
        _status(page, "paused before step 2")
        page.screenshot(path=str(_shots(tmp_path) / f"console-{kind}.png"), full_page=True)
        page.click("#console-resume")
        _status(page, "the run has ended")
    done = console.finish()
    assert isinstance(done, RunDir)
    steps = [e.data["action"] for e in read_events(done.events_path, {"console"})]
    assert steps == ["step", "resume"]
