"""The results panel on a ranking campaign's admin page: status reason, progress, the method
tables, agreement, the trust table and its form, and the reference inline."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.contrib.auth.models import Permission
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from analytics import actions
from analytics.kinds.ranking.panel import _agreement_rows
from analytics.models import (
    AccessLevel,
    CampaignAccess,
    RankingReference,
    RankingResult,
    RankingScore,
    RankingWorkerStat,
)
from campaigns.models import Campaign, CampaignStatus, System, TaskKind
from judgments.models import CampaignWorker, Judgment
from tests.analytics.kinds.direct_assessment.test_admin_panel import tables
from tests.analytics.kinds.ranking.test_loading import build_ranking_campaign
from tests.factories import CampaignFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def ranking():
    built = build_ranking_campaign(
        takedown_untrusted_share=Decimal("0.300"), takedown_min_workers=3
    )
    actions.recompute_campaign(built.campaign)
    yield built
    actions.clear_recompute_flag(built.campaign.pk)


def change_url(campaign, query=""):
    return reverse("admin:campaigns_campaign_change", args=[campaign.pk]) + query


def workers_url(campaign):
    return reverse("admin:campaigns_campaign_results_workers", args=[campaign.pk])


def test_an_automatic_pause_is_shown_first_with_its_reason(admin_client, ranking):
    html = admin_client.get(change_url(ranking.campaign)).content.decode()
    assert (
        '<p class="errornote" id="ranking-status-reason">Paused automatically: 1 of 3 workers '
        "(33%) failed the gold units (threshold 30%). Review the trust table, then "
        "reactivate.</p>"
    ) in html
    assert html.index('id="ranking-status-reason"') < html.index('id="ranking-progress-bar"')


def test_progress_counts_ranking_sets_of_live_assignments(admin_client, ranking):
    html = admin_client.get(change_url(ranking.campaign)).content.decode()
    # 6 regular sets x redundancy 4 = 24 needed; careful, ties and reversed ranked 6 each,
    # excluded 3 (its assignment is live), rejected 3 (its place is open again): 21 done.
    assert '<progress id="ranking-progress-bar" max="24" value="21">' in html
    assert "21 of 24 ranking sets judged (87.5%)" in html
    result = RankingResult.objects.get(campaign=ranking.campaign)
    assert 'reflects <span class="ranking-reflects">75 of 75</span> ranked outputs' in html
    assert f'datetime="{result.computed_at.isoformat()}"' in html
    assert "36 counted in the trusted scores; 24 rankings of 6 sets, 8 of them gold" in html
    assert "A recompute is pending." not in html


def test_one_table_per_method_with_the_stored_figures(admin_client, ranking):
    got = tables(admin_client.get(change_url(ranking.campaign)))
    header = [
        "Rank", "System", "Win ratio", "95% interval", "Cluster", "Comparisons", "Wins",
        "Ties", "Losses",
    ]  # fmt: skip
    geq = got["ranking-scores-win_ratio_geq"]
    assert geq[0] == header
    stored = {
        row.system.name: row
        for row in RankingScore.objects.filter(
            campaign=ranking.campaign, method="win_ratio_geq", include_untrusted=False
        ).select_related("system")
    }
    assert [row[1] for row in geq[1:]] == ["A", "B", "C"]
    for rank, system, score, interval, cluster, n, wins, ties, losses in geq[1:]:
        want = stored[system]
        assert rank == want.rank_range
        assert score == f"{want.score:.3f}"
        # Bootstrapped like Expected Wins (one shared draw): the stored interval and cluster.
        assert (interval, cluster) == (
            f"{want.ci_low:.3f} to {want.ci_high:.3f}",
            str(want.cluster),
        )
        assert (n, wins, ties, losses) == tuple(
            str(v) for v in (want.n, want.wins, want.ties, want.losses)
        )
    # The hand-worked figures (tests/analytics/test_ranking_actions.py).
    assert [row[2] for row in geq[1:]] == ["1.000", "0.778", "0.050"]
    assert [row[5:] for row in geq[1:]] == [
        ["18", "14", "4", "0"],
        ["18", "9", "5", "4"],
        ["20", "0", "1", "19"],
    ]
    assert [row[2] for row in got["ranking-scores-win_ratio_gt"][1:]] == ["0.778", "0.500", "0.000"]
    assert [row[2] for row in got["ranking-scores-expected_wins"][1:]] == [
        "1.000",
        "0.500",
        "0.000",
    ]
    assert got["ranking-scores-bradley_terry"][0][2:4] == ["θ", "95% interval"]
    bt = {
        row.system.name: row
        for row in RankingScore.objects.filter(
            campaign=ranking.campaign, method="bradley_terry", include_untrusted=False
        ).select_related("system")
    }
    for row in got["ranking-scores-bradley_terry"][1:]:
        want = bt[row[1]]
        assert row[0] == want.rank_range
        assert row[2:5] == [
            f"{want.score:+.3f}",
            f"{want.ci_low:+.3f} to {want.ci_high:+.3f}",
            str(want.cluster),
        ]
    trueskill = got["ranking-scores-trueskill"]
    assert trueskill[0][2:4] == ["μ", "σ"]
    ts = {
        row.system.name: row
        for row in RankingScore.objects.filter(
            campaign=ranking.campaign, method="trueskill", include_untrusted=False
        ).select_related("system")
    }
    for row in trueskill[1:]:
        assert row[2:5] == [f"{ts[row[1]].score:+.3f}", f"σ {ts[row[1]].sigma:.3f}", "–"]


def test_the_agreement_figures_worked_by_hand(admin_client, ranking):
    rows = tables(admin_client.get(change_url(ranking.campaign)))["ranking-agreement"]
    assert rows[0] == ["Measure", "Compared", "Agreement", "Chance", "Kappa"]
    # Trusted workers: careful and ties. Each repeats segment 2's set and the pair (gold, C)
    # of segment 3, always the same way: 4 + 4 pairs of labels, all agreeing.
    assert rows[1] == [
        "Intra-annotator (a worker's repeated sets)", "8", "100.0%", "33.3%", "1.000"
    ]  # fmt: skip
    # 14 pairs of outputs ranked by both (3 in each of segments 1, 2, 4; 5 in segment 3, the
    # earliest label per worker): they differ on A-B in segments 1, 2, 4 and on B-C in
    # segment 3's second gold set. 10 of 14; kappa (10/14 - 1/3) / (2/3).
    assert rows[2] == [
        "Inter-annotator (pairs of workers on the same pair)", "14", "71.4%", "33.3%", "0.571"
    ]  # fmt: skip
    # Fleiss: the same 14 items; chance from the labels' shares, 4 ties and 24 "better" of
    # 28: (1/7)^2 + (6/7)^2 = 37/49; kappa (35/49 - 37/49) / (12/49) = -1/6.
    assert rows[3] == [
        "Fleiss' kappa (pairs judged by two or more workers)", "14", "71.4%", "75.5%", "-0.167"
    ]  # fmt: skip
    assert len(rows) == 4  # no oracle given


def test_the_trust_table(admin_client, ranking):
    rows = tables(admin_client.get(change_url(ranking.campaign)))["ranking-trust"]
    assert rows[0] == [
        "", "Worker", "Sets ranked", "Gold seen", "Correct", "Accuracy", "Trust", "Blocked",
        "Excluded", "In scores",
    ]  # fmt: skip
    # Untrusted first, then undecided, then trusted.
    assert rows[1:] == [
        ["", "reversed (Direct link)", "6", "2", "0", "0.0%", "untrusted", "yes", "no", "no"],
        ["", "excluded (Direct link)", "3", "1", "1", "100.0%", "undecided", "no", "yes", "no"],
        [
            "", "rejected (Direct link)", "3", "1", "1", "100.0%", "undecided", "no",
            "no (9 in rejected assignments)", "yes",
        ],
        ["", "careful (Direct link)", "6", "2", "2", "100.0%", "trusted", "no", "no", "yes"],
        ["", "ties (Direct link)", "6", "2", "2", "100.0%", "trusted", "no", "no", "yes"],
    ]  # fmt: skip
    html = admin_client.get(change_url(ranking.campaign)).content.decode()
    assert "Trust (2 trusted, 1 untrusted, 2 undecided of 5 workers)" in html
    assert "decided after 2 and trusted with at least 70% right" in html


def test_the_switch_shows_every_workers_scores(admin_client, ranking):
    response = admin_client.get(change_url(ranking.campaign, "?include_untrusted=1"))
    html = response.content.decode()
    assert "Systems: all workers" in html
    assert '<a class="ranking-variant-switch" href="?">' in html
    geq = tables(response)["ranking-scores-win_ratio_geq"]
    # reversed's 18 comparisons per pair of sets join: C now wins some.
    assert sum(int(row[5]) for row in geq[1:]) == 2 * 42
    assert '<input type="hidden" name="include_untrusted" value="1">' in html


def test_trusting_a_worker_again_from_the_panel(admin_client, ranking):
    reversed_id = ranking.workers["reversed"]
    response = admin_client.post(
        workers_url(ranking.campaign), {"action": "trust", "worker": [reversed_id]}
    )
    assert response["Location"] == change_url(ranking.campaign) + "#ranking-results"
    assert not CampaignWorker.objects.get(worker_id=reversed_id).untrusted
    page = admin_client.get(response["Location"])
    assert "1 worker(s) trusted again in the campaign; the results are recomputed." in (
        page.content.decode()
    )
    row = next(r for r in tables(page)["ranking-trust"] if r[1].startswith("reversed"))
    assert row[6:] == ["untrusted, trusted again by hand", "no", "no", "yes"]


def test_marking_a_worker_untrusted_from_the_panel(admin_client, ranking):
    careful = ranking.workers["careful"]
    admin_client.post(
        workers_url(ranking.campaign),
        {"action": "untrust", "worker": [careful], "include_untrusted": "1"},
    )
    membership = CampaignWorker.objects.get(worker_id=careful)
    assert membership.untrusted
    assert membership.untrusted_reason == "Marked untrusted by admin from the results panel."
    assert RankingWorkerStat.objects.get(worker_id=careful).in_scores is False


def test_excluding_from_the_ranking_panel(admin_client, ranking):
    ties = ranking.workers["ties"]
    admin_client.post(
        workers_url(ranking.campaign), {"action": "exclude", "worker": [ties], "reason": "x"}
    )
    assert CampaignWorker.objects.get(worker_id=ties).excluded
    assert RankingWorkerStat.objects.get(worker_id=ties).excluded


def test_a_flag_set_elsewhere_shows_until_the_results_catch_up(admin_client, ranking):
    CampaignWorker.objects.filter(worker_id=ranking.workers["reversed"]).update(untrusted=False)
    page = admin_client.get(change_url(ranking.campaign))
    row = next(r for r in tables(page)["ranking-trust"] if r[1].startswith("reversed"))
    assert row[7] == "no (scores not updated yet)"
    assert "A recompute is pending." in page.content.decode()


def test_the_form_needs_change_permission(client, ranking, django_user_model):
    viewer = django_user_model.objects.create_user("viewer", password="pw-viewer-1", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_campaign"))
    client.force_login(viewer)
    form = {"action": "trust", "worker": [ranking.workers["reversed"]]}
    # Not shared with them: not found, as if it did not exist (analytics.access).
    assert client.post(workers_url(ranking.campaign), form).status_code == 404
    CampaignAccess.objects.create(campaign=ranking.campaign, user=viewer, level=AccessLevel.READ)
    response = client.post(workers_url(ranking.campaign), form)
    assert response.status_code == 403
    assert CampaignWorker.objects.get(worker_id=ranking.workers["reversed"]).untrusted


def test_the_panel_runs_the_same_queries_whatever_the_number_of_workers(admin_client):
    small = build_ranking_campaign(suffix="-small")
    Judgment.objects.filter(campaign=small.campaign, worker_id=small.workers["ties"]).delete()
    actions.recompute_campaign(small.campaign)
    big = build_ranking_campaign(suffix="-big")
    actions.recompute_campaign(big.campaign)
    counts = []
    for built in (small, big):
        with CaptureQueriesContext(connection) as queries:
            admin_client.get(change_url(built.campaign))
        counts.append(len(queries))
        actions.clear_recompute_flag(built.campaign.pk)
    assert counts[0] == counts[1]


def test_a_ranking_campaign_without_results_says_so(admin_client):
    campaign = CampaignFactory(kind=TaskKind.RANKING)
    html = admin_client.get(change_url(campaign)).content.decode()
    assert "No results yet." in html
    assert "0 of 0 ranking sets judged (0.0%)" in html
    assert "No system scores yet (no trusted ranking yet)." in html
    assert 'id="da-results"' not in html


# --- References ------------------------------------------------------------------------------


def inline_post(campaign, reference_ranking="", oracle=""):
    """The change form as the browser posts it, with the reference inline filled in."""
    data = {
        field: getattr(campaign, field)
        for field in (
            "name", "status", "status_reason", "source_language", "target_language",
            "instructions", "instructions_language", "redundancy", "hit_seed",
            "qualification_pass_mark", "reward", "title", "description", "keywords",
            "assignment_duration_seconds", "hit_lifetime_seconds",
            "auto_approval_delay_seconds", "mturk_qualification_type_id",
            "mturk_qualification_test_places", "prolific_completion_code", "prolific_failed_code",
        )
    }  # fmt: skip
    data["mturk_locales"] = ", ".join(campaign.mturk_locales)
    data["mturk_min_approval_rate"] = data["mturk_min_approved_hits"] = ""
    # Ticked checkboxes are posted as "on"; unticked ones are left out.
    data.update({flag: "on" for flag in ("mturk_sandbox",) if getattr(campaign, flag)})
    data["owner"] = ""
    # The kind's settings, in their inline (campaigns/kinds/ranking/kind.py).
    settings = campaign.ranking_settings
    data.update(
        {
            f"ranking_settings-0-{field}": getattr(settings, field)
            for field in (
                "outputs_per_set",
                "sets_per_hit",
                "gold_rate",
                "gold_scheme",
                "ranking_combination",
                "trust_min_gold",
                "trust_min_accuracy",
                "takedown_min_workers",
                "qualification_sets",
                "gold_count",
                "rank_by",
                "reference_system",
            )
        }  # fmt: skip
    )
    if settings.exclude_reference:  # a ticked checkbox
        data["ranking_settings-0-exclude_reference"] = "on"
    data["ranking_settings-0-takedown_untrusted_share"] = settings.takedown_untrusted_share or ""
    data["ranking_settings-0-gold_best_system"] = ""
    data["ranking_settings-0-gold_worst_system"] = ""
    data["ranking_settings-0-campaign"] = str(campaign.pk)
    data.update(
        {
            "ranking_settings-TOTAL_FORMS": "1",
            "ranking_settings-INITIAL_FORMS": "1",
            "ranking_settings-MIN_NUM_FORMS": "1",
            "ranking_settings-MAX_NUM_FORMS": "1",
        }
    )
    systems = list(campaign.systems.order_by("pk"))
    data.update(
        {
            "systems-TOTAL_FORMS": str(len(systems)),
            "systems-INITIAL_FORMS": str(len(systems)),
            "systems-MIN_NUM_FORMS": "0",
            "systems-MAX_NUM_FORMS": "1000",
            "accesses-TOTAL_FORMS": "0",
            "accesses-INITIAL_FORMS": "0",
            "accesses-MIN_NUM_FORMS": "0",
            "accesses-MAX_NUM_FORMS": "1000",
            "ranking_reference-TOTAL_FORMS": "1",
            "ranking_reference-INITIAL_FORMS": "0",
            "ranking_reference-MIN_NUM_FORMS": "0",
            "ranking_reference-MAX_NUM_FORMS": "1",
            "ranking_reference-0-reference_ranking": reference_ranking,
            "ranking_reference-0-oracle": oracle,
            "ranking_reference-0-campaign": str(campaign.pk),
        }
    )
    for i, system in enumerate(systems):
        data.update(
            {
                f"systems-{i}-id": str(system.pk),
                f"systems-{i}-campaign": str(campaign.pk),
                f"systems-{i}-name": system.name,
            }
        )
    return data


def test_the_reference_inline_validates_names_with_a_clear_error(admin_client, ranking):
    campaign = Campaign.objects.get(pk=ranking.campaign.pk)
    response = admin_client.post(
        change_url(campaign), inline_post(campaign, "A\nD = B", "A > Z\nC > A")
    )
    assert response.status_code == 200  # the form again, with the errors
    html = response.content.decode()
    assert (
        "Line 2: there is no system named &#x27;D&#x27; in this campaign. The campaign&#x27;s "
        "systems are: A, B, C."
    ) in html
    assert "Line 1: there is no system named &#x27;Z&#x27; in this campaign." in html
    assert not RankingReference.objects.exists()


def test_saving_references_recomputes_with_spearman(
    admin_client, ranking, django_capture_on_commit_callbacks
):
    campaign = Campaign.objects.get(pk=ranking.campaign.pk)
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(
            change_url(campaign), inline_post(campaign, "A\nB\nC", "A > B > C")
        )
    assert response.status_code == 302
    reference = RankingReference.objects.get(campaign=campaign)
    assert (reference.reference_ranking, reference.oracle) == ("A\nB\nC", "A > B > C")
    page = admin_client.get(change_url(campaign))
    html = page.content.decode()
    assert (
        """<p class="spearman" id="ranking-spearman-win_ratio_geq">Spearman's rho against the """
        "reference ranking: +1.000 (p = 0, 3 systems)</p>"
    ) in html
    assert tables(page)["ranking-agreement"][4][0] == "Against the oracle's declared orders"
    assert "reference ranking given; oracle given" in html


