"""The deterministic movement interpreter: free text in, one `Command` out.

A model is asked for its next single movement in words ("move forward 2 m", "turn right 30
degrees", "look up 10 degrees", "stay") and may reason aloud before it. The interpreter finds
every mention of a movement, anchored on a verb (move, walk, turn, look, stay ...) or on a
direction that opens a clause ("forward 2 m"), and resolves each category (translation, body
turn, gaze, stay) from its latest mention, since a model that reasons aloud concludes last.
A stay said after every movement wins over them; said before one, it is overridden ("wait"
and "don't move" before a movement are a pause or a refusal of one, not a stay overridden).

The prompt's own conventions hold: distances are in metres unless another unit is named, so
a number without a unit is metres for a distance ("move forward 3") and degrees for an angle
("turn left 60"); turning left is counter-clockwise, so clockwise is a right turn and
counter-clockwise or anticlockwise a left one. Units: m, metre(s), meter(s), cm, mm, ft,
foot, feet, inch(es); angles in degrees ("degrees", "deg", the degree sign); "turn around" is
180. Number words of any size ("thirty-five", "one hundred and twenty", "two point five").
Coordinates, "(4.0, 20.1)", are no distance. A direction without a size takes a stated
default (1 m, 30 degrees, 15 degrees of gaze) and says so in `notes`. A reply that gives a
translation and then a turn is applied in that order, and `order` records it. A reply with no
movement it can read is `readable=False`: no action is invented. Nothing here clamps: the
world applies its limits and records each clamp.
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
    # The order the body's parts move in: a reply's order as said, else turn, move, gaze.
    order: tuple[str, ...] = ("turn", "move", "gaze")

    @property
    def turns_first(self) -> bool:
        """Whether the body turns before it translates (it does unless told otherwise)."""
        said = [part for part in self.order if part in ("turn", "move")]
        return said != ["move", "turn"]

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
        said = {}
        if self.turn_deg:
            side = "left" if self.turn_deg > 0 else "right"
            said["turn"] = [f"turn {side} {abs(self.turn_deg):g} deg"]
        moves = []
        if self.forward_m:
            way = "forward" if self.forward_m > 0 else "backward"
            moves.append(f"move {way} {abs(self.forward_m):.2f} m")
        if self.right_m:
            side = "right" if self.right_m > 0 else "left"
            moves.append(f"move {side} {abs(self.right_m):.2f} m")
        if moves:
            said["move"] = moves
        if self.pitch_deg:
            way = "up" if self.pitch_deg > 0 else "down"
            said["gaze"] = [f"look {way} {abs(self.pitch_deg):g} deg"]
        order = [p for p in self.order if p in said] + [p for p in said if p not in self.order]
        parts = [text for part in order for text in said[part]]
        return ", then ".join(parts) or "no movement"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["notes"] = list(self.notes)
        data["order"] = list(self.order)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Command:
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        known["notes"] = tuple(str(n) for n in known.get("notes", ()))
        if "order" in known:
            known["order"] = tuple(str(p) for p in known["order"])
        return cls(**known)


UNREADABLE = Command(readable=False, notes=("no movement found in the reply",))

# --- normalising the text ----------------------------------------------------------------

_ONES = [
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen",
]  # fmt: skip
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_VALUES = {
    **{w: n for n, w in enumerate(_ONES)},
    **{w: 20 + 10 * n for n, w in enumerate(_TENS)},
    "hundred": 100,
    "thousand": 1000,
}
_NUMBER = "|".join(sorted(_VALUES, key=len, reverse=True))
_NUMBER_WORDS = re.compile(rf"\b(?:{_NUMBER})(?:(?:\s+and\s+|[\s-]+)(?:{_NUMBER}))*\b")
_A_SCALE = re.compile(r"\ba (?=hundred|thousand)\b")
_POINT = re.compile(r"\b(\d+) point (\d+)\b")
_HALF = re.compile(r"\bhalf an? (?=[a-z])")
_AND_A_HALF = re.compile(r"\b(\d+) and a half\b")
_BODY_PART = re.compile(r"\b(?:your|my|the) (?:head|gaze|eyes|view|camera)\b")
_A_UNIT = re.compile(r"\b(?:a|an) (?=(?:metre|meter|foot|inch|degree)s?\b)")
_COORDINATES = re.compile(r"\(\s*-?\d+(?:\.\d+)?\s*,\s*-?\d+(?:\.\d+)?\s*\)")
# Turning left is counter-clockwise (the prompt's convention).
_ANTICLOCKWISE = re.compile(r"\b(?:counter|anti)[\s-]?clockwise\b")
_CLOCKWISE = re.compile(r"\bclockwise\b")


def _numbers(match: re.Match[str]) -> str:
    """Number words as digits: "thirty-five" 35, "one hundred and twenty" 120; words that
    cannot make one number ("two three", "two and three") stay apart."""
    out: list[str] = []
    total = current = 0
    have, last = False, ""

    def flush(joint: str) -> None:
        nonlocal total, current, have
        if have:
            out.append(f"{total + current}")
            if joint:
                out.append(joint)
        total = current = 0
        have = False

    for word in re.findall(r"[a-z]+", match.group(0)):
        if word == "and":
            if last != "scale":
                flush("and")
                last = ""
            continue
        value = _VALUES[word]
        if value >= 100:
            if value == 100:
                current = (current or 1) * 100
            else:
                total, current = total + (current or 1) * 1000, 0
            have, last = True, "scale"
            continue
        kind = "tens" if value >= 20 else "ones"
        joins = last == "scale" or (last == "tens" and kind == "ones" and current % 10 == 0)
        if have and not joins:
            flush("")
        current += value
        have, last = True, kind
    flush("")
    return " ".join(out)


def _normalise(text: str) -> str:
    text = text.lower()
    for old, new in (("’", "'"), ("‘", "'"), ("“", '"'), ("”", '"'), ("–", "-"), ("—", "-")):
        text = text.replace(old, new)
    text = text.replace("°", " degrees ")
    text = _COORDINATES.sub(" (a position) ", text)
    text = _ANTICLOCKWISE.sub("left", text)
    text = _CLOCKWISE.sub("right", text)
    text = _BODY_PART.sub(" ", text)
    text = _HALF.sub("0.5 ", text)
    text = _A_UNIT.sub("1 ", text)
    text = _A_SCALE.sub("one ", text)
    text = _NUMBER_WORDS.sub(_numbers, text)
    text = _POINT.sub(r"\1.\2", text)
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
# "Wait" and "don't move" before a movement pause or refuse one; they override nothing.
_SOFT_STAYS = ("wait", "don't move", "do not move", "no movement", "hold still", "stand still",
               "standing still")  # fmt: skip
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


# A number without a unit counts where it sizes a movement: first in the mention or after a
# direction ("move forward 3", "turn left 60", "rotate by 45"), and followed by nothing more
# or by a clause's end, a direction or "and"/"then" ("rack 3" is a name, "3 racks" a count).
_NUMBER_AT = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.]*\d)")
_SIZES_AFTER = frozenset(
    {*_LONGITUDINAL, *_LATERAL, "up", "down", "by", "about", "around", "roughly",
     "approximately", "another", "further", "only", "just"}
)  # fmt: skip
_ENDS_SIZE = re.compile(
    r"\s*(?:$|[,;:!?)]|\.(?!\d)|(?:and|then|to|towards?|more|forwards?|backwards?|ahead|back|"
    r"left|right|up|down|straight)\b)"
)


@dataclass(frozen=True)
class _Mention:
    at: int
    category: str  # "move", "turn", "gaze" or "stay"
    command: Command
    soft: bool = False  # a stay that a later movement supersedes without overriding it


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
        joined = previous is not None and not _CLAUSE_END.search(norm, previous.at, anchor.start())
        after = previous.category if joined and previous is not None else None
        mention = _mention(anchor, norm[anchor.end() : end], norm[: anchor.start()], after)
        if mention is None:
            continue
        if anchor.lastgroup == "bare" and after == "move" and previous is not None:
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


def _mention(anchor: re.Match[str], window: str, before: str, after: str | None) -> _Mention | None:
    """One mention from its anchor, the text after it up to the next anchor or the clause's
    end (`window`), the text before it, and the category of the mention it continues
    (`after`: "move forward 1 m and left 0.5 m"), if any."""
    kind = anchor.lastgroup or ""
    word = anchor.group(kind).strip()
    if kind != "stay" and _NEGATION.search(before[-40:]):
        return None
    if kind == "stay":
        negatable = not word.startswith(("don't", "do not", "no movement"))
        if negatable and _NEGATION.search(before[-40:]):
            return None
        soft = word.startswith(_SOFT_STAYS)
        return _Mention(anchor.start(), "stay", Command(stay=True), soft=soft)
    if kind == "bare":
        window = word + window
        word = ""
    quantities = [
        (m.start(), float(m.group("num")), m.group("unit")) for m in _QUANTITY.finditer(window)
    ]
    distances = [(at, n * _METRES[u]) for at, n, u in quantities if u in _METRES]
    angles = [(at, n) for at, n, u in quantities if u in _DEGREES]
    unitless = _unitless(window, {at for at, _, _ in quantities})
    sizes = [*quantities, *((at, n, "") for at, n in unitless)]
    reach = _reach(window, sizes, 3 if kind == "bare" else _WORDS_TO_DIRECTION)
    directions = [(m.start(), m.group(1)) for m in _DIRECTION.finditer(window) if m.start() < reach]
    if word.startswith("back up") or word.startswith("backing up"):
        directions.insert(0, (-1, "back"))
    if kind == "bare":
        first = directions[0][1] if directions else ""
        kind = "move" if distances else "turn" if angles else ""
        if not kind and unitless:
            # A bare size takes its sense from the direction, or from the mention it goes on.
            kind = (
                "move"
                if first in _LONGITUDINAL
                else "gaze"
                if first in ("up", "down")
                else after or ""
            )
            kind = kind if kind in ("move", "turn", "gaze") else ""
        if kind == "turn" and first in ("up", "down"):
            kind = "gaze"
        if not kind:
            return None
    notes: tuple[str, ...] = ()
    if unitless and not (distances or angles):
        unit = "metres" if kind == "move" else "degrees"
        shown = ", ".join(f"{n:g}" for _, n in unitless)
        notes = (f"{shown} without a unit: {unit}, as the conventions say",)
        if kind == "move":
            distances = unitless
        else:
            angles = unitless
    found = _sized(anchor.start(), kind, word, window, directions, distances, angles)
    return None if found is None else _with_more_notes(found, notes)


def _unitless(window: str, sized: set[int]) -> list[tuple[int, float]]:
    """The numbers in `window` that size the movement without a unit (see _NUMBER_AT)."""
    found = []
    for number in _NUMBER_AT.finditer(window):
        if number.start() in sized:
            continue
        words = window[: number.start()].split()
        if words and words[-1] not in _SIZES_AFTER:
            continue
        if not _ENDS_SIZE.match(window, number.end()):
            continue
        found.append((number.start(), float(number.group())))
    return found


def _sized(
    at: int,
    kind: str,
    word: str,
    window: str,
    directions: list[tuple[int, str]],
    distances: list[tuple[int, float]],
    angles: list[tuple[int, float]],
) -> _Mention | None:
    if kind == "move":
        if angles and not distances and any(d in _LATERAL for _, d in directions):
            return _turn(at, directions, angles)
        return _move(at, word, window, directions, distances)
    if kind == "turn":
        return _turn(at, directions, angles)
    sides = [d for _, d in directions if d in ("up", "down", "left", "right")]
    if sides and sides[0] in _LATERAL:  # the gaze only tilts; looking sideways turns the body
        turned = _turn(at, directions, angles)
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
        return _Mention(at, "gaze", Command(pitch_deg=sign * angles[0][1]))
    note = f"no angle given; {DEFAULT_GAZE_DEG:g} degrees assumed"
    return _Mention(at, "gaze", Command(pitch_deg=sign * DEFAULT_GAZE_DEG, notes=(note,)))


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
    return Command.from_dict({**command.to_dict(), "notes": notes})


def _with_more_notes(mention: _Mention, notes: tuple[str, ...]) -> _Mention:
    if not notes:
        return mention
    command = _with_notes(mention.command, (*mention.command.notes, *notes))
    return _Mention(mention.at, mention.category, command, mention.soft)


def _resolve(latest: dict[str, _Mention]) -> Command:
    if not latest:
        return UNREADABLE
    moves = sorted((m for k, m in latest.items() if k != "stay"), key=lambda m: m.at)
    stay = latest.get("stay")
    if stay is not None and all(m.at < stay.at for m in moves):
        why = ("a later stay overrides earlier movements",) if moves else ()
        return Command(stay=True, notes=why)
    notes: list[str] = []
    if stay is not None and not stay.soft:
        notes.append("an earlier stay was overridden by a later movement")
    fields: dict[str, float] = {}
    for mention in moves:
        command = mention.command
        if mention.category == "move":
            fields |= {"forward_m": command.forward_m, "right_m": command.right_m}
        elif mention.category == "turn":
            fields["turn_deg"] = command.turn_deg
        else:
            fields["pitch_deg"] = command.pitch_deg
        notes.extend(command.notes)
    order = tuple(m.category for m in moves)
    command = Command(**fields, notes=tuple(notes), order=order)  # type: ignore[arg-type]
    if command.turns_first:
        return command
    return _with_notes(command, (*notes, "the translation comes first, as said, then the turn"))
