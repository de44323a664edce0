"""Reading comprehension's stages in the database (issue 14 items 1-3): the authoring HITs the
kind builds, who is handed which HIT, and every move of
campaigns.kinds.reading_comprehension.stages.advance, with workers simulated by the shared
hand-out (judgments.actions.next_assignment_for) and Judgment rows written as the pages would.

The main article is 000's Appendix A: three authors write its nine questions, three voters
keep four of them (the votes of tests/campaigns/test_rc_selection.py), five workers answer on
two systems and the human translation, two graders grade the twenty answers."""

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from campaigns.actions import build_hits
from campaigns.kinds import HitBuildError
from campaigns.kinds.reading_comprehension.models import (
    RCArticle,
    RCQuestion,
    RCQuestionOrigin,
    RCQuestionSlot,
    RCQuestionStatus,
    RCStage,
)
from campaigns.kinds.reading_comprehension.stages import advance, start_answering
from campaigns.models import CampaignStatus, Hit, HitSlot, HitTask, SlotRole, TaskKind
from campaigns.tasks.reading_comprehension import advance_reading_comprehension
from judgments.actions import NoWorkReason, next_assignment_for
from judgments.models import AssignmentStatus, Judgment
from tests.campaigns.test_rc_selection import BALLOTS, LOCKLEAR
from tests.factories import (
    CampaignFactory,
    DocumentFactory,
    OutputFactory,
    SegmentFactory,
    SystemFactory,
    WorkerFactory,
)

pytestmark = pytest.mark.django_db
T0 = timezone.now() - timedelta(days=1)


def rc_campaign(docs=("d1",), systems=("sysA", "sysB"), sentences=2, **settings):
    campaign = CampaignFactory(kind=TaskKind.READING_COMPREHENSION, **settings)
    made = [SystemFactory(campaign=campaign, name=name) for name in systems]
    for d, external_id in enumerate(docs, start=1):
        document = DocumentFactory(campaign=campaign, external_id=external_id, position=d)
        for p in range(1, sentences + 1):
            segment = SegmentFactory(
                document=document,
                external_id=str(p),
                position=p,
                references=[f"Human {external_id}.{p}"],
            )
            for system in made:
                OutputFactory(segment=segment, system=system, text=f"{system.name} {d}.{p}")
    return campaign


def take(campaign, worker):
    handed = next_assignment_for(worker, campaign)
    assert handed.assignment is not None, handed.reason
    return handed.assignment


def submit(assignment, minute, judgment):
    """Answer every slot (``judgment(slot)`` gives the columns) and submit at T0 + minute."""
    for slot in assignment.hit.slots.order_by("position"):
        Judgment.objects.create(
            campaign=assignment.campaign,
            worker=assignment.worker,
            assignment=assignment,
            slot=slot,
            **judgment(slot),
        )
    assignment.status = AssignmentStatus.SUBMITTED
    assignment.submitted_at = T0 + timedelta(minutes=minute)
    assignment.save()


def author(questions):
    """An author's judgments: question i with the sample answer "answer to question i"."""
    return lambda slot: {
        "text": questions[slot.position - 1],
        "details": {"answer": f"answer to: {questions[slot.position - 1]}"},
    }


def vote(ballot):
    return lambda slot: {
        "yes_no": ballot[slot.position][0],
        "details": {"redundant_with": sorted(ballot[slot.position][1])},
    }


def reason(campaign, worker):
    return next_assignment_for(worker, campaign).reason


# --- Building -----------------------------------------------------------------------------


