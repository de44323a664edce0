"""The post-editing page over HTTP (issue 13 item 3): the shell and its words (000's
instructions, by mode), the run of segments as JSON, one POST per segment with its details,
the flags the server computes (never the browser), exact 400s, idempotent retries, a reload
that resumes, the MTurk preview, and nothing secret in any body a worker receives."""

import json
import re

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders
from django.test import Client
from django.urls import reverse

from campaigns.actions import build_hits
from campaigns.kinds.post_editing.models import PostEditingMode
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
from judgments.entry.presenters import first_unit
from judgments.kinds import task_page
from judgments.kinds.post_editing.edit import EDIT_SPEC
from judgments.models import Assignment, AssignmentStatus, Judgment
from tests.factories import AssignmentFactory, CampaignFactory
from tests.judgments.test_mturk_entry import mturk_url, preview_params, publish
from tests.judgments.test_page_secrets import TELL_TALE_WORDS, scrub

pytestmark = pytest.mark.django_db

NASTY = '<script>alert(1)</script> & "x"'
SYSTEM_NAME = "SECRET-SYSTEM-NAME"
# Ids far from anything else in a test database, so that finding one is never a coincidence.
FIRST_ID = 7_450_001
SEGMENT_KEYS = {"position", "context", "mt", "edit", "no_changes"}


def post_editing_campaign(mode=PostEditingMode.MONOLINGUAL, **fields):
    fields.setdefault("title", "Edit English translations")
    fields.setdefault("instructions", "Fix the machine translation.")
    return CampaignFactory(kind=TaskKind.POST_EDITING, mode=mode, redundancy=1, **fields)


def build_edit_hit(campaign, sentences, *, number=1, group=1, first_id=None, system_names=None):
    """An edit HIT as campaigns/kinds/post_editing builds it (SPEC.md): one slot per segment
    of a run of one document, positions 1..n in document order, role SYSTEM, the output to
    edit and its text shown, the run's number as the group. ``sentences``: (source,
    references, MT output) per segment. ``first_id``: give every row a distinctive id from
    there (for the searches of secrets). Returns the HIT."""
    ids = iter(range(first_id, first_id + 1000)) if first_id else None

    def pk():
        return {"pk": next(ids)} if ids else {}

    names = system_names or [f"{SYSTEM_NAME}-{n}" for n in range(len(sentences))]
    systems = [
        System.objects.get_or_create(campaign=campaign, name=name, defaults=pk())[0]
        for name in names
    ]
    document = Document.objects.create(
        campaign=campaign, external_id=f"doc-{number}", position=number, **pk()
    )
    hit = Hit.objects.create(campaign=campaign, task=HitTask.POST_EDIT, number=number, **pk())
    for position, (source, references, mt_output) in enumerate(sentences, start=1):
        segment = Segment.objects.create(
            campaign=campaign,
            document=document,
            external_id=f"seg-{number}-{position}",
            position=position,
            source=source,
            references=references,
            **pk(),
        )
        output = Output.objects.create(
            segment=segment, system=systems[(position - 1) % len(systems)], text=mt_output, **pk()
        )
        HitSlot.objects.create(
            hit=hit,
            position=position,
            group=group,
            role=SlotRole.SYSTEM,
            segment=segment,
            output=output,
            shown_text=mt_output,
            **pk(),
        )
    return hit


SENTENCES = [
    ("Die Katze schläft.", ["The cat is sleeping."], "The cat sleeps."),
    ("Es regnet heute.", ["It is raining today."], NASTY),
    ("Wir essen Brot.", ["We are eating bread."], "We eat bread."),
]


@pytest.fixture
def campaign():
    return post_editing_campaign()


@pytest.fixture
def assignment(campaign):
    return AssignmentFactory(hit=build_edit_hit(campaign, SENTENCES))


def url(assignment, name="judgments:task"):
    return reverse(name, args=[tokens.assignment_token(assignment.pk, assignment.worker_id)])


