"""Every kind's results panel names a direct link's worker by the label the requester gave the
link (session 16's requester walkthrough: the panels said only "anon-0fb7… (Direct link)", so
the worker to exclude could not be found), escaped like every other text of the page."""

from __future__ import annotations

import pytest
from django.urls import reverse

from analytics import actions
from analytics.kinds.translation import actions as tr_actions
from judgments.models import Worker
from tests.analytics.kinds.direct_assessment.test_actions import build_small_campaign
from tests.analytics.kinds.direct_assessment.test_admin_panel import tables
from tests.analytics.kinds.post_editing.campaign import build_pe_campaign
from tests.analytics.kinds.ranking.test_loading import build_ranking_campaign
from tests.analytics.kinds.reading_comprehension.campaign import build_rc_campaign
from tests.analytics.kinds.translation.campaign import build_tr_campaign
from tests.analytics.kinds.translation.test_actions import FakeStages

pytestmark = pytest.mark.django_db

LABEL = "Gina <lab 2> & co"
ESCAPED = "Gina &lt;lab 2&gt; &amp; co"


def _recompute(built) -> None:
    actions.recompute_campaign(built.campaign)
    actions.clear_recompute_flag(built.campaign.pk)


# The kind's campaign builder, its worker table's id, the external id of the worker labelled.
KINDS = {
    "direct_assessment": (build_small_campaign, "da-workers", "careful"),
    "ranking": (build_ranking_campaign, "ranking-trust", "careful"),
    "post_editing": (build_pe_campaign, "pe-workers", "ed1"),
    "reading_comprehension": (build_rc_campaign, "rc-workers", "g1"),
    "translation": (build_tr_campaign, "tr-workers", None),
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_the_worker_table_shows_the_links_label(admin_client, monkeypatch, kind):
    build, table, external_id = KINDS[kind]
    if kind == "translation":
        # The later stages' HITs are not what this test is about (as in its own tests).
        monkeypatch.setattr(tr_actions, "_stages", FakeStages)
    built = build()
    labelled = (
        Worker.objects.get(external_id=external_id)
        if external_id
        else Worker.objects.filter(assignments__campaign=built.campaign).order_by("pk").first()
    )
    labelled.label = LABEL
    labelled.save(update_fields=["label"])
    _recompute(built)

    response = admin_client.get(
        reverse("admin:campaigns_campaign_change", args=[built.campaign.pk])
    )
    assert response.status_code == 200
    cells = [row[1] for row in tables(response)[table][1:]]
    assert f"{LABEL} {labelled.external_id} (Direct link)" in cells
    # Only the labelled worker has a label; the others keep their id alone.
    assert sum(cell.startswith(LABEL) for cell in cells) == 1
    html = response.content.decode()
    assert f'<span class="worker-label">{ESCAPED}</span>' in html
    assert f'aria-label="Select {ESCAPED}"' in html
    assert LABEL not in html
