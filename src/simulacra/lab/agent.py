"""One task, end to end: retrieve, act (up to 5 inner tries), report, check, criticise (up to 3
outer attempts, the critic's feedback carried over, raw debugging not), and on a benchmark run
the task's verify.py on the final attempt."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from simulacra.embed import Embedder
from simulacra.lab.checker import CheckReport, check_attempt
from simulacra.lab.config import Condition, LabConfig
from simulacra.lab.episode import Attempt, Report, new_episode
from simulacra.lab.library import Library, Page, Skill
from simulacra.lab.prompts import (
    ACT,
    CRITIC,
    REPORT,
    REPORT_FALLBACK,
    SELECT,
    ActionPlan,
    CriticVerdict,
    Decision,
    M,
    Prompt,
)
from simulacra.lab.record import CommandRecord, Recorder
from simulacra.lab.retrieval import Candidate, Entry, Kind, MetadataIndex
from simulacra.lab.tasks import SuiteTask, Task, place_files
from simulacra.lab.verifier import Verification, verify
from simulacra.lab.views import act_view, critic_view, report_view, select_view, tail
from simulacra.llm import LanguageModel, Request, Tally, chat
from simulacra.runlog.events import (
    EventSink,
    LabAttempt,
    LabCommand,
    LabEpisode,
    ModelCall,
    Retrieval,
)


@dataclass
class Episode:
    """What one task's episode produced."""

    task: Task
    folder: Path
    final: Path
    accepted: bool = False
    self_reported: bool = False
    attempts: int = 0
    agreements: list[bool] = field(default_factory=list)
    verified: bool | None = None
    verification: Verification | None = None
    spent: Tally = field(default_factory=Tally)  # the episode's model calls and tokens
    wall_s: float = 0.0
    skills: list[Skill] = field(default_factory=list)
    report: Report = field(default_factory=REPORT_FALLBACK.model_copy)
    commands: list[CommandRecord] = field(default_factory=list)
    stopped: str | None = None  # the budget limit reached before its last attempt, if any


