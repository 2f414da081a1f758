import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from simulacra.report import ServeError, build_outputs, build_replay, serve_run
from simulacra.runlog import LogError, read_events

from .conftest import IMG_PAYLOAD, SCRIPT_PAYLOAD, write_town_run

# Any attribute or CSS that would fetch from elsewhere: src=, href=, url(), @import.
OUTSIDE = re.compile(
    r"""(?:\b(?:src|href|action|poster)\s*=\s*["']?\s*(?:https?:)?//)|url\(\s*["']?\s*(?:https?:)?//|@import""",
    re.IGNORECASE,
)


def test_build_outputs_writes_the_report_and_the_viewer_into_the_run(town_run):
    paths = build_outputs(town_run)
    assert paths == {"report": town_run / "report.html", "viewer": town_run / "viewer.html"}
    assert all(path.stat().st_size > 1000 for path in paths.values())


def test_both_pages_are_self_contained(built_run):
    for path in (built_run / "report.html", built_run / "viewer.html"):
        page = path.read_text(encoding="utf-8")
        assert not OUTSIDE.search(page), f"{path.name} loads something from outside"
        assert "<script src" not in page and 'rel="stylesheet"' not in page


def test_the_viewer_embeds_the_replay_so_that_agent_text_cannot_close_the_tag(built_run):
    page = (built_run / "viewer.html").read_text(encoding="utf-8")
    assert page.count("</script>") == 2  # the data block and the viewer's own code, nothing else
    assert SCRIPT_PAYLOAD not in page and IMG_PAYLOAD not in page
    data_tag = r'<script type="application/json" id="replay-data">(.*?)</script>'
    match = re.search(data_tag, page, re.S)
    assert match is not None
    replay = build_replay(
        read_events(built_run / "events.jsonl"), json.loads((built_run / "run.json").read_text())
    )
    embedded = json.loads(match.group(1))
    assert embedded == json.loads(json.dumps(replay.to_dict()))
    assert SCRIPT_PAYLOAD in embedded["agents"]["cy"]["persona"]["traits"]


def test_the_report_escapes_agent_text_and_links_into_the_viewer(built_run):
    page = (built_run / "report.html").read_text(encoding="utf-8")
    assert SCRIPT_PAYLOAD not in page
    assert "no &lt;script&gt;window.__pwned=1&lt;/script&gt;" in page
    assert 'href="viewer.html#step=0&amp;agent=ada"' in page  # from the agent's name
    assert 'href="viewer.html#step=11"' in page  # from the last diffusion point
    assert "<script" not in page  # the report runs no code at all


def test_the_report_shows_the_summary_plots_timeline_and_tables(built_run):
    page = (built_run / "report.html").read_text(encoding="utf-8")
    for text in (
        "scripted: canned answers, not a language model",
        "seed",
        "completed",
        "12.5 s",
        "Diffusion over time",
        "Each agent&#x27;s day",
        "Conversations per pair",
        "react.decide",
        "Juniper Cafe: serving coffee",  # a timeline segment's tooltip
    ):
        assert text in page, text
    assert page.count("<svg") >= 3  # diffusion, timeline, budget


def test_a_run_without_metrics_still_gets_a_report(tmp_path):
    run = write_town_run(tmp_path / "run", with_metrics=False)
    page = build_outputs(run)["report"].read_text(encoding="utf-8")
    assert "missing (not written)" in page
    assert "No diffusion measured." in page
    assert "Model budget" in page


def test_outputs_are_identical_when_built_twice(built_run):
    first = {k: p.read_bytes() for k, p in build_outputs(built_run).items()}
    second = {k: p.read_bytes() for k, p in build_outputs(built_run).items()}
    assert first == second


def test_a_folder_without_events_is_refused_with_a_reason(tmp_path):
    with pytest.raises(LogError, match=r"events\.jsonl: the event log is missing"):
        build_outputs(tmp_path)


@pytest.mark.slow
def test_serve_run_serves_the_run_read_only_on_loopback(town_run):
    server, url = serve_run(town_run)  # builds the pages first: none exist yet
    try:
        assert url.startswith("http://127.0.0.1:") and url.endswith("/viewer.html")
        with urllib.request.urlopen(url, timeout=5) as reply:
            assert reply.status == 200
            assert b"replay-data" in reply.read()
        post = urllib.request.Request(url, data=b"x", method="POST")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(post, timeout=5)
        assert refused.value.code == 405  # read-only: no console
        assert b"read-only" in refused.value.read()
    finally:
        server.shutdown()
        server.server_close()


def test_serve_run_refuses_to_listen_beyond_this_machine(town_run):
    with pytest.raises(ServeError, match=r"127\.0\.0\.1 only"):
        serve_run(town_run, host="0.0.0.0")


def test_a_bare_import_of_the_report_layer_finds_the_worlds_report(town_run):
    """Whatever was imported before, the report of a town run has the town's sections: run in
    a fresh interpreter that imports only `simulacra.report` (as a notebook would)."""
    script = (
        "import sys\n"
        "from simulacra.report import build_outputs\n"
        "assert not any(m.startswith('simulacra.experiments') for m in sys.modules)\n"
        f"build_outputs({str(town_run)!r})\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    subprocess.run([sys.executable, "-c", script], check=True, env=env, timeout=120)
    page = (town_run / "report.html").read_text(encoding="utf-8")
    assert 'id="diffusion"' in page and 'id="attendance"' in page


def test_the_towns_first_section_says_what_happened_and_with_which_model(town_run):
    from simulacra.report import build_outputs

    build_outputs(town_run)
    page = (town_run / "report.html").read_text(encoding="utf-8")
    story = page.split('<section id="story">', 1)[1].split("</section>", 1)[0]
    assert page.index('id="story"') < page.index('id="diffusion"')
    assert "<th>model</th><td>scripted</td>" in story
    assert "<td>2 calls, 5.1% of the model's</td>" in story
    assert "Ada Lin and Bo Diaz: the party (2 turns)" in story
    assert "Cy Moreno and Ada Lin: paint (1 turn)" in story
    assert "<th>knew at 08:00 (1 of 3)</th><td>Ada Lin</td>" in story
    # The news' owner is named as its source, not as judged by her answer ("yes").
    # Beside the teller the log shows, what Bo's closed answer claims and whether its memories
    # bear that out; Cy's claim is not shown, for Cy is not aware.
    said = "Bo Diaz (from Ada Lin; says from Ada Lin, confirmed by its memories)"
    assert f"(2 of 3)</th><td>Ada Lin (its source), {said}</td>" in story
    assert "<th>came to Juniper Cafe</th><td>Ada Lin, Bo Diaz</td>" in story