def post_json(client, target, payload):
    return client.post(target, data=json.dumps(payload), content_type="application/json")


def edit(position, text, **details):
    """A payload as post_edit.js sends it."""
    return {
        "position": position,
        "text": text,
        "keystrokes": details.get("keystrokes", 0),
        "no_changes": details.get("no_changes", False),
        "resets": details.get("resets", 0),
        "pasted": details.get("pasted", False),
        **{k: v for k, v in details.items() if k.startswith("client_")},
    }


def segment(position, context, mt_output, edited=None, no_changes=False):
    return {
        "position": position,
        "context": context,
        "mt": mt_output,
        "edit": edited,
        "no_changes": no_changes,
    }


def all_segments(saved=None, source=False):
    saved = saved or {}
    return [
        segment(
            position,
            source_text if source else references[0],
            mt_output,
            *saved.get(position, (None, False)),
        )
        for position, (source_text, references, mt_output) in enumerate(SENTENCES, start=1)
    ]


# --- The page ---------------------------------------------------------------------------------


def test_the_editing_page_is_a_shell_with_000s_instructions_and_no_cookie(assignment):
    response = Client(enforce_csrf_checks=True).get(url(assignment))
    html = response.content.decode()
    assert response.status_code == 200
    assert response.cookies == {}
    assert "no-store" in response["Cache-Control"]
    assert '<script src="/static/js/post_edit.js" defer></script>' in html
    assert '<link rel="stylesheet" href="/static/css/post_edit.css">' in html
    assert "/static/js/assess.js" not in html and "/static/js/rank.js" not in html
    assert 'class="task task-post-edit" lang="en"' in html
    assert (
        '<p class="prompt pe-prompt" id="prompt">Edit the machine translation, making as few '
        "changes as possible, so that it has the same meaning as the reference translation and "
        "is good English.</p>"
    ) in html
    assert re.findall(r"<li>(.*?)</li>", html) == [
        "Change the machine translation so that it has the same meaning as the reference "
        "translation.",
        "Make the machine translation into intelligible English.",
        "Use as few edits as possible.",
        "Do not insert or delete punctuation simply to follow traditional rules about what is "
        "“proper”.",
        "Please do not copy and paste the reference translation into the machine translation.",
    ]
    assert (
        '<p class="pe-keys" id="keys">Keyboard: Ctrl+Enter saves the segment and moves on to '
        "the next one; Ctrl+Shift+Enter saves it as “No changes needed”; Tab reaches the "
        "buttons.</p>"
    ) in html
    assert "saved segments cannot be changed" in html
    assert 'data-label-context="Reference translation"' in html
    assert 'data-context-lang="en"' in html and 'data-target-lang="en"' in html
    assert 'data-label-segment="Segment {n} of {total}"' in html
    assert 'data-label-no-changes="No changes needed"' in html
    assert 'data-label-reset="Reset to the machine translation"' in html
    assert f'data-item-url="{url(assignment, "judgments:task-item")}"' in html
    assert f'data-submit-url="{url(assignment, "judgments:task-submit")}"' in html
    # No segment in the shell: the script fetches them.
    assert "The cat" not in html and "Katze" not in html and "alert(1)" not in html


def test_the_bilingual_page_compares_with_the_source_and_has_no_reference_to_paste():
    campaign = post_editing_campaign(mode=PostEditingMode.BILINGUAL, target_language="de")
    campaign.source_language = "en"
    campaign.save()
    assignment = AssignmentFactory(hit=build_edit_hit(campaign, SENTENCES))
    html = Client().get(url(assignment)).content.decode()
    assert (
        "Edit the machine translation, making as few changes as possible, so that it has the "
        "same meaning as the source text and is good German.</p>"
    ) in html
    assert re.findall(r"<li>(.*?)</li>", html) == [
        "Change the machine translation so that it has the same meaning as the source text.",
        "Make the machine translation into intelligible German.",
        "Use as few edits as possible.",
        "Do not insert or delete punctuation simply to follow traditional rules about what is "
        "“proper”.",
    ]
    assert 'data-label-context="Source text"' in html
    assert 'data-context-lang="en"' in html and 'data-target-lang="de"' in html
    body = Client().get(url(assignment, "judgments:task-item")).json()
    assert body["next"]["segments"] == all_segments(source=True)