class LearningAgent:
    """The action agent and the critic, sharing one model and one memory snapshot."""

    def __init__(
        self,
        library: Library | None,
        model: LanguageModel,
        config: LabConfig,
        sink: EventSink,
        condition: Condition,
        embedder: Embedder,
    ) -> None:
        self.library = library
        self.model = model
        self.config = config
        self.sink = sink
        self.condition = condition
        self.embedder = embedder
        self._calls = 0
        self._index: MetadataIndex | None = None

    def refresh(self) -> None:
        """Forget the metadata index: memory changed."""
        self._index = None

    async def solve(
        self,
        task: Task,
        episodes: Path,
        *,
        mode: str,
        suite_task: SuiteTask | None = None,
        over_budget: Callable[[], str | None] | None = None,
    ) -> Episode:
        """`over_budget` (which limit of a budget is reached, if any) is asked before every
        outer attempt after the first; a limit reached ends the episode there (`stopped`)."""
        started = time.perf_counter()
        folder = new_episode(episodes, task.id, task.record())
        episode = Episode(task, folder, folder)
        skills, pages = await self._recall(task, episode)
        episode.skills = skills
        feedback: list[str] = []
        outer = self.config.outer_attempts if self.condition.framework else 1
        for number in range(1, outer + 1):
            attempt = Attempt.create(folder, number)
            episode.final, episode.attempts = attempt.folder, number
            recorder = Recorder(attempt.folder, self.config.sandbox)
            if suite_task is not None:
                place_files(suite_task, attempt.folder)
                recorder.note("the task's files")
            _copy_skills(self.library, skills, attempt.folder)
            recorder.note("the skills loaded")
            inner = await self._act(task, attempt, recorder, skills, pages, feedback, episode.spent)
            episode.commands = attempt.final_commands()
            episode.report = await self._report(task, attempt, episode.spent)
            recorder.note("the report")
            check = check_attempt(attempt.folder, task.required_outputs, given=task.given())
            critic = await self._critic(task, attempt, episode.report, episode.spent)
            accepted = check.passed and (critic is None or critic.decision is Decision.accept)
            agree = None if critic is None else check.passed == (critic.decision is Decision.accept)
            if agree is not None:
                episode.agreements.append(agree)
            attempt.write_json("verdicts.json", _verdicts(check, critic, accepted))
            self.sink.emit(
                LabAttempt(
                    task=task.id,
                    attempt=number,
                    inner_tries=inner,
                    checker_passed=check.passed,
                    findings=[f.message for f in check.findings],
                    critic=None if critic is None else critic.decision.value,
                    agree=agree,
                    accepted=accepted,
                )
            )
            episode.accepted = accepted
            episode.self_reported = episode.report.success
            if accepted:
                break
            episode.stopped = over_budget() if over_budget and number < outer else None
            if episode.stopped is not None:
                break
            # The next attempt gets every earlier attempt's verdicts, not their raw debugging.
            feedback += [f"attempt {number}, {f.check}: {f.message}" for f in check.findings]
            if critic is not None and critic.feedback:
                feedback.append(f"attempt {number}, critic: {critic.feedback}")
        if suite_task is not None:
            episode.verification = verify(suite_task, episode.final)
            episode.verified = episode.verification.passed
            verdicts = Attempt(episode.final).read_json("verdicts.json") or {}
            verdicts["verify"] = episode.verification.model_dump()
            Attempt(episode.final).write_json("verdicts.json", verdicts)
        episode.wall_s = time.perf_counter() - started
        self.sink.emit(
            LabEpisode(
                task=task.id,
                tier=task.tier,
                category=task.category.value,
                mode=mode,
                condition=self.condition.name,
                attempts=episode.attempts,
                accepted=episode.accepted,
                self_reported=episode.self_reported,
                verified=episode.verified,
                calls=episode.spent.calls,
                tokens=episode.spent.tokens,
                wall_s=round(episode.wall_s, 3),
                folder=str(folder),
                skills=[s.meta.name for s in skills],
            )
        )
        return episode

    # -- retrieval: metadata first, full content for the chosen only

    def index(self) -> MetadataIndex:
        if self._index is None:
            entries: list[Entry] = []
            if self.library is not None:
                entries += [
                    Entry("skill", s.meta.name, s.meta.text()) for s in self.library.skills()
                ]
                entries += [Entry("page", p.name, p.meta.text()) for p in self.library.pages()]
            self._index = MetadataIndex(entries, self.embedder)
        return self._index

    async def _recall(self, task: Task, episode: Episode) -> tuple[list[Skill], list[Page]]:
        if self.library is None or not self.condition.memory:
            return [], []
        kinds: list[Kind] = []
        if self.condition.procedural:
            kinds.append("skill")
        if self.condition.semantic:
            kinds.append("page")
        query = f"{task.text} {' '.join(task.required_outputs)}"
        candidates = self.index().search(query, self.config.candidates, kinds)
        self.sink.emit(
            Retrieval(
                query=query,
                k=self.config.candidates,
                results=[_scores(c) for c in candidates],
            ),
            agent="lab",
        )
        if not candidates:
            return [], []
        metadata = {e.name: e.text for e in self.index().entries}
        choice = await self.ask(SELECT, select_view(task, candidates, metadata), episode.spent)
        offered = {c.entry.name: c.entry.kind for c in candidates}
        chosen = [n for n in dict.fromkeys(choice.load) if n in offered]
        skills = [s for n in chosen if offered[n] == "skill" and (s := self.library.skill(n))]
        pages = [p for n in chosen if offered[n] == "page" and (p := self.library.page(n))]
        Attempt(episode.folder).write_json(
            "retrieval.json",
            {"candidates": [_scores(c) for c in candidates], "loaded": chosen},
        )
        return skills, pages

    # -- acting, with inner tries

    async def _act(
        self,
        task: Task,
        attempt: Attempt,
        recorder: Recorder,
        skills: Sequence[Skill],
        pages: Sequence[Page],
        feedback: Sequence[str],
        spent: Tally,
    ) -> int:
        tries = self.config.inner_tries if self.condition.framework else 1
        failed: list[CommandRecord] = []
        for inner in range(1, tries + 1):
            present = [p for p, _ in attempt.outputs()]
            view = act_view(task, present, skills, pages, feedback, failed, _tails(attempt, failed))
            plan = await self.ask(ACT, view, spent)
            failed = self._run(task, attempt, recorder, plan, inner)
            if not failed:
                return inner
        return tries

    def _run(
        self, task: Task, attempt: Attempt, recorder: Recorder, plan: ActionPlan, inner: int
    ) -> list[CommandRecord]:
        """Write the plan's scripts, run its commands until one fails; return the failures."""
        for script in plan.scripts:
            target = (attempt.folder / script.path).resolve()
            if (attempt.folder / "scripts").resolve() not in target.parents:
                target = attempt.folder / "scripts" / Path(script.path).name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(script.content, encoding="utf-8")
        if plan.scripts:
            recorder.note(f"the scripts of try {inner}")
        number = attempt.folder.name.rpartition("-")[2]
        for k, command in enumerate(plan.commands, start=1):
            record = recorder.run(command, inner=inner, name=f"{inner}-{k}")
            self.sink.emit(
                LabCommand(
                    task=task.id,
                    attempt=int(number),
                    inner=inner,
                    command=command,
                    exit_code=record.exit_code,
                    duration_s=record.duration_s,
                    stopped=record.stopped,
                )
            )
            if not record.ok:
                return [record]
        if not plan.commands:
            return [recorder.empty(inner)]
        return []

    async def _report(self, task: Task, attempt: Attempt, spent: Tally) -> Report:
        commands = attempt.final_commands()
        view = report_view(task, commands, attempt.outputs(), _tails(attempt, commands))
        report = await self.ask(REPORT, view, spent)
        attempt.write_report(report)
        return report

    async def _critic(
        self, task: Task, attempt: Attempt, report: Report, spent: Tally
    ) -> CriticVerdict | None:
        if not self.condition.framework:
            return None
        commands = attempt.final_commands()
        view = critic_view(task, commands, attempt.outputs(), report, _tails(attempt, commands))
        return await self.ask(CRITIC, view, spent)

    async def ask(self, prompt: Prompt[M], user: str, spent: Tally | None = None) -> M:
        """One call, counted in `spent` (an episode's); the prompt's fallback when the model
        gives no valid answer."""
        self._calls += 1
        request = Request(
            chat(prompt.system, user),
            output=prompt.output,
            fallback=prompt.fallback,
            max_tokens=prompt.max_tokens,
            seed=self.config.seed + self._calls,
            purpose=prompt.purpose,
            agent="lab",
        )
        completion = await self.model.complete(request)
        usage = completion.usage
        if spent is not None:
            spent.add(completion)
        self.sink.emit(
            ModelCall(
                purpose=prompt.purpose,
                model=completion.model or self.model.name,
                prompt_tokens=usage.prompt_tokens,
                completion_tokens=usage.completion_tokens,
                cached_prompt_tokens=usage.cached_prompt_tokens,
                latency_s=round(completion.latency_s, 4),
                cached=completion.cached,
                attempts=completion.attempts,
                fallback=completion.fallback,
                error=completion.error,
            ),
            agent="lab",
        )
        value = completion.value
        return value if isinstance(value, prompt.output) else prompt.fallback


