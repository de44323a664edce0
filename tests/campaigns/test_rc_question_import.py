"""Import of ready-made reading-comprehension questions (issue 14 item 2): TSV and JSON lines,
every problem with its file, line and field, nothing written on any problem; the articles
skip writing and selection. Through import_questions, the command and the admin upload."""

import io

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from campaigns.actions import build_hits
from campaigns.importers.problems import ImportFailed
from campaigns.kinds.reading_comprehension.imports import import_questions
from campaigns.kinds.reading_comprehension.models import (
    RCArticle,
    RCQuestion,
    RCQuestionOrigin,
    RCQuestionStatus,
    RCStage,
)
from campaigns.kinds.reading_comprehension.stages import advance
from campaigns.models import Hit, HitTask, TaskKind
from judgments.actions import next_assignment_for
from tests.campaigns.test_rc_stages import author, rc_campaign, submit, take
from tests.factories import CampaignFactory, WorkerFactory

pytestmark = pytest.mark.django_db

GOOD_TSV = (
    "doc_id\tquestion\tanswer\tnumber\n"
    "d1\tWhy did the bystander call emergency services?\tHe was concerned for her life.\t2\n"
    "\n"
    "d1\tWhere was Ms. Locklear two months ago?\tAt a specialist clinic in Arizona.\t\n"
    "d2\t  Why was she arrested?  \tDriving under the influence of drugs.\t1\n"
)
GOOD_MESSAGE = (
    "Imported 3 question(s) for 2 article(s) from questions.tsv. d1: answering HITs 4-6 built "
    "(2 question(s), 2 system(s), the human translation); d2: answering HITs 7-9 built (1 "
    "question(s), 2 system(s), the human translation)."
)


@pytest.fixture
def campaign():
    campaign = rc_campaign(docs=("d1", "d2", "d3"), name="news")
    assert build_hits(campaign) == 3  # authoring HITs 1-3
    return campaign


def upload(text: str, name: str = "questions.tsv"):
    return SimpleUploadedFile(name, text.encode("utf-8"))


def problems_of(campaign, text, name="questions.tsv"):
    with pytest.raises(ImportFailed) as failure:
        import_questions(campaign, upload(text, name))
    return [str(problem) for problem in failure.value.problems]


def state(campaign):
    """What an import may change."""
    return (
        list(RCQuestion.objects.filter(campaign=campaign).values_list("pk", "status")),
        list(Hit.objects.filter(campaign=campaign).values_list("number", flat=True)),
        list(RCArticle.objects.filter(campaign=campaign).values_list("stage", flat=True)),
    )


def test_a_good_tsv_imports_kept_questions_and_builds_the_answering_hits(campaign):
    summary = import_questions(campaign, upload(GOOD_TSV))

    assert summary.message == GOOD_MESSAGE
    assert list(
        RCQuestion.objects.filter(campaign=campaign)
        .order_by("document__position", "number")
        .values_list("document__external_id", "number", "text", "sample_answer", "origin", "status")
    ) == [
        (
            "d1",
            2,
            "Why did the bystander call emergency services?",
            "He was concerned for her life.",
            RCQuestionOrigin.IMPORTED,
            RCQuestionStatus.KEPT,
        ),
        (
            "d1",
            3,
            "Where was Ms. Locklear two months ago?",
            "At a specialist clinic in Arizona.",
            RCQuestionOrigin.IMPORTED,
            RCQuestionStatus.KEPT,
        ),
        (
            "d2",
            1,
            "Why was she arrested?",
            "Driving under the influence of drugs.",
            RCQuestionOrigin.IMPORTED,
            RCQuestionStatus.KEPT,
        ),
    ]
    # The untaken authoring HITs of d1 and d2 are gone; the new HITs follow the highest (3).
    assert list(
        Hit.objects.filter(campaign=campaign)
        .order_by("number")
        .values_list("number", "task", "document__external_id", "system__name", "places")
    ) == [
        (3, HitTask.RC_AUTHOR, "d3", None, 3),
        (4, HitTask.RC_ANSWER, "d1", "sysA", 5),
        (5, HitTask.RC_ANSWER, "d1", "sysB", 5),
        (6, HitTask.RC_ANSWER, "d1", None, 3),
        (7, HitTask.RC_ANSWER, "d2", "sysA", 5),
        (8, HitTask.RC_ANSWER, "d2", "sysB", 5),
        (9, HitTask.RC_ANSWER, "d2", None, 3),
    ]
    assert list(
        Hit.objects.get(campaign=campaign, number=4)
        .slots.order_by("position")
        .values_list("shown_text", "rc_question__question__number")
    ) == [
        ("Why did the bystander call emergency services?", 2),
        ("Where was Ms. Locklear two months ago?", 3),
    ]
    assert dict(
        RCArticle.objects.filter(campaign=campaign).values_list("document__external_id", "stage")
    ) == {"d1": RCStage.ANSWERING, "d2": RCStage.ANSWERING, "d3": RCStage.AUTHORING}


