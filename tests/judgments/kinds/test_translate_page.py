"""The translation page over HTTP (issue 15 items 1-2): the shell with 000's instructions, the
language-background form first, the run of sentences as image URLs (never the source text),
one POST per sentence with its details, exact 400s, a reload that resumes; the source image
endpoint (only the assignment's worker, 404 otherwise, private caching, fixed queries); and the
post-editing page in a translation campaign's correction pass (the translation alone)."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from campaigns.models import Document, Hit, HitSlot, HitTask, Segment, SlotRole, TaskKind
from judgments import tokens
from judgments.kinds import task_page
from judgments.kinds.translation.source_image import render_sentence
from judgments.models import Assignment, AssignmentStatus, CampaignWorker, Judgment
from tests.factories import AssignmentFactory, CampaignFactory, WorkerFactory

pytestmark = pytest.mark.django_db

SOURCES = [
    "Die Katze schläft auf dem Sofa.",
    'Es regnet heute <script>alert(1)</script> & "x".',
    "Wir essen frisches Brot zum Frühstück.",
]


def translation_campaign(**fields):
    fields.setdefault("title", "Translate German sentences")
    fields.setdefault("instructions", "Translate each sentence.")
    fields.setdefault("source_language", "de")
    fields.setdefault("target_language", "en")
    return CampaignFactory(kind=TaskKind.TRANSLATION, redundancy=5, **fields)


def build_translate_hit(campaign, sources=SOURCES, *, number=1, group=1):
    """A TRANSLATE HIT as the builder makes it (SPEC.md): one slot per segment of a run of one
    document, positions 1..n, role SOURCE, the source as shown text (server side only)."""
    document = Document.objects.create(
        campaign=campaign, external_id=f"doc-{number}", position=number
    )
    hit = Hit.objects.create(
        campaign=campaign, task=HitTask.TRANSLATE, number=number, document=document
    )
    for position, source in enumerate(sources, start=1):
        segment = Segment.objects.create(
            campaign=campaign,
            document=document,
            external_id=f"seg-{number}-{position}",
            position=position,
            source=source,
            references=[f"Reference {position}."],
        )
        HitSlot.objects.create(
            hit=hit,
            position=position,
            group=group,
            role=SlotRole.SOURCE,
            segment=segment,
            shown_text=source,
        )
    return hit


def answered_background(assignment):
    CampaignWorker.objects.update_or_create(
        campaign=assignment.campaign,
        worker=assignment.worker,
        defaults={"background_at": timezone.now()},
    )
    return assignment


@pytest.fixture
def campaign():
    return translation_campaign()


@pytest.fixture
def assignment(campaign):
    return answered_background(AssignmentFactory(hit=build_translate_hit(campaign)))


def url(assignment, name="judgments:task", *args):
    token = tokens.assignment_token(assignment.pk, assignment.worker_id)
    return reverse(name, args=[token, *args])


def post_json(client, target, payload):
    return client.post(target, data=json.dumps(payload), content_type="application/json")


def translation(position, text, **details):
    return {
        "position": position,
        "text": text,
        "keystrokes": 12,
        "pastes": 0,
        "seconds": 8.25,
        **details,
    }


def test_the_page_asks_the_background_first_even_when_the_campaign_does_not(campaign):
    assert campaign.ask_background is False
    assignment = AssignmentFactory(hit=build_translate_hit(campaign))
    client = Client()
    response = client.get(url(assignment))
    assert response.status_code == 302
    assert response["Location"] == url(assignment, "judgments:task-background")
    item = client.get(url(assignment, "judgments:task-item"))
    assert item.status_code == 409
    form = client.get(url(assignment, "judgments:task-background")).content.decode()
    assert "For how many years have you spoken German?" in form
    answer = client.post(
        url(assignment, "judgments:task-background"),
        {
            "native_language": "English",
            "country": "GB",
            "years_source_language": "4",
            "years_target_language": "30",
        },
    )
    assert answer.status_code == 303
    assert client.get(url(assignment)).status_code == 200


def test_the_shell_has_000s_instructions_and_no_source_text(assignment):
    response = Client().get(url(assignment))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Translate these sentences" in html
    assert "Your task is to translate these sentences into English." in html
    assert "Please make sure that your English translation:" in html
    for point in (
        "Is faithful to the original in both meaning and style",
        "Is grammatical, fluent, and natural-sounding English",
        "Does not add or delete information from the original text",
        "Does not contain any spelling errors",
        "Do not use any machine translation systems",
        "You may look up a word on wordreference.com if you do not know its translation",
    ):
        assert point in html
    assert "js/translate.js" in html
    for source in SOURCES:
        assert source not in html and "Katze" not in html
    assert not response.cookies


def test_the_item_sends_image_urls_and_never_the_source(assignment):
    response = Client().get(url(assignment, "judgments:task-item"))
    body = response.json()
    text = response.content.decode()
    assert body["progress"] == {"done": 0, "total": 3}
    sentences = body["next"]["sentences"]
    assert [s["position"] for s in sentences] == [1, 2, 3]
    assert all(set(s) == {"position", "image", "source", "translation"} for s in sentences)
    assert all(s["source"] is None and s["translation"] is None for s in sentences)
    assert [s["image"] for s in sentences] == [
        url(assignment, "judgments:task-source-image", n) for n in (1, 2, 3)
    ]
    assert "Katze" not in text and "regnet" not in text and "Brot" not in text


def test_a_text_campaign_sends_the_source_as_text(campaign):
    campaign.translation_settings.source_as_image = False
    campaign.translation_settings.save()
    assignment = answered_background(AssignmentFactory(hit=build_translate_hit(campaign)))
    sentences = Client().get(url(assignment, "judgments:task-item")).json()["next"]["sentences"]
    assert [s["source"] for s in sentences] == SOURCES
    assert all(s["image"] is None for s in sentences)
    image = Client().get(url(assignment, "judgments:task-source-image", 1))
    assert image.status_code == 404


def test_one_post_per_sentence_saved_stripped_with_its_details(assignment):
    client = Client()
    first = post_json(
        client,
        url(assignment, "judgments:task-submit"),
        translation(1, "  The cat sleeps on the sofa.  ", client_duration_ms=8250),
    )
    assert first.status_code == 200, first.content
    body = first.json()
    assert body["progress"] == {"done": 1, "total": 3}
    assert body["next"]["sentences"][0]["translation"] == "The cat sleeps on the sofa."
    stored = Judgment.objects.get()
    assert stored.text == "The cat sleeps on the sofa."
    assert stored.details == {"keystrokes": 12, "pastes": 0, "seconds": 8.2}
    assert stored.slot.position == 1 and stored.client_duration_ms == 8250
    # A retry of the same answer is the same answer.
    again = post_json(
        client,
        url(assignment, "judgments:task-submit"),
        translation(1, "The cat sleeps on the sofa."),
    )
    assert again.status_code == 200 and again.json()["already_recorded"] is True
    # Out of order, then the rest; the last save submits the task.
    skipped = post_json(client, url(assignment, "judgments:task-submit"), translation(3, "Bread."))
    assert skipped.status_code == 400
    assert skipped.json()["error"] == "Save sentence 2 first; the sentences are saved in order."
    post_json(
        client, url(assignment, "judgments:task-submit"), translation(2, NASTY_ANSWER, pastes=2)
    )
    last = post_json(
        client, url(assignment, "judgments:task-submit"), translation(3, "We eat bread.")
    )
    assert last.json()["done"] is True
    assignment.refresh_from_db()
    assert assignment.status == AssignmentStatus.SUBMITTED
    assert Judgment.objects.get(slot__position=2).details["pastes"] == 2
    done_page = client.get(url(assignment)).content.decode()
    assert "You have finished this task. Your answers are saved." in done_page


NASTY_ANSWER = "<b>It rains</b> & today."


@pytest.mark.parametrize(
    ("payload", "field", "error"),
    [
        (
            translation(1, "   "),
            "text",
            "The translation is empty: write the sentence's translation.",
        ),
        (
            {"position": 1, "keystrokes": 1, "pastes": 0, "seconds": 1},
            "text",
            "Your translation is missing: send it as text.",
        ),
        (translation(1, 5), "text", "Your translation must be sent as text (got 5)."),
        (
            translation(1, "x" * 10_001),
            "text",
            "Your translation is too long: at most 10,000 characters (got 10,001).",
        ),
        (translation(1, "ok", keystrokes=-1), "keystrokes", None),
        (translation(1, "ok", pastes=True), "pastes", None),
        (
            {"position": 1, "text": "ok", "keystrokes": 1, "pastes": 0},
            "seconds",
            "seconds is required: the time spent on the sentence, a number of seconds from 0 "
            "(got null).",
        ),
        (
            translation(1, "ok", seconds="fast"),
            "seconds",
            "seconds must be the time spent on the sentence, a number of seconds from 0 to "
            '604800 (a week) (got the text "fast").',
        ),
        (
            translation(1, "ok", seconds=-1),
            "seconds",
            "seconds must be the time spent on the sentence, a number of seconds from 0 to "
            "604800 (a week) (got -1).",
        ),
        (
            translation(4, "ok"),
            "position",
            "There is no sentence 4 in this task; it has sentences 1 to 3.",
        ),
    ],
)
def test_a_bad_translation_is_a_400_a_person_can_act_on_and_stores_nothing(
    assignment, payload, field, error
):
    response = post_json(Client(), url(assignment, "judgments:task-submit"), payload)
    assert response.status_code == 400, response.content
    assert response.json()["field"] == field
    if error:
        assert response.json()["error"] == error
    assert not Judgment.objects.exists()


def test_a_reload_resumes_with_the_saved_sentences(assignment):
    client = Client()
    post_json(client, url(assignment, "judgments:task-submit"), translation(1, "The cat sleeps."))
    sentences = client.get(url(assignment, "judgments:task-item")).json()["next"]["sentences"]
    assert [s["translation"] for s in sentences] == ["The cat sleeps.", None, None]


def test_the_image_is_a_png_for_the_assignments_worker_only(assignment, django_assert_num_queries):
    client = Client()
    # The assignment (its HIT, campaign and the kind's settings joined in), then the slot.
    with django_assert_num_queries(2):
        response = client.get(url(assignment, "judgments:task-source-image", 2))
    assert response.status_code == 200
    assert response["Content-Type"] == "image/png"
    assert response.content.startswith(b"\x89PNG")
    assert response["Cache-Control"] == "private, max-age=3600"
    assert "frame-ancestors" in response["Content-Security-Policy"]
    assert b"regnet" not in response.content
    # Another worker's token for the same assignment, a bad token, a position not in the HIT.
    other = WorkerFactory()
    forged = reverse(
        "judgments:task-source-image", args=[tokens.assignment_token(assignment.pk, other.pk), 2]
    )
    assert client.get(forged).status_code == 404
    assert (
        client.get(reverse("judgments:task-source-image", args=["nonsense", 2])).status_code == 404
    )
    assert client.get(url(assignment, "judgments:task-source-image", 9)).status_code == 404
    # An absurd position (beyond any integer column) is a plain 404, not a database error.
    assert client.get(url(assignment, "judgments:task-source-image", 10**30)).status_code == 404
    # Not while the assignment is no longer open.
    Assignment.objects.filter(pk=assignment.pk).update(status=AssignmentStatus.RETURNED)
    assert client.get(url(assignment, "judgments:task-source-image", 2)).status_code == 404


@pytest.mark.parametrize(
    ("query", "font_size", "max_width"),
    [
        ("", 24, 720),  # no size asked: the desktop picture
        ("?width=360&scale=2", 48, 720),  # a phone 360 wide at density 2
        ("?width=390&scale=3", 72, 1080),  # 390 is drawn for 360, the step below
        ("?width=5000&scale=9", 72, 2160),  # brought into range
        ("?width=10&scale=0", 24, 160),
        ("?width=wide&scale=", 24, 720),  # not numbers: the defaults
    ],
)
def test_the_image_is_drawn_for_the_width_and_density_the_page_asks(
    assignment, query, font_size, max_width
):
    """The walkthrough's phone showed long sources at 9 to 10 pixels: a picture drawn 720
    pixels wide, scaled down to the screen. The page asks for its width and density, and the
    picture wraps to it with letters of the campaign's size (24 CSS pixels) times the density."""
    response = Client().get(url(assignment, "judgments:task-source-image", 2) + query)
    assert response.status_code == 200
    source = HitSlot.objects.get(hit=assignment.hit, position=2).segment.source
    assert response.content == render_sentence(source, font_size=font_size, max_width=max_width)


