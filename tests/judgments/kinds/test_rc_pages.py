"""The reading-comprehension pages as a whole (issue 14 items 1 and 5): HITs of the four stages
built by hand as RC_SPEC.md lays them out (the builders below, shared with the page tests and
the Chromium tests), the kind's registration, and what no page may reveal: a worker walks each
stage from the entry page to the completion page, and every body they receive is searched for
system names, roles, internal ids, sample answers (before grading) and other workers."""

from __future__ import annotations

import json
import re

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders
from django.test import Client
from django.urls import reverse

from campaigns.kinds.reading_comprehension.models import (
    RCArticle,
    RCQuestion,
    RCQuestionOrigin,
    RCQuestionSlot,
    RCQuestionStatus,
    RCStage,
)
from campaigns.models import (
    Document,
    Hit,
    HitSlot,
    HitTask,
    Output,
    Segment,
    SlotRole,
    System,
    TaskKind,
)
from judgments import tokens
from judgments.kinds import registry, task_page
from judgments.models import Assignment, AssignmentStatus, Judgment
from tests.factories import (
    AssignmentFactory,
    CampaignFactory,
    HitFactory,
    HitSlotFactory,
    WorkerFactory,
)
from tests.judgments.test_page_secrets import TELL_TALE_WORDS, scrub

pytestmark = pytest.mark.django_db

NASTY = '<script>alert(1)</script> & "x"'
SYSTEM_NAME = "SECRET-SYSTEM-NAME"
# Ids far from anything else in a test database, so that finding one is never a coincidence.
FIRST_ID = 7_560_001

# (source, human translation, system translation) per sentence.
ARTICLE = [
    (
        "Die Schauspielerin wurde am Wochenende verhaftet.",
        "The actress was arrested at the weekend.",
        "The actress became arrested on the weekend.",
    ),
    (
        "Ein Zeuge rief die Polizei, weil er besorgt war.",
        "A witness called the police because he was worried.",
        "A witness called the police, because he worried.",
    ),
    (
        "Sie war vor zwei Monaten in einer Klinik in Arizona.",
        "Two months ago she was in a clinic in Arizona.",
        "She was before two months in a clinic in Arizona.",
    ),
]
HUMAN = [human for _, human, _ in ARTICLE]
MACHINE = [machine for _, _, machine in ARTICLE]

# (question, sample answer), after 000's Appendix A; no sample answer is a part of the article,
# so that finding one in a page means the page shows it.
QUESTIONS = [
    ("Why did the witness call the police?", "He feared for her life."),
    ("Where was she two months ago?", "At an Arizona clinic."),
    ("When was the actress arrested?", "Over the weekend."),
]


class Ids:
    """Distinctive primary keys from ``first`` (or none: the database's own)."""

    def __init__(self, first: int | None) -> None:
        self.ids = iter(range(first, first + 1000)) if first else None

    def __call__(self) -> dict[str, int]:
        return {"pk": next(self.ids)} if self.ids else {}


def rc_campaign(**fields):
    fields.setdefault("title", "Read and answer")
    fields.setdefault("instructions", "Read the article carefully.")
    return CampaignFactory(kind=TaskKind.READING_COMPREHENSION, redundancy=1, **fields)


def rc_article(campaign, sentences=ARTICLE, *, number=1, systems=(SYSTEM_NAME,), ids=None):
    """An article (a Document) with its sentences, their human translations (main
    references) and each system's translation; returns (document, systems)."""
    ids = ids or Ids(None)
    document = Document.objects.create(
        campaign=campaign, external_id=f"article-{number}", position=number, **ids()
    )
    rows = [
        System.objects.get_or_create(campaign=campaign, name=name, defaults=ids())[0]
        for name in systems
    ]
    for position, (source, human, machine) in enumerate(sentences, start=1):
        segment = Segment.objects.create(
            campaign=campaign,
            document=document,
            external_id=f"sentence-{number}-{position}",
            position=position,
            source=source,
            references=[human] if human else [],
            **ids(),
        )
        for index, system in enumerate(rows):
            text = machine if index == 0 else f"{machine} ({system.name})"
            Output.objects.create(segment=segment, system=system, text=text, **ids())
    return document, rows