def test_the_item_endpoint_sends_the_whole_run_with_texts_only(assignment):
    body = Client().get(url(assignment, "judgments:task-item")).json()
    assert body == {
        "ok": True,
        "next": {"segments": all_segments()},
        "done": False,
        "progress": {"done": 0, "total": 3},
    }
    assert all(set(s) == SEGMENT_KEYS for s in body["next"]["segments"])
    assignment.refresh_from_db()
    assert assignment.current_served_at is not None


# --- Saving -----------------------------------------------------------------------------------


def test_one_post_per_segment_saved_final_with_its_details_then_the_completion_page(assignment):
    client = Client(enforce_csrf_checks=True)
    submit = url(assignment, "judgments:task-submit")
    typed = edit(
        1,
        "The cat  is sleeping. ",  # a typed edit, left as typed
        keystrokes=14,
        resets=1,
        client_duration_ms=5200,
        client_started_at="2026-11-26T12:00:00.000Z",
    )
    first = post_json(client, submit, typed)
    assert first.status_code == 200
    assert first.cookies == {}
    assert first.json() == {
        "ok": True,
        "next": {"segments": all_segments({1: ("The cat  is sleeping. ", False)})},
        "done": False,
        "progress": {"done": 1, "total": 3},
    }
    # An identical retry (a lost response) is answered as the first; another edit is a 409.
    retry = post_json(client, submit, typed)
    assert retry.json() == {**first.json(), "already_recorded": True}
    changed = post_json(client, submit, {**typed, "keystrokes": 15})
    assert (changed.status_code, changed.json()) == (
        409,
        {
            "ok": False,
            "error": "Segment 1 is already saved, and saved segments cannot be changed. "
            "Continue with segment 2.",
            "field": "position",
        },
    )

    post_json(client, submit, edit(2, NASTY, no_changes=True, client_duration_ms=900))
    last = post_json(client, submit, edit(3, "We are eating bread.", keystrokes=30, pasted=True))
    assert last.json() == {
        "ok": True,
        "next": None,
        "done": True,
        "progress": {"done": 3, "total": 3},
    }
    rows = list(
        Judgment.objects.order_by("slot__position").values_list(
            "slot__position", "text", "details", "client_duration_ms"
        )
    )
    assert rows == [
        (
            1,
            "The cat  is sleeping. ",
            {
                "keystrokes": 14,
                "no_changes": False,
                "resets": 1,
                "pasted": False,
                "unchanged": False,
                # After white space is normalised the edit is the reference.
                "copied_reference": True,
            },
            5200,
        ),
        (
            2,
            NASTY,
            {
                "keystrokes": 0,
                "no_changes": True,
                "resets": 0,
                "pasted": False,
                "unchanged": True,
                "copied_reference": False,
            },
            900,
        ),
        (
            3,
            "We are eating bread.",
            {
                "keystrokes": 30,
                "no_changes": False,
                "resets": 0,
                "pasted": True,
                "unchanged": False,
                "copied_reference": True,
            },
            None,
        ),
    ]
    assert all(
        j.rank is None and j.score is None and j.yes_no is None for j in Judgment.objects.all()
    )
    assignment.refresh_from_db()
    assert assignment.status == AssignmentStatus.SUBMITTED
    assert "<h1>Thank you!</h1>" in client.get(url(assignment)).content.decode()