def test_jsonl_with_review_waits_for_the_requester():
    campaign = rc_campaign(docs=("d1",), review_questions=True)
    text = (
        '{"doc_id": "d1", "question": "Why?", "answer": "Because.", "number": 1}\n'
        '{"doc_id": "d1", "question": "Who?", "answer": "She.", "number": null}\n'
    )
    summary = import_questions(campaign, upload(text, "q.jsonl"))
    assert summary.message == (
        "Imported 2 question(s) for 1 article(s) from q.jsonl. d1: waiting for the requester "
        "to start answering."
    )
    assert list(RCQuestion.objects.values_list("number", "text")) == [(1, "Why?"), (2, "Who?")]
    assert RCArticle.objects.get().stage == RCStage.REVIEW
    assert not Hit.objects.filter(campaign=campaign).exists()


def test_an_import_replaces_a_selection_in_progress():
    # d1's author is done and a voter holds its selection HIT: the import drops the proposed
    # questions, keeps the held HIT as a record and hands out answering instead.
    campaign = rc_campaign(docs=("d1",), authors_per_article=1)
    build_hits(campaign)
    submit(take(campaign, WorkerFactory()), 1, author(["Old?", "Older?", "Oldest?"]))
    assert advance(campaign) == ["d1: 3 question(s) written; selection HIT 2 built (3 question(s))"]
    voter = take(campaign, WorkerFactory())
    assert voter.hit.number == 2

    import_questions(campaign, upload("doc_id\tquestion\tanswer\nd1\tNew?\tYes.\n"))

    assert list(
        RCQuestion.objects.filter(campaign=campaign)
        .order_by("number")
        .values_list("number", "status", "origin")
    ) == [
        (1, RCQuestionStatus.DROPPED_REQUESTER, RCQuestionOrigin.AUTHORED),
        (2, RCQuestionStatus.DROPPED_REQUESTER, RCQuestionOrigin.AUTHORED),
        (3, RCQuestionStatus.DROPPED_REQUESTER, RCQuestionOrigin.AUTHORED),
        (4, RCQuestionStatus.KEPT, RCQuestionOrigin.IMPORTED),
    ]
    assert list(
        Hit.objects.filter(campaign=campaign).order_by("number").values_list("number", "task")
    ) == [
        (1, HitTask.RC_AUTHOR),
        (2, HitTask.RC_SELECT),
        (3, HitTask.RC_ANSWER),
        (4, HitTask.RC_ANSWER),
        (5, HitTask.RC_ANSWER),
    ]
    fresh = next_assignment_for(WorkerFactory(), campaign).assignment
    assert (fresh.hit.task, fresh.hit.document.external_id) == (HitTask.RC_ANSWER, "d1")
    # The voter's selection HIT is still theirs to finish (its votes are no longer used).
    assert next_assignment_for(voter.worker, campaign).assignment == voter


def test_problems_of_the_file_are_listed_with_line_and_field(campaign):
    before = state(campaign)
    text = (
        "doc_id\tquestion\tanswer\tnumber\n"
        "d1\t \tThe answer.\t1\n"
        "d1\tWhy?\t\t2\n"
        "d1\tWho?\tShe.\t3\n"
        "d1\tWhere?\tHome.\t3\n"
        "d1\tWhen?\tLater.\tthree\n"
        "d1\tHow?\n"
        "\tWhat?\tThis.\t\n"
    )
    assert problems_of(campaign, text) == [
        'questions.tsv line 2, field "question": empty question; every row needs the '
        "question's text",
        'questions.tsv line 3, field "answer": empty answer; every question needs a sample '
        "answer (graders compare answers with it)",
        'questions.tsv line 5, field "number": duplicate number 3 for article "d1" (line 4 has '
        "it too)",
        'questions.tsv line 6, field "number": not a question number: "three"; use a whole '
        "number from 1 to 32767, or leave it empty",
        "questions.tsv line 7: 2 tab-separated field(s), the header has 4 (doc_id, question, "
        "answer, number)",
        'questions.tsv line 8, field "doc_id": empty doc_id',
    ]
    assert state(campaign) == before


def test_problems_of_the_header(campaign):
    assert problems_of(campaign, "doc_id\tquestion\tanswr\nd1\tWhy?\tBecause.\n") == [
        'questions.tsv line 1, field "answr": unknown column "answr"; the columns are doc_id, '
        "question, answer and optionally number",
        'questions.tsv line 1: missing column "answer"; the header names doc_id, question, '
        "answer and optionally number",
    ]
    assert problems_of(campaign, "doc_id\tquestion\tanswer\n") == [
        "questions.tsv: no questions: the file has no rows"
    ]
    assert problems_of(campaign, "a,b", name="questions.csv") == [
        "questions.csv: cannot tell the format from the file name; name it .tsv or .jsonl, or "
        "choose the format"
    ]


