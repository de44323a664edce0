"""Reading comprehension on the real stack (issue 14 item 6): two articles through the four
stages, every judgment through the real submission code path (next_assignment_for, then
record_judgment with the pages' payloads, which sends judgments_recorded after each commit).
The test never moves a stage: a real Celery worker (deploy/worker.sh) on Redis and PostgreSQL
runs the campaign's recompute after each burst of submissions, and that recompute
(stages.advance first) builds the selection, answering and grading HITs by itself, then
stores the scores the hand-worked tables below predict.

The workers are those 000 describes: the authors vote on the other article's questions (never
on their own) and may then read neither article; new workers read; two readers of each
article grade the other one (never their own answers).

The hand-out chooses at random (later stages first, then the fewest live assignments, ties at
random), so the test never assumes which HIT a worker gets: it reads it from the database.
What a worker writes depends on that HIT and on their turn in it (the first or second author,
voter or reader of that HIT), and the tables are written per turn, so the expected figures do
not depend on the draw.

The campaign and the hand-worked numbers at the top are shared with
tests/e2e/test_rc_full_loop.py, which runs article d1 alone in Chromium.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from analytics import actions as analytics_actions
from campaigns.actions import build_hits
from campaigns.kinds.reading_comprehension.models import (
    RCArticle,
    RCQuestion,
    RCQuestionStatus,
    RCStage,
)
from campaigns.models import Campaign, Hit, HitTask, TaskKind
from judgments import actions as judgment_actions
from judgments.models import Assignment, AssignmentStatus, Judgment
from tests.factories import (
    CampaignFactory,
    DocumentFactory,
    OutputFactory,
    SegmentFactory,
    SystemFactory,
)
from tests.integration.conftest import DEPLOY_DIR

pytestmark = pytest.mark.integration

# --- Shared with the browser test --------------------------------------------------------

# Small settings: two authors of two questions, two voters, two readers per system and one
# on the human translation (the control), two graders (so that a split grade, a tie scoring
# 1/2, can happen). Thresholds are 000's defaults as the kind sets them: kept when more than
# half the voters call a question good; a pair is redundant when more than half of the
# voters who saw both mark either as repeating the other.
SETTINGS = {
    "authors_per_article": 2,
    "questions_per_author": 2,
    "voters_per_article": 2,
    "answers_per_system": 2,
    "answers_on_reference": 1,
    "graders_per_answer": 2,
}
SYSTEMS = ("A", "B")
HUMAN = "human"  # the label of the human translation's answering HIT (hit.system None)

# Per article, per sentence: (source, human translation = the reference, A's, B's).
ARTICLES = {
    "d1": [
        (
            "Die Schauspielerin Heather Locklear wurde am Samstag verhaftet.",
            "The actress Heather Locklear was arrested on Saturday.",
            "The actress Heather Locklear became arrested on Saturday.",
            "The actress Heather Locklear was on Saturday imprisoned.",
        ),
        (
            "Ein Zeuge rief die Polizei, weil sie unsicher fuhr.",
            "A witness called the police because she was driving erratically.",
            "A witness called the police because she drove unsafe.",
            "A witness called the police, because they drove unsure.",
        ),
        (
            "Sie wurde in ein Gefängnis in Santa Barbara gebracht.",
            "She was taken to a jail in Santa Barbara.",
            "She was brought into a prison in Santa Barbara.",
            "She became brought in a prison in Holy Barbara.",
        ),
    ],
    "d2": [
        (
            "Der Stadtrat beschloss, die alte Brücke zu schließen.",
            "The city council decided to close the old bridge.",
            "The city council decided to close the old bridge.",
            "The town advice concluded the old bridge to shut.",
        ),
        (
            "Die Arbeiten beginnen im Mai und dauern zwei Jahre.",
            "The work begins in May and lasts two years.",
            "The works start in May and last two years.",
            "The works begin in May and take two years.",
        ),
        (
            "Fußgänger können die Fähre benutzen.",
            "Pedestrians can use the ferry.",
            "Pedestrians can use the ferry.",
            "Foot-goers can the ferry use.",
        ),
    ],
}

# What each author of an article writes, by their turn: (question, sample answer) per slot.
# The first author's questions are numbered 1-2, the second's 3-4 (numbers follow the order
# the authors submitted, then the slot).
QUESTIONS = {
    "d1": [
        [
            ("Who was arrested?", "Heather Locklear"),
            ("Why did the witness call the police?", "She was driving erratically"),
        ],
        [
            ("Which actress did the police arrest?", "Heather Locklear"),  # repeats Q1
            ("What colour was her car?", "Red"),  # not in the article: a poor question
        ],
    ],
    "d2": [
        [
            ("Is the bridge old?", "Yes"),  # a yes/no question: a poor one
            ("What did the council decide?", "To close the old bridge"),
        ],
        [
            ("How long will the work last?", "Two years"),
            ("How many years does the work take?", "Two"),  # repeats Q3
        ],
    ],
}

# Each voter's ballot by their turn: question number (= slot position, the selection HIT
# lists the proposed questions in number order) -> (good?, the numbers it repeats).
BALLOTS = {
    "d1": [
        {1: (True, []), 2: (True, [1]), 3: (True, [1]), 4: (False, [])},
        {1: (True, [3]), 2: (True, []), 3: (True, []), 4: (True, [])},
    ],
    "d2": [
        {1: (False, []), 2: (True, [1]), 3: (True, []), 4: (True, [3])},
        {1: (True, [2]), 2: (True, []), 3: (True, [4]), 4: (True, [])},
    ],
}
# Selection worked by hand (kept when good votes / votes > 1/2; a pair redundant when more
# than 1/2 of its 2 common voters mark it, i.e. both; greedy by good votes, then number):
#   d1: Q4 1 of 2 good: dropped by votes. Q1-Q3 marked by both voters (v1: 3 repeats 1;
#       v2: 1 repeats 3): redundant. Q1-Q2 marked by v1 only (1/2, not more than 1/2): not
#       redundant. Q1, Q2, Q3 have 2 good votes each: Q1 kept, Q2 kept, Q3 dropped as
#       redundant with Q1.
#   d2: Q1 1 of 2 good: dropped by votes; Q1-Q2 is marked by both voters, but a question
#       dropped by votes blocks nothing, so Q2 is kept. Q3-Q4 marked by both: Q3 kept, Q4
#       dropped as redundant with Q3.
OUTCOMES = {
    # (article, number): (status, good votes, redundant with)
    ("d1", 1): (RCQuestionStatus.KEPT, 2, None),
    ("d1", 2): (RCQuestionStatus.KEPT, 2, None),
    ("d1", 3): (RCQuestionStatus.DROPPED_REDUNDANT, 2, 1),
    ("d1", 4): (RCQuestionStatus.DROPPED_VOTES, 1, None),
    ("d2", 1): (RCQuestionStatus.DROPPED_VOTES, 1, None),
    ("d2", 2): (RCQuestionStatus.KEPT, 2, None),
    ("d2", 3): (RCQuestionStatus.KEPT, 2, None),
    ("d2", 4): (RCQuestionStatus.DROPPED_REDUNDANT, 2, 3),
}
KEPT = {"d1": (1, 2), "d2": (2, 3)}

# The readings: (article, translation, the reader's turn on that translation's HIT) ->
# per kept question (answer, grader 1's mark then grader 2's; Y correct, N not). An answer's
# verdict is the graders' majority; a split (YN, NY) is a tie and scores 1/2.
READINGS = {
    ("d1", "A", 1): {1: ("Heather Locklear", "YY"), 2: ("She drove unsafely", "YN")},
    ("d1", "A", 2): {1: ("The actress Heather Locklear", "YY"), 2: ("She was unsure", "NN")},
    ("d1", "B", 1): {1: ("An actress", "YN"), 2: ("They were driving", "NN")},
    ("d1", "B", 2): {1: ("A witness", "NN"), 2: ("Because of Holy Barbara", "NN")},
    ("d1", HUMAN, 1): {1: ("Heather Locklear", "YY"), 2: ("She was driving erratically", "YY")},
    ("d2", "A", 1): {2: ("Close the old bridge", "YY"), 3: ("Until May", "NN")},
    ("d2", "A", 2): {2: ("Something about the bridge", "NY"), 3: ("Two years", "YY")},
    ("d2", "B", 1): {2: ("To shut the bridge", "YY"), 3: ("Two years", "YY")},
    ("d2", "B", 2): {2: ("Give advice", "NN"), 3: ("A long time", "YN")},
    ("d2", HUMAN, 1): {2: ("Close the old bridge", "YY"), 3: ("Since May", "NN")},
}
# Worked by hand from READINGS (correct = the answers' scores summed, a tie adding 1/2):
#
#   d1          Q1        Q2        sum     d2          Q2        Q3        sum
#   A 1st       YY 1      YN 1/2    3/2     A 1st       YY 1      NN 0      1
#   A 2nd       YY 1      NN 0      1       A 2nd       NY 1/2    YY 1      3/2
#   B 1st       YN 1/2    NN 0      1/2     B 1st       YY 1      YY 1      2
#   B 2nd       NN 0      NN 0      0       B 2nd       NN 0      YN 1/2    1/2
#   human       YY 1      YY 1      2       human       YY 1      NN 0      1
#
# Per article (correct / answers): d1 A 5/2 / 4, B 1/2 / 4, human 2 / 2;
#                                  d2 A 5/2 / 4, B 5/2 / 4, human 1 / 2.
# Share correct: A (5/2 + 5/2) / 8 = 5/8 = 62.5%, B (1/2 + 5/2) / 8 = 3/8 = 37.5%, the human
# translation 3/4 = 75%. Ties: A 2 (d1 A 1st Q2, d2 A 2nd Q2), B 2 (d1 B 1st Q1, d2 B 2nd
# Q3), human 0; 4 in all. Every question has 2 answers per system, so the question mean
# equals the share. Readings: 4, 4, 2.
# d2 Q3 is answered wrongly on the human translation (0 of 1): suspect. Without it:
# A (5/2 + 3/2) / 6 = 2/3, B (1/2 + 1) / 6 = 1/4, the human translation (2 + 1) / 3 = 1.
# Agreement: the graders agree on 16 of 20 answers (p_o = 4/5); 22 of 40 marks are Y, so
# p_e = (11/20)^2 + (9/20)^2 = 101/200 and Fleiss' kappa = (4/5 - 101/200) / (99/200) = 59/99.
# Intervals (percentile bootstrap over the two articles): a draw is d1 twice (1/4), d2 twice
# (1/4) or one of each (1/2), so the 2.5% and 97.5% points are the one-article shares: A
# 5/8-5/8, B 1/8-5/8, the human translation 1/2-1.
# Significance: no pair differs at 0.05 (exact permutation tests over readings within
# articles: A over B has p = 8/36, the human translation over A 4/9 and over B 2/9), so one
# cluster and every rank range 1-3.
ARTICLE_SHARES = {
    # (article, label): (correct, answers, ties)
    ("d1", "A"): (Fraction(5, 2), 4, 1),
    ("d1", "B"): (Fraction(1, 2), 4, 1),
    ("d1", HUMAN): (Fraction(2), 2, 0),
    ("d2", "A"): (Fraction(5, 2), 4, 1),
    ("d2", "B"): (Fraction(5, 2), 4, 1),
    ("d2", HUMAN): (Fraction(1), 2, 0),
}
# Both articles (the integration test): label -> (correct, answers, ties, readings).
SCORES = {
    HUMAN: (Fraction(3), 4, 0, 2),
    "A": (Fraction(5), 8, 2, 4),
    "B": (Fraction(3), 8, 2, 4),
}
INTERVALS = {
    HUMAN: (Fraction(1, 2), Fraction(1)),
    "A": (Fraction(5, 8), Fraction(5, 8)),
    "B": (Fraction(1, 8), Fraction(5, 8)),
}
SCORES_WITHOUT_SUSPECT = {HUMAN: (Fraction(3), 3), "A": (Fraction(4), 6), "B": (Fraction(3, 2), 6)}
SUSPECT = {("d2", 3)}
KAPPA = Fraction(59, 99)
N_TIES = 4


def judgments_per_article() -> int:
    """Questions written, votes, answers and grades of one article: 4 + 8 + 10 + 20 = 42."""
    n_questions = SETTINGS["authors_per_article"] * SETTINGS["questions_per_author"]
    readers = len(SYSTEMS) * SETTINGS["answers_per_system"] + SETTINGS["answers_on_reference"]
    answers = readers * 2  # two questions kept in each article
    return (
        n_questions
        + SETTINGS["voters_per_article"] * n_questions
        + answers
        + SETTINGS["graders_per_answer"] * answers
    )


def build_rc_campaign(articles=tuple(ARTICLES), **fields) -> Campaign:
    """Two systems and ``articles`` of three sentences with their human translations: the
    builder makes one authoring HIT per article (two places, two question slots)."""
    fields.setdefault("title", "Read and answer")
    fields.setdefault("instructions", "Read the article carefully.")
    campaign = CampaignFactory(
        kind=TaskKind.READING_COMPREHENSION, redundancy=1, **SETTINGS, **fields
    )
    analytics_actions.clear_recompute_flag(campaign.pk)
    systems = {name: SystemFactory(campaign=campaign, name=name) for name in SYSTEMS}
    for number, article in enumerate(articles, start=1):
        document = DocumentFactory(campaign=campaign, external_id=article, position=number)
        for position, (source, human, *machine) in enumerate(ARTICLES[article], start=1):
            segment = SegmentFactory(
                document=document,
                external_id=f"{article}-{position}",
                position=position,
                source=source,
                references=[human],
            )
            for name, text in zip(SYSTEMS, machine, strict=True):
                OutputFactory(segment=segment, system=systems[name], text=text)
    assert build_hits(campaign) == len(articles)
    return campaign


# --- Reading the draw from the database ---------------------------------------------------


def turn(assignment: Assignment) -> int:
    """The worker's turn on their HIT: 1 + the HIT's assignments submitted before (workers
    submit one after another in these tests)."""
    done = Assignment.objects.filter(
        hit_id=assignment.hit_id, status__in=(AssignmentStatus.SUBMITTED, AssignmentStatus.APPROVED)
    ).exclude(pk=assignment.pk)
    return done.count() + 1


def article_of(hit: Hit) -> str:
    return hit.document.external_id


def label_of(hit: Hit) -> str:
    return HUMAN if hit.system_id is None else hit.system.name


def reading_of(assignment: Assignment) -> tuple[str, str, int]:
    """(article, translation, turn) of an answering assignment about to be submitted."""
    return article_of(assignment.hit), label_of(assignment.hit), turn(assignment)


def answered_questions(hit: Hit) -> dict[int, int]:
    """An answering HIT's slot positions -> the numbers of the questions they ask."""
    return dict(hit.slots.values_list("position", "rc_question__question__number"))


