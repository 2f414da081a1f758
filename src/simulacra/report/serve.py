"""Serve a run's viewer and report on 127.0.0.1, and nothing else, for `simulacra view RUN`.

Both pages are self-contained (inline script, styles and images), so they are all there is
to serve: no listing, and no other file of the run (memories, configuration, checkpoints,
the log) is reachable. The one way out of the run is its family (a parent, forks): the
viewer's tree links to their pages and shows them side by side in a frame, so those pages
are served at the paths the links name, and nothing else of theirs. Live (`--live`, a
run still being written), the viewer is rendered from the log as it stands and polls
/replay.json, the one file it loads, for what the run wrote since. A request must name
the host 127.0.0.1 or localhost, so a site whose name is rebound to 127.0.0.1 cannot read a
run through a browser. Each page's Content-Security-Policy is sent as a header as well. A
run with a live console (`simulacra run --console`) serves its console too (console_api.py);
anything else is refused a POST: the viewer is read-only.
"""

from __future__ import annotations

import errno
import posixpath
import re
import threading
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from simulacra.errors import UserError
from simulacra.report.console_api import CALLS, PAGE, ConsoleSite, answer_call, page_token
from simulacra.report.family import family_pages
from simulacra.report.live import LiveReplay
from simulacra.report.outputs import build_outputs
from simulacra.report.viewer_page import LIVE_DATA, render_viewer
from simulacra.runlog import children

PAGES = ("viewer.html", "report.html")
JSON_CSP = "default-src 'none'"
PORT_TRIES = 20  # ports tried from the one asked for, when it is taken
_LOOPBACK = ("127.0.0.1", "localhost")
_META_CSP = re.compile(rb'<meta http-equiv="Content-Security-Policy" content="([^"]*)">')
_FALLBACK_CSP = "default-src 'none'"


class ServeError(UserError):
    """A run that cannot be served: no free port, or a host beyond this machine."""


class _PageHandler(BaseHTTPRequestHandler):
    """GET and HEAD of the two pages; everything else is refused. No request log."""

    def __init__(
        self,
        *args: Any,
        run: Path,
        live: LiveReplay | None,
        console: ConsoleSite | None = None,
        **kwargs: Any,
    ) -> None:
        self.run = run
        self.live = live
        self.console = console
        super().__init__(*args, **kwargs)

    def do_GET(self) -> None:
        self._answer(send_body=True)

    def do_POST(self) -> None:
        path = urlsplit(self.path).path
        if not self._loopback():
            return
        if self.console is None or path not in CALLS:
            self._plain(405, "this viewer is read-only: start the run with --console\n")
            return
        answer_call(self, self.console, path)

    def do_HEAD(self) -> None:
        self._answer(send_body=False)

    def _loopback(self) -> bool:
        host = urlsplit("//" + self.headers.get("Host", "")).hostname
        if host not in _LOOPBACK:
            self._plain(403, "this viewer answers only to http://127.0.0.1 or localhost\n")
            return False
        return True

    def _answer(self, send_body: bool) -> None:
        if not self._loopback():
            return
        path = urlsplit(self.path).path
        if self.console is not None and path in CALLS:
            answer_call(self, self.console, path)
            return
        if path == "/":
            self.send_response(302)
            self.send_header("Location", "/viewer.html")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if self.live is not None and path == "/" + LIVE_DATA:
            self._replay_data(send_body)
            return
        if self.live is not None and self.console is not None and path == PAGE:
            refused = self.console.refusal(self, page_token(self.path))
            if refused:
                self._plain(403, refused)
                return
            shown = render_viewer(
                self.live.replay(),
                live=True,
                console=self.console.token,
                family=self.live.family(),
            )
            body = shown.encode("utf-8")
        elif self.live is not None and path == "/viewer.html":
            shown = render_viewer(self.live.replay(), live=True, family=self.live.family())
            body = shown.encode("utf-8")
        else:
            page = self._page(path.removeprefix("/")) or self._family_page(path)
            if page is None:
                self._plain(404, self._missing(path))
                return
            body = page.read_bytes()
        found = _META_CSP.search(body[:4096])
        csp = found.group(1).decode() if found else _FALLBACK_CSP
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        # frame-ancestors works only in a header, not in the page's own meta tag: only this
        # server's own pages may frame a page (the side-by-side mode), no other site.
        self.send_header("Content-Security-Policy", f"{csp}; frame-ancestors 'self'")
        self.end_headers()
        if send_body:
            self.wfile.write(body)

    def _replay_data(self, send_body: bool) -> None:
        """The live replay as JSON; 304 when the viewer already has this version."""
        assert self.live is not None
        etag, body = self.live.current()
        fresh = self.headers.get("If-None-Match") == etag
        self.send_response(304 if fresh else 200)
        self.send_header("ETag", etag)
        self.send_header("Content-Security-Policy", JSON_CSP)
        if not fresh:
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if send_body and not fresh:
            self.wfile.write(body)

    def _missing(self, path: str) -> str:
        if self.live is not None and path == "/report.html":
            return "not yet: the report is written when the run ends\n"
        return "not found: only /viewer.html and /report.html are served\n"

    def _page(self, name: str) -> Path | None:
        """The page file, if `name` is one of PAGES and it lies inside the run."""
        if name not in PAGES:
            return None
        resolved = (self.run / name).resolve()
        if not resolved.is_relative_to(self.run) or not resolved.is_file():
            return None
        return resolved

    def _family_page(self, path: str) -> Path | None:
        """A page of another run of the family, at the path its link from this run's pages
        resolves to (the link is relative to /viewer.html)."""
        for page in PAGES:
            for link, found in family_pages(self.run, page).items():
                if posixpath.normpath(posixpath.join("/", link)) == path:
                    return found
        return None

    def _plain(self, status: int, text: str) -> None:
        body = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        return  # a viewer's requests are not worth a line on the user's terminal