def at_stage(document, stage):
    """The article's RCArticle row, at ``stage`` (the hand-out offers its stage's HITs only)."""
    RCArticle.objects.update_or_create(
        document=document, defaults={"campaign_id": document.campaign_id, "stage": stage}
    )


def author_hit(campaign, document, questions=3, *, places=3, ids=None):
    """Stage 1 (RC_SPEC.md): slots 1..questions_per_author, role QUESTION, nothing shown."""
    ids = ids or Ids(None)
    at_stage(document, RCStage.AUTHORING)
    hit = HitFactory(
        campaign=campaign, task=HitTask.RC_AUTHOR, document=document, places=places, **ids()
    )
    for position in range(1, questions + 1):
        HitSlotFactory(
            hit=hit,
            position=position,
            role=SlotRole.QUESTION,
            segment=None,
            output=None,
            shown_text="",
            **ids(),
        )
    return hit


def authored(campaign, document, questions=QUESTIONS, *, author=None, ids=None):
    """Questions a worker wrote on the article's authoring HIT (submitted), as RCQuestion rows
    (proposed) with their authoring judgments; returns the questions in number order."""
    ids = ids or Ids(None)
    hit = author_hit(campaign, document, len(questions), ids=ids)
    assignment = AssignmentFactory(
        hit=hit, worker=author or WorkerFactory(), status=AssignmentStatus.SUBMITTED, **ids()
    )
    rows = []
    for slot, (text, sample) in zip(hit.slots.order_by("position"), questions, strict=True):
        judgment = Judgment.objects.create(
            campaign=campaign,
            worker=assignment.worker,
            assignment=assignment,
            slot=slot,
            text=text,
            details={"answer": sample},
            **ids(),
        )
        rows.append(
            RCQuestion.objects.create(
                campaign=campaign,
                document=document,
                number=slot.position,
                text=text,
                sample_answer=sample,
                origin=RCQuestionOrigin.AUTHORED,
                authored_by=judgment,
                status=RCQuestionStatus.PROPOSED,
                **ids(),
            )
        )
    return rows


def select_hit(campaign, document, questions=QUESTIONS, *, places=3, author=None, ids=None):
    """Stage 2: one slot per proposed question, shown text = the question, group = its number,
    about_judgment = its authoring judgment."""
    ids = ids or Ids(None)
    proposed = authored(campaign, document, questions, author=author, ids=ids)
    at_stage(document, RCStage.SELECTION)
    hit = HitFactory(
        campaign=campaign, task=HitTask.RC_SELECT, document=document, places=places, **ids()
    )
    for position, question in enumerate(proposed, start=1):
        HitSlotFactory(
            hit=hit,
            position=position,
            group=question.number,
            role=SlotRole.QUESTION,
            segment=None,
            output=None,
            shown_text=question.text,
            about_judgment=question.authored_by,
            **ids(),
        )
    return hit


def kept_questions(campaign, document, questions=QUESTIONS, *, ids=None):
    ids = ids or Ids(None)
    return [
        RCQuestion.objects.create(
            campaign=campaign,
            document=document,
            number=number,
            text=text,
            sample_answer=sample,
            origin=RCQuestionOrigin.IMPORTED,
            status=RCQuestionStatus.KEPT,
            **ids(),
        )
        for number, (text, sample) in enumerate(questions, start=1)
    ]


def answer_hit(campaign, document, system, *, questions=None, places=5, ids=None):
    """Stage 3: the article in ``system``'s translation (None: the human one); one slot per
    kept question in number order, group 0, linked by RCQuestionSlot."""
    ids = ids or Ids(None)
    if questions is None:
        questions = kept_questions(campaign, document, ids=ids)
    at_stage(document, RCStage.ANSWERING)
    hit = HitFactory(
        campaign=campaign,
        task=HitTask.RC_ANSWER,
        document=document,
        system=system,
        places=places,
        **ids(),
    )
    for position, question in enumerate(questions, start=1):
        slot = HitSlotFactory(
            hit=hit,
            position=position,
            group=0,
            role=SlotRole.QUESTION,
            segment=None,
            output=None,
            shown_text=question.text,
            **ids(),
        )
        RCQuestionSlot.objects.create(slot=slot, question=question)
    return hit