def marks_of_answers(campaign: Campaign) -> dict[int, str]:
    """Every answer judgment -> its two marks (READINGS), found through the reading it came
    from: its HIT's translation and the order in which the HIT's readers submitted."""
    answers = Judgment.objects.filter(
        campaign=campaign, slot__hit__task=HitTask.RC_ANSWER
    ).values_list(
        "pk",
        "assignment_id",
        "assignment__hit_id",
        "assignment__submitted_at",
        "slot__hit__document__external_id",
        "slot__hit__system__name",
        "slot__rc_question__question__number",
    )
    rows = list(answers)
    order: dict[int, list[tuple]] = {}
    for _, assignment_id, hit_id, submitted_at, *_ in rows:
        order.setdefault(hit_id, [])
        if (submitted_at, assignment_id) not in order[hit_id]:
            order[hit_id].append((submitted_at, assignment_id))
    turns = {
        assignment_id: index
        for readers in order.values()
        for index, (_, assignment_id) in enumerate(sorted(readers), start=1)
    }
    return {
        pk: READINGS[(article, system or HUMAN, turns[assignment_id])][number][1]
        for pk, assignment_id, _, _, article, system, number in rows
    }


# --- The pipeline --------------------------------------------------------------------------

WORKER_READY_TIMEOUT = 30
STEP_TIMEOUT = 60


