"""`simulacra view` serves the viewer and the report and nothing else, answers only to
127.0.0.1 or localhost, sends each page's CSP as a header, and moves to the next free port
when the chosen one is busy, saying so. Real HTTP on 127.0.0.1."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from simulacra.experiments import load_scenario, run
from simulacra.report import serve_run
from simulacra.runlog import RunDir

from .conftest import ELFAROL, small_elfarol


@pytest.fixture(scope="module")
def served_run(tmp_path_factory: pytest.TempPathFactory) -> RunDir:
    """A run with its pages, a memory file, a checkpoint, and a secret beside it."""
    root = tmp_path_factory.mktemp("served")
    done = run(load_scenario(ELFAROL, small_elfarol(root, "output.report=true")), progress=False)
    (done.path / "memory.sqlite").write_bytes(b"private memories")
    (root / "secret.txt").write_text("outside the run")
    (done.path / "frames").symlink_to(root)
    return done


@pytest.fixture(scope="module")
def port(served_run: RunDir) -> Iterator[int]:
    server, _ = serve_run(served_run.path)
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def get(
    port: int, path: str, host: str = "127.0.0.1", method: str = "GET"
) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    connection.putrequest(method, path, skip_host=True)
    connection.putheader("Host", f"{host}:{port}")
    connection.endheaders()
    return connection.getresponse()


@pytest.mark.parametrize("page", ["/viewer.html", "/report.html"])
def test_the_pages_are_served_with_their_csp_as_a_header(port: int, page: str) -> None:
    reply = get(port, page)
    body = reply.read()
    assert reply.status == 200 and reply.getheader("Content-Type") == "text/html; charset=utf-8"
    csp = reply.getheader("Content-Security-Policy")
    assert csp is not None and csp.startswith("default-src 'none'")
    assert csp.endswith("; frame-ancestors 'self'")  # no other site may frame it
    page_csp = csp.removesuffix("; frame-ancestors 'self'")
    assert f'content="{page_csp}"'.encode() in body  # the same policy as the page's own


def test_the_root_leads_to_the_viewer(port: int) -> None:
    reply = get(port, "/")
    assert reply.status == 302 and reply.getheader("Location") == "/viewer.html"


@pytest.mark.parametrize(
    "path",
    [
        "/memory.sqlite",
        "/config.yaml",
        "/run.json",
        "/events.jsonl",
        "/checkpoint/",
        "/checkpoint/state-000008.json",
        "/run.lock",
        "/frames/secret.txt",
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        "/viewer.html/../memory.sqlite",
        "/?C=M;O=A",
    ],
)
def test_nothing_else_of_the_run_or_beyond_it_is_served(port: int, path: str) -> None:
    reply = get(port, path)
    body = reply.read()
    assert reply.status in (302, 404), (path, reply.status)
    assert b"private memories" not in body and b"outside the run" not in body
    assert b"Directory listing" not in body


@pytest.mark.parametrize("host", ["evil.example", "127.0.0.1.evil.example", "0.0.0.0"])
def test_a_request_for_another_host_is_refused(port: int, host: str) -> None:
    reply = get(port, "/viewer.html", host=host)
    assert reply.status == 403 and b"127.0.0.1 or localhost" in reply.read()
    assert get(port, "/viewer.html", host="localhost").status == 200


def test_only_get_and_head_are_answered(port: int) -> None:
    assert get(port, "/viewer.html", method="HEAD").status == 200
    refused = get(port, "/viewer.html", method="POST")  # a viewer without a console
    assert refused.status == 405 and b"read-only" in refused.read()
    assert get(port, "/viewer.html", method="PUT").status == 501


def test_a_page_that_links_out_of_the_run_is_not_served(tmp_path: Path) -> None:
    done = run(
        load_scenario(ELFAROL, small_elfarol(tmp_path, "output.report=true")), progress=False
    )
    (tmp_path / "elsewhere.html").write_text("outside the run")
    (done.path / "report.html").unlink()
    (done.path / "report.html").symlink_to(tmp_path / "elsewhere.html")
    server, _ = serve_run(done.path)
    try:
        reply = get(server.server_address[1], "/report.html")
        assert reply.status == 404 and b"outside the run" not in reply.read()
    finally:
        server.shutdown()
        server.server_close()


def test_a_busy_port_gives_way_to_the_next_free_one_and_view_says_so(served_run: RunDir) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        view = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "from simulacra.cli import main; main()",
                *("view", str(served_run.path), "--port", str(busy)),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert view.stdout is not None
            said = view.stdout.readline()
            address = view.stdout.readline()
        finally:
            os.kill(view.pid, signal.SIGINT)
            view.wait(timeout=30)
    assert said.startswith(f"port {busy} is in use; serving on port ")
    moved = int(said.split("serving on port ")[1].split()[0])
    assert moved != busy and f"http://127.0.0.1:{moved}/viewer.html" in address
    assert view.returncode == 0
