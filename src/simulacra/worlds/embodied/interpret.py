"""The deterministic movement interpreter: free text in, one `Command` out.

A model is asked for its next single movement in words ("move forward 2 m", "turn right 30
degrees", "look up 10 degrees", "stay") and may reason aloud before it. The interpreter finds
every mention of a movement, anchored on a verb (move, walk, turn, look, stay ...) or on a
direction that opens a clause ("forward 2 m"), and resolves each category (translation, body
turn, gaze, stay) from its latest mention, since a model that reasons aloud concludes last.
A stay said after every movement wins over them; said before one, it is overridden.

Units: m, metre(s), meter(s), cm, mm, ft, foot, feet, inch(es), and number words up to twenty;
angles in degrees ("degrees", "deg", the degree sign); "turn around" is 180. A direction
without a size takes a stated default (1 m, 30 degrees, 15 degrees of gaze) and says so in
`notes`. A reply with no movement it can read is `readable=False`: no action is invented.
Nothing here clamps: the world applies its limits and records each clamp.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

DEFAULT_STEP_M = 1.0
DEFAULT_TURN_DEG = 30.0
DEFAULT_GAZE_DEG = 15.0


@dataclass(frozen=True)
class Command:
    """One decision's movement. Signs: `forward_m` > 0 forward, < 0 backward; `right_m` > 0
    right, < 0 left; `turn_deg` > 0 left (counter-clockwise); `pitch_deg` > 0 up."""

    forward_m: float = 0.0
    right_m: float = 0.0
    turn_deg: float = 0.0
    pitch_deg: float = 0.0
    stay: bool = False
    readable: bool = True
    notes: tuple[str, ...] = ()

    @property
    def idle(self) -> bool:
        """Nothing moves: a stay, an unreadable reply, or all zeros."""
        moves = (self.forward_m, self.right_m, self.turn_deg, self.pitch_deg)
        return self.stay or not self.readable or not any(moves)

    def describe(self) -> str:
        """The command in words, as history lines and logs show it."""
        if not self.readable:
            return "no movement could be read"
        if self.stay:
            return "stay"
        parts = []
        if self.turn_deg:
            side = "left" if self.turn_deg > 0 else "right"
            parts.append(f"turn {side} {abs(self.turn_deg):g} deg")
        if self.forward_m:
            way = "forward" if self.forward_m > 0 else "backward"
            parts.append(f"move {way} {abs(self.forward_m):.2f} m")
        if self.right_m:
            side = "right" if self.right_m > 0 else "left"
            parts.append(f"move {side} {abs(self.right_m):.2f} m")
        if self.pitch_deg:
            way = "up" if self.pitch_deg > 0 else "down"
            parts.append(f"look {way} {abs(self.pitch_deg):g} deg")
        return ", then ".join(parts) or "no movement"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["notes"] = list(self.notes)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Command:
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        known["notes"] = tuple(str(n) for n in known.get("notes", ()))
        return cls(**known)


UNREADABLE = Command(readable=False, notes=("no movement found in the reply",))

# --- normalising the text ----------------------------------------------------------------

_WORDS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
]
_NUMBER_WORD = re.compile(r"\b(" + "|".join(_WORDS) + r")\b")
_HALF = re.compile(r"\bhalf an? (?=[a-z])")
_AND_A_HALF = re.compile(r"\b(\d+) and a half\b")
_BODY_PART = re.compile(r"\b(?:your|my|the) (?:head|gaze|eyes|view|camera)\b")
_A_UNIT = re.compile(r"\b(?:a|an|one) (?=(?:metre|meter|foot|inch|degree)s?\b)")


def _normalise(text: str) -> str:
    text = text.lower()
    for old, new in (("’", "'"), ("‘", "'"), ("“", '"'), ("”", '"'), ("–", "-"), ("—", "-")):
        text = text.replace(old, new)
    text = text.replace("°", " degrees ")
    text = _BODY_PART.sub(" ", text)
    text = _HALF.sub("0.5 ", text)
    text = _A_UNIT.sub("1 ", text)
    text = _NUMBER_WORD.sub(lambda m: str(_WORDS.index(m.group(1))), text)
    return _AND_A_HALF.sub(lambda m: f"{int(m.group(1)) + 0.5:g}", text)


# --- the pieces a mention is made of -----------------------------------------------------

_METRES = {
    "m": 1.0, "metre": 1.0, "metres": 1.0, "meter": 1.0, "meters": 1.0,
    "cm": 0.01, "centimetre": 0.01, "centimetres": 0.01, "centimeter": 0.01,
    "centimeters": 0.01, "mm": 0.001, "millimetre": 0.001, "millimetres": 0.001,
    "millimeter": 0.001, "millimeters": 0.001, "ft": 0.3048, "foot": 0.3048,
    "feet": 0.3048, "inch": 0.0254, "inches": 0.0254,
}  # fmt: skip
_DEGREES = ("degrees", "degree", "degs", "deg")
_UNITS = sorted([*_METRES, *_DEGREES], key=len, reverse=True)
_QUANTITY = re.compile(
    r"(?<![\w.])(?P<num>\d+(?:\.\d+)?|\.\d+)\s*-?\s*(?P<unit>" + "|".join(_UNITS) + r")\b"
)
_DIRECTION = re.compile(r"\b(forwards?|ahead|straight|backwards?|back|left|right|up|down|around)\b")
_LONGITUDINAL = {"forward": 1.0, "forwards": 1.0, "ahead": 1.0, "straight": 1.0,
                 "backward": -1.0, "backwards": -1.0, "back": -1.0}  # fmt: skip
_LATERAL = {"left": -1.0, "right": 1.0}

_MOVE = (
    r"move|moving|moves|walk|walking|walks|go|going|goes|step|steps|stepping|head|heading|"
    r"advance|advancing|proceed|proceeding|travel|travelling|traveling|strafe|strafing|shift|"
    r"shifting|back up|backing up|approach|approaching|continue|continuing|keep going|run|"
    r"running|come|coming|get closer|getting closer|sidestep|slide|drive"
)
_TURN = r"turn|turning|turns|rotate|rotating|rotates|pivot|pivoting|spin|spinning|veer|swivel"
_GAZE = r"look|looking|looks|tilt|tilting|gaze|glance|glancing|pitch|raise|lower|peer"
_STAY = (
    r"stay|staying|stop|stopping|remain|remaining|wait|waiting|hold position|hold still|"
    r"stand still|standing still|don't move|do not move|no movement|"
    r"i(?: have|'ve)? arrived|i am done|i'm done|i have reached|i've reached|"
    r"task (?:is )?(?:complete|completed|done|accomplished)"
)
_ANCHOR = re.compile(
    rf"\b(?P<move>{_MOVE})\b|\b(?P<turn>{_TURN})\b|\b(?P<gaze>{_GAZE})\b|(?<!\w)(?P<stay>{_STAY})\b"
    r"|(?:^|(?<=[.:;!?\n\"*(\-])|(?<=\bthen)|(?<=\band)|(?<=,))\s*"
    r"(?P<bare>forwards?|ahead|backwards?|left|right|up|down)\b"
)
_CLAUSE_END = re.compile(r"[!?;\n]|\.(?!\d)")
_NEGATION = re.compile(
    r"(?:\bnot|n't|\bnever|\bno need to|\bwithout|\binstead of|\bavoid|\brather than|"
    r"\bcannot)\s+(?:\w+\s+){0,2}$"
)
# A translation verb with neither direction nor distance still says "forward" when it goes
# somewhere: "approach the logo", "walk towards the hatch".
_FORWARD_VERBS = re.compile(r"^(approach|advance|proceed|continue|keep going|get closer|come)")
_TOWARDS = re.compile(r"^\s*(?:\w+\s+){0,1}(?:to|towards?|toward|closer|into|through|up to)\b")


@dataclass(frozen=True)
class _Mention:
    at: int
    category: str  # "move", "turn", "gaze" or "stay"
    command: Command


def interpret(text: str) -> Command:
    """The movement `text` asks for; see the module's docstring. Never raises."""
    if not isinstance(text, str) or not text.strip():
        return Command(readable=False, notes=("empty reply",))
    norm = _normalise(text[:20_000])
    anchors = list(_ANCHOR.finditer(norm))
    latest: dict[str, _Mention] = {}
    previous: _Mention | None = None
    for index, anchor in enumerate(anchors):
        end = anchors[index + 1].start() if index + 1 < len(anchors) else len(norm)
        clause = _CLAUSE_END.search(norm, anchor.end())
        if clause is not None:
            end = min(end, clause.start())
        mention = _mention(anchor, norm[anchor.end() : end], norm[: anchor.start()])
        if mention is None:
            continue
        joined = previous is not None and not _CLAUSE_END.search(norm, previous.at, mention.at)
        if anchor.lastgroup == "bare" and joined and previous and previous.category == "move":
            mention = _joined(previous, mention)  # "move forward 1 m and left 0.5 m"
        latest[mention.category] = mention
        previous = mention
    return _resolve(latest)


