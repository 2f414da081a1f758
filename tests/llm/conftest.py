"""Fixtures for the language-model gateway tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests.llm.support import FaultServerFactory

from simulacra.llm.fault_server import FaultServer, Mode


@pytest.fixture
def fault_server() -> Iterator[FaultServerFactory]:
    """Start misbehaving servers on 127.0.0.1; every one is stopped after the test."""
    started: list[FaultServer] = []

    def start(*modes: Mode, **options: Any) -> FaultServer:
        server = FaultServer(*modes, **options).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
