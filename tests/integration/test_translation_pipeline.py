"""Crowd translation on the real stack (issue 15 item 6): two translators and a Detect-MT
worker go through the real worker endpoints over HTTP (Start, the language-background form,
the item and submit URLs); a real Celery worker (deploy/worker.sh) on Redis and PostgreSQL
builds the Detect-MT HITs from the submitted translations by itself, stores the flags, excludes
the translator who pasted machine translation and keeps the other's translations as the test
set, which the analysts' export gives back in document order.

The story, shared with tests/e2e/test_translation_full_loop.py: one document of three German
sentences, an imported MT output of one system ("online-mt") and a professional reference for
each; two translators per sentence (redundancy 2), sources shown as images, one Detect-MT voter
per translation, exclusion at 30%, similarity threshold chrF 90.

- Translator 1 types their own translations (chrF 22-64 to the MT outputs: not similar).
- Translator 2 pastes the MT output of sentences 1 and 2 (chrF 100: flagged by similarity)
  and types a sloppy sentence 3 (chrF 58). Two decided flags are under the three decided
  translations the exclusion waits for (analytics/stats/translation/flags.py), so translator 2
  is not excluded yet and the Detect-MT HIT of their translations is still handed out: had all
  three been pasted, the recompute of their submission would have excluded them at once, and
  the hand-out hides Detect-MT HITs about excluded translators.
- The Detect-MT worker answers "human" for translator 1's translations and "machine made" for
  translator 2's: translator 2 is flagged 3 times in 3 decided translations (100% >= 30%) and
  excluded; every sentence keeps translator 1's translation (the only eligible one), final
  since both translations of each sentence are in and decided.
"""

from __future__ import annotations

import json
import re

import pytest
import sacrebleu
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from analytics import actions as analytics_actions
from analytics.models import CampaignAccess
from campaigns.actions import build_hits
from campaigns.models import Campaign, Hit, HitTask, TaskKind
from judgments.models import Assignment, AssignmentStatus, CampaignWorker, Judgment
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

SYSTEM = "online-mt"
DOCUMENT = "news-1"
SOURCES = {
    1: "Die Katze schläft auf dem Sofa.",
    2: "Heute regnet es in der Stadt.",
    3: "Wir essen frisches Brot zum Frühstück.",
}
# Words of the sources that no translation holds: none may reach a translator's browser.
SOURCE_WORDS = ("Katze", "schläft", "regnet", "Stadt", "frisches", "Frühstück")
REFERENCES = {
    1: "The cat is sleeping on the sofa.",
    2: "It is raining in the city today.",
    3: "We eat fresh bread for breakfast.",
}
MT = {
    1: "The cat sleeps on the couch.",
    2: "Today it is raining in the city.",
    3: "We eat fresh bread for breakfast.",
}
# Translator 1's own translations: sentence chrF to the MT output 42.2, 22.4, 63.5.
OWN = {
    1: "The cat is asleep on the sofa.",
    2: "It rains in town today.",
    3: "For breakfast, we have fresh bread.",
}
# Translator 2: MT pasted into boxes 1 and 2, sentence 3 typed (chrF 57.9 to the MT output).
PASTED = {1: MT[1], 2: MT[2], 3: "We are having fresh bread at breakfast"}
PASTED_POSITIONS = (1, 2)


def build_translation_campaign() -> Campaign:
    """One document of three sentences (created out of order, so that document order is not
    the order of the rows), each with its professional reference and the MT output of
    ``SYSTEM``; the builder makes one translation HIT of the three sentences."""
    campaign = CampaignFactory(
        kind=TaskKind.TRANSLATION,
        title="Translate German news",
        instructions="Translate each sentence into English.",
        source_language="de",
        target_language="en",
        redundancy=2,
        segments_per_hit=10,
        source_as_image=True,
        detect_mt_voters=1,
        mt_similarity_metric="chrf",
        mt_similarity_threshold=90,
        detect_mt_exclusion_rate="0.300",
    )
    analytics_actions.clear_recompute_flag(campaign.pk)
    document = DocumentFactory(campaign=campaign, external_id=DOCUMENT, position=1)
    system = SystemFactory(campaign=campaign, name=SYSTEM)
    for position in (2, 3, 1):
        segment = SegmentFactory(
            document=document,
            external_id=f"s{position}",
            position=position,
            source=SOURCES[position],
            references=[REFERENCES[position]],
        )
        OutputFactory(segment=segment, system=system, text=MT[position])
    assert build_hits(campaign) == 1
    return campaign


def sentence_chrf(hypothesis: str, reference: str) -> float:
    return sacrebleu.sentence_chrf(hypothesis, [reference]).score