def grade_hit(campaign, document, answers, *, system=None, places=3, ids=None):
    """Stage 4: ``answers`` (one list of answer texts per question of QUESTIONS) given on
    answering HITs, one worker each; the grading HIT has one slot per answer, grouped by
    question (group = its number), role SYSTEM, shown text = the answer, about_judgment = the
    answering judgment. Returns the grading HIT."""
    ids = ids or Ids(None)
    questions = kept_questions(campaign, document, QUESTIONS[: len(answers)], ids=ids)
    answering = answer_hit(campaign, document, system, questions=questions, ids=ids)
    slots = list(answering.slots.order_by("position"))
    by_question: list[list[Judgment]] = [[] for _ in questions]
    for round_ in range(max(len(texts) for texts in answers)):
        assignment = AssignmentFactory(
            hit=answering, status=AssignmentStatus.SUBMITTED, worker=WorkerFactory(), **ids()
        )
        for index, texts in enumerate(answers):
            if round_ < len(texts):
                by_question[index].append(
                    Judgment.objects.create(
                        campaign=campaign,
                        worker=assignment.worker,
                        assignment=assignment,
                        slot=slots[index],
                        text=texts[round_],
                        **ids(),
                    )
                )
    hit = HitFactory(
        campaign=campaign, task=HitTask.RC_GRADE, document=document, places=places, **ids()
    )
    at_stage(document, RCStage.GRADING)
    position = 0
    for question, judgments in zip(questions, by_question, strict=True):
        for judgment in judgments:
            position += 1
            HitSlotFactory(
                hit=hit,
                position=position,
                group=question.number,
                role=SlotRole.SYSTEM,
                segment=None,
                output=None,
                shown_text=judgment.text,
                about_judgment=judgment,
                **ids(),
            )
    return hit


def url(assignment, name="judgments:task"):
    return reverse(name, args=[tokens.assignment_token(assignment.pk, assignment.worker_id)])


def post_json(client, target, payload):
    return client.post(target, data=json.dumps(payload), content_type="application/json")


# --- The kind ---------------------------------------------------------------------------------


def test_the_kind_has_a_page_per_stage():
    kind = registry[TaskKind.READING_COMPREHENSION]
    assert kind.tasks() == (
        HitTask.RC_AUTHOR,
        HitTask.RC_SELECT,
        HitTask.RC_ANSWER,
        HitTask.RC_GRADE,
    )
    assert [task_page(task).template for task in kind.tasks()] == [
        "judgments/rc_author.html",
        "judgments/rc_select.html",
        "judgments/rc_answer.html",
        "judgments/rc_grade.html",
    ]
    assert [task_page(task).spec.key for task in kind.tasks()] == [
        "page",
        "page",
        "page",
        "question",
    ]


# 000's "translated from another language into English", with the campaign's languages (German
# into English), as each catalog words it around Django's language names.
TRANSLATED_FROM = {
    "cs": "automaticky přeložen: původně byl napsán německy a překlad čtete anglicky.",
    "de": "automatisch übersetzt wurde (Originalsprache: Deutsch, Übersetzung: Englisch).",
    "es": "se ha traducido automáticamente del alemán al inglés.",
    "fr": "traduit automatiquement (langue d’origine : allemand ; langue de la traduction : "
    "anglais).",
    "ru": "переведена автоматически (язык оригинала: немецкий; язык перевода: английский).",
    "zh": "这篇文章是从德语自动翻译成英语的。",
}


@pytest.mark.parametrize("language", sorted(TRANSLATED_FROM))
def test_every_catalog_offers_the_four_pages(language):
    campaign = rc_campaign(instructions_language=language)
    kind = registry[TaskKind.READING_COMPREHENSION]
    pages = [kind.page(task) for task in kind.tasks()]
    assert {page.language(campaign) for page in pages} == {language}
    labels = [page.labels(campaign) for page in pages]
    assert len({label["stage"] for label in labels}) == 4
    assert TRANSLATED_FROM[language] in labels[2]["prompt"]


# --- Secrets ----------------------------------------------------------------------------------