def test_build_hits_makes_one_authoring_hit_per_article():
    campaign = rc_campaign(docs=("d1", "d2"), authors_per_article=3, questions_per_author=2)

    assert build_hits(campaign) == 2

    hits = list(Hit.objects.filter(campaign=campaign).order_by("number"))
    assert [(h.number, h.task, h.places, h.document.external_id, h.system) for h in hits] == [
        (1, HitTask.RC_AUTHOR, 3, "d1", None),
        (2, HitTask.RC_AUTHOR, 3, "d2", None),
    ]
    slots = HitSlot.objects.filter(hit=hits[0]).order_by("position")
    assert [(s.position, s.role, s.shown_text, s.segment, s.output) for s in slots] == [
        (1, SlotRole.QUESTION, "", None, None),
        (2, SlotRole.QUESTION, "", None, None),
    ]
    assert list(
        RCArticle.objects.filter(campaign=campaign).values_list("document__external_id", "stage")
    ) == [("d1", RCStage.AUTHORING), ("d2", RCStage.AUTHORING)]
    # Rebuilding (nobody has started) gives the same HITs and articles.
    assert build_hits(campaign) == 2
    assert RCArticle.objects.filter(campaign=campaign).count() == 2


def test_build_hits_without_references_says_what_to_do():
    campaign = CampaignFactory(kind=TaskKind.READING_COMPREHENSION)
    document = DocumentFactory(campaign=campaign, external_id="d1", position=1)
    SegmentFactory(document=document, references=[])
    with pytest.raises(HitBuildError) as error:
        build_hits(campaign)
    assert str(error.value) == (
        "The campaign's segments have no reference translations. Reading comprehension needs "
        "the human translation of every article: authors write their questions on it and "
        "graders check answers against it. Import the segments again with a reference column "
        "(or reference files for the WMT format), in a new campaign."
    )
    assert not Hit.objects.filter(campaign=campaign).exists()


def test_build_hits_names_articles_with_missing_references():
    campaign = rc_campaign(docs=("d1", "d2"), sentences=3)
    segment = campaign.segments.get(document__external_id="d2", position=2)
    segment.references = []
    segment.save()
    with pytest.raises(HitBuildError, match=r"without a reference translation: d2 \(1 of 3\)\."):
        build_hits(campaign)


def test_build_hits_without_articles():
    campaign = CampaignFactory(kind=TaskKind.READING_COMPREHENSION)
    with pytest.raises(HitBuildError, match="The campaign has no articles yet. Import segments"):
        build_hits(campaign)


# --- The four stages of Appendix A's article ---------------------------------------------------


@pytest.fixture
def appendix():
    campaign = rc_campaign(
        docs=("d1",),
        authors_per_article=3,
        questions_per_author=3,
        voters_per_article=3,
        answers_per_system=2,
        answers_on_reference=1,
        graders_per_answer=2,
    )
    build_hits(campaign)
    return campaign


def write_questions(campaign):
    """Three authors: the second submits first (questions 1-3), then the first (4-6), then
    the third (7-9), so the numbers follow submission, not hand-out."""
    authors = [WorkerFactory() for _ in range(3)]
    held = [take(campaign, w) for w in authors]
    assert {a.hit.number for a in held} == {1}
    texts = list(LOCKLEAR.values())
    submit(held[1], 1, author(texts[0:3]))
    submit(held[0], 2, author(texts[3:6]))
    submit(held[2], 3, author(texts[6:9]))
    return authors


def select(campaign):
    voters = [WorkerFactory() for _ in range(3)]
    for minute, (worker, name) in enumerate(zip(voters, "ABC", strict=True), start=10):
        submit(take(campaign, worker), minute, vote(BALLOTS[name]))
    return voters


