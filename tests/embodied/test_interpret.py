"""The movement interpreter: a golden table of replies and their commands, and properties
(it never raises; the latest mention of each category wins)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulacra.worlds.embodied import Command, interpret

# reply -> (forward_m, right_m, turn_deg, pitch_deg, stay, readable)
GOLDEN = [
    ("move forward 2 m", (2.0, 0, 0, 0, False, True)),
    ("turn right 30 degrees", (0, 0, -30.0, 0, False, True)),
    ("look up 30 degrees", (0, 0, 0, 30.0, False, True)),
    ("stay", (0, 0, 0, 0, True, True)),
    ("Walk two meters straight ahead.", (2.0, 0, 0, 0, False, True)),
    ("move back 50 cm", (-0.5, 0, 0, 0, False, True)),
    ("step to the left 1 metre", (0, -1.0, 0, 0, False, True)),
    ("strafe right 6 inches", (0, 0.1524, 0, 0, False, True)),
    ("forward 3 feet", (0.9144, 0, 0, 0, False, True)),
    ("Move forward 1 foot", (0.3048, 0, 0, 0, False, True)),
    ("move forward 250 mm", (0.25, 0, 0, 0, False, True)),
    ("move forward one and a half metres", (1.5, 0, 0, 0, False, True)),
    ("move forward half a metre", (0.5, 0, 0, 0, False, True)),
    ("go ahead twenty metres", (20.0, 0, 0, 0, False, True)),
    ("turn left 45°", (0, 0, 45.0, 0, False, True)),
    ("rotate 90 deg to the right", (0, 0, -90.0, 0, False, True)),
    ("turn 45 degrees to the right", (0, 0, -45.0, 0, False, True)),
    ("turn around", (0, 0, 180.0, 0, False, True)),
    ("turn 180 degrees", (0, 0, 180.0, 0, False, True)),
    ("tilt your head down 10 degrees", (0, 0, 0, -10.0, False, True)),
    ("raise your gaze by 20°", (0, 0, 0, 20.0, False, True)),
    ("Look down.", (0, 0, 0, -15.0, False, True)),
    ("then left 45 degrees", (0, 0, 45.0, 0, False, True)),
    ("turn left 30 degrees and move forward 2 m", (2.0, 0, 30.0, 0, False, True)),
    ("move forward 1 m and left 0.5 m", (1.0, -0.5, 0, 0, False, True)),
    ("approach the logo", (1.0, 0, 0, 0, False, True)),
    ("don't move", (0, 0, 0, 0, True, True)),
    ("I have arrived.", (0, 0, 0, 0, True, True)),
    ("Move forward 2 m. Actually, stay.", (0, 0, 0, 0, True, True)),
    ("Stay here? No: turn left 90 degrees.", (0, 0, 90.0, 0, False, True)),
    ("I shouldn't stay here. move back 1 m", (-1.0, 0, 0, 0, False, True)),
    ("I will not move forward 2 m; turn right 20 degrees", (0, 0, -20.0, 0, False, True)),
    (
        "I see racks on both sides. The logo is 9 m ahead, a little to the right. "
        "I will turn right 6 degrees and move forward 2 m.",
        (2.0, 0, -6.0, 0, False, True),
    ),
    (
        "Looking at the image, the logo is to the left. Next movement: forward 1.5 metres.",
        (1.5, 0, 0, 0, False, True),
    ),
    ("move forward 3 m. Hmm, move forward 1 m instead.", (1.0, 0, 0, 0, False, True)),
    ("The corridor is long and bright.", (0, 0, 0, 0, False, False)),
    ("", (0, 0, 0, 0, False, False)),
    ("turn 30 degrees", (0, 0, 0, 0, False, False)),  # no side: not read, not guessed
    # The prompt's conventions: a bare number is metres for a distance, degrees for an angle.
    ("move forward 3", (3.0, 0, 0, 0, False, True)),
    ("Move forward 3.", (3.0, 0, 0, 0, False, True)),
    ("turn left 60", (0, 0, 60.0, 0, False, True)),
    ("rotate right by 15", (0, 0, -15.0, 0, False, True)),
    ("look down 20", (0, 0, 0, -20.0, False, True)),
    ("forward 1.5", (1.5, 0, 0, 0, False, True)),
    ("turn left 30 degrees, then right 20", (0, 0, -20.0, 0, False, True)),
    ("move forward 1 m and left 0.5", (1.0, -0.5, 0, 0, False, True)),
    ("move forward past rack 3, then turn left", (1.0, 0, 30.0, 0, False, True)),
    ("walk to position (4.5, 20.1)", (1.0, 0, 0, 0, False, True)),  # coordinates: no size
    # Number words of any size.
    ("move forward thirty-five centimetres", (0.35, 0, 0, 0, False, True)),
    ("turn left forty five degrees", (0, 0, 45.0, 0, False, True)),
    ("turn right one hundred and twenty degrees", (0, 0, -120.0, 0, False, True)),
    ("move forward two point five metres", (2.5, 0, 0, 0, False, True)),
    ("turn left ninety", (0, 0, 90.0, 0, False, True)),
    # Turning left is counter-clockwise.
    ("turn clockwise 30 degrees", (0, 0, -30.0, 0, False, True)),
    ("rotate 45 degrees counter-clockwise", (0, 0, 45.0, 0, False, True)),
    ("turn anticlockwise by 20 degrees", (0, 0, 20.0, 0, False, True)),
    ("rotate counterclockwise 10", (0, 0, 10.0, 0, False, True)),
    ("move forward 1 m, then turn right 90 degrees", (1.0, 0, -90.0, 0, False, True)),
]


@pytest.mark.parametrize(("reply", "expected"), GOLDEN)
def test_golden_table(reply: str, expected: tuple[float, float, float, float, bool, bool]) -> None:
    got = interpret(reply)
    forward, right, turn, pitch, stay, readable = expected
    assert got.forward_m == pytest.approx(forward)
    assert got.right_m == pytest.approx(right)
    assert got.turn_deg == pytest.approx(turn)
    assert got.pitch_deg == pytest.approx(pitch)
    assert (got.stay, got.readable) == (stay, readable)


def test_defaults_are_said_in_the_notes() -> None:
    command = interpret("move forward")
    assert command.forward_m == 1.0
    assert any("1 m assumed" in note for note in command.notes)


def test_an_unreadable_reply_invents_no_action() -> None:
    command = interpret("I am not sure what to do here.")
    assert not command.readable and command.idle
    assert (command.forward_m, command.right_m, command.turn_deg, command.pitch_deg) == (0, 0, 0, 0)


def test_commands_survive_their_dict_form() -> None:
    command = interpret("turn left 20 degrees and walk 1.5 m")
    assert Command.from_dict(command.to_dict()) == command


def test_the_package_exposes_the_interpreter_function() -> None:
    import simulacra.worlds.embodied as embodied

    assert embodied.interpret("stay").stay


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=400))
def test_never_raises_on_any_text(text: str) -> None:
    command = interpret(text)
    assert isinstance(command, Command)
    assert command.readable or command.idle


_UNITS = st.sampled_from(["m", "metres", "meters", "cm", "ft", "feet"])
_SCALE = {"m": 1.0, "metres": 1.0, "meters": 1.0, "cm": 0.01, "ft": 0.3048, "feet": 0.3048}
_FILLER = st.sampled_from(["", "I see a rack. ", "Hmm. ", "The logo might be there. "])


@st.composite
def translations(draw: st.DrawFn) -> tuple[str, float]:
    amount = draw(st.integers(min_value=1, max_value=40))
    unit = draw(_UNITS)
    way = draw(st.sampled_from(["forward", "backward"]))
    sign = 1.0 if way == "forward" else -1.0
    return f"move {way} {amount} {unit}.", sign * amount * _SCALE[unit]


@st.composite
def turns(draw: st.DrawFn) -> tuple[str, float]:
    angle = draw(st.integers(min_value=1, max_value=170))
    side = draw(st.sampled_from(["left", "right"]))
    return f"turn {side} {angle} degrees.", angle if side == "left" else -angle


@settings(max_examples=100, deadline=None)
@given(translations(), translations(), turns(), turns(), _FILLER)
def test_the_latest_mention_of_each_category_wins(
    first: tuple[str, float],
    last: tuple[str, float],
    early_turn: tuple[str, float],
    late_turn: tuple[str, float],
    filler: str,
) -> None:
    text = f"{first[0]} {early_turn[0]} {filler}{last[0]} {late_turn[0]}"
    command = interpret(text)
    assert command.forward_m == pytest.approx(last[1])
    assert command.turn_deg == pytest.approx(late_turn[1])
    assert not command.stay


@settings(max_examples=100, deadline=None)
@given(translations(), st.booleans())
def test_a_stay_counts_only_when_it_comes_last(move: tuple[str, float], stay_last: bool) -> None:
    text = f"{move[0]} Then stay." if stay_last else f"I could stay. {move[0]}"
    command = interpret(text)
    assert command.stay is stay_last
    assert command.forward_m == pytest.approx(0.0 if stay_last else move[1])


@pytest.mark.parametrize(
    ("reply", "order"),
    [
        ("move forward 1 m, then turn right 90 degrees", ("move", "turn")),
        ("turn left 30 degrees and move forward 2 m", ("turn", "move")),
        ("Walk 2 m forward. Then look up 10 degrees and turn left 20.", ("move", "gaze", "turn")),
        ("move forward 2 m", ("move",)),
    ],
)
def test_the_order_said_is_recorded(reply: str, order: tuple[str, ...]) -> None:
    command = interpret(reply)
    assert command.order == order
    assert Command.from_dict(command.to_dict()).order == order
    said = [part for part in order if part in ("move", "turn")]
    assert command.turns_first is (said != ["move", "turn"])


def test_a_translation_said_first_is_described_first() -> None:
    command = interpret("move forward 1 m, then turn right 90 degrees")
    assert command.describe() == "move forward 1.00 m, then turn right 90 deg"
    assert interpret("turn right 90 degrees, move forward 1 m").describe() == (
        "turn right 90 deg, then move forward 1.00 m"
    )


def test_a_bare_number_says_how_it_was_read() -> None:
    command = interpret("move forward 3")
    assert command.notes == ("3 without a unit: metres, as the conventions say",)


@pytest.mark.parametrize(
    "reply",
    [
        "Wait, the logo is on the left. Turn left 30 degrees.",
        "Don't move forward; turn left 30 degrees.",
        "Do not move yet. Look up 10 degrees.",
        "I will wait a moment, then move forward 1 m.",
    ],
)
def test_wait_and_dont_move_before_a_movement_override_nothing(reply: str) -> None:
    command = interpret(reply)
    assert not command.stay and command.readable
    assert not any("overridden" in note for note in command.notes)


def test_a_stay_a_later_movement_overrides_is_noted() -> None:
    command = interpret("Stay here? No: turn left 90 degrees.")
    assert command.notes == ("an earlier stay was overridden by a later movement",)
    for said in ("wait", "Don't move.", "I will wait here."):
        assert interpret(said).stay and interpret(said).notes == ()


_NUMBER_WORDS = {
    1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
    9: "nine", 12: "twelve", 15: "fifteen", 20: "twenty", 30: "thirty", 40: "forty",
    50: "fifty", 60: "sixty", 70: "seventy", 80: "eighty", 90: "ninety",
}  # fmt: skip


def _in_words(n: int) -> str:
    if n in _NUMBER_WORDS:
        return _NUMBER_WORDS[n]
    if n >= 100:
        rest = n % 100
        head = f"{_NUMBER_WORDS[n // 100]} hundred"
        return head if rest == 0 else f"{head} and {_in_words(rest)}"
    return f"{_NUMBER_WORDS[n - n % 10]}-{_NUMBER_WORDS[n % 10]}"


@settings(max_examples=100, deadline=None)
@given(
    st.sampled_from([*_NUMBER_WORDS, 35, 42, 99, 120, 135, 175, 250, 301]),
    st.sampled_from(["left", "right"]),
)
def test_number_words_of_any_size_are_numbers(angle: int, side: str) -> None:
    command = interpret(f"turn {side} {_in_words(angle)} degrees")
    assert command.turn_deg == pytest.approx(angle if side == "left" else -angle)
