"""Roles are server-side secrets: nothing a worker's browser receives may tell a
quality-control item from an ordinary one, name a system, or carry an internal id.

A worker goes through a HIT whose slots have every role, from the entry page to the
completion page; every body they receive (HTML, the page's script and stylesheet, every JSON
response) is searched for role values and labels, system names, the tell-tale words below,
and the database ids of slots, outputs, systems, segments and documents (made distinctive so
that a plain substring search finds them).
"""

import json
import re

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders
from django.test import Client
from django.urls import reverse

from campaigns.models import AssessmentMode, Document, HitSlot, Output, Segment, SlotRole, System
from judgments.models import Assignment, Judgment
from tests.factories import CampaignFactory, HitFactory

pytestmark = pytest.mark.django_db

SYSTEM_NAMES = ["SECRET-SYSTEM-NAME", "SECRET-SYSTEM-NAME-TWO", "HUMAN-TRANSLATOR-NAME"]
TELL_TALE_WORDS = ["bad", "repeat", "gold", "control"]
# Words that contain a tell-tale word innocently and may appear in a page. Each entry must
# be justified; none is needed today.
INNOCENT_WORDS: list[str] = []
# Ids far from anything else in a test database, so that finding one is never a coincidence.
FIRST_ID = 7_340_001

# (role, text shown) per position. The texts avoid every searched word.
SOURCES = [
    ("Die Katze schläft.", "The cat sleeps in the sun."),
    ("Es regnet heute.", "It rains today in the hills."),
    ("Wir essen Brot.", "We eat fresh bread at noon."),
    ("Der Zug kommt spät.", "The train comes late again."),
]


def build_hit_with_every_role():
    """A HIT: two ordinary outputs, a degraded copy of the first, a second showing of the
    second, the human translation shown as an output, and two more ordinary outputs."""
    campaign = CampaignFactory(
        assessment_mode=AssessmentMode.ADEQUACY,
        title="Rate translations",
        instructions="Read each text and move the slider.",
        redundancy=1,
    )
    ids = iter(range(FIRST_ID, FIRST_ID + 1000))
    systems = [
        System.objects.create(pk=next(ids), campaign=campaign, name=name, is_reference=i == 2)
        for i, name in enumerate(SYSTEM_NAMES)
    ]
    document = Document.objects.create(
        pk=next(ids), campaign=campaign, external_id="doc-SECRET", position=1
    )
    outputs = []
    for position, (source, text) in enumerate(SOURCES, start=1):
        segment = Segment.objects.create(
            pk=next(ids),
            campaign=campaign,
            document=document,
            external_id=f"seg-{position}",
            position=position,
            source=source,
            references=[f"Human version: {text.lower()}"],
        )
        system = systems[position % 2]
        outputs.append(
            Output.objects.create(pk=next(ids), system=system, segment=segment, text=text)
        )
    human = Output.objects.create(
        pk=next(ids), system=systems[2], segment=outputs[2].segment, text="We eat bread at noon."
    )
    hit = HitFactory(campaign=campaign, number=1)

    def slot(position, role, output, shown_text, controls=None):
        return HitSlot.objects.create(
            pk=next(ids),
            hit=hit,
            position=position,
            group=1,
            role=role,
            output=output,
            segment=output.segment,
            shown_text=shown_text,
            controls=controls,
        )

    first = slot(1, SlotRole.SYSTEM, outputs[0], outputs[0].text)
    second = slot(2, SlotRole.SYSTEM, outputs[1], outputs[1].text)
    slot(3, SlotRole.BAD_REFERENCE, outputs[0], "The cat in the sun.", controls=first)
    slot(4, SlotRole.REPEAT, outputs[1], outputs[1].text, controls=second)
    slot(5, SlotRole.REFERENCE, human, human.text)
    slot(6, SlotRole.SYSTEM, outputs[2], outputs[2].text)
    slot(7, SlotRole.SYSTEM, outputs[3], outputs[3].text)
    return campaign, hit


def secret_ids(hit):
    slots = HitSlot.objects.filter(hit=hit)
    ids = set(slots.values_list("pk", flat=True))
    ids |= set(slots.values_list("output_id", flat=True))
    ids |= set(slots.values_list("segment_id", flat=True))
    ids |= set(slots.values_list("output__system_id", flat=True))
    ids |= set(System.objects.filter(campaign=hit.campaign).values_list("pk", flat=True))
    ids |= set(Document.objects.filter(campaign=hit.campaign).values_list("pk", flat=True))
    assert all(FIRST_ID <= pk < FIRST_ID + 1000 for pk in ids)
    return {str(pk) for pk in ids}


