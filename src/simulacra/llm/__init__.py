"""The language-model gateway: one interface over embedded, served, scripted and replayed models."""

from simulacra.llm.accounting import Ledger, Tally
from simulacra.llm.gateway import Backend, Gateway, ModelFailure
from simulacra.llm.scripted import ScriptedModel
from simulacra.llm.spec import ModelSpecError, load_model
from simulacra.llm.structured import OutputError, parse_output, repair_json
from simulacra.llm.types import (
    Completion,
    LanguageModel,
    Message,
    RawReply,
    Request,
    Usage,
    chat,
)

__all__ = [
    "Backend",
    "Completion",
    "Gateway",
    "LanguageModel",
    "Ledger",
    "Message",
    "ModelFailure",
    "ModelSpecError",
    "OutputError",
    "RawReply",
    "Request",
    "ScriptedModel",
    "Tally",
    "Usage",
    "chat",
    "load_model",
    "parse_output",
    "repair_json",
]
