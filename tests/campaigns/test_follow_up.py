"""Segments imported into a campaign whose HITs are frozen (issue 17, rough edge): the import
says that no HIT will show them, and a follow-up campaign takes them with the settings."""

from __future__ import annotations

import io
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse

from campaigns.actions import FollowUpError, build_hits, create_follow_up, segments_outside_hits
from campaigns.importers import run_import
from campaigns.models import Campaign, CampaignStatus, GoldAnswer
from tests.campaigns.test_actions import da_campaign, ranking_campaign
from tests.factories import AssignmentFactory

pytestmark = pytest.mark.django_db

FROZEN_NOTE = (
    "Warning: this campaign's HITs are frozen (workers have started them, or they are on "
    "MTurk), so no HIT will show the 28 new segments and nobody will see them here. Create a "
    "follow-up campaign with them: the campaign page's checklist, \"Create follow-up "
    "campaign\" (or python manage.py follow_up_campaign {pk}), which copies this campaign's "
    "settings."
)


def new_segments_tsv(tmp_path, document: str = "later", segments: int = 28, systems: int = 4):
    lines = ["doc_id\tseg_id\tsource\treference\tsystem\toutput"]
    for position in range(1, segments + 1):
        for system in range(systems):
            lines.append(
                f"{document}\t{position}\tNeuer Satz {position} mit mehreren Wörtern.\t"
                f"New sentence {position} with several words.\tsys{system}\t"
                f"New sentence {position} by sys{system} with a few words."
            )
    path = tmp_path / "later.tsv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def frozen_campaign():
    campaign = da_campaign(systems=4, segments=28, name="WMT frozen", reward=Decimal("0.75"))
    build_hits(campaign)
    AssignmentFactory(hit=campaign.hits.first(), campaign=campaign)
    return campaign


def test_an_import_into_frozen_hits_warns_and_the_follow_up_takes_the_new_segments(tmp_path):
    campaign = frozen_campaign()
    settings = campaign.da_settings
    settings.reliability_alpha = Decimal("0.010")
    settings.save()

    summary = run_import(campaign, "tsv", new_segments_tsv(tmp_path))
    assert summary.hits_note == FROZEN_NOTE.format(pk=campaign.pk)
    assert summary.message.endswith(FROZEN_NOTE.format(pk=campaign.pk))
    assert segments_outside_hits(campaign).count() == 28

    follow_up = create_follow_up(campaign)
    assert follow_up.name == "WMT frozen (follow-up)"
    assert follow_up.status == CampaignStatus.DRAFT
    assert follow_up.owner_id == campaign.owner_id
    assert (follow_up.kind, follow_up.reward, follow_up.redundancy, follow_up.hit_seed) == (
        campaign.kind,
        Decimal("0.75"),
        campaign.redundancy,
        campaign.hit_seed,
    )
    copied = Campaign.objects.get(pk=follow_up.pk).da_settings
    assert (copied.assessment_mode, copied.reliability_alpha, copied.items_per_hit) == (
        settings.assessment_mode,
        Decimal("0.010"),
        100,
    )
    assert list(follow_up.documents.values_list("external_id", flat=True)) == ["later"]
    assert follow_up.segments.count() == 28
    assert sorted(follow_up.systems.values_list("name", flat=True)) == [
        "sys0",
        "sys1",
        "sys2",
        "sys3",
    ]
    first = follow_up.segments.get(external_id="1")
    assert first.references == ["New sentence 1 with several words."]
    assert sorted(first.outputs.values_list("system__name", "text")) == [
        (f"sys{i}", f"New sentence 1 by sys{i} with a few words.") for i in range(4)
    ]
    # The original keeps everything; the follow-up builds its own HITs.
    assert campaign.segments.count() == 56
    assert build_hits(follow_up) == 2
    with pytest.raises(FollowUpError, match="Every segment of"):
        create_follow_up(follow_up)
    assert create_follow_up(campaign).name == "WMT frozen (follow-up 2)"


def test_an_import_into_hits_not_yet_started_says_to_rebuild(tmp_path):
    campaign = da_campaign(systems=4, segments=28)
    build_hits(campaign)
    summary = run_import(campaign, "tsv", new_segments_tsv(tmp_path))
    assert summary.hits_note == (
        "This campaign's HITs were built before this import and do not show the 28 new "
        'segments: rebuild them (the campaign page\'s checklist, "Rebuild HITs") to include them.'
    )
    assert build_hits(campaign) == 4
    assert segments_outside_hits(campaign).count() == 0


