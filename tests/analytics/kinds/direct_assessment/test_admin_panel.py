"""The results panel on a direct-assessment campaign's admin page, and the exclusion form."""

from __future__ import annotations

from html.parser import HTMLParser
from types import SimpleNamespace

import numpy as np
import pytest
from django.contrib.admin.sites import site
from django.contrib.auth.models import Permission
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils.text import capfirst

from analytics import actions
from analytics.models import AccessLevel, CampaignAccess, CampaignResult, WorkerStat
from analytics.stats.direct_assessment import DAConfig, analyse_campaign
from campaigns.admin.campaign import CampaignAdmin
from campaigns.models import Campaign, DirectAssessmentSettings, TaskKind
from judgments.models import CampaignWorker, Judgment
from tests.analytics.kinds.direct_assessment.test_actions import CAREFUL, build_small_campaign
from tests.factories import AssignmentFactory, CampaignFactory, WorkerFactory

pytestmark = pytest.mark.django_db


class _Tables(HTMLParser):
    """The text of every cell of the tables with an id, as {id: [[cell, ...], ...]}."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self._table: str | None = None
        self._row: list[str] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table" and attrs.get("id"):
            self._table = attrs["id"]
            self.tables[self._table] = []
        elif tag == "tr" and self._table:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def tables(response) -> dict[str, list[list[str]]]:
    parser = _Tables()
    parser.feed(response.content.decode())
    return parser.tables


@pytest.fixture
def small():
    built = build_small_campaign()
    actions.recompute_campaign(built.campaign)
    yield built
    actions.clear_recompute_flag(built.campaign.pk)


def change_url(campaign, query=""):
    return reverse("admin:campaigns_campaign_change", args=[campaign.pk]) + query


def expected_report(small, include_unreliable):
    return analyse_campaign(
        small.arrays([small.careful, small.random]),
        DAConfig(include_unreliable=include_unreliable),
    )


def system_rows(small, report):
    names = {pk: name for name, pk in small.systems.items()}
    s = report.systems
    rows = []
    for i in range(len(s)):
        best, worst = report.rank_best[i], report.rank_worst[i]
        rows.append(
            [
                str(best) if best == worst else f"{best}–{worst}",
                names[int(s.system[i])],
                f"{s.mean_z[i]:+.3f}",
                f"{s.mean_score[i]:.2f}",
                str(s.n_segments[i]),
                str(s.n[i]),
                str(report.clusters[i]),
            ]
        )
    return rows


def test_the_panel_shows_progress_freshness_and_the_reliable_system_table(admin_client, small):
    response = admin_client.get(change_url(small.campaign))
    assert response.status_code == 200
    html = response.content.decode()

    # 26 slots x redundancy 5 = 130 needed; both assignments are live: 52 done.
    assert '<progress id="da-progress-bar" max="130" value="52">' in html
    assert "52 of 130 judgments (40.0%)" in html
    result = CampaignResult.objects.get(campaign=small.campaign)
    assert f'datetime="{result.computed_at.isoformat()}"' in html
    assert 'reflects <span class="da-reflects">52 of 52</span> judgments' in html
    assert "A recompute is pending" not in html
    assert "Assumption A) for 100% of reliable workers" in html

    got = tables(response)
    assert got["da-systems"][1:] == system_rows(small, expected_report(small, False))
    # Exactly: system A first, WMT's Ave raw of the careful worker's 9 A judgments: the mean
    # of its 6 segment means (segments 4-6 judged twice: output and repeat), 488 / 6.
    assert got["da-systems"][0] == [
        "Rank", "System", "Ave z", "Ave raw", "Segments", "Judgments", "Cluster"
    ]  # fmt: skip
    assert got["da-systems"][1][:2] == ["1", "A"]
    a_segments = CAREFUL[0:3] + [(CAREFUL[3 + i] + CAREFUL[18 + i]) / 2 for i in range(3)]
    assert got["da-systems"][1][3] == f"{np.mean(a_segments):.2f}" == "81.33"
    assert got["da-systems"][1][4:6] == ["6", "9"]
    assert 'href="?include_unreliable=1"' in html
    assert "Systems: reliable workers only" in html


def test_the_worker_table_shows_each_workers_quality_control(admin_client, small):
    response = admin_client.get(change_url(small.campaign))
    qc = {r.worker: r for r in expected_report(small, True).reliability.records()}
    careful, random_ = qc[small.careful.worker_id], qc[small.random.worker_id]

    rows = tables(response)["da-workers"]
    assert rows[0] == [
        "",
        "Worker",
        "Judgments",
        "p-value",
        "Test",
        "Pairs",
        "Seconds per judgment",
        "Reliable",
        "Excluded",
        "Recommendation",
    ]
    # Unreliable workers first.
    assert rows[1:] == [
        [
            "",
            "random (Direct link)",
            "26",
            f"{random_.p_value:.3g}",
            "wilcoxon",
            "6",
            "1.0",
            "no",
            "no",
            "Consider rejecting (clearly not working): too fast: 1.0 s per item on average, "
            "below the floor of 2 s",
        ],
        [
            "",
            "careful (Direct link)",
            "26",
            f"{careful.p_value:.3g}",
            "wilcoxon",
            "6",
            "8.0",
            "yes",
            "no",
            "Approve (reliable)",
        ],
    ]
    assert (rows[1][3], rows[2][3]) == ("0.953", "0.0156")
    assert "Workers (1 of 2 reliable)" in response.content.decode()


def test_the_switch_shows_system_scores_over_all_workers(admin_client, small):
    response = admin_client.get(change_url(small.campaign, "?include_unreliable=1"))
    html = response.content.decode()
    assert tables(response)["da-systems"][1:] == system_rows(small, expected_report(small, True))
    assert "Systems: all workers" in html
    assert '<a class="da-variant-switch" href="?">' in html
    # 36 judgments (both workers' 9 per system) of 12 segments (6 per system).
    assert sum(int(row[5]) for row in tables(response)["da-systems"][1:]) == 36
    assert sum(int(row[4]) for row in tables(response)["da-systems"][1:]) == 12
    # The exclusion form remembers the variant, so the redirect comes back to it.
    assert '<input type="hidden" name="include_unreliable" value="1">' in html


def test_excluding_a_worker_recomputes_and_readmitting_restores(admin_client, small):
    before = tables(admin_client.get(change_url(small.campaign)))["da-systems"]
    url = reverse("admin:campaigns_campaign_results_workers", args=[small.campaign.pk])

    response = admin_client.post(
        url, {"action": "exclude", "worker": [small.careful.worker_id], "reason": "too kind"}
    )
    assert response.status_code == 302
    assert response["Location"] == change_url(small.campaign) + "#da-results"
    membership = CampaignWorker.objects.get(campaign=small.campaign, worker=small.careful.worker)
    assert (membership.excluded, membership.excluded_reason) == (True, "too kind")
    page = admin_client.get(response["Location"])
    html = page.content.decode()
    assert "1 worker(s) excluded from the campaign; the results are recomputed." in html
    assert "No system scores yet (no reliable worker yet)." in html
    careful_row = next(r for r in tables(page)["da-workers"] if r[1].startswith("careful"))
    assert careful_row[7:9] == ["yes", "yes"]  # still reliable, and excluded
    assert Judgment.objects.filter(worker=small.careful.worker).count() == 26  # kept

    admin_client.post(url, {"action": "readmit", "worker": [small.careful.worker_id]})
    page = admin_client.get(change_url(small.campaign))
    assert tables(page)["da-systems"] == before
    assert not CampaignWorker.objects.get(pk=membership.pk).excluded


def test_an_exclusion_made_elsewhere_shows_until_the_results_catch_up(admin_client, small):
    # As the CampaignWorker admin does it: no recompute yet (the sweep will run one).
    CampaignWorker.objects.create(
        campaign=small.campaign, worker=small.random.worker, excluded=True
    )
    page = admin_client.get(change_url(small.campaign))
    random_row = next(r for r in tables(page)["da-workers"] if r[1].startswith("random"))
    assert random_row[8] == "yes (scores not updated yet)"
    assert "A recompute is pending." in page.content.decode()


def test_the_exclusion_form_keeps_the_variant_and_needs_a_ticked_worker(admin_client, small):
    url = reverse("admin:campaigns_campaign_results_workers", args=[small.campaign.pk])
    response = admin_client.post(url, {"action": "exclude", "include_unreliable": "1"})
    assert response["Location"] == change_url(small.campaign, "?include_unreliable=1#da-results")
    assert not CampaignWorker.objects.filter(excluded=True).exists()
    html = admin_client.get(change_url(small.campaign)).content.decode()
    assert "Tick at least one worker first." in html


def test_recompute_now(admin_client, small):
    newcomer = AssignmentFactory(hit=small.slots[0].hit, worker=WorkerFactory())
    Judgment.objects.create(
        campaign=small.campaign,
        worker=newcomer.worker,
        assignment=newcomer,
        slot=small.slots[0],
        score=10.0,
    )
    html = admin_client.get(change_url(small.campaign)).content.decode()
    assert "52 of 53" in html and "A recompute is pending." in html

    url = reverse("admin:campaigns_campaign_results_workers", args=[small.campaign.pk])
    admin_client.post(url, {"action": "recompute"})
    html = admin_client.get(change_url(small.campaign)).content.decode()
    assert "Results recomputed over 53 judgment(s)." in html
    assert "53 of 53" in html


def test_the_results_form_needs_post_and_change_permission(
    client, admin_client, small, django_user_model
):
    url = reverse("admin:campaigns_campaign_results_workers", args=[small.campaign.pk])
    assert admin_client.get(url).status_code == 405

    viewer = django_user_model.objects.create_user("viewer", password="pw-viewer-1", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_campaign"))
    client.force_login(viewer)
    form = {"action": "exclude", "worker": [small.careful.worker_id]}
    # Not shared with them: not found, as if it did not exist (analytics.access).
    assert client.post(url, form).status_code == 404
    CampaignAccess.objects.create(campaign=small.campaign, user=viewer, level=AccessLevel.READ)
    response = client.post(url, form)
    assert response.status_code == 403
    assert not CampaignWorker.objects.filter(excluded=True).exists()


def test_a_campaign_without_results_says_so(admin_client):
    campaign = CampaignFactory()
    html = admin_client.get(change_url(campaign)).content.decode()
    assert "No results yet." in html
    assert "0 of 0 judgments (0.0%)" in html


def test_other_task_kinds_have_no_panel(admin_client):
    campaign = CampaignFactory(kind=TaskKind.RANKING)
    response = admin_client.get(change_url(campaign))
    assert response.status_code == 200
    assert 'id="da-results"' not in response.content.decode()


def test_the_panel_runs_the_same_queries_for_two_or_four_workers(admin_client, small):
    with CaptureQueriesContext(connection) as two:
        admin_client.get(change_url(small.campaign))
    for worker in (WorkerFactory(), WorkerFactory()):
        assignment = AssignmentFactory(hit=small.slots[0].hit, worker=worker)
        Judgment.objects.create(
            campaign=small.campaign,
            worker=worker,
            assignment=assignment,
            slot=small.slots[0],
            score=30.0,
        )
    actions.recompute_campaign(small.campaign)
    assert WorkerStat.objects.filter(campaign=small.campaign).count() == 4
    with CaptureQueriesContext(connection) as four:
        admin_client.get(change_url(small.campaign))
    assert len(four) == len(two)


def test_new_reliability_settings_recompute_after_the_save(
    rf, admin_user, small, django_capture_on_commit_callbacks
):
    DirectAssessmentSettings.objects.filter(pk=small.campaign.pk).update(
        reliability_test="paired_t"
    )
    small.campaign.refresh_from_db()
    request = rf.post("/")
    request.user = admin_user
    # The settings are edited in the kind's settings inline: its formset reports the change.
    form = SimpleNamespace(instance=small.campaign, save_m2m=lambda: None)
    settings_formset = SimpleNamespace(
        model=DirectAssessmentSettings,
        has_changed=lambda: True,
        forms=[SimpleNamespace(changed_data=["reliability_test"])],
        save=lambda: None,
    )
    with django_capture_on_commit_callbacks(execute=True):
        CampaignAdmin(Campaign, site).save_related(request, form, [settings_formset], change=True)
    assert CampaignResult.objects.get(campaign=small.campaign).reliability_test == "paired_t"


# --- The "Build HITs" action -------------------------------------------------------------------


def run_build_hits(admin_client, campaigns):
    return admin_client.post(
        reverse("admin:campaigns_campaign_changelist"),
        {"action": "build_hits", "_selected_action": [c.pk for c in campaigns]},
        follow=True,
    )


def test_the_build_hits_action_reports_the_count_or_why_not(admin_client):
    from tests.integration.test_da_pipeline import build_da_campaign

    ready = build_da_campaign()  # built once already by the helper: rebuilt here
    empty = CampaignFactory(name="nothing imported")
    response = run_build_hits(admin_client, [ready, empty])

    html = response.content.decode()
    # (The admin capitalises the first letter of each message.)
    assert f"{capfirst(str(ready))}: built 2 HIT(s)." in html
    assert (
        "Nothing imported: no HITs built. The campaign has no system outputs yet. "
        "Import segments first."
    ) in html
    assert ready.hits.count() == 2 and empty.hits.count() == 0
    actions.clear_recompute_flag(ready.pk)


@pytest.mark.parametrize("model", ["campaignresult", "workerstat", "systemscore"])
def test_stored_results_are_listed_read_only(admin_client, small, model):
    changelist = admin_client.get(reverse(f"admin:analytics_{model}_changelist"))
    assert changelist.status_code == 200
    assert reverse(f"admin:analytics_{model}_add") not in changelist.content.decode()
    assert admin_client.get(reverse(f"admin:analytics_{model}_add")).status_code == 403


def test_the_count_of_judgments_in_the_analysis_says_what_it_counts(admin_client, small):
    """Session 16's walkthrough read "350 counted in scores" above a systems' table of 160:
    the count is of every judgment standardised (quality-control items and unreliable
    workers' included), so it says so, and that the table counts fewer."""
    result = CampaignResult.objects.get(campaign=small.campaign)
    assert result.n_scored_judgments == 52  # both workers' 26, controls included
    html = admin_client.get(change_url(small.campaign)).content.decode()
    assert (
        "(52 standardised: every judgment of the workers neither rejected nor excluded, "
        "quality-control items included; the systems&#x27; table counts only its systems&#x27; "
        "judgments by reliable workers; test:"
    ) in html
    html = admin_client.get(change_url(small.campaign, "?include_unreliable=1")).content.decode()
    assert "the systems&#x27; table counts only its systems&#x27; judgments; test:" in html