def walk(campaign, script, answer):
    """Every body a worker receives on the campaign's one HIT, entry page to completion page:
    each unit answered by ``answer(next)`` (a payload), the first one retried and a bad one
    sent too."""
    client = Client()
    bodies = {}
    bodies["entry"] = client.get(reverse("judgments:campaign-entry", args=[campaign.pk]))
    start = client.post(reverse("judgments:campaign-start", args=[campaign.pk]))
    task_url = client.get(start["Location"])["Location"]
    seen = [start["Location"].rstrip("/").rsplit("/", 1)[1], task_url.rstrip("/").rsplit("/", 1)[1]]
    bodies["task page"] = client.get(task_url)
    item = client.get(task_url + "item")
    bodies["item"] = item
    shown = []
    count = 0
    while item.json()["next"] is not None:
        shown.append(item.json()["next"])
        payload = answer(item.json()["next"])
        if count == 0:
            bodies["bad"] = client.post(
                task_url + "submit", json.dumps({**payload, "extra": 1}), "application/json"
            )
        item = client.post(task_url + "submit", json.dumps(payload), "application/json")
        assert item.status_code == 200, item.content
        bodies[f"submit {count}"] = item
        if count == 0:
            bodies["retry"] = client.post(
                task_url + "submit", json.dumps(payload), "application/json"
            )
        count += 1
    bodies["item after the end"] = client.get(task_url + "item")
    bodies["completion page"] = client.get(task_url)
    texts = {name: response.content.decode() for name, response in bodies.items()}
    for name in ("js/task-common.js", "js/rc_common.js", f"js/{script}.js", "css/rc.css"):
        with open(finders.find(name), encoding="utf-8") as handle:
            texts[name] = handle.read()
    return texts, shown, seen


def ids_of(campaign):
    """Every id of the campaign's rows a page might leak, as text (taken before the walk)."""
    ids = set()
    ids.update(Hit.objects.filter(campaign=campaign).values_list("pk", flat=True))
    for row in HitSlot.objects.filter(hit__campaign=campaign).values_list(
        "pk", "output_id", "segment_id", "about_judgment_id"
    ):
        ids.update(pk for pk in row if pk)
    for model in (System, Document, Segment, RCQuestion):
        ids.update(model.objects.filter(campaign=campaign).values_list("pk", flat=True))
    ids.update(Output.objects.filter(system__campaign=campaign).values_list("pk", flat=True))
    ids.update(Judgment.objects.filter(campaign=campaign).values_list("pk", flat=True))
    ids.update(Assignment.objects.filter(campaign=campaign).values_list("pk", flat=True))
    return {str(pk) for pk in ids}


def check_secrets(texts, seen, ids, extra_secrets=()):
    assert ids and all(FIRST_ID <= int(pk) < FIRST_ID + 1000 for pk in ids), sorted(ids)
    # "question" is a role value and the pages' own word (every slot here is one).
    forbidden = {
        *(value for value in SlotRole.values if value != SlotRole.QUESTION),
        *SlotRole.labels,
        SYSTEM_NAME,
        "SECRET-SYSTEM-TWO",
        "article-1",
        *(f"sentence-1-{n}" for n in range(1, 4)),
        *extra_secrets,
    }
    for name, body in texts.items():
        body = scrub(body, seen)
        lowered = body.lower()
        for secret in forbidden:
            assert secret.lower() not in lowered, f"{name} contains {secret!r}"
        for word in TELL_TALE_WORDS:
            assert word not in lowered, f"{name} contains {word!r}"
        for pk in ids:
            assert pk not in body, f"{name} contains the id {pk}"


SAMPLES = [sample for _, sample in QUESTIONS]


def test_no_body_of_the_authoring_page_reveals_anything():
    campaign = rc_campaign()
    ids = Ids(FIRST_ID)
    document, _ = rc_article(campaign, ids=ids, systems=(SYSTEM_NAME, "SECRET-SYSTEM-TWO"))
    author_hit(campaign, document, ids=ids)

    def answer(next_):
        return {
            "page": next_["page"],
            "questions": {
                str(q["position"]): {"question": f"Why {q['position']}?", "answer": "Because."}
                for q in next_["questions"]
            },
        }

    known = ids_of(campaign)
    texts, shown, seen = walk(campaign, "rc_author", answer)
    assert shown == [
        {
            "page": 1,
            "article": HUMAN,
            "questions": [{"position": 1}, {"position": 2}, {"position": 3}],
        }
    ]
    check_secrets(texts, seen, known, MACHINE)


