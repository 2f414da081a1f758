"""A retrieval check for choosing an embedder: facts planted among routine observations,
each queried in other words. It is how DESIGN.md's embedder figures were measured."""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from simulacra.embed.base import Embedder


@dataclass(frozen=True)
class PlantedFact:
    fact: str
    query: str


# Queries share almost no content word with their fact: only meaning connects them.
PLANTED_FACTS = (
    PlantedFact(
        "Isabella Rodriguez is planning a Valentine's Day party at Hobbs Cafe",
        "Who is hosting a celebration for lovers at the coffee shop?",
    ),
    PlantedFact(
        "Klaus Mueller is writing a research paper on gentrification in low-income neighborhoods",
        "Which person studies how poor districts change when wealthy residents move in?",
    ),
    PlantedFact(
        "Sam Moore announced that he is running for mayor in the local election",
        "Who is a candidate in the town's political race?",
    ),
    PlantedFact(
        "The pharmacy on Oak Street was robbed last night",
        "Was there a theft at the drugstore?",
    ),
    PlantedFact("Tom's old dog died this morning", "Whose pet passed away?"),
    PlantedFact(
        "Jennifer broke her leg while skiing in the mountains",
        "Who got injured on the slopes?",
    ),
    PlantedFact(
        "Eddy Lin is composing a symphony for the school concert",
        "Who is creating music for a performance?",
    ),
    PlantedFact(
        "The bakery will shut down for good at the end of the month",
        "Which shop is going out of business soon?",
    ),
    PlantedFact("Carlos won the lottery jackpot yesterday", "Who suddenly became rich?"),
    PlantedFact(
        "Ayesha has started taking Japanese lessons", "Who is learning a foreign language?"
    ),
    PlantedFact(
        "A water pipe burst in the library basement",
        "Was there flooding in a public building?",
    ),
    PlantedFact(
        "Mei and John Lin are celebrating their twentieth wedding anniversary",
        "Which couple has been married for two decades?",
    ),
)

_PEOPLE = (
    "Isabella", "Klaus", "Maria", "Sam", "Tom", "Jennifer", "Eddy", "Carlos", "Ayesha", "Mei",
    "John", "Abigail", "Adam", "Arthur", "Carmen", "Francisco", "Hailey", "Latoya", "Rajiv",
    "Ryan", "Tamara", "Wolfgang", "Yuriko", "Giorgio",
)  # fmt: skip
_ACTIVITIES = (
    "eating breakfast", "drinking a cup of coffee", "reading a book", "sleeping",
    "brushing their teeth", "taking a shower", "walking to work", "cooking dinner",
    "washing the dishes", "checking their email", "sitting on a bench", "talking on the phone",
    "writing in a notebook", "waiting in line", "cleaning the kitchen", "watering the plants",
    "getting dressed", "eating lunch", "browsing the shelves", "paying at the counter",
    "taking a nap", "stretching", "listening to the radio", "making the bed",
    "locking the door", "looking out of the window", "tidying the desk", "putting on a coat",
)  # fmt: skip
_PLACES = (
    "Hobbs Cafe", "the library", "the park", "their house", "the supermarket", "the pharmacy",
    "Oak Hill College", "the bar", "the town square", "the bakery", "the office",
    "the bus stop", "the school", "the dormitory", "the artist's studio",
)  # fmt: skip
_OBJECTS = (
    ("the stove", ("idle", "in use", "turned off", "heating a pan")),
    ("the bed", ("made", "in use", "unmade")),
    ("the coffee machine", ("idle", "brewing coffee", "being cleaned")),
    ("the desk", ("idle", "in use", "covered in papers")),
    ("the refrigerator", ("idle", "open", "closed")),
    ("the shower", ("idle", "in use", "running")),
    ("the piano", ("idle", "being played")),
    ("the cash register", ("idle", "in use")),
)


def routine_observations(count: int, seed: int = 0) -> list[str]:
    """Distinct everyday observations like those a simulated town records all day."""
    sentences = [
        f"{p} is {a} at {place}" for p in _PEOPLE for a in _ACTIVITIES for place in _PLACES
    ]
    sentences += [
        f"{thing} at {place} is {state}"
        for thing, states in _OBJECTS
        for state in states
        for place in _PLACES
    ]
    if count > len(sentences):
        raise ValueError(
            f"asked for {count} routine observations; the templates make at most {len(sentences)}"
        )
    return random.Random(seed).sample(sentences, count)


def planted_fact_hits(embedder: Embedder, observations: int = 3000, top: int = 5) -> int:
    """How many of the 12 planted facts rank in the `top` by cosine for their query."""
    memory = routine_observations(observations) + [p.fact for p in PLANTED_FACTS]
    records = embedder.embed(memory)
    queries = embedder.embed([p.query for p in PLANTED_FACTS])
    scores = queries @ records.T
    first_fact = observations
    hits = 0
    for number in range(len(PLANTED_FACTS)):
        best = np.argsort(-scores[number], kind="stable")[:top]
        hits += int(first_fact + number in best)
    return hits