def test_an_import_before_any_hit_says_nothing_more(tmp_path):
    campaign = da_campaign(systems=4, segments=2)
    assert run_import(campaign, "tsv", new_segments_tsv(tmp_path)).hits_note == ""


def test_the_admin_import_warns_and_the_checklist_offers_the_follow_up(tmp_path, django_user_model):
    boss = django_user_model.objects.create_superuser("boss", "boss@example.org", "pw")
    client = Client()
    client.force_login(boss)
    campaign = frozen_campaign()
    with new_segments_tsv(tmp_path).open("rb") as upload:
        response = client.post(
            reverse("admin:campaigns_campaign_import", args=[campaign.pk]),
            {"format": "auto", "file": upload},
            follow=True,
        )
    [message] = list(response.context["messages"])
    assert message.level_tag == "warning"
    assert str(message).endswith(FROZEN_NOTE.format(pk=campaign.pk))
    page = response.content.decode()
    assert 'name="step" value="follow_up"' in page
    step = next(s for s in response.context["checklist"].steps if s.key == "import")
    assert step.todo.startswith("28 segments came after the HITs were frozen")

    response = client.post(
        reverse("admin:campaigns_campaign_step", args=[campaign.pk]),
        {"step": "follow_up"},
        follow=True,
    )
    follow_up = Campaign.objects.get(name="WMT frozen (follow-up)")
    assert follow_up.owner == boss
    assert response.redirect_chain[-1][0] == (
        reverse("admin:campaigns_campaign_change", args=[follow_up.pk]) + "#checklist"
    )
    assert [str(m) for m in response.context["messages"]] == [
        'Created "WMT frozen (follow-up)" with this campaign\'s settings and its 28 segment(s) '
        "that no HIT showed. Build its HITs below."
    ]
    assert response.context["checklist"].next_step.key == "build"


def test_the_commands_warn_and_create_the_follow_up(tmp_path):
    campaign = frozen_campaign()
    out = io.StringIO()
    call_command(
        "import_segments",
        "--campaign",
        str(campaign.pk),
        str(new_segments_tsv(tmp_path)),
        stdout=out,
    )
    assert out.getvalue().strip().endswith(FROZEN_NOTE.format(pk=campaign.pk))
    out = io.StringIO()
    call_command("follow_up_campaign", str(campaign.pk), stdout=out)
    follow_up = Campaign.objects.get(name="WMT frozen (follow-up)")
    assert out.getvalue().strip() == (
        f'Created campaign {follow_up.pk} "WMT frozen (follow-up)" (draft) with the settings of '
        '"WMT frozen" and its 28 segment(s) that no HIT showed. Build its HITs next (admin: the '
        "campaign page's checklist)."
    )
    build_hits(follow_up)
    with pytest.raises(CommandError, match="Every segment of"):
        call_command("follow_up_campaign", str(follow_up.pk))


def test_a_ranking_follow_up_keeps_gold_answers_and_the_gold_systems(tmp_path):
    campaign = ranking_campaign(systems=6, segments=20, name="Ranking frozen")
    settings = campaign.ranking_settings
    settings.gold_best_system = campaign.systems.get(name="sys1")
    settings.outputs_per_set = 4
    settings.save()
    for segment in campaign.segments.all():
        GoldAnswer.objects.create(
            segment=segment, best_output=segment.outputs.get(system__name="sys2")
        )
    follow_up = create_follow_up(campaign)  # no HITs yet: every segment is outside them
    copied = Campaign.objects.get(pk=follow_up.pk).ranking_settings
    assert copied.gold_best_system.name == "sys1"
    assert copied.gold_best_system.campaign_id == follow_up.pk
    assert copied.outputs_per_set == 4
    answers = GoldAnswer.objects.filter(segment__campaign=follow_up).select_related(
        "best_output__system"
    )
    assert answers.count() == 20
    assert {answer.best_output.system.name for answer in answers} == {"sys2"}
    assert {answer.best_output.system.campaign_id for answer in answers} == {follow_up.pk}
