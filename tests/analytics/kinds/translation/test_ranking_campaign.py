"""The kept translation chosen by a ranking campaign over the translations (issue 15 item 4):
the action that makes the ranking campaign (analytics.kinds.translation.ranking), its HITs
built by the real ranking builder, rankings mapped back to the translations, the selection
by 000's "better than or equal" share, what does not count, the stale sweep, and the admin's
button. The hand-worked campaign is tests/analytics/kinds/translation/campaign.py: after the
first recompute, sentence 1 has one eligible translation (t1's), sentences 2 and 3 two (t1's
and t2's; t3 pasted MT and is excluded)."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import timezone

from analytics.kinds.translation import actions as tr_actions
from analytics.kinds.translation import kept_translations
from analytics.kinds.translation.ranking import (
    RankingCampaignError,
    create_ranking_campaign,
    ranking_campaign_of,
)
from analytics.models import TranslationKeptSegment
from campaigns.kinds import kind_of
from campaigns.kinds.translation.models import RankedTranslation, SelectionMethod
from campaigns.models import Campaign, HitSlot, HitTask, Output, Segment, System, TaskKind
from judgments.actions.membership import set_excluded
from judgments.models import AssignmentStatus, CampaignWorker, Judgment
from tests.analytics.kinds.translation.campaign import TRANSLATIONS, build_tr_campaign
from tests.analytics.kinds.translation.test_actions import consensus_winner, recompute, stages
from tests.factories import AssignmentFactory, WorkerFactory

pytestmark = pytest.mark.django_db
__all__ = ["stages"]  # the fixture, used by name


def ranked_campaign(stages):
    built = build_tr_campaign()
    recompute(built)
    ranking = create_ranking_campaign(built.campaign)
    return built, ranking


def test_the_ranking_campaign_holds_each_sentence_s_eligible_translations(stages):
    built, ranking = ranked_campaign(stages)
    assert ranking.kind == TaskKind.RANKING and ranking.status == "draft"
    assert ranking.name == f"{built.campaign.name}: ranking of the crowd translations"
    assert (ranking.source_language, ranking.target_language) == (
        built.campaign.source_language,
        built.campaign.target_language,
    )
    assert ranking.owner_id == built.campaign.owner_id
    assert ranking.ranking_settings.outputs_per_set == 2  # two eligible translations each
    assert ranking.ranking_settings.gold_rate == 0
    # Sentence 1 has one eligible translation: it is kept as it is, not ranked.
    segments = list(
        Segment.objects.filter(campaign=ranking)
        .order_by("document__position", "position")
        .values_list("document__external_id", "external_id", "position", "source", "references")
    )
    assert segments == [("D1", "2", 2, "Quelle 2", []), ("D2", "3", 1, "Quelle 3", [])]
    assert sorted(System.objects.filter(campaign=ranking).values_list("name", flat=True)) == [
        "translator t1",
        "translator t2",
    ]
    mapped = {
        (r.output.system.name, r.output.segment.external_id): (r.judgment_id, r.output.text)
        for r in RankedTranslation.objects.filter(campaign=built.campaign).select_related(
            "output__system", "output__segment"
        )
    }
    assert mapped == {
        (f"translator {t}", str(n)): (built.translation(t, n).pk, TRANSLATIONS[t][n])
        for t in ("t1", "t2")
        for n in (2, 3)
    }
    settings = built.campaign.translation_settings
    settings.refresh_from_db()
    assert ranking_campaign_of(built.campaign) == ranking
    assert settings.selection_method == SelectionMethod.BEST_RANKED
    # The real ranking builder accepts it: every set shows both translations of a sentence,
    # and every sentence has its set (a HIT page's sets may repeat one).
    assert kind_of(ranking).build_hits(ranking) >= 1
    sets: dict[tuple[int, int], set[int]] = {}
    for slot in HitSlot.objects.filter(hit__campaign=ranking, hit__task=HitTask.RANK):
        sets.setdefault((slot.hit_id, slot.group), set()).add(slot.output_id)
    assert {frozenset(s) for s in sets.values()} == {
        frozenset(Output.objects.filter(segment=segment).values_list("pk", flat=True))
        for segment in Segment.objects.filter(campaign=ranking)
    }


def test_refusals(stages):
    built = build_tr_campaign()
    with pytest.raises(RankingCampaignError, match="No sentence has two eligible translations"):
        create_ranking_campaign(built.campaign)  # no results yet: nothing is eligible
    assert not Campaign.objects.filter(kind=TaskKind.RANKING).exists()
    recompute(built)
    first = create_ranking_campaign(built.campaign)
    with pytest.raises(RankingCampaignError, match=f"already has a ranking campaign.*{first.pk}"):
        create_ranking_campaign(built.campaign)
    with pytest.raises(RankingCampaignError, match="is not a translation campaign"):
        create_ranking_campaign(first)
    assert Campaign.objects.filter(kind=TaskKind.RANKING).count() == 1
    # Deleting the ranking campaign deletes its link: another can be made.
    first.delete()
    assert ranking_campaign_of(built.campaign) is None
    assert not RankedTranslation.objects.exists()
    second = create_ranking_campaign(built.campaign)
    assert ranking_campaign_of(built.campaign) == second


def rank(ranking, ranker, sentence: str, ranks: dict[str, int], *, status=None):
    """``ranker`` ranks the translations of ``sentence`` (``ranks``: translator -> rank) in one
    assignment of a hand-made ranking HIT."""
    from campaigns.models import Hit

    segment = Segment.objects.get(campaign=ranking, external_id=sentence)
    number = (Hit.objects.filter(campaign=ranking).count()) + 1
    hit = Hit.objects.create(campaign=ranking, task=HitTask.RANK, number=number)
    assignment = AssignmentFactory(
        hit=hit, campaign=ranking, worker=ranker, status=status or AssignmentStatus.SUBMITTED,
        submitted_at=timezone.now(),
    )  # fmt: skip
    for position, (translator, value) in enumerate(ranks.items(), start=1):
        output = Output.objects.get(segment=segment, system__name=f"translator {translator}")
        slot = HitSlot.objects.create(
            hit=hit, position=position, group=1, segment=segment, output=output,
            shown_text=output.text,
        )  # fmt: skip
        Judgment.objects.create(
            campaign=ranking, worker=ranker, assignment=assignment, slot=slot, rank=value,
        )  # fmt: skip


def kept(built):
    return {
        row.segment.external_id: (row.judgment_id, row.how, row.final)
        for row in TranslationKeptSegment.objects.filter(campaign=built.campaign).select_related(
            "segment"
        )
    }


def test_the_best_ranked_translation_is_kept(stages):
    built, ranking = ranked_campaign(stages)
    # Before any ranking: the consensus among the eligible ones, provisional.
    recompute(built)
    before = kept(built)
    assert before["1"] == (built.translation("t1", 1).pk, "best_ranked", True)
    for n in ("2", "3"):
        judgment, how, final = before[n]
        assert judgment == built.translation(consensus_winner(built, int(n)), int(n)).pk
        assert how == "best_ranked" and final is False

    r1, r2, r3 = (WorkerFactory(external_id=name) for name in ("r1", "r2", "r3"))
    # Sentence 2: r1 ranks t2 first, r2 ties them: t2 better or equal in 2 of 2 comparisons,
    # t1 in 1 of 2. Sentence 3: r1 ranks t1 first: t1 1 of 1, t2 0 of 1.
    rank(ranking, r1, "2", {"t1": 2, "t2": 1})
    rank(ranking, r2, "2", {"t1": 1, "t2": 1})
    rank(ranking, r1, "3", {"t1": 1, "t2": 2})
    # What does not count: a rejected assignment and an excluded ranker, both for t1.
    rank(ranking, r3, "2", {"t1": 1, "t2": 2}, status=AssignmentStatus.REJECTED)
    r4 = WorkerFactory(external_id="r4")
    rank(ranking, r4, "2", {"t1": 1, "t2": 2})
    membership, _ = CampaignWorker.objects.get_or_create(campaign=ranking, worker=r4)
    set_excluded(CampaignWorker.objects.filter(pk=membership.pk), True, "test")

    loaded = tr_actions.load_translation(built.campaign.pk)
    scores = {
        (t, n): (loaded.ranking[built.translation(t, n).pk].better_or_equal,
                 loaded.ranking[built.translation(t, n).pk].comparisons)
        for t in ("t1", "t2") for n in (2, 3)
    }  # fmt: skip
    assert scores == {("t1", 2): (1, 2), ("t2", 2): (2, 2), ("t1", 3): (1, 1), ("t2", 3): (0, 1)}

    recompute(built)
    after = kept(built)
    assert after["1"] == (built.translation("t1", 1).pk, "best_ranked", True)
    # Sentence 2: every translation decided and both eligible ones ranked: final.
    assert after["2"] == (built.translation("t2", 2).pk, "best_ranked", True)
    # Sentence 3: t2's Detect-MT votes are still pending: provisional.
    assert after["3"] == (built.translation("t1", 3).pk, "best_ranked", False)
    words = kept_translations(built.campaign)
    assert words[built.segments[2]] == (
        built.translation("t2", 2).pk,
        "best ranked in the ranking campaign; final",
    )


def test_a_ranking_tie_goes_to_the_consensus(stages):
    built, ranking = ranked_campaign(stages)
    r1 = WorkerFactory(external_id="r1")
    rank(ranking, r1, "2", {"t1": 1, "t2": 1})
    recompute(built)
    winner = consensus_winner(built, 2)
    assert kept(built)["2"] == (built.translation(winner, 2).pk, "best_ranked", True)


def test_a_new_ranking_makes_the_result_stale(stages):
    built, ranking = ranked_campaign(stages)
    recompute(built)
    assert built.campaign not in tr_actions.stale_translation_campaigns()
    # Judgment.submitted_at is the time of the insert: after the result's computed_at.
    rank(ranking, WorkerFactory(), "2", {"t1": 1, "t2": 2})
    assert list(tr_actions.stale_translation_campaigns()) == [built.campaign]
    recompute(built)
    assert built.campaign not in tr_actions.stale_translation_campaigns()


def test_the_choose_page_makes_the_ranking_campaign(stages, admin_client):
    built = build_tr_campaign()
    page = reverse("admin:campaigns_campaign_translation_choose", args=[built.campaign.pk])
    create = reverse("admin:campaigns_campaign_translation_ranking", args=[built.campaign.pk])
    html = admin_client.get(page).content.decode()
    assert f'action="{create}"' in html and "Create a ranking campaign" in html
    # Before the first recompute: refused with the reason, nothing made.
    response = admin_client.post(create, follow=True)
    assert "No sentence has two eligible translations" in response.content.decode()
    assert not Campaign.objects.filter(kind=TaskKind.RANKING).exists()
    recompute(built)
    response = admin_client.post(create)
    ranking = Campaign.objects.get(kind=TaskKind.RANKING)
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:campaigns_campaign_change", args=[ranking.pk])
    html = admin_client.get(page).content.decode()
    assert "Create a ranking campaign" not in html
    assert reverse("admin:campaigns_campaign_change", args=[ranking.pk]) in html
    assert admin_client.get(create).status_code == 302  # GET makes nothing
    assert Campaign.objects.filter(kind=TaskKind.RANKING).count() == 1


def test_a_collaborator_with_change_access_makes_it_and_sees_it(stages, client, django_user_model):
    from django.contrib.auth.models import Permission

    from analytics.models import CampaignAccess

    built = build_tr_campaign()
    recompute(built)
    collaborator = django_user_model.objects.create_user("editor", password="x", is_staff=True)
    collaborator.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_campaign", "change_campaign"])
    )
    CampaignAccess.objects.create(campaign=built.campaign, user=collaborator, level="change")
    client.force_login(collaborator)
    create = reverse("admin:campaigns_campaign_translation_ranking", args=[built.campaign.pk])
    response = client.post(create)
    ranking = Campaign.objects.get(kind=TaskKind.RANKING)
    assert response.status_code == 302 and client.get(response["Location"]).status_code == 200
    assert ranking.owner_id == built.campaign.owner_id
    assert list(CampaignAccess.objects.filter(campaign=ranking).values_list("user", "level")) == [
        (collaborator.pk, "change")
    ]


def test_a_read_only_user_cannot_make_it(stages, client, django_user_model):
    from analytics.models import CampaignAccess

    built = build_tr_campaign()
    recompute(built)
    reader = django_user_model.objects.create_user("reader", password="x", is_staff=True)
    from django.contrib.auth.models import Permission

    reader.user_permissions.add(Permission.objects.get(codename="view_campaign"))
    CampaignAccess.objects.create(campaign=built.campaign, user=reader)
    client.force_login(reader)
    page = reverse("admin:campaigns_campaign_translation_choose", args=[built.campaign.pk])
    create = reverse("admin:campaigns_campaign_translation_ranking", args=[built.campaign.pk])
    assert "Create a ranking campaign" not in client.get(page).content.decode()
    assert client.post(create).status_code == 403
    assert not Campaign.objects.filter(kind=TaskKind.RANKING).exists()


def test_the_checklist_says_where_the_ranking_campaign_is(stages):
    from campaigns.kinds.translation.checklist import quality

    built = build_tr_campaign()
    recompute(built)
    assert quality(built.campaign, None).lines == [
        (
            "Choose translations",
            reverse("admin:campaigns_campaign_translation_choose", args=[built.campaign.pk]),
        )
    ]
    settings = built.campaign.translation_settings
    settings.selection_method = SelectionMethod.BEST_RANKED
    settings.save()
    waiting = quality(built.campaign, None).lines[1]
    assert waiting[0].startswith("Kept by ranking: once translations are in, make the ranking")
    assert waiting[1] == ""
    ranking = create_ranking_campaign(built.campaign)
    built.campaign.refresh_from_db()
    assert quality(built.campaign, None).lines[1] == (
        f"Ranking campaign over the translations: {ranking.name}",
        reverse("admin:campaigns_campaign_change", args=[ranking.pk]),
    )