@pytest.mark.parametrize(
    ("text", "unchanged", "copied_reference"),
    [
        ("The cat sleeps.", True, False),  # the MT output as it was
        ("  The cat\tsleeps.\n", True, False),  # the same after white space is normalised
        ("The Cat sleeps.", False, False),  # case is a change
        ("The cat is sleeping.", False, True),  # the reference
        ("The cat is sleeping", False, False),  # one character short of it
        ("A cat sleeps.", False, False),
    ],
)
def test_the_server_computes_unchanged_and_copied_reference(
    assignment, text, unchanged, copied_reference
):
    response = post_json(Client(), url(assignment, "judgments:task-submit"), edit(1, text))
    assert response.status_code == 200
    details = Judgment.objects.get().details
    assert (details["unchanged"], details["copied_reference"]) == (unchanged, copied_reference)


def test_the_browser_cannot_set_the_servers_flags(assignment):
    response = post_json(
        Client(),
        url(assignment, "judgments:task-submit"),
        {**edit(1, "The cat is sleeping."), "copied_reference": False},
    )
    assert (response.status_code, response.json()) == (
        400,
        {
            "ok": False,
            "error": "Unknown field 'copied_reference': send only position, client_started_at, "
            "client_duration_ms, text, keystrokes, no_changes, resets, pasted.",
            "field": "copied_reference",
        },
    )
    assert Judgment.objects.count() == 0


def test_a_segment_without_a_reference_copies_none(campaign):
    hit = build_edit_hit(campaign, [("Ja.", [], "Yes."), ("Nein.", [], "")])
    assignment = AssignmentFactory(hit=hit)
    client, submit = Client(), url(assignment, "judgments:task-submit")
    body = client.get(url(assignment, "judgments:task-item")).json()
    assert body["next"]["segments"][0]["context"] == ""
    assert post_json(client, submit, edit(1, "Yes.")).status_code == 200
    # An empty MT output may stay empty: that edit changes nothing.
    assert post_json(client, submit, edit(2, "", no_changes=True)).status_code == 200
    assert [
        (j.text, j.details["unchanged"], j.details["copied_reference"])
        for j in Judgment.objects.order_by("slot__position")
    ] == [("Yes.", True, False), ("", True, False)]


LONG = "x" * 10_001


@pytest.mark.parametrize(
    ("body", "error", "field"),
    [
        (
            {"position": 1, "keystrokes": 0, "no_changes": False, "resets": 0, "pasted": False},
            "Your edit is missing: send the edited translation, as it stands in the box.",
            "text",
        ),
        (edit(1, 5), "Your edit must be sent as text (got 5).", "text"),
        (edit(1, ["The cat"]), "Your edit must be sent as text (got a list).", "text"),
        (edit(1, LONG), "Your edit is too long: at most 10,000 characters (got 10,001).", "text"),
        (
            edit(1, "The cat\x00 sleeps."),
            "Your edit holds a character that cannot be stored (U+0000 or a lone surrogate); "
            "send the text as typed.",
            "text",
        ),
        (
            edit(1, "The cat \ud800 sleeps."),
            "Your edit holds a character that cannot be stored (U+0000 or a lone surrogate); "
            "send the text as typed.",
            "text",
        ),
        (
            {k: v for k, v in edit(1, "x").items() if k != "keystrokes"},
            "keystrokes is required: the number of keys pressed in the box.",
            "keystrokes",
        ),
        (
            edit(1, "x", keystrokes=-1),
            "keystrokes must be the number of keys pressed in the box, a whole number of at "
            "least 0 (got -1).",
            "keystrokes",
        ),
        (
            edit(1, "x", keystrokes="12"),
            "keystrokes must be the number of keys pressed in the box, a whole number of at "
            'least 0 (got the text "12").',
            "keystrokes",
        ),
        (
            edit(1, "x", resets=1.5),
            "resets must be the number of times the box was reset to the machine translation, a "
            "whole number of at least 0 (got 1.5).",
            "resets",
        ),
        (
            {k: v for k, v in edit(1, "x").items() if k != "no_changes"},
            "no_changes is required: send true or false.",
            "no_changes",
        ),
        (
            edit(1, "x", no_changes="yes"),
            'no_changes must be true or false (got the text "yes").',
            "no_changes",
        ),
        (edit(1, "x", pasted=1), "pasted must be true or false (got 1).", "pasted"),
        (
            edit(1, " \n "),
            "The edited translation of segment 1 is empty. Edit the machine translation rather "
            "than deleting it; if it needs no changes, choose “No changes needed”.",
            "text",
        ),
        (
            edit(1, "The cat sleeps!", no_changes=True),
            "no_changes is true, but the text differs from the machine translation of segment "
            "1: send the machine translation unchanged, or no_changes false.",
            "no_changes",
        ),
        (
            edit(2, "It is raining today."),
            "Save segment 1 first; the segments are saved in order.",
            "position",
        ),
        (
            edit(9, "x"),
            "There is no segment 9 in this task; it has segments 1 to 3.",
            "position",
        ),
        (
            {k: v for k, v in edit(1, "x").items() if k != "position"},
            "position is required: the number of the segment you save.",
            "position",
        ),
    ],
)
def test_a_bad_edit_is_a_400_a_person_can_act_on_and_stores_nothing(assignment, body, error, field):
    response = post_json(Client(), url(assignment, "judgments:task-submit"), body)
    assert (response.status_code, response.json()) == (
        400,
        {"ok": False, "error": error, "field": field},
    )
    assert Judgment.objects.count() == 0
    assert Assignment.objects.get().status == AssignmentStatus.STARTED