def test_authoring_done_creates_the_questions_and_the_selection_hit(appendix):
    campaign = appendix
    authors = [WorkerFactory() for _ in range(3)]
    held = [take(campaign, w) for w in authors]
    texts = list(LOCKLEAR.values())
    submit(held[1], 1, author(texts[0:3]))
    submit(held[0], 2, author(texts[3:6]))
    assert advance(campaign) == []  # two of three places done
    submit(held[2], 3, author(texts[6:9]))

    assert advance(campaign) == ["d1: 9 question(s) written; selection HIT 2 built (9 question(s))"]
    assert advance(campaign) == []  # idempotent

    questions = list(RCQuestion.objects.filter(campaign=campaign).order_by("number"))
    assert [(q.number, q.text, q.status, q.origin) for q in questions] == [
        (n, text, RCQuestionStatus.PROPOSED, RCQuestionOrigin.AUTHORED)
        for n, text in LOCKLEAR.items()
    ]
    assert questions[0].sample_answer == f"answer to: {LOCKLEAR[1]}"
    assert [q.authored_by.worker for q in questions] == [authors[1]] * 3 + [authors[0]] * 3 + [
        authors[2]
    ] * 3
    selection = Hit.objects.get(campaign=campaign, number=2)
    assert (selection.task, selection.places, selection.document.external_id) == (
        HitTask.RC_SELECT,
        3,
        "d1",
    )
    assert [
        (s.position, s.group, s.role, s.shown_text, s.about_judgment_id)
        for s in selection.slots.order_by("position")
    ] == [(q.number, q.number, SlotRole.QUESTION, q.text, q.authored_by_id) for q in questions]
    assert RCArticle.objects.get(campaign=campaign).stage == RCStage.SELECTION
    # The authors do not vote on their own questions (000: "other Turkers"), and their
    # authoring HIT is no longer handed out.
    assert reason(campaign, authors[0]) == NoWorkReason.ALL_DONE


def test_selection_done_keeps_four_questions_and_builds_the_answering_hits(appendix):
    campaign = appendix
    write_questions(campaign)
    advance(campaign)
    voters = [WorkerFactory() for _ in range(3)]
    held = [take(campaign, w) for w in voters]
    for minute, (assignment, name) in enumerate(zip(held[:2], "AB", strict=True), start=10):
        submit(assignment, minute, vote(BALLOTS[name]))
    assert advance(campaign) == []
    submit(held[2], 12, vote(BALLOTS["C"]))

    assert advance(campaign) == [
        "d1: selection applied, 4 of 9 kept; answering HITs 3-5 built (4 question(s), 2 "
        "system(s), the human translation)"
    ]
    assert advance(campaign) == []

    questions = {q.number: q for q in RCQuestion.objects.filter(campaign=campaign)}
    assert {
        n: (q.status, q.good_votes, q.votes, q.redundant_with and q.redundant_with.number)
        for n, q in questions.items()
    } == {
        1: (RCQuestionStatus.DROPPED_REDUNDANT, 2, 3, 4),
        2: (RCQuestionStatus.KEPT, 3, 3, None),
        3: (RCQuestionStatus.DROPPED_REDUNDANT, 2, 3, 4),
        4: (RCQuestionStatus.KEPT, 3, 3, None),
        5: (RCQuestionStatus.KEPT, 2, 3, None),
        6: (RCQuestionStatus.DROPPED_REDUNDANT, 2, 3, 4),
        7: (RCQuestionStatus.DROPPED_REDUNDANT, 2, 3, 4),
        8: (RCQuestionStatus.KEPT, 3, 3, None),
        9: (RCQuestionStatus.DROPPED_REDUNDANT, 2, 3, 8),
    }
    hits = Hit.objects.filter(campaign=campaign, task=HitTask.RC_ANSWER).order_by("number")
    assert [
        (h.number, h.places, h.system and h.system.name, h.document.external_id) for h in hits
    ] == [
        (3, 2, "sysA", "d1"),
        (4, 2, "sysB", "d1"),
        (5, 1, None, "d1"),
    ]
    for hit in hits:
        assert [
            (s.position, s.group, s.role, s.shown_text, s.rc_question.question.number)
            for s in hit.slots.select_related("rc_question__question").order_by("position")
        ] == [
            (1, 0, SlotRole.QUESTION, LOCKLEAR[2], 2),
            (2, 0, SlotRole.QUESTION, LOCKLEAR[4], 4),
            (3, 0, SlotRole.QUESTION, LOCKLEAR[5], 5),
            (4, 0, SlotRole.QUESTION, LOCKLEAR[8], 8),
        ]
    assert RCArticle.objects.get(campaign=campaign).stage == RCStage.ANSWERING
    # Voters have read the human translation: no answering HIT of the article for them.
    assert reason(campaign, voters[0]) == NoWorkReason.ALL_DONE


