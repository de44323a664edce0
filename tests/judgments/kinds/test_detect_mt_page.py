"""The Detect-MT page over HTTP (issue 15 item 2; 000 section 5.1): 000's question, one
translation at a time with its source as an image URL (never the text) and the translation as
text, an answer stored as yes_no (True: looks machine made), exact 400s, and nothing about who
translated in any body."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from campaigns.models import Hit, HitSlot, HitTask, SlotRole
from judgments.models import Assignment, AssignmentStatus, Judgment
from tests.factories import AssignmentFactory, WorkerFactory
from tests.judgments.kinds.test_translate_page import (
    SOURCES,
    answered_background,
    build_translate_hit,
    translation_campaign,
    url,
)

pytestmark = pytest.mark.django_db

TRANSLATIONS = ["The cat sleeps on the sofa.", "<b>It rains</b> & today.", "We eat fresh bread."]


def build_detect_hit(campaign, translator_name="SECRET-TRANSLATOR"):
    """A Detect-MT HIT as the stages build it (SPEC.md): one slot per translation of one
    translation assignment, same positions, role SYSTEM, about_judgment the translation."""
    hit = build_translate_hit(campaign)
    translator = AssignmentFactory(hit=hit, worker=WorkerFactory(external_id=translator_name))
    detect = Hit.objects.create(campaign=campaign, task=HitTask.DETECT_MT, number=2, places=3)
    for slot, text in zip(hit.slots.order_by("position"), TRANSLATIONS, strict=True):
        judgment = Judgment.objects.create(
            campaign=campaign, worker=translator.worker, assignment=translator, slot=slot, text=text
        )
        HitSlot.objects.create(
            hit=detect,
            position=slot.position,
            group=1,
            role=SlotRole.SYSTEM,
            segment=slot.segment,
            about_judgment=judgment,
            shown_text=text,
        )
    return detect


@pytest.fixture
def assignment():
    campaign = translation_campaign()
    return answered_background(AssignmentFactory(hit=build_detect_hit(campaign)))


def post_json(client, target, payload):
    return client.post(target, data=json.dumps(payload), content_type="application/json")


def test_the_page_asks_000s_question_and_sends_the_source_as_an_image(assignment):
    client = Client()
    html = client.get(url(assignment)).content.decode()
    assert (
        "Does this translation look like it came from an online machine translation system?" in html
    )
    assert "js/detect_mt.js" in html
    item = client.get(url(assignment, "judgments:task-item"))
    body = item.json()
    assert body["next"] == {
        "position": 1,
        "image": url(assignment, "judgments:task-source-image", 1),
        "source": None,
        "translation": TRANSLATIONS[0],
    }
    image = client.get(body["next"]["image"])
    assert image.status_code == 200 and image["Content-Type"] == "image/png"
    for body_text in (html, item.content.decode()):
        assert "Katze" not in body_text and "SECRET-TRANSLATOR" not in body_text


def test_answers_are_stored_as_yes_no_in_order_and_the_last_submits(assignment):
    client = Client()
    submit = url(assignment, "judgments:task-submit")
    first = post_json(client, submit, {"position": 1, "machine": True})
    assert first.status_code == 200
    assert first.json()["next"]["translation"] == TRANSLATIONS[1]  # escaped by the page's script
    skipped = post_json(client, submit, {"position": 3, "machine": False})
    assert skipped.status_code == 400
    assert skipped.json()["error"] == (
        "Answer translation 2 first; the translations are answered in order."
    )
    post_json(client, submit, {"position": 2, "machine": False})
    last = post_json(client, submit, {"position": 3, "machine": False})
    assert last.json()["done"] is True
    votes = Judgment.objects.filter(assignment=assignment).order_by("slot__position")
    assert [vote.yes_no for vote in votes] == [True, False, False]
    assert Assignment.objects.get(pk=assignment.pk).status == AssignmentStatus.SUBMITTED


@pytest.mark.parametrize(
    "payload", [{"position": 1}, {"position": 1, "machine": "yes"}, {"position": 1, "machine": 1}]
)
def test_an_answer_that_is_not_true_or_false_is_a_400(assignment, payload):
    response = post_json(Client(), url(assignment, "judgments:task-submit"), payload)
    assert response.status_code == 400 and response.json()["field"] == "machine"
    assert not Judgment.objects.filter(assignment=assignment).exists()


def test_a_text_campaign_sends_the_source_as_text():
    campaign = translation_campaign(source_as_image=False)
    assignment = answered_background(AssignmentFactory(hit=build_detect_hit(campaign)))
    item = Client().get(url(assignment, "judgments:task-item")).json()["next"]
    assert item["source"] == SOURCES[0] and item["image"] is None