def test_no_body_of_the_voting_page_reveals_a_sample_answer_or_an_author():
    campaign = rc_campaign()
    ids = Ids(FIRST_ID)
    document, _ = rc_article(campaign, ids=ids)
    author = WorkerFactory(external_id="SECRET-AUTHOR")
    hit = select_hit(campaign, document, author=author, ids=ids)

    def answer(next_):
        return {
            "page": 1,
            "votes": {
                str(q["position"]): {"good": True, "redundant_with": []} for q in next_["questions"]
            },
        }

    known = ids_of(campaign)
    texts, shown, seen = walk(campaign, "rc_select", answer)
    assert [q["text"] for q in shown[0]["questions"]] == [q for q, _ in QUESTIONS]
    assert Judgment.objects.filter(slot__hit=hit).count() == 3
    check_secrets(texts, seen, known, [*SAMPLES, *MACHINE, "SECRET-AUTHOR"])


@pytest.mark.parametrize("human", [False, True], ids=["system", "human translation"])
def test_no_body_of_the_answering_page_reveals_the_translation_or_a_sample_answer(human):
    campaign = rc_campaign()
    ids = Ids(FIRST_ID)
    document, systems = rc_article(campaign, ids=ids, systems=(SYSTEM_NAME, "SECRET-SYSTEM-TWO"))
    answer_hit(campaign, document, None if human else systems[0], ids=ids)

    def answer(next_):
        return {"page": 1, "answers": {str(q["position"]): "A guess." for q in next_["questions"]}}

    known = ids_of(campaign)
    texts, shown, seen = walk(campaign, "rc_answer", answer)
    assert shown[0]["article"] == (HUMAN if human else MACHINE)
    assert set(shown[0]) == {"page", "article", "questions"}
    # The other translation is nowhere, and neither are the sample answers.
    check_secrets(texts, seen, known, [*SAMPLES, *(MACHINE if human else HUMAN)])


def test_no_body_of_the_grading_page_reveals_who_answered_or_on_which_translation():
    campaign = rc_campaign()
    ids = Ids(FIRST_ID)
    document, systems = rc_article(campaign, ids=ids)
    grade_hit(
        campaign,
        document,
        [["Worried.", "He was scared."], ["Arizona."]],
        system=systems[0],
        ids=ids,
    )
    answerers = list(
        Assignment.objects.filter(hit__task=HitTask.RC_ANSWER).values_list(
            "worker__external_id", flat=True
        )
    )
    assert len(answerers) == 2

    def answer(next_):
        return {
            "question": next_["question"],
            "grades": {str(a["position"]): True for a in next_["answers"]},
        }

    known = ids_of(campaign)
    texts, shown, seen = walk(campaign, "rc_grade", answer)
    assert [(q["text"], q["sample_answer"]) for q in shown] == QUESTIONS[:2]
    check_secrets(texts, seen, known, [*MACHINE, *answerers])


@pytest.mark.parametrize(
    "name",
    ["js/rc_common.js", "js/rc_author.js", "js/rc_select.js", "js/rc_answer.js", "js/rc_grade.js"],
)
def test_the_scripts_never_insert_text_as_html(name):
    with open(finders.find(name), encoding="utf-8") as handle:
        script = handle.read()
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
        assert sink not in script
    assert "textContent" in script


def test_the_pages_files_hold_no_quality_control_vocabulary():
    """The grep of tests/judgments/test_page_secrets.py over this kind's worker-facing files."""
    pattern = re.compile(
        r"bad_?ref|is_?gold|gold_?answer|is_?repeat|is_?control|qc_?role|item_?type"
        r"|training|expected_?rank|trust|system",
        re.I,
    )
    templates = settings.BASE_DIR / "judgments" / "templates" / "judgments"
    paths = [
        *(
            finders.find(f"js/rc_{name}.js")
            for name in ("common", "author", "select", "answer", "grade")
        ),
        finders.find("css/rc.css"),
        *sorted(templates.glob("rc_*.html")),
    ]
    assert len(paths) == 6 + 10
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            assert not pattern.search(handle.read()), path