def test_answering_hand_out_balance_and_one_translation_per_worker(appendix):
    campaign = appendix
    authors = write_questions(campaign)
    advance(campaign)
    voters = select(campaign)
    advance(campaign)
    # Nobody who wrote or voted on the article's questions answers them.
    for worker in (*authors, *voters):
        assert reason(campaign, worker) == NoWorkReason.ALL_DONE
    answerers = [WorkerFactory() for _ in range(6)]
    held = [take(campaign, w) for w in answerers[:3]]
    # Fewest live assignments first: the first three workers get the three HITs.
    assert sorted(a.hit.number for a in held) == [3, 4, 5]
    # A worker asking again resumes the started HIT; once done, gets no second translation.
    assert next_assignment_for(answerers[0], campaign).assignment == held[0]
    submit(held[0], 20, lambda slot: {"text": "x"})
    assert reason(campaign, answerers[0]) == NoWorkReason.ALL_DONE
    # The control took its one place: the last two places are on the two systems.
    later = [take(campaign, w) for w in answerers[3:5]]
    assert sorted(a.hit.number for a in later) == [3, 4]
    assert reason(campaign, answerers[5]) == NoWorkReason.ALL_TAKEN


def test_answering_then_grading_then_done(appendix):
    campaign = appendix
    authors = write_questions(campaign)
    advance(campaign)
    select(campaign)
    advance(campaign)
    answerers = [WorkerFactory() for _ in range(5)]
    held = [take(campaign, w) for w in answerers]
    for minute, assignment in enumerate(held[:4], start=30):
        submit(assignment, minute, lambda slot, m=minute: {"text": f"answer {m}.{slot.position}"})
    assert advance(campaign) == []
    # The last one submits first of all: grading shows answers in order of submission.
    submit(held[4], 29, lambda slot: {"text": f"answer 29.{slot.position}"})

    assert advance(campaign) == ["d1: grading HIT 6 built (20 answer(s))"]
    assert advance(campaign) == []

    grading = Hit.objects.get(campaign=campaign, task=HitTask.RC_GRADE)
    assert (grading.number, grading.places, grading.document.external_id) == (6, 2, "d1")
    slots = list(grading.slots.select_related("about_judgment").order_by("position"))
    expected = [
        (number, f"answer {minute}.{position}")
        for position, number in enumerate((2, 4, 5, 8), start=1)
        for minute in (29, 30, 31, 32, 33)
    ]
    assert [(s.group, s.shown_text) for s in slots] == expected
    assert [s.position for s in slots] == list(range(1, 21))
    assert {s.role for s in slots} == {SlotRole.SYSTEM}
    assert all(s.about_judgment.text == s.shown_text for s in slots)
    assert RCArticle.objects.get(campaign=campaign).stage == RCStage.GRADING
    # Never grading one's own answer; an author may grade (graders read the human
    # translation anyway).
    assert reason(campaign, answerers[0]) == NoWorkReason.ALL_DONE
    graders = [authors[0], WorkerFactory()]
    marks = [take(campaign, w) for w in graders]
    assert {a.hit.number for a in marks} == {6}
    submit(marks[0], 40, lambda slot: {"yes_no": True})
    assert advance(campaign) == []
    submit(marks[1], 41, lambda slot: {"yes_no": slot.position % 2 == 0})

    assert advance(campaign) == ["d1: graded, the article is done"]
    assert advance_reading_comprehension(campaign.pk) == []
    assert RCArticle.objects.get(campaign=campaign).stage == RCStage.DONE