def test_reactivating_in_the_form_clears_the_reason_of_the_pause(admin_client, ranking):
    campaign = Campaign.objects.get(pk=ranking.campaign.pk)
    assert campaign.status == CampaignStatus.PAUSED
    data = inline_post(campaign)
    data["status"] = CampaignStatus.ACTIVE
    data["ranking_reference-TOTAL_FORMS"] = "0"
    response = admin_client.post(change_url(campaign), data)
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert (campaign.status, campaign.status_reason) == (CampaignStatus.ACTIVE, "")


@pytest.mark.parametrize("model", ["rankingresult", "rankingworkerstat", "rankingscore"])
def test_stored_ranking_results_are_listed_read_only(admin_client, ranking, model):
    changelist = admin_client.get(reverse(f"admin:analytics_{model}_changelist"))
    assert changelist.status_code == 200
    assert admin_client.get(reverse(f"admin:analytics_{model}_add")).status_code == 403


def test_the_gold_system_choices_are_the_campaigns_own(admin_client, ranking):
    # Chosen before the HITs are built (the gold units are built into them): a campaign with
    # systems and no HITs yet, beside another campaign's systems.
    campaign = CampaignFactory(kind=TaskKind.RANKING)
    own = [System.objects.create(campaign=campaign, name=name).pk for name in ("A", "B", "C")]
    html = admin_client.get(change_url(campaign)).content.decode()
    select = html[html.index('name="ranking_settings-0-gold_best_system"') :]
    select = select[: select.index("</select>")]
    for pk in own:
        assert f'value="{pk}"' in select
    for pk in ranking.systems.values():
        assert f'value="{pk}"' not in select
    # With HITs, the choice is fixed: shown, not offered.
    html = admin_client.get(change_url(ranking.campaign)).content.decode()
    assert 'name="ranking_settings-0-gold_best_system"' not in html


