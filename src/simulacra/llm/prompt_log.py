"""Every prompt a run sends, kept compactly in `prompts.jsonl` beside its event log.

A prompt is a chain of chunks, one per line of each message, and each chunk is stored once
under the hash of the prompt up to and including it: `{"h": hash, "p": parent hash or null,
"r": role where a message starts, "t": the line}`. So every distinct prompt prefix is kept
once: the system message and a commuter's identity once for all its calls, a week's episodes
once for every later prompt of that week that repeats them. An `llm.call` event names its
prompt by the hash of its last chunk (`prompt`); `read` walks the chain back. An image is
kept as its digest, not its bytes.

Chunks are appended as each call is made, before the event that names them is written, so a
log a kill cut short never names a chunk the store does not hold.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from simulacra.llm.types import ImagePart, Message, TextPart

PROMPTS = "prompts.jsonl"
# hash -> (parent hash, role where a message starts, the line)
PromptStore = dict[str, tuple[str | None, str | None, str]]
_HASH_HEX = 16  # 64 bits: no collision in the millions of chunks of any run


@dataclass(frozen=True)
class KeptMessage:
    """A message read back: its role and its text (an image as `[image sha256:...]`)."""

    role: str
    text: str


def _chunks(messages: Sequence[Message]) -> Iterator[tuple[str | None, str]]:
    """(role where a message starts, else None; one line with its newline)."""
    for message in messages:
        if isinstance(message.content, str):
            text = message.content
        else:
            text = "\n\n".join(
                p.text if isinstance(p, TextPart) else f"[image sha256:{p.sha256}]"
                for p in message.content
                if isinstance(p, TextPart | ImagePart)
            )
        lines = text.splitlines(keepends=True) or [""]
        for i, line in enumerate(lines):
            yield (message.role if i == 0 else None), line


def _hash(parent: str | None, role: str | None, text: str) -> str:
    digest = hashlib.blake2b(digest_size=_HASH_HEX // 2)
    digest.update(f"{parent or ''}\x00{role or ''}\x00".encode())
    digest.update(text.encode())
    return digest.hexdigest()


class PromptLog:
    """Appends the chunks of each prompt not yet kept; `keep` returns the prompt's hash."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.known: set[str] = set()
        if self.path.exists():  # a resumed run: its chunks so far
            for line in self.path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    self.known.add(json.loads(line)["h"])

    def keep(self, messages: Sequence[Message]) -> str:
        parent: str | None = None
        new: list[str] = []
        for role, text in _chunks(messages):
            node = _hash(parent, role, text)
            if node not in self.known:
                self.known.add(node)
                entry = {"h": node, "p": parent, "r": role, "t": text}
                if role is None:
                    del entry["r"]
                new.append(json.dumps(entry, ensure_ascii=False, separators=(",", ":")))
            parent = node
        if new:
            blob = ("\n".join(new) + "\n").encode("utf-8")
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, blob)
            finally:
                os.close(fd)
        assert parent is not None
        return parent


def read_prompts(path: str | Path) -> PromptStore:
    """The store as hash -> (parent, role, text)."""
    found: PromptStore = {}
    with Path(path).open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                node = json.loads(line)
                found[node["h"]] = (node["p"], node.get("r"), node["t"])
    return found


def prompt_of(store: PromptStore, ref: str) -> tuple[KeptMessage, ...]:
    """The messages of the prompt whose last chunk is `ref`. KeyError names a hash the store
    does not hold."""
    chain: list[tuple[str | None, str]] = []
    node: str | None = ref
    while node is not None:
        if node not in store:
            raise KeyError(f"prompt chunk {node} is not in the prompt log")
        parent, role, text = store[node]
        chain.append((role, text))
        node = parent
    messages: list[list[str]] = []
    roles: list[str] = []
    for role, text in reversed(chain):
        if role is not None:
            roles.append(role)
            messages.append([])
        messages[-1].append(text)
    return tuple(KeptMessage(r, "".join(parts)) for r, parts in zip(roles, messages, strict=True))
