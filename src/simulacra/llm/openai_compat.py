"""The OpenAI-compatible backend: vLLM, Ollama's /v1, llama.cpp's server or a hosted API.

Spec: `openai:<base_url>?model=<name>&key_env=<ENV>&endpoints=<url2>,<url3>`. Requests go
round-robin over the base URL and the extra endpoints, which must all serve the same model.
"""

from __future__ import annotations

import itertools
import os
import re
import ssl
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

import orjson
from pydantic import BaseModel

from simulacra.llm.http_pool import ConnectError, HttpPool, TransportError
from simulacra.llm.structured import output_schema, per_model
from simulacra.llm.types import ImagePart, Message, RawReply, Request, Unreachable, Usage

DEFAULT_KEY_ENV = "OPENAI_API_KEY"
SPEC_FORM = "openai:<base_url>?model=<name>[&key_env=<ENV>][&endpoints=<url2>,<url3>]"
_OPTIONS = ("model", "key_env", "endpoints")


class OpenAISpecError(ValueError):
    """An `openai:` spec that cannot be read."""


class EndpointError(RuntimeError):
    """An endpoint answered with an error, garbage, or not at all."""


class EndpointUnreachable(EndpointError, Unreachable):
    """No connection to the endpoint could be made, or none in time."""


@dataclass(frozen=True)
class OpenAITarget:
    """Where to send requests: one or more endpoints serving one model."""

    urls: tuple[str, ...]
    model: str
    key_env: str = DEFAULT_KEY_ENV


def _endpoint(url: str, spec: str) -> str:
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise OpenAISpecError(
            f"model spec {spec!r}: {url!r} is not an http(s) URL; expected {SPEC_FORM}, "
            "e.g. openai:http://127.0.0.1:8080/v1?model=smollm2"
        )
    return f"{parts.scheme}://{parts.netloc}{parts.path}".rstrip("/")


def parse_openai_spec(spec: str) -> OpenAITarget:
    """Read `openai:<base_url>?model=...`; raise OpenAISpecError naming what is wrong."""
    kind, _, rest = spec.partition(":")
    if kind != "openai" or not rest:
        raise OpenAISpecError(f"model spec {spec!r} is not an openai spec; expected {SPEC_FORM}")
    query = parse_qs(urlsplit(rest).query, keep_blank_values=True)
    unknown = sorted(set(query) - set(_OPTIONS))
    if unknown:
        raise OpenAISpecError(
            f"model spec {spec!r}: unknown option(s) {', '.join(unknown)}; "
            f"allowed: {', '.join(_OPTIONS)}"
        )
    model = query.get("model", [""])[-1].strip()
    if not model:
        raise OpenAISpecError(
            f"model spec {spec!r} names no model; add ?model=<name> (the name the server "
            "serves, e.g. ?model=llama3.1:8b for Ollama)"
        )
    key_env = query.get("key_env", [DEFAULT_KEY_ENV])[-1].strip()
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key_env):
        raise OpenAISpecError(
            f"model spec {spec!r}: key_env={key_env!r} is not an environment variable name"
        )
    extra = [u for value in query.get("endpoints", []) for u in value.split(",") if u.strip()]
    urls = (_endpoint(rest.split("?", 1)[0], spec), *(_endpoint(u, spec) for u in extra))
    return OpenAITarget(urls=urls, model=model, key_env=key_env)


def openai_name(target: OpenAITarget) -> str:
    """The model's name in caches and logs; endpoints may move, the model stays."""
    return f"openai:{target.model}"


def api_key(target: OpenAITarget) -> str | None:
    """The key from the named environment variable; local servers need none, but a variable
    named explicitly in the spec must be set."""
    key = os.environ.get(target.key_env)
    if key is None and target.key_env != DEFAULT_KEY_ENV:
        raise OpenAISpecError(
            f"the model spec names key_env={target.key_env} but that environment variable is "
            f"not set; export {target.key_env}=<your key> or drop key_env for a local server"
        )
    return key