def test_a_body_that_is_not_json_is_told_what_to_send(assignment):
    response = Client().post(
        url(assignment, "judgments:task-submit"), data="text=x", content_type="application/json"
    )
    assert response.json()["error"] == (
        'The answer could not be read: send JSON such as {"position": 1, "text": "The edited '
        'sentence.", "keystrokes": 12, "no_changes": false, "resets": 0, "pasted": false}.'
    )


def test_a_reload_resumes_at_the_first_unsaved_segment_with_the_saved_ones_shown(assignment):
    client, submit = Client(), url(assignment, "judgments:task-submit")
    post_json(client, submit, edit(1, "The cat is asleep.", keystrokes=8))
    post_json(client, submit, edit(2, NASTY, no_changes=True))
    body = client.get(url(assignment, "judgments:task-item")).json()
    assert body == {
        "ok": True,
        "next": {
            "segments": all_segments({1: ("The cat is asleep.", False), 2: (NASTY, True)}),
        },
        "done": False,
        "progress": {"done": 2, "total": 3},
    }


def test_each_edits_server_time_counts_from_the_previous_save(assignment):
    """One segment at a time for the state (page size 1), although the page shows all: the
    server's time of an edit runs from the previous save, the time on that segment."""
    client, submit = Client(), url(assignment, "judgments:task-submit")
    client.get(url(assignment, "judgments:task-item"))
    post_json(client, submit, edit(1, "The cat is asleep."))
    first = Judgment.objects.get()
    assignment.refresh_from_db()
    assert assignment.current_served_at > first.served_at
    client.get(url(assignment, "judgments:task-item"))  # a reload does not move it
    served = assignment.current_served_at
    assignment.refresh_from_db()
    assert assignment.current_served_at == served
    post_json(client, submit, edit(2, "It rains today."))
    assert Judgment.objects.get(slot__position=2).served_at == served
    assert EDIT_SPEC.page_size(assignment.campaign) == 1


# --- Words, preview, secrets ------------------------------------------------------------------


def test_the_page_is_in_german_for_german_instructions(assignment):
    campaign = assignment.campaign
    campaign.instructions_language = "de"
    campaign.save()
    html = Client().get(url(assignment)).content.decode()
    assert 'class="task task-post-edit" lang="de"' in html
    assert (
        "Bearbeiten Sie die maschinelle Übersetzung mit so wenigen Änderungen wie möglich, so "
        "dass sie dieselbe Bedeutung wie die Referenzübersetzung hat und gutes Englisch ist."
    ) in html
    assert 'data-label-no-changes="Keine Änderungen nötig"' in html
    # One key, one name in the keyboard help (it said "Strg+Eingabe" here, "Enter" elsewhere).
    assert (
        "Tastatur: Strg+Eingabetaste speichert das Segment und geht zum nächsten; "
        "Strg+Umschalt+Eingabetaste speichert es als „Keine Änderungen nötig“"
    ) in html
    # The box takes at most what the server stores; past it, the server names the box.
    assert 'data-max-chars="10000"' in html
    response = post_json(Client(), url(assignment, "judgments:task-submit"), edit(1, LONG * 2))
    assert response.json()["error"] == (
        "Ihre Bearbeitung ist zu lang: höchstens 10.000 Zeichen (erhalten: 20.002)."
    )


