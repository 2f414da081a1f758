"""rating.html in a real headless Chromium: it loads offline, records a ranking that merges
into eval.json, and shows agent text as text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import NEEDS_CHROMIUM

from simulacra.experiments.evaluate import merge_ratings, write_rating_page
from simulacra.runlog import RunDir

pytestmark = NEEDS_CHROMIUM
HOSTILE = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>'


@pytest.fixture
def hostile_run(town_run: RunDir, evaluated: dict[str, Any], tmp_path: Path) -> Path:
    """A copy of the evaluated run whose first answer is agent text that tries to run code."""
    run = tmp_path / town_run.path.name
    run.mkdir()
    for name in ("run.json", "config.yaml", "events.jsonl"):
        (run / name).write_bytes((town_run.path / name).read_bytes())
    found = json.loads(json.dumps(evaluated))
    found["answers"][0]["text"] = HOSTILE
    found.pop("people", None)
    (run / "eval.json").write_text(json.dumps(found))
    return run


def test_a_person_ranks_blinded_answers_and_the_file_merges(
    browser: Any, hostile_run: Path, evaluated: dict[str, Any], tmp_path: Path
) -> None:
    page_path = write_rating_page(hostile_run)
    html = page_path.read_text()
    assert "full" not in html.split('id="data">')[1].split("</script>")[0]  # blinded
    page = browser.new_page()
    errors: list[str] = []
    requests: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: requests.append(r.url))
    page.goto(page_path.as_uri())
    first = page.locator("section.item").first
    item = first.get_attribute("data-item")
    assert first.locator("select").count() == len(evaluated["conditions"])
    texts = first.locator(".answer p").all_inner_texts()
    assert HOSTILE in texts  # shown as text, never parsed as HTML
    assert page.evaluate("window.pwned") is None
    picks = first.locator("select")
    for i in range(picks.count()):
        picks.nth(i).select_option(str(i + 1))
    assert "done" in (first.get_attribute("class") or "")
    page.fill("#rater", "ann")
    with page.expect_download() as download:
        page.click("#save")
    saved_path = tmp_path / "ratings.json"
    download.value.save_as(saved_path)
    saved = json.loads(saved_path.read_text())
    assert saved["rater"] == "ann" and len(saved["rankings"]) == 1
    assert page.locator("#saved").input_value() == saved_path.read_text()
    assert errors == [] and all(u.startswith(("file:", "blob:", "data:")) for u in requests)
    page.close()
    merged = json.loads(merge_ratings(hostile_run, saved_path).read_text())
    (person,) = merged["people"]
    shown = [evaluated["rating_key"][k].split("\t")[1] for k in saved["rankings"][0]["order"]]
    assert person["order"] == shown and person["item"] == item
    assert merged["agreement"]["items"] == 1