def _joined(first: _Mention, second: _Mention) -> _Mention:
    if second.category != "move":
        return second
    a, b = first.command, second.command
    command = Command(
        forward_m=b.forward_m or a.forward_m,
        right_m=b.right_m or a.right_m,
        notes=(*a.notes, *b.notes),
    )
    return _Mention(second.at, "move", command)


def _mention(anchor: re.Match[str], window: str, before: str) -> _Mention | None:
    kind = anchor.lastgroup or ""
    word = anchor.group(kind).strip()
    if kind != "stay" and _NEGATION.search(before[-40:]):
        return None
    if kind == "stay":
        negatable = not word.startswith(("don't", "do not", "no movement"))
        if negatable and _NEGATION.search(before[-40:]):
            return None
        return _Mention(anchor.start(), "stay", Command(stay=True))
    if kind == "bare":
        window = word + window
        word = ""
    quantities = [
        (m.start(), float(m.group("num")), m.group("unit")) for m in _QUANTITY.finditer(window)
    ]
    distances = [(at, n * _METRES[u]) for at, n, u in quantities if u in _METRES]
    angles = [(at, n) for at, n, u in quantities if u in _DEGREES]
    reach = _reach(window, quantities, 3 if kind == "bare" else _WORDS_TO_DIRECTION)
    directions = [(m.start(), m.group(1)) for m in _DIRECTION.finditer(window) if m.start() < reach]
    if word.startswith("back up") or word.startswith("backing up"):
        directions.insert(0, (-1, "back"))
    if kind == "bare":
        kind = "move" if distances else "turn" if angles else ""
        if kind == "turn" and any(d in ("up", "down") for _, d in directions[:1]):
            kind = "gaze"
        if not kind:
            return None
    if kind == "move":
        if angles and not distances and any(d in _LATERAL for _, d in directions):
            return _turn(anchor.start(), directions, angles)
        return _move(anchor.start(), word, window, directions, distances)
    if kind == "turn":
        return _turn(anchor.start(), directions, angles)
    sides = [d for _, d in directions if d in ("up", "down", "left", "right")]
    if sides and sides[0] in _LATERAL:  # the gaze only tilts; looking sideways turns the body
        turned = _turn(anchor.start(), directions, angles)
        if turned is None:
            return None
        notes = (*turned.command.notes, "looking sideways turns the body")
        return _Mention(turned.at, "turn", _with_notes(turned.command, notes))
    if word in ("raise", "lower") and not sides:
        sides = ["up" if word == "raise" else "down"]
    if not sides:
        return None
    sign = 1.0 if sides[0] == "up" else -1.0
    if angles:
        return _Mention(anchor.start(), "gaze", Command(pitch_deg=sign * angles[0][1]))
    note = f"no angle given; {DEFAULT_GAZE_DEG:g} degrees assumed"
    return _Mention(
        anchor.start(), "gaze", Command(pitch_deg=sign * DEFAULT_GAZE_DEG, notes=(note,))
    )


