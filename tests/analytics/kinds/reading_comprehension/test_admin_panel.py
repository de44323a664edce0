"""The results panel on a reading-comprehension campaign's admin page: the articles' stages, the
system table with the human translation as the control, the per-article and per-question
tables with question difficulty, the graders' agreement, the workers with their form; read in
a fixed number of queries. Figures of tests/analytics/kinds/reading_comprehension/campaign.py
(worked by hand in test_actions.py)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from analytics import actions
from analytics.kinds.reading_comprehension.panel import rc_results_context
from analytics.models import ReadingComprehensionWorkerStat
from campaigns.models import Campaign, HitTask, System
from judgments.models import CampaignWorker
from tests.analytics.kinds.direct_assessment.test_admin_panel import tables
from tests.analytics.kinds.reading_comprehension.campaign import build_rc_campaign, new_rc_campaign

pytestmark = pytest.mark.django_db

HUMAN = "Reference (human translation) (control)"


@pytest.fixture
def built():
    campaign = build_rc_campaign()
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


def test_the_system_table_with_the_control(admin_client, built):
    html, got = page(admin_client, built.campaign)
    assert got["rc-systems"] == [
        ["Rank", "System", "% correct", "95% interval", "Question mean", "Correct", "Answers",
         "Ties", "Readings", "Cluster"],
        ["1–3", HUMAN, "75.0%", "50.0–100.0%", "75.0%", "3", "4", "0", "2", "1"],
        ["1–2", "A", "68.8%", "62.5–75.0%", "68.8%", "5.5", "8", "1", "4", "1"],
        ["2–3", "B", "18.8%", "12.5–25.0%", "18.8%", "1.5", "8", "3", "4", "2"],
    ]  # fmt: skip
    assert '<tr class="system reference">' in html
    assert "Systems: every question" in html
    assert "(a tie counts one half)" in html
    assert "20 graded answers to 4 questions" in html
    assert "A recompute is pending." not in html


def test_without_the_suspect_questions_on_request(admin_client, built):
    html, got = page(admin_client, built.campaign, "?without_suspect=1")
    assert [row[1:4] for row in got["rc-systems"][1:]] == [
        [HUMAN, "100.0%", "100.0–100.0%"],
        ["A", "75.0%", "62.5–100.0%"],
        ["B", "25.0%", "12.5–50.0%"],
    ]
    assert '<input type="hidden" name="without_suspect" value="1">' in html
    assert got["rc-article-shares"][2] == ["d2", "100.0% (1/1)", "100.0% (2/2)", "50.0% (1/2)"]


def test_progress_freshness_and_articles(admin_client, built):
    html, got = page(admin_client, built.campaign)
    assert '<progress id="rc-progress-bar" max="2" value="2">' in html
    assert 'reflects <span class="rc-reflects">72 of 72</span> judgments' in html
    assert "(20 answers, 40 grades; 60 counted in the scores)" in html
    assert got["rc-articles"] == [
        ["Article", "Stage", "HITs done", "Places filled", "Questions"],
        ["d1", "Done", "–", "–", "2 kept of 3"],
        ["d2", "Done", "–", "–", "2 kept of 3"],
    ]


def test_articles_in_the_middle_of_their_stages(admin_client):
    built = build_rc_campaign(until="answering")
    actions.recompute_campaign(built.campaign)
    html, got = page(admin_client, built.campaign)
    # Grading HITs built (2 places each), nobody has graded.
    assert got["rc-articles"][1:] == [
        ["d1", "4. Grading answers", "0 of 1", "0 of 2", "2 kept of 3"],
        ["d2", "4. Grading answers", "0 of 1", "0 of 2", "2 kept of 3"],
    ]
    assert "No graded answers yet." in html
    assert "0 of 2 articles through all four stages" in html
    early = new_rc_campaign(suffix="-early")
    html, got = page(admin_client, early.campaign)
    assert got["rc-articles"][1] == ["d1", "1. Writing questions", "0 of 1", "0 of 1", "–"]
    assert "No results yet." in html
    actions.clear_recompute_flag(built.campaign.pk)


def test_the_per_article_table(admin_client, built):
    _, got = page(admin_client, built.campaign)
    assert got["rc-article-shares"] == [
        ["Article", "Reference (human translation)", "A", "B"],
        ["d1", "100.0% (2/2)", "62.5% (2.5/4)", "12.5% (0.5/4)"],
        ["d2", "50.0% (1/2)", "75.0% (3/4)", "25.0% (1/4)"],
    ]


def test_the_questions_with_their_difficulty(admin_client, built):
    html, got = page(admin_client, built.campaign)
    rows = got["rc-questions"]
    assert rows[0] == [
        "Article", "#", "Question", "Sample answer", "Status", "Votes", "Graded answers", "Ties",
        "On the human translation", "On MT", "Suspect", "Reference (human translation)", "A",
        "B",
    ]  # fmt: skip
    assert rows[1] == [
        "d1", "1", "Who was arrested?", "Heather Locklear", "Kept", "1 of 1 good", "5", "1",
        "100.0% (1)", "62.5%", "", "100.0% (1/1)", "100.0% (2/2)", "25.0% (0.5/2)",
    ]  # fmt: skip
    assert rows[3][:7] == [
        "d1", "3", "What colour was the <car>?", "Red", "Dropped: too few good votes",
        "0 of 1 good", "0",
    ]  # fmt: skip
    assert rows[3][11:] == ["–", "–", "–"]
    assert rows[5][4] == "Dropped: repeats a kept question"
    assert rows[6][:11] == [
        "d2", "3", "When does the closure start?", "In May", "Kept", "1 of 1 good", "5", "0",
        "0.0% (1)", "25.0%", "suspect",
    ]  # fmt: skip
    assert "Questions (1 suspect)" in html
    assert "What colour was the &lt;car&gt;?" in html
    assert "A centre for drugs &amp; alcohol" in html


def test_the_graders_agreement(admin_client, built):
    html, _ = page(admin_client, built.campaign)
    assert (
        'Fleiss\' kappa <span class="kappa">0.600</span> over the 20 answers graded by 2 '
        "graders (observed agreement 0.800, by chance 0.500)"
    ) in html
    assert 'Ties (graders split): <span class="ties">4</span>.' in html
    assert "Answers by number of graders: 2: 20." in html


def test_the_workers(admin_client, built):
    _, got = page(admin_client, built.campaign)
    rows = {row[1].split(" ")[0]: row for row in got["rc-workers"][1:]}
    assert rows["r5"][2:] == ["0", "0", "4", "75.0% (3/4)", "0", "–", "no"]
    assert rows["g1"][2:] == ["0", "0", "0", "–", "20", "80.0% (16/20)", "no"]
    assert rows["au-d1"][2:4] == ["3", "0"]
    assert rows["v-d2"][2:4] == ["0", "3"]
    assert len(rows) == 11


def test_the_form_excludes_and_readmits_workers(admin_client, built):
    g2 = built.workers["g2"].pk
    response = admin_client.post(
        workers_url(built.campaign), {"action": "exclude", "worker": [g2], "reason": "careless"}
    )
    assert response.status_code == 302
    assert response["Location"].endswith("#reading-comprehension-results")
    assert CampaignWorker.objects.get(worker_id=g2).excluded
    assert ReadingComprehensionWorkerStat.objects.get(worker_id=g2).excluded
    _, got = page(admin_client, built.campaign)
    # g1's marks alone (test_actions.py): A 6/8, B 2/8, no ties.
    assert [row[1:3] + row[7:8] for row in got["rc-systems"][1:]] == [
        [HUMAN, "75.0%", "0"],
        ["A", "75.0%", "0"],
        ["B", "25.0%", "0"],
    ]
    rows = {row[1].split(" ")[0]: row for row in got["rc-workers"][1:]}
    assert rows["g2"][-1] == "yes"
    response = admin_client.post(
        workers_url(built.campaign), {"action": "readmit", "worker": [g2], "without_suspect": "1"}
    )
    assert response["Location"].endswith("?without_suspect=1#reading-comprehension-results")
    _, got = page(admin_client, built.campaign)
    assert got["rc-systems"][2][2] == "68.8%"


def test_ranking_actions_are_not_offered(admin_client, built):
    response = admin_client.post(
        workers_url(built.campaign), {"action": "untrust", "worker": [built.workers["g1"].pk]}
    )
    assert response.status_code == 302
    assert not CampaignWorker.objects.filter(untrusted=True).exists()


def test_texts_are_escaped(admin_client, built):
    System.objects.filter(pk=built.systems["A"]).update(name="<script>alert(1)</script>")
    html, _ = page(admin_client, built.campaign)
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_the_panel_reads_a_fixed_number_of_queries():
    small = build_rc_campaign()
    big = build_rc_campaign(suffix="-big")
    # A third grader on d1 and d2: more grades, one more worker row.
    for article in ("d1", "d2"):
        hit = big.hit(HitTask.RC_GRADE, article)
        assignment = big.assignment(hit, "g3")
        for slot in hit.slots.order_by("position"):
            big.judge(assignment, slot, yes_no=True)
    counts = []
    for built in (small, big):
        actions.recompute_campaign(built.campaign)
        campaign = Campaign.objects.get(pk=built.campaign.pk)
        with CaptureQueriesContext(connection) as queries:
            context = rc_results_context(campaign, False)
        counts.append((len(queries), len(context["workers"])))
        actions.clear_recompute_flag(campaign.pk)
    # The result, judgments now, articles, HITs done, questions by status, system rows,
    # breakdown rows, question rows, exclusions, worker rows, questions.
    assert counts == [(11, 11), (11, 12)]


def test_a_campaign_without_results_says_so(admin_client):
    built = new_rc_campaign()
    html, _ = page(admin_client, built.campaign)
    assert "No results yet." in html
    assert "0 of 2 articles through all four stages (0.0%)" in html
    assert "No graded answers yet." in html
    assert "No judgments yet." in html
    assert 'id="post-editing-results"' not in html
