"""Memory lint: front matter valid, links resolve, scripts parse, referenced files exist,
near-duplicates merged, superseded items removed (those a newer skill or page declares it
`supersedes`, their links pointed at it). Repairs are made only where the fix is certain, and
each is logged.

An incremental lint (after every N changes) checks the changed artifacts against the whole
collection; a full lint checks everything.
"""

from __future__ import annotations

import ast
import re
import subprocess
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from simulacra.lab.front import (
    LINK,
    FrontMatterError,
    SkillMeta,
    links,
    parse_page,
    parse_skill,
    render,
    split,
)
from simulacra.lab.library import Library, Skill
from simulacra.lab.retrieval import words

DUPLICATE_OVERLAP = 0.8  # word overlap of two descriptions (Jaccard) that makes a duplicate
_SCRIPT_REF = re.compile(r"skills/([a-z0-9-]+)/(scripts/[\w./-]+\.(?:py|sh))")


@dataclass(frozen=True)
class LintFinding:
    artifact: str
    check: str
    message: str
    repaired: bool = False


@dataclass
class LintReport:
    checked: int = 0
    findings: list[LintFinding] = field(default_factory=list)

    @property
    def repairs(self) -> list[LintFinding]:
        return [f for f in self.findings if f.repaired]

    @property
    def open(self) -> list[LintFinding]:
        return [f for f in self.findings if not f.repaired]


def lint(library: Library, changed: Collection[str] | None = None) -> LintReport:
    """Lint `changed` artifacts (skill or page names) against the library, or all of them.
    Repairs are committed in one commit and logged in log.md."""
    report = LintReport()
    _front_matter(library, report, changed)
    _scripts(library, report, changed)
    _superseded(library, report, changed)
    _duplicates(library, report, changed)
    _links(library, report)
    for finding in report.repairs:
        library.append_log(f"lint repair: {finding.artifact}: {finding.message}")
    for finding in report.open:
        library.append_log(f"lint finding: {finding.artifact}: {finding.message}")
    library.append_log(
        f"lint ({'full' if changed is None else f'{len(changed)} changed'}): "
        f"{report.checked} artifacts, {len(report.repairs)} repairs, {len(report.open)} open"
    )
    library.write_index()
    library.commit(f"lint: {len(report.repairs)} repairs, {len(report.open)} open findings")
    return report


def _wanted(name: str, changed: Collection[str] | None) -> bool:
    return changed is None or name in changed


def _front_matter(library: Library, report: LintReport, changed: Collection[str] | None) -> None:
    for path in sorted((library.root / "skills").glob("*/SKILL.md")):
        folder = path.parent.name
        if not _wanted(folder, changed):
            continue
        report.checked += 1
        where = f"skills/{folder}"
        text = path.read_text(encoding="utf-8")
        try:
            data, body = split(text, where)
            if data.get("name") != folder:  # the folder is the skill's name: make them agree
                data["name"] = folder
                meta = SkillMeta.model_validate(data)
                path.write_text(render(meta, body), encoding="utf-8")
                report.findings.append(
                    LintFinding(where, "front matter", f"name set to the folder's, {folder}", True)
                )
            else:
                SkillMeta.model_validate(data)
        except (FrontMatterError, ValidationError) as exc:
            report.findings.append(LintFinding(where, "front matter", str(exc).splitlines()[0]))
    for path in sorted((library.root / "pages").glob("*.md")):
        if not _wanted(path.stem, changed):
            continue
        report.checked += 1
        try:
            parse_page(path.read_text(encoding="utf-8"), f"pages/{path.name}")
        except FrontMatterError as exc:
            report.findings.append(LintFinding(f"pages/{path.name}", "front matter", str(exc)))


def _scripts(library: Library, report: LintReport, changed: Collection[str] | None) -> None:
    for skill in library.skills():
        if not _wanted(skill.meta.name, changed):
            continue
        where = f"skills/{skill.meta.name}"
        for script in skill.scripts:
            problem = script_problem(script.name, script.read_text(encoding="utf-8"))
            if problem:
                report.findings.append(LintFinding(where, "scripts parse", problem))
        for name, relative in _SCRIPT_REF.findall(skill.body):
            if not (library.root / "skills" / name / relative).exists():
                report.findings.append(
                    LintFinding(
                        where, "referenced files", f"skills/{name}/{relative} does not exist"
                    )
                )


