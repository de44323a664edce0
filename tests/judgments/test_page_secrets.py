"""Roles are server-side secrets: nothing a worker's browser receives may tell a
quality-control item from an ordinary one, name a system, or carry an internal id.

Direct assessment and ranking (a qualification test of training sets, then a HIT with a gold
set) are walked the same way.

A worker goes through a HIT whose slots have every role, from the entry page to the
completion page; every body they receive (HTML, the page's script and stylesheet, every JSON
response) is searched for role values and labels, system names, the tell-tale words below,
and the database ids of slots, outputs, systems, segments and documents (made distinctive so
that a plain substring search finds them).
"""

import json
import re
from decimal import Decimal

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders
from django.test import Client
from django.urls import reverse

from campaigns.models import (
    AssessmentMode,
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
from judgments.models import Assignment, CampaignWorker, Judgment
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
    ids.discard(None)  # a gold slot shows a text that is no output
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
    for name in ("task-common.js", "assess.js", "task.css"):
        folder = "js" if name.endswith(".js") else "css"
        with open(finders.find(f"{folder}/{name}"), encoding="utf-8") as handle:
            texts[name] = handle.read()
    assert "/static/js/assess.js" in texts["task page"]
    assert "/static/js/task-common.js" in texts["task page"]
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

    # "source" is the role of a sentence to translate: no secret (the translation page says
    # "Source sentence"), and a word the pages and stylesheets use innocently.
    forbidden = {
        *(value for value in SlotRole.values if value != SlotRole.SOURCE),
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
        r"bad_?ref|is_?gold|gold_?answer|is_?repeat|is_?control|qc_?role|item_?type"
        r"|training|expected_?rank|trust",
        re.I,
    )
    paths = [
        finders.find("js/task-common.js"),
        finders.find("js/assess.js"),
        finders.find("js/rank.js"),
        finders.find("css/task.css"),
        *(
            settings.BASE_DIR / "judgments" / "templates" / "judgments" / name
            for name in (
                "task_base.html",
                "assess.html",
                "rank.html",
                "done.html",
                "entry.html",
                "message.html",
            )
        ),
    ]
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            assert not pattern.search(handle.read()), path


@pytest.mark.parametrize("name", ["js/task-common.js", "js/assess.js", "js/rank.js"])
def test_the_script_never_inserts_text_as_html(name):
    with open(finders.find(name), encoding="utf-8") as handle:
        script = handle.read()
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
        assert sink not in script
    assert "textContent" in script


# --- Ranking: a qualification test of training sets, then a HIT with a gold set ----------------

RANK_SYSTEM_NAMES = ["SECRET-SYSTEM", "SECRET-SYSTEM-B", "SECRET-SYSTEM-C", "SECRET-SYSTEM-D"]
# Ranking bodies are also searched for these (a qualification item is a "training" slot; a
# gold answer is an expected rank).
RANK_TELL_TALE_WORDS = [*TELL_TALE_WORDS, "training", "trust", "expected", "rank_min", "rank_max"]
# "reference": a ranking set shows its segment's reference, labelled "Reference", as 002's
# ranking sets do (METHODS.md 1); ranking HITs have no slot of the role "reference", and the
# exact keys of every set and output sent are checked below. "unexpectedly": the scripts'
# message for an unreadable server answer.
RANK_INNOCENT_WORDS = ["reference", "unexpectedly"]
RANK_SET_KEYS = {"set", "number", "source", "reference", "outputs"}
GOLD_TEXT = "A flawless version by a human hand."


def build_ranking_campaign_with_every_role():
    """A ranking campaign that requires the qualification test. HIT 1 (real): 3 sets of 4,
    set 2 (group 1) a best+worst gold set (a gold translation that is no output, expected
    1-2, and a known-worst output, expected 3-4). HIT 2: the qualification test, 3 sets of 4
    training slots, some with expected ranks."""
    campaign = CampaignFactory(
        kind=TaskKind.RANKING,
        title="Rank translations",
        instructions="Rank each translation.",
        redundancy=1,
        outputs_per_set=4,
        sets_per_hit=3,
        qualification_required=True,
        qualification_pass_mark=Decimal("0.5"),
    )
    ids = iter(range(FIRST_ID, FIRST_ID + 1000))
    systems = [
        System.objects.create(pk=next(ids), campaign=campaign, name=name)
        for name in RANK_SYSTEM_NAMES
    ]
    document = Document.objects.create(
        pk=next(ids), campaign=campaign, external_id="doc-SECRET", position=1
    )
    segments = [
        Segment.objects.create(
            pk=next(ids),
            campaign=campaign,
            document=document,
            external_id=f"seg-{n}",
            position=n,
            source=source,
            references=[f"Human version: {text.lower()}"],
        )
        for n, (source, text) in enumerate(SOURCES, start=1)
    ]
    outputs = {
        (segment.pk, system.pk): Output.objects.create(
            pk=next(ids),
            system=system,
            segment=segment,
            text=f"{SOURCES[i][1][:-1]}, take {j + 1}.",
        )
        for i, segment in enumerate(segments)
        for j, system in enumerate(systems)
    }

    def hit(number, qualification, plan):
        made = Hit.objects.create(
            pk=next(ids),
            campaign=campaign,
            task=HitTask.RANK,
            number=number,
            is_qualification=qualification,
        )
        for position, group, segment, system, role, low, high in plan:
            output = outputs[(segment.pk, system.pk)] if system else None
            HitSlot.objects.create(
                pk=next(ids),
                hit=made,
                position=position,
                group=group,
                role=role,
                segment=segment,
                output=output,
                shown_text=output.text if output else GOLD_TEXT,
                expected_rank_min=low,
                expected_rank_max=high,
            )
        return made

    real, test = [], []
    for group, segment in enumerate(segments[:3]):
        for n, system in enumerate(systems):
            position = group * 4 + n + 1
            if group == 1 and n == 2:
                real.append((position, group, segment, None, SlotRole.GOLD, 1, 2))
            elif group == 1 and n == 0:
                real.append((position, group, segment, system, SlotRole.SYSTEM, 3, 4))
            else:
                real.append((position, group, segment, system, SlotRole.SYSTEM, None, None))
    for group, segment in enumerate(segments[1:]):
        for n, system in enumerate(systems):
            position = group * 4 + n + 1
            low, high = (1, 1) if n == group else (None, None)
            test.append((position, group, segment, system, SlotRole.TRAINING, low, high))
    return campaign, hit(1, False, real), hit(2, True, test)


def rank_the_page(client, task_url, bodies, label):
    """Submit every set of every page: ranks 1..4 in order (the expected slots of the test
    are the first ones, so it is passed). Returns the JSON items seen."""
    item = client.get(task_url + "item")
    bodies[f"{label} item"] = item
    pages = []
    while item.json()["next"] is not None:
        page = item.json()["next"]
        pages.append(page)
        for ranking_set in page["sets"]:
            ranks = {str(o["position"]): i + 1 for i, o in enumerate(ranking_set["outputs"])}
            if label == "test":  # the checked slot is the one at index == group
                ranks = {
                    str(o["position"]): 1 if i == ranking_set["set"] else 2
                    for i, o in enumerate(ranking_set["outputs"])
                }
            payload = {"set": ranking_set["set"], "ranks": ranks, "client_duration_ms": 4000}
            if ranking_set["set"] == 0:
                early = {"set": 2, "ranks": {"1": 1}}
                bodies[f"{label} out of order"] = client.post(
                    task_url + "submit", json.dumps(early), "application/json"
                )
            item = client.post(task_url + "submit", json.dumps(payload), "application/json")
            bodies[f"{label} submit {ranking_set['set']}"] = item
            if ranking_set["set"] == 1:
                bodies[f"{label} retry"] = client.post(
                    task_url + "submit", json.dumps(payload), "application/json"
                )
                payload["ranks"] = {key: 4 for key in payload["ranks"]}
                bodies[f"{label} conflict"] = client.post(
                    task_url + "submit", json.dumps(payload), "application/json"
                )
                bodies[f"{label} bad ranks"] = client.post(
                    task_url + "submit",
                    json.dumps({"set": 2, "ranks": {"99": 5}}),
                    "application/json",
                )
    bodies[f"{label} item after the end"] = client.get(task_url + "item")
    return pages


def test_no_ranking_body_reveals_a_role_a_system_a_gold_answer_or_an_id():
    campaign, real_hit, test_hit = build_ranking_campaign_with_every_role()
    client = Client()
    bodies = {}
    bodies["entry"] = client.get(reverse("judgments:campaign-entry", args=[campaign.pk]))
    start = client.post(reverse("judgments:campaign-start", args=[campaign.pk]))
    worker_link = start["Location"]
    test_url = client.get(worker_link)["Location"]
    bodies["test page"] = client.get(test_url)
    test_pages = rank_the_page(client, test_url, bodies, "test")
    after_test = client.get(test_url)
    assert after_test["Location"] == worker_link  # on to the first real task
    real_url = client.get(worker_link)["Location"]
    bodies["task page"] = client.get(real_url)
    real_pages = rank_the_page(client, real_url, bodies, "real")
    bodies["completion page"] = client.get(real_url)
    bodies["worker link at the end"] = client.get(worker_link)
    tokens = [url.rstrip("/").rsplit("/", 1)[1] for url in (worker_link, test_url, real_url)]

    # Both HITs were done, the test first, and every set and output carried only its handles
    # and texts; the gold translation is shown like any other output.
    assert CampaignWorker.objects.get().qualification_passed is True
    assert Assignment.objects.filter(status="submitted").count() == 2
    assert Judgment.objects.filter(rank__isnull=False).count() == 24
    for pages in (test_pages, real_pages):
        assert [set(page) for page in pages] == [{"page", "pages", "sets"}]
        sets = pages[0]["sets"]
        assert [s["set"] for s in sets] == [0, 1, 2]
        assert all(set(s) == RANK_SET_KEYS for s in sets)
        assert all(set(o) == {"position", "text"} for s in sets for o in s["outputs"])
    gold_set = real_pages[0]["sets"][1]
    assert [o["text"] for o in gold_set["outputs"]][2] == GOLD_TEXT
    assert gold_set["source"] == "Es regnet heute."
    assert "/static/js/rank.js" in bodies["task page"].content.decode()
    assert "This is a short qualification test." in bodies["test page"].content.decode()
    assert "qualification" not in bodies["task page"].content.decode()
    assert bodies["test conflict"].status_code == 409
    assert bodies["test out of order"].status_code == 400
    assert bodies["real bad ranks"].status_code == 400

    texts = {name: response.content.decode() for name, response in bodies.items()}
    for name in ("js/rank.js", "css/task.css"):
        with open(finders.find(name), encoding="utf-8") as handle:
            texts[name] = handle.read()
    forbidden = {
        *(value for value in SlotRole.values if value not in ("reference", SlotRole.SOURCE)),
        *SlotRole.labels,
        *RANK_SYSTEM_NAMES,
        "doc-SECRET",
        *(f"seg-{n}" for n in range(1, 5)),
    }
    ids = secret_ids(real_hit) | secret_ids(test_hit) | {str(real_hit.pk), str(test_hit.pk)}
    for name, body in texts.items():
        body = scrub(body, tokens)
        for word in RANK_INNOCENT_WORDS:
            body = re.sub(re.escape(word), "", body, flags=re.IGNORECASE)
        lowered = body.lower()
        for secret in forbidden:
            assert secret.lower() not in lowered, f"{name} contains {secret!r}"
        for word in RANK_TELL_TALE_WORDS:
            assert word not in lowered, f"{name} contains {word!r}"
        for pk in ids:
            assert pk not in body, f"{name} contains the id {pk}"