_WORDS_TO_DIRECTION = 4  # "turn slowly to the left": a direction further off describes a scene
_WORD = re.compile(r"\S+")


def _reach(window: str, quantities: list[tuple[int, float, str]], words: int) -> int:
    """Where a mention's direction may lie: within its first `words` words, or just after
    one of its sizes ("turn 30 degrees to the left")."""
    spans = list(_WORD.finditer(window))
    reach = spans[words - 1].end() if len(spans) >= words else len(window)
    for at, _, _ in quantities:
        after = [m for m in spans if m.start() >= at]
        if after:
            reach = max(reach, after[min(4, len(after) - 1)].end())
    return reach


def _move(
    at: int,
    verb: str,
    window: str,
    directions: list[tuple[int, str]],
    distances: list[tuple[int, float]],
) -> _Mention | None:
    ways = [(p, d) for p, d in directions if d in _LONGITUDINAL or d in _LATERAL]
    notes: list[str] = []
    if not ways:
        goes = _FORWARD_VERBS.match(verb) or _TOWARDS.match(window) or distances
        if not goes:
            return None
        ways = [(-1, "forward")]
        notes.append("no direction given; forward assumed")
    forward = right = 0.0
    if distances:
        for position, size in distances:
            preceding = [w for w in ways if w[0] <= position]
            _, way = preceding[-1] if preceding else ways[0]
            if way in _LONGITUDINAL:
                forward = _LONGITUDINAL[way] * size
            else:
                right = _LATERAL[way] * size
    else:
        _, way = ways[0]
        notes.append(f"no distance given; {DEFAULT_STEP_M:g} m assumed")
        if way in _LONGITUDINAL:
            forward = _LONGITUDINAL[way] * DEFAULT_STEP_M
        else:
            right = _LATERAL[way] * DEFAULT_STEP_M
    return _Mention(at, "move", Command(forward_m=forward, right_m=right, notes=tuple(notes)))


