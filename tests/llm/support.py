"""Small shared pieces of the gateway tests: an output model and its fallback."""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel

from simulacra.llm.fault_server import FaultServer


class Answer(BaseModel):
    """The output model the fault server's default content validates against."""

    answer: str


FALLBACK = Answer(answer="(fallback)")

FaultServerFactory = Callable[..., FaultServer]