def take(campaign: Campaign, task: str, workers) -> list[Assignment]:
    """Each of ``workers`` (None: a new worker) is handed a HIT of ``task``. Every worker of a
    stage takes theirs before anyone submits: once one article's stage is done, the next
    stage's HITs (handed out first) may appear at any moment, as they would for real workers
    arriving later."""
    taken = []
    for worker in workers:
        worker = worker or judgment_actions.create_pseudonymous_worker()
        hand_out = judgment_actions.next_assignment_for(worker, campaign)
        assert hand_out.assignment is not None, hand_out.reason
        assignment = Assignment.objects.select_related("hit__document", "hit__system").get(
            pk=hand_out.assignment.pk
        )
        assert assignment.hit.task == task
        taken.append(assignment)
    return taken


def submit(assignment: Assignment, payload: dict) -> None:
    judgment_actions.record_judgment(assignment.pk, assignment.worker_id, payload)


def write(assignment: Assignment) -> None:
    """The author's page as rc_author.js sends it: the questions of their turn."""
    written = QUESTIONS[article_of(assignment.hit)][turn(assignment) - 1]
    questions = {
        str(position): {"question": question, "answer": sample}
        for position, (question, sample) in enumerate(written, start=1)
    }
    submit(assignment, {"page": 1, "questions": questions})


