"""The verification page over HTTP (issue 13 item 4): 000's two questions and its note in the
campaign's words and mode, one sentence at a time as JSON, one POST per sentence stored as
yes_no and yes_no_second, exact 400s, idempotent retries, the MTurk preview, and nothing in any
body that tells who edited the sentence, the MT output or its system."""

import json

import pytest
from django.contrib.staticfiles import finders
from django.test import Client
from django.urls import reverse

from campaigns.kinds.post_editing.models import PostEditingMode
from campaigns.kinds.post_editing.verification import build_verification_hits
from campaigns.models import Document, Hit, HitSlot, HitTask, SlotRole, System
from judgments.actions import next_assignment_for
from judgments.models import Assignment, AssignmentStatus, Judgment, Worker
from tests.factories import AssignmentFactory, WorkerFactory
from tests.judgments.kinds.test_post_editing_page import (
    NASTY,
    SENTENCES,
    build_edit_hit,
    post_editing_campaign,
    post_json,
    url,
)
from tests.judgments.test_mturk_entry import mturk_url, preview_params, publish
from tests.judgments.test_page_secrets import TELL_TALE_WORDS, scrub

pytestmark = pytest.mark.django_db

EDITS = ["The cat is asleep.", NASTY, "We eat some bread."]
FIRST_ID = 7_460_001
EDITOR = "EDITOR-WORKER-SECRET"


def submitted_edits(campaign, hit, texts=EDITS, editor=EDITOR, first_id=None):
    """The editor's assignment on ``hit`` with one edit per slot, submitted, as the editing
    page leaves it. Returns the assignment."""
    ids = iter(range(first_id, first_id + 100)) if first_id else None

    def pk():
        return {"pk": next(ids)} if ids else {}

    worker = Worker.objects.create(platform="direct", external_id=editor, **pk())
    assignment = AssignmentFactory(hit=hit, worker=worker, **pk())
    for slot, text in zip(hit.slots.order_by("position"), texts, strict=True):
        Judgment.objects.create(
            campaign=campaign,
            worker=worker,
            assignment=assignment,
            slot=slot,
            text=text,
            details={"keystrokes": 3, "no_changes": False, "resets": 0, "pasted": False},
            **pk(),
        )
    assignment.status = AssignmentStatus.SUBMITTED
    assignment.save()
    return assignment


def verification_hit(campaign, sentences=SENTENCES, texts=EDITS):
    """The verification HIT the campaigns side builds from one submitted edit assignment."""
    submitted_edits(campaign, build_edit_hit(campaign, sentences), texts)
    assert build_verification_hits(campaign) == 1
    return Hit.objects.get(campaign=campaign, task=HitTask.VERIFY_EDIT)


@pytest.fixture
def campaign():
    return post_editing_campaign()


@pytest.fixture
def assignment(campaign):
    return AssignmentFactory(hit=verification_hit(campaign))


def answer(position, same_meaning, acceptable, **extra):
    return {"position": position, "same_meaning": same_meaning, "acceptable": acceptable, **extra}


# --- The page ---------------------------------------------------------------------------------


def test_the_verification_page_asks_000s_two_questions(assignment):
    response = Client(enforce_csrf_checks=True).get(url(assignment))
    html = response.content.decode()
    assert response.status_code == 200
    assert response.cookies == {}
    assert '<script src="/static/js/verify_edit.js" defer></script>' in html
    assert '<link rel="stylesheet" href="/static/css/post_edit.css">' in html
    assert 'class="task task-verify-edit" lang="en"' in html
    assert (
        '<p class="prompt ve-prompt" id="prompt">First read the reference translation. Then '
        "judge the edited translation by two criteria:</p>"
    ) in html
    assert (
        "<legend>Does the edited translation have the same meaning as the reference "
        "translation?</legend>"
    ) in html
    assert "<legend>Is it acceptable English?</legend>" in html
    assert (
        '<p class="ve-note" id="note">Some small errors are OK, so long as it is still '
        "understandable.</p>"
    ) in html
    assert "<dt>Reference translation</dt>" in html and "<dt>Edited translation</dt>" in html
    assert html.count("<span>Yes</span>") == 2 and html.count("<span>No</span>") == 2
    assert (
        "Keyboard: press Y (yes) or N (no) to answer each question in turn, then Enter to go "
        "on to the next sentence."
    ) in html
    assert 'data-progress-format="Sentence {n} of {total}"' in html
    assert '<button type="button" id="next" class="button-primary" disabled>Next</button>' in html
    assert "The cat" not in html and "alert(1)" not in html  # no sentence in the shell


def test_the_bilingual_page_compares_with_the_source_in_the_target_languages_name():
    campaign = post_editing_campaign(mode=PostEditingMode.BILINGUAL, target_language="fr")
    assignment = AssignmentFactory(hit=verification_hit(campaign))
    html = Client().get(url(assignment)).content.decode()
    assert "First read the source text. Then judge the edited translation by two criteria:" in html
    assert (
        "<legend>Does the edited translation have the same meaning as the source text?</legend>"
    ) in html
    assert "<legend>Is it acceptable French?</legend>" in html
    assert "<dt>Source text</dt>" in html
    assert '<dd class="ve-context" id="context-text" dir="auto" lang="de"></dd>' in html
    assert '<dd class="ve-text" id="edited-text" dir="auto" lang="fr"></dd>' in html
    body = Client().get(url(assignment, "judgments:task-item")).json()
    assert body["next"] == {"position": 1, "context": "Die Katze schläft.", "text": EDITS[0]}