def test_gold_answers_are_listed_in_the_admin(admin_client, ranking):
    response = admin_client.get(reverse("admin:campaigns_goldanswer_changelist"))
    assert response.status_code == 200


def test_an_agreement_row_without_compared_pairs_shows_no_chance_figure():
    """The walkthrough saw "chance 33.3%" beside 0 compared pairs, no agreement and no kappa:
    P(E) comes from every judgment's labels, so it exists without a pair, but alone it reads
    as a finding."""
    rows = _agreement_rows(
        {
            "agreement": {
                "intra": {"n": 0, "pr_a": None, "pr_e": 1 / 3, "kappa": None},
                "inter": {"n": 12, "pr_a": 0.5, "pr_e": 1 / 3, "kappa": 0.25},
            }
        }
    )
    assert [
        (row["key"], row["n"], row["agreement"], row["chance"], row["kappa"]) for row in rows
    ] == [
        ("intra", 0, "–", "–", "–"),
        ("inter", 12, "50.0%", "33.3%", "0.250"),
    ]


def test_the_reference_inline_is_headed_once_and_a_saved_one_can_be_deleted(admin_client, ranking):
    """Session 16's walkthrough: the inline read "Reference ranking and oracle: #1" under its
    own heading. One heading now; a saved row keeps its Delete box (the one-row template
    shows it where the inline may delete)."""
    campaign = Campaign.objects.get(pk=ranking.campaign.pk)
    heading = "Reference ranking and oracle (for Spearman&#x27;s rho and oracle agreement)"
    html = admin_client.get(change_url(campaign)).content.decode()
    group = html[html.index('id="ranking_reference-group"') :]
    group = group[: group.index("</fieldset>")]
    assert re.findall(r"<h[234][^>]*>\s*(.*?)\s*</h[234]>", group, re.S) == [heading]
    assert "#1" not in group
    assert 'name="ranking_reference-0-DELETE"' not in group  # nothing saved to delete yet

    RankingReference.objects.create(campaign=campaign, reference_ranking="A\nB\nC")
    html = admin_client.get(change_url(campaign)).content.decode()
    assert 'name="ranking_reference-0-DELETE"' in html
    data = inline_post(campaign, "A\nB\nC")
    data.update(
        {
            "ranking_reference-INITIAL_FORMS": "1",
            "ranking_reference-0-DELETE": "on",
        }
    )
    response = admin_client.post(change_url(campaign), data)
    assert response.status_code == 302
    assert not RankingReference.objects.filter(campaign=campaign).exists()