def response_format(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    """OpenAI's structured-output request. `strict` is only claimed for schemas that meet
    its rules (closed objects, every property required): hosted APIs reject the others."""
    safe_name = re.sub(r"[^A-Za-z0-9_-]", "_", name)[:64] or "output"
    return {
        "type": "json_schema",
        "json_schema": {"name": safe_name, "schema": schema, "strict": _strict_ready(schema)},
    }


@per_model
def _format_for(output: type[BaseModel]) -> dict[str, Any]:
    # Built once per output model: checking the schema for `strict` walks all of it.
    return response_format(output.__name__, output_schema(output))


def _strict_ready(node: Any) -> bool:
    if isinstance(node, dict):
        if node.get("type") == "object" and "properties" in node:
            closed = node.get("additionalProperties") is False
            if not closed or set(node.get("required", ())) != set(node["properties"]):
                return False
        return all(_strict_ready(v) for v in node.values())
    if isinstance(node, list):
        return all(_strict_ready(v) for v in node)
    return True


class OpenAIBackend:
    """Posts chat completions to the target's endpoints in turn."""

    def __init__(self, target: OpenAITarget, *, timeout_s: float, concurrency: int) -> None:
        self.target = target
        self.name = openai_name(target)
        self.timeout_s = timeout_s
        self.concurrency = concurrency
        key = api_key(target)
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._turn = itertools.count()
        # Loading CA certificates takes ~0.2 s: done once here, not inside a timed call, and
        # not at all for plain-http local servers.
        uses_tls = any(url.startswith("https:") for url in target.urls)
        tls: ssl.SSLContext | bool = ssl.create_default_context() if uses_tls else False
        self._pool = HttpPool(connections=concurrency, headers=headers, verify=tls)

    @property
    def where(self) -> str:
        """The endpoints, for messages about them."""
        return ", ".join(self.target.urls)

    async def generate(
        self, request: Request, schema: dict[str, Any] | None, seed: int
    ) -> RawReply:
        url = self.target.urls[next(self._turn) % len(self.target.urls)] + "/chat/completions"
        body: dict[str, Any] = {
            "model": self.target.model,
            "messages": [message_json(m) for m in request.messages],
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "seed": seed,
        }
        if schema is not None:
            output = request.output
            if output is not None and schema is output_schema(output):
                body["response_format"] = _format_for(output)
            else:
                body["response_format"] = response_format(
                    output.__name__ if output else "output", schema
                )
        try:
            response = await self._pool.post(url, body)
        except ConnectError as exc:
            raise EndpointUnreachable(f"{url}: {type(exc).__name__}: {exc}") from exc
        except TransportError as exc:
            raise EndpointError(f"{url}: {type(exc).__name__}: {exc}") from exc
        if response.status != 200:
            raise EndpointError(f"{url}: HTTP {response.status}: {response.text[:300]}")
        return read_chat_completion(response.content, url)

    async def aclose(self) -> None:
        await self._pool.aclose()


def message_json(message: Message) -> dict[str, Any]:
    """A message as the chat-completions API takes it: text stays a string; parts become a
    list of `text` and `image_url` parts, each image a base64 data URI (vLLM, Ollama,
    llama.cpp's server and hosted APIs all read this form)."""
    if isinstance(message.content, str):
        return {"role": message.role, "content": message.content}
    parts: list[dict[str, Any]] = []
    for part in message.content:
        if isinstance(part, ImagePart):
            parts.append({"type": "image_url", "image_url": {"url": part.data_uri()}})
        else:
            parts.append({"type": "text", "text": part.text})
    return {"role": message.role, "content": parts}


def read_chat_completion(content: bytes, url: str) -> RawReply:
    """The message text and token counts of a chat-completion body."""
    try:
        data = orjson.loads(content)
        text = data["choices"][0]["message"]["content"]
    except orjson.JSONDecodeError as exc:  # invalid UTF-8 included
        raise EndpointError(f"{url}: the body is not JSON: {content[:200]!r}") from exc
    except (KeyError, IndexError, TypeError) as exc:
        raise EndpointError(f"{url}: no choices[0].message.content in {content[:200]!r}") from exc
    if not isinstance(text, str):
        raise EndpointError(f"{url}: the message content is {type(text).__name__}, not text")
    return RawReply(text, Usage.read(data.get("usage")))