def _turn(
    at: int, directions: list[tuple[int, str]], angles: list[tuple[int, float]]
) -> _Mention | None:
    sides = [d for _, d in directions if d in ("left", "right", "around", "back")]
    if sides and sides[0] in ("around", "back"):
        return _Mention(at, "turn", Command(turn_deg=180.0, notes=("turn around: 180 degrees",)))
    if not sides:
        if angles and angles[0][1] % 360 == 180:
            return _Mention(at, "turn", Command(turn_deg=180.0))
        return None  # a turn with no side cannot be read
    sign = 1.0 if sides[0] == "left" else -1.0
    if angles:
        return _Mention(at, "turn", Command(turn_deg=sign * angles[0][1]))
    note = f"no angle given; {DEFAULT_TURN_DEG:g} degrees assumed"
    return _Mention(at, "turn", Command(turn_deg=sign * DEFAULT_TURN_DEG, notes=(note,)))


def _with_notes(command: Command, notes: tuple[str, ...]) -> Command:
    return Command(**{**command.to_dict(), "notes": notes})


def _resolve(latest: dict[str, _Mention]) -> Command:
    if not latest:
        return UNREADABLE
    moves = [m for k, m in latest.items() if k != "stay"]
    stay = latest.get("stay")
    if stay is not None and all(m.at < stay.at for m in moves):
        why = ("a later stay overrides earlier movements",) if moves else ()
        return Command(stay=True, notes=why)
    notes: list[str] = []
    if stay is not None:
        notes.append("an earlier stay was overridden by a later movement")
    fields: dict[str, float] = {}
    for mention in sorted(moves, key=lambda m: m.at):
        command = mention.command
        if mention.category == "move":
            fields |= {"forward_m": command.forward_m, "right_m": command.right_m}
        elif mention.category == "turn":
            fields["turn_deg"] = command.turn_deg
        else:
            fields["pitch_deg"] = command.pitch_deg
        notes.extend(command.notes)
    return Command(**fields, notes=tuple(notes))  # type: ignore[arg-type]
