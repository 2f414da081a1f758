"""Front matter: the metadata block at the top of SKILL.md and of every page.

A skill's metadata is what retrieval reads first (`name`, `description`, `tags`, `inputs`,
`outputs`); a page's is `title`, `summary`, `keywords` and `sources`. Full bodies are loaded
only for the candidates chosen. `supersedes` names the artifacts a newer one replaces: lint
removes them and points their links at it.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from simulacra.errors import UserError

NAME_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
Name = Annotated[str, StringConstraints(min_length=1, max_length=64, pattern=NAME_PATTERN)]
Meta = TypeVar("Meta", bound=BaseModel)
LINK = re.compile(r"\[\[([^\[\]|#]+)(?:\|[^\[\]]*)?\]\]")


class FrontMatterError(UserError):
    """A file whose front matter is missing or does not validate."""


class SkillMeta(BaseModel):
    """SKILL.md's front matter. `inputs` are parameters (`grid`) or files the skill reads
    (`outputs/grid.net.xml`); `outputs` the files it writes; `links` other skills or pages."""

    model_config = ConfigDict(extra="forbid")

    name: Name
    description: str = Field(min_length=1, max_length=1024)
    tags: list[str] = Field(default_factory=list)
    inputs: list[str] = Field(default_factory=list)
    outputs: list[str] = Field(default_factory=list)
    links: list[str] = Field(default_factory=list)
    supersedes: list[str] = Field(default_factory=list, description="skills this one replaces")

    def text(self) -> str:
        """What retrieval matches: the metadata, not the body."""
        return f"{self.name.replace('-', ' ')}. {self.description} {' '.join(self.tags)}"


class PageMeta(BaseModel):
    """A semantic page's front matter; `sources` are episodes, documents or skills."""

    model_config = ConfigDict(extra="forbid")

    title: str = Field(min_length=1, max_length=200)
    summary: str = Field(min_length=1, max_length=1024)
    keywords: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)
    supersedes: list[str] = Field(default_factory=list, description="pages this one replaces")

    def text(self) -> str:
        return f"{self.title}. {self.summary} {' '.join(self.keywords)}"


def split(text: str, where: str) -> tuple[dict[str, Any], str]:
    """The front matter as a mapping, and the body after it."""
    if not text.startswith("---\n"):
        raise FrontMatterError(f"{where}: no front matter (the file must start with '---')")
    end = text.find("\n---", 4)
    if end < 0:
        raise FrontMatterError(f"{where}: front matter is not closed by a '---' line")
    try:
        data = yaml.safe_load(text[4:end]) or {}
    except yaml.YAMLError as exc:
        raise FrontMatterError(f"{where}: front matter is not YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise FrontMatterError(f"{where}: front matter must be a mapping of fields")
    body = text[end + 4 :].removeprefix("\n")
    return data, body


def parse_skill(text: str, where: str) -> tuple[SkillMeta, str]:
    return _parse(text, where, SkillMeta)


def parse_page(text: str, where: str) -> tuple[PageMeta, str]:
    return _parse(text, where, PageMeta)


def _parse(text: str, where: str, model: type[Meta]) -> tuple[Meta, str]:
    data, body = split(text, where)
    try:
        return model.model_validate(data), body
    except ValidationError as exc:
        raise FrontMatterError(f"{where}: {_fields(exc)}") from exc


def render(meta: BaseModel, body: str) -> str:
    data = meta.model_dump(exclude_defaults=True)
    head = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
    return f"---\n{head}---\n{body.rstrip()}\n"


def links(body: str) -> list[str]:
    """The names of [[links]] in a body, in order, each once."""
    return list(dict.fromkeys(m.group(1).strip() for m in LINK.finditer(body)))


def _fields(exc: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}" for err in exc.errors()
    )