def test_the_item_endpoint_sends_the_sentence_and_the_reference_only(assignment):
    body = Client().get(url(assignment, "judgments:task-item")).json()
    assert body == {
        "ok": True,
        "next": {"position": 1, "context": "The cat is sleeping.", "text": "The cat is asleep."},
        "done": False,
        "progress": {"done": 0, "total": 3},
    }


def test_one_post_per_sentence_stored_as_yes_no_and_yes_no_second(assignment):
    client = Client(enforce_csrf_checks=True)
    submit = url(assignment, "judgments:task-submit")
    first = post_json(client, submit, answer(1, True, False, client_duration_ms=2500))
    assert first.status_code == 200
    assert first.json() == {
        "ok": True,
        "next": {"position": 2, "context": "It is raining today.", "text": NASTY},
        "done": False,
        "progress": {"done": 1, "total": 3},
    }
    retry = post_json(client, submit, answer(1, True, False, client_duration_ms=2500))
    assert retry.json() == {**first.json(), "already_recorded": True}
    changed = post_json(client, submit, answer(1, True, True))
    assert (changed.status_code, changed.json()) == (
        409,
        {
            "ok": False,
            "error": "Sentence 1 is already answered, and answers cannot be changed (there is "
            "no going back). Continue with sentence 2.",
            "field": "position",
        },
    )
    post_json(client, submit, answer(2, False, False))
    last = post_json(client, submit, answer(3, True, True))
    assert last.json() == {
        "ok": True,
        "next": None,
        "done": True,
        "progress": {"done": 3, "total": 3},
    }
    rows = Judgment.objects.filter(assignment=assignment).order_by("slot__position")
    assert [(j.yes_no, j.yes_no_second, j.text, j.details) for j in rows] == [
        (True, False, "", {}),
        (False, False, "", {}),
        (True, True, "", {}),
    ]
    assert rows[0].client_duration_ms == 2500
    # Each verification is about its edit, through its slot.
    edits = {j.slot.about_judgment.text for j in rows}
    assert edits == set(EDITS)
    assignment.refresh_from_db()
    assert assignment.status == AssignmentStatus.SUBMITTED
    assert "<h1>Thank you!</h1>" in client.get(url(assignment)).content.decode()


@pytest.mark.parametrize(
    ("body", "error", "field"),
    [
        (
            {"position": 1, "acceptable": True},
            "same_meaning is required: send true (yes) or false (no).",
            "same_meaning",
        ),
        (
            answer(1, "yes", True),
            'same_meaning must be true (yes) or false (no) (got the text "yes").',
            "same_meaning",
        ),
        (
            answer(1, True, None),
            "acceptable is required: send true (yes) or false (no).",
            "acceptable",
        ),
        (
            answer(1, True, 0),
            "acceptable must be true (yes) or false (no) (got 0).",
            "acceptable",
        ),
        (
            answer(2, True, True),
            "Answer sentence 1 first; the sentences are answered in order.",
            "position",
        ),
        (
            answer(4, True, True),
            "There is no sentence 4 in this task; it has sentences 1 to 3.",
            "position",
        ),
        (
            {**answer(1, True, True), "yes_no": True},
            "Unknown field 'yes_no': send only position, client_started_at, client_duration_ms, "
            "same_meaning, acceptable.",
            "yes_no",
        ),
    ],
)
def test_a_bad_answer_is_a_400_a_person_can_act_on_and_stores_nothing(
    assignment, body, error, field
):
    response = post_json(Client(), url(assignment, "judgments:task-submit"), body)
    assert (response.status_code, response.json()) == (
        400,
        {"ok": False, "error": error, "field": field},
    )
    assert not Judgment.objects.filter(assignment=assignment).exists()


def test_the_page_is_in_german_for_german_instructions(assignment):
    campaign = assignment.campaign
    campaign.instructions_language = "de"
    campaign.save()
    html = Client().get(url(assignment)).content.decode()
    assert 'class="task task-verify-edit" lang="de"' in html
    assert "<legend>Ist sie akzeptables Englisch?</legend>" in html
    assert html.count("<span>Ja</span>") == 2 and 'data-label-yes="Ja"' in html


def test_the_mturk_preview_shows_the_first_sentence_read_only(client, campaign):
    hit = verification_hit(campaign, texts=[NASTY, "b", "c"])
    publish(hit, preview_params()["hitId"])
    html = client.get(mturk_url(hit, **preview_params())).content.decode()
    assert "Accept the HIT to start.</p>" in html
    assert '<p class="progress-text" id="progress-text">Sentence 1 of 3</p>' in html
    assert '<dd class="ve-context" dir="auto" lang="en">The cat is sleeping.</dd>' in html
    assert (
        '<dd class="ve-text" dir="auto" lang="en">'
        "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;</dd>"
    ) in html
    assert "<legend>Is it acceptable English?</legend>" in html
    assert html.count('<input type="radio" disabled>') == 4
    assert "<script" not in html and "The cat sleeps." not in html