def scrub(body, tokens):
    """Remove what is random or signed (a signature may spell anything) and innocent words."""
    for token in tokens:
        body = body.replace(token, "<token>")
    body = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", body)
    for word in INNOCENT_WORDS:
        body = re.sub(re.escape(word), "", body, flags=re.IGNORECASE)
    return body


def walk_as_a_worker(campaign):
    """Every body a worker's browser receives, from the entry page to the completion page."""
    client = Client()
    bodies = {}
    bodies["entry"] = client.get(reverse("judgments:campaign-entry", args=[campaign.pk]))
    start = client.post(reverse("judgments:campaign-start", args=[campaign.pk]))
    worker_link = client.get(start["Location"])
    task_url = worker_link["Location"]
    worker_token = start["Location"].rstrip("/").rsplit("/", 1)[1]
    task_token = task_url.rstrip("/").rsplit("/", 1)[1]
    bodies["task page"] = client.get(task_url)
    item = client.get(task_url + "item")
    bodies["item"] = item
    items = []
    while item.json()["next"] is not None:
        items.append(item.json()["next"])
        position = item.json()["next"]["position"]
        payload = {"position": position, "score": 10 * position, "client_duration_ms": 800}
        item = client.post(task_url + "submit", json.dumps(payload), "application/json")
        bodies[f"submit {position}"] = item
        if position == 3:  # an identical retry and a conflicting one
            retry = client.post(task_url + "submit", json.dumps(payload), "application/json")
            bodies["retry"] = retry
            payload["score"] += 1
            bodies["conflict"] = client.post(
                task_url + "submit", json.dumps(payload), "application/json"
            )
    bodies["item after the end"] = client.get(task_url + "item")
    bodies["completion page"] = client.get(task_url)
    bodies["worker link at the end"] = client.get(start["Location"])
    texts = {name: response.content.decode() for name, response in bodies.items()}
    for name in ("assess.js", "task.css"):
        folder = "js" if name.endswith(".js") else "css"
        with open(finders.find(f"{folder}/{name}"), encoding="utf-8") as handle:
            texts[name] = handle.read()
    assert "/static/js/assess.js" in texts["task page"]
    return texts, items, (worker_token, task_token)


def test_no_body_a_worker_receives_reveals_a_role_a_system_or_an_id():
    campaign, hit = build_hit_with_every_role()
    texts, items, tokens = walk_as_a_worker(campaign)

    # The walk reached every item, with exactly the texts shown and nothing else.
    assert [item["position"] for item in items] == [1, 2, 3, 4, 5, 6, 7]
    assert all(set(item) == {"position", "text", "gray_text"} for item in items)
    assert items[2]["text"] == "The cat in the sun."
    assert items[4] == {
        "position": 5,
        "text": "We eat bread at noon.",
        "gray_text": "Human version: we eat fresh bread at noon.",
    }
    assert Judgment.objects.count() == 7
    assert Assignment.objects.get().status == "submitted"

    forbidden = {
        *SlotRole.values,
        *SlotRole.labels,
        *SYSTEM_NAMES,
        "doc-SECRET",
        *(f"seg-{n}" for n in range(1, 5)),
    }
    ids = secret_ids(hit)
    for name, body in texts.items():
        body = scrub(body, tokens)
        lowered = body.lower()
        for secret in forbidden:
            assert secret.lower() not in lowered, f"{name} contains {secret!r}"
        for word in TELL_TALE_WORDS:
            assert word not in lowered, f"{name} contains {word!r}"
        for pk in ids:
            assert pk not in body, f"{name} contains the id {pk}"


def test_the_worker_facing_files_hold_no_quality_control_vocabulary():
    """The same grep as the lead's before-stop hook, over the files this feature ships."""
    pattern = re.compile(
        r"bad_?ref|is_?gold|gold_?answer|is_?repeat|is_?control|qc_?role|item_?type", re.I
    )
    paths = [
        finders.find("js/assess.js"),
        finders.find("css/task.css"),
        *(
            settings.BASE_DIR / "judgments" / "templates" / "judgments" / name
            for name in ("assess.html", "done.html", "entry.html", "message.html")
        ),
    ]
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            assert not pattern.search(handle.read()), path


def test_the_script_never_inserts_text_as_html():
    with open(finders.find("js/assess.js"), encoding="utf-8") as handle:
        script = handle.read()
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
        assert sink not in script
    assert "textContent" in script