def script_problem(name: str, text: str) -> str | None:
    """Why a script does not parse, or None."""
    if name.endswith(".py"):
        try:
            ast.parse(text, filename=name)
        except SyntaxError as exc:
            return f"{name}: line {exc.lineno}: {exc.msg}"
    elif name.endswith(".sh"):
        done = subprocess.run(["bash", "-n"], input=text, capture_output=True, text=True)
        if done.returncode != 0:
            return f"{name}: {done.stderr.strip()}"
    return None


def _superseded(library: Library, report: LintReport, changed: Collection[str] | None) -> None:
    """Remove what a newer artifact declares it replaces, and point links at the newer one."""
    declared = [(s.meta.name, s.meta.supersedes) for s in library.skills()]
    declared += [(p.name, p.meta.supersedes) for p in library.pages()]
    for newer, older in declared:
        if not _wanted(newer, changed):
            continue
        for name in older:
            if name == newer:
                continue
            if library.skill(name) is not None:
                library.remove_skill(name)
                where = f"skills/{name}"
            elif library.page(name) is not None:
                library.remove_page(name)
                where = f"pages/{name}.md"
            else:
                continue
            _redirect(library, name, newer)
            report.findings.append(
                LintFinding(where, "superseded", f"removed: {newer} replaces it", True)
            )


def _duplicates(library: Library, report: LintReport, changed: Collection[str] | None) -> None:
    skills = library.skills()
    gone: set[str] = set()
    for skill in skills:
        if not _wanted(skill.meta.name, changed) or skill.meta.name in gone:
            continue
        for other in skills:
            if other.meta.name in gone or other.meta.name == skill.meta.name:
                continue
            if _same(skill, other):
                keep, drop = sorted((skill, other), key=_seniority)
                library.remove_skill(drop.meta.name)
                _redirect(library, drop.meta.name, keep.meta.name)
                gone.add(drop.meta.name)
                report.findings.append(
                    LintFinding(
                        f"skills/{drop.meta.name}",
                        "near-duplicate",
                        f"merged into {keep.meta.name} (same outputs, same description)",
                        True,
                    )
                )
                break


def _same(a: Skill, b: Skill) -> bool:
    if set(a.meta.outputs) != set(b.meta.outputs):
        return False
    wa, wb = set(words(a.meta.description)), set(words(b.meta.description))
    return len(wa & wb) / max(len(wa | wb), 1) >= DUPLICATE_OVERLAP


def _seniority(skill: Skill) -> tuple[int, str]:
    """The skill others link to more stays; then the shorter, then the alphabetically first."""
    return (-len(skill.meta.links), f"{len(skill.meta.name):03d}{skill.meta.name}")


def _redirect(library: Library, old: str, new: str) -> None:
    for path in _documents(library):
        text = path.read_text(encoding="utf-8")
        updated = text.replace(f"[[{old}]]", f"[[{new}]]").replace(
            f"skills/{old}/", f"skills/{new}/"
        )
        updated = _map_links(path, updated, lambda name: new if name == old else name)
        if updated != text:
            path.write_text(updated, encoding="utf-8")


def _links(library: Library, report: LintReport) -> None:
    known = library.names()
    for path in _documents(library):
        text = path.read_text(encoding="utf-8")
        broken = {name for name in links(text) if name not in known}
        repaired = LINK.sub(lambda m: m.group(0) if m.group(1) in known else m.group(1), text)
        repaired = _map_links(path, repaired, lambda name: name if name in known else None)
        if repaired == text:
            continue
        if path.name == "SKILL.md":
            broken |= set(split(text, path.name)[0].get("links", [])) - known
        path.write_text(repaired, encoding="utf-8")
        where = str(path.relative_to(library.root))
        report.findings.append(
            LintFinding(where, "links resolve", f"removed links to missing {sorted(broken)}", True)
        )


def _map_links(path: Path, text: str, rename: Callable[[str], str | None]) -> str:
    """A SKILL.md with each front-matter link renamed (None drops it); other files as they are."""
    if path.name != "SKILL.md":
        return text
    try:
        meta, body = parse_skill(text, path.name)
    except FrontMatterError:
        return text
    mapped = [n for n in (rename(name) for name in meta.links) if n is not None]
    if mapped == meta.links:
        return text
    return render(meta.model_copy(update={"links": list(dict.fromkeys(mapped))}), body)


def _documents(library: Library) -> Iterator[Path]:
    yield from sorted((library.root / "skills").glob("*/SKILL.md"))
    yield from sorted((library.root / "pages").glob("*.md"))
