"""The console is safe by default: a token on every call, no other Origin, text escaped, and
a viewer served without a console is read-only."""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path

from tests.console.driver import ConsoleRun
from tests.console.test_console_run import HOSTILE, _town

from simulacra.report import serve_run

ACT = {"action": "pause"}


def test_a_call_without_the_token_or_from_another_origin_is_refused(tmp_path: Path) -> None:
    console = ConsoleRun(_town(tmp_path))
    try:
        console.paused_at(1)
        port = console.base.rsplit(":", 1)[1]
        refused = [
            console.call("/console/act", ACT, token=None),
            console.call("/console/act", ACT, token="not-" + console.token),
            console.call("/console/status", token=None),
            console.call("/console/act", ACT, headers={"Origin": "http://evil.example"}),
            # Another port of this machine is another origin.
            console.call("/console/act", ACT, headers={"Origin": "http://127.0.0.1:1"}),
            console.call("/console/act", ACT, headers={"Sec-Fetch-Site": "cross-site"}),
        ]
        for status, answer in refused:
            assert status == 403 and "refused" in answer["error"], answer
        # The page without its token, or with a wrong one, is refused too.
        for query in ("", "?token=wrong"):
            try:
                urllib.request.urlopen(console.base + "/console.html" + query, timeout=10)
                raise AssertionError("the console page was served without its token")
            except urllib.error.HTTPError as exc:
                assert exc.code == 403
        own = console.call("/console/act", ACT, headers={"Origin": f"http://localhost:{port}"})
        assert own[0] == 200
        assert console.call("/console/status")[1]["queued"] == 1  # only the allowed pause
        # JSON only: a form post is turned away even with the token.
        status, _ = console.call(
            "/console/act", ACT, headers={"Content-Type": "application/x-www-form-urlencoded"}
        )
        assert status == 415
    finally:
        console.close()


def test_hostile_text_reaches_the_console_page_escaped(tmp_path: Path) -> None:
    console = ConsoleRun(_town(tmp_path))
    try:
        console.paused_at(1)
        first = console.call("/console/choices")[1]["agents"][0]
        console.act(
            action="intervene", intervention={"type": "thought", "agents": [first], "text": HOSTILE}
        )
        console.act(action="step")
        console.paused_at(2)
        with urllib.request.urlopen(console.served.url, timeout=10) as answer:
            page = answer.read().decode()
            csp = answer.headers["Content-Security-Policy"]
        assert "alert('x')" in page  # the thought is on the page ...
        assert "<script>alert" not in page  # ... never as markup
        assert "\\u003cscript\\u003ealert('x')" in page
        assert "'unsafe-inline'" not in csp.split("script-src")[1].split(";")[0]
    finally:
        console.close()


def test_a_viewer_served_without_a_console_is_read_only(tmp_path: Path) -> None:
    console = ConsoleRun(_town(tmp_path))
    try:
        console.paused_at(1)
        (run,) = [p for p in (tmp_path).iterdir() if p.is_dir()]
        server, url = serve_run(run, live=True)
        try:
            base = url.rsplit("/", 1)[0]
            for path in ("/console/act", "/viewer.html"):
                request = urllib.request.Request(
                    base + path,
                    data=b'{"action": "pause"}',
                    method="POST",
                    headers={"Content-Type": "application/json"},
                )
                try:
                    urllib.request.urlopen(request, timeout=10)
                    raise AssertionError(f"POST {path} was taken")
                except urllib.error.HTTPError as exc:
                    assert exc.code == 405 and b"read-only" in exc.read()
            for path in ("/console/status", "/console.html?token=" + console.token):
                try:
                    urllib.request.urlopen(base + path, timeout=10)
                    raise AssertionError(f"GET {path} was served")
                except urllib.error.HTTPError as exc:
                    assert exc.code == 404
        finally:
            server.shutdown()
            server.server_close()
        assert console.call("/console/status")[1]["queued"] == 0
    finally:
        console.close()
