"""A response cache in SQLite, keyed by everything that determines a model's answer."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

from simulacra.llm.types import RawReply, Request, Usage


def cache_key(model: str, request: Request, schema: dict[str, Any] | None, seed: int) -> str:
    material = {
        "model": model,
        "messages": [[m.role, m.content] for m in request.messages],
        "schema": schema,
        "max_tokens": request.max_tokens,
        "temperature": request.temperature,
        "seed": seed,
    }
    blob = json.dumps(material, sort_keys=True, ensure_ascii=False).encode()
    return hashlib.sha256(blob).hexdigest()


class SqliteCache:
    """Stores raw replies so that a rerun, a resume or a replay costs no model time."""

    def __init__(self, path: str | Path, *, readonly: bool = False) -> None:
        self.path = str(path)
        self.readonly = readonly
        self._lock = threading.Lock()
        uri = f"file:{self.path}?mode=ro" if readonly else f"file:{self.path}"
        self._db = sqlite3.connect(uri, uri=True, check_same_thread=False)
        if not readonly:
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, text TEXT NOT NULL, "
                "prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL)"
            )
            self._db.commit()

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

    def close(self) -> None:
        self._db.close()
