"""The campaign page's checklist (issue 17 item 1): each step's state, why a blocked step is
blocked and what to do, and the buttons that run the campaign list's own actions."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from campaigns.checklist import campaign_checklist
from campaigns.kinds import new_campaign
from campaigns.links import open_link_url
from campaigns.models import Campaign, CampaignStatus, GoldAnswer, TaskKind
from judgments.models import Platform
from tests.campaigns.test_actions import da_campaign, ranking_campaign
from tests.factories import AssignmentFactory, CampaignFactory, WorkerFactory

pytestmark = pytest.mark.django_db


def states(campaign, **permissions) -> dict[str, tuple[str, str, str, list[str]]]:
    """step key -> (state, summary, todo, button labels)."""
    allowed = {"can_change": True, "can_publish_mturk": True, **permissions}
    return {
        step.key: (step.state, step.summary, step.todo, [b.label for b in step.buttons])
        for step in campaign_checklist(campaign, **allowed).steps
    }


@pytest.fixture
def superuser(django_user_model):
    return django_user_model.objects.create_superuser("boss", "boss@example.org", "pw")


@pytest.fixture
def client_of(superuser):
    client = Client()
    client.force_login(superuser)
    return client


def change_url(campaign) -> str:
    return reverse("admin:campaigns_campaign_change", args=[campaign.pk])


def step_url(campaign) -> str:
    return reverse("admin:campaigns_campaign_step", args=[campaign.pk])


def test_an_empty_campaign_asks_for_segments_first_and_the_rest_waits():
    campaign = CampaignFactory(kind=TaskKind.DIRECT_ASSESSMENT, status=CampaignStatus.DRAFT)
    steps = states(campaign)
    assert list(steps) == [
        "import",
        "quality",
        "build",
        "payment",
        "activate",
        "publish",
        "judgments",
        "results",
        "analysis",
    ]
    assert steps["import"][:2] == ("next", "No segments yet.")
    assert steps["import"][3] == ["Import segments"]
    assert steps["build"][:3] == ("later", "No HITs yet.", "Import segments first.")
    assert steps["activate"][0] == "later"
    assert steps["activate"][2] == (
        "Build HITs first: an active campaign without HITs has nothing to hand out."
    )
    assert steps["judgments"][0] == "later"
    assert steps["results"][0] == "later"


def test_imported_segments_make_build_the_next_step_then_activate_then_links():
    campaign = da_campaign(systems=4, segments=28, status=CampaignStatus.DRAFT)
    steps = states(campaign)
    assert steps["import"][:2] == (
        "done",
        "28 segments in 1 document; 4 systems, 112 outputs.",
    )
    assert steps["build"][0] == "next"
    assert steps["build"][3] == ["Build HITs"]
    assert steps["activate"][0] == "later"

    from campaigns.actions import build_hits

    build_hits(campaign)
    steps = states(campaign)
    assert steps["build"][:2] == ("done", "2 HITs built.")
    assert steps["build"][3] == ["Rebuild HITs", "Delete HITs"]
    assert steps["activate"][:2] == ("next", "Draft: no HITs are handed out.")
    assert steps["activate"][3] == ["Activate"]
    assert steps["publish"][0] == "later"
    assert steps["publish"][3] == [
        "Create direct worker links",
        "Prolific study URL",
        "Publish to MTurk",
    ]
    assert steps["judgments"][1] == (
        "0 of 1,000 judgments in; 0 of 10 assignments done (2 HITs, redundancy 5)."
    )

    campaign.status = CampaignStatus.ACTIVE
    campaign.save()
    steps = states(campaign)
    assert steps["activate"][:2] == ("done", "Active: HITs are handed out.")
    assert steps["activate"][3] == ["Pause", "Finish"]
    assert steps["publish"][0] == "next"
    assert steps["judgments"][0] == "waiting"


def test_a_da_campaign_too_small_for_a_hit_is_blocked_naming_its_systems():
    # 4 systems need 18 outputs each for a HIT's 70 in equal shares; these have 12.
    campaign = da_campaign(systems=4, segments=12)
    state, summary, todo, buttons = states(campaign)["build"]
    assert state == "blocked"
    assert todo == (
        "A direct-assessment HIT needs 18 outputs per system when there are 4 systems (70 "
        'outputs in equal shares); the campaign has fewer for "sys0" (12), "sys1" (12), '
        '"sys2" (12) and "sys3" (12) (outputs in brackets): add segments with outputs of these '
        "systems, or leave them out of the import ('Items per hit' is fixed at 100, the 2014 "
        "design the builder follows)."
    )
    assert buttons == ["Try to build HITs"]


def test_the_build_button_names_systems_not_ids_when_the_builder_refuses(client_of):
    campaign = da_campaign(systems=4, segments=12)
    response = client_of.post(step_url(campaign), {"step": "build"}, follow=True)
    assert response.redirect_chain[-1][0] == change_url(campaign) + "#checklist"
    [message] = [str(m) for m in response.context["messages"]]
    assert message.startswith(
        f"{campaign}: no HITs built. A direct-assessment HIT needs 18 outputs per system when "
        'there are 4 systems (70 outputs in equal shares); the campaign has fewer for "sys0" (12)'
    )
    assert not re.search(r"\[\d", message)  # no list of ids
    assert campaign.hits.count() == 0


def test_the_checklist_buttons_build_activate_pause_and_finish(client_of):
    campaign = da_campaign()
    page = client_of.get(change_url(campaign)).content.decode()
    assert page.index('id="checklist"') < page.index('id="campaign_form"')
    assert 'name="step" value="build"' in page
    assert "csrfmiddlewaretoken" in page[page.index('id="checklist"') :]

    response = client_of.post(step_url(campaign), {"step": "build"}, follow=True)
    assert [str(m) for m in response.context["messages"]] == [f"{campaign}: built 2 HIT(s)."]
    assert campaign.hits.count() == 2

    for step, status in (
        ("activate", CampaignStatus.ACTIVE),
        ("pause", CampaignStatus.PAUSED),
        ("activate", CampaignStatus.ACTIVE),
        ("finish", CampaignStatus.FINISHED),
    ):
        client_of.post(step_url(campaign), {"step": step})
        campaign.refresh_from_db()
        assert campaign.status == status

    assert client_of.get(step_url(campaign)).status_code == 405
    response = client_of.post(step_url(campaign), {"step": "delete"}, follow=True)
    assert [str(m) for m in response.context["messages"]][-1:] == [
        "Unknown step 'delete': choose one of the checklist's buttons."
    ]


def test_a_reader_sees_the_checklist_without_buttons_and_cannot_post(django_user_model):
    from analytics.models import CampaignAccess

    campaign = da_campaign()
    reader = django_user_model.objects.create_user("reader", password="pw", is_staff=True)
    reader.user_permissions.add(Permission.objects.get(codename="view_campaign"))
    CampaignAccess.objects.create(campaign=campaign, user=reader, level="read")
    client = Client()
    client.force_login(reader)
    page = client.get(change_url(campaign)).content.decode()
    checklist = page[page.index('id="checklist"') : page.index("</section>")]
    assert "Build HITs" not in checklist
    assert 'name="step"' not in checklist
    assert client.post(step_url(campaign), {"step": "build"}).status_code == 403
    assert campaign.hits.count() == 0
    outsider = django_user_model.objects.create_user("out", password="pw", is_staff=True)
    outsider.user_permissions.add(Permission.objects.get(codename="change_campaign"))
    client.force_login(outsider)
    assert client.post(step_url(campaign), {"step": "build"}).status_code == 404


def test_ranking_without_gold_answers_is_blocked_and_says_what_to_do():
    campaign = ranking_campaign(systems=6, segments=20)
    steps = states(campaign)
    assert steps["quality"][0] == "blocked"
    assert steps["quality"][2] == (
        "The gold rate is 10% but the campaign has no gold answers and no gold best system. "
        "Give gold answers per segment (Gold answers: add them, or import a file of them), or "
        "choose the gold best system in the ranking settings so that gold translations are "
        "chosen from the segments' alternative references (Paul et al. 2013), or set the gold "
        "rate to 0."
    )
    assert steps["build"][0] == "blocked"
    assert steps["build"][2] == "Gold units are missing or too few (see Gold answers above)."

    for segment in campaign.segments.all()[:5]:
        GoldAnswer.objects.create(segment=segment, best_output=segment.outputs.first())
    steps = states(campaign)
    assert steps["quality"][:2] == (
        "done",
        "Gold rate 10% of the ranking sets; 5 gold answers given; the rate makes 5 gold sets "
        "from 5 gold units.",
    )
    assert steps["build"][0] == "next"


def test_ranking_sets_larger_than_a_segment_s_outputs_are_blocked():
    campaign = ranking_campaign(systems=3, segments=20)
    settings = campaign.ranking_settings
    settings.gold_rate = 0
    settings.outputs_per_set = 3
    settings.save()
    campaign.segments.first().outputs.first().delete()
    state, _, todo, _ = states(campaign)["build"]
    assert (state, todo) == (
        "blocked",
        "A ranking set shows 3 outputs of different systems ('Outputs per set'), and some "
        "segments have only 2: lower 'Outputs per set' to 2 in the ranking settings below, or "
        "import the missing outputs.",
    )


@pytest.mark.parametrize(
    "kind",
    [
        TaskKind.DIRECT_ASSESSMENT,
        TaskKind.RANKING,
        TaskKind.POST_EDITING,
        TaskKind.READING_COMPREHENSION,
        TaskKind.TRANSLATION,
    ],
)
def test_every_kind_s_page_shows_its_checklist(client_of, kind):
    made = new_campaign(
        kind=kind,
        settings={"assessment_mode": "adequacy"} if kind == TaskKind.DIRECT_ASSESSMENT else {},
        name=f"kind {kind}",
        source_language="de",
        target_language="en",
    )
    campaign = made.save()
    response = client_of.get(change_url(campaign))
    assert response.status_code == 200
    checklist = response.context["checklist"]
    assert [step.key for step in checklist.steps][:5] == [
        "import",
        "quality",
        "build",
        "payment",
        "activate",
    ]
    assert checklist.next_step.key == "import"
    page = response.content.decode()
    assert 'id="step-import"' in page
    assert 'data-state="next"' in page


def test_workers_by_platform_and_judgment_progress():
    from campaigns.actions import build_hits

    campaign = da_campaign()
    build_hits(campaign)
    campaign.status = CampaignStatus.ACTIVE
    campaign.save()
    hit = campaign.hits.order_by("number").first()
    for platform in (Platform.DIRECT, Platform.DIRECT, Platform.PROLIFIC):
        AssignmentFactory(
            hit=hit, campaign=campaign, worker=WorkerFactory(platform=platform), status="submitted"
        )
    checklist = campaign_checklist(campaign, can_change=True, can_publish_mturk=False)
    steps = {step.key: step for step in checklist.steps}
    assert steps["publish"].state == "done"
    assert [text for text, _ in steps["publish"].lines] == [
        f"Direct links: the open link {open_link_url(campaign)}, or one link per worker (2 "
        "workers came by direct link).",
        "Prolific: no study id set (the Prolific section of the settings); 1 participant.",
        "MTurk: 0 of 2 HITs published (sandbox chosen); 0 workers.",
    ]
    assert steps["publish"].buttons[-1].label == "Prolific study URL"  # no MTurk permission
    assert steps["judgments"].summary == (
        "0 of 1,000 judgments in; 3 of 10 assignments done (2 HITs, redundancy 5)."
    )
    assert steps["judgments"].percent == 0.0


def test_rarely_changed_settings_are_folded_and_open_when_they_have_an_error(client_of):
    campaign = da_campaign(reward=Decimal("0.50"))  # unpaid, Payment would stay open
    page = client_of.get(change_url(campaign)).content.decode()
    for heading in ("Amazon Mechanical Turk", "Prolific", "Payment and publishing", "History"):
        start = page.index(f'class="fieldset-heading">{heading}</h2>')
        assert page.rfind("<details>", 0, start) > page.rfind("</details>", 0, start)
    data = {
        field: value
        for field, value in Campaign.objects.filter(pk=campaign.pk).values()[0].items()
        if value is not None
    }
    response = client_of.post(
        change_url(campaign),
        {**data, "name": campaign.name, "mturk_min_approval_rate": "250"},
    )
    assert response.status_code == 200
    page = response.content.decode()
    start = page.index('class="fieldset-heading">Amazon Mechanical Turk</h2>')
    assert page.rfind("<details>", 0, start) < page.rfind(
        '<fieldset class="module aligned', 0, start
    )


def test_a_campaign_whose_kind_changed_asks_for_the_new_kind_s_settings():
    campaign = da_campaign(systems=4, segments=28)
    Campaign.objects.filter(pk=campaign.pk).update(kind=TaskKind.RANKING)
    campaign = Campaign.objects.get(pk=campaign.pk)
    steps = states(campaign)
    message = "The campaign has no Ranking settings yet: fill them in below and save."
    assert steps["quality"][0::2] == ("blocked", message)
    assert steps["build"][0::2] == ("blocked", message)


def test_the_checklist_reads_a_fixed_number_of_queries_whatever_the_size():
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from campaigns.actions import build_hits

    counts = []
    for segments in (28, 56):
        campaign = da_campaign(systems=4, segments=segments)
        build_hits(campaign)
        AssignmentFactory(hit=campaign.hits.first(), campaign=campaign, status="submitted")
        campaign = Campaign.objects.get(pk=campaign.pk)
        with CaptureQueriesContext(connection) as queries:
            campaign_checklist(campaign, can_change=True, can_publish_mturk=True)
        counts.append(len(queries))
    assert counts[0] == counts[1]
    assert counts[0] <= 16


def test_a_campaign_of_imported_judgments_shows_what_was_imported_and_its_results():
    campaign = da_campaign(systems=2, segments=3, imported_from="wmt-da")
    steps = states(campaign)
    assert list(steps)[:2] == ["imported", "results"]
    assert steps["imported"][:2] == (
        "done",
        "Imported from a wmt-da file: 0 judgments of 2 systems on 3 segments.",
    )


def test_the_analysis_step_links_the_dashboard_and_the_reports():
    campaign = da_campaign(systems=4, segments=28)
    steps = {
        s.key: s
        for s in campaign_checklist(campaign, can_change=True, can_publish_mturk=True).steps
    }
    analysis = steps["analysis"]
    assert analysis.state == "later"  # no judgments yet
    assert [(b.label, b.url, b.post) for b in analysis.buttons] == [
        ("Dashboard (plots)", f"/admin/campaigns/campaign/{campaign.pk}/dashboard/", ""),
        ("Report (cost and time)", f"/admin/campaigns/campaign/{campaign.pk}/report/", ""),
        ("Judgments still needed", f"/admin/campaigns/campaign/{campaign.pk}/still-needed/", ""),
    ]


def test_the_campaign_page_counts_progress_and_rows_once(client_of):
    # The DA results panel and the checklist show the progress, the checklist and the form's
    # "What it holds" the campaign's rows: each read once a page (evalsite.page_memo).
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from campaigns.actions import build_hits

    campaign = da_campaign(systems=4, segments=28)
    build_hits(campaign)
    AssignmentFactory(hit=campaign.hits.first(), campaign=campaign, status="submitted")
    with CaptureQueriesContext(connection) as queries:
        page = client_of.get(change_url(campaign))
    assert page.status_code == 200
    html = page.content.decode()
    assert "1 assignments" in html  # the form's counts, with the HITs and judgments
    statements = [query["sql"] for query in queries.captured_queries]
    # The progress's live assignments with their judged units (analytics.progress).
    judged = [sql for sql in statements if '"assignment_id" = ("judgments_assignment"."id")' in sql]
    documents = [sql for sql in statements if 'AS "__count" FROM "campaigns_document"' in sql]
    assert (len(judged), len(documents)) == (1, 1)


def test_a_system_without_outputs_blocks_the_build_naming_it_and_what_to_do(client_of):
    from tests.factories import SystemFactory

    campaign = da_campaign(systems=4, segments=28)
    SystemFactory(campaign=campaign, name="Lindenbaum")
    message = (
        'System "Lindenbaum" has no outputs: HITs would leave it out, and nobody would evaluate '
        "it. To evaluate it, import the missing outputs (rows with the segments' doc and seg "
        "ids, source and reference, and the system's name and output), or delete it in the "
        "Systems section of the campaign's page if not to be evaluated."
    )
    state, summary, todo, buttons = states(campaign)["build"]
    assert (state, summary, todo, buttons) == (
        "blocked",
        "No HITs yet.",
        message,
        ["Try to build HITs"],
    )
    # The build itself refuses too (the checklist's button, the action, the command).
    response = client_of.post(step_url(campaign), {"step": "build"}, follow=True)
    assert [str(m) for m in response.context["messages"]] == [
        f"{campaign}: no HITs built. {message}"
    ]
    assert campaign.hits.count() == 0


def test_systems_with_fewer_outputs_than_segments_block_a_da_build():
    from campaigns.models import Output
    from tests.factories import SystemFactory

    campaign = da_campaign(systems=4, segments=28)
    SystemFactory(campaign=campaign, name="late")
    Output.objects.filter(system__name="sys1", segment__external_id__in=["3", "4"]).delete()
    assert states(campaign)["build"][2] == (
        'Not every system has an output for every segment ("late" has none and "sys1" has 26 '
        "of the 28): HITs leave missing outputs out, so they would be judged on other segments "
        "than the "
        "other systems, or not at all. To evaluate them, import the missing outputs (rows with "
        "the segments' doc and seg ids, source and reference, and the system's name and "
        "output), or delete them in the Systems section of the campaign's page if not to be "
        "evaluated."
    )


def test_a_ranking_system_without_outputs_blocks_but_fewer_outputs_do_not():
    # Ranking's builder balances segments with different numbers of outputs by design (its
    # campaigns over crowd translations); a system with none is still left out.
    from tests.factories import SystemFactory

    campaign = ranking_campaign(systems=3, segments=20)
    settings = campaign.ranking_settings
    settings.gold_rate = 0
    settings.outputs_per_set = 2
    settings.save()
    campaign.segments.first().outputs.filter(system__name="sys0").delete()
    assert states(campaign)["build"][0] == "next"
    SystemFactory(campaign=campaign, name="empty")
    state, _, todo, _ = states(campaign)["build"]
    assert (state, todo.split(":")[0]) == ("blocked", 'System "empty" has no outputs')


def test_a_system_added_after_the_hits_were_built_says_to_delete_them_first():
    from campaigns.actions import build_hits
    from campaigns.kinds import HitBuildError
    from tests.factories import SystemFactory

    campaign = da_campaign(systems=4, segments=28)
    build_hits(campaign)
    SystemFactory(campaign=campaign, name="late")
    message = (
        'System "late" has no outputs: HITs would leave it out, and nobody would evaluate it. '
        "To evaluate it, first delete the HITs (nobody has started them: the checklist's Delete "
        "HITs), then import the missing outputs (rows with the "
        "segments' doc and seg ids, source and reference, and the system's name and output), "
        "or delete it in the Systems section of the campaign's page if not to be evaluated, "
        "and build the HITs again."
    )
    state, _, todo, _ = states(campaign)["build"]
    assert (state, todo) == (
        "done",
        f"{message} Rebuilding replaces them with HITs of the present segments and settings, "
        "until a worker starts one; deleting them lets a late system's outputs join the "
        "segments first.",
    )
    with pytest.raises(HitBuildError) as error:
        build_hits(campaign)
    assert str(error.value) == message
    assert campaign.hits.count() == 2  # the HITs built before are kept