def analyst_token(campaign: Campaign) -> str:
    """An analyst granted read access to the campaign (not staff, not its owner), and their
    API token."""
    user = get_user_model().objects.create_user("tr-analyst")
    user.user_permissions.add(
        Permission.objects.get(content_type__app_label="campaigns", codename="view_campaign")
    )
    CampaignAccess.objects.create(campaign=campaign, user=user)
    return Token.objects.create(user=user).key


def expected_flags(translator: str) -> dict[int, dict[str, object]]:
    """The stored flags of each sentence's translation by ``translator`` ("own" or
    "pasted") once the Detect-MT worker has answered."""
    if translator == "own":
        return {
            n: {
                "text": OWN[n],
                "similar": False,
                "detected": False,
                "flagged": False,
                "decided": True,
                "eligible": True,
                "kept": True,
                "machine_votes": 0,
                "human_votes": 1,
                "vote_places": 1,
            }
            for n in OWN
        }
    return {
        n: {
            "text": PASTED[n],
            "similar": n in PASTED_POSITIONS,
            "detected": True,
            "flagged": True,
            "decided": True,
            "eligible": False,
            "kept": False,
            "machine_votes": 1,
            "human_votes": 0,
            "vote_places": 1,
        }
        for n in PASTED
    }


def check_api(campaign: Campaign, token: str, own_worker: str, pasted_worker: str) -> None:
    """What the analysts' API says once everything is in: the flags of every translation,
    the translators' flag rates and exclusion, the kept test set and its exports."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    base = f"/api/campaigns/{campaign.pk}"

    response = client.get(f"{base}/translation/translations/")
    assert response.status_code == 200, response.content[:500]
    rows = response.json()["results"]
    assert len(rows) == 6
    by_worker: dict[str, dict[int, dict]] = {}
    for row in rows:
        assert row["counted"] is True and row["document_external_id"] == DOCUMENT
        by_worker.setdefault(row["worker_external_id"], {})[int(row["segment_external_id"][1:])] = (
            row
        )
    for worker, story in ((own_worker, "own"), (pasted_worker, "pasted")):
        for n, expected in expected_flags(story).items():
            row = by_worker[worker][n]
            assert {key: row[key] for key in expected} == expected, (story, n, row)
            assert row["mt_system"] == SYSTEM
            assert row["mt_similarity"] == pytest.approx(sentence_chrf(expected["text"], MT[n]))
            assert row["bleu"] == pytest.approx(
                sacrebleu.sentence_bleu(expected["text"], [REFERENCES[n]]).score
            )
    assert by_worker[pasted_worker][1]["mt_similarity"] == pytest.approx(100.0)

    translators = client.get(f"{base}/translation/translators/").json()["workers"]
    stats = {row["worker_external_id"]: row for row in translators}
    assert {
        key: stats[pasted_worker][key]
        for key in ("n_translations", "n_decided", "n_flagged", "flag_rate", "excluded")
    } == {"n_translations": 3, "n_decided": 3, "n_flagged": 3, "flag_rate": 1.0, "excluded": True}
    assert stats[pasted_worker]["auto_excluded"] is True
    assert {
        key: stats[own_worker][key]
        for key in ("n_translations", "n_decided", "n_flagged", "flag_rate", "excluded", "n_kept")
    } == {
        "n_translations": 3,
        "n_decided": 3,
        "n_flagged": 0,
        "flag_rate": 0.0,
        "excluded": False,
        "n_kept": 3,
    }

    testset = client.get(f"{base}/translation/testset/").json()
    assert (testset["n_segments"], testset["n_kept"], testset["n_final"]) == (3, 3, 3)
    assert [row["text"] for row in testset["results"]] == [OWN[n] for n in (1, 2, 3)]
    assert [row["segment_external_id"] for row in testset["results"]] == ["s1", "s2", "s3"]
    assert all(row["final"] and row["how"] == "consensus" for row in testset["results"])
    own_texts = [OWN[n] for n in (1, 2, 3)]
    references = [[REFERENCES[n] for n in (1, 2, 3)]]
    assert testset["bleu"] == pytest.approx(sacrebleu.corpus_bleu(own_texts, references).score)

    txt = client.get(f"{base}/export/testset.txt")
    assert txt.status_code == 200 and txt["Content-Type"].startswith("text/plain")
    assert txt.content.decode() == "".join(f"{OWN[n]}\n" for n in (1, 2, 3))
    docids = client.get(f"{base}/export/testset.docids").content.decode()
    assert docids == f"{DOCUMENT}\n" * 3
    # Nobody without access learns anything.
    assert APIClient().get(f"{base}/export/testset.txt").status_code in (401, 403)


def check_stored(campaign: Campaign, own_worker_id: int, pasted_worker_id: int) -> None:
    """The database after the last recompute: the exclusion of the paster with its reason, the
    kept translations, and the kept segments in document order."""
    from analytics.models import TranslationKeptSegment, TranslationStat, TranslationWorkerStat

    membership = CampaignWorker.objects.get(campaign=campaign, worker_id=pasted_worker_id)
    assert membership.excluded is True
    assert membership.excluded_reason.startswith(
        "Flagged as machine translation in 3 of 3 decided translations (100%), at or above "
        "the campaign's exclusion rate of 30%"
    )
    assert not CampaignWorker.objects.filter(
        campaign=campaign, worker_id=own_worker_id, excluded=True
    ).exists()
    profiles = {s.worker_id: s for s in TranslationWorkerStat.objects.filter(campaign=campaign)}
    assert profiles[pasted_worker_id].flag_rate == 1.0 and profiles[pasted_worker_id].excluded
    assert profiles[own_worker_id].flag_rate == 0.0 and not profiles[own_worker_id].excluded
    similar = TranslationStat.objects.filter(campaign=campaign, similar=True)
    assert sorted(similar.values_list("judgment__text", flat=True)) == sorted(
        PASTED[n] for n in PASTED_POSITIONS
    )
    kept = TranslationKeptSegment.objects.filter(campaign=campaign).order_by(
        "segment__document__position", "segment__position"
    )
    assert [(k.segment.external_id, k.text, k.judgment.worker_id, k.final) for k in kept] == [
        (f"s{n}", OWN[n], own_worker_id, True) for n in (1, 2, 3)
    ]


# --- The pipeline over HTTP ----------------------------------------------------------------

WORKER_READY_TIMEOUT = 30
STEP_TIMEOUT = 60
BACKGROUND = {
    "native_language": "English",
    "country": "GB",
    "years_source_language": "5",
    "years_target_language": "30",
}


class Browser:
    """One worker's browser as HTTP: its own session (Start makes a new pseudonymous worker)."""

    def __init__(self, campaign: Campaign) -> None:
        self.client = Client()
        start = self.client.post(reverse("judgments:campaign-start", args=[campaign.pk]))
        assert start.status_code == 303, start.content[:300]
        self.link = start["Location"]
        self.task = ""

    def next_task(self) -> Assignment:
        """Follow the worker's link to their next assignment; answer the language-background
        form when the page asks for it (the translation kind always does, once)."""
        handed = self.client.get(self.link)
        assert handed.status_code == 302, handed.content[:300]
        self.task = handed["Location"]
        page = self.client.get(self.task)
        if page.status_code == 302:
            assert page["Location"].endswith("/background")
            answer = self.client.post(page["Location"], BACKGROUND)
            assert answer.status_code == 303, answer.content[:500]
            page = self.client.get(self.task)
        assert page.status_code == 200
        token = self.task.rstrip("/").rsplit("/", 1)[-1]
        from judgments import tokens

        return Assignment.objects.get(pk=tokens.read_assignment_token(token).assignment_id)

    def item(self) -> dict:
        response = self.client.get(self.task + "item")
        assert response.status_code == 200, response.content[:300]
        return response.json()

    def submit(self, payload: dict) -> dict:
        response = self.client.post(
            self.task + "submit", data=json.dumps(payload), content_type="application/json"
        )
        assert response.status_code == 200, response.content[:500]
        return response.json()


