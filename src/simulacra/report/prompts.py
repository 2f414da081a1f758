"""The prompts a run kept (`prompts.jsonl`, llm/prompt_log.py), read back along its lineage: a
fork's calls before its fork point name prompts its parent kept."""

from __future__ import annotations

from pathlib import Path

from simulacra.llm.prompt_log import PROMPTS, KeptMessage, PromptStore, prompt_of, read_prompts
from simulacra.runlog import lineage


def kept_prompts(run: str | Path) -> PromptStore:
    """Every prompt chunk the run and its ancestors kept; empty where none was kept."""
    store: PromptStore = {}
    for path in reversed(lineage(run)):
        if (path / PROMPTS).is_file():
            store.update(read_prompts(path / PROMPTS))
    return store


def prompt_dicts(store: PromptStore, ref: object) -> list[dict[str, str]] | None:
    """The prompt kept under `ref` as [{"role", "text"}, ...]; None for no reference."""
    if not isinstance(ref, str) or not ref:
        return None
    return [{"role": m.role, "text": m.text} for m in prompt_of(store, ref)]


def prompt_text(messages: tuple[KeptMessage, ...] | list[dict[str, str]]) -> str:
    """A prompt for reading: each message under its role."""
    parts = []
    for m in messages:
        role, text = (m["role"], m["text"]) if isinstance(m, dict) else (m.role, m.text)
        parts.append(f"[{role}]\n{text}")
    return "\n\n".join(parts)
