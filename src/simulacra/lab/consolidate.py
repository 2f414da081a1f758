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
from simulacra.lab.views import Evidence, consolidate_view, tail
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
        evidence(episode, library),
    )
    answer = await agent.ask(CONSOLIDATE, view)
    changed = []
    source = str(episode.folder.relative_to(library.root))
    if answer.skill is not None and answer.action.value in ("new_skill", "both"):
        if not episode.accepted:  # a rejected episode proves no procedure; a page may say why
            library.append_log(f"consolidation refused skill {answer.skill.name}: rejected")
            library.commit(f"log: refused skill {answer.skill.name}")
        else:
            changed += _skill(library, answer.skill, source, answer.reason, sink)
    if answer.page is not None and answer.action.value in ("new_page", "both"):
        changed += _page(library, answer.page, source, answer.reason, sink)
    return changed


# A tool's help runs to tens of thousands of characters (sumo's 76,000): shown whole, so that
# the options far down it (netconvert's --no-turnarounds) can be learned.
HEAD_CHARS = 80_000
_TEXT = (".txt", ".json", ".csv")


def evidence(episode: Episode, library: Library) -> Evidence:
    """The findings and feedback of every attempt, the final try's logs (their tails) and the
    head of each delivered text output."""
    verdicts = []
    for number in range(1, episode.attempts + 1):
        found = Attempt(episode.folder / f"attempt-{number}").read_json("verdicts.json") or {}
        checker = found.get("checker") or {}
        verdicts += [
            f"attempt {number}, checker: {f.get('check')}: {f.get('message')}"
            for f in checker.get("findings", [])
        ]
        critic = found.get("critic") or {}
        if critic.get("decision") == "revise":
            said = critic.get("feedback") or "; ".join(critic.get("reasons", []))
            verdicts.append(f"attempt {number}, critic: {said}")
    final = episode.final
    logs = {}
    for record in episode.commands:
        for relative in (record.stdout, record.stderr):
            if relative and (final / relative).is_file():
                logs[relative] = tail((final / relative).read_text(errors="replace"))
    outputs = [
        (str(p.relative_to(final)), p.read_text(errors="replace")[:HEAD_CHARS])
        for p in sorted((final / "outputs").rglob("*"))
        if p.is_file() and p.suffix in _TEXT and not p.is_symlink()
    ]
    loaded = Attempt(episode.folder).read_json("retrieval.json") or {}
    pages = [p for name in loaded.get("loaded", []) if (p := library.page(name))]
    return Evidence(verdicts, logs, outputs, pages)


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
