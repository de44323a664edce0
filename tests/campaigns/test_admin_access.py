"""The admin shows what the API shows (issue 11, item 4): the campaigns shared with the user
(owned, granted read or change access; every one for a superuser) and the rows linked to them,
with Django's model permissions on top; staff status alone grants nothing.

The API's fixed cast (tests/analytics/api/conftest.py) logs in to the admin; every admin whose
rows belong to a campaign is checked: its changelist holds exactly the rows of the campaigns
the role may read, and the change page of a row of the cast's campaign answers 200 to its
readers and 404 to everyone else (as for a row that does not exist).
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib import admin
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from analytics import actions
from analytics.models import RankingResult, RankingScore, RankingWorkerStat
from campaigns.admin.access import CampaignRowsAdminMixin
from campaigns.models import Campaign, CampaignStatus, GoldAnswer, Output
from campaigns.platforms.models import MTurkHit, PlatformEvent
from judgments.models import Assignment, Bonus, CampaignWorker, Worker
from tests.analytics.api.conftest import Cast, make_cast
from tests.analytics.kinds.direct_assessment.test_actions import build_small_campaign

pytestmark = pytest.mark.django_db

# Who logs in to the admin: staff users of the cast ("staff" is the superuser).
ADMIN_ROLES = ("staff", "owner", "analyst", "other_analyst", "outsider", "staff_only")
APPS = ("campaigns", "judgments", "analytics")

ROW_ADMINS = sorted(
    (
        (model, model_admin)
        for model, model_admin in admin.site._registry.items()
        if isinstance(model_admin, CampaignRowsAdminMixin)
    ),
    key=lambda pair: pair[0]._meta.label,
)


@pytest.fixture
def cast():
    built = build_small_campaign()
    actions.recompute_campaign(built.campaign)
    cast = make_cast(built.campaign)
    # Names that are not part of each other, for the check that hidden names are not shown.
    for campaign, name in ((cast.campaign, "Alpha WMT"), (cast.other_campaign, "Beta WMT")):
        campaign.name = name
        campaign.save(update_fields=["name"])
    # Every view permission of the three apps (change_campaign for the owner too), so that
    # what they see is decided by what is shared with them; staff_only keeps none.
    views = Permission.objects.filter(
        content_type__app_label__in=APPS, codename__startswith="view_"
    )
    for role in ("owner", "analyst", "other_analyst", "outsider"):
        cast.users[role].user_permissions.add(*views)
    yield cast
    actions.clear_recompute_flag(built.campaign.pk)


def login(cast: Cast, role: str) -> Client:
    client = Client()
    client.force_login(cast.users[role])
    return client


def readable(cast: Cast, role: str) -> set[int]:
    return {
        "staff": {cast.campaign.pk, cast.other_campaign.pk},
        "owner": {cast.campaign.pk},
        "analyst": {cast.campaign.pk},
        "other_analyst": {cast.other_campaign.pk},
        "outsider": set(),
        "staff_only": set(),
    }[role]


def rows_of(model, model_admin, campaigns: set[int]) -> set[int]:
    if model is Campaign:
        return set(campaigns)
    if model is Worker:
        return set(
            Worker.objects.filter(assignments__campaign__in=campaigns).values_list("pk", flat=True)
        ) | set(
            Worker.objects.filter(campaigns_joined__campaign__in=campaigns).values_list(
                "pk", flat=True
            )
        )
    path = model_admin.campaign_path
    return set(model.objects.filter(**{f"{path}__in": campaigns}).values_list("pk", flat=True))


def _ranking_result(campaign) -> None:
    RankingResult.objects.create(
        campaign=campaign,
        computed_at=timezone.now(),
        n_judgments=0,
        n_scored_judgments=0,
        n_workers=0,
        n_ballots=0,
        n_sets=0,
        n_gold_units=0,
        gold_scheme="best",
        trust_min_gold=4,
        trust_min_accuracy=Decimal("0.700"),
    )


def _ranking_score(campaign) -> None:
    RankingScore.objects.create(
        campaign=campaign,
        system=campaign.systems.order_by("pk").first(),
        method="win_ratio_geq",
        position=1,
        n=0,
        wins=0,
        ties=0,
        losses=0,
        rank_best=1,
        rank_worst=1,
    )


def _ranking_worker_stat(campaign) -> None:
    RankingWorkerStat.objects.create(
        campaign=campaign,
        worker=_assignment(campaign).worker,
        n_judgments=0,
        n_ballots=0,
        gold_seen=0,
        gold_correct=0,
        status="undecided",
        in_scores=True,
    )


def _assignment(campaign) -> Assignment:
    return Assignment.objects.filter(campaign=campaign).order_by("pk").first()


def _gold_answer(campaign) -> None:
    output = Output.objects.filter(segment__campaign=campaign).order_by("pk").first()
    GoldAnswer.objects.create(segment=output.segment, best_output=output)


def _mturk_hit(campaign) -> None:
    MTurkHit.objects.create(
        hit=campaign.hits.order_by("number").first(),
        mturk_hit_id="3ACCESSHIT",
        hit_type_id="3ACCESSTYPE",
        sandbox=True,
        max_assignments=3,
    )


def _platform_event(campaign) -> None:
    PlatformEvent.objects.create(
        campaign=campaign, kind="info", operation="sync", message="Synced 0 assignments."
    )


def _bonus(campaign) -> None:
    assignment = _assignment(campaign)
    Bonus.objects.create(
        assignment=assignment, worker=assignment.worker, amount=Decimal("0.50"), reason="Thanks"
    )


def _campaign_worker(campaign) -> None:
    CampaignWorker.objects.create(campaign=campaign, worker=_assignment(campaign).worker)


# One row of the cast's campaign, for the admins whose rows its direct-assessment data lacks
# (ranking results, gold answers, platform rows): every admin's change page is checked.
ONE_ROW = {
    "analytics.RankingResult": _ranking_result,
    "analytics.RankingScore": _ranking_score,
    "analytics.RankingWorkerStat": _ranking_worker_stat,
    "campaigns.GoldAnswer": _gold_answer,
    "campaigns.MTurkHit": _mturk_hit,
    "campaigns.PlatformEvent": _platform_event,
    "judgments.Bonus": _bonus,
    "judgments.CampaignWorker": _campaign_worker,
}


def changelist(model) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")


def change_page(model, pk: int) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_change", args=[pk])


@pytest.mark.parametrize(
    "model,model_admin", ROW_ADMINS, ids=[model._meta.label for model, _ in ROW_ADMINS]
)
def test_every_changelist_holds_exactly_the_rows_a_role_may_read(cast, model, model_admin):
    for role in ADMIN_ROLES:
        response = login(cast, role).get(changelist(model))
        if role == "staff_only":
            assert response.status_code == 403, role
            continue
        assert response.status_code == 200, role
        shown = set(response.context["cl"].queryset.values_list("pk", flat=True))
        assert shown == rows_of(model, model_admin, readable(cast, role)), role
        if role != "staff":  # no filter or cell names a campaign the role may not read
            hidden = Campaign.objects.exclude(pk__in=readable(cast, role))
            html = response.content.decode()
            assert not [c.name for c in hidden if c.name in html], role


@pytest.mark.parametrize(
    "model,model_admin", ROW_ADMINS, ids=[model._meta.label for model, _ in ROW_ADMINS]
)
def test_a_row_of_a_campaign_you_may_not_read_answers_as_one_that_does_not_exist(
    cast, model, model_admin
):
    rows = rows_of(model, model_admin, {cast.campaign.pk})
    if not rows:  # the cast's DA campaign has none of these of its own: one is made here
        ONE_ROW[model._meta.label](cast.campaign)
        rows = rows_of(model, model_admin, {cast.campaign.pk})
    pk = min(rows)
    if model is Worker:  # a worker of the cast's campaign only
        pk = min(rows - rows_of(model, model_admin, {cast.other_campaign.pk}))
    missing = model.objects.order_by("-pk").first().pk + 1000
    for role in ADMIN_ROLES:
        client = login(cast, role)
        status = client.get(change_page(model, pk)).status_code
        if role in ("staff", "owner", "analyst"):
            assert status == 200, role
        else:
            assert status == 404, role
            assert client.get(change_page(model, missing)).status_code == 404, role


def test_staff_status_alone_opens_nothing(cast):
    """The attack: a staff user with no permission read and changed every campaign through
    the API; in the admin every page answers 403, and now the API agrees."""
    client = login(cast, "staff_only")
    assert client.get(changelist(Campaign)).status_code == 403
    assert client.get(change_page(Campaign, cast.campaign.pk)).status_code == 404
    api = cast.client("staff_only")
    assert api.get("/api/campaigns/").json()["count"] == 0
    assert api.get("/api/judgments/").json()["count"] == 0
    assert api.get(f"/api/campaigns/{cast.campaign.pk}/export/judgments.csv").status_code == 404


def test_the_api_and_the_admin_list_the_same_campaigns(cast):
    for role in ADMIN_ROLES:
        if role == "staff_only":
            continue
        admin_rows = set(
            login(cast, role)
            .get(changelist(Campaign))
            .context["cl"]
            .queryset.values_list("pk", flat=True)
        )
        api_rows = {row["id"] for row in cast.client(role).get("/api/campaigns/").json()["results"]}
        assert admin_rows == api_rows == readable(cast, role), role


def test_a_read_grant_gives_the_read_only_page_and_a_change_grant_the_form(cast):
    change = Permission.objects.get(codename="change_campaign")
    cast.users["analyst"].user_permissions.add(change)
    client = login(cast, "analyst")
    url = change_page(Campaign, cast.campaign.pk)
    page = client.get(url)
    assert (page.status_code, page.context["has_change_permission"]) == (200, False)
    assert client.post(url, {"name": "taken over"}).status_code == 403
    grant = cast.campaign.accesses.get(user=cast.users["analyst"])
    grant.level = "change"
    grant.save()
    page = client.get(url)
    assert (page.status_code, page.context["has_change_permission"]) == (200, True)
    # Only the owner and superusers manage who else has access.
    assert not any(
        formset.formset.prefix == "accesses" and formset.has_add_permission
        for formset in page.context["inline_admin_formsets"]
    )
    assert Campaign.objects.get(pk=cast.campaign.pk).name == cast.campaign.name


def test_actions_run_on_the_campaigns_you_may_change_only(cast):
    """A collaborator with read access and change_campaign cannot pause the campaign (nor
    review its assignments) from a changelist action."""
    cast.users["analyst"].user_permissions.add(
        *Permission.objects.filter(codename__in=["change_campaign", "change_assignment"])
    )
    Campaign.objects.filter(pk=cast.campaign.pk).update(status=CampaignStatus.ACTIVE)
    client = login(cast, "analyst")
    client.post(
        changelist(Campaign), {"action": "pause", "_selected_action": [str(cast.campaign.pk)]}
    )
    assert Campaign.objects.get(pk=cast.campaign.pk).status == CampaignStatus.ACTIVE
    submitted = Assignment.objects.filter(campaign=cast.campaign).order_by("pk").first()
    statuses = dict(Assignment.objects.values_list("pk", "status"))
    client.post(
        changelist(Assignment),
        {"action": "reject_selected", "_selected_action": [str(submitted.pk)], "apply": "1"},
    )
    assert dict(Assignment.objects.values_list("pk", "status")) == statuses
    # The owner may.
    login(cast, "owner").post(
        changelist(Campaign), {"action": "pause", "_selected_action": [str(cast.campaign.pk)]}
    )
    assert Campaign.objects.get(pk=cast.campaign.pk).status == CampaignStatus.PAUSED


def test_a_campaign_created_in_the_admin_is_its_creators(cast):
    owner = cast.users["owner"]
    owner.user_permissions.add(Permission.objects.get(codename="add_campaign"))
    from campaigns.admin.campaign import CampaignAdmin

    request = type("R", (), {"user": owner})()
    campaign = Campaign(name="new", kind=cast.campaign.kind)
    CampaignAdmin(Campaign, admin.site).save_model(
        request, campaign, type("F", (), {"changed_data": []})(), False
    )
    assert Campaign.objects.get(name="new").owner == owner
