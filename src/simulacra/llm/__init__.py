"""The language-model gateway: one interface over embedded, served, scripted and replayed models."""

from simulacra.llm.accounting import Ledger, Tally
from simulacra.llm.cache import SqliteCache
from simulacra.llm.config import ModelConfig
from simulacra.llm.embedded import EmbeddedModelError
from simulacra.llm.gateway import Backend, Gateway, ModelFailure
from simulacra.llm.openai_compat import EndpointError
from simulacra.llm.replay import CACHE_FILE, ReplayMiss
from simulacra.llm.scripted import ScriptedModel
from simulacra.llm.spec import ModelSpecError, check_spec, load_model, model_name
from simulacra.llm.structured import MaxChars, MaxWords, OutputError, parse_output, repair_json
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
    "CACHE_FILE",
    "Backend",
    "Completion",
    "EmbeddedModelError",
    "EndpointError",
    "Gateway",
    "LanguageModel",
    "Ledger",
    "MaxChars",
    "MaxWords",
    "Message",
    "ModelConfig",
    "ModelFailure",
    "ModelSpecError",
    "OutputError",
    "RawReply",
    "ReplayMiss",
    "Request",
    "ScriptedModel",
    "SqliteCache",
    "Tally",
    "Usage",
    "chat",
    "check_spec",
    "load_model",
    "model_name",
    "parse_output",
    "repair_json",
]