def test_the_image_of_a_task_that_shows_no_source_is_not_found(campaign):
    hit = build_translate_hit(campaign)
    Hit.objects.filter(pk=hit.pk).update(task=HitTask.POST_EDIT)
    assignment = answered_background(AssignmentFactory(hit=hit))
    assert Client().get(url(assignment, "judgments:task-source-image", 1)).status_code == 404


def test_the_page_is_in_german_for_german_instructions(campaign):
    campaign.instructions_language = "de"
    campaign.save()
    page = task_page(HitTask.TRANSLATE)
    labels = page.labels(campaign)
    assert labels["code"] == "de"
    assert labels["prompt"] != "Your task is to translate these sentences into English."


def test_the_mturk_preview_shows_no_source_of_an_image_campaign(campaign):
    from judgments.entry.presenters import first_unit

    hit = build_translate_hit(campaign)
    page = task_page(HitTask.TRANSLATE)
    unit, total = first_unit(hit)
    sample = page.preview_sample(unit, total, campaign, page.labels(campaign))
    assert sample["source"] is None and total == 3
    campaign.translation_settings.source_as_image = False
    assert page.preview_sample(unit, total, campaign, page.labels(campaign))["source"] == SOURCES[0]


# --- The correction pass on the post-editing page ---------------------------------------------