def serve_run(
    run_dir: str | Path,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    live: bool = False,
    console: ConsoleSite | None = None,
) -> tuple[ThreadingHTTPServer, str]:
    """Start serving `run_dir`'s pages in a daemon thread; return the server and the viewer's
    URL. Port 0 takes any free port; a port in use gives way to the next free one (the
    server's `server_address` says which).

    Builds report.html and viewer.html first when they are missing, or older than a run
    forked from this one (so a parent's pages list the children made since); `live` renders
    instead the viewer from the log as it stands and lets it follow the run (the report is
    served once the run has written it). `console` (live only) serves the console page too, at
    `console.url(port)` (console_api.py); without one the viewer is read-only. Stop it with
    `server.shutdown(); server.server_close()`.
    """
    if console is not None and not live:
        raise ServeError("serve_run: a console controls a run being written; it needs live")
    if host not in _LOOPBACK:
        raise ServeError(
            f"serve_run: refusing to listen on {host!r}; a run holds agents' private memory, "
            "so it is served on 127.0.0.1 only (use an SSH tunnel to view it from elsewhere)"
        )
    if not 0 <= port <= 65535:
        raise ServeError(f"port {port} does not exist; give one from 1024 to 65535, or 0")
    run = Path(run_dir).resolve()
    if not live and (not all((run / page).is_file() for page in PAGES) or _new_children(run)):
        build_outputs(run)
    following = LiveReplay(run) if live else None
    server = _bind(partial(_PageHandler, run=run, live=following, console=console), port)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="simulacra-view", daemon=True)
    thread.start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/viewer.html"


def _bind(handler: Any, port: int) -> ThreadingHTTPServer:
    """A server on `port`, or on the next free one of PORT_TRIES (any free one for 0)."""
    last = min(port + PORT_TRIES - 1, 65535) if port else 0
    for candidate in range(port, last + 1):
        try:
            return ThreadingHTTPServer(("127.0.0.1", candidate), handler)
        except PermissionError:
            raise ServeError(
                f"port {candidate} needs privileges on this machine; choose one from 1024 up"
            ) from None
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE:
                raise
    raise ServeError(
        f"ports {port} to {last} on 127.0.0.1 are all in use; choose another with --port N, "
        "or --port 0 for any free one"
    )


def _new_children(run: Path) -> bool:
    """Whether a run was forked from `run` since its pages were built: they list its family
    as it was then, so they are built again to show the new child."""
    built = min((run / page).stat().st_mtime_ns for page in PAGES)
    return any((child / "run.json").stat().st_mtime_ns > built for child in children(run))
