"""Who an agent is: the identity a scenario declares and the summary every prompt starts with."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Persona(BaseModel):
    """One character, as a scenario's YAML declares it. `home` names a place of the world."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    age: int = Field(ge=0)
    traits: list[str]
    background: str
    lifestyle: str = ""
    relationships: dict[str, str] = Field(default_factory=dict)
    currently: str = ""
    home: str = Field(min_length=1)

    def summary(self) -> str:
        """The identity summary: name, age, traits, background, lifestyle, what they are up to.

        It is the stable first part of every prompt, so that servers can cache the prefix.
        """
        lines = [
            f"Name: {self.name} (age {self.age})",
            f"Innate traits: {', '.join(self.traits) or 'none given'}",
            f"Background: {self.background}",
        ]
        if self.lifestyle:
            lines.append(f"Lifestyle: {self.lifestyle}")
        if self.currently:
            lines.append(f"Currently: {self.currently}")
        lines.append(f"Home: {self.home}")
        for other, relation in sorted(self.relationships.items()):
            lines.append(f"Knows {other}: {relation}")
        return "\n".join(lines)

    def relation_to(self, other_id: str, other_name: str) -> str:
        """What this persona's scenario says about another agent, by id or by name."""
        for key in (other_id, other_name):
            if key in self.relationships:
                return self.relationships[key]
        return ""
