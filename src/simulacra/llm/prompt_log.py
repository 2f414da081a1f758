"""Every prompt a run sends, kept compactly in `prompts.jsonl` beside its event log.

A prompt is a chain of chunks, one per line of each message, and each chunk is stored once
under the hash of the prompt up to and including it: `{"h": hash, "p": parent hash or null,
"r": role where a message starts, "x": its line's hash}`; each distinct line once, as
`{"x": hash, "t": the line}`. So every distinct prompt prefix is kept once (the system
message and a commuter's identity once for all its calls, a week's episodes once for every
later prompt of that week that repeats them), and a line that ends many prompts (an
instruction) once whatever came before it. An `llm.call` event names its prompt by the hash
of its last chunk (`prompt`); `prompt_of` walks the chain back. An image is kept as its
digest, not its bytes.

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


def _hash(*parts: str) -> str:
    digest = hashlib.blake2b(digest_size=_HASH_HEX // 2)
    digest.update("\x00".join(parts).encode())
    return digest.hexdigest()


def _line(entry: dict[str, str | None]) -> str:
    return json.dumps(entry, ensure_ascii=False, separators=(",", ":"))


class PromptLog:
    """Appends the chunks of each prompt not yet kept; `keep` returns the prompt's hash."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.known: set[str] = set()  # chunks' hashes and lines' hashes
        if self.path.exists():  # a resumed run: what it kept so far
            for line in self.path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    entry = json.loads(line)
                    self.known.add(entry.get("h") or entry["x"])

    def keep(self, messages: Sequence[Message]) -> str:
        parent: str | None = None
        new: list[str] = []
        for role, text in _chunks(messages):
            line = _hash(text)
            node = _hash(parent or "", role or "", line)
            if node not in self.known:
                if line not in self.known:
                    self.known.add(line)
                    new.append(_line({"x": line, "t": text}))
                self.known.add(node)
                entry = {"h": node, "p": parent, "r": role, "x": line}
                if role is None:
                    del entry["r"]
                new.append(_line(entry))
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
    lines: dict[str, str] = {}
    nodes: list[dict[str, str | None]] = []
    with Path(path).open(encoding="utf-8") as fh:
        for raw in fh:
            if raw.strip():
                entry = json.loads(raw)
                if "h" in entry:
                    nodes.append(entry)
                else:
                    lines[entry["x"]] = entry["t"]
    return {str(n["h"]): (n["p"], n.get("r"), lines[str(n["x"])]) for n in nodes}


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
