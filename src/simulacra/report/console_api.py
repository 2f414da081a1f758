"""The live console's requests, for serve.py: the console page and its four calls.

- `GET /console.html?token=T`: the viewer with the console's panel (console.js);
- `GET /console/choices`, `GET /console/status`: what the world offers, where the run stands;
- `GET /console/said`: what visitors said from the console, read back from the run's log (so
  a reloaded page shows its chat again);
- `POST /console/act` (JSON): one action, queued for the next tick boundary.

Safe by default: each console has a random token; every call carries it (header
`X-Console-Token`; the page, in its address), compared in constant time; a call from another
Origin, or that a browser marks cross-site, is refused before the token is read; a body must
be JSON and small. A viewer served without a console answers none of these.
"""

from __future__ import annotations

import hmac
import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit

TOKEN_HEADER = "X-Console-Token"
MAX_BODY = 16_384  # bytes of one action; a thought or a line is far shorter
PAGE = "/console.html"
CALLS = ("/console/choices", "/console/status", "/console/act", "/console/said")


class ConsoleBackend(Protocol):
    """The run's side (experiments/console.py); `act` raises ValueError with the reason for an
    action it refuses, RuntimeError once the run has ended."""

    def choices(self) -> dict[str, Any]: ...

    def status(self) -> dict[str, Any]: ...

    def said(self) -> list[dict[str, Any]]: ...

    def act(self, who: str, body: Mapping[str, Any]) -> str: ...


@dataclass(frozen=True)
class ConsoleSite:
    backend: ConsoleBackend
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))

    def url(self, port: int) -> str:
        return f"http://127.0.0.1:{port}{PAGE}?token={self.token}"

    def refusal(self, handler: BaseHTTPRequestHandler, token: str | None) -> str:
        """Why this request may not use the console, or ""."""
        address = handler.server.server_address
        port = address[1] if isinstance(address, tuple) else 0
        origin = handler.headers.get("Origin")
        own = (f"http://127.0.0.1:{port}", f"http://localhost:{port}")
        if origin is not None and origin not in own:
            return f"refused: a request from {origin} may not control this run\n"
        if handler.headers.get("Sec-Fetch-Site", "same-origin") not in ("same-origin", "none"):
            return "refused: a cross-site request may not control this run\n"
        if token is None or not hmac.compare_digest(token.encode(), self.token.encode()):
            return "refused: this console's token is missing or wrong\n"
        return ""


def page_token(path: str) -> str | None:
    """The token in the console page's address."""
    found = parse_qs(urlsplit(path).query).get("token")
    return found[0] if found else None


def answer_call(handler: BaseHTTPRequestHandler, site: ConsoleSite, path: str) -> None:
    """A console call (one of CALLS), the site's checks passed or refused."""
    refused = site.refusal(handler, handler.headers.get(TOKEN_HEADER))
    if refused:
        _json(handler, 403, {"error": refused.strip()})
        return
    backend = site.backend
    if handler.command == "GET" and path == CALLS[0]:
        _json(handler, 200, backend.choices())
    elif handler.command == "GET" and path == CALLS[1]:
        _json(handler, 200, backend.status())
    elif handler.command == "POST" and path == CALLS[2]:
        _act(handler, backend)
    elif handler.command == "GET" and path == CALLS[3]:
        _json(handler, 200, backend.said())
    else:
        _json(handler, 405, {"error": f"{handler.command} {path}: not a console call"})


def _act(handler: BaseHTTPRequestHandler, backend: ConsoleBackend) -> None:
    if handler.headers.get_content_type() != "application/json":
        _json(handler, 415, {"error": "an action is sent as application/json"})
        return
    try:
        length = int(handler.headers.get("Content-Length", ""))
    except ValueError:
        length = -1
    if not 0 < length <= MAX_BODY:
        _json(handler, 413, {"error": f"an action is 1 to {MAX_BODY} bytes of JSON"})
        return
    try:
        body = json.loads(handler.rfile.read(length))
    except ValueError:
        _json(handler, 400, {"error": "the action is not JSON"})
        return
    if not isinstance(body, dict):
        _json(handler, 400, {"error": "an action is a JSON object"})
        return
    try:
        done = backend.act(str(body.get("who") or ""), body)
    except (ValueError, RuntimeError) as exc:
        _json(handler, 400 if isinstance(exc, ValueError) else 409, {"error": str(exc)})
        return
    _json(handler, 200, {"ok": True, "done": done, "status": backend.status()})


def _json(handler: BaseHTTPRequestHandler, status: int, value: Any) -> None:
    body = json.dumps(value, ensure_ascii=False).encode("utf-8")
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json; charset=utf-8")
    handler.send_header("Content-Length", str(len(body)))
    handler.send_header("Content-Security-Policy", "default-src 'none'")
    handler.end_headers()
    handler.wfile.write(body)
