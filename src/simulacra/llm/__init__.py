"""The language-model gateway: one interface over embedded, served, scripted and replayed models."""

from simulacra.llm.accounting import Ledger, Tally
from simulacra.llm.cache import SqliteCache
from simulacra.llm.config import ModelConfig
from simulacra.llm.embedded import EmbeddedModelError, ImagesRefused
from simulacra.llm.gateway import (
    DEFAULT_CONTEXT_TOKENS,
    Backend,
    Gateway,
    ModelFailure,
    ModelUnreachable,
)
from simulacra.llm.openai_compat import EndpointError
from simulacra.llm.replay import CACHE_FILE, ReplayMiss
from simulacra.llm.scripted import ScriptedModel
from simulacra.llm.spec import ModelSpecError, check_spec, load_model, model_name
from simulacra.llm.structured import MaxChars, MaxWords, OutputError, parse_output, repair_json
from simulacra.llm.types import (
    Completion,
    ImagePart,
    LanguageModel,
    Message,
    RawReply,
    Request,
    TextPart,
    Usage,
    chat,
    has_images,
    with_images,
)

__all__ = [
    "CACHE_FILE",
    "DEFAULT_CONTEXT_TOKENS",
    "Backend",
    "Completion",
    "EmbeddedModelError",
    "EndpointError",
    "Gateway",
    "ImagePart",
    "ImagesRefused",
    "LanguageModel",
    "Ledger",
    "MaxChars",
    "MaxWords",
    "Message",
    "ModelConfig",
    "ModelFailure",
    "ModelSpecError",
    "ModelUnreachable",
    "OutputError",
    "RawReply",
    "ReplayMiss",
    "Request",
    "ScriptedModel",
    "SqliteCache",
    "Tally",
    "TextPart",
    "Usage",
    "chat",
    "check_spec",
    "has_images",
    "load_model",
    "model_name",
    "parse_output",
    "repair_json",
    "with_images",
]
