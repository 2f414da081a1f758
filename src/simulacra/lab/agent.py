"""One task, end to end: retrieve, act, report, check, criticise (up to 3 outer attempts, the
critic's feedback carried over, raw debugging not), and on a benchmark run the task's
verify.py on the final attempt.

Acting is a loop of steps: the model runs one command or writes one file, sees what it did
(exit code, the tails of its output), and decides the next, until it says it is done and
every required output exists. A failed command, or done said with an output missing, ends an
inner try (up to 5); the loop is bounded by `max_steps` steps and `act_tokens` tokens too.
Every step runs in the sandbox and is recorded by the harness."""

from __future__ import annotations

import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from simulacra.embed import Embedder
from simulacra.lab.checker import CheckReport, check_attempt
from simulacra.lab.config import Condition, LabConfig
from simulacra.lab.episode import Attempt, Report, new_episode
from simulacra.lab.evidence import contents
from simulacra.lab.library import Library, Page, Skill
from simulacra.lab.prompts import (
    ACT,
    CRITIC,
    JUDGE,
    REPORT,
    REPORT_FALLBACK,
    SELECT,
    CriticVerdict,
    Decision,
    JudgeVerdict,
    M,
    Prompt,
    Step,
    StepKind,
)
from simulacra.lab.record import CommandRecord, Recorder
from simulacra.lab.reproduce import reproduce
from simulacra.lab.retrieval import Candidate, Entry, Kind, MetadataIndex
from simulacra.lab.tasks import SuiteTask, Task, place, place_files
from simulacra.lab.verifier import Verification, verify
from simulacra.lab.views import (
    StepResult,
    act_view,
    critic_view,
    judge_view,
    report_view,
    select_view,
    tail,
)
from simulacra.llm import LanguageModel, Request, Tally, chat
from simulacra.llm.prompt_log import PromptLog
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
    judged: bool | None = None  # a free-text task's judge verdict, reported beside `verified`
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
        prompts: PromptLog | None = None,
    ) -> None:
        self.library = library
        self.model = model
        self.config = config
        self.sink = sink
        self.prompts = prompts  # where each call's prompt is kept
        self.condition = condition
        self.embedder = embedder
        # Each purpose's seeds advance with its own calls: how many steps acting took does
        # not reshuffle the curriculum's choices.
        self._calls: Counter[str] = Counter()
        self._index: MetadataIndex | None = None

    def continue_seeds(self, purposes: Iterable[str]) -> None:
        """A resumed run's seeds go on from the calls its log holds (their purposes), so that
        it asks what the run without a stop would have asked."""
        self._calls.update(purposes)

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
        files: Sequence[Path] = (),
    ) -> Episode:
        """`over_budget` (which limit of a budget is reached, if any) is asked before every
        outer attempt after the first; a limit reached ends the episode there (`stopped`).
        `files` (a user's input files) are put into each attempt's outputs/, as a suite
        task's own files are."""
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
            elif files:
                place(files, attempt.folder)
                recorder.note("the task's files")
            _copy_skills(self.library, skills, attempt.folder)
            recorder.note("the skills loaded")
            inner = await self._act(task, attempt, recorder, skills, pages, feedback, episode.spent)
            episode.commands = attempt.final_commands()
            episode.report = await self._report(task, attempt, episode.spent)
            recorder.note("the report")
            check = check_attempt(attempt.folder, task.checkable(), given=task.given())
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
            if suite_task.verifier is None:  # free text: a judge reads the record as well
                judged = await self.judge(task, Attempt(episode.final))
                episode.judged = judged.passed
                verdicts["judge"] = {"model": self.model.name, **judged.model_dump()}
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

    # -- acting: a loop of steps, each seen before the next

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
        """Run the action loop in `attempt`; the inner tries it used."""
        tries = self.config.inner_tries if self.condition.framework else 1
        inner, steps, before = 1, list[StepResult](), spent.tokens
        for number in range(1, self.config.max_steps + 1):
            present = [p for p, _ in attempt.outputs()]
            limits = (
                f"step {number} of {self.config.max_steps}; inner try {inner} of {tries}; "
                f"{spent.tokens - before} of {self.config.act_tokens} tokens spent"
            )
            view = act_view(task, present, skills, pages, feedback, steps, limits)
            step = await self.ask(ACT, view, spent)
            result = self._step(task, attempt, recorder, step, inner, number)
            steps.append(result)
            if result.finished:
                return inner
            if result.failed:
                if inner >= tries:
                    return inner
                inner += 1
            if spent.tokens - before >= self.config.act_tokens:
                break
        return inner

    def _step(
        self,
        task: Task,
        attempt: Attempt,
        recorder: Recorder,
        step: Step,
        inner: int,
        number: int,
    ) -> StepResult:
        """Do one step in the sandbox, recorded; what the next step sees of it."""
        if step.action is StepKind.write:
            target = _writable(attempt.folder, step.path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(step.content, encoding="utf-8")
            where = str(target.relative_to(attempt.folder))
            recorder.note(f"step {number}: the file {where}")
            return StepResult(number, "write", where, f"wrote {len(step.content)} characters")
        if step.action is StepKind.done:
            missing = [r for r in task.checkable() if not (attempt.folder / r).is_file()]
            if not task.checkable() and len(attempt.outputs()) <= len(task.files):
                missing = ["an output under outputs/"]
            if missing:
                outcome = f"not done: {', '.join(missing)} missing"
                return StepResult(number, "done", step.note, outcome, failed=True)
            outcome = "every required output exists"
            return StepResult(number, "done", step.note, outcome, finished=True)
        record = recorder.run(step.command, inner=inner, name=f"{inner}-{number}")
        self.sink.emit(
            LabCommand(
                task=task.id,
                attempt=int(attempt.folder.name.rpartition("-")[2]),
                inner=inner,
                command=step.command,
                exit_code=record.exit_code,
                duration_s=record.duration_s,
                stopped=record.stopped,
            )
        )
        tails = _tails(attempt, [record])
        output = "\n".join(
            f"{label}:\n{text}"
            for label, key in (("stdout", record.stdout), ("stderr", record.stderr))
            if (text := tails.get(key, "").strip())
        )
        # No duration: the same step shows the same outcome, so a rerun asks the same.
        state = record.stopped or f"exit {record.exit_code}"
        return StepResult(number, "run", step.command, state, output, failed=not record.ok)

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
        outputs = attempt.outputs()
        evidence = contents(attempt.folder, outputs, report)
        view = critic_view(task, commands, outputs, report, _tails(attempt, commands), evidence)
        verdict = await self.ask(CRITIC, view, spent)
        if not verdict.rerun:
            return verdict
        # The critic asked for a rerun: replay the recorded commands, then it decides.
        with tempfile.TemporaryDirectory(prefix="simulacra-critic-") as name:
            found = reproduce(attempt.folder, Path(name), task.checkable())
        lines = [f"- {d.path}: {d.message}" for d in found.differences] or [
            f"- every delivered file came out the same ({len(found.agreed)})"
        ]
        rerun = "\n## Rerun: the recorded commands replayed\n" + "\n".join(lines)
        verdict = await self.ask(CRITIC, view + rerun, spent)
        return verdict.model_copy(update={"rerun": True})

    async def judge(self, task: Task, attempt: Attempt) -> JudgeVerdict:
        """A context-free verdict from the episode's record alone: no memory, no critic, and
        its tokens are not the episode's (the source's judge is a separate session)."""
        commands = attempt.final_commands()
        outputs = attempt.outputs()
        report = attempt.report() or REPORT_FALLBACK
        named = [(p, (attempt.folder / p).is_file()) for p in task.checkable()]
        evidence = contents(attempt.folder, outputs, report)
        view = judge_view(task, commands, _tails(attempt, commands), report, evidence, named)
        return await self.ask(JUDGE, view)

    async def ask(self, prompt: Prompt[M], user: str, spent: Tally | None = None) -> M:
        """One call, counted in `spent` (an episode's); the prompt's fallback when the model
        gives no valid answer."""
        self._calls[prompt.purpose] += 1
        request = Request(
            chat(prompt.system, user),
            output=prompt.output,
            fallback=prompt.fallback,
            max_tokens=prompt.max_tokens,
            seed=self.config.seed + self._calls[prompt.purpose],
            purpose=prompt.purpose,
            agent="lab",
        )
        completion = await self.model.complete(request)
        kept = self.prompts.keep(request.messages) if self.prompts is not None else None
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
                prompt=kept,
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


def _writable(attempt: Path, path: str) -> Path:
    """Where a write step may write: under scripts/ or outputs/; elsewhere, scripts/<name>."""
    target = (attempt / path).resolve()
    for folder in ("scripts", "outputs"):
        if (attempt / folder).resolve() in target.parents:
            return target
    return attempt / "scripts" / Path(path).name


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
