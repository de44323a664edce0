"""The results panel on a post-editing campaign's admin page: the system table, verification
outcomes, segments, the subsampling table, 003's combinations, worker profiles with their
flags and form, the TER signature; read in a fixed number of queries."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from analytics import actions
from analytics.kinds.post_editing.panel import post_editing_results_context
from analytics.models import PostEditingWorkerStat
from campaigns.models import Campaign, System, TaskKind
from judgments.models import CampaignWorker
from tests.analytics.kinds.direct_assessment.test_admin_panel import tables
from tests.analytics.kinds.post_editing.campaign import build_pe_campaign, edit_hit
from tests.factories import CampaignFactory

pytestmark = pytest.mark.django_db

TERCOM = "nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:2.6.0"


@pytest.fixture
def built():
    campaign = build_pe_campaign()
    actions.recompute_campaign(campaign.campaign)
    yield campaign
    actions.clear_recompute_flag(campaign.campaign.pk)


def change_url(campaign, query=""):
    return reverse("admin:campaigns_campaign_change", args=[campaign.pk]) + query


def workers_url(campaign):
    return reverse("admin:campaigns_campaign_results_workers", args=[campaign.pk])


def page(client, campaign, query=""):
    response = client.get(change_url(campaign, query))
    assert response.status_code == 200
    return response.content.decode(), tables(response)


def test_the_system_table_with_the_hand_worked_hter(admin_client, built):
    html, got = page(admin_client, built.campaign)
    rows = got["pe-systems"]
    assert rows[0] == [
        "Rank", "System", "HTER (corpus)", "95% interval", "HTER (mean)", "95% interval",
        "Cluster", "Outputs", "Against the reference", "Edits", "Passed", "Verified",
    ]  # fmt: skip
    # B first (mean 5/36 < 2/9); tests/analytics/kinds/post_editing/test_actions.py.
    assert [row[:3] for row in rows[1:]] == [["1–2", "B", "0.133"], ["1–2", "A", "0.250"]]
    assert [row[4] for row in rows[1:]] == ["0.139", "0.222"]
    assert [row[6:] for row in rows[1:]] == [
        ["1", "3", "1", "4", "2", "75.0%"],
        ["1", "3", "0", "5", "4", "60.0%"],
    ]
    assert "flagged editors left out" in html
    assert f'<code id="pe-ter-signature">{TERCOM}</code>' in html
    assert "A recompute is pending." not in html


def test_every_editor_on_request(admin_client, built):
    html, got = page(admin_client, built.campaign, "?include_flagged=1")
    assert [row[:3] for row in got["pe-systems"][1:]] == [
        ["1–2", "B", "0.000"],
        ["1–2", "A", "0.133"],
    ]
    assert '<input type="hidden" name="include_flagged" value="1">' in html


def test_progress_and_freshness(admin_client, built):
    html, _ = page(admin_client, built.campaign)
    # 4 edit HITs of 2, 2, 1 and 1 segments, redundancy 2: 12 segment edits, all done.
    assert '<progress id="pe-progress-bar" max="12" value="12">' in html
    assert 'reflects <span class="pe-reflects">24 of 24</span> edits and verification votes' in html
    assert "(12 edits, 12 votes; 21 counted in the default scores)" in html


def test_verification_outcomes_and_segments(admin_client, built):
    html, got = page(admin_client, built.campaign)
    assert (
        'Edits passed: <span class="passed">3</span>; failed: <span class="failed">3</span>; '
        'not verified yet: <span class="unverified">3</span>'
    ) in html
    worst = got["pe-segments-worst"]
    assert worst[1] == ["A", "D1", "1", "0.333", "2", "6", "2", "1", "the best passed edit"]
    assert worst[4] == ["B", "D1", "1", "0.167", "1", "6", "1", "0", "the reference"]
    assert [row[3] for row in got["pe-segments-best"][1:]] == [
        "0.000", "0.000", "0.167", "0.250", "0.333", "0.333",
    ]  # fmt: skip


def test_the_subsampling_table(admin_client, built):
    _, got = page(admin_client, built.campaign)
    assert got["pe-subsampling"] == [
        ["System", "0", "1", "2"],
        ["A", "0.250", "0.250", "0.250"],
        ["B", "0.250", "0.194", "0.133"],
    ]


def test_worker_profiles_show_the_flags(admin_client, built):
    html, got = page(admin_client, built.campaign)
    rows = {row[1].split(" ")[0]: row for row in got["pe-workers"][1:]}
    # Flagged workers first.
    assert got["pe-workers"][1][1].startswith("ed4")
    assert rows["ed4"][2:] == [
        "3", "0", "0.000", "0.333", "100.0%", "0.0%", "did nothing", "0 / 0 / 3", "–", "no", "no",
    ]  # fmt: skip
    assert rows["ed1"][2:] == [
        "3", "0", "0.167", "0.000", "33.3%", "66.7%", "", "1 / 1 / 1", "–", "no", "yes",
    ]  # fmt: skip
    assert rows["v1"][2:4] == ["0", "5"]
    assert '<span class="flag did-nothing">did nothing</span>' in html
    assert "Workers (1 flagged of 7)" in html


def test_combinations_only_with_gold_edits(admin_client, built):
    _, got = page(admin_client, built.campaign)
    assert "pe-combinations" not in got
    gold = build_pe_campaign(gold=True, suffix="-g")
    actions.recompute_campaign(gold.campaign)
    html, got = page(admin_client, gold.campaign)
    assert got["pe-combinations"] == [
        ["Prediction", "Mean HTER", "Spearman's rho", "p"],
        ["Minimum of the editors' edit rates", "0.158", "+0.800", "0.2"],
        ["Median", "0.183", "+0.800", "0.2"],
        ["Mean", "0.183", "+0.800", "0.2"],
        ["Weighted mean (worker weights from the gold edits)", "0.196", "+0.800", "0.2"],
        ["TER of the MT output against the reference (baseline)", "0.250", "+1.000", "0"],
    ]
    assert "Over the 6 outputs with a gold edit (mean gold HTER 0.250)" in html
    rows = {row[1].split(" ")[0]: row for row in got["pe-workers"][1:]}
    assert rows["ed1-g"][10] == "20.00"
    assert "gold editor" in rows["pro-g"][1]
    actions.clear_recompute_flag(gold.campaign.pk)


def test_a_change_of_the_ter_settings_says_the_results_are_recomputed(admin_client, built):
    settings = built.campaign.post_editing_settings
    settings.ter_normalized = True
    settings.save()
    html, _ = page(admin_client, built.campaign)
    new = TERCOM.replace("norm:no", "norm:yes")
    assert (
        '<p class="errornote" id="pe-recomputing">The TER settings changed: the results are '
        f"being recomputed (every edit is scored again with {new}; 0 edits scored so far). "
        f"The figures below are still those of {TERCOM}.</p>"
    ) in html
    actions.recompute_campaign(built.campaign)
    html, _ = page(admin_client, built.campaign)
    assert 'id="pe-recomputing"' not in html
    assert f'<code id="pe-ter-signature">{new}</code>' in html


def test_the_form_excludes_and_readmits_workers(admin_client, built):
    v1 = built.workers["v1"].pk
    response = admin_client.post(
        workers_url(built.campaign), {"action": "exclude", "worker": [v1], "reason": "r"}
    )
    assert response.status_code == 302
    assert response["Location"].endswith("#post-editing-results")
    assert CampaignWorker.objects.get(worker_id=v1).excluded
    assert PostEditingWorkerStat.objects.get(worker_id=v1).excluded
    _, got = page(admin_client, built.campaign)
    # Without v1's votes A is 0.200 (test_actions.py); B stays 0.133.
    assert [row[1:3] for row in got["pe-systems"][1:]] == [["B", "0.133"], ["A", "0.200"]]
    rows = {row[1].split(" ")[0]: row for row in got["pe-workers"][1:]}
    assert rows["v1"][-2:] == ["yes", "no"]
    admin_client.post(workers_url(built.campaign), {"action": "readmit", "worker": [v1]})
    _, got = page(admin_client, built.campaign)
    assert [row[1:3] for row in got["pe-systems"][1:]] == [["B", "0.133"], ["A", "0.250"]]


def test_ranking_actions_are_not_offered(admin_client, built):
    response = admin_client.post(
        workers_url(built.campaign), {"action": "untrust", "worker": [built.workers["ed1"].pk]}
    )
    assert response.status_code == 302
    assert not CampaignWorker.objects.filter(untrusted=True).exists()


def test_a_viewer_may_not_post_the_form(client, built, django_user_model):
    viewer = django_user_model.objects.create_user("viewer", is_staff=True)
    viewer.user_permissions.add(
        Permission.objects.get(content_type__app_label="campaigns", codename="view_campaign")
    )
    built.campaign.accesses.create(user=viewer)
    client.force_login(viewer)
    response = client.post(
        workers_url(built.campaign), {"action": "exclude", "worker": [built.workers["ed1"].pk]}
    )
    assert response.status_code == 403
    assert not CampaignWorker.objects.filter(excluded=True).exists()


def test_texts_are_escaped(admin_client, built):
    System.objects.filter(pk=built.systems["A"]).update(name="<script>alert(1)</script>")
    html, _ = page(admin_client, built.campaign)
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_the_panel_reads_a_fixed_number_of_queries():
    small = build_pe_campaign()
    big = build_pe_campaign(suffix="-big")
    for n in range(5, 9):
        edit_hit(big, f"ed{n}", {("A", 1): "the cat sat on the mat", ("B", 2): "he went"})
    counts = []
    for built in (small, big):
        actions.recompute_campaign(built.campaign)
        campaign = Campaign.objects.get(pk=built.campaign.pk)
        with CaptureQueriesContext(connection) as queries:
            context = post_editing_results_context(campaign, False)
        counts.append((len(queries), len(context["workers"])))
        actions.clear_recompute_flag(campaign.pk)
    # The result, the settings (for the TER signature), the progress (analytics.progress:
    # edit HITs with their slots, live assignments with their edits done), judgments, edits
    # scored, exclusions, worker rows, system rows, system names, segment names.
    assert counts == [(11, 7), (11, 11)]


def test_the_page_runs_the_same_queries_whatever_the_number_of_workers(admin_client):
    counts = []
    for extra in (0, 4):
        built = build_pe_campaign(suffix=f"-{extra}")
        for n in range(5, 5 + extra):
            edit_hit(built, f"ed{n}", {("A", 3): "we like tea"})
        actions.recompute_campaign(built.campaign)
        with CaptureQueriesContext(connection) as queries:
            admin_client.get(change_url(built.campaign))
        counts.append(len(queries))
        actions.clear_recompute_flag(built.campaign.pk)
    assert counts[0] == counts[1]


def test_a_campaign_without_results_says_so(admin_client):
    campaign = CampaignFactory(kind=TaskKind.POST_EDITING)
    html, _ = page(admin_client, campaign)
    assert "No results yet." in html
    assert "0 of 0 segment edits done (0.0%)" in html
    assert "No system scores yet." in html
    assert 'id="ranking-results"' not in html
