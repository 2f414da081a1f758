"""Consolidation: an episode becomes a skill or a page only when it gives reusable evidence.

The model proposes (`lab.consolidate`); this module validates: a skill's scripts must parse,
its name must be new or revise the same skill, every change is one commit and one log line.
"""

from __future__ import annotations

from simulacra.lab.agent import Episode, LearningAgent
from simulacra.lab.episode import Attempt
from simulacra.lab.front import PageMeta, SkillMeta
from simulacra.lab.library import Library
from simulacra.lab.lint import script_problem
from simulacra.lab.prompts import CONSOLIDATE, PageDraft, SkillDraft
from simulacra.lab.views import consolidate_view
from simulacra.runlog.events import EventSink, LabMemory


async def consolidate(
    agent: LearningAgent, library: Library, episode: Episode, sink: EventSink
) -> list[str]:
    """Ask what the episode adds to memory, write it, commit it; return the names changed."""
    ran = " ".join(r.command for r in episode.commands)
    # The skills the commands ran, in the order they ran.
    used = sorted(
        (s for s in episode.skills if f"skills/{s.meta.name}/" in ran),
        key=lambda s: ran.index(f"skills/{s.meta.name}/"),
    )
    final = Attempt(episode.final)
    view = consolidate_view(
        episode.task,
        episode.accepted,
        used,
        episode.commands,
        [final.echoed(r) for r in episode.commands],
        episode.report,
        library.skills(),
        [p.name for p in library.pages()],
    )
    answer = await agent.ask(CONSOLIDATE, view)
    changed = []
    source = str(episode.folder.relative_to(library.root))
    if answer.skill is not None and answer.action.value in ("new_skill", "both"):
        changed += _skill(library, answer.skill, source, answer.reason, sink)
    if answer.page is not None and answer.action.value in ("new_page", "both"):
        changed += _page(library, answer.page, source, answer.reason, sink)
    return changed


def _skill(
    library: Library, draft: SkillDraft, source: str, reason: str, sink: EventSink
) -> list[str]:
    problems = [p for s in draft.scripts if (p := script_problem(s.path, s.content))]
    if problems or not draft.scripts:
        library.append_log(f"consolidation refused skill {draft.name}: {problems or 'no script'}")
        library.commit(f"log: refused skill {draft.name}")
        return []
    change = "revised_skill" if library.skill(draft.name) else "new_skill"
    known = library.names()
    meta = SkillMeta(
        name=draft.name,
        description=draft.description,
        tags=draft.tags,
        inputs=draft.inputs,
        outputs=draft.outputs,
        links=[n for n in draft.links if n in known],
        supersedes=[n for n in draft.supersedes if n in known and n != draft.name],
    )
    body = (
        f"# {draft.name}\n\n{draft.body}\n\nLearned from {source}.\n\n"
        f"## Usage\n\n```\n{draft.usage}\n```\n"
    )
    scripts = {s.path.removeprefix("scripts/"): s.content for s in draft.scripts}
    library.write_skill(meta, body, scripts)
    return [_commit(library, change, draft.name, reason, sink)]


def _page(
    library: Library, draft: PageDraft, source: str, reason: str, sink: EventSink
) -> list[str]:
    earlier = library.page(draft.name)
    change = "revised_page" if earlier else "new_page"
    # A revision keeps the evidence of the versions before it.
    sources = [*(earlier.meta.sources if earlier else []), source]
    meta = PageMeta(
        title=draft.title,
        summary=draft.summary,
        keywords=draft.keywords,
        sources=list(dict.fromkeys(sources)),
        supersedes=[n for n in draft.supersedes if n in library.names() and n != draft.name],
    )
    library.write_page(draft.name, meta, draft.body)
    return [_commit(library, change, draft.name, reason, sink)]


def _commit(library: Library, change: str, name: str, reason: str, sink: EventSink) -> str:
    library.write_index()
    library.append_log(f"memory: {change.replace('_', ' ')} {name}: {reason}")
    commit = library.commit(f"memory: {change.replace('_', ' ')} {name}")
    sink.emit(LabMemory(change=change, name=name, commit=commit, reason=reason))
    return name
