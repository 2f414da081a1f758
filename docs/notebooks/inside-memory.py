# %% [markdown]
# # Inside an agent's memory
#
# Every memory record keeps its kind, importance (and where that came from), and the records
# it rests on; every retrieval logs each result's recency, importance and relevance, and
# their sum. Here Marta is given sixteen pieces of news worth 10 each, so that her summed
# importance passes 150 and she reflects within two simulated hours (the **scripted** model
# stands in for a language model: it cites the two statements closest to each question).

# %%
import tempfile

import matplotlib.pyplot as plt

import simulacra

news = [
    "the bakery on Main Street is closing",
    "Theo is leaving town next month",
    "the cafe roof leaks",
    "Priya won a prize for her thesis",
    "the park will host a fair",
    "Daniel is ill",
    "the mayor visits on Friday",
    "milk prices doubled",
    "a storm is coming",
    "Lena paints a new mural",
    "the college needs volunteers",
    "the pub has a new owner",
    "Sam is getting married",
    "the market opens late",
    "a new bus line starts",
    "Marta turns 40 on Sunday",
]
thoughts = [
    {"at": "07:30", "type": "thought", "agent": "marta_okafor", "text": text, "importance": 10}
    for text in news
]
run = simulacra.run(
    "scenarios/town.yaml",
    model="scripted",
    set={
        "agents.count": 3,
        "clock.duration": "2h",
        "memory.embedder": "hashing",
        "interventions": thoughts,
        "interviews": None,
        "world.attendance": None,
        "output.root": tempfile.mkdtemp(prefix="simulacra-runs-"),
    },
)
memories = run.memories()
memories.groupby(["agent", "kind"]).size().unstack(fill_value=0)

# %% [markdown]
# ## Retrieval scores
#
# One row per record a retrieval returned, ranked; each component is min-max normalised
# over the candidates, and `total` is their weighted sum (weights 1, 1, 1 by default).

# %%
retrievals = run.retrievals()
latest = retrievals[retrievals["seq"] == retrievals.query("agent == 'marta_okafor'")["seq"].max()]
print("query:", latest["query"].iloc[0])
latest.merge(memories[["id", "text"]], left_on="memory", right_on="id")[
    ["rank", "recency", "importance", "relevance", "total", "text"]
].head(8)

# %%
ax = latest.head(8).plot.barh(
    x="memory", y=["recency", "importance", "relevance"], stacked=True, figsize=(8, 3)
)
ax.invert_yaxis()
ax.set_xlabel("score (each normalised to 0..1)")
plt.show()

# %% [markdown]
# ## A reflection's evidence tree
#
# A reflection cites the records it rests on, which may be reflections themselves; the tree
# is read from `evidence_ids` alone.

# %%
by_id = memories.set_index("id")


def tree(record: str, depth: int = 0) -> None:
    row = by_id.loc[record]
    print(
        "    " * depth + f"{record} [{row['kind']}, importance {row['importance']:g}] "
        f"{row['text'][:70]}"
    )
    for cited in row["evidence_ids"]:
        tree(cited, depth + 1)


reflections = memories.query("kind == 'reflection'")
for record in reflections["id"].head(2):
    tree(record)

# %% [markdown]
# The viewer draws the same trees, and strikes through records a correction invalidated
# (`valid` is false in the table, with `invalid_reason`).