def vote(assignment: Assignment) -> None:
    """The voter's page as rc_select.js sends it: the ballot of their turn."""
    ballot = BALLOTS[article_of(assignment.hit)][turn(assignment) - 1]
    # The slots list the proposed questions in number order (group = the number).
    assert dict(assignment.hit.slots.values_list("position", "group")) == {n: n for n in ballot}
    votes = {
        str(number): {"good": good, "redundant_with": repeats}
        for number, (good, repeats) in ballot.items()
    }
    submit(assignment, {"page": 1, "votes": votes})


def read(assignment: Assignment) -> tuple[str, str, int]:
    """The reader's page as rc_answer.js sends it: the answers of their reading (article,
    translation, turn), which is returned."""
    reading = reading_of(assignment)
    answers = {
        str(position): READINGS[reading][number][0]
        for position, number in answered_questions(assignment.hit).items()
    }
    submit(assignment, {"page": 1, "answers": answers})
    return reading


def grade(assignment: Assignment, marks: dict[int, str]) -> None:
    """The grader's pages as rc_grade.js sends them, one question at a time: the marks of the
    HIT's first or second grader, by their turn."""
    grader = turn(assignment) - 1
    units: dict[int, dict[str, bool]] = {}
    for position, group, answer in assignment.hit.slots.order_by("position").values_list(
        "position", "group", "about_judgment_id"
    ):
        units.setdefault(group, {})[str(position)] = marks[answer][grader] == "Y"
    for number, grades in units.items():
        submit(assignment, {"question": number, "grades": grades})


