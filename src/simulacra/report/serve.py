"""Serve a run directory read-only on 127.0.0.1, for `simulacra view RUN`."""

from __future__ import annotations

import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from simulacra.report.outputs import build_outputs

_LOOPBACK = ("127.0.0.1", "localhost")


class _RunHandler(SimpleHTTPRequestHandler):
    """GET and HEAD only (the base class answers 501 to anything else); no request log."""

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        return  # a viewer's requests are not worth a line on the user's terminal


def serve_run(
    run_dir: str | Path, host: str = "127.0.0.1", port: int = 0
) -> tuple[ThreadingHTTPServer, str]:
    """Start serving `run_dir` in a daemon thread; return the server and the viewer's URL.

    Builds report.html and viewer.html first when they are missing. Stop it with
    `server.shutdown(); server.server_close()`.
    """
    if host not in _LOOPBACK:
        raise ValueError(
            f"serve_run: refusing to listen on {host!r}; a run holds agents' private memory, "
            "so it is served on 127.0.0.1 only (use an SSH tunnel to view it from elsewhere)"
        )
    run = Path(run_dir)
    if not (run / "events.jsonl").is_file():
        raise FileNotFoundError(
            f"{run}: not a run directory (no events.jsonl); pass a folder under runs/"
        )
    if not (run / "viewer.html").is_file():
        build_outputs(run)
    handler = partial(_RunHandler, directory=str(run.resolve()))
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="simulacra-view", daemon=True)
    thread.start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/viewer.html"
