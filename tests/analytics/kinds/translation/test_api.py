"""Translation's API endpoints and test-set exports (the TSV read by the real campaign
importer into a new campaign), the shared endpoints' translation fields, permissions, and
the results panel on the campaign's admin page."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse

from analytics import actions
from analytics.kinds.translation import actions as tr_actions
from analytics.models import TranslationKeptSegment, TranslationSystemScore
from campaigns.importers import run_import
from campaigns.models import Segment, TaskKind
from tests.analytics.api.conftest import NOT_READERS, make_cast
from tests.analytics.kinds.translation.campaign import REFERENCES, build_tr_campaign
from tests.analytics.kinds.translation.test_actions import FakeStages
from tests.factories import CampaignFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def built(monkeypatch):
    fake = FakeStages()
    monkeypatch.setattr(tr_actions, "_stages", lambda: fake)
    campaign = build_tr_campaign()
    tr_actions.recompute_translation(campaign.campaign)
    yield campaign
    actions.clear_recompute_flag(campaign.campaign.pk)


@pytest.fixture
def cast(built):
    return make_cast(built.campaign)


def get(cast, url: str, role: str = "analyst", status: int = 200):
    response = cast.client(role).get(url)
    assert response.status_code == status, response.content[:500]
    if response["Content-Type"].startswith("application/json"):
        return response.json()
    return response.content.decode()


def kept_texts(built):
    return [
        TranslationKeptSegment.objects.get(segment_id=built.segments[n]).text for n in (1, 2, 3)
    ]


def test_translations_with_flags(cast, built):
    data = get(cast, f"/api/campaigns/{built.campaign.pk}/translation/translations/")
    assert data["count"] == 9
    rows = {(r["worker_external_id"], r["segment_external_id"]): r for r in data["results"]}
    pasted = rows[("t3", "1")]
    assert (pasted["mt_system"], pasted["similar"], pasted["flagged"]) == ("A", True, True)
    assert rows[("t2", "1")]["machine_votes"] == 2 and rows[("t2", "1")]["detected"]
    assert rows[("t1", "1")]["kept"] and rows[("t1", "1")]["bleu"] == pytest.approx(100.0)


def test_translators(cast, built):
    data = get(cast, f"/api/campaigns/{built.campaign.pk}/translation/translators/")
    rows = {r["worker_external_id"]: r for r in data["workers"]}
    assert rows["t3"]["excluded"] and rows["t3"]["flag_rate"] == 1.0
    assert rows["t1"]["bleu"] == pytest.approx(100.0)
    assert rows["v1"]["n_votes"] == 7 and rows["v1"]["n_translations"] == 0


def test_testset_and_systems(cast, built):
    data = get(cast, f"/api/campaigns/{built.campaign.pk}/translation/testset/")
    assert (data["n_segments"], data["n_kept"], data["n_final"]) == (3, 3, 2)
    assert [r["text"] for r in data["results"]] == kept_texts(built)
    assert data["results"][0]["how"] == "consensus"
    systems = get(cast, f"/api/campaigns/{built.campaign.pk}/translation/systems/")
    assert {s["name"] for s in systems["systems"]} == {"A", "B"}
    baseline = systems["baseline"]
    for s in systems["systems"]:
        if s["id"] == baseline:
            assert s["test_sets"]["professional"]["percent_of_baseline"] == pytest.approx(100.0)
    other = next(s["id"] for s in systems["systems"] if s["id"] != baseline)
    again = get(cast, f"/api/campaigns/{built.campaign.pk}/translation/systems/?baseline={other}")
    assert again["baseline"] == other
    for s in again["systems"]:
        if s["id"] == other:
            for test_set in s["test_sets"].values():
                assert test_set["percent_of_baseline"] == pytest.approx(100.0)
        else:
            stored = TranslationSystemScore.objects.get(system_id=s["id"], test_set="professional")
            mine = TranslationSystemScore.objects.get(system_id=other, test_set="professional")
            assert s["test_sets"]["professional"]["percent_of_baseline"] == pytest.approx(
                100 * stored.bleu / mine.bleu
            )


def test_shared_endpoints_carry_translation_fields(cast, built):
    rows = get(cast, f"/api/campaigns/{built.campaign.pk}/systems/")["results"]
    a = next(r for r in rows if r["name"] == "A")
    assert {s["test_set"] for s in a["translation"]} == {"professional", "crowd", "crowd_raw"}
    workers = get(cast, f"/api/campaigns/{built.campaign.pk}/workers/")["results"]
    t3 = next(w for w in workers if w["external_id"] == "t3")
    assert t3["translation"]["flag_rate"] == 1.0 and t3["translation"]["auto_excluded"]
    for fmt in ("csv", "tsv", "tex"):
        text = get(cast, f"/api/campaigns/{built.campaign.pk}/export/systems.{fmt}")
        assert "A" in text and "B" in text


def test_exports_of_the_test_set(cast, built, tmp_path):
    pk = built.campaign.pk
    txt = get(cast, f"/api/campaigns/{pk}/export/testset.txt")
    assert txt.splitlines() == kept_texts(built)
    docids = get(cast, f"/api/campaigns/{pk}/export/testset.docids")
    assert docids.splitlines() == ["D1", "D1", "D2"]
    final = get(cast, f"/api/campaigns/{pk}/export/testset.txt?final_only=1")
    assert final.splitlines() == kept_texts(built)[:2]
    tsv = get(cast, f"/api/campaigns/{pk}/export/testset.tsv")
    rows = list(csv.reader(io.StringIO(tsv), delimiter="\t"))
    assert rows[0] == ["doc_id", "seg_id", "source", "reference", "system", "output"]
    assert rows[1] == ["D1", "1", "Quelle 1", REFERENCES[1], "", ""]
    # The real importer reads it into a new campaign: the kept texts become its references.
    path = tmp_path / "testset.tsv"
    path.write_text(tsv, encoding="utf-8")
    new = CampaignFactory(kind=TaskKind.TRANSLATION)
    summary = run_import(new, "tsv", str(path))
    assert (summary.documents, summary.segments, summary.outputs) == (2, 3, 0)
    imported = Segment.objects.filter(campaign=new).order_by("document__position", "position")
    assert [s.references for s in imported] == [[t] for t in kept_texts(built)]
    assert [s.source for s in imported] == ["Quelle 1", "Quelle 2", "Quelle 3"]
    get(cast, f"/api/campaigns/{pk}/export/testset.txt?nope=1", status=400)


@pytest.mark.parametrize("role", NOT_READERS)
def test_only_readers_of_the_campaign(cast, built, role):
    pk = built.campaign.pk
    for url in (
        f"/api/campaigns/{pk}/translation/translations/",
        f"/api/campaigns/{pk}/translation/systems/",
        f"/api/campaigns/{pk}/export/testset.txt",
    ):
        assert cast.client(role).get(url).status_code == 404


def test_the_results_panel(admin_client, built):
    url = reverse("admin:campaigns_campaign_change", args=[built.campaign.pk])
    response = admin_client.get(url)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="translation-results"' in html
    assert "3 of 3 sentences with a kept translation" in html
    assert 'id="tr-systems"' in html and 'data-worker="t3"' in html
    other = (
        TranslationSystemScore.objects.filter(campaign=built.campaign)
        .exclude(system_id=built.campaign.translation_result.baseline_id)
        .first()
    )
    response = admin_client.get(url + f"?baseline={other.system_id}")
    assert response.status_code == 200
