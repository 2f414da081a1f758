"""A response cache in SQLite, keyed by everything that determines a model's answer."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

from simulacra.llm.types import ImagePart, Message, RawReply, Request, Usage


def cache_key(model: str, request: Request, schema: dict[str, Any] | None, seed: int) -> str:
    material = {
        "model": model,
        "messages": [[m.role, _content_key(m)] for m in request.messages],
        "schema": schema,
        "max_tokens": request.max_tokens,
        "temperature": request.temperature,
        "seed": seed,
    }
    blob = json.dumps(material, sort_keys=True, ensure_ascii=False).encode()
    return hashlib.sha256(blob).hexdigest()


def _content_key(message: Message) -> str | list[list[str]]:
    """Text as it is (so keys of text-only calls never change); an image by its digest."""
    if isinstance(message.content, str):
        return message.content
    return [
        ["image", f"{p.media_type}:{p.sha256}"] if isinstance(p, ImagePart) else ["text", p.text]
        for p in message.content
    ]


class SqliteCache:
    """Stores raw replies so that a rerun, a resume or a replay costs no model time.

    Every reply is stored, valid or not, and so is every attempt that raised instead of
    replying: a replay then walks through the same attempts as the run it replays.
    """

    def __init__(self, path: str | Path, *, readonly: bool = False) -> None:
        self.path = str(path)
        self.readonly = readonly
        self._lock = threading.Lock()
        if readonly and not Path(self.path).is_file():
            raise FileNotFoundError(f"{self.path}: no response cache here")
        uri = f"file:{self.path}?mode=ro" if readonly else f"file:{self.path}"
        self._db = sqlite3.connect(uri, uri=True, check_same_thread=False)
        if not readonly:
            # WAL with NORMAL sync: a put costs microseconds, not an fsync, and a kill loses
            # at most the last answers, which a rerun asks again.
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, text TEXT NOT NULL, "
                "prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL)"
            )
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS failures (key TEXT PRIMARY KEY, error TEXT NOT NULL)"
            )
            self._db.commit()
        self._has_failures = self._table_exists("failures")

    def _table_exists(self, name: str) -> bool:
        row = self._db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
        ).fetchone()
        return row is not None

    def get(self, key: str) -> RawReply | None:
        with self._lock:
            row = self._db.execute(
                "SELECT text, prompt_tokens, completion_tokens FROM replies WHERE key = ?", (key,)
            ).fetchone()
        if row is None:
            return None
        return RawReply(row[0], Usage(row[1], row[2]))

    def put(self, key: str, reply: RawReply) -> None:
        if self.readonly:
            return
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO replies VALUES (?, ?, ?, ?)",
                (key, reply.text, reply.usage.prompt_tokens, reply.usage.completion_tokens),
            )
            self._db.commit()

    def get_failure(self, key: str) -> str | None:
        """The error an attempt raised instead of replying, if one was recorded."""
        if not self._has_failures:
            return None
        with self._lock:
            row = self._db.execute("SELECT error FROM failures WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def put_failure(self, key: str, error: str) -> None:
        if self.readonly:
            return
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO failures VALUES (?, ?)", (key, error))
            self._db.commit()

    def close(self) -> None:
        self._db.close()


class LayeredCache:
    """A fork's cache: its own (written) over its ancestors' (read only), so that a call
    its parent made is answered as the parent was answered. A reply found below is copied
    into its own, so that a resume of the fork finds it there too."""

    def __init__(self, own: SqliteCache, below: list[SqliteCache]) -> None:
        self.own = own
        self.below = below
        self.path = own.path

    def get(self, key: str) -> RawReply | None:
        found = self.own.get(key)
        for cache in self.below:
            if found is not None:
                break
            found = cache.get(key)
            if found is not None:
                self.own.put(key, found)
        return found

    def put(self, key: str, reply: RawReply) -> None:
        self.own.put(key, reply)

    def get_failure(self, key: str) -> str | None:
        for cache in (self.own, *self.below):
            found = cache.get_failure(key)
            if found is not None:
                return found
        return None

    def put_failure(self, key: str, error: str) -> None:
        self.own.put_failure(key, error)

    def close(self) -> None:
        for cache in (self.own, *self.below):
            cache.close()