def test_the_mturk_preview_shows_the_first_segment_read_only(client, assignment):
    hit = assignment.hit
    publish(hit, preview_params()["hitId"])
    html = client.get(mturk_url(hit, **preview_params())).content.decode()
    assert "Accept the HIT to start.</p>" in html
    assert (
        '<h2 class="pe-title" id="preview-segment-title"><span>Segment 1 of 3</span></h2>' in html
    )
    assert '<p class="pe-context" dir="auto" lang="en">The cat is sleeping.</p>' in html
    assert (
        '<textarea class="pe-box" id="preview-box" dir="auto" lang="en" rows="3" disabled>'
        "The cat sleeps.</textarea>"
    ) in html
    assert html.count("disabled>") == 4
    assert '<link rel="stylesheet" href="/static/css/post_edit.css">' in html
    assert "<script" not in html and "It is raining" not in html
    assert SYSTEM_NAME not in html


def test_the_preview_escapes_the_texts(client, campaign):
    hit = build_edit_hit(campaign, [("<b>Quelle</b>", [NASTY], NASTY)])
    page = task_page(HitTask.POST_EDIT)
    sample = page.preview_sample(*first_unit(hit), campaign, page.labels(campaign))
    assert (sample["context"], sample["mt"]) == (NASTY, NASTY)
    publish(hit, preview_params()["hitId"])
    html = client.get(mturk_url(hit, **preview_params())).content.decode()
    assert "<script>alert" not in html
    assert html.count("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;") == 2


def walk(campaign):
    """Every body a worker receives on an edit HIT, entry page to completion page; segment 2
    is saved with no changes, segment 1 retried and conflicting."""
    client = Client()
    bodies = {}
    bodies["entry"] = client.get(reverse("judgments:campaign-entry", args=[campaign.pk]))
    start = client.post(reverse("judgments:campaign-start", args=[campaign.pk]))
    task_url = client.get(start["Location"])["Location"]
    tokens_seen = [start["Location"].rstrip("/").rsplit("/", 1)[1]]
    tokens_seen.append(task_url.rstrip("/").rsplit("/", 1)[1])
    bodies["task page"] = client.get(task_url)
    item = client.get(task_url + "item")
    bodies["item"] = item
    runs = []
    while item.json()["next"] is not None:
        run = item.json()["next"]["segments"]
        runs.append(run)
        current = next(s for s in run if s["edit"] is None)
        payload = edit(current["position"], current["mt"] + " Edited.", keystrokes=9)
        if current["position"] == 2:
            payload = edit(2, current["mt"], no_changes=True)
        item = client.post(task_url + "submit", json.dumps(payload), "application/json")
        bodies[f"submit {current['position']}"] = item
        if current["position"] == 1:
            bodies["retry"] = client.post(
                task_url + "submit", json.dumps(payload), "application/json"
            )
            payload["text"] = "Another edit."
            bodies["conflict"] = client.post(
                task_url + "submit", json.dumps(payload), "application/json"
            )
            bodies["empty"] = client.post(
                task_url + "submit", json.dumps(edit(2, "")), "application/json"
            )
    bodies["item after the end"] = client.get(task_url + "item")
    bodies["completion page"] = client.get(task_url)
    texts = {name: response.content.decode() for name, response in bodies.items()}
    for name in ("js/task-common.js", "js/post_edit.js", "css/task.css", "css/post_edit.css"):
        with open(finders.find(name), encoding="utf-8") as handle:
            texts[name] = handle.read()
    return texts, runs, tokens_seen