# --- Nothing about the edit's author, MT output or system -------------------------------------


def test_no_body_a_verifier_receives_tells_the_editor_the_mt_output_or_the_system():
    campaign = post_editing_campaign()
    edit_hit = build_edit_hit(
        campaign, SENTENCES, first_id=FIRST_ID, system_names=["SECRET-SYSTEM-A", "SECRET-B"]
    )
    edits = submitted_edits(campaign, edit_hit, first_id=FIRST_ID + 500)
    assert build_verification_hits(campaign) == 1
    verify_hit = Hit.objects.get(task=HitTask.VERIFY_EDIT)

    client = Client()
    bodies = {}
    start = client.post(reverse("judgments:campaign-start", args=[campaign.pk]))
    verifier_link = start["Location"]
    task_url = client.get(verifier_link)["Location"]
    # The edit HIT is taken (redundancy 1), so the new worker is handed the verification.
    given = Assignment.objects.exclude(pk=edits.pk).get()
    assert given.hit_id == verify_hit.pk
    bodies["task page"] = client.get(task_url)
    item = client.get(task_url + "item")
    bodies["item"] = item
    seen = []
    while item.json()["next"] is not None:
        sentence = item.json()["next"]
        seen.append(sentence)
        payload = answer(sentence["position"], True, sentence["position"] != 2)
        item = client.post(task_url + "submit", json.dumps(payload), "application/json")
        bodies[f"submit {sentence['position']}"] = item
        if sentence["position"] == 1:
            bodies["retry"] = client.post(
                task_url + "submit", json.dumps(payload), "application/json"
            )
            bodies["conflict"] = client.post(
                task_url + "submit", json.dumps(answer(1, False, False)), "application/json"
            )
    bodies["item after the end"] = client.get(task_url + "item")
    bodies["completion page"] = client.get(task_url)
    texts = {name: response.content.decode() for name, response in bodies.items()}
    for name in ("js/task-common.js", "js/verify_edit.js", "css/task.css", "css/post_edit.css"):
        with open(finders.find(name), encoding="utf-8") as handle:
            texts[name] = handle.read()
    tokens_seen = [link.rstrip("/").rsplit("/", 1)[1] for link in (verifier_link, task_url)]

    assert [s["text"] for s in seen] == EDITS
    assert all(set(s) == {"position", "context", "text"} for s in seen)
    assert list(
        Judgment.objects.filter(assignment=given)
        .order_by("slot__position")
        .values_list("yes_no", "yes_no_second")
    ) == [(True, True), (True, False), (True, True)]

    ids = {edit_hit.pk, edits.pk, edits.worker_id}
    ids.update(Judgment.objects.filter(assignment=edits).values_list("pk", flat=True))
    for row in HitSlot.objects.filter(hit=edit_hit).values_list("pk", "output_id", "segment_id"):
        ids.update(row)
    ids.update(System.objects.filter(campaign=campaign).values_list("pk", flat=True))
    ids.update(Document.objects.filter(campaign=campaign).values_list("pk", flat=True))
    ids = {str(pk) for pk in ids}
    assert all(FIRST_ID <= int(pk) < FIRST_ID + 1000 for pk in ids)
    # The MT outputs differ from the edits, so finding one would be a leak ("We eat bread."
    # is inside no edit: "We eat some bread.").
    mt_outputs = [mt for _, _, mt in SENTENCES if mt != NASTY]
    innocent = {SlotRole.REFERENCE, SlotRole.QUESTION, SlotRole.SOURCE}  # as on the editing page
    forbidden = {
        *(value for value in SlotRole.values if value not in innocent),
        *SlotRole.labels,
        "SECRET-SYSTEM-A",
        "SECRET-B",
        EDITOR,
        *mt_outputs,
        "doc-1",
        *(f"seg-1-{n}" for n in range(1, 4)),
    }
    for name, body in texts.items():
        body = scrub(body, tokens_seen)
        lowered = body.lower()
        for secret in forbidden:
            assert secret.lower() not in lowered, f"{name} contains {secret!r}"
        for word in TELL_TALE_WORDS:
            assert word not in lowered, f"{name} contains {word!r}"
        for pk in ids:
            assert pk not in body, f"{name} contains the id {pk}"


def test_a_verifier_is_never_handed_their_own_edit(campaign):
    """The hand-out's rule (campaigns side), seen from the page: the editor's own link gives
    them no verification of their edits."""
    edit_hit = build_edit_hit(campaign, SENTENCES)
    edits = submitted_edits(campaign, edit_hit)
    build_verification_hits(campaign)
    assert next_assignment_for(edits.worker, campaign).assignment is None
    other = WorkerFactory()
    assert next_assignment_for(other, campaign).assignment.hit.task == HitTask.VERIFY_EDIT