def translate(browser: Browser, texts: dict[int, str], pasted: tuple[int, ...]) -> None:
    """A whole translation HIT: the item holds image URLs only, never the sources; one POST
    per sentence with what the page would measure."""
    item = browser.item()
    body = json.dumps(item, ensure_ascii=False)
    assert not any(word in body for word in SOURCE_WORDS), body
    sentences = item["next"]["sentences"]
    assert [s["position"] for s in sentences] == [1, 2, 3]
    assert all(s["source"] is None and s["image"] for s in sentences)
    for s in sentences:
        assert not any(source in s["image"] for source in SOURCES.values())
        image = browser.client.get(s["image"])
        assert image.status_code == 200 and image["Content-Type"] == "image/png"
    for position in (1, 2, 3):
        text = texts[position]
        paste = position in pasted
        answer = browser.submit(
            {
                "position": position,
                "text": text,
                "keystrokes": 1 if paste else len(text),
                "pastes": 1 if paste else 0,
                "seconds": 2.5 if paste else 21.0,
            }
        )
        assert answer["ok"] is True
    assert answer["done"] is True


def vote(browser: Browser, machine_texts: set[str]) -> list[tuple[str, bool]]:
    """A whole Detect-MT HIT: "machine made" for the texts in ``machine_texts``, "human" for
    the others; returns what was shown and answered."""
    answered = []
    data = browser.item()
    while data.get("next"):
        shown = data["next"]
        assert shown["source"] is None and shown["image"]
        machine = shown["translation"] in machine_texts
        answered.append((shown["translation"], machine))
        data = browser.submit({"position": shown["position"], "machine": machine})
    return answered