def stages(campaign: Campaign) -> dict[str, str]:
    return dict(
        RCArticle.objects.filter(campaign=campaign).values_list("document__external_id", "stage")
    )


def test_a_celery_worker_moves_two_articles_through_the_stages_and_stores_the_scores(
    postgres_required,
    redis_url,
    unique_queue,
    subprocess_env,
    start_service,
    settings,
):
    from analytics.models import (
        ReadingComprehensionBreakdown,
        ReadingComprehensionQuestionStat,
        ReadingComprehensionResult,
        ReadingComprehensionSystemScore,
    )
    from evalsite.celery import app as celery_app

    assert celery_app.conf.task_always_eager is False  # sent through Redis, not inline
    settings.ANALYTICS_RECOMPUTE_QUEUE = unique_queue
    settings.ANALYTICS_RECOMPUTE_COUNTDOWN = 1.0
    campaign = build_rc_campaign()
    assert stages(campaign) == {"d1": RCStage.AUTHORING, "d2": RCStage.AUTHORING}

    worker = start_service(
        "celery-worker",
        [
            str(DEPLOY_DIR / "worker.sh"),
            "--pool=solo",
            "--concurrency=1",
            f"--queues={unique_queue}",
            f"--hostname={unique_queue}@%h",
            "--without-gossip",
            "--without-mingle",
        ],
        subprocess_env,
    )
    worker.wait_until(lambda: " ready." in worker.log(), WORKER_READY_TIMEOUT, "worker ready")
    hits = Hit.objects.filter(campaign=campaign)

    # 1. Writing: two authors per article. No requester step from here on: the worker's
    # recompute builds each next stage's HITs.
    writing = take(campaign, HitTask.RC_AUTHOR, [None] * 4)
    for assignment in writing:
        write(assignment)
    authors = {assignment.worker: article_of(assignment.hit) for assignment in writing}
    worker.wait_until(
        lambda: hits.filter(task=HitTask.RC_SELECT).count() == 2, STEP_TIMEOUT, "selection HITs"
    )
    assert stages(campaign) == {"d1": RCStage.SELECTION, "d2": RCStage.SELECTION}
    questions = RCQuestion.objects.filter(campaign=campaign).select_related("document")
    assert {(q.document.external_id, q.number): (q.text, q.sample_answer) for q in questions} == {
        (article, 2 * author + slot): written
        for article, authors_questions in QUESTIONS.items()
        for author, pair in enumerate(authors_questions)
        for slot, written in enumerate(pair, start=1)
    }
    assert sorted(hits.filter(task=HitTask.RC_SELECT).values_list("places", flat=True)) == [2, 2]

    # 2. Selection: the authors vote, each on the other article's questions (never on their
    # own: 000's "other Turkers"), in whatever order the hand-out chose.
    voting = take(campaign, HitTask.RC_SELECT, authors)
    for assignment in voting:
        assert article_of(assignment.hit) != authors[assignment.worker]
        vote(assignment)
    worker.wait_until(
        lambda: hits.filter(task=HitTask.RC_ANSWER).count() == 6, STEP_TIMEOUT, "answering HITs"
    )
    assert stages(campaign) == {"d1": RCStage.ANSWERING, "d2": RCStage.ANSWERING}
    outcomes = {
        (q.document.external_id, q.number): (
            q.status,
            q.good_votes,
            q.redundant_with.number if q.redundant_with else None,
        )
        for q in questions.select_related("redundant_with")
    }
    assert outcomes == OUTCOMES
    assert set(questions.values_list("votes", flat=True)) == {2}
    # Per article: A and B with two places each, the human translation with one; each asks
    # the kept questions in number order.
    answering = hits.filter(task=HitTask.RC_ANSWER).select_related("document", "system")
    assert sorted((article_of(h), label_of(h), h.places) for h in answering) == [
        (article, label, 1 if label == HUMAN else 2)
        for article in ("d1", "d2")
        for label in sorted((*SYSTEMS, HUMAN))
    ]
    for hit in answering:
        assert list(answered_questions(hit).values()) == list(KEPT[article_of(hit)])
    # The authors have read both human translations: no answering HIT for them.
    for author in authors:
        assert judgment_actions.next_assignment_for(author, campaign).assignment is None

    # 3. Answering: five new readers per article (the hand-out picks the article and the
    # translation; the table is per translation and turn).
    readers = take(campaign, HitTask.RC_ANSWER, [None] * 10)
    readings = [read(assignment) for assignment in readers]
    answers = Judgment.objects.filter(campaign=campaign, slot__hit__task=HitTask.RC_ANSWER)
    assert answers.count() == 20
    # Every reading of the table happened once, whatever the draw.
    assert sorted(readings) == sorted(READINGS)
    worker.wait_until(
        lambda: hits.filter(task=HitTask.RC_GRADE).count() == 2, STEP_TIMEOUT, "grading HITs"
    )
    assert stages(campaign) == {"d1": RCStage.GRADING, "d2": RCStage.GRADING}
    # Every answer once, grouped by question in number order.
    for hit in hits.filter(task=HitTask.RC_GRADE).select_related("document"):
        groups = list(hit.slots.order_by("position").values_list("group", flat=True))
        assert groups == [number for number in KEPT[article_of(hit)] for _ in range(5)]
        assert hit.places == 2

    # 4. Grading: two readers of each article grade the other one (never their own answers).
    marks = marks_of_answers(campaign)
    graders = {}
    for reader in readers:
        article = article_of(reader.hit)
        if sum(1 for other in graders.values() if other == article) < 2:
            graders[reader.worker] = article
    grading = take(campaign, HitTask.RC_GRADE, graders)
    for assignment in grading:
        assert article_of(assignment.hit) != graders[assignment.worker]
        grade(assignment, marks)
    for grader in graders:  # the other grading HIT holds their own answer
        assert judgment_actions.next_assignment_for(grader, campaign).assignment is None

    n_judgments = 2 * judgments_per_article()
    assert n_judgments == 84

    def reflects_everything() -> bool:
        result = ReadingComprehensionResult.objects.filter(campaign=campaign).first()
        return result is not None and result.n_judgments == n_judgments

    worker.wait_until(reflects_everything, STEP_TIMEOUT, f"results over all {n_judgments}")
    assert stages(campaign) == {"d1": RCStage.DONE, "d2": RCStage.DONE}

    result = ReadingComprehensionResult.objects.get(campaign=campaign)
    assert (result.n_answers, result.n_grades, result.n_graded_answers) == (20, 40, 20)
    assert (result.n_ties, result.n_questions, result.n_suspect) == (N_TIES, 4, 1)
    assert result.fleiss_kappa == pytest.approx(float(KAPPA), abs=1e-12)

    def stored(without_suspect: bool) -> dict[str, ReadingComprehensionSystemScore]:
        rows = ReadingComprehensionSystemScore.objects.filter(
            campaign=campaign, without_suspect=without_suspect
        ).select_related("system")
        return {row.label if not row.is_reference else HUMAN: row for row in rows}

    scores = stored(False)
    assert list(scores) == [HUMAN, "A", "B"]  # by share, best first
    for label, (correct, answers, ties, n_readings) in SCORES.items():
        row = scores[label]
        assert row.correct == pytest.approx(float(correct), abs=1e-12), label
        assert row.share == pytest.approx(float(correct / answers), abs=1e-12), label
        assert row.question_mean == pytest.approx(float(correct / answers), abs=1e-12), label
        assert (row.n_answers, row.n_ties, row.n_readings, row.n_articles) == (
            answers,
            ties,
            n_readings,
            2,
        ), label
        assert (row.cluster, row.rank_best, row.rank_worst) == (1, 1, 3), label
        assert (row.share_ci_low, row.share_ci_high) == pytest.approx(
            tuple(map(float, INTERVALS[label])), abs=1e-12
        ), label
    for label, (correct, answers) in SCORES_WITHOUT_SUSPECT.items():
        row = stored(True)[label]
        assert (row.correct, row.n_answers) == (pytest.approx(float(correct), abs=1e-12), answers)
        assert row.share == pytest.approx(float(correct / answers), abs=1e-12), label

    per_article = {
        (row.document.external_id, HUMAN if row.is_reference else row.system.name): (
            row.correct,
            row.n_answers,
            row.n_ties,
        )
        for row in ReadingComprehensionBreakdown.objects.filter(
            campaign=campaign, without_suspect=False, question__isnull=True
        ).select_related("document", "system")
    }
    assert per_article == {
        key: (pytest.approx(float(correct), abs=1e-12), answers, ties)
        for key, (correct, answers, ties) in ARTICLE_SHARES.items()
    }
    suspect = {
        (stat.question.document.external_id, stat.question.number)
        for stat in ReadingComprehensionQuestionStat.objects.filter(
            campaign=campaign, suspect=True
        ).select_related("question__document")
    }
    assert suspect == SUSPECT
    analytics_actions.clear_recompute_flag(campaign.pk)
