"""The hand-worked reading-comprehension campaign shared by the reading-comprehension test
modules, driven through the four stages with judgments written directly (as the pages would)
and ``campaigns.kinds.reading_comprehension.stages.advance`` between stages.

Two systems A and B and the human translation (the control); two articles d1 and d2 of two
sentences. Settings: 1 author of 3 questions and 1 voter per article, 2 readers per system
and 1 on the human translation, 2 graders per answer.

Selection: d1's voter calls Q3 bad (dropped: 0 of 1 good votes); d2's voter marks Q2 as
repeating Q1 (all three good: Q1 kept first, Q2 dropped as redundant). Kept: d1 Q1, Q2 and
d2 Q1, Q3.

Readings (one worker's answers to one article) and grades, g1's mark then g2's (Y correct,
N not; a split is a tie, scoring 1/2):

    d1          Q1        Q2        sum     d2          Q1        Q3        sum
    r1 A        YY 1      YN 1/2    3/2     r1 B        YN 1/2    NN 0      1/2
    r2 A        YY 1      NN 0      1       r2 B        YN 1/2    NN 0      1/2
    r3 B        NN 0      NN 0      0       r3 A        YY 1      YY 1      2
    r4 B        NY 1/2    NN 0      1/2     r4 A        YY 1      NN 0      1
    r5 human    YY 1      YY 1      2       r5 human    YY 1      NN 0      1

Share correct (correct / graded answers): A (3/2 + 1 + 2 + 1) / 8 = 0.6875, B (0 + 1/2 + 1/2
+ 1/2) / 8 = 0.1875, the human translation (2 + 1) / 4 = 0.75. Ties: A 1, B 3. d2 Q3 is
answered wrongly on the human translation (0 of 1): suspect; without it A 4.5/6 = 0.75,
B 1.5/6 = 0.25, the human translation 3/3 = 1.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from django.utils import timezone

from campaigns.actions import build_hits
from campaigns.kinds.reading_comprehension.models import RCQuestion
from campaigns.kinds.reading_comprehension.stages import advance
from campaigns.models import Campaign, Hit, HitTask, TaskKind
from judgments.models import Assignment, AssignmentStatus, Judgment, Worker
from tests.factories import (
    AssignmentFactory,
    CampaignFactory,
    DocumentFactory,
    OutputFactory,
    SegmentFactory,
    SystemFactory,
    WorkerFactory,
)

ARTICLES = ("d1", "d2")
QUESTIONS = {
    "d1": [
        ("Who was arrested?", "Heather Locklear"),
        ("Where was she taken?", "A centre for drugs & alcohol"),
        ("What colour was the <car>?", "Red"),
    ],
    "d2": [
        ("What did the council decide?", "To close the bridge"),
        ("What did the council vote for?", "Closing the bridge"),
        ("When does the closure start?", "In May"),
    ],
}
# The voter's ballot per article: slot position -> (good question?, positions it repeats).
BALLOTS = {
    "d1": {1: (True, []), 2: (True, []), 3: (False, [])},
    "d2": {1: (True, []), 2: (True, [1]), 3: (True, [])},
}
KEPT = {"d1": (1, 2), "d2": (1, 3)}
# Who reads which translation of each article (None: the human translation), in the order
# they submit.
READINGS = {
    "d1": [("r1", "A"), ("r2", "A"), ("r3", "B"), ("r4", "B"), ("r5", None)],
    "d2": [("r1", "B"), ("r2", "B"), ("r3", "A"), ("r4", "A"), ("r5", None)],
}
# (article, reader, question number) -> g1's and g2's marks.
GRADES = {
    ("d1", "r1", 1): "YY", ("d1", "r1", 2): "YN",
    ("d1", "r2", 1): "YY", ("d1", "r2", 2): "NN",
    ("d1", "r3", 1): "NN", ("d1", "r3", 2): "NN",
    ("d1", "r4", 1): "NY", ("d1", "r4", 2): "NN",
    ("d1", "r5", 1): "YY", ("d1", "r5", 2): "YY",
    ("d2", "r1", 1): "YN", ("d2", "r1", 3): "NN",
    ("d2", "r2", 1): "YN", ("d2", "r2", 3): "NN",
    ("d2", "r3", 1): "YY", ("d2", "r3", 3): "YY",
    ("d2", "r4", 1): "YY", ("d2", "r4", 3): "NN",
    ("d2", "r5", 1): "YY", ("d2", "r5", 3): "NN",
}  # fmt: skip
GRADERS = ("g1", "g2")
STAGES = ("authoring", "selection", "answering", "grading")


def answer_text(article: str, reader: str, number: int) -> str:
    return f"{reader} on {article} Q{number}"


@dataclass
class RCCampaign:
    campaign: Campaign
    systems: dict[str, int]
    documents: dict[str, int]
    workers: dict[str, Worker] = field(default_factory=dict)
    # (article, number) -> RCQuestion
    questions: dict[tuple[str, int], RCQuestion] = field(default_factory=dict)
    # (article, reader, number) -> the answer
    answers: dict[tuple[str, str, int], Judgment] = field(default_factory=dict)
    # (article, reader) -> the answering assignment
    readings: dict[tuple[str, str], Assignment] = field(default_factory=dict)
    grades: list[Judgment] = field(default_factory=list)
    suffix: str = ""
    minute: int = 0

    def worker(self, name: str) -> Worker:
        if name not in self.workers:
            self.workers[name] = WorkerFactory(external_id=name + self.suffix)
        return self.workers[name]

    def assignment(self, hit: Hit, name: str) -> Assignment:
        self.minute += 1
        return AssignmentFactory(
            hit=hit,
            campaign=self.campaign,
            worker=self.worker(name),
            status=AssignmentStatus.SUBMITTED,
            submitted_at=timezone.now() - timedelta(hours=1) + timedelta(minutes=self.minute),
        )

    def hit(self, task: str, article: str, **more) -> Hit:
        return Hit.objects.get(
            campaign=self.campaign, task=task, document_id=self.documents[article], **more
        )

    def judge(self, assignment: Assignment, slot, **columns) -> Judgment:
        return Judgment.objects.create(
            campaign=self.campaign,
            worker=assignment.worker,
            assignment=assignment,
            slot=slot,
            client_duration_ms=30_000,
            **columns,
        )


def new_rc_campaign(suffix: str = "", **settings) -> RCCampaign:
    defaults = {
        "authors_per_article": 1,
        "questions_per_author": 3,
        "voters_per_article": 1,
        "answers_per_system": 2,
        "answers_on_reference": 1,
        "graders_per_answer": 2,
    }
    campaign = CampaignFactory(
        kind=TaskKind.READING_COMPREHENSION,
        name=f"Reading comprehension{suffix}",
        **{**defaults, **settings},
    )
    systems = {name: SystemFactory(campaign=campaign, name=name) for name in ("A", "B")}
    documents = {}
    for position, article in enumerate(ARTICLES, start=1):
        document = DocumentFactory(campaign=campaign, external_id=article, position=position)
        documents[article] = document.pk
        for p in (1, 2):
            segment = SegmentFactory(
                document=document,
                external_id=str(p),
                position=p,
                references=[f"Human {article}.{p}"],
            )
            for name, system in systems.items():
                OutputFactory(segment=segment, system=system, text=f"{name} {article}.{p}")
    build_hits(campaign)
    return RCCampaign(
        campaign=campaign,
        systems={name: system.pk for name, system in systems.items()},
        documents=documents,
        suffix=suffix,
    )


def write_questions(built: RCCampaign) -> None:
    for article in ARTICLES:
        assignment = built.assignment(built.hit(HitTask.RC_AUTHOR, article), f"au-{article}")
        for slot in assignment.hit.slots.order_by("position"):
            text, sample = QUESTIONS[article][slot.position - 1]
            built.judge(assignment, slot, text=text, details={"answer": sample})


def vote(built: RCCampaign) -> None:
    for article in ARTICLES:
        assignment = built.assignment(built.hit(HitTask.RC_SELECT, article), f"v-{article}")
        for slot in assignment.hit.slots.order_by("position"):
            good, repeats = BALLOTS[article][slot.position]
            built.judge(assignment, slot, yes_no=good, details={"redundant_with": repeats})


def answer(built: RCCampaign) -> None:
    for article in ARTICLES:
        for reader, system in READINGS[article]:
            system_id = built.systems[system] if system else None
            hit = built.hit(HitTask.RC_ANSWER, article, system_id=system_id)
            assignment = built.assignment(hit, reader)
            built.readings[(article, reader)] = assignment
            for slot in hit.slots.select_related("rc_question__question").order_by("position"):
                number = slot.rc_question.question.number
                built.answers[(article, reader, number)] = built.judge(
                    assignment, slot, text=answer_text(article, reader, number)
                )


def grade(built: RCCampaign, graders=GRADERS) -> None:
    key_of = {judgment.pk: key for key, judgment in built.answers.items()}
    for article in ARTICLES:
        hit = built.hit(HitTask.RC_GRADE, article)
        for index, grader in enumerate(GRADERS):
            if grader not in graders:
                continue
            assignment = built.assignment(hit, grader)
            for slot in hit.slots.order_by("position"):
                mark = GRADES[key_of[slot.about_judgment_id]][index]
                built.grades.append(built.judge(assignment, slot, yes_no=mark == "Y"))


def build_rc_campaign(suffix: str = "", until: str = "grading", **settings) -> RCCampaign:
    """The campaign with every stage up to ``until`` done, ``advance`` run after each."""
    built = new_rc_campaign(suffix, **settings)
    steps = {"authoring": write_questions, "selection": vote, "answering": answer, "grading": grade}
    for stage in STAGES[: STAGES.index(until) + 1]:
        steps[stage](built)
        advance(built.campaign)
    built.questions = {
        (q.document.external_id, q.number): q
        for q in RCQuestion.objects.filter(campaign=built.campaign).select_related("document")
    }
    return built