def test_a_celery_worker_builds_detect_mt_hits_flags_excludes_and_keeps_the_test_set(
    postgres_required,
    redis_url,
    unique_queue,
    subprocess_env,
    start_service,
    settings,
):
    from analytics.models import TranslationResult, TranslationWorkerStat
    from evalsite.celery import app as celery_app

    assert celery_app.conf.task_always_eager is False  # sent through Redis, not inline
    settings.ANALYTICS_RECOMPUTE_QUEUE = unique_queue
    settings.ANALYTICS_RECOMPUTE_COUNTDOWN = 1.0
    campaign = build_translation_campaign()

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

    # Both translators start before either submits (a Detect-MT HIT, once one exists, is
    # handed out before a translation HIT).
    own, paster = Browser(campaign), Browser(campaign)
    own_hit, paster_hit = own.next_task(), paster.next_task()
    assert own_hit.hit.task == paster_hit.hit.task == HitTask.TRANSLATE
    assert own_hit.hit_id == paster_hit.hit_id and own_hit.worker_id != paster_hit.worker_id
    translate(own, OWN, pasted=())
    translate(paster, PASTED, pasted=PASTED_POSITIONS)
    stored = {
        (j.worker_id, j.slot.position): j
        for j in Judgment.objects.filter(campaign=campaign).select_related("slot")
    }
    assert {key: j.text for key, j in stored.items()} == {
        **{(own_hit.worker_id, n): OWN[n] for n in OWN},
        **{(paster_hit.worker_id, n): PASTED[n] for n in PASTED},
    }
    assert stored[paster_hit.worker_id, 1].details == {
        "keystrokes": 1,
        "pastes": 1,
        "seconds": 2.5,
    }

    # No requester step: the worker's recompute builds one Detect-MT HIT per submitted
    # translation assignment, each slot about one translation, and flags the pasted ones by
    # similarity; two decided flags do not exclude yet.
    detect = Hit.objects.filter(campaign=campaign, task=HitTask.DETECT_MT)
    worker.wait_until(lambda: detect.count() == 2, STEP_TIMEOUT, "2 Detect-MT HITs")
    assert set(detect.values_list("places", flat=True)) == {1}
    about = {
        hit.pk: sorted((s.position, s.about_judgment.worker_id) for s in hit.slots.all())
        for hit in detect.prefetch_related("slots__about_judgment")
    }
    assert sorted(about.values()) == sorted(
        [[(n, w) for n in (1, 2, 3)] for w in (own_hit.worker_id, paster_hit.worker_id)]
    )

    def similarity_flags_stored() -> bool:
        row = TranslationWorkerStat.objects.filter(
            campaign=campaign, worker_id=paster_hit.worker_id
        ).first()
        return row is not None and row.n_translations == 3 and row.n_flagged == 2

    worker.wait_until(similarity_flags_stored, STEP_TIMEOUT, "the similarity flags")
    assert not CampaignWorker.objects.filter(campaign=campaign, excluded=True).exists()

    # The Detect-MT worker: "human" for translator 1, "machine made" for translator 2, both
    # HITs handed out through the worker's link.
    voter = Browser(campaign)
    shown = []
    for _ in range(2):
        assignment = voter.next_task()
        assert assignment.hit.task == HitTask.DETECT_MT
        shown.append(vote(voter, set(PASTED.values())))
        assert Assignment.objects.get(pk=assignment.pk).status == AssignmentStatus.SUBMITTED
    assert sorted(shown) == sorted(
        [[(OWN[n], False) for n in (1, 2, 3)], [(PASTED[n], True) for n in (1, 2, 3)]]
    )
    assert voter.client.get(voter.link).status_code == 200  # nothing more to hand out

    def reflects_everything() -> bool:
        result = TranslationResult.objects.filter(campaign=campaign).first()
        return result is not None and result.n_judgments == 12 and result.n_kept == 3

    worker.wait_until(reflects_everything, STEP_TIMEOUT, "results over all 12 judgments")
    worker.wait_until(
        lambda: CampaignWorker.objects.filter(
            campaign=campaign, worker_id=paster_hit.worker_id, excluded=True
        ).exists(),
        STEP_TIMEOUT,
        "the paster's exclusion",
    )
    check_stored(campaign, own_hit.worker_id, paster_hit.worker_id)
    workers = dict(
        Assignment.objects.filter(pk__in=[own_hit.pk, paster_hit.pk]).values_list(
            "worker_id", "worker__external_id"
        )
    )
    check_api(
        campaign, analyst_token(campaign), workers[own_hit.worker_id], workers[paster_hit.worker_id]
    )
    assert re.fullmatch(r"anon-[0-9a-f]{16}", workers[paster_hit.worker_id])
    analytics_actions.clear_recompute_flag(campaign.pk)