def _copy_skills(library: Library | None, skills: Sequence[Skill], attempt: Path) -> None:
    """Copy the chosen skills, and the skills they link to, into the attempt's skills/."""
    if library is None:
        return
    todo = [s.meta.name for s in skills]
    done: set[str] = set()
    while todo:
        name = todo.pop()
        skill = library.skill(name)
        if name in done or skill is None:
            continue
        done.add(name)
        shutil.copytree(skill.path, attempt / "skills" / name, dirs_exist_ok=True)
        todo += skill.meta.links


def _tails(attempt: Attempt, records: Sequence[CommandRecord]) -> dict[str, str]:
    found = {}
    for record in records:
        for relative in (record.stdout, record.stderr):
            path = attempt.folder / relative
            if relative and path.is_file():
                found[relative] = tail(path.read_text(encoding="utf-8", errors="replace"))
    return found


def _scores(candidate: Candidate) -> dict[str, object]:
    return {
        "id": candidate.entry.name,
        "kind": candidate.entry.kind,
        "lexical": round(candidate.lexical, 4),
        "embedding": round(candidate.embedding, 4),
        "total": round(candidate.total, 4),
    }


def _verdicts(
    check: CheckReport, critic: CriticVerdict | None, accepted: bool
) -> dict[str, object]:
    return {
        "checker": check.to_json(),
        "critic": None if critic is None else critic.model_dump(mode="json"),
        "accepted": accepted,
    }