def test_later_stages_are_handed_out_first():
    campaign = rc_campaign(docs=("d1", "d2"), answers_per_system=1, answers_on_reference=1)
    d1 = campaign.documents.get(external_id="d1")
    # A question of the requester's own before the HITs are built: d1 skips writing.
    RCQuestion.objects.create(
        campaign=campaign, document=d1, number=1, text="Who?", sample_answer="Her."
    )

    assert build_hits(campaign) == 4
    assert list(
        Hit.objects.filter(campaign=campaign)
        .order_by("number")
        .values_list("number", "task", "document__external_id", "system__name")
    ) == [
        (1, HitTask.RC_AUTHOR, "d2", None),
        (2, HitTask.RC_ANSWER, "d1", "sysA"),
        (3, HitTask.RC_ANSWER, "d1", "sysB"),
        (4, HitTask.RC_ANSWER, "d1", None),
    ]
    first = take(campaign, WorkerFactory())
    assert (first.hit.task, first.hit.document.external_id) == (HitTask.RC_ANSWER, "d1")


def test_answering_hits_are_handed_out_at_random_under_balance():
    campaign = rc_campaign(systems=("sysA", "sysB"), answers_per_system=20, answers_on_reference=0)
    d1 = campaign.documents.get()
    RCQuestion.objects.create(
        campaign=campaign, document=d1, number=1, text="Who?", sample_answer="Her."
    )
    build_hits(campaign)
    firsts = set()
    for _ in range(20):
        pair = [take(campaign, WorkerFactory()).hit.system.name for _ in range(2)]
        # Fewest live first: every pair of workers reads both systems.
        assert sorted(pair) == ["sysA", "sysB"]
        firsts.add(pair[0])
    # Ties at random: over 20 pairs both systems come first (chance of failing: 2 ** -19).
    assert firsts == {"sysA", "sysB"}


# --- Review, edits, pause, rejection -----------------------------------------------------------


def small_campaign(**settings):
    campaign = rc_campaign(
        authors_per_article=1,
        questions_per_author=2,
        voters_per_article=1,
        answers_per_system=1,
        answers_on_reference=1,
        graders_per_answer=1,
        **settings,
    )
    build_hits(campaign)
    return campaign


def through_selection(campaign):
    submit(take(campaign, WorkerFactory()), 1, author(["Why did she go?", "Who called?"]))
    advance(campaign)
    submit(
        take(campaign, WorkerFactory()),
        2,
        lambda slot: {"yes_no": True, "details": {"redundant_with": []}},
    )
    return advance(campaign)


def test_review_pauses_until_the_requester_starts_answering():
    campaign = small_campaign(review_questions=True)
    assert through_selection(campaign) == [
        "d1: selection applied, 2 of 2 kept; waiting for the requester to start answering"
    ]
    article = RCArticle.objects.get(campaign=campaign)
    assert article.stage == RCStage.REVIEW
    assert advance(campaign) == []
    assert not Hit.objects.filter(campaign=campaign, task=HitTask.RC_ANSWER).exists()
    assert reason(campaign, WorkerFactory()) == NoWorkReason.ALL_DONE

    # The requester edits a question, drops the other and adds one.
    first, second = RCQuestion.objects.filter(campaign=campaign).order_by("number")
    first.text = "Why did she leave?"
    first.full_clean()
    first.save()
    second.status = RCQuestionStatus.DROPPED_REQUESTER
    second.full_clean()
    second.save()
    added = RCQuestion(
        campaign=campaign, document=article.document, number=3, text="Where?", sample_answer="Home"
    )
    added.full_clean()
    added.save()

    assert start_answering(campaign) == [
        "d1: answering HITs 3-5 built (2 question(s), 2 system(s), the human translation)"
    ]
    assert start_answering(campaign) == []
    hit = Hit.objects.get(campaign=campaign, number=3)
    assert list(hit.slots.order_by("position").values_list("shown_text", flat=True)) == [
        "Why did she leave?",
        "Where?",
    ]
    assert RCQuestionSlot.objects.filter(slot__hit=hit).count() == 2