def test_the_correction_page_shows_the_translation_alone_with_its_own_words(campaign):
    hit = build_translate_hit(campaign, SOURCES[:2])
    translator = AssignmentFactory(hit=hit)
    kept = [
        Judgment.objects.create(
            campaign=campaign,
            worker=translator.worker,
            assignment=translator,
            slot=slot,
            text=f"Kept translation {slot.position}.",
        )
        for slot in hit.slots.order_by("position")
    ]
    correction = Hit.objects.create(campaign=campaign, task=HitTask.POST_EDIT, number=2, places=1)
    for position, judgment in enumerate(kept, start=1):
        HitSlot.objects.create(
            hit=correction,
            position=position,
            group=1,
            role=SlotRole.SYSTEM,
            segment=judgment.slot.segment,
            about_judgment=judgment,
            shown_text=judgment.text,
        )
    assignment = answered_background(AssignmentFactory(hit=correction))
    client = Client()
    html = client.get(url(assignment)).content.decode()
    assert (
        "Fix typos, spelling and grammar in each English translation; do not retranslate." in html
    )
    assert 'data-label-context=""' in html
    assert "Reference translation" not in html and "Source text" not in html
    body = client.get(url(assignment, "judgments:task-item")).json()
    segments = body["next"]["segments"]
    assert [s["mt"] for s in segments] == ["Kept translation 1.", "Kept translation 2."]
    assert all(s["context"] == "" for s in segments)
    assert "Katze" not in json.dumps(body, ensure_ascii=False)
    saved = post_json(
        client,
        url(assignment, "judgments:task-submit"),
        {
            "position": 1,
            "text": "Kept translation one.",
            "keystrokes": 3,
            "no_changes": False,
            "resets": 0,
            "pasted": False,
        },
    )
    assert saved.status_code == 200, saved.content
    assert Judgment.objects.get(assignment=assignment).text == "Kept translation one."


def test_a_translation_too_long_is_named_as_the_worker_sees_its_box_with_german_numbers():
    """A German worker read "text ist zu lang: … höchstens 10000 Zeichen (erhalten: 22800)":
    the JSON field's name and numbers without their separators. The box also stops taking
    characters at the limit (maxlength, from data-max-chars)."""
    campaign = translation_campaign(instructions_language="de")
    assignment = answered_background(AssignmentFactory(hit=build_translate_hit(campaign)))
    html = Client().get(url(assignment)).content.decode()
    assert 'data-max-chars="10000"' in html
    response = post_json(
        Client(), url(assignment, "judgments:task-submit"), translation(1, "x" * 22_800)
    )
    assert response.status_code == 400
    assert response.json()["error"] == (
        "Ihre Übersetzung ist zu lang: höchstens 10.000 Zeichen (erhalten: 22.800)."
    )
    assert not Judgment.objects.exists()