def test_no_body_a_worker_receives_names_a_system_a_role_or_an_id():
    campaign = post_editing_campaign()
    hit = build_edit_hit(
        campaign, SENTENCES, first_id=FIRST_ID, system_names=["SECRET-SYSTEM-A", "SECRET-B"]
    )
    texts, runs, tokens_seen = walk(campaign)

    assert len(runs) == 3 and all(len(run) == 3 for run in runs)
    assert all(set(s) == SEGMENT_KEYS for run in runs for s in run)
    assert [s["edit"] for s in runs[2]] == ["The cat sleeps. Edited.", NASTY, None]
    assert Judgment.objects.count() == 3
    assert Assignment.objects.get().status == AssignmentStatus.SUBMITTED

    ids = {hit.pk}
    for row in HitSlot.objects.filter(hit=hit).values_list("pk", "output_id", "segment_id"):
        ids.update(row)
    ids.update(System.objects.filter(campaign=campaign).values_list("pk", flat=True))
    ids.update(Document.objects.filter(campaign=campaign).values_list("pk", flat=True))
    ids = {str(pk) for pk in ids}
    assert all(FIRST_ID <= int(pk) < FIRST_ID + 1000 for pk in ids)
    # Innocent role values: "reference", since the page shows the segment's reference,
    # labelled so (000's editing screen), and "question", since the stylesheet it shares with
    # the verification page styles 000's two questions, and "source", since the bilingual mode
    # shows the source text, labelled so. No slot has any of these roles here.
    innocent = {SlotRole.REFERENCE, SlotRole.QUESTION, SlotRole.SOURCE}
    assert not HitSlot.objects.filter(role__in=innocent).exists()
    forbidden = {
        *(value for value in SlotRole.values if value not in innocent),
        *SlotRole.labels,
        "SECRET-SYSTEM-A",
        "SECRET-B",
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


@pytest.mark.parametrize("name", ["js/post_edit.js", "js/verify_edit.js"])
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
        r"|training|expected_?rank|trust",
        re.I,
    )
    templates = settings.BASE_DIR / "judgments" / "templates" / "judgments"
    paths = [
        finders.find("js/post_edit.js"),
        finders.find("js/verify_edit.js"),
        finders.find("css/post_edit.css"),
        *(
            templates / name
            for name in (
                "post_edit.html",
                "post_edit_preview.html",
                "verify_edit.html",
                "verify_edit_preview.html",
            )
        ),
    ]
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            assert not pattern.search(handle.read()), path


def test_a_hit_the_campaigns_builder_made_is_shown_in_document_order():
    """The page on the HITs of campaigns.actions.build_hits: a run of one document in order,
    each segment with its reference and the MT output of the system the HIT gives it."""
    campaign = post_editing_campaign(segments_per_hit=3, hit_seed=3)
    systems = [System.objects.create(campaign=campaign, name=f"engine-{n}") for n in range(2)]
    document = Document.objects.create(campaign=campaign, external_id="d1", position=1)
    for position in (1, 2, 3):
        row = Segment.objects.create(
            campaign=campaign,
            document=document,
            external_id=str(position),
            position=position,
            source=f"Satz {position}.",
            references=[f"Sentence {position}."],
        )
        for system in systems:
            Output.objects.create(
                segment=row, system=system, text=f"Sentence {position} by {system.name}."
            )
    build_hits(campaign)
    hit = Hit.objects.filter(campaign=campaign, task=HitTask.POST_EDIT).order_by("number")[0]
    assignment = AssignmentFactory(hit=hit)
    segments = Client().get(url(assignment, "judgments:task-item")).json()["next"]["segments"]
    slots = hit.slots.select_related("output__system").order_by("position")
    assert segments == [
        segment(
            position,
            f"Sentence {position}.",
            f"Sentence {position} by {slot.output.system.name}.",
        )
        for position, slot in enumerate(slots, start=1)
    ]