def test_questions_cannot_change_once_answering_starts():
    campaign = small_campaign()
    through_selection(campaign)
    message = (
        'Answering has started for article "d1", so its questions can no longer be changed, '
        "added or deleted: workers' answers (and their grades) refer to the questions as they "
        "were asked."
    )
    question = RCQuestion.objects.filter(campaign=campaign).order_by("number").first()
    question.full_clean()  # unchanged: fine
    question.text = "Something else?"
    with pytest.raises(ValidationError) as error:
        question.full_clean()
    assert error.value.messages == [message]
    new = RCQuestion(
        campaign=campaign, document=question.document, number=9, text="New?", sample_answer="No"
    )
    with pytest.raises(ValidationError) as error:
        new.full_clean()
    assert error.value.messages == [message]


def test_start_answering_on_chosen_articles_only():
    campaign = rc_campaign(
        docs=("d1", "d2"), review_questions=True, answers_per_system=1, answers_on_reference=0
    )
    for document in campaign.documents.all():
        RCQuestion.objects.create(
            campaign=campaign, document=document, number=1, text="Q?", sample_answer="A"
        )
    assert build_hits(campaign) == 0
    assert list(RCArticle.objects.values_list("stage", flat=True)) == [RCStage.REVIEW] * 2
    d2 = campaign.documents.get(external_id="d2")
    assert start_answering(campaign, documents=[d2]) == [
        "d2: answering HITs 1-2 built (1 question(s), 2 system(s))"
    ]
    assert dict(RCArticle.objects.values_list("document__external_id", "stage")) == {
        "d1": RCStage.REVIEW,
        "d2": RCStage.ANSWERING,
    }


def test_a_paused_campaign_does_not_advance():
    campaign = small_campaign()
    submit(take(campaign, WorkerFactory()), 1, author(["Why?", "Who?"]))
    campaign.status = CampaignStatus.PAUSED
    campaign.save()
    assert advance(campaign) == []
    assert advance_reading_comprehension(campaign.pk) == []
    assert RCArticle.objects.get(campaign=campaign).stage == RCStage.AUTHORING
    campaign.status = CampaignStatus.ACTIVE
    campaign.save()
    assert advance(campaign) == ["d1: 2 question(s) written; selection HIT 2 built (2 question(s))"]


def test_a_rejected_assignment_reopens_its_place():
    campaign = rc_campaign(authors_per_article=2, questions_per_author=1)
    build_hits(campaign)
    first, second = WorkerFactory(), WorkerFactory()
    submit(take(campaign, first), 1, author(["Rejected?"]))
    kept = take(campaign, second)
    submit(kept, 2, author(["Kept?"]))
    rejected = first.assignments.get()
    rejected.status = AssignmentStatus.REJECTED
    rejected.save()

    assert advance(campaign) == []  # one of two places done
    # The place is free again, for somebody else.
    assert reason(campaign, first) == NoWorkReason.ALL_DONE
    third = take(campaign, WorkerFactory())
    assert third.hit.number == 1
    submit(third, 3, author(["Third?"]))

    assert advance(campaign) == ["d1: 2 question(s) written; selection HIT 2 built (2 question(s))"]
    assert list(
        RCQuestion.objects.filter(campaign=campaign)
        .order_by("number")
        .values_list("number", "text")
    ) == [(1, "Kept?"), (2, "Third?")]


def test_no_question_kept_ends_the_article():
    campaign = small_campaign()
    submit(take(campaign, WorkerFactory()), 1, author(["Yes or no?", "When?"]))
    advance(campaign)
    submit(
        take(campaign, WorkerFactory()),
        2,
        lambda slot: {"yes_no": False, "details": {"redundant_with": []}},
    )
    assert advance(campaign) == [
        "d1: selection applied, 0 of 2 kept; no question kept, the article is done"
    ]
    assert RCArticle.objects.get(campaign=campaign).stage == RCStage.DONE
    assert not Hit.objects.filter(campaign=campaign, task=HitTask.RC_ANSWER).exists()


def test_advance_ignores_other_kinds():
    campaign = CampaignFactory(kind=TaskKind.RANKING)
    assert advance(campaign) == []
    assert advance_reading_comprehension(10**9) is None