def test_problems_of_json_lines(campaign):
    before = state(campaign)
    text = (
        '{"doc_id": "d1", "question": "Why?", "answer": "Because.", "number": 1}\n'
        '{"doc_id": "d1", "question": "Who?"}\n'
        "not json\n"
        '["a"]\n'
        '{"doc_id": "d1", "question": "Q?", "answer": "x", "extra": 1}\n'
        '{"doc_id": "d1", "question": "Q?", "answer": "A.", "number": 0}\n'
        '{"doc_id": "d1", "question": ["Q"], "answer": "A."}\n'
        '{"doc_id": "d1", "question": "Q?", "answer": "A.", "number": true}\n'
    )
    assert problems_of(campaign, text, "q.jsonl") == [
        'q.jsonl line 2, field "answer": missing "answer"',
        "q.jsonl line 3: not valid JSON: Expecting value at column 1",
        "q.jsonl line 4: not a JSON object; every line is one {...} object",
        'q.jsonl line 5, field "extra": unknown key "extra"; the keys are doc_id, question, '
        "answer and optionally number",
        'q.jsonl line 6, field "number": not a question number: 0; use a whole number from 1 to '
        "32767, or leave it empty",
        'q.jsonl line 7, field "question": question must be text (a JSON string)',
        'q.jsonl line 8, field "number": not a question number: true; use a whole number from 1 '
        "to 32767, or leave it empty",
    ]
    assert state(campaign) == before


def test_problems_with_the_campaign(campaign):
    import_questions(campaign, upload("doc_id\tquestion\tanswer\nd1\tFirst?\tYes.\n"))
    d2 = campaign.documents.get(external_id="d2")
    RCQuestion.objects.create(
        campaign=campaign, document=d2, number=1, text="Existing?", sample_answer="Yes."
    )
    before = state(campaign)
    text = (
        "doc_id\tquestion\tanswer\tnumber\n"
        "d9\tWho?\tHer.\t\n"
        "d1\tWhy?\tBecause.\t\n"
        "d1\tWhy again?\tBecause.\t\n"
        "d2\tHow?\tThus.\t1\n"
        "d2\tOk?\tYes.\t2\n"
    )
    assert problems_of(campaign, text) == [
        'questions.tsv line 2, field "doc_id": unknown doc_id "d9": the campaign has no article '
        "with this document id (import its segments first)",
        'questions.tsv line 3, field "doc_id": article "d1" is already being answered (stage: '
        "3. Answering questions): its questions can no longer change",
        'questions.tsv line 5, field "number": duplicate number 1: article "d2" already has '
        'question 1 ("Existing?")',
    ]
    assert state(campaign) == before


def test_only_reading_comprehension_campaigns_take_questions():
    campaign = CampaignFactory(kind=TaskKind.RANKING, name="ranked")
    assert problems_of(campaign, GOOD_TSV) == [
        'questions.tsv: campaign "ranked" is a Ranking campaign; questions are imported into '
        "reading-comprehension campaigns only"
    ]


def test_the_command(campaign, tmp_path):
    path = tmp_path / "questions.tsv"
    path.write_text(GOOD_TSV, encoding="utf-8")
    out = io.StringIO()
    call_command("import_rc_questions", str(campaign.pk), str(path), stdout=out)
    assert out.getvalue() == GOOD_MESSAGE + "\n"
    assert RCQuestion.objects.filter(campaign=campaign).count() == 3


def test_the_command_lists_the_problems_and_writes_nothing(campaign, tmp_path):
    path = tmp_path / "questions.tsv"
    path.write_text("doc_id\tquestion\tanswer\nd9\tWho?\tHer.\n", encoding="utf-8")
    err = io.StringIO()
    with pytest.raises(CommandError, match="Nothing was imported. Fix the problems"):
        call_command("import_rc_questions", "news", str(path), stderr=err)
    assert err.getvalue() == (
        "1 problem found; nothing was imported.\n"
        'questions.tsv line 2, field "doc_id": unknown doc_id "d9": the campaign has no article '
        "with this document id (import its segments first)\n"
    )
    assert not RCQuestion.objects.exists()


def test_the_admin_upload(client, campaign):
    client.force_login(User.objects.create(username="root", is_staff=True, is_superuser=True))
    url = reverse("admin:campaigns_campaign_rc_stages", args=[campaign.pk])
    response = client.post(url, {"action": "import", "file": upload(GOOD_TSV)})
    assert response.status_code == 302
    assert response["Location"] == url
    page = client.get(url)
    assert [str(m) for m in page.context["messages"]] == [GOOD_MESSAGE]
    assert RCQuestion.objects.filter(campaign=campaign).count() == 3
    # A bad file: the problems on the page, nothing written.
    bad = client.post(
        url, {"action": "import", "file": upload("doc_id\tquestion\tanswer\nd1\tWhy?\t\n")}
    )
    assert bad.status_code == 200
    assert [str(p) for p in bad.context["problems"]] == [
        'questions.tsv line 2, field "answer": empty answer; every question needs a sample '
        "answer (graders compare answers with it)"
    ]
    assert "1 problem found; nothing was imported." in bad.content.decode()
    assert RCQuestion.objects.filter(campaign=campaign).count() == 3
